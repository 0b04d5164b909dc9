"""``soup combos``' confirmation stage (issue 20, points 3 and 4): the scan's top arms again, on
fresh games, under a panel of fields and holders (and optionally several decks).

The scan measures every gift under one condition (by default every seat greedy): its gains are
that condition's, and its top arms are the maxima of hundreds of noisy estimates (the winner's
curse). The confirmation stage re-plays the top singles and pairs (by gain; with the singles of
the top pairs, so that their interactions can be read too), the baseline (no gift) and a
*reference arm*, the null gene (a number-only card with no effect, price 0, MP 0:
sim/ursuppe/experiments/reference_genes.py), on games of a fresh seed (:func:`confirm_seed`, derived from the
scan's seed, never equal to it), in every *cell* of a panel: every field (who sits at the other
seats) times every holder (the gifted seat's strategy). Within a cell every arm plays the same
games (common random numbers), as in the scan.

With ``decks`` = K the games of a cell are split into K blocks of whole rotate cycles
(deck_family.deck_blocks), block j played with deck j of K plausible decks
(deck_family.plausible_decks; deck 0 is the rules' own), the same decks and blocks in every arm
and cell; the statistics add the spread of the gain across decks and whether its sign is the
same on every deck.

Every arm of the panel is labelled (analysis.ursuppe.combos.confirm_labels): **robust** (significant
after Holm across the panel's family, with the scan's sign, in every cell, and on every deck the
same sign), **conditional** (so in some cells: the cells that flip or erase it are named) or
**not confirmed**. The null gene must read 0 (within 2 standard errors) in every cell; the report
says when it does not.

Files (``out``/confirm/ and beside the scan's): one ``cell-NN.npz`` per cell (the per-game
outcomes, written after every arm, atomically, with a fingerprint: Ctrl-C keeps the finished
arms and the same command resumes them), ``confirm.csv`` (one row per arm and cell),
``confirm-decks.csv`` (with K > 1: per arm, cell and deck) and the headline and panel at the top
of combos.md.
"""

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sim.errors import UserError
from sim.ursuppe.experiments.combos import (
    GIFT_KEEP,
    OUTCOME_BYTES,
    Arm,
    Players,
    ScanPlan,
    all_gene_names,
    check_memory,
    combo_book,
    fingerprint_text,
    load_kept,
    parse_field,
    play_arm,
    save_npz,
)
from sim.ursuppe.rules.book import RuleBook, Rules
from sim.ursuppe.rules.seating import rotate_block
from strategies.ursuppe.params import load_strategy

# The default panel (docs/combos.md). Fields, three styles of table: the scan's own mirror (every
# other seat greedy), the default mix (every other seat drawn per game from greedy, breeder,
# geneticist, predator, forager: the table soup simulate plays) and an aggressive table (every
# other seat predator: it hunts the gifted player's amoebas, the field that moved Suction 2 most in
# issue 20.3). Holders, two ways to use a gift: greedy (a fixed value list that never chose the
# gift) and mutant-tuned (the strongest strategy with the extra genes, tuned against the mix; it
# values the extra genes its own way and pays defects with the cards it values least).
DEFAULT_FIELDS: tuple[str, ...] = ("greedy", "mix", "predator")
DEFAULT_HOLDERS: tuple[str, ...] = ("greedy", "mutant-tuned")
DEFAULT_TOP = 5  # singles and pairs each
CONFIRM_DIR = "confirm"
CHUNK_GAMES = 2_000


@dataclass(frozen=True)
class ConfirmConfig:
    """The confirmation stage's options: ``top`` singles and ``top`` pairs (by the scan's gain),
    ``games`` per arm and cell (default: the scan's games per arm; rounded up to whole rotate
    cycles per deck), the panel's ``fields`` and ``holders`` (specs: combos.parse_field and
    strategy names or files) and ``decks`` (None: the rules' deck only)."""

    top: int = DEFAULT_TOP
    games: int | None = None
    fields: tuple[str, ...] = DEFAULT_FIELDS
    holders: tuple[str, ...] = DEFAULT_HOLDERS
    decks: int | None = None


@dataclass(frozen=True)
class Cell:
    """One condition of the panel: a field spec and a holder spec, and who plays."""

    field_spec: str
    holder_spec: str
    players: Players
    search: Any = None  # strategies.search.SearchSpec: the holder is this search player (issue 34)

    def name(self) -> str:
        """Short: ``greedy / mutant-tuned`` (field / holder)."""
        return f"{self.field_spec} / {self.holder_spec}"

    def describe(self) -> str:
        """In words: ``every other seat predator, holder greedy``."""
        if self.search is not None:
            who = f"{self.search.name} (search, rollouts by {self.search.rollout})"
            return f"{self.players.field_text()}, holder {who}"
        return self.players.describe()


def confirm_seed(seed: int) -> int:
    """The seed of the confirmation games: derived from the scan's seed, never equal to it (the
    scan's top arms are re-played on games that did not pick them)."""
    h = hashlib.blake2b(f"soup-combos-confirm-{seed}".encode(), digest_size=8).digest()
    fresh = int.from_bytes(h, "little") & (2**63 - 1)
    return fresh if fresh != seed else fresh ^ 1


@dataclass
class ConfirmPlan:
    """Everything the confirmation stage needs, checked before the engine loads."""

    scan: ScanPlan
    config: ConfirmConfig
    cells: list[Cell]
    seed: int
    games: int
    book: RuleBook
    null_gene: int
    deck_rules: list[Rules]
    deck_labels: list[str]
    blocks: list[tuple[int, int]]
    deck_ids: list[str] = field(default_factory=list)

    def max_arms(self) -> int:
        """Arms at most: baseline, null, the top singles, the top pairs and their singles."""
        singles = len(self.scan.scanned)
        pairs = len(self.scan.arms) - 1 - singles
        top_pairs = min(self.config.top, pairs)
        return 2 + min(singles, self.config.top + 2 * top_pairs) + top_pairs

    def total_games_bound(self) -> int:
        """The confirmation's games at most (the progress bar's total before the scan ends)."""
        return len(self.cells) * self.max_arms() * self.games

    def deck_text(self) -> str:
        """The decks in words, for the conditions."""
        if len(self.deck_rules) == 1 and self.config.decks is None:
            return "the rules' deck (a PLACEHOLDER)" if self.book.placeholder_deck else "the rules' deck"
        return (
            f"{len(self.deck_rules)} plausible decks (deck 0 the rules' own), the same games split in blocks"
        )


def plan_confirmation(scan: ScanPlan, config: ConfirmConfig) -> ConfirmPlan:
    """Check the confirmation options (one-line UserError) and build the panel, the rules with
    the null gene and the decks; nothing is played and the engine is not loaded."""
    from sim.ursuppe.experiments.reference_genes import NULL_GENE, reference_overrides

    P = scan.rules.players
    if config.top < 1:
        raise UserError(f"--confirm-top: expected at least 1, got {config.top}")
    if config.games is not None and config.games < 2:
        raise UserError(f"--confirm-games: expected at least 2 games, got {config.games}")
    if config.decks is not None and config.decks < 1:
        raise UserError(f"--decks: expected at least 1 deck, got {config.decks}")
    if not config.fields:
        raise UserError("--panel-fields: expected at least one field")
    if not config.holders:
        raise UserError("--panel-holders: expected at least one holder")
    fields = [(spec, parse_field(spec, P)) for spec in dict.fromkeys(config.fields)]
    holders = [(spec, *_holder(spec)) for spec in dict.fromkeys(config.holders)]
    cells = [
        Cell(f, h, Players(strategy, fld), search) for f, fld in fields for h, strategy, search in holders
    ]
    reference = reference_overrides(None, ("null",))
    book = combo_book(scan.rules_file, reference)
    null_gene = int(book.gene_index(NULL_GENE))
    k = config.decks or 1
    cycle = rotate_block(P)
    games = config.games or scan.games
    games = -(-games // (cycle * k)) * (cycle * k)  # whole rotate cycles on every deck
    arms = 2 + min(len(scan.scanned), 3 * config.top) + config.top  # ConfirmPlan.max_arms at most
    check_memory(arms * games * OUTCOME_BYTES, "--confirm-games", f"{games:,} games x {arms} arms a cell")
    deck_rules = [book.for_players(P)]
    labels = ["the rules' deck"]
    ids = [book.rules_id]
    blocks = [(0, games)]
    if config.decks is not None:
        from sim.ursuppe.experiments import deck_family

        decks = deck_family.plausible_decks(book, k, scan.seed)
        labels = [deck_family.deck_label(d) for d in decks]
        blocks = list(deck_family.deck_blocks(games, k, cycle))
        for d in decks[1:]:  # deck 0 is the book's own: the same rules, so --decks 1 = no decks
            b = combo_book(scan.rules_file, _merge(reference, deck_family.deck_overrides(d)))
            deck_rules.append(b.for_players(P))
            ids.append(b.rules_id)
    return ConfirmPlan(
        scan, config, cells, confirm_seed(scan.seed), games, book, null_gene, deck_rules, labels, blocks, ids
    )


def _holder(spec: str) -> tuple[Any, Any]:
    """A panel holder: (its strategy's row, None), or a search player's (its rollout policy's
    row, its SearchSpec): ``search``, ``search-N`` or a search file (strategies/search.py)."""
    from sim.ursuppe.experiments import restricted as R

    if R.is_search(spec):
        try:
            search = R.search_spec(spec)
        except UserError as e:
            raise UserError(f"--panel-holders: {e}") from None
        return load_strategy(search.rollout), search
    return load_strategy(spec), None


def play_search_arm(
    book: RuleBook, rules: Rules, arm: Arm, cell: Cell, seed: int, first: int, count: int
) -> Any:
    """:func:`combos.play_arm` with a search holder: player 0 is the search player (the gift is
    player 0's: the field is not the holder's mirror), the games replayed through decision points
    (sim/ursuppe/experiments/restricted.py), its choices then played by the batch engine."""
    from sim.ursuppe.experiments import restricted as R
    from sim.ursuppe.experiments.combos import ArmOutcome, gifted_rules

    r = gifted_rules(rules, arm, 0)
    run = R.FieldRun(book, r, cell.players.holder.vector, cell.players.field, seed)
    won = np.zeros(count, np.int8)
    position = np.zeros(count, np.int16)
    held = np.zeros((2, count), np.int8)
    for i, (_, b) in enumerate(R.search_games(run, cell.search, first, count)):
        score = b.state.score[0]
        position[i] = score[0]
        won[i] = int(score.max() == score[0])  # I6: positions are distinct
        for k, gene in enumerate(arm):
            held[k, i] = b.state.genes[0, 0, gene] != 0
    return ArmOutcome(won, position, held, None)


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    from sim.ursuppe.experiments.combos import merge_overrides

    return merge_overrides(a, b)


# --------------------------------------------------------------------------------------------
# The arms
# --------------------------------------------------------------------------------------------

ROLE_BASELINE = "baseline"
ROLE_NULL = "reference (null gene)"
ROLE_TOP_SINGLE = "top single"
ROLE_PAIR_SINGLE = "single of a top pair"
ROLE_TOP_PAIR = "top pair"


def confirm_arms(table: Any, top: int, null_gene: int, names: list[str]) -> list[tuple[Arm, str]]:
    """The arms of the panel with their roles: the baseline, the null gene, the ``top`` singles
    and the ``top`` pairs of the scan's table by gain (ties: the table's order, gene order), and
    the singles of those pairs not among the top singles (so that each pair's interaction can
    be read in every cell)."""
    import polars as pl

    index = {n: i for i, n in enumerate(names)}
    ranked = table.filter(pl.col("gain").is_not_nan())  # polars sorts NaN above every number
    singles = ranked.filter(pl.col("kind") == "single").sort("gain", descending=True, maintain_order=True)
    pairs = ranked.filter(pl.col("kind") == "pair").sort("gain", descending=True, maintain_order=True)
    top_singles = [(index[a],) for a in singles["gene_a"].head(top).to_list()]
    top_pairs = [(index[a], index[b]) for a, b in pairs.select("gene_a", "gene_b").head(top).iter_rows()]
    pair_singles = sorted({(g,) for p in top_pairs for g in p} - set(top_singles))
    return [
        ((), ROLE_BASELINE),
        ((null_gene,), ROLE_NULL),
        *((a, ROLE_TOP_SINGLE) for a in top_singles),
        *((a, ROLE_PAIR_SINGLE) for a in pair_singles),
        *((a, ROLE_TOP_PAIR) for a in top_pairs),
    ]


# --------------------------------------------------------------------------------------------
# Playing the cells
# --------------------------------------------------------------------------------------------


@dataclass
class CellOutcome:
    """One cell's per-game outcomes: [arms, games] won and position, [arms, 2, games] held;
    ``done`` arms finished (the rest are zeros)."""

    won: np.ndarray
    position: np.ndarray
    held: np.ndarray
    done: int


def cell_fingerprint(plan: ConfirmPlan, cell: Cell, arms: list[Arm]) -> str:
    """What a cell's games depend on: a kept cell file is resumed only under the same."""
    return fingerprint_text(
        {
            "what": "soup combos confirmation cell",
            "players": plan.scan.rules.players,
            "seed": plan.seed,
            "games": plan.games,
            "rules": plan.deck_ids,
            "blocks": [list(b) for b in plan.blocks],
            "arms": [list(a) for a in arms],
            "who": cell.players.fingerprint(),
            **(
                {"search": [cell.search.name, cell.search.budget, cell.search.rollout]} if cell.search else {}
            ),
            "gift_keep": GIFT_KEEP,
        }
    )


def play_cell(
    plan: ConfirmPlan,
    cell: Cell,
    arms: list[Arm],
    path: Path,
    threads: int,
    progress: Callable[[int], None] | None = None,
) -> CellOutcome:
    """Play (or resume from ``path``) every arm of one cell on games 0..games-1 of the fresh
    seed, deck j's rules on block j; after each arm the cell file is rewritten atomically, so
    Ctrl-C keeps the finished arms. ``progress(games)`` after every chunk."""
    n = plan.games
    fp = cell_fingerprint(plan, cell, arms)
    kept = load_kept(path, fp)
    out = CellOutcome(
        np.zeros((len(arms), n), np.int8),
        np.zeros((len(arms), n), np.int16),
        np.zeros((len(arms), 2, n), np.int8),
        0,
    )
    if kept is not None:
        out.done = int(kept["done"])
        out.won[: out.done] = kept["won"][: out.done]
        out.position[: out.done] = kept["position"][: out.done]
        out.held[: out.done] = kept["held"][: out.done]
        if progress is not None:
            progress(out.done * n)
    for k in range(out.done, len(arms)):
        for rules, (first, count) in zip(plan.deck_rules, plan.blocks, strict=True):
            for lo in range(first, first + count, CHUNK_GAMES):
                m = min(CHUNK_GAMES, first + count - lo)
                if cell.search is not None:
                    r = play_search_arm(plan.book, rules, arms[k], cell, plan.seed, lo, m)
                else:
                    r = play_arm(rules, arms[k], cell.players, plan.seed, lo, m, threads)
                out.won[k, lo : lo + m] = r.won
                out.position[k, lo : lo + m] = r.position
                out.held[k, :, lo : lo + m] = r.held
                if progress is not None:
                    progress(m)
        out.done = k + 1
        save_npz(
            path,
            {
                "arms": np.array([list(a) + [-1] * (2 - len(a)) for a in arms], dtype=np.int16),
                "won": out.won,
                "position": out.position,
                "held": out.held,
                "done": np.int64(out.done),
                "fingerprint": np.array(fp),
            },
        )
    return out


@dataclass
class Confirmation:
    """The confirmation stage's result: the per-(arm, cell) table, the labels, its Markdown (the
    report's headline and panel), the files written; ``interrupted`` when Ctrl-C ended it."""

    table: Any
    labels: Any
    markdown: str
    files: list[Path]
    cells_done: int
    cells: int
    seconds: float
    interrupted: bool = False


def run_confirmation(
    plan: ConfirmPlan,
    scan_table: Any,
    threads: int,
    progress: Callable[[int, int], None] | None = None,
    command: str | None = None,
) -> Confirmation:
    """Play every cell (resuming kept ones), then write confirm.csv (and confirm-decks.csv) and
    return the Markdown for the report. Ctrl-C keeps the finished arms and cells: the tables then
    hold the finished cells, marked INTERRUPTED with the command that resumes."""
    from analysis.ursuppe import combos as stats

    names = all_gene_names(plan.book)
    chosen = confirm_arms(scan_table, plan.config.top, plan.null_gene, names)
    arms = [a for a, _ in chosen]
    roles = [r for _, r in chosen]
    folder = _panel_folder(plan)
    total = len(plan.cells) * len(arms) * plan.games
    done = 0

    def step(games: int) -> None:
        nonlocal done
        done += games
        if progress is not None:
            progress(done, total)

    start = time.perf_counter()
    outcomes, interrupted, partial = _play_panel(plan, arms, folder, threads, step)
    seconds = time.perf_counter() - start
    scan_gain = {_arm_key(r, names): r["gain"] for r in scan_table.iter_rows(named=True)}
    table, decks = stats.confirm_table(
        arms,
        roles,
        [cell.name() for cell in plan.cells[: len(outcomes)]],
        [cell.describe() for cell in plan.cells[: len(outcomes)]],
        [(o.won, o.held) for o in outcomes],
        _deck_of_game(plan),
        names,
        [scan_gain.get(a, float("nan")) for a in arms],
    )
    labels = stats.confirm_labels(table, len(plan.blocks))
    files = _write_panel(plan, table, labels, decks)
    status = _interrupted_status(plan, len(outcomes), partial, len(arms), command) if interrupted else None
    markdown = stats.confirm_markdown(
        table,
        labels,
        plan_lines(plan, len(arms)),
        status,
        [cell.name() for cell in plan.cells],
        [cell.describe() for cell in plan.cells],
        plan.deck_labels if len(plan.blocks) > 1 else None,
        decks if len(plan.blocks) > 1 else None,
    )
    return Confirmation(table, labels, markdown, files, len(outcomes), len(plan.cells), seconds, interrupted)


def _panel_folder(plan: ConfirmPlan) -> Path:
    """The folder of the panel's cells (confirm/), rid of files that are not this run's."""
    out = plan.scan.out
    folder = out / CONFIRM_DIR
    folder.mkdir(parents=True, exist_ok=True)
    # files of an earlier, larger panel or of several decks would be read as this run's
    for stale in sorted(folder.glob("cell-*.npz"))[len(plan.cells) :]:
        stale.unlink()
    if len(plan.blocks) == 1:
        (out / "confirm-decks.csv").unlink(missing_ok=True)
    return folder


def _play_panel(
    plan: ConfirmPlan, arms: list[Arm], folder: Path, threads: int, step: Callable[[int], None]
) -> tuple[list[CellOutcome], bool, int]:
    """Every cell played in turn: the finished cells' outcomes, whether Ctrl-C ended it, and how
    many arms of the next cell were kept then."""
    outcomes: list[CellOutcome] = []
    interrupted = False
    partial = 0
    try:
        for c, cell in enumerate(plan.cells):
            outcomes.append(play_cell(plan, cell, arms, folder / f"cell-{c:02d}.npz", threads, step))
    except KeyboardInterrupt:
        interrupted = True
        if len(outcomes) < len(plan.cells):
            c = len(outcomes)
            partial = _kept_arms(plan, plan.cells[c], arms, folder / f"cell-{c:02d}.npz")
    return outcomes, interrupted, partial


def _deck_of_game(plan: ConfirmPlan) -> np.ndarray:
    """The deck of every game of a cell (its block of games)."""
    deck_of_game = np.zeros(plan.games, dtype=np.int64)
    for j, (first, count) in enumerate(plan.blocks):
        deck_of_game[first : first + count] = j
    return deck_of_game


def _write_panel(plan: ConfirmPlan, table: Any, labels: Any, decks: Any) -> list[Path]:
    """confirm.csv (the table with its labels) and, with several decks, confirm-decks.csv; the
    files written (none before a cell finished)."""
    from analysis.tables import write_csv_atomic

    out = plan.scan.out
    files = []
    if len(table):
        files.append(out / "confirm.csv")
        write_csv_atomic(
            files[-1], table.join(labels.select("arm", "label", "label_reason"), on="arm", how="left")
        )
        if len(plan.blocks) > 1:
            files.append(out / "confirm-decks.csv")
            write_csv_atomic(files[-1], decks)
    return files


def _interrupted_status(
    plan: ConfirmPlan, cells_done: int, partial: int, arms: int, command: str | None
) -> str:
    """The headline's INTERRUPTED line: how far the panel got and what resumes it."""
    from analysis.tables import plural

    folder = plan.scan.out / CONFIRM_DIR
    next_cell = f" and {partial} of {plural(arms, 'arm')} of the next (kept in {folder})"
    return (
        f"INTERRUPTED (Ctrl-C) in the confirmation stage after {cells_done} of"
        f" {plural(len(plan.cells), 'cell')}"
        + (next_cell if partial else "")
        + ": the panel below holds the finished cells only and its labels are provisional; "
        + (f"`{command}`" if command else "the same command")
        + " resumes (the scan and the finished arms are not played again)"
    )


def _kept_arms(plan: ConfirmPlan, cell: Cell, arms: list[Arm], path: Path) -> int:
    kept = load_kept(path, cell_fingerprint(plan, cell, arms))
    return int(kept["done"]) if kept is not None else 0


def _arm_key(row: dict[str, Any], names: list[str]) -> Arm:
    index = {n: i for i, n in enumerate(names)}
    if row["gene_b"] is None:
        return (index[row["gene_a"]],)
    return (index[row["gene_a"]], index[row["gene_b"]])


def plan_lines(plan: ConfirmPlan, arms: int) -> list[str]:
    """What the confirmation stage played, in words (the headline's conditions)."""
    from analysis.tables import plural

    P = plan.scan.rules.players
    return [
        f"fresh games: seed {plan.seed} (derived from the scan's seed {plan.scan.seed}), {plan.games:,} games"
        f" per arm and cell (whole rotate cycles of {rotate_block(P)}), {plural(arms, 'arm')} in each of"
        f" {plural(len(plan.cells), 'cell')}: {len(plan.cells) * arms * plan.games:,} games",
        "every cell: free gift at setup (paid for by nobody), gift not exchangeable by Highly Adaptable,"
        f" {plan.deck_text()}; the gifted player is the holder",
        f"panel: fields {', '.join(dict.fromkeys(c.field_spec for c in plan.cells))} x holders"
        f" {', '.join(dict.fromkeys(c.holder_spec for c in plan.cells))}",
    ]
