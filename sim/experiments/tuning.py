"""CMA-ES tuning of one strategy against a field, over the game protocol.

The game says which numbers make a strategy (``Game.strategy_space``: start, bounds) and turns a
vector into a strategy its runs accept (``Game.strategy_spec``). Every candidate of a generation
plays the same games (common random numbers: the generation's seed), seated against the field;
its fitness is its win rate. The best mean of the last generation is the result. cmaes
(the package) runs the search."""

import hashlib
import math
import pickle
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from cmaes import CMA

from sim import game as games
from sim.errors import UserError
from sim.experiments.arms import Arm, play_arm
from sim.game import Game, strategy_list
from sim.runner import write_atomic

# soup tune's default budgets, measured on the 2-core reference machine (docs/tuning.md): a useful
# tuning in a few minutes, and a game's gene-value study (its "tuning_plan") of 20 genes at one
# player count within 30 minutes.
TUNE_BUDGET = 1_800_000
GENE_VALUE_BUDGET = 16_000_000


@dataclass
class Tuned:
    vector: np.ndarray
    spec: str  # the tuned strategy, as the game's runs accept it
    win_rate: float  # of the tuned strategy on fresh games (the seed after the generations')
    history: list[float]  # the best win rate of each generation
    start_win_rate: float = float("nan")  # of the start, on the same fresh games


def tune(
    game: Game,
    rules: Any,
    name: str,
    field: str,
    players: int,
    seed: int,
    generations: int,
    games: int,
    directory: Path,
    threads: int = 1,
    population: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Tuned:
    """Tune strategy ``name`` (its start point) against ``field`` (a strategy for every other seat);
    ``progress`` is told the games of every evaluation. The start and the tuned strategy are then
    compared on the same fresh games (the seed after the generations')."""
    start, low, high = game.strategy_space(name)
    sigma = float(np.mean(high - low)) / 4
    optimizer = CMA(
        mean=start.astype(float),
        sigma=sigma,
        bounds=np.stack([low, high], axis=1),
        seed=seed % 2**31,
        population_size=population,
    )
    history: list[float] = []
    directory = Path(directory)

    def fitness(x: np.ndarray, generation: int, k: int) -> float:
        spec = game.strategy_spec(name, x, directory / f"g{generation:03d}-{k:02d}")
        seats = ",".join([spec] + [field] * (players - 1))
        with tempfile.TemporaryDirectory() as tmp:
            rows = play_arm(
                game,
                Arm("candidate", rules, strategies=seats),
                players,
                seed + generation,
                games,
                Path(tmp) / "run",
                threads,
            )
        if progress is not None:
            progress(games)
        return float(rows.filter(rows["player"] == 0)["won"].mean())

    for generation in range(generations):
        asked = [optimizer.ask() for _ in range(optimizer.population_size)]
        rates = [fitness(x, generation, k) for k, x in enumerate(asked)]
        optimizer.tell([(x, -r) for x, r in zip(asked, rates, strict=True)])
        history.append(max(rates))
    best = np.clip(optimizer.mean, low, high)
    spec = game.strategy_spec(name, best, directory / "tuned")
    tuned_rate = fitness(best, generations, 0)
    return Tuned(best, spec, tuned_rate, history, fitness(start.astype(float), generations, 1))


# --------------------------------------------------------------------------- the checkpointed loop

CHECKPOINT = "checkpoint.pkl"


@dataclass
class TuneState:
    """What a checkpoint holds: the optimiser, the generation reached and the history."""

    fingerprint: dict[str, Any]  # the tuning's identity: a checkpoint is only resumed under the same
    optimizer: Any  # cmaes.CMA
    generation: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    opponent: list[float] | None = None  # self-play: the previous generation's best vector
    seconds: float = 0.0  # time spent playing (for the speed figures, not part of the result)
    games: int = 0


def generation_seed(seed: int, generation: int) -> int:
    """The optimiser's sampling seed for one generation (32 bits, as numpy's RandomState takes)."""
    digest = hashlib.blake2b(f"soup-tune-cma-{seed}-{generation}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "little")


def fresh_seed(seed: int) -> int:
    """The seed of the fresh evaluation games: derived from the tuning seed, never equal to it."""
    h = int.from_bytes(hashlib.blake2b(f"soup-tune-fresh-{seed}".encode(), digest_size=8).digest(), "little")
    fresh = h & (2**63 - 1)
    return fresh if fresh != seed else fresh ^ 1


def unit_optimizer(x0: np.ndarray, sigma: float, seed: int, population: int) -> CMA:
    """CMA-ES over the [0, 1] box of ``len(x0)`` scaled parameters."""
    bounds = np.tile([0.0, 1.0], (len(x0), 1))
    return CMA(mean=x0, sigma=sigma, bounds=bounds, seed=seed % (2**32), population_size=population)


def read_checkpoint(
    out: Path, fingerprint: dict[str, Any], error: type[UserError] = UserError
) -> TuneState | None:
    """The state kept in ``out`` (None: none); a damaged one, or another tuning's (another
    ``fingerprint``), is ``error`` in one line."""
    path = out / CHECKPOINT
    if not path.exists():
        return None
    try:
        with path.open("rb") as f:
            state = pickle.load(f)
    except Exception as e:  # a damaged checkpoint: say so in one line
        raise error(
            f"{path}: cannot read the checkpoint ({e.__class__.__name__}); delete it to start over"
        ) from None
    if not isinstance(state, TuneState) or state.fingerprint != fingerprint:
        raise error(
            f"{out}: holds another tuning (other start, field, parameters, budget or seed); use another --out"
        )
    opt = CMA.__new__(CMA)
    opt.__dict__.update(state.optimizer)
    opt._rng = np.random.RandomState(0)  # reseeded before every generation
    state.optimizer = opt
    return state


def write_checkpoint(out: Path, state: TuneState) -> None:
    """The state with the optimiser's attributes saved whole: cmaes's own pickling keeps only the
    covariance's upper triangle, which changes the last bit of a matrix that updates left not
    exactly symmetric, and a resumed run would drift from a whole one. Its random generator is
    left out (reseeded every generation)."""
    attrs = {k: v for k, v in vars(state.optimizer).items() if k != "_rng"}
    saved = replace(state, optimizer=attrs)

    def write(p: Path) -> None:
        with p.open("wb") as f:
            pickle.dump(saved, f, protocol=pickle.HIGHEST_PROTOCOL)

    write_atomic(out / CHECKPOINT, write)


def run_generations(
    state: TuneState,
    generations: int,
    seed: int,
    out: Path,
    generation: Callable[[TuneState], int],
    total: int,
    progress: Callable[[int, int], None] | None = None,
    after_generation: Callable[[TuneState], None] | None = None,
) -> TuneState:
    """The checkpointed CMA-ES loop: ``generation(state)`` asks, plays and tells one generation
    (the game's part) and returns its games; the state is written to ``out`` after each, so
    Ctrl-C keeps the last one and the same call resumes to the result a whole run gives."""
    if progress:
        progress(state.games, total)
    while state.generation < generations:
        t0 = time.perf_counter()
        # cmaes does not pickle its random generator (an unpickled CMA gets an unseeded one): every
        # generation reseeds it from (seed, generation), so a resumed run samples what a whole one does.
        state.optimizer.reseed_rng(generation_seed(seed, state.generation))
        games = generation(state)
        state.generation += 1
        state.seconds += time.perf_counter() - t0
        state.games += games
        write_checkpoint(out, state)
        if progress:
            progress(state.games, total)
        if after_generation:
            after_generation(state)
    return state


# --------------------------------------------------------------------------- soup tune, every game


@dataclass(frozen=True)
class TuneRequest:
    """soup tune's options as the command line gives them (None: not given). Every game reads the
    first group; the rest only a game with its own tuning (the "tuning_plan" capability: Ursuppe's
    parameter rows, self-play, pools and gene-value study) reads, and another game is refused
    them (:func:`refuse_own_options`)."""

    strategy: str
    players: int
    seed: int
    games_per_candidate: int
    eval_games: int
    against: str | None = None
    rules: Path | None = None
    budget: int | None = None
    population: int | None = None
    out: Path | None = None
    variant: str | None = None
    self_play: bool = False
    pool: str | None = None
    params: str = "default"
    sigma: float | None = None
    resume: bool = False
    gene_value: bool = False
    design: str = "option"
    references: str = "null,plain,bp"
    decks: int = 1
    genes: str | None = None

    def own_options(self) -> dict[str, bool]:
        """The options of a game's own tuning, by name: whether each was given."""
        return {
            "variant": self.variant is not None,
            "self-play": self.self_play,
            "gene-value": self.gene_value,
            "resume": self.resume,
            "pool": self.pool is not None,
            "params": self.params != "default",
            "sigma": self.sigma is not None,
        }


class TuningJob(Protocol):
    """One soup tune, checked and ready to play: the command line gives it the progress bar, the
    Ctrl-C line and the output directory's claim (sim/cli/tune.py), the same for every game."""

    out: Path
    command: str  # the owner of --out (sim.out_dirs): "tune" or a study's
    label: str  # the progress bar's
    total: int  # games in all (a resumed part counts as played)

    def check(self) -> None:
        """What needs --out claimed by no other command (a checkpoint to resume): a UserError."""

    def kept(self) -> str:
        """What an interrupted job keeps in ``out`` (read when Ctrl-C comes)."""

    def play(self, threads: int, progress: Callable[[int, int], None]) -> None:
        """Play (or resume) the tuning; ``progress(done, total)`` in games."""

    def finish(self, threads: int, say: Callable[[str], None], warn: Callable[[str], None]) -> None:
        """Write the outputs and tell the result (``say``) and what to watch (``warn``)."""


def refuse_own_options(game: Game, request: TuneRequest) -> None:
    """A UserError naming the first option of a game's own tuning given with a game without one,
    and the games that have it."""
    if games.supports(game, "tuning_plan"):
        return
    having = ", ".join(n for n in games.names() if games.supports(games.get(n), "tuning_plan"))
    for name, given in request.own_options().items():
        if given:
            raise UserError(
                f"--{name}: only with --game {having} (the game-agnostic experiments have no such option)"
            )


def tuning_job(game: Game, request: TuneRequest) -> TuningJob:
    """soup tune's job for ``game``: its own plan (the "tuning_plan" capability) or
    :class:`GameTuning`, checked (a UserError) before any engine code loads."""
    refuse_own_options(game, request)
    if games.supports(game, "tuning_plan"):
        return game.tuning_plan(request)
    return GameTuning(game, request)


class GameTuning:
    """soup tune over the game protocol: CMA-ES (:func:`tune`) of the strategy's tunable numbers
    against one strategy at every other seat (default: the game's play strategy); writes
    tuned.txt (the tuned strategy, as the game's runs accept it) and report.md."""

    command = "tune"
    label = "tuning"

    def __init__(self, game: Game, request: TuneRequest) -> None:
        r = self.request = request
        self.game = game
        self.book = game.load_rules([r.rules] if r.rules is not None else [])
        game.check_players(self.book, r.players)
        names = strategy_list(r.against if r.against is not None else game.info.default_strategy, "--against")
        if len(names) != 1:
            raise UserError(
                f"--against: expected one strategy for every other seat with --game {game.info.name}, "
                f"got {len(names)}"
            )
        self.field = names[0]
        start, _, _ = game.strategy_space(r.strategy)
        game.check_play(self.book, r.players, ",".join([r.strategy] + names * (r.players - 1)))
        self.size = r.population or 4 + int(3 * math.log(len(start)))  # CMA-ES's default population
        budget = r.budget if r.budget is not None else TUNE_BUDGET
        self.generations = budget // (self.size * r.games_per_candidate)
        if self.generations < 1:
            raise UserError(
                f"--budget: {budget:,} games is less than one generation ({self.size} candidates x "
                f"{r.games_per_candidate:,} games); give a larger --budget or a smaller --games-per-candidate"
            )
        default = Path("results") / f"tune-{game.info.name}-{r.strategy}-{r.players}p-seed{r.seed}"
        self.out = r.out if r.out is not None else default
        self.total = (self.generations * self.size + 2) * r.games_per_candidate

    def check(self) -> None:
        pass  # nothing kept to resume: the same command starts again

    def kept(self) -> str:
        return f"nothing is kept in {self.out}: the same command starts again"

    def play(self, threads: int, progress: Callable[[int, int], None]) -> None:
        r = self.request
        played = 0

        def advance(n: int) -> None:
            nonlocal played
            played += n
            progress(played, self.total)

        self.tuned = tune(
            self.game,
            self.book,
            r.strategy,
            self.field,
            r.players,
            r.seed,
            self.generations,
            r.games_per_candidate,
            self.out / "candidates",
            threads,
            r.population,
            advance,
        )

    def finish(self, threads: int, say: Callable[[str], None], warn: Callable[[str], None]) -> None:
        from analysis.tables import write_text_atomic
        from analysis.tuning_report import game_tuning_markdown

        r, tuned = self.request, self.tuned
        write_text_atomic(self.out / "tuned.txt", tuned.spec + "\n")
        doc = {
            "game": self.game.info.name,
            "rules": self.game.rules_line(self.book),
            "start": r.strategy,
            "field": self.field,
            "players": r.players,
            "seed": r.seed,
            "generations": self.generations,
            "population": self.size,
            "games": r.games_per_candidate,
            "vector": [float(x) for x in tuned.vector],
            "spec": tuned.spec,
            "start_win_rate": tuned.start_win_rate,
            "win_rate": tuned.win_rate,
            "history": tuned.history,
        }
        write_text_atomic(self.out / "report.md", game_tuning_markdown(doc))
        say(
            f"{r.strategy} tuned against {self.field}: start {tuned.start_win_rate:.3f}, tuned "
            f"{tuned.win_rate:.3f} on {r.games_per_candidate:,} fresh games; the tuned strategy: {tuned.spec}"
        )
        say(f"Wrote {self.out / 'tuned.txt'} and {self.out / 'report.md'}")
