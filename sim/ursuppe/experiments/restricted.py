"""Gene value under strong play (issue 34): option value by restricted search, and a search holder.

**Option value by restricted search** (Jaffe et al.'s restricted play): player 0 is the same
search player (strategies/search.py) in both arms, once with the gene among its legal purchases
(G1-G4) and once with it removed from its options: the search is never offered a BUY of it
(``RestrictedSpec.deny``) and its rollout policy, which plays the seat in every rollout, values
the gene at 0 (G1: never bought), so no rollout of that seat buys it either. The rules and every
other player are the same in both arms; the games are the same fresh games (seed, game index,
rotate seating) and the search's fork keys are the same (common random numbers). Nothing is
tuned, so the interval is the games' (paired, as holding value's).

**A search holder** (holding value under strong play): holding value's two arms (the gene given at
setup and kept, vs not) with player 0 a search player instead of a preset.

A search game is the game replayed through its decision points (sim/ursuppe/decision_points.py)
with player 0's choices on the tape; its scores are those of the batch engine on the same tape.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from sim.ursuppe.experiments import gene_value as G
from sim.ursuppe.experiments import tuning as T
from strategies.search import RestrictedSpec, SearchSpec, is_search, load_search

DEFAULT_SEARCH = "search-16"  # the strong player's default budget: rollouts per decision
DEFAULT_SEARCH_GAMES = 336  # fresh games of every arm of a search design (a multiple of 24; docs/verdicts.md)
ROLLOUT = "breeder"  # the search player's rollout policy (and its parameter row): the headline holder


def search_spec(name: str) -> SearchSpec:
    """A search player by name (``search``, ``search-N``, a ``kind = "search"`` file) with
    breeder as its default rollout policy; a UserError names a bad one."""
    from sim.errors import UserError

    if not is_search(name):
        raise UserError(f"expected a search player (search, search-N or a search file), got {name!r}")
    return load_search(name, ROLLOUT)


def buy_kind() -> int:
    """Ursuppe's BUY decision kind (decision_kinds.py: its option row starts with the gene)."""
    from sim.ursuppe.engine.decision_kinds import DECISION_KINDS

    return next(k for k, d in enumerate(DECISION_KINDS) if d.name == "buy")


def buys(gene: int) -> Callable[[Any, int], bool]:
    """The deny predicate of gene ``gene`` (its index in the book): option ``i`` of ``point`` buys
    it (G1-G4; the Social Gene taken from its holder, XG-10, too: the same row)."""
    kind = buy_kind()

    def deny(point: Any, i: int) -> bool:
        return point.kind == kind and int(point.options[i][0]) == gene

    return deny


@dataclass
class FieldRun:
    """A run as sim/ursuppe/decision_points.UrsuppeReplay reads it: player 0 plays ``holder``'s row
    (row 0), every other player the field's rows after it, drawn per game as
    tuning.play_field (and combos' Players) draw them, rotate seating; the rules are ``rules``
    (a setting's, with its edits: a gift at setup). A game with an empty tape is play_field's
    game of the same index."""

    rulebook: Any  # RuleBook
    rules: Any  # Rules
    holder: np.ndarray
    fld: T.Field
    seed: int
    seating: str = "rotate"
    variant: str | None = None

    def __post_init__(self) -> None:
        from strategies.ursuppe.params import Strategy

        self.players = int(self.rules.players)
        rows, _ = T.opponent_rows(self.fld, self.seed, np.zeros(1, np.int64), self.players, self.holder)
        self.strategies = [
            Strategy(f"s{i}", "", np.asarray(v, np.float64), "") for i, v in enumerate([self.holder, *rows])
        ]

    def colours(self) -> int:
        return self.players

    def colour_rows(self, games: np.ndarray) -> np.ndarray:
        _, opp_of = T.opponent_rows(self.fld, self.seed, games, self.players, self.holder)
        per_player = np.zeros((len(games), self.players), np.int16)
        per_player[:, 1:] = 1 + opp_of
        return per_player


def _replay(run: FieldRun, game: int) -> Any:
    from sim.ursuppe.decision_points import UrsuppeReplay

    replay = UrsuppeReplay(run, game, seats=[0])
    replay.rules = run.rules  # the run's own (a setting's edits: a gift at setup)
    return replay


def search_games(
    run: FieldRun, spec: SearchSpec, first: int, count: int, progress: Callable[[int], None] | None = None
) -> list[tuple[list[Any], Any]]:
    """Games first .. first+count-1 of ``run`` with player 0 the search player ``spec``: each
    game's tape (player 0's choices) and its finished batch (the batch engine on that tape: the
    same game the search played), for what a caller reads of the end state."""
    from sim.ursuppe.engine import batch as batch_mod
    from strategies.search import play_game

    out = []
    for g in range(first, first + count):
        replay = _replay(run, g)
        tape, _ = play_game(replay, {0: spec}, run.seed, g)
        b = batch_mod.play(replay.batch([tape], False, None), seating=run.seating)
        out.append((tape, b))
        if progress:
            progress(1)
    return out


SEARCH_CHUNK = 6  # search games a chunk (a Ray task: seconds of work, many tasks for every worker)


@dataclass
class SearchGames:
    """The search games of one arm as sim.backends plays a run's chunks (a GameAdapter's
    ``play_chunk``): game g of ``run`` with player 0 the search player ``spec``; its row says
    whether player 0 won and, with ``bought`` (a gene's index), whether it bought that gene by its
    own choice. A game is a pure function of (run, spec, seed, game index), so the rows are the
    same on any backend, thread count or chunking (issue 34.4)."""

    run: FieldRun
    spec: SearchSpec
    bought: int | None = None
    reports_games = True  # play_chunk calls on_game once a game (the local backend's progress)

    def play_chunk(
        self, first: int, count: int, threads: int, on_game: Callable[[], None] | None = None
    ) -> Any:
        """Games first .. first+count-1 on ``threads`` threads (one game a thread), as a pyarrow
        Table (won, bought). Two threads are 1.35x one, not 2x (the Python between the kernels
        holds the GIL; docs/verdicts.md, "Time and scaling"): processes (Ray tasks) scale."""
        import pyarrow as pa

        from strategies.search import on_threads

        rows = on_threads(self.game, range(first, first + count), threads, on_game)
        return pa.table({"won": [r[0] for r in rows], "bought": [r[1] for r in rows]})

    def game(self, g: int) -> tuple[bool, bool]:
        from strategies.search import play_game

        tape, (_, w) = play_game(_replay(self.run, g), {0: self.spec}, self.run.seed, g)
        kind = buy_kind()
        got = self.bought is not None and any(c.kind == kind and c.row[0] == self.bought for c in tape)
        return bool(w[0, 0]), got


def play_search(
    setting: T.Setting,
    holder: np.ndarray,
    spec: SearchSpec,
    fld: T.Field,
    seed: int,
    n_games: int,
    progress: Callable[[int], None] | None = None,
    bought: int | None = None,
    backend: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Games 0 .. n_games-1 of ``seed`` with player 0 the search player ``spec`` (rollout policy:
    the row ``holder``) against ``fld``: player 0's ``won`` [n] and, with ``bought`` (a gene's
    index), whether it bought that gene by its own choice [n]. Played in chunks of SEARCH_CHUNK
    games on ``backend`` (sim.backends: Ray tasks, the same rows), or all at once on a local
    backend's threads (default: one)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from sim.backends import ChunkWork, LocalBackend

    run = FieldRun(setting.book, setting.rules(), holder, fld, seed, variant=setting.variant)
    backend = backend or LocalBackend(1)
    size = max(n_games, 1) if backend.name == "local" else SEARCH_CHUNK
    work = [ChunkWork(k, lo, min(size, n_games - lo)) for k, lo in enumerate(range(0, n_games, size))]
    won = np.zeros(n_games, bool)
    got = np.zeros(n_games, bool)
    counted = 0  # games of the chunk under way already counted (a local backend counts each game)

    def on_game() -> None:
        nonlocal counted
        counted += 1
        if progress:
            progress(1)

    for chunk in backend.play(SearchGames(run, spec, bought), work, on_game):
        table = chunk.table() if callable(chunk.table) else chunk.table
        if table is None:  # played elsewhere: its Parquet bytes
            table = pq.read_table(pa.BufferReader(chunk.data))
        w = chunk.work
        won[w.first : w.first + w.count] = table.column("won").to_numpy(zero_copy_only=False)
        got[w.first : w.first + w.count] = table.column("bought").to_numpy(zero_copy_only=False)
        if progress and w.count > counted:
            progress(w.count - counted)
        counted = 0
    return won, got


def restricted_arms(
    base: T.TuneConfig, unit: G.Unit, spec: SearchSpec
) -> tuple[T.Setting, np.ndarray, np.ndarray, SearchSpec, int]:
    """Option value's two arms of ``unit`` by restricted search: the setting (the unit's reference
    gene declared), the allowed arm's row, the denied arm's row (the gene valued 0: its rollouts
    never buy it, G1), the denied search seat and the gene's index."""
    players = G.unit_players(base, unit)
    setting, key = G.unit_setting(base.setting, unit)
    slot = T.parameter_key_index(key or "")
    allowed = players.start_vector()
    denied_row = allowed.copy()
    denied_row[slot] = 0.0
    gene = slot - T.GENE_VALUE_BASE
    return setting, allowed, denied_row, denied(spec, gene), gene


def denied(spec: SearchSpec, gene: int) -> RestrictedSpec:
    """``spec`` never offered a purchase of gene ``gene``."""
    fields = {f: getattr(spec, f) for f in ("name", "budget", "rollout", "objective")}
    return RestrictedSpec(**fields, deny=buys(gene))


def measure_restricted(
    base: T.TuneConfig,
    unit: G.Unit,
    spec: SearchSpec,
    out: Path,
    progress: Callable[[int], None] | None = None,
    backend: Any = None,
) -> dict[str, Any]:
    """One unit's option value by restricted search on ``base.eval_games`` fresh games (from
    ``out/units/<key>.npz`` if measured, else played and written): ``won_with`` (allowed),
    ``won_without`` (denied) of player 0 and ``bought_with`` (the share of games the allowed
    search bought it)."""
    path = out / "units" / f"{unit.key}.npz"
    if path.exists():
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    setting, allowed, denied_row, denied_spec, gene = restricted_arms(base, unit, spec)
    players = G.unit_players(base, unit)
    seed = T.fresh_seed(base.seed)
    n = base.eval_games
    won1, got = play_search(setting, allowed, spec, players.fld, seed, n, progress, gene, backend)
    won0, _ = play_search(setting, denied_row, denied_spec, players.fld, seed, n, progress, None, backend)
    result = {"won_with": won1, "won_without": won0, "bought_with": np.float64(got.mean())}
    G._save(path, result)
    return result


def measure_search_holding(
    base: T.TuneConfig,
    unit: G.Unit,
    spec: SearchSpec,
    out: Path,
    progress: Callable[[int], None] | None = None,
    backend: Any = None,
) -> dict[str, Any]:
    """Holding value with a search holder: player 0 the search player ``spec`` (rollout policy:
    ``base.start``) given the unit's gene (or BP) at setup and keeping it, vs not given it, on the
    same fresh games; the arm without a gift is played once a condition (``no-gift.npz``)."""
    path = out / "units" / f"{unit.key}.npz"
    if path.exists():
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    seed = T.fresh_seed(base.seed)
    n = base.eval_games
    without = out / "units" / "no-gift.npz"
    if without.exists():
        with np.load(without) as z:
            won0 = z["won"]
    else:
        won0, _ = play_search(
            base.setting, base.start_vector(), spec, base.fld, seed, n, progress, backend=backend
        )
        G._save(without, {"won": won0})
    unit_set, edits = G.holding_edits(base.setting, unit)
    gifted = G.unit_players(base, unit)
    if unit.kind == G.BP_FORBIDDEN:
        # the BP may not buy the gene (calibrate's reference): its row values it 0, the search is denied it
        spec = denied(spec, base.setting.book.gene_index(unit.gene or ""))
    won1, _ = play_search(
        replace(unit_set, edits=edits), gifted.start_vector(), spec, gifted.fld, seed, n, progress,
        backend=backend
    )
    result = {"won_with": won1, "won_without": won0}
    G._save(path, result)
    return result
