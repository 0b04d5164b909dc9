"""The game protocol and its registry: what a game gives the game-agnostic kit.

A game is one object satisfying :class:`Game` (Pgx's ``core.Env`` and OpenSpiel's ``GameType`` /
``GameInfo`` are the models): its :class:`GameInfo` (name, player counts and variants, the
packages holding its kernels, the core result columns it writes), and functions to load its
rules and strategies, build a run for the chunked runner (``sim.runner.GameAdapter``), play and
tell one game, run a scenario file and write a run's report. :class:`GameBase` gives what the
games write alike, and :class:`ListedRun` a run of named strategies. The command line dispatches on
``--game``; a run's manifest names its game (``spec.game``), so a command on a run directory
finds the game there (:func:`game_of_run`).

Games are registered as Python entry points in the group ``soup.games`` (``pyproject.toml``:
``ursuppe = "sim.ursuppe.game:GAME"``), so this module names no game; :func:`register` adds one in
a process (a test's game). Looking a game up imports only its registration module, which must not
import its compiled engine: every command checks its options before the engine loads.

Every registered game passes the conformance suite (tests/test_conformance.py) by registering:
determinism across threads and chunk sizes, resume, random strategies that finish every game,
the core result columns, the scenario round trip and the invariants after every phase.
"""

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any, ClassVar, Protocol

from sim.errors import UserError
from sim.runner import RunAdapter

ENTRY_POINT_GROUP = "soup.games"
# A game's own commands (a typer app, mounted at the top level of ``soup``: Ursuppe's combos,
# verdict, calibrate), by the game's name; and the game a command plays without --game (one
# entry). Entry points too, so that they are read without importing any game (loading the three
# registrations takes about 0.8 s, and ``soup --help`` needs both).
COMMANDS_GROUP = "soup.commands"
DEFAULT_GROUP = "soup.default_game"

# The result columns every game writes, one row per player per game (the generic analysis reads
# only these; a game adds its own). Arrow type names (a string may be dictionary-encoded).
CORE_COLUMNS: dict[str, str] = {
    "game": "int64",  # game index in the run (with the seed it determines the game)
    "seed": "int64",
    "players": "int8",
    "player": "int8",  # the player's index 0..P-1
    "start_space": "int8",  # the seat, 1..P (which player starts where)
    "strategy": "string",
    "rank": "int8",  # 1 = a winner (shared wins share rank 1)
    "won": "bool",
    "rules_id": "string",
}


@dataclass(frozen=True)
class Capability:
    """A part of the protocol (issue 35.4): the methods a game gives for it and the kit's commands
    that need it. A game declares what it gives (``GameInfo.capabilities``); :func:`register`
    and the conformance suite check each declared one, and a command whose capability a game
    lacks is refused in one line (sim.cli.support.game_for, with :func:`supports`)."""

    name: str
    methods: tuple[str, ...]
    commands: tuple[str, ...]
    meaning: str


CAPABILITIES: dict[str, Capability] = {
    c.name: c
    for c in (
        Capability(
            "rules",
            ("load_rules", "check_players", "run_label", "rules_line", "rules_document"),
            ("rules",),
            "its rules from a rules file with house rules on top",
        ),
        Capability(
            "runs",
            ("new_run", "strategy_names", "load_engine", "play_checked"),
            ("simulate", "bench", "compare", "tournament"),
            "runs of games for sim.runner, with the invariants checked in debug mode",
        ),
        Capability("play", ("check_play", "play_text"), ("play",), "one game told step by step"),
        Capability(
            "scenarios",
            ("scenario_files", "load_scenario", "scenario_document", "run_scenario"),
            ("scenario",),
            "positions as text with their expected outcomes",
        ),
        Capability("tuning", ("strategy_space", "strategy_spec"), ("tune",), "strategies CMA-ES can tune"),
        Capability(
            "tuning_plan",
            ("tuning_plan",),
            (),
            "its own soup tune (sim.experiments.tuning.TuneRequest's own options: parameter rows, fields, "
            "variants, resume, studies) on the flow every game's tuning runs on",
        ),
        Capability("report", ("build_report",), ("report",), "the balance report of its runs"),
        Capability(
            "decision_points",
            ("replay",),
            ("skill",),
            "its games as decision points: search seats (strategies/search.py), restricted play",
        ),
        Capability(
            "ablation",
            ("ablation",),
            ("ablate",),
            "parts that can be taken out of the game (its ablation)",
        ),
        Capability(
            "bench",
            ("bench_figures", "bench_scaling", "bench_profile"),
            (),
            "figures of its own for soup bench (default: games/s at its player counts, sim.bench_games), "
            "the scaling table (--threads) and its phases in the profile (--profile)",
        ),
        Capability(
            "restrictions",
            ("restriction", "restriction_help"),
            (),
            "restricted play of an action (soup verdict --action: a seat denied it)",
        ),
        # Hooks of the paired experiments (sim.experiments.paired): options a game without them refuses.
        Capability(
            "paired_metrics",
            ("paired_experiments",),
            (),
            "paired tables of its own (every metric, Holm families, ablate --each, tournament ratings)",
        ),
        Capability("deck_plans", ("deck_plan",), (), "plausible decks every arm is played over (--decks)"),
        Capability(
            "retune",
            ("retune_settings",),
            (),
            "every arm's strategies re-tuned under its own rules (--retune)",
        ),
    )
}
REQUIRED_CAPABILITIES = ("rules", "runs")  # what the runner and every command need


@dataclass(frozen=True)
class GameInfo:
    """What a game is, read without loading its engine."""

    name: str  # the --game value and spec.game of its runs
    title: str
    player_counts: tuple[int, ...]  # with the default rules
    variants: dict[int, tuple[str, ...]] = field(default_factory=dict)  # player count -> variants
    kernel_packages: tuple[str, ...] = ()  # packages of its kernels: its jit namespace (sim.jit)
    default_pool: str = ""  # strategies drawn for every seat by default (comma-separated)
    random_strategy: str = "random"  # the preset that decides uniformly among legal options
    default_strategy: str = ""  # soup play's strategy for every seat by default
    # The parts of the protocol it gives (CAPABILITIES' names; REQUIRED_CAPABILITIES always).
    capabilities: tuple[str, ...] = REQUIRED_CAPABILITIES
    # Commands of the game's own beyond the kit's (simulate, play, bench, compare, tournament,
    # tune, scenario, rules, report, and ablate for a game with the "ablation" capability), e.g.
    # Ursuppe's gene experiments and its own ablate: another game is refused them in one line
    # (sim.cli.support.game_for).
    own_commands: tuple[str, ...] = ()
    # Whether a game may end with nobody winning (Chromosome E5: every player eliminated); the
    # conformance suite then asks only that the winners, if any, rank first.
    may_end_without_winner: bool = False
    # The result columns a paired comparison (soup compare, a game's soup ablate) tabulates.
    paired_by: tuple[str, ...] = ("strategy", "start_space")
    # What its balance report shows (the line soup simulate ends with).
    report_summary: str = "win rates by strategy and seat"
    # A round robin's default field (soup tournament; default: every preset) and a skill ladder's
    # field (soup skill; default: default_strategy).
    tournament_field: tuple[str, ...] = ()
    skill_field: str = ""


class Game(Protocol):
    """What the kit asks of a game (one object per game; see the module docs)."""

    info: GameInfo

    def load_rules(self, files: Sequence[Path] = ()) -> Any:
        """The default rules with house-rules files on top (a UserError names a bad file/key)."""

    def new_run(
        self,
        rules: Any,
        players: int,
        seed: int,
        *,
        strategies: str | None = None,
        pool: str | None = None,
        seating: str = "rotate",
        variant: str | None = None,
    ) -> Any:
        """A run for sim.runner (a GameAdapter) from the command line's lists: ``strategies``
        (comma-separated, one per player) or a ``pool`` to draw every seat from (default: the
        game's). Checks everything, raising a UserError, before any engine code loads."""

    def check_players(self, rules: Any, players: int, variant: str | None = None) -> None:
        """A UserError unless the rules play ``players`` (with ``variant``)."""

    def run_label(self, players: int, variant: str | None = None) -> str:
        """The player count in directory names ('4p')."""

    def rules_line(self, rules: Any) -> str:
        """One line naming the rules of a run (its id, and what else identifies them)."""

    def rules_document(self, rules: Any) -> dict[str, Any]:
        """The merged rules as JSON data (``soup rules``): at least ``rules_id`` and ``rules``."""

    def strategy_names(self) -> list[str]:
        """The presets' names."""

    def load_engine(self) -> None:
        """Import (compile or load from the cache) the game's kernels."""

    def check_play(self, rules: Any, players: int, strategies: str, variant: str | None = None) -> list[str]:
        """``soup play``'s strategy per seat from its comma-separated list (one name: every
        seat), checked (a UserError) before the engine loads."""

    def play_text(
        self,
        rules: Any,
        players: int,
        strategies: list[str],
        seed: int,
        *,
        variant: str | None = None,
        as_json: bool = False,
    ) -> str:
        """Game 0 of ``seed`` told step by step (``soup play``), or as JSON."""

    def play_game(
        self, rules: Any, players: int, strategies: list[str], seed: int, variant: str | None
    ) -> Any:
        """Game 0 of ``seed`` played for :meth:`play_text`: an object with ``as_json()`` (a
        document) and ``as_text()`` (a :class:`Told`, or the game's own)."""

    def scenario_files(self) -> list[Path]:
        """The game's scenario files (positions as text, each with its expected outcome)."""

    def load_scenario(self, source: Path | dict[str, Any], check_invariants: bool = True) -> Any:
        """A scenario (a UserError names the file and key of bad input); ``check_invariants``:
        whether playing it checks the invariants after every step (debug mode)."""

    def scenario_document(self, scenario: Any) -> dict[str, Any]:
        """The scenario's position as a document ``load_scenario`` reads back (the round trip)."""

    def run_scenario(self, scenario: Any) -> dict[str, Any]:
        """Play a scenario; the outcome the file's ``expect`` is compared with."""

    def strategy_space(self, name: str) -> tuple[Any, Any, Any]:
        """The numbers CMA-ES tunes in strategy ``name`` (sim.experiments.tuning): its values, the
        lower and the upper bounds (numpy vectors)."""

    def strategy_spec(self, name: str, vector: Any, path: Path) -> str:
        """Strategy ``name`` with its tuned numbers set to ``vector``, as a strategy its runs
        accept (a name, or a file written at ``path`` with the game's suffix)."""

    def build_report(self, run_dirs: Sequence[Path], out: Path, **options: Any) -> Path:
        """Write the report of the game's runs into ``out`` (report.md and report.html)."""

    def play_checked(self, rules: Any, players: int, strategies: Sequence[str], seed: int, games: int) -> int:
        """Play ``games`` games with the invariants checked after every phase (debug mode);
        return how many finished (an invariant broken raises)."""

    def replay(self, run: Any, game: int, seats: Sequence[int] | None = None) -> "Replay":
        """Game ``game`` of ``run`` (a run of :meth:`new_run`) as a sequence of decision points
        (issue 33): the decisions of the players in ``seats`` (default: every player's) stop the
        game or are forced by a tape of choices; everyone else's strategy decides as in the run."""

    # A game with the "ablation" capability (CAPABILITIES) also gives ablation(rules, remove:
    # Sequence[str]) -> (rules A, rules B, a line saying what B lacks), the two arms soup ablate
    # plays on common random numbers (Chromosome: a special action off its board, or a gene
    # colour's use).
    # With "paired_metrics": paired_experiments() -> the game's own compare, ablate
    # and tournament (sim.experiments.paired.PairedExperiments); "deck_plans": deck_plan(rules,
    # decks, games, players, seating, seed) -> the decks every arm is played over (--decks: a
    # sim.experiments.decks.DeckPlan saying how a run of the game plays another deck);
    # "retune": retune_settings(budget, params, games_per_candidate, threads, bar) -> how every
    # arm's strategies are re-tuned first (--retune).
    #
    #
    # A game with "bench" gives bench_figures(games=, plain_games=, rss_games=, cold=, mix=,
    # repeats=, compare=) and bench_scaling(counts, games, repeats, mix), each (a document for
    # --json, its text), checking its options (the strategies of ``mix``) before measuring; and
    # bench_profile(players, games, extra_genes), a document as sim.profiling.profile's.
    #
    # A game with "restrictions" gives restriction(rules, action) (a
    # sim.experiments.restricted.Restriction; a UserError names a bad action) and
    # restriction_help() (the actions it can deny, in words for an error line).


@dataclass(frozen=True)
class Choice:
    """One option of a decision point, as a tape holds it: the decision kind and the option's row."""

    kind: int
    row: tuple[int, ...]


@dataclass(frozen=True)
class DecisionPoint:
    """A decision a replayed game stopped at (issue 33): the tape index (how many taped choices
    came before it), who decides, the decision kind (the game's index and name) and the legal
    options as the engine lists them, in its order (one int row each); ``default``: the option the
    seat's own strategy takes there (-1 where the game does not say)."""

    index: int
    player: int
    kind: int
    kind_name: str
    options: Any  # int ndarray [n, width]
    default: int = -1

    def choice(self, i: int) -> Choice:
        """Option ``i`` as a tape entry."""
        return Choice(self.kind, tuple(int(v) for v in self.options[i]))


class Replay(Protocol):
    """One game of a run as decision points (issue 33; docs/decisions.md "Decision points").

    A game is replayed from its start with a tape of choices: the i-th decision of a taped seat
    takes ``choices[i]``; every other decision is its player's strategy's, as in the run. The
    game is a pure function of (run, game index, choices), so the same choices give the same game.
    """

    players: int
    # Optional: where the outcome columns are colours rather than players (Ursuppe's 2-player
    # variants), the player each belongs to, -1 for nobody's (the dummy); each column then holds
    # its player's result and win. Absent or None: a column per player.
    teams: Sequence[int] | None

    def point(self, choices: Sequence[Choice]) -> DecisionPoint | None:
        """The taped seats' decision after ``choices`` (None: the game ended first)."""

    def outcomes(self, choices: Sequence[Choice], forks: Sequence[int] | None = None) -> tuple[Any, Any]:
        """Play the game on after ``choices`` to its end, once per fork key in ``forks``, forking
        it at the last choice (a fresh key for everything still random, every hidden order drawn
        again: no peeking), or once as it is (``forks`` None). Returns (score float [R, P], won
        bool [R, P]); from the last choice on, the taped seats' own strategies decide."""

    def rollouts(
        self, tapes: Sequence[Sequence[Choice]], forks: Sequence[int] | None = None
    ) -> tuple[Any, Any]:
        """:meth:`outcomes` of several tapes in one batch: game i plays ``tapes[i]``, forked at
        its last choice with key ``forks[i]`` (or not forked)."""

    def forked(
        self, choices: Sequence[Choice], options: Sequence[Choice], forks: Sequence[int]
    ) -> tuple[Any, Any]:
        """A search round's rollouts (one batch): :meth:`rollouts` of the tapes ``[*choices,
        options[i]]``, each forked at its last choice with key ``forks[i]``. A game whose tapes
        are arrays fills the shared ``choices`` once for the whole batch (:class:`TapeArrays`)."""


class ReplayBase:
    """:meth:`Replay.outcomes` and :meth:`Replay.forked` from a game's :meth:`Replay.rollouts`
    (said once for every game)."""

    def rollouts(
        self, tapes: Sequence[Sequence[Choice]], forks: Sequence[int] | None = None
    ) -> tuple[Any, Any]:
        raise NotImplementedError

    def outcomes(self, choices: Sequence[Choice], forks: Sequence[int] | None = None) -> tuple[Any, Any]:
        return self.rollouts([choices] * (1 if forks is None else len(forks)), forks)

    def forked(
        self, choices: Sequence[Choice], options: Sequence[Choice], forks: Sequence[int]
    ) -> tuple[Any, Any]:
        return self.rollouts([[*choices, o] for o in options], forks)


class TapedReplay(ReplayBase):
    """A replay on its game's batch engine, its tape kept as :class:`TapeArrays` (``self.tape``):
    :meth:`Replay.rollouts` and a search round's :meth:`Replay.forked` said once. The game gives
    ``_new(n, capacity, forks)`` (the game ``n`` times, keyed, not played), ``_play(tapes, stop,
    forks)`` (a batch of those tapes, played), ``_finish(b)`` (play a batch ``_new`` made) and
    ``_outcomes(b)`` (scores and wins by player)."""

    tape: "TapeArrays"

    def rollouts(
        self, tapes: Sequence[Sequence[Choice]], forks: Sequence[int] | None = None
    ) -> tuple[Any, Any]:
        check_rollouts(tapes, forks)
        return self._outcomes(self._play(list(tapes), stop=False, forks=forks))

    def forked(
        self, choices: Sequence[Choice], options: Sequence[Choice], forks: Sequence[int]
    ) -> tuple[Any, Any]:
        check_forked(options, forks)
        b = self._new(len(options), len(choices) + 1, forks)
        self.tape.put(b.workspace, choices, options)
        return self._outcomes(self._finish(b))


class TapeArrays:
    """A replay's tape as the engine holds it: a choice key (``key_of(choice.kind)``) and an option
    row (``width`` ints, zero-padded) per choice. A search extends its game's tape by one choice a
    decision and replays it in every rollout batch, so the arrays are kept and only the choices
    not encoded yet are added: a batch copies them into every game with two numpy assignments
    instead of one Python loop per choice per game (15% of a decision's time; issue 36.2)."""

    def __init__(self, key_of: Callable[[int], int], width: int, stop: int) -> None:
        import numpy as np

        self.key_of = key_of
        self.width = width
        self.stop = stop  # the engine's key of a stop entry (TAPE_STOP)
        self.choices: list[Choice] = []  # the choices encoded so far, in tape order
        self.kind = np.zeros(64, np.int16)
        self.value = np.zeros((64, width), np.int32)

    def encode(self, choices: Sequence[Choice]) -> tuple[Any, Any]:
        """(kind int16 [T], value int32 [T, width]) of ``choices``: views valid until the next call."""
        import numpy as np

        same = 0  # the longest common start with the choices encoded already
        for old, new in zip(self.choices, choices, strict=False):
            if old is not new and old != new:
                break
            same += 1
        del self.choices[same:]
        if len(choices) > len(self.kind):
            size = max(len(choices), 2 * len(self.kind))
            kind, value = np.zeros(size, np.int16), np.zeros((size, self.width), np.int32)
            kind[: len(self.choices)] = self.kind[: len(self.choices)]
            value[: len(self.choices)] = self.value[: len(self.choices)]
            self.kind, self.value = kind, value
        for t in range(same, len(choices)):
            c = choices[t]
            self.kind[t] = self.key_of(c.kind)
            self.value[t] = 0
            self.value[t, : len(c.row)] = c.row
            self.choices.append(c)
        return self.kind[: len(choices)], self.value[: len(choices)]

    def encode_each(self, options: Sequence[Choice]) -> tuple[Any, Any]:
        """(kind int16 [n], value int32 [n, width]) of ``n`` single choices (a round's last ones)."""
        import numpy as np

        kind = np.fromiter((self.key_of(c.kind) for c in options), np.int16, len(options))
        value = np.zeros((len(options), self.width), np.int32)
        for i, c in enumerate(options):
            value[i, : len(c.row)] = c.row
        return kind, value

    def put(self, wk: Any, choices: Sequence[Choice], options: Sequence[Choice] | None = None) -> None:
        """Every game of workspace ``wk`` (a game's tape fields: tape_kind, tape_value, tape_len,
        fork_at) plays ``choices``, then stops at the next decision (``options`` None) or takes
        ``options[i]`` in game i and forks there (a search round: Replay.forked)."""
        kind, value = self.encode(choices)
        T = len(choices)
        wk.tape_kind[:, :T] = kind  # the shared past, broadcast to every game
        wk.tape_value[:, :T] = value
        if options is None:
            wk.tape_kind[:, T] = self.stop
        else:
            wk.tape_kind[:, T], wk.tape_value[:, T] = self.encode_each(options)
            wk.fork_at[:] = T
        wk.tape_len[:] = T + 1


def seat_mask(players: int, seats: Sequence[int] | None, engine_index: Sequence[int] | None = None) -> int:
    """The bit mask of the taped players ``seats`` (default: all ``players``), each at its engine
    index (``engine_index[p]``; default p itself): a replay's tape forces those players only."""
    chosen = range(players) if seats is None else seats
    return int(sum(1 << int(p if engine_index is None else engine_index[p]) for p in chosen))


def check_forked(options: Sequence[Choice], forks: Sequence[int]) -> None:
    """A ValueError unless ``forks`` gives one key per option (Replay.forked)."""
    if len(forks) != len(options):
        raise ValueError(f"forks: expected one key per option ({len(options)}), got {len(forks)}")


def check_rollouts(tapes: Sequence[Sequence[Choice]], forks: Sequence[int] | None) -> None:
    """A ValueError unless ``forks`` (if any) gives one key per tape and every forked tape has a
    choice to fork at."""
    if forks is None:
        return
    if len(forks) != len(tapes):
        raise ValueError(f"forks: expected one key per tape ({len(tapes)}), got {len(forks)}")
    if any(len(t) == 0 for t in tapes):
        raise ValueError("forks: a fork needs a choice to fork at")


def comma_list(text: str) -> tuple[str, ...]:
    """The items of a comma-separated option, stripped; empty items (``a,,b``, a trailing comma)
    are dropped."""
    return tuple(s.strip() for s in text.split(",") if s.strip())


def strategy_list(names: str, option: str) -> list[str]:
    """Comma-separated strategy names or .toml files; an empty list is a user error."""
    out = list(comma_list(names))
    if not out:
        raise UserError(f"{option}: expected comma-separated strategy names or .toml files")
    return out


@dataclass(frozen=True)
class Assignment:
    """Which strategy sits where in a run: the distinct strategies, and either each player's
    index into them (``seats``) or the indices every seat is drawn from (``pool``)."""

    names: list[str]
    seats: list[int] | None = None
    pool: list[int] | None = None


def check_player_count(game: str, counts: Sequence[int], players: int, variant: str | None = None) -> None:
    """A UserError unless a game without variants plays ``players`` (its rules' player_counts)."""
    if variant is not None:
        raise UserError(f"--variant {variant}: {game} has no variants")
    if players not in counts:
        shown = ", ".join(map(str, counts))
        raise UserError(f"--players: expected one of {shown} (the rules' player_counts), got {players}")


def assign_strategies(
    strategies: str | None, pool: str, players: int, check: Callable[[str], Any] | None = None
) -> Assignment:
    """A run's assignment from the command line's lists: ``strategies`` (one per player) wins over
    ``pool``; ``check`` (the game's) raises a UserError for a name it does not know."""
    # `is not None`, not truthiness: --strategies "" is a mistake to name, not "use the pool".
    fixed = strategies is not None
    names = strategy_list(strategies, "--strategies") if fixed else strategy_list(pool, "--pool")
    distinct = list(dict.fromkeys(names))
    for name in distinct if check is not None else ():
        check(name)
    if not fixed:
        return Assignment(distinct, pool=list(range(len(distinct))))
    if len(names) != players:
        raise UserError(f"--strategies: expected {players} names (one per player), got {len(names)}")
    return Assignment(distinct, seats=[distinct.index(n) for n in names])


def play_strategies(strategies: str, players: int, check: Callable[[str], Any] | None = None) -> list[str]:
    """``soup play``'s strategy per seat: a comma-separated list, one name for every seat;
    ``check`` (the game's) raises a UserError for a name it does not know."""
    names = [n.strip() for n in strategies.split(",")]
    names = names * players if len(names) == 1 else names
    if len(names) != players:
        raise UserError(f"--strategies: expected 1 or {players} names, got {len(names)}")
    for name in names if check is not None else ():
        check(name)
    return names


STREAM_ASSIGNMENT = 3  # which strategies of a pool sit at the table (after the engines' streams)


def strategy_rows(
    seed: int, games: Any, players: int, seats: Sequence[int] | None, pool: Sequence[int] | None
) -> Any:
    """Strategy index of every player of every game, int64 [len(games), players]: ``seats`` (one
    index a player) in every game, or each player drawn from ``pool`` by the game's own stream
    (STREAM_ASSIGNMENT), so a game's players depend on (seed, game index) only."""
    import numpy as np

    if seats is not None:
        return np.tile(np.asarray(seats, dtype=np.int64), (len(games), 1))
    from sim.random_stream import uniform_draws

    draws = uniform_draws(seed, games, STREAM_ASSIGNMENT, len(pool), players)
    return np.asarray(pool, dtype=np.int64)[draws]


@dataclass
class ListedRun(RunAdapter):
    """A run whose players are named strategies, some of them search players (strategies/search.py)
    the engine plays by their rollout policy: what such runs hold and do alike, said once (issue
    35.5). A game's run subclasses it and gives ``game`` (its name), ``spec_extra()`` (the spec's
    own keys) and play_chunk; its rules are merged rules (sim.rules_files.MergedRules)."""

    game: ClassVar[str]
    rules: Any
    players: int
    seed: int
    names: list[str]  # the distinct strategies
    seats: list[int] | None = None  # strategy index per player, or
    pool: list[int] | None = None  # indices to draw every player of every game from
    # index into names -> its search player (strategies/search.py); the engine plays its rollout
    search: dict[int, Any] = field(default_factory=dict)

    def scripted(self) -> list[str]:
        """The strategy the engine plays for each name (a search player's: its rollout policy)."""
        return [self.search[i].rollout if i in self.search else n for i, n in enumerate(self.names)]

    def spec_extra(self) -> dict[str, Any]:
        return {}

    def spec(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "seed": self.seed,
            "strategies": self.names,
            "assignment": {"seats": self.seats} if self.seats is not None else {"pool": self.pool},
            "rules_id": self.rules.rules_id,
            "rules": self.rules.data,
            **self.spec_extra(),
            # the search players by name (only in a run with one: older specs read the same)
            **(
                {"search": {self.names[i]: asdict(sp) for i, sp in sorted(self.search.items())}}
                if self.search
                else {}
            ),
        }

    def core_columns(self, games: Any, rows: Any, start_space: Any, rank: Any, won: Any) -> dict[str, Any]:
        """A chunk's CORE_COLUMNS, one row per player per game: ``rows`` the strategy index of every
        player of ``games`` (:meth:`strategy_rows`), ``start_space``, ``rank`` and ``won`` already
        one value a row, in the types the game writes them."""
        import numpy as np

        from sim import columns

        P, count = self.players, len(games)
        return {
            "game": columns.array(np.repeat(games, P)),
            "seed": columns.array(np.full(count * P, self.seed, dtype=np.int64)),
            "players": columns.array(np.full(count * P, P, dtype=np.int8)),
            "player": columns.array(np.tile(np.arange(P, dtype=np.int8), count)),
            "start_space": columns.array(start_space),
            "strategy": columns.strings(rows.ravel(), self.names),
            "rank": columns.array(rank),
            "won": columns.array(won),
            "rules_id": columns.strings(np.zeros(count * P, np.int8), [self.rules.rules_id]),
        }

    def strategy_rows(self, games: Any) -> Any:
        """Strategy index of every player of every game: int64 [len(games), P]."""
        return strategy_rows(self.seed, games, self.players, self.seats, self.pool)


@dataclass(frozen=True)
class Told:
    """A game told for soup play (:meth:`Game.play_game`): its document and its text."""

    doc: dict[str, Any]
    text: str

    def as_json(self) -> dict[str, Any]:
        return self.doc

    def as_text(self) -> str:
        return self.text


class GameBase:
    """What the games' adapters (:class:`Game`) write the same way, said once (issue 35.5): a game
    subclasses it, sets ``info`` and the class attributes below, and overrides what it does its
    own way (Ursuppe: its player counts and variants, its runs)."""

    info: GameInfo
    presets: Sequence[str] = ()  # the presets' names (soup play, soup tournament)
    scenario_dir: Path  # its scenario files (*.json)
    scenario_module: str = ""  # the module giving load_scenario, scenario_document, run_scenario
    run_type: Callable[..., ListedRun]  # a run: (rules, players, seed, names, seats, pool, search)
    default_rollout: str = ""  # a search player's rollout policy unless its file names one
    # (names, default rollout) -> (the names as the engine plays them, the search players by index):
    # strategies.search.split_search, which the kit cannot import (staticmethod)
    split_search: Callable[[Sequence[str], str], tuple[list[str], dict[int, Any]]]
    read_rules: Callable[..., Any]  # the default rules with the files given on top (staticmethod)
    engine_module: str  # imported to compile (or load from the cache) its kernels
    # A UserError unless a name is a strategy of the game's: in a run (a search player too), and
    # in soup play (staticmethods).
    check_strategy: Callable[[str], Any]
    check_play_strategy: Callable[[str], Any]

    def load_rules(self, files: Sequence[Path] = ()) -> Any:
        return self.read_rules(*files)

    def load_engine(self) -> None:
        import_module(self.engine_module)

    def rules_document(self, rules: Any) -> dict[str, Any]:
        """Merged rules (sim.rules_files.MergedRules) as ``soup rules`` shows them."""
        return {"rules_id": rules.rules_id, "files": list(rules.files), "rules": rules.data}

    def check_players(self, rules: Any, players: int, variant: str | None = None) -> None:
        check_player_count(self.info.name, rules.player_counts, players, variant)

    def new_run(
        self,
        rules: Any,
        players: int,
        seed: int,
        *,
        strategies: str | None = None,
        pool: str | None = None,
        seating: str = "rotate",
        variant: str | None = None,
    ) -> Any:
        pool = self.info.default_pool if pool is None else pool  # --pool "" is a mistake to name
        return self.build_run(rules, players, seed, strategies, pool, seating, variant)

    def build_run(
        self,
        rules: Any,
        players: int,
        seed: int,
        strategies: str | None,
        pool: str,
        seating: str,
        variant: str | None,
    ) -> Any:
        """:meth:`new_run` with the game's pool (a :class:`ListedRun`: every seat of a game is its own)."""
        self.check_players(rules, players, variant)
        who = assign_strategies(strategies, pool, players, self.check_strategy)
        _, search = self.split_search(who.names, self.default_rollout)
        return self.run_type(rules, players, seed, who.names, who.seats, who.pool, search)

    def run_label(self, players: int, variant: str | None = None) -> str:
        return f"{players}p"

    def strategy_names(self) -> list[str]:
        return list(self.presets)

    def check_play(self, rules: Any, players: int, strategies: str, variant: str | None = None) -> list[str]:
        self.check_players(rules, players, variant)
        return play_strategies(strategies, players, self.check_play_strategy)

    def play_text(
        self,
        rules: Any,
        players: int,
        strategies: list[str],
        seed: int,
        *,
        variant: str | None = None,
        as_json: bool = False,
    ) -> str:
        played = self.play_game(rules, players, strategies, seed, variant)
        return json.dumps(played.as_json(), indent=1) if as_json else played.as_text()

    def scenario_files(self) -> list[Path]:
        return sorted(self.scenario_dir.glob("*.json"))

    def load_scenario(self, source: Path | dict[str, Any], check_invariants: bool = True) -> Any:
        return import_module(self.scenario_module).load_scenario(source, check_invariants=check_invariants)

    def scenario_document(self, scenario: Any) -> dict[str, Any]:
        return import_module(self.scenario_module).scenario_document(scenario)

    def run_scenario(self, scenario: Any) -> dict[str, Any]:
        return import_module(self.scenario_module).run_scenario(scenario)


class UnknownGameError(UserError):
    """A --game or a run's spec.game that no game registered."""


_REGISTERED: dict[str, Game] = {}
_ENTRY_POINTS: dict[str, dict[str, Any]] = {}


def _entry_points(group: str = ENTRY_POINT_GROUP) -> dict[str, Any]:
    if group not in _ENTRY_POINTS:
        from importlib.metadata import entry_points  # (12 ms: only when a game is looked up)

        _ENTRY_POINTS[group] = {ep.name: ep for ep in entry_points(group=group)}
    return _ENTRY_POINTS[group]


def default_name() -> str:
    """The game a command plays without --game: the one entry of the ``soup.default_game``
    group (pyproject.toml), read without importing any game."""
    marked = list(_entry_points(DEFAULT_GROUP))
    if len(marked) != 1 or marked[0] not in names():
        raise TypeError(
            f"entry point group {DEFAULT_GROUP!r}: expected one registered game, got {marked} "
            "(pyproject.toml; after changing it: pip install -e .)"
        )
    return marked[0]


def command_apps() -> dict[str, str]:
    """Each game's own commands, by game: the entry point (``module:app``) of a typer app whose
    commands ``soup`` mounts at its top level (group ``soup.commands``; no game is imported)."""
    return {name: ep.value for name, ep in sorted(_entry_points(COMMANDS_GROUP).items())}


def capability_problem(game: Any) -> str | None:
    """What is wrong with ``game``'s declared capabilities, or None: an unknown name, a required
    one missing, or a method of a declared one that the game does not give."""
    declared = game.info.capabilities
    unknown = [c for c in declared if c not in CAPABILITIES]
    if unknown:
        return f"unknown capabilities {unknown}; expected some of {sorted(CAPABILITIES)}"
    missing = [c for c in REQUIRED_CAPABILITIES if c not in declared]
    if missing:
        return f"does not declare the required capabilities {missing}"
    for name in declared:
        absent = [m for m in CAPABILITIES[name].methods if not callable(getattr(game, m, None))]
        if absent:
            return f"declares {name!r} but does not give {', '.join(absent)}"
    return None


def supports(game: Game, capability: str) -> bool:
    """Whether ``game`` declares ``capability`` (a name of CAPABILITIES)."""
    if capability not in CAPABILITIES:
        raise KeyError(f"no capability {capability!r}; expected one of {sorted(CAPABILITIES)}")
    return capability in game.info.capabilities


def register(game: Game) -> None:
    """Register ``game`` in this process (a registered name is replaced); a game whose declared
    capabilities it does not give is refused (:func:`capability_problem`)."""
    problem = capability_problem(game)
    if problem:
        raise TypeError(f"game {game.info.name!r}: {problem}")
    _REGISTERED[game.info.name] = game


def names() -> list[str]:
    """Every registered game's name, sorted."""
    return sorted(set(_entry_points()) | set(_REGISTERED))


def get(name: str) -> Game:
    """The game registered as ``name`` (a UserError naming the known games otherwise)."""
    if name not in _REGISTERED:
        point = _entry_points().get(name)
        if point is None:
            raise UnknownGameError(f"--game: expected one of {', '.join(names())}, got {name!r}")
        game = point.load()
        if game.info.name != name:
            raise UnknownGameError(f"entry point {name!r} registers a game named {game.info.name!r}")
        problem = capability_problem(game)
        if problem:
            raise TypeError(f"game {name!r} (entry point {point.value}): {problem}")
        _REGISTERED[name] = game
    return _REGISTERED[name]


def game_of_spec(spec: dict[str, Any], where: str) -> Game:
    """The game a run's spec names (``spec.game``; runs from before the protocol are Ursuppe's,
    the only game then). ``where`` names the manifest in errors."""
    name = spec.get("game", "ursuppe")
    if not isinstance(name, str) or name not in names():
        raise UnknownGameError(f"{where}: spec.game is {name!r}; expected one of {', '.join(names())}")
    return get(name)


def each(function: Callable[[Game], Any]) -> dict[str, Any]:
    """``function`` applied to every registered game, by name."""
    return {name: function(get(name)) for name in names()}
