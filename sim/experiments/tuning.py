"""CMA-ES tuning, said once for every game: the checkpointed loop (:func:`run_generations`: the
state, its checkpoint, a sampler reseeded every generation, so Ctrl-C keeps the last generation
and a resumed run gives what a whole one does) and :func:`tune`, one strategy against a field
over the game protocol.

The game says which numbers make a strategy (``Game.strategy_space``: start, bounds) and turns a
vector into a strategy its runs accept (``Game.strategy_spec``). Every candidate of a generation
plays the same games (common random numbers: the generation's seed), seated against the field;
its fitness is its win rate. The best mean of the last generation is the result. cmaes
(the package) runs the search. soup tune's flow around it: sim.experiments.tune_flow."""

import hashlib
import pickle
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from sim.errors import UserError
from sim.game import Game
from sim.runner import write_atomic


@dataclass
class Tuned:
    vector: np.ndarray
    spec: str  # the tuned strategy, as the game's runs accept it
    win_rate: float  # of the tuned strategy on fresh games (the seed after the generations')
    history: list[float]  # the best win rate of each generation
    start_win_rate: float = float("nan")  # of the start, on the same fresh games


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


def box_optimizer(
    mean: np.ndarray, sigma: float, low: np.ndarray, high: np.ndarray, seed: int, population: int | None
) -> Any:
    """CMA-ES (a cmaes.CMA) from ``mean`` over the box [``low``, ``high``]; ``population`` None is
    CMA-ES's default. Its generator is reseeded before every generation (:func:`run_generations`),
    so ``seed`` only has to be one numpy's RandomState takes."""
    from cmaes import CMA  # (scipy: only once a tuning starts, never for a command's checks)

    bounds = np.stack([low, high], axis=1)
    return CMA(mean=mean, sigma=sigma, bounds=bounds, seed=seed % 2**32, population_size=population)


def unit_optimizer(x0: np.ndarray, sigma: float, seed: int, population: int) -> Any:
    """CMA-ES over the [0, 1] box of ``len(x0)`` scaled parameters."""
    return box_optimizer(x0, sigma, np.zeros(len(x0)), np.ones(len(x0)), seed, population)


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
    from cmaes import CMA

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


# --------------------------------------------------------------------------- over the game protocol


@dataclass(frozen=True)
class TuneSetup:
    """One tuning over the game protocol: strategy ``name`` (its start point) against ``against``
    at every other seat, ``generations`` of ``games`` games a candidate from ``seed``."""

    game: Game
    rules: Any
    name: str
    against: str
    players: int
    seed: int
    generations: int
    games: int
    population: int | None = None  # None: CMA-ES's default

    @cached_property
    def fingerprint(self) -> dict[str, Any]:
        """The tuning's identity, kept in its checkpoint: a checkpoint is resumed only by the same
        tuning (the start's numbers, not only its name: a file may change). Built once: the
        command's check and the tune read the same."""
        start, low, high = self.game.strategy_space(self.name)
        return {
            "game": self.game.info.name,
            "rules_id": self.rules.rules_id,
            "start": self.name,
            "start_vector": [float(x) for x in start],
            "bounds": [[float(a), float(b)] for a, b in zip(low, high, strict=True)],
            "field": self.against,
            "players": self.players,
            "seed": self.seed,
            "generations": self.generations,
            "games": self.games,
            "population": self.population,
        }


def tune(
    setup: TuneSetup,
    out: Path,
    threads: int = 1,
    progress: Callable[[int, int], None] | None = None,
    after_generation: Callable[[TuneState], None] | None = None,
) -> Tuned:
    """Tune ``setup`` on :func:`run_generations`: checkpointed in ``out`` after every generation
    (Ctrl-C keeps the last one; the same call resumes to the result a whole run gives; another
    tuning's checkpoint is a UserError). ``progress(done, total)`` in games. The start and the
    tuned strategy are then compared on the same fresh games (the seed after the generations')."""
    from sim.experiments.arms import Arm, play_arm

    s, out = setup, Path(out)
    out.mkdir(parents=True, exist_ok=True)
    start, low, high = s.game.strategy_space(s.name)
    fingerprint = s.fingerprint
    # The first step a quarter of the bounds' mean width.
    sigma = float(np.mean(high - low)) / 4
    state = read_checkpoint(out, fingerprint) or TuneState(
        fingerprint, box_optimizer(start.astype(float), sigma, low, high, s.seed, s.population)
    )
    size = state.optimizer.population_size
    total = (s.generations * size + 2) * s.games
    played = 0  # games of the generation under way, for the progress of every candidate

    def fitness(x: np.ndarray, generation: int, k: int) -> float:
        nonlocal played
        spec = s.game.strategy_spec(s.name, x, out / "candidates" / f"g{generation:03d}-{k:02d}")
        seats = ",".join([spec] + [s.against] * (s.players - 1))
        with tempfile.TemporaryDirectory() as tmp:
            arm = Arm("candidate", s.rules, strategies=seats)
            rows = play_arm(s.game, arm, s.players, s.seed + generation, s.games, Path(tmp) / "run", threads)
        played += s.games
        if progress is not None:
            progress(state.games + played, total)
        return float(rows.filter(rows["player"] == 0)["won"].mean())

    def generation(state: TuneState) -> int:
        nonlocal played
        played = 0
        opt = state.optimizer
        asked = [opt.ask() for _ in range(size)]
        rates = [fitness(x, state.generation, k) for k, x in enumerate(asked)]
        opt.tell([(x, -r) for x, r in zip(asked, rates, strict=True)])
        state.history.append({"generation": state.generation, "best": max(rates)})
        return played

    run_generations(state, s.generations, s.seed, out, generation, total, progress, after_generation)
    played = 0
    best = np.clip(state.optimizer.mean, low, high)
    spec = s.game.strategy_spec(s.name, best, out / "candidates" / "tuned")
    tuned_rate = fitness(best, s.generations, 0)
    history = [h["best"] for h in state.history]
    return Tuned(best, spec, tuned_rate, history, fitness(start.astype(float), s.generations, 1))
