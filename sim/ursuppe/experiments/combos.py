"""``soup combos``: the killer-combination scan (issue 14, point 6), a causal design.

One seat of every game is given one or two genes at setup ("gifted", paid for by nobody:
Rules.gift, sim/ursuppe/engine/phases/setup.give_gifts), and the game is compared with the same game
without the gift under common random numbers. The *arms* are the baseline (no gift), one arm per
single gene and one per pair of genes; every arm plays game indices 0..n-1 with the same seed,
so game i of every arm has the same seating, environment deck, extra deck (XM3, less the gifted
cards) and dice streams: the arms differ only through the gift and the decisions it changes.

Who plays (:class:`Players`): the gifted seat's strategy (the *holder*) and the *field*, the other
seats (one strategy everywhere by default; fixed opponents or a pool drawn per game). With one
strategy at every seat the gifted player is the one on start space (game index mod P) + 1
(players.gifted_player), so the gift rotates over the start spaces, as before the field options
existed; otherwise it is player 0 (Rules.gift_to = 0), who plays the holder and sits on every start
space equally often by the rotate design, like the tuned player of soup tune. A gifted card cannot
be exchanged by Highly Adaptable (Rules.gift_keep = GIFT_NO_EXCHANGE, docs/combos.md). Per arm and
game the gifted player's outcome is kept (won 0/1, final score-track position, whether it still
holds each gifted gene at the end); analysis/ursuppe/combos.py turns the vectors into gains,
interactions, intervals and Benjamini-Hochberg q-values. After the scan a confirmation stage
re-plays the top arms on fresh seeds under a panel of fields and holders
(sim/ursuppe/experiments/combos_confirm.py).

With ``genes="extra"`` the scan covers the 26 extra genes (XG-01..XG-26; 325 pairs), with
``"all"`` every gene in play (46 genes, 1,035 pairs less those a player cannot hold together:
an advanced gene and the lower gene it replaces, G3/I5). The rules flag ``extra_genes`` is
switched on for the scan (XM1): the extra genes are only in play with it.
"""

import hashlib
import io
import json
import os
import shlex
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from sim import out_dirs
from sim.errors import UserError
from sim.game import strategy_list
from sim.ursuppe.experiments.tuning import Field, opponent_rows
from sim.ursuppe.rules.book import GIFT_NO_EXCHANGE, NO_GIFT, RuleBook, Rules, load_rules
from sim.ursuppe.rules.genes import EXTRA_GENES, GENE_ALIASES, GENE_INDEX, GENE_NAMES, N_GENES
from strategies.ursuppe import DEFAULT_POOL
from strategies.ursuppe.params import Strategy, load_strategy

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
# What the holder may do with a gifted card: everything it may do with a bought one, except
# exchange it with Highly Adaptable (XG-08). Without this, a holder of Highly Adaptable swaps the
# free card for the best card of the pool in round 1, and a pair "Highly Adaptable + X" measures
# Highly Adaptable and a free Division Rate (issue 20.3); docs/combos.md.
GIFT_KEEP = GIFT_NO_EXCHANGE
MIX = "mix"  # a field spec: every other seat drawn per game from the default pool
OUTCOMES = "outcomes.npz"
TIMING = "timing.json"
Arm = tuple[int, ...]  # the gifted genes: () baseline, (a,) a single gene, (a, b) a pair


def combo_book(rules_file: str | Path | None = None, overrides: dict[str, Any] | None = None) -> RuleBook:
    """The rules of the scan: the default rules and ``rules_file`` (a house-rules layer), with
    the extra genes in play (flags.extra_genes = true, XM1) and ``overrides`` on top (the
    confirmation stage's reference genes and decks)."""
    return load_rules(
        rules_file, overrides=merge_overrides({"flags": {"extra_genes": True}}, overrides or {})
    )


def merge_overrides(base: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """Two rules-override trees merged key by key (``more`` wins on a leaf), neither changed."""
    out = dict(base)
    for k, v in more.items():
        out[k] = merge_overrides(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def scanned_genes(rules: Rules, which: str, only: list[str] | None = None) -> list[int]:
    """The genes of the scan: the extra genes in play ("extra"), or every gene in play ("all"),
    or the genes named in ``only``; a gene with no copy for this player count (an excluded extra
    gene, XM8) cannot be given."""
    if which not in GENE_SETS:
        raise UserError(f"--genes: expected one of {', '.join(GENE_SETS)}, got {which!r}")
    if only:
        chosen = list(dict.fromkeys(parse_gene(name) for name in only))
        for i in chosen:
            if rules.gene_copies[i] <= 0:
                why = "excluded by flags.extra_excluded" if i in EXTRA_GENES else "no copies at this count"
                raise UserError(
                    f"--gene: {GENE_NAMES[i]} is not in play with {rules.players} players ({why})"
                )
        return sorted(chosen)
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


def all_gene_names(book: Any) -> list[str]:
    """Every gene's name by index: the 46 of genes.GENE_NAMES, then any number-only gene the
    book declares (RuleBook.gene_names, when the rules have it)."""
    names = getattr(book, "gene_names", None)
    return (
        [str(n) for n in names] if names is not None and len(names) >= len(GENE_NAMES) else list(GENE_NAMES)
    )


def gene_name(book_or_rules: Any, gene: int) -> str:
    """A gene's name: the 46 genes of genes.GENE_NAMES, or a number-only gene a rules file
    declares (the confirmation stage's null gene), by the book's names."""
    if gene < len(GENE_NAMES):
        return GENE_NAMES[gene]
    names = getattr(book_or_rules, "gene_names", None)
    return str(names[gene]) if names is not None and gene < len(names) else f"gene {gene}"


# --------------------------------------------------------------------------------------------
# Who plays: the holder (the gifted seat) and the field (every other seat)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Players:
    """The strategies of a combos game: ``holder`` plays the gifted seat, ``field`` the others
    (tuning.Field: ``against``, one strategy per other seat, or ``mix``, every other seat drawn
    per game from a pool, the same draws in every arm: they depend on (seed, game) only)."""

    holder: Strategy
    field: Field

    @classmethod
    def mirror(cls, strategy: Strategy, players: int) -> "Players":
        """Every seat ``strategy`` (the scan without field options: today's design)."""
        return cls(strategy, Field("against", (strategy,) * (players - 1)))

    def uniform(self) -> bool:
        """One strategy at every seat (same parameter vector): the gifted player is then the one on
        start space (game mod P) + 1, and the batch is built exactly as before the field options."""
        return all(np.array_equal(s.vector, self.holder.vector) for s in self.field.strategies)

    def gift_to(self) -> int:
        """Rules.gift_to: -1 (start space game mod P + 1) with one strategy everywhere, else player
        0, the holder's colour (rotate seating puts it on every start space equally often)."""
        return -1 if self.uniform() else 0

    def params(self) -> np.ndarray:
        """The parameter rows the batch reads: the holder's, then the field's."""
        from strategies.ursuppe.params import parameter_table

        if self.uniform():
            return parameter_table([self.holder])
        return parameter_table([self.holder, *self.field.strategies])

    def assignment(self, seed: int, games: np.ndarray, players: int) -> np.ndarray:
        """Strategy row per player: int16 [P] (one strategy everywhere) or [games, P] (player 0
        the holder, the others from tuning.opponent_rows: fixed or drawn per game)."""
        if self.uniform():
            return np.zeros(players, dtype=np.int16)
        _, opp = opponent_rows(self.field, seed, games, players, None)
        out = np.zeros((len(games), players), dtype=np.int16)
        out[:, 1:] = 1 + opp
        return out

    def field_text(self) -> str:
        """The field in words, as the report's headline names it."""
        names = [s.name for s in self.field.strategies]
        if self.field.kind == "mix":
            if len(set(names)) == 1:
                return f"every other seat {names[0]}"
            return f"every other seat drawn per game from {', '.join(names)}"
        if len(set(names)) == 1:
            return f"every other seat {names[0]}"
        return f"fixed opponents {', '.join(names)} (one per other seat)"

    def describe(self) -> str:
        return f"{self.field_text()}, holder {self.holder.name}"

    def row_names(self) -> list[str]:
        """The strategy name of every parameter row (:meth:`params`)."""
        if self.uniform():
            return [self.holder.name]
        return [self.holder.name, *(s.name for s in self.field.strategies)]

    def fingerprint(self) -> dict[str, Any]:
        """What determines the games (names and parameter vectors), for a resumed run's check."""
        return {
            "holder": [self.holder.name, [float(x) for x in self.holder.vector]],
            "field": self.field.kind,
            "others": [[s.name, [float(x) for x in s.vector]] for s in self.field.strategies],
        }


def parse_field(spec: str, players: int, option: str = "--panel-fields") -> Field:
    """A field from its spec: ``NAME`` or ``FILE`` (every other seat plays it), ``mix`` (every
    other seat drawn per game from the default pool), ``pool:A+B+C`` (drawn from A, B, C) or
    ``against:A+B+C`` (fixed opponents, one per other seat). A bad name: a one-line UserError."""
    spec = spec.strip()
    kind, _, names = spec.partition(":")
    if spec == MIX:
        return Field("mix", tuple(load_strategy(n) for n in DEFAULT_POOL))
    if names and kind in ("pool", "against"):
        items = [n.strip() for n in names.split("+") if n.strip()]
        if not items:
            raise UserError(f"{option}: {spec!r}: expected {kind}:A+B+...")
        if kind == "pool":
            return Field("mix", tuple(load_strategy(n) for n in dict.fromkeys(items)))
        return against_field(items, players, f"{option}: {spec!r}")
    return Field("against", (load_strategy(spec),) * (players - 1))


def against_field(names: list[str], players: int, option: str = "--against") -> Field:
    """Fixed opponents: one strategy per other seat, or one for all of them."""
    if len(names) == 1:
        names = names * (players - 1)
    if len(names) != players - 1:
        raise UserError(
            f"{option}: expected 1 or {players - 1} strategies (one per other seat), got {len(names)}"
        )
    return Field("against", tuple(load_strategy(n) for n in names))


def scan_players(
    players: int,
    strategy: str = DEFAULT_STRATEGY,
    holder: str | None = None,
    against: str | None = None,
    pool: str | None = None,
) -> Players:
    """The scan's players from the command's options: ``strategy`` plays every seat not given
    otherwise, ``holder`` the gifted seat, ``against`` (comma-separated) fixed opponents,
    ``pool`` (comma-separated) a pool every other seat is drawn from per game."""
    if against is not None and pool is not None:
        raise UserError("--against and --pool: give one field, not both")
    base = load_strategy(strategy)
    gifted = load_strategy(holder) if holder is not None else base
    if against is not None:
        fld = against_field(strategy_list(against, "--against"), players)
    elif pool is not None:
        fld = Field("mix", tuple(load_strategy(n) for n in dict.fromkeys(strategy_list(pool, "--pool"))))
    else:
        fld = Field("against", (base,) * (players - 1))
    return Players(gifted, fld)


# --------------------------------------------------------------------------------------------
# Playing the arms
# --------------------------------------------------------------------------------------------


def gifted_rules(rules: Rules, arm: Arm, gift_to: int = -1, keep: int = GIFT_KEEP) -> Rules:
    """``rules`` with Rules.gift = the arm's genes (-1 padded; at most two), given to ``gift_to``
    (-1: the player on start space game mod P + 1) and kept as ``keep`` says (GIFT_*)."""
    if len(arm) > len(NO_GIFT):
        raise ValueError(f"a gift is at most {len(NO_GIFT)} genes, got {len(arm)}")
    gift = np.array(list(arm) + list(NO_GIFT)[: 2 - len(arm)], dtype=np.int8)
    return rules._replace(gift=gift, gift_to=int(gift_to), gift_keep=int(keep))


def gifted_players(rules: Rules, seat: np.ndarray, games: np.ndarray) -> np.ndarray:
    """The gifted player of every game (setup.give_gifts' receiver): Rules.gift_to, or the player
    on start space (game index mod P) + 1 (players.gifted_player: the kernel, read back here)."""
    if rules.gift_to >= 0:
        return np.full(len(games), rules.gift_to, dtype=np.int64)
    return np.argmax(seat == (games % rules.players + 1)[:, None], axis=1)


class ArmOutcome(NamedTuple):
    """One arm's games: the gifted player's won (0/1) and final position, whether it holds each
    gifted gene at the end (int8 [2, games]; 0 for an empty slot), and the finished batch."""

    won: np.ndarray
    position: np.ndarray
    held: np.ndarray
    batch: Any


def play_arm(
    rules: Rules,
    arm: Arm,
    players: "Players | Strategy",
    seed: int,
    first: int,
    count: int,
    threads: int,
) -> ArmOutcome:
    """Play games first..first+count-1 of one arm in memory (``players``: a Players, or one
    strategy at every seat)."""
    from sim.ursuppe.engine import batch as batch_mod

    if not isinstance(players, Players):
        players = Players.mirror(players, rules.players)
    games = np.arange(first, first + count, dtype=np.int64)
    r = gifted_rules(rules, arm, players.gift_to())
    b = batch_mod.new_batch(r, players.params(), players.assignment(seed, games, rules.players), seed, games)
    batch_mod.play(b, seating=SEATING, threads=threads)
    err = batch_mod.first_error(b)
    if err is not None:
        raise batch_mod.GameError(f"game {first + err[0]}: {batch_mod.describe_error(err[1])}")
    st = b.state
    gifted = gifted_players(r, st.seat, games)
    rows = np.arange(count)
    position = st.score[rows, gifted].astype(np.int16)
    won = (st.score.max(axis=1) == position).astype(np.int8)  # I6: positions are distinct
    held = np.zeros((2, count), dtype=np.int8)
    for k, gene in enumerate(arm):
        held[k] = st.genes[rows, gifted, gene] != 0
    return ArmOutcome(won, position, held, b)


class ScanOutcome(NamedTuple):
    """Per arm and game: won, position and held (held: [arms, 2, games]); ``finished`` arms."""

    won: np.ndarray
    position: np.ndarray
    held: np.ndarray

    @classmethod
    def empty(cls, arms: int, games: int) -> "ScanOutcome":
        return cls(
            np.zeros((arms, games), dtype=np.int8),
            np.zeros((arms, games), dtype=np.int16),
            np.zeros((arms, 2, games), dtype=np.int8),
        )

    def head(self, k: int) -> "ScanOutcome":
        return ScanOutcome(self.won[:k], self.position[:k], self.held[:k])


def play_scan(
    rules: Rules,
    arms: list[Arm],
    players: "Players | Strategy",
    seed: int,
    games: int,
    threads: int,
    progress: Callable[[int, int], None] | None = None,
    baseline_batches: Callable[[Any], None] | None = None,
    baseline_games: int | None = None,
    kept: ScanOutcome | None = None,
) -> ScanOutcome:
    """Every arm on games 0..games-1 (chunks of CHUNK_GAMES); ``progress(done, total)`` after
    each chunk. The baseline arm (``arms[0]``, no gift) may play ``baseline_games`` >= games
    games: its batches go to ``baseline_batches`` (the observational view: normal market games)
    and its first ``games`` outcomes are the baseline. ``kept``: the outcomes of the first arms
    from an earlier, interrupted run of the same scan; they are not played again.

    Ctrl-C (KeyboardInterrupt) after the baseline and at least one more arm ends the scan early:
    the outcomes of the arms finished so far are returned (fewer rows than ``arms``; the arm it
    was playing is dropped). The singles come before the pairs, so every finished pair has its
    singles. Earlier, the interrupt goes on up."""
    out = ScanOutcome.empty(len(arms), games)
    finished = 0
    if kept is not None:
        finished = len(kept.won)
        for mine, theirs in zip(out, kept, strict=True):
            mine[:finished] = theirs
    first_games = max(games, baseline_games or 0)
    total = games * (len(arms) - 1) + first_games
    done = 0 if finished == 0 else first_games + games * (finished - 1)
    if progress is not None and done:
        progress(done, total)
    try:
        for k in range(finished, len(arms)):
            arm = arms[k]
            n = first_games if k == 0 else games
            for first in range(0, n, CHUNK_GAMES):
                count = min(CHUNK_GAMES, n - first)
                r = play_arm(rules, arm, players, seed, first, count, threads)
                keep = max(0, min(count, games - first))
                out.won[k, first : first + keep] = r.won[:keep]
                out.position[k, first : first + keep] = r.position[:keep]
                out.held[k, :, first : first + keep] = r.held[:, :keep]
                if k == 0 and baseline_batches is not None:
                    baseline_batches(r.batch)
                done += count
                if first + count >= n:
                    finished = k + 1  # before progress: a Ctrl-C there keeps this arm
                if progress is not None:
                    progress(done, total)
    except KeyboardInterrupt:
        if finished < 2:
            raise
    return out.head(finished)


# --------------------------------------------------------------------------------------------
# Files: deterministic npz, the scan's outcomes and their fingerprint
# --------------------------------------------------------------------------------------------


def save_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """``arrays`` as a compressed npz (np.load reads it), written atomically and byte for byte
    the same for the same arrays: numpy's savez stamps each member with the current time, so the
    same command would not give the same file."""
    from sim.runner import write_atomic

    def write(tmp: Path) -> None:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for name, a in arrays.items():
                buf = io.BytesIO()
                np.lib.format.write_array(buf, np.asarray(a), allow_pickle=False)
                info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, buf.getvalue())

    write_atomic(path, write)


def fingerprint_text(doc: dict[str, Any]) -> str:
    """A run's identity as a short hash of its JSON (what a resumed run must match)."""
    return hashlib.blake2b(json.dumps(doc, sort_keys=True).encode(), digest_size=16).hexdigest()


def load_kept(path: Path, fingerprint: str) -> dict[str, np.ndarray] | None:
    """The arrays of an earlier run's npz when it is the same run (same fingerprint), else None
    (a missing, damaged or different file is played again)."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            if "fingerprint" not in z.files or str(z["fingerprint"]) != fingerprint:
                return None
            return {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError):
        return None


# --------------------------------------------------------------------------------------------
# The whole command
# --------------------------------------------------------------------------------------------


@dataclass
class ComboResult:
    """A finished scan: the table (analysis.ursuppe.combos.combo_table), the observational table (or
    None), the files written, the report's lines, the games played and the seconds taken;
    ``arms_done`` < ``arms`` when Ctrl-C ended it early (the files hold the finished arms).
    ``confirmation``: the confirmation stage's result (combos_confirm.Confirmation) or None."""

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
    confirmation: Any = None
    resumed_arms: int = 0

    @property
    def interrupted(self) -> bool:
        """Ctrl-C ended the scan or the confirmation stage early."""
        return self.arms_done < self.arms or (self.confirmation is not None and self.confirmation.interrupted)


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


def check_pairs(
    scanned: list[int], arms: list[Arm], genes: str, players: int, rules_file: str | Path | None
) -> None:
    """The scan measures pairs: fewer than two genes, or genes no player can hold together, is a
    one-line error before anything loads (issue 21.9: a single ``--gene`` used to fail after an
    empty progress bar, blaming "--genes chosen")."""
    names = [GENE_NAMES[g] for g in scanned]
    if genes == "chosen" and len(scanned) < 2:
        alone = names[0] if names else "none"
        raise UserError(
            f"--gene: expected at least 2 different genes (the scan measures pairs), got {alone}; "
            f"one gene's value: soup verdict --gene {shlex.quote(alone)}"
        )
    if len(scanned) < 2:
        where = f" under {rules_file}" if rules_file else ""
        raise UserError(
            f"--genes {genes}: expected at least 2 genes in play, got {len(scanned)} at {players} players"
            f"{where} (flags.extra_excluded leaves the others out)"
        )
    if len(arms) == 1 + len(scanned):  # every pair skipped: an advanced gene and its lower gene
        raise UserError(
            f"--gene: {' and '.join(names)} cannot be held together (an advanced gene and the lower gene"
            " it replaces, G3), so there is no pair to scan; add another --gene"
        )


# Bytes per arm and game held in memory: won (int8), position (int16), held (2 x int8); the
# confirmation stage keeps as much per arm and game of a cell. The observational view keeps about
# OBSERVED_ROW_BYTES per player and game of the extended baseline (game, players, won, genes_held).
OUTCOME_BYTES = 5
OBSERVED_ROW_BYTES = 32


def check_memory(need: int, option: str, what: str) -> None:
    """``need`` bytes that cannot fit in half this machine's memory are refused before the engine
    loads (``option`` and ``what`` name them), rather than failing or swapping once the arrays
    fill up: ``--games-per-arm 10000000000`` used to start and then die."""
    try:
        have = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not a POSIX system: no check
        return
    if need > have // 2:
        raise UserError(
            f"{option}: {what} need {need / 2**30:,.1f} GiB of memory, more than half of the"
            f" {have / 2**30:,.1f} GiB this machine has; choose fewer games"
        )


# --------------------------------------------------------------------------------------------
# --observed: a run of normal games that can answer the scan's question (issue 21.5)
# --------------------------------------------------------------------------------------------

RUN_MANIFEST = "manifest.json"  # sim.runner.MANIFEST: a soup simulate run directory


def load_observed(run: Path, book: RuleBook, players: int) -> Any:
    """The result rows (run, game, players, won, genes_held) of ``run`` for the observational
    view, refused in one line unless the run can answer it: a soup simulate run of ``players``
    players under the scan's own rules (the extra genes on, the same house rules: the same rules
    id). Any other run gives a table of pairs nobody held, or of another game: it used to be
    read and reported as "No pair was held that often"."""
    import polars as pl

    from analysis.win_rates import load_results

    if not run.is_dir():
        raise UserError(f"--observed: {run} is not a directory (expected a soup simulate run directory)")
    try:
        spec = json.loads((run / RUN_MANIFEST).read_text(encoding="utf-8"))["spec"]
        run_players, run_rules, run_id = int(spec["players"]), spec["rules"], str(spec["rules_id"])
    except FileNotFoundError:
        raise UserError(
            f"--observed: {run} is not a soup simulate run directory (no {RUN_MANIFEST})"
        ) from None
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise UserError(f"--observed: {run}/{RUN_MANIFEST} cannot be read: {e}") from None
    make = f"soup simulate --players {players} --rules FILE (a rules file with flags.extra_genes = true)"
    if run_players != players:
        raise UserError(
            f"--observed: {run} holds {run_players}-player games and the scan plays {players} players;"
            f" give a run of {players}-player games ({make})"
        )
    if not run_rules.get("flags", {}).get("extra_genes", False):
        raise UserError(
            f"--observed: {run} was played without the extra genes (flags.extra_genes = false), so no"
            f" player there held the pairs the scan measures; give a run with them ({make})"
        )
    if run_id != book.rules_id:
        diff = rules_diff(run_rules, book.data)
        shown = "; ".join(diff[:3]) + ("; ..." if len(diff) > 3 else "")
        raise UserError(
            f"--observed: {run} was played under other rules (rules id {run_id}) than the scan"
            f" ({book.rules_id}): {shown or 'the rules differ'}; give a run under the scan's rules"
            " (the same --rules file, with flags.extra_genes = true)"
        )
    try:
        rows = load_results(run).select("run", "game", "players", "won", "genes_held").collect()
    except (OSError, ValueError, pl.exceptions.PolarsError) as e:
        raise UserError(f"--observed: {run}: {' '.join(str(e).split())}") from None
    if rows.filter(pl.col("players") == players).height == 0:
        raise UserError(f"--observed: {run} holds no finished {players}-player games yet")
    return rows


def rules_diff(run: Any, scan: Any, path: str = "") -> list[str]:
    """The leaves where two rules trees differ, as "flags.x 2 (the scan: 3)", in key order."""
    if isinstance(run, dict) and isinstance(scan, dict):
        out: list[str] = []
        for key in sorted(set(run) | set(scan)):
            where = f"{path}.{key}" if path else str(key)
            if key not in run or key not in scan:
                out.append(f"{where} only in {'the run' if key in run else 'the scan'}")
            else:
                out += rules_diff(run[key], scan[key], where)
        return out
    return [] if run == scan else [f"{path} {json.dumps(run)} (the scan: {json.dumps(scan)})"]


# --------------------------------------------------------------------------------------------
# --out: a directory of combos' own (issue 21.7)
# --------------------------------------------------------------------------------------------

OUT_COMMAND = "combos"
OWN_FILES = ("outcomes.npz", "combos.md")  # a combos output written before the mark existed


def check_out(out: Path) -> None:
    """A one-line user error unless ``out`` can hold this scan's files (sim.out_dirs.check),
    checked before the engine loads (issue 21.9: a read-only --out used to be found after the
    whole scan; 21.7: combos wrote among a simulate run's chunks)."""
    out_dirs.check(Path(out), OUT_COMMAND, OWN_FILES)


def claim_out(out: Path) -> None:
    """Create ``out`` and mark it as combos' output (sim.out_dirs.claim): when the first file is
    written, after every check."""
    out_dirs.claim(out, OUT_COMMAND)


def default_out(players: int, genes: str, seed: int) -> Path:
    return Path("results") / f"combos-{players}p-{genes}-s{seed}"


@dataclass
class ScanPlan:
    """Everything the scan needs, checked before the engine loads (:func:`plan_scan`)."""

    book: RuleBook
    rules: Rules
    players: Players
    genes: str
    scanned: list[int]
    arms: list[Arm]
    skipped: list[tuple[int, int]]
    games: int
    seed: int
    observed_games: int
    observed_dir: Path | None
    observed_rows: Any
    out: Path
    rules_file: str | Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def total_games(self) -> int:
        return self.games * (len(self.arms) - 1) + max(self.games, self.observed_games)

    def fingerprint(self) -> str:
        return fingerprint_text(
            {
                "what": "soup combos scan",
                "players": self.rules.players,
                "seed": self.seed,
                "games": self.games,
                "rules_id": self.book.rules_id,
                "arms": [list(a) for a in self.arms],
                "who": self.players.fingerprint(),
                "gift_keep": GIFT_KEEP,
                "observed_games": self.observed_games,
                "observed_dir": str(self.observed_dir) if self.observed_dir is not None else None,
            }
        )

    def conditions(self) -> str:
        """The scan's conditions in words (the report's headline names them)."""
        return scan_conditions(self.players, self.book)


def scan_conditions(who: Players, book: RuleBook, deck: str | None = None) -> str:
    """What a gain was measured under, in words: e.g. "every other seat greedy, holder greedy,
    free gift at setup (paid for by nobody), gift not exchangeable by Highly Adaptable, the
    rules' deck"."""
    deck = deck or ("the rules' deck (a PLACEHOLDER)" if book.placeholder_deck else "the rules' deck")
    return (
        f"{who.describe()}, free gift at setup (paid for by nobody), gift not exchangeable by Highly"
        f" Adaptable, {deck}"
    )


def plan_scan(
    players: int = 4,
    genes: str = "extra",
    games: int = DEFAULT_GAMES,
    strategy: str = DEFAULT_STRATEGY,
    seed: int = 1,
    rules_file: str | Path | None = None,
    top: int = 10,
    out: Path | None = None,
    observed_dir: Path | None = None,
    observed_games: int | None = None,
    only: list[str] | None = None,
    holder: str | None = None,
    against: str | None = None,
    pool: str | None = None,
) -> ScanPlan:
    """Check every option of the scan (one-line UserError) and plan it; nothing is played and the
    engine is not loaded."""
    book = combo_book(rules_file)
    check_options(book, players, games, top)
    rules = book.for_players(players)
    scanned = scanned_genes(rules, genes, only)
    if only:
        genes = "chosen"
    arms, skipped = build_arms(rules, scanned)
    check_pairs(scanned, arms, genes, players, rules_file)
    outcomes = len(arms) * games * OUTCOME_BYTES
    check_memory(outcomes, "--games-per-arm", f"{games:,} games x {len(arms):,} arms")
    who = scan_players(players, strategy, holder, against, pool)
    if observed_dir is not None and observed_games:
        raise UserError("--observed and --observed-games: give one (an existing run, or games to play)")
    if observed_games is None:
        observed_games = 0 if observed_dir is not None else OBSERVED_FACTOR * games
    check_memory(
        observed_games * players * OBSERVED_ROW_BYTES, "--observed-games", f"{observed_games:,} normal games"
    )
    observed_rows = None
    if observed_dir is not None:
        observed_rows = load_observed(observed_dir, book, players)
    out = out or default_out(players, genes, seed)
    check_out(out)
    return ScanPlan(
        book,
        rules,
        who,
        genes,
        scanned,
        arms,
        skipped,
        games,
        seed,
        observed_games,
        observed_dir,
        observed_rows,
        out,
        rules_file,
    )


def scan_lines(plan: ScanPlan, arms: list[Arm], spent: int, won: np.ndarray) -> list[str]:
    """The report's first lines: what was planned and what was played (no timings: the same
    command gives the same report; they are in timing.json and on the terminal). ``arms`` are
    the arms played: fewer than the plan's when Ctrl-C ended the scan, and then every count says
    "k of n" (issue 21.3: an interrupted report printed "-4 pairs")."""
    from analysis.tables import plural

    players = plan.rules.players
    n_genes = len(plan.scanned)
    n_pairs = len(plan.arms) - 1 - n_genes  # the plan's holdable pairs
    singles = sum(1 for a in arms if len(a) == 1)
    pairs = sum(1 for a in arms if len(a) == 2)
    gifted = (
        f"the player on start space (game mod {players}) + 1 (rotating)"
        if plan.players.gift_to() < 0
        else "player 0, the holder (rotate seating: every start space equally often)"
    )
    skipped = (
        f"; {plural(len(plan.skipped), 'pair')} skipped, a gene and the lower gene it replaces (G3): "
        + ", ".join(f"{GENE_NAMES[a]} + {GENE_NAMES[b]}" for a, b in plan.skipped)
        if plan.skipped
        else ""
    )
    if len(arms) == len(plan.arms):
        played = (
            f"{plural(len(arms), 'arm')} (baseline, {plural(singles, 'single')}, {plural(pairs, 'pair')})"
        )
    else:
        played = (
            f"{len(arms)} of {plural(len(plan.arms), 'arm')} played (baseline, {singles} of"
            f" {plural(n_genes, 'single')}, {pairs} of {plural(n_pairs, 'pair')})"
        )
    return [
        f"{players} players, {plan.players.describe()}, seed {plan.seed}, rules {plan.book.rules_id}"
        + (f" ({Path(plan.rules_file).name})" if plan.rules_file else "")
        + ", flags.extra_genes = true",
        f"scan conditions: {plan.conditions()}; gifted: {gifted}",
        f"genes: {plan.genes} ({plural(n_genes, 'gene')}, {plural(n_pairs, 'pair')}{skipped})",
        f"{plan.games:,} games per arm, {played}; {_games_in_all(plan, arms, spent)}",
        f"baseline: the gifted seat wins {won[0].mean():.3f} of its games without a gift"
        f" (chance 1/{players})",
    ]


def _games_in_all(plan: ScanPlan, arms: list[Arm], spent: int) -> str:
    """What the games played are made of (issue 31.6: "240,000 games in all" held 90,000
    observational games): the scan's, then those of the baseline arm's extension."""
    scan = plan.games * len(arms)
    if spent <= scan:
        return f"{spent:,} games in all"
    return (
        f"{scan:,} scan games + {spent - scan:,} observational games (the baseline arm extended to"
        f" {spent - scan + plan.games:,} normal games) = {spent:,} games in all"
    )


def write_scan(
    plan: ScanPlan,
    arms: list[Arm],
    outcome: ScanOutcome,
    table: Any,
    observed: Any,
    observed_line: str,
    lines: list[str],
    top: int,
    fingerprint: str,
    confirmation: Any = None,
) -> list[Path]:
    """combos.csv, combos.md, combos-heatmap.png, outcomes.npz (and observed.csv), atomically."""
    from analysis.tables import write_csv_atomic
    from analysis.ursuppe import combos as stats

    out = plan.out
    claim_out(out)
    files = [out / "combos.csv", out / "combos.md", out / "combos-heatmap.png", out / OUTCOMES]
    write_csv_atomic(files[0], table)
    write_report(plan, table, observed, observed_line, lines, top, confirmation)
    stats.write_heatmap(
        table,
        [gene_name(plan.book, g) for g in plan.scanned],
        files[2],
        f"Gifted gene pairs, {plan.rules.players} players, {plan.games:,} games per arm (dot: BH q < 0.05)",
    )
    arm_matrix = np.array([list(a) + [-1] * (2 - len(a)) for a in arms], dtype=np.int8)
    arrays = {
        "arms": arm_matrix,
        "won": outcome.won,
        "position": outcome.position,
        "held": outcome.held,
        "seed": np.int64(plan.seed),
        "players": np.int64(plan.rules.players),
        "fingerprint": np.array(fingerprint),
    }
    if observed is not None and plan.observed_rows is None:
        arrays |= {f"observed.{c}": _column_array(observed[c]) for c in observed.columns}
    save_npz(files[3], arrays)
    if observed is not None:
        files.append(out / "observed.csv")
        write_csv_atomic(files[-1], observed)
    return files


def write_report(
    plan: ScanPlan,
    table: Any,
    observed: Any,
    observed_line: str,
    lines: list[str],
    top: int,
    confirmation: Any = None,
) -> Path:
    """combos.md, atomically: the scan's lines, the confirmation's headline and panel (when it
    ran), the scan's tables."""
    from analysis.tables import write_text_atomic
    from analysis.ursuppe import combos as stats

    path = plan.out / "combos.md"
    preface = confirmation.markdown if confirmation is not None else ""
    write_text_atomic(path, stats.report_markdown(table, lines, top, observed, observed_line, preface))
    return path


def _column_array(column: Any) -> np.ndarray:
    """A polars column as a numpy array an npz holds without pickling (text as fixed-width str)."""
    import polars as pl

    if column.dtype == pl.String:
        return np.array(column.to_list(), dtype=str)
    return column.to_numpy()


def _observed_from(arrays: dict[str, np.ndarray]) -> Any:
    """The observational table kept in outcomes.npz (lossless, so a resumed scan writes the same
    observed.csv and report), or None."""
    import polars as pl

    cols = {k.removeprefix("observed."): v for k, v in arrays.items() if k.startswith("observed.")}
    return pl.DataFrame(cols) if cols else None
