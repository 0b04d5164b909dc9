"""Ursuppe batch simulation for the chunked runner: strategy assignment and outcome rows.

One row per player per game (the result schema, also in docs/results.md):

| column | type | meaning |
|---|---|---|
| game | int64 | game index in the run (with the seed, it determines the game) |
| seed | int64 | the run's seed |
| players | int8 | player count |
| player | int8 | colour / player index 0..P-1 (a strategy is assigned per player) |
| start_space | int8 | start space 1..P on the score track (S5: the seat) |
| strategy | string | the player's strategy name |
| final_position | int16 | score-track position at the end |
| rank | int8 | 1 = furthest marker (the winner), 2, ... |
| won | bool | rank == 1 |
| rounds | int16 | rounds played |
| end_reason | string | finish_zone or last_card (W1) |
| amoebas | int8 | amoebas on the board at the end |
| genes_held | int64 | bit mask of genes held at the end (bit i = the manifest's ``spec.gene_names[i]``) |
| genes_bought | int64 | bit mask of every gene bought during the game |
| first_bought | list<int16> | per gene (``spec.gene_names`` order): first bought in round, 0 never (*) |
| bp | int32 | BP at the end |
| defect_genes_lost | int16 | cards returned for gene defects (E2) |
| defect_bp_paid | int32 | BP paid for gene defects (E2) |
| deck | list<int8> | the environment deck order as indices into the rules' deck (*) |
| rules_id | string | id of the merged rules (RuleBook.rules_id) |
| variant | string | the 2-player variant (dummy, double1, double2), null with 3-6: never pool them |
| dummy_position | int16 | the dummy's final score-track position (TD8), null without a dummy |
| colour_positions | list<int16> | a double play: the final position of each of the player's colours |
| colour_amoebas | list<int8> | a double play: amoebas on the board of each of the player's colours |

(*) Written packed, one byte an entry (sim.packed, FORMAT_VERSION 2 of sim.runner); sim.runner's
read_chunk and scan_chunks, and so every analysis, read them back as these lists.

With ``--players 2 --variant dummy`` the game has 3 colours (TD1); the rows are the 2 real
players' (players = 2, rank among them), and the dummy (always the last colour, 2) appears
only as ``dummy_position`` on both rows: it is nobody's strategy and never wins (TD8).

With ``--variant double1`` or ``double2`` the game has 4 colours, player 0 owning colours 0 and 1
and player 1 colours 2 and 3 (rules.VARIANT_PLAYER_OF); the rows are the 2 players', and the
colour columns hold both colours' outcomes. Double play I (TA4): ``final_position`` is the worse
(lower) of the player's two markers and ranks the players; ``start_space`` is its first colour's;
the counts (``amoebas``, ``bp``, the defects) are the two seats' sums and the gene masks their
union. Double play II (TB3): one marker, one BP stock and one gene set a player, read once;
``amoebas`` is both colours'.
"""

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from math import factorial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from sim import columns
from sim.chunk_encoding import with_plain_fields
from sim.errors import UserError
from sim.game import assign_strategies, strategy_rows
from sim.packed import byte_column, byte_range_error, packed_column, with_packed_fields
from sim.runner import RunAdapter
from sim.ursuppe.rules.book import VARIANT_COLOURS, VARIANT_PLAYER_OF, VARIANTS, RuleBook, Rules
from sim.ursuppe.rules.colours import colour_assignment, double_play_colours, player_positions
from sim.ursuppe.rules.seating import rotate_block
from strategies.search import SearchSpec, is_search, load_search
from strategies.ursuppe import DEFAULT_POOL  # noqa: F401 (the default mix, re-exported)
from strategies.ursuppe.params import Strategy, load_strategy, parameter_table

# The engine (batch, state, the random streams) is imported where games are played, not here: a
# command builds and checks its run (its spec, its --out) before the engine loads, so that a bad
# argument is refused at once and a first run's compile notice comes first (issue 21.9, 21.10).
if TYPE_CHECKING:
    from sim.ursuppe.engine.batch import Batch


@dataclass
class UrsuppeRun(RunAdapter):
    """Everything that determines a run's games (the runner's GameAdapter; its rows are built
    apart from its games: ``splits_rows``)."""

    splits_rows = True

    rulebook: RuleBook
    players: int
    seed: int
    strategies: list[Strategy]  # the distinct strategies (params rows)
    seats: list[int] | None = None  # strategy row per player, or
    pool: list[int] | None = None  # rows to draw from, per game and player
    seating: str = "random"
    n_blocks: int = 64
    variant: str | None = None  # a 2-player variant (rules.VARIANTS); players is then 2
    # strategy row -> its search player (strategies/search.py): the row holds the rollout policy
    search: dict[int, SearchSpec] = field(default_factory=dict)

    def colours(self) -> int:
        """Colours in play: the players, or a 2-player variant's colours (TD1: 2 + the dummy)."""
        return self.players if self.variant is None else VARIANT_COLOURS[self.variant]

    def spec(self) -> dict[str, Any]:
        return {
            "game": "ursuppe",
            "players": self.players,
            "variant": self.variant,
            "seed": self.seed,
            "seating": self.seating,
            "strategies": [s.name for s in self.strategies],
            "strategy_parameters": {s.name: [float(x) for x in s.vector] for s in self.strategies},
            "assignment": {"seats": self.seats} if self.seats is not None else {"pool": self.pool},
            "rules_id": self.rulebook.rules_id,
            # The search players by name (only in a run with one: older specs read the same)
            **(
                {"search": {self.strategies[r].name: asdict(sp) for r, sp in sorted(self.search.items())}}
                if self.search
                else {}
            ),
            # The genes a row's masks and first_bought index (bit i = gene_names[i]): the 20 base
            # genes, or all 46 with flags.extra_genes. A run written before the extra genes has no
            # key and means the 20 (analysis.ursuppe.genes.run_gene_names).
            "gene_names": list(self.rulebook.gene_names[: self.game_rules.n_genes]),
            # The house-rules layers by name (the merged rules themselves are under "rules").
            "rules_files": [Path(s).name for s in self.rulebook.sources[1:]],
            "rules": self.rulebook.data,
            "deck": self.rulebook.deck_description(),
            # PLACEHOLDER values this player count uses (a deck, setup DP or prices no source has).
            "placeholders": self.rulebook.placeholders(self.players, self.variant),
            # The rotate design (S5) beyond 4 players is a balanced Latin square (seating.py); named
            # so that a run started under another design is not resumed with this one. 3-4 player
            # specs stay as they were (every permutation).
            **(
                {"seating_design": f"williams-{rotate_block(self.players)}"}
                if self.seating == "rotate" and rotate_block(self.players) < factorial(self.players)
                else {}
            ),
        }

    def assignment(self, games: np.ndarray) -> np.ndarray:
        """Strategy row of every player of every game: int16 [len(games), P] (sim.game.strategy_rows)."""
        return strategy_rows(self.seed, games, self.players, self.seats, self.pool).astype(np.int16)

    def colour_rows(self, games: np.ndarray) -> np.ndarray:
        """Strategy row of every colour of every game (:func:`colour_assignment`)."""
        return colour_assignment(self.assignment(games), self.variant)

    def play_chunk(
        self, first: int, count: int, threads: int, on_game: Callable[[], None] | None = None
    ) -> pa.Table:
        return self.chunk_rows(self.play_games(first, count, threads, on_game))

    @cached_property
    def game_rules(self) -> Rules:
        """The numpy rules of this run's games, built once a run (building them takes about as
        long as the rest of a chunk's set-up)."""
        return self.rulebook.for_players(self.players, self.variant)

    def set_up_games(self, first: int, count: int) -> "Batch | None":
        """The batch of games ``first .. first + count - 1``, keyed and not yet played
        (RunAdapter.set_up_games); None with a search seat: that batch needs the search's tapes,
        which play_games makes."""
        return None if self.search else self._keyed_batch(first, count, 1)

    def play_games(
        self,
        first: int,
        count: int,
        threads: int,
        on_game: Callable[[], None] | None = None,
        set_up: "Batch | None" = None,
    ) -> "Batch":
        """The engine's part of play_chunk: the finished batch (the runner builds its rows with
        chunk_rows on its writer thread while the engine plays the next chunk, issue 12); the
        search players' games first, on ``threads`` threads (strategies/search.py). ``set_up``:
        these games' batch from set_up_games."""
        from sim.ursuppe.engine import batch as batch_mod

        b = set_up if set_up is not None else self._keyed_batch(first, count, threads, on_game)
        batch_mod.play(b, seating=self.seating, threads=threads)
        err = batch_mod.first_error(b)
        if err is not None:
            raise batch_mod.GameError(f"game {first + err[0]}: {batch_mod.describe_error(err[1])}")
        return b

    def _keyed_batch(
        self, first: int, count: int, threads: int, on_game: Callable[[], None] | None = None
    ) -> "Batch":
        """The keyed batch of games ``first .. first + count - 1``, not yet played; with a search
        seat, the search's choices made first (on ``threads`` threads) and put on its tapes."""
        from sim.ursuppe.engine import batch as batch_mod

        games = np.arange(first, first + count, dtype=np.int64)
        assignment = self.colour_rows(games)
        tapes, masks = self.search_tapes(games, assignment, threads, on_game)
        b = batch_mod.new_batch(
            self.game_rules,
            parameter_table(self.strategies),
            assignment,
            self.seed,
            games,
            n_blocks=self.n_blocks,
            tape_capacity=max((len(t) for t in tapes), default=0),
        )
        if tapes:
            from sim.ursuppe.decision_points import put_tapes

            # The search's choices replayed: no game stops at a decision, so the per-game copy of
            # a stop's options (32 KiB a game) is not needed.
            b.workspace = b.workspace._replace(error_options=b.workspace.error_options[:1, :1])
            put_tapes(b.workspace, tapes, False, masks)
        return b

    def search_tapes(
        self,
        games: np.ndarray,
        assignment: np.ndarray,
        threads: int = 1,
        on_game: Callable[[], None] | None = None,
    ) -> tuple[list, np.ndarray]:
        """The search seats' choices in every game (strategies/search.py; none without a search
        strategy), searched on ``threads`` threads: a tape per game and its seat mask. The chunk
        then plays as a batch with them."""
        if not self.search:
            return [], np.zeros(0, np.int32)
        from sim.ursuppe.decision_points import UrsuppeReplay
        from strategies.search import search_tapes

        def replay_of(game: int, seats: list[int]) -> UrsuppeReplay:
            return UrsuppeReplay(self, game, seats)

        if self.variant is not None:  # the dummy's colour is nobody's seat (TD2), whatever its row
            assignment = np.where(np.asarray(VARIANT_PLAYER_OF[self.variant]) >= 0, assignment, -1)
        return search_tapes(replay_of, assignment, games, self.search, self.seed, threads, on_game)

    def chunk_rows(self, b: "Batch") -> pa.Table:
        return outcome_rows(
            b, self.seed, [s.name for s in self.strategies], self.rulebook.rules_id, self.variant
        )


def _double_play_state(st: Any, variant: str) -> tuple[Any, np.ndarray, np.ndarray]:
    """A double play's state cut to one entry per player (TA4, TB3; see the module docstring),
    and each player's colours' final positions and amoebas [G, 2, 2]."""
    colours = double_play_colours(variant)
    first = colours[:, 0]
    positions = st.score[:, colours].astype(np.int16)
    amoebas = _count_placed(st.space)[:, colours]
    if variant == "double2":  # TB3: the first colour holds the player's marker, BP and genes
        cut = {f: getattr(st, f)[:, first] for f in _PLAYER_FIELDS}
        cut["space"] = st.space[:, colours].reshape(len(st.score), 2, -1)
        return st._replace(**cut), positions, amoebas

    def both(name: str) -> np.ndarray:
        return getattr(st, name)[:, colours]

    bought = both("first_bought").astype(np.int32)
    first_bought = np.where(bought == 0, np.iinfo(np.int32).max, bought).min(axis=2)
    cut = {
        "score": player_positions(st.score, variant),  # TA4: the worse result counts
        "seat": st.seat[:, first],
        "strategy": st.strategy[:, first],
        "held": np.bitwise_or.reduce(both("held"), axis=2),
        "space": st.space[:, colours].reshape(len(st.score), 2, -1),
        "bp": both("bp").sum(axis=2),
        "genes_bought": np.bitwise_or.reduce(both("genes_bought"), axis=2),
        "first_bought": np.where(first_bought == np.iinfo(np.int32).max, 0, first_bought).astype(np.int16),
        "defect_genes_lost": both("defect_genes_lost").sum(axis=2),
        "defect_bp_paid": both("defect_bp_paid").sum(axis=2),
    }
    return st._replace(**cut), positions, amoebas


def outcome_rows(
    b: "Batch", seed: int, names: list[str], rules_id: str, variant: str | None = None
) -> pa.Table:
    """The result schema's rows for every player of every game of a finished batch (with a
    dummy, TD8: the real players' rows only, the dummy's position a column; a double play, TA4
    and TB3: a row a player, its colours' outcomes in list columns)."""
    from sim.ursuppe.engine.outcome_columns import player_columns  # a kernel: numba loads here
    from sim.ursuppe.engine.state import END_FINISH_ZONE

    st = b.state
    G = st.score.shape[0]
    dummy = b.rules.dummy
    dummy_position = None
    colour_positions = colour_amoebas = None
    if dummy >= 0:
        dummy_position = st.score[:, dummy].astype(np.int16)
        st = st._replace(**{f: getattr(st, f)[:, :dummy] for f in _PLAYER_FIELDS})
    elif variant in ("double1", "double2"):
        st, colour_positions, colour_amoebas = _double_play_state(st, variant)
    P = st.score.shape[1]
    rows = G * P
    n_genes = b.rules.n_genes  # the run's genes (spec.gene_names): 20, or 46 with the extra genes
    rank, bought = np.empty((G, P), np.int8), np.empty((rows, n_genes), np.uint8)
    c = np.ascontiguousarray  # a cut state's fields (TD8, TA4) are views or of another type
    if player_columns(c(st.score, np.int16), c(st.first_bought, np.int16), n_genes, rank, bought):
        raise byte_range_error(st.first_bought[:, :, :n_genes])
    amoebas = _count_placed(st.space)
    end = np.repeat((st.end_reason != END_FINISH_ZONE).astype(np.int8), P)  # 0 finish_zone, 1 last_card
    # One byte a gene and a card (sim.packed: Parquet's list columns were most of the writer's time)
    deck = packed_column(np.repeat(st.card_index, P, axis=0))
    first_bought = byte_column(bought)
    table = columns.table(
        {
            "game": columns.array(np.repeat(st.game_index, P)),
            "seed": columns.array(np.full(rows, seed, dtype=np.int64)),
            "players": columns.array(np.full(rows, P, dtype=np.int8)),
            "player": columns.array(np.tile(np.arange(P, dtype=np.int8), G)),
            "start_space": columns.array(st.seat.ravel().astype(np.int8)),
            "strategy": columns.dictionary(st.strategy, names),
            "final_position": columns.array(st.score.ravel().astype(np.int16)),
            "rank": columns.array(rank.ravel()),
            "won": columns.array(rank.ravel() == 1),
            "rounds": columns.array(np.repeat(st.round.astype(np.int16), P)),
            "end_reason": columns.dictionary(end, ["finish_zone", "last_card"]),
            "amoebas": columns.array(amoebas.ravel()),
            "genes_held": columns.array(st.held.ravel()),  # bit i: gene i held (I10: genes as a mask)
            "genes_bought": columns.array(st.genes_bought.ravel().astype(np.int64)),
            "first_bought": first_bought,
            "bp": columns.array(st.bp.ravel().astype(np.int32)),
            "defect_genes_lost": columns.array(st.defect_genes_lost.ravel().astype(np.int16)),
            "defect_bp_paid": columns.array(st.defect_bp_paid.ravel().astype(np.int32)),
            "deck": deck,
            "rules_id": columns.dictionary(np.zeros(rows, np.int8), [rules_id]),
            "variant": pa.nulls(rows, pa.string())
            if variant is None
            else columns.strings(np.zeros(rows, np.int8), [variant]),
            "dummy_position": pa.nulls(rows, pa.int16())
            if dummy_position is None
            else columns.array(np.repeat(dummy_position, P)),
            "colour_positions": _per_colour(colour_positions, rows, pa.int16()),
            "colour_amoebas": _per_colour(colour_amoebas, rows, pa.int8()),
        },
        nullable=VARIANT_COLUMNS,
    )
    return with_plain_fields(with_packed_fields(table, PACKED_LISTS), PLAIN_COLUMNS)


def _count_placed(space: np.ndarray) -> np.ndarray:
    """Each player's amoebas on the board [G, P] (int8) from ``space`` [G, P, k] (-1: an empty
    slot): k adds of whole columns (0.3 ms for 80,000 rows, where summing the short last axis row
    by row took 1.5 ms)."""
    placed = space >= 0
    count = placed[:, :, 0].astype(np.int8)
    for k in range(1, space.shape[2]):
        count += placed[:, :, k]
    return count


# The columns null in a run without a 2-player variant (or without a dummy, or a double play).
VARIANT_COLUMNS = ("variant", "dummy_position", "colour_positions", "colour_amoebas")

# The list columns written packed (sim.packed), with the list type a reader gets back.
PACKED_LISTS = {"first_bought": pa.int16(), "deck": pa.int8()}
# A game's deck on each of its players' rows, distinct between games: written plainly, zstd finds
# the repeats (a dictionary of a chunk's decks took 60% more time for a file twice as large).
PLAIN_COLUMNS = ["deck"]


def _per_colour(values: np.ndarray | None, rows: int, kind: pa.DataType) -> pa.Array:
    """A list column of each row's colours' values [G, P, k] of the item type ``kind`` (nulls without a
    double play)."""
    if values is None:
        return pa.nulls(rows, pa.list_(kind))
    k = values.shape[2]
    return columns.lists(values.reshape(rows, k), np.full(rows, k))


# State fields with a player axis (axis 1) that the rows read: cut to the real players (TD8).
_PLAYER_FIELDS = (
    "score",
    "seat",
    "strategy",
    "held",
    "space",
    "bp",
    "genes_bought",
    "first_bought",
    "defect_genes_lost",
    "defect_bp_paid",
)


def check_players(book: RuleBook, players: int, variant: str | None = None) -> None:
    """--players must be a count the rules support (the rules file's components.player_counts),
    or 2 with a --variant (rules.VARIANTS), which plays as its colours' count (TD1: 3)."""
    names = ", ".join(VARIANTS)
    if variant is not None and variant not in VARIANTS:
        raise UserError(f"--variant: expected one of {names}, got {variant!r}")
    if players == 2 and variant is None:
        raise UserError(f"--players 2 needs a 2-player variant: --variant {names}")
    if variant is not None and players != 2:
        raise UserError(
            f"--variant {variant}: a 2-player variant, but --players is {players} (use --players 2)"
        )
    colours = players if variant is None else VARIANT_COLOURS[variant]
    if colours not in book.player_counts:
        counts = ", ".join(map(str, book.player_counts))
        what = f"{players}" if variant is None else f"2 (--variant {variant} plays {colours} colours)"
        raise UserError(
            f"--players: expected one of {counts} (the rules' components.player_counts), got {what}"
        )


def build_run(
    book: RuleBook,
    players: int,
    seed: int,
    strategies: str | None,
    pool: str,
    seating: str,
    variant: str | None = None,
) -> UrsuppeRun:
    """An Ursuppe run from the command-line options (sim.game.Game.new_run): ``strategies`` (one
    per player) wins over ``pool`` (every player of every game drawn from it). Raises a
    UserError on bad input, before any engine code loads (issue 21.9)."""
    check_players(book, players, variant)
    if seating not in ("random", "rotate"):
        raise UserError(f"--seating: expected random or rotate, got {seating!r}")
    who = assign_strategies(strategies, pool, players)
    loaded, search = load_seats(who.names)
    return UrsuppeRun(
        book, players, seed, loaded, who.seats, who.pool, seating=seating, variant=variant, search=search
    )


def load_seats(names: list[str]) -> tuple[list[Strategy], dict[int, SearchSpec]]:
    """The strategies of ``names`` as the engine's parameter rows, and the search players among
    them by index (strategies/search.py): a search player's row is its rollout policy's, named
    as the search player (a UserError for a bad name or file)."""
    loaded, search = [], {}
    for row, name in enumerate(names):
        if is_search(name):
            spec = load_search(name)
            search[row] = spec
            rollout = load_strategy(spec.rollout)
            about = f"search over {spec.rollout}, {spec.budget} rollouts a decision"
            loaded.append(replace(rollout, name=spec.name, description=about))
        else:
            loaded.append(load_strategy(name))
    return loaded, search
