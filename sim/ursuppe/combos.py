"""``soup combos``: the killer-combination scan (issue 14, point 6), a causal design.

One seat of every game is given one or two genes at setup ("gifted", paid for by nobody:
Rules.gift, sim/ursuppe/phases/setup.give_gifts), and the game is compared with the same game
without the gift under common random numbers. The *arms* are the baseline (no gift), one arm per
single gene and one per pair of genes; every arm plays game indices 0..n-1 with the same seed,
so game i of every arm has the same seating, environment deck, extra deck (XM3, less the gifted
cards) and dice streams: the arms differ only through the gift and the decisions it changes.

The gifted player is the one on start space (game index mod P) + 1 (setup.gifted_player), so the
gift rotates over the start spaces. Every player plays the same strategy, so any difference is
the gift's. Per arm and game the gifted player's outcome is kept (won 0/1, final score-track
position); analysis/combos.py turns the vectors into gains, interactions, intervals and
Benjamini-Hochberg q-values.

With ``genes="extra"`` the scan covers the 26 extra genes (XG-01..XG-26; 325 pairs), with
``"all"`` every gene in play (46 genes, 1,035 pairs less those a player cannot hold together:
an advanced gene and the lower gene it replaces, G3/I5). The rules flag ``extra_genes`` is
switched on for the scan (XM1): the extra genes are only in play with it.
"""

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from sim.errors import UserError
from sim.ursuppe.genes import EXTRA_GENES, GENE_ALIASES, GENE_INDEX, GENE_NAMES, N_GENES
from sim.ursuppe.rules import NO_GIFT, RuleBook, Rules, load_rules

GENE_SETS = ("extra", "all")
DEFAULT_STRATEGY = "greedy"
# Games per arm of the default scan: 348 arms (the baseline, 26 singles and the 321 pairs of extra
# genes a player can hold together; 3.57 million games with the observational view) at 4 players
# in 3 to 4 minutes on 2 free cores (15,000 games/s measured; 12,700 games per CPU-second) and in
# 9.8 minutes measured with four other jobs on the two cores (6,160 games/s); docs/combos.md. It
# detects an interaction of 2.7 win-rate points. tests/test_combos.py checks the CLI's copy.
DEFAULT_GAMES = 10_000
OBSERVED_FACTOR = 10  # default games of the observational view: 10 x games per arm
SEATING = "rotate"  # S5: every start-space permutation equally often (the gift rotates too)
CHUNK_GAMES = 2_000  # games of one arm played in one batch (memory stays small)
Arm = tuple[int, ...]  # the gifted genes: () baseline, (a,) a single gene, (a, b) a pair


def combo_book(rules_file: str | Path | None = None) -> RuleBook:
    """The rules of the scan: the default rules and ``rules_file`` (a house-rules layer), with
    the extra genes in play (flags.extra_genes = true, XM1)."""
    return load_rules(rules_file, overrides={"flags": {"extra_genes": True}})


def scanned_genes(rules: Rules, which: str, only: list[str] | None = None) -> list[int]:
    """The genes of the scan: the extra genes in play ("extra"), or every gene in play ("all"),
    or the genes named in ``only``; a gene with no copy for this player count (an excluded extra
    gene, XM8) cannot be given."""
    if only:
        chosen = list(dict.fromkeys(parse_gene(name) for name in only))
        for i in chosen:
            if rules.gene_copies[i] <= 0:
                raise UserError(f"--gene: {GENE_NAMES[i]} is not in play with {rules.players} players")
        return sorted(chosen)
    if which not in GENE_SETS:
        raise UserError(f"--genes: expected one of {', '.join(GENE_SETS)}, got {which!r}")
    candidates = EXTRA_GENES if which == "extra" else range(N_GENES)
    return [int(i) for i in candidates if rules.gene_copies[i] > 0]


def holdable(rules: Rules, a: int, b: int) -> bool:
    """Can one player hold genes a and b together? Not an advanced gene beside the only lower
    gene it replaces (G3, I5)."""
    for x, y in ((a, b), (b, a)):
        lower = rules.gene_lower[x]
        if lower[0] == y and lower[1] < 0:
            return False
    return True


def build_arms(rules: Rules, genes: list[int]) -> tuple[list[Arm], list[tuple[int, int]]]:
    """Baseline, the singles in gene order, then every holdable pair; and the skipped pairs."""
    pairs = [(a, b) for a, b in combinations(genes, 2)]
    kept = [p for p in pairs if holdable(rules, *p)]
    skipped = [p for p in pairs if not holdable(rules, *p)]
    return [(), *[(g,) for g in genes], *kept], skipped


def parse_gene(name: str) -> int:
    """A gene by name (case-insensitive, aliases accepted); unknown: a one-line user error."""
    names = {n.lower(): i for n, i in GENE_INDEX.items()}
    names.update({alias.lower(): GENE_INDEX[real] for alias, real in GENE_ALIASES.items()})
    key = names.get(name.strip().lower())
    if key is None:
        raise UserError(f"unknown gene {name!r}; genes: {', '.join(GENE_NAMES)}")
    return int(key)


def gifted_rules(rules: Rules, arm: Arm) -> Rules:
    """``rules`` with Rules.gift = the arm's genes (-1 padded; at most two)."""
    if len(arm) > len(NO_GIFT):
        raise ValueError(f"a gift is at most {len(NO_GIFT)} genes, got {len(arm)}")
    gift = np.array(list(arm) + list(NO_GIFT)[: 2 - len(arm)], dtype=np.int8)
    return rules._replace(gift=gift)


def play_arm(
    rules: Rules,
    arm: Arm,
    strategy: Any,
    seed: int,
    first: int,
    count: int,
    threads: int,
) -> tuple[np.ndarray, np.ndarray, Any]:
    """Play games first..first+count-1 of one arm (every player ``strategy``) in memory; the
    gifted player's won and final position, and the finished batch."""
    from sim.ursuppe import batch as batch_mod
    from strategies.params import parameter_table

    games = np.arange(first, first + count, dtype=np.int64)
    b = batch_mod.new_batch(
        gifted_rules(rules, arm),
        parameter_table([strategy]),
        np.zeros(rules.players, dtype=np.int16),
        seed,
        games,
    )
    batch_mod.play(b, seating=SEATING, threads=threads)
    err = batch_mod.first_error(b)
    if err is not None:
        raise batch_mod.GameError(f"game {first + err[0]}: {batch_mod.describe_error(err[1])}")
    st = b.state
    P = rules.players
    gifted = np.argmax(st.seat == (games % P + 1)[:, None], axis=1)  # setup.gifted_player
    rows = np.arange(count)
    position = st.score[rows, gifted].astype(np.int16)
    won = (st.score.max(axis=1) == position).astype(np.int8)  # I6: positions are distinct
    return won, position, b


def play_scan(
    rules: Rules,
    arms: list[Arm],
    strategy: Any,
    seed: int,
    games: int,
    threads: int,
    progress: Callable[[int, int], None] | None = None,
    baseline_batches: Callable[[Any], None] | None = None,
    baseline_games: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Every arm on games 0..games-1 (chunks of CHUNK_GAMES); ``progress(done, total)`` after
    each chunk. The baseline arm (``arms[0]``, no gift) may play ``baseline_games`` >= games
    games: its batches go to ``baseline_batches`` (the observational view: normal market games)
    and its first ``games`` outcomes are the baseline.

    Ctrl-C (KeyboardInterrupt) after the baseline and at least one more arm ends the scan early:
    the outcomes of the arms finished so far are returned (fewer rows than ``arms``; the arm it
    was playing is dropped). The singles come before the pairs, so every finished pair has its
    singles. Earlier, the interrupt goes on up."""
    won = np.zeros((len(arms), games), dtype=np.int8)
    position = np.zeros((len(arms), games), dtype=np.int16)
    first_games = max(games, baseline_games or 0)
    total = games * (len(arms) - 1) + first_games
    done = 0
    finished = 0
    try:
        for k, arm in enumerate(arms):
            n = first_games if k == 0 else games
            for first in range(0, n, CHUNK_GAMES):
                count = min(CHUNK_GAMES, n - first)
                w, pos, b = play_arm(rules, arm, strategy, seed, first, count, threads)
                keep = max(0, min(count, games - first))
                won[k, first : first + keep] = w[:keep]
                position[k, first : first + keep] = pos[:keep]
                if k == 0 and baseline_batches is not None:
                    baseline_batches(b)
                done += count
                if first + count >= n:
                    finished = k + 1  # before progress: a Ctrl-C there keeps this arm
                if progress is not None:
                    progress(done, total)
    except KeyboardInterrupt:
        if finished < 2:
            raise
    return won[:finished], position[:finished]


@dataclass
class ComboResult:
    """A finished scan: the table (analysis.combos.combo_table), the observational table (or
    None), the files written, the report's lines, the games played and the seconds taken;
    ``arms_done`` < ``arms`` when Ctrl-C ended it early (the files hold the finished arms)."""

    out: Path
    table: Any
    observed: Any
    files: list[Path]
    lines: list[str]
    games_spent: int
    seconds: float
    detectable: dict[str, float]
    arms_done: int = 0
    arms: int = 0


def check_options(book: RuleBook, players: int, games: int, top: int) -> None:
    """One-line user errors for options the scan cannot run with."""
    if players not in book.player_counts or players < 3:
        counts = ", ".join(str(p) for p in book.player_counts if p >= 3)
        raise UserError(
            f"--players: expected one of {counts} (the extra genes need 3-6 players, XM1), got {players}"
        )
    if games < 2:
        raise UserError(
            f"--games-per-arm: expected at least 2 games (a paired interval needs 2), got {games}"
        )
    if top < 1:
        raise UserError(f"--top: expected at least 1, got {top}")


def default_out(players: int, genes: str, seed: int) -> Path:
    return Path("results") / f"combos-{players}p-{genes}-s{seed}"


def run_combos(
    players: int = 4,
    genes: str = "extra",
    games: int = DEFAULT_GAMES,
    strategy: str = DEFAULT_STRATEGY,
    seed: int = 1,
    threads: int = 1,
    rules_file: str | Path | None = None,
    top: int = 10,
    out: Path | None = None,
    observed_dir: Path | None = None,
    observed_games: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    only: list[str] | None = None,
) -> ComboResult:
    """The whole scan: play every arm (baseline, singles, pairs of ``genes``) on games
    0..games-1, the observational view (``observed_dir``'s normal games, else the baseline arm
    extended to ``observed_games`` games, default OBSERVED_FACTOR x games; 0: none), and write
    into ``out``: combos.csv (singles and pairs), observed.csv, combos.md (the report),
    combos-heatmap.png and outcomes.npz (the per-game outcome vectors of every arm), each
    atomically. Bad input raises UserError before any game is played."""
    import time

    import polars as pl

    from analysis import combos as stats
    from analysis.tables import write_csv_atomic, write_text_atomic
    from sim.runner import write_atomic
    from sim.ursuppe.simulation import outcome_rows
    from strategies.params import load_strategy

    book = combo_book(rules_file)
    check_options(book, players, games, top)
    rules = book.for_players(players)
    scanned = scanned_genes(rules, genes, only)
    if only:
        genes = "chosen"
    if len(scanned) < 2:
        raise UserError(f"--genes {genes}: fewer than 2 genes in play for {players} players")
    chosen = load_strategy(strategy)
    arms, skipped = build_arms(rules, scanned)
    if observed_dir is not None and observed_games:
        raise UserError("--observed and --observed-games: give one (an existing run, or games to play)")
    if observed_games is None:
        observed_games = 0 if observed_dir is not None else OBSERVED_FACTOR * games
    observed_rows = None
    if observed_dir is not None:
        from analysis.win_rates import load_results

        try:
            observed_rows = (
                load_results(observed_dir).select("run", "game", "players", "won", "genes_held").collect()
            )
        except (OSError, ValueError) as e:
            raise UserError(f"--observed: {observed_dir}: {e}") from None
        if observed_rows.filter(pl.col("players") == players).height == 0:
            raise UserError(f"--observed: {observed_dir} holds no {players}-player games")
    out = out or default_out(players, genes, seed)
    from sim.ursuppe.experiments import check_out

    check_out(out)
    tables: list[Any] = []

    def keep(b: Any) -> None:
        rows = pl.from_arrow(outcome_rows(b, seed, [chosen.name], book.rules_id))
        tables.append(rows.select("game", "players", "won", "genes_held"))

    start = time.perf_counter()
    won, position = play_scan(
        rules,
        arms,
        chosen,
        seed,
        games,
        threads,
        progress,
        keep if observed_games else None,
        max(games, observed_games),
    )
    seconds = time.perf_counter() - start
    all_arms = len(arms)
    arms = arms[: len(won)]  # fewer when Ctrl-C ended the scan (play_scan)
    spent = games * len(arms) + max(0, observed_games - games)
    table = stats.combo_table(arms, won, position)
    observed = None
    observed_line = ""
    if observed_rows is not None:
        observed = stats.observed_pairs(observed_rows, scanned, players)
        n_observed = observed_rows.filter(pl.col("players") == players).height // players
        observed_line = f"From {observed_dir}: {n_observed:,} games."
    elif observed_games:
        observed = stats.observed_pairs(pl.concat(tables), scanned, players)
        observed_line = (
            f"From the baseline arm extended to {max(games, observed_games):,} normal games (no gift,"
            f" every player {chosen.name}, extra genes on)."
        )
    detectable = stats.detectable_effects(table)
    lines = [
        f"{players} players, every player {chosen.name}, seed {seed}, rules {book.rules_id}"
        + (f" ({Path(rules_file).name})" if rules_file else "")
        + ", flags.extra_genes = true",
        f"genes: {genes} ({len(scanned)} genes, {len(arms) - 1 - len(scanned)} pairs"
        + (
            f"; {len(skipped)} pairs skipped, a gene and the lower gene it replaces (G3): "
            + ", ".join(f"{GENE_NAMES[a]} + {GENE_NAMES[b]}" for a, b in skipped)
            if skipped
            else ""
        )
        + ")",
        f"{games:,} games per arm, {len(arms)} arms (baseline, {len(scanned)} singles,"
        f" {len(arms) - 1 - len(scanned)}"
        f" pairs); {spent:,} games spent in {seconds:,.0f} s ({spent / max(seconds, 1e-9):,.0f} games/s,"
        f" {threads} thread{'s' if threads != 1 else ''})",
        f"baseline: the gifted seat wins {won[0].mean():.3f} of its games without a gift"
        f" (chance 1/{players})",
    ]
    if len(arms) < all_arms:
        lines.append(
            f"INTERRUPTED (Ctrl-C) after {len(arms)} of {all_arms} arms: the tables hold the finished"
            " arms only; run the command again for the whole scan"
        )
    out.mkdir(parents=True, exist_ok=True)
    files = [out / "combos.csv", out / "combos.md", out / "combos-heatmap.png", out / "outcomes.npz"]
    write_csv_atomic(files[0], table)
    write_text_atomic(files[1], stats.report_markdown(table, lines, top, observed, observed_line))
    stats.write_heatmap(
        table,
        [GENE_NAMES[g] for g in scanned],
        files[2],
        f"Gifted gene pairs, {players} players, {games:,} games per arm (dot: BH q < 0.05)",
    )
    arm_matrix = np.array([list(a) + [-1] * (2 - len(a)) for a in arms], dtype=np.int8)

    def save_outcomes(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            np.savez_compressed(f, arms=arm_matrix, won=won, position=position, seed=seed, players=players)

    write_atomic(files[3], save_outcomes)
    if observed is not None:
        files.append(out / "observed.csv")
        write_csv_atomic(files[-1], observed)
    return ComboResult(out, table, observed, files, lines, spent, seconds, detectable, len(arms), all_arms)
