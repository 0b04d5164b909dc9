"""Gene value under strong play (issue 34): option value by restricted search, and a search holder.

**Option value by restricted search** (Jaffe et al.'s restricted play): player 0 is the same
search player (strategies/search.py) in both arms, the same rollout policy and the same parameter
row, which values the studied card (the gene, its plain card or the null gene) at 0 (G1: never
bought), so no rollout of that seat ever buys it, in either arm. The arms differ only in the
search's own options: allowed, it is offered a BUY of the card at its decisions (G1-G4) and takes
one only when its rollouts show a gain over its policy's choice (the search's departure rule);
denied, it is never offered one (``RestrictedSpec.deny``). The rules and every other player are
the same in both arms; the games are the same fresh games (seed, game index, rotate seating) and
the search's fork keys are the same (common random numbers). Nothing is tuned, so the interval is
the games' (paired, as holding value's). A strong player can always decline an option, so a
useless card reads about 0; the reading is a lower bound of the option's value (the seat's
rollouts never buy the card later, and the search departs from its policy only on evidence).

The **prior design** (``prior=True``, issue 34's first pass) gave the allowed seat a row valuing
the card as breeder values the gene: the search then followed its prior unless its rollouts
showed clear evidence against it, and a card that does nothing read clearly negative (Division
Rate's plain card: -22.9 [-37.9, -8.0], 4 players, search-16, 48 games). Kept, labelled, for
comparison only.

**A search holder** (holding value under strong play): holding value's two arms (the gene given at
setup and kept, vs not) with player 0 a search player instead of a preset; against the scripted
field, or against a **field of search players** (``field_search``: every other seat a search
player too, rollouts by its own row of the field), where a search seat's edge over scripted
seats no longer decides most games.

A search game is the game replayed through its decision points (sim/ursuppe/decision_points.py)
with player 0's choices on the tape; its scores are those of the batch engine on the same tape.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from sim.runner import RunAdapter
from sim.ursuppe.experiments import gene_value as G
from sim.ursuppe.experiments import tuning as T
from strategies.search import MIN_PAIRED, RestrictedSpec, SearchSpec, halving_plan, is_search, load_search

DEFAULT_SEARCH = "search-16"  # the strong player's default budget: rollouts per decision
DEFAULT_SEARCH_GAMES = 336  # fresh games of every arm of a search design (a multiple of 24; docs/verdicts.md)
# fresh games of every arm of the strong-play cell against a field of search players: a game there
# costs about P one-seat search games (measured, docs/verdicts.md); a multiple of every rotate block
DEFAULT_FIELD_GAMES = 120
ROLLOUT = "breeder"  # the search player's rollout policy (and its parameter row): the headline holder


def search_spec(name: str) -> SearchSpec:
    """A search player by name (``search``, ``search-N``, a ``kind = "search"`` file) with
    breeder as its default rollout policy; a UserError names a bad one."""
    from sim.errors import UserError

    if not is_search(name):
        raise UserError(f"expected a search player (search, search-N or a search file), got {name!r}")
    return load_search(name, ROLLOUT)


# a BUY where the card is an option: the card, stop and up to six other genes (from nine options
# on, successive halving's four rounds give every finalist four rollouts whatever the budget)
BUY_OPTIONS = range(3, 9)


def leaves_policy(budget: int) -> bool:
    """Whether a search of ``budget`` rollouts a decision can leave its policy's choice at a BUY
    of any of BUY_OPTIONS options: the option that reaches the last halving round gets the
    MIN_PAIRED rollouts the departure rule needs (strategies/search.py). Below it the allowed arm
    seldom buys the card (its rollouts never do) and option value reads about 0 by construction."""
    return all(sum(halving_plan(n, budget)) >= MIN_PAIRED for n in BUY_OPTIONS)


def smallest_budget() -> int:
    """The smallest budget that :func:`leaves_policy`."""
    return next(b for b in range(1, 1 << 16) if leaves_policy(b))


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


def _replay(run: FieldRun, game: int, seats: list[int] | None = None) -> Any:
    """Game ``game`` of ``run`` as the decision points of ``seats`` (default: player 0's)."""
    from sim.ursuppe.decision_points import UrsuppeReplay

    replay = UrsuppeReplay(run, game, seats=[0] if seats is None else seats)
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
class SearchGames(RunAdapter):
    """The search games of one arm as sim.backends plays a run's chunks (a GameAdapter's
    ``play_chunk``): game g of ``run`` with player 0 the search player ``spec``; its row says
    whether player 0 won and, with ``bought`` (a gene's index), whether it bought that gene by its
    own choice. A game is a pure function of (run, spec, seed, game index), so the rows are the
    same on any backend, thread count or chunking (issue 34.4)."""

    run: FieldRun
    spec: SearchSpec
    bought: int | None = None
    field_search: SearchSpec | None = None  # every other seat that search player (a search field)
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
        return pa.table(
            {
                "won": [r[0] for r in rows],
                "bought": [r[1] for r in rows],
                "play": pa.array([r[2] for r in rows], pa.int64()),
            }
        )

    def game(self, g: int) -> tuple[bool, bool, int]:
        """Game ``g``: whether player 0 won, whether it bought ``bought``, and a digest of the
        searched seats' choices (equal digests: the same play; option value counts the games
        played differently between its arms)."""
        import hashlib

        from strategies.search import play_game

        seats: dict[int, SearchSpec] = {0: self.spec}
        if self.field_search is not None:
            seats.update({p: self.field_search for p in range(1, self.run.players)})
        tape, (_, w) = play_game(_replay(self.run, g, list(seats)), seats, self.run.seed, g)
        kind = buy_kind()
        got = self.bought is not None and any(c.kind == kind and c.row[0] == self.bought for c in tape)
        text = repr([(c.kind, tuple(int(x) for x in c.row)) for c in tape]).encode()
        digest = int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little", signed=True)
        return bool(w[0, 0]), got, digest


def play_search(
    setting: T.Setting,
    holder: np.ndarray,
    spec: SearchSpec,
    fld: T.Field,
    seed: int,
    n_games: int,
    progress: Callable[[int], None] | None = None,
    bought: int | None = None,
    field_search: SearchSpec | None = None,
    backend: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Games 0 .. n_games-1 of ``seed`` with player 0 the search player ``spec`` (rollout policy:
    the row ``holder``) against ``fld``: player 0's ``won`` [n], with ``bought`` (a gene's index)
    whether it bought that gene by its own choice [n] (a tape does not say whose choice a buy was:
    not with ``field_search``), and a digest of the searched seats' choices [n] (equal digests:
    the same play). ``field_search``: every other seat is that search player, its rollouts by its
    row of ``fld`` (a field of search players; one game costs about as many one-seat search games
    as there are players). Played in chunks of SEARCH_CHUNK games on ``backend`` (sim.backends:
    Ray tasks, the same rows), or all at once on a local backend's threads (default: one)."""
    from sim.backends import ChunkWork, LocalBackend

    run = FieldRun(setting.book, setting.rules(), holder, fld, seed, variant=setting.variant)
    backend = backend or LocalBackend(1)
    size = max(n_games, 1) if backend.name == "local" else SEARCH_CHUNK
    work = [ChunkWork(k, lo, min(size, n_games - lo)) for k, lo in enumerate(range(0, n_games, size))]
    won = np.zeros(n_games, bool)
    got = np.zeros(n_games, bool)
    digests = np.zeros(n_games, np.int64)
    if bought is not None and field_search is not None:
        raise ValueError("bought: player 0's purchases are not told apart from a search field's")
    counted = 0  # games of the chunk under way already counted (a local backend counts each game)

    def on_game() -> None:
        nonlocal counted
        counted += 1
        if progress:
            progress(1)

    for chunk in backend.play(SearchGames(run, spec, bought, field_search), work, on_game):
        table = chunk.decoded()
        w = chunk.work
        won[w.first : w.first + w.count] = table.column("won").to_numpy(zero_copy_only=False)
        got[w.first : w.first + w.count] = table.column("bought").to_numpy(zero_copy_only=False)
        digests[w.first : w.first + w.count] = table.column("play").to_numpy(zero_copy_only=False)
        if progress and w.count > counted:
            progress(w.count - counted)
        counted = 0
    return won, got, digests


def restricted_arms(
    base: T.TuneConfig, unit: G.Unit, spec: SearchSpec, prior: bool = False
) -> tuple[T.Setting, np.ndarray, np.ndarray, SearchSpec, int]:
    """Option value's two arms of ``unit`` by restricted search: the setting (the unit's reference
    gene declared), the allowed arm's row, the denied arm's row, the denied search seat and the
    card's index. Both rows value the card at 0 (G1: the seat's rollouts never buy it); with
    ``prior`` (the prior design) the allowed row values it as the unit's players do."""
    players = G.unit_players(base, unit)
    setting, key = G.unit_setting(base.setting, unit)
    slot = T.parameter_key_index(key or "")
    start = players.start_vector()
    denied_row = start.copy()
    denied_row[slot] = 0.0
    gene = slot - T.GENE_VALUE_BASE
    return setting, start if prior else denied_row, denied_row, denied(spec, gene), gene


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
    prior: bool = False,
    backend: Any = None,
) -> dict[str, Any]:
    """One unit's option value by restricted search on ``base.eval_games`` fresh games (from
    ``out/units/<key>.npz`` if measured, else played and written): ``won_with`` (allowed),
    ``won_without`` (denied) of player 0, ``bought_with`` (the share of games the allowed search
    bought it) and ``differ`` (the games whose tapes differ between the arms: a reference whose
    arms are the same games checks nothing). ``prior``: the prior design (module docstring)."""
    path = out / "units" / f"{unit.key}.npz"
    if path.exists():
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    setting, allowed, denied_row, denied_spec, gene = restricted_arms(base, unit, spec, prior)
    players = G.unit_players(base, unit)
    seed = T.fresh_seed(base.seed)
    n = base.eval_games
    won1, got, play1 = play_search(
        setting, allowed, spec, players.fld, seed, n, progress, gene, backend=backend
    )
    won0, _, play0 = play_search(
        setting, denied_row, denied_spec, players.fld, seed, n, progress, backend=backend
    )
    result = {
        "won_with": won1,
        "won_without": won0,
        "bought_with": np.float64(got.mean()),
        "differ": np.int64((play1 != play0).sum()),
    }
    G._save(path, result)
    return result


def measure_search_holding(
    base: T.TuneConfig,
    unit: G.Unit,
    spec: SearchSpec,
    out: Path,
    progress: Callable[[int], None] | None = None,
    field_search: SearchSpec | None = None,
    backend: Any = None,
) -> dict[str, Any]:
    """Holding value with a search holder: player 0 the search player ``spec`` (rollout policy:
    ``base.start``) given the unit's gene (or BP) at setup and keeping it, vs not given it, on the
    same fresh games; the arm without a gift is played once a condition (``no-gift.npz``).
    ``field_search``: every other seat that search player (rollouts by its row of ``base.fld``)."""
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
        won0, _, _ = play_search(
            base.setting,
            base.start_vector(),
            spec,
            base.fld,
            seed,
            n,
            progress,
            field_search=field_search,
            backend=backend,
        )
        G._save(without, {"won": won0})
    unit_set, edits = G.holding_edits(base.setting, unit)
    gifted = G.unit_players(base, unit)
    if unit.kind == G.BP_FORBIDDEN:
        # the BP may not buy the gene (calibrate's reference): its row values it 0, the search is denied it
        spec = denied(spec, base.setting.book.gene_index(unit.gene or ""))
    won1, _, _ = play_search(
        replace(unit_set, edits=edits),
        gifted.start_vector(),
        spec,
        gifted.fld,
        seed,
        n,
        progress,
        field_search=field_search,
        backend=backend,
    )
    result = {"won_with": won1, "won_without": won0}
    G._save(path, result)
    return result
