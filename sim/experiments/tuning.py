"""CMA-ES tuning of one strategy against a field, over the game protocol.

The game says which numbers make a strategy (``Game.strategy_space``: start, bounds) and turns a
vector into a strategy its runs accept (``Game.strategy_spec``). Every candidate of a generation
plays the same games (common random numbers: the generation's seed), seated against the field;
its fitness is its win rate. The best mean of the last generation is the result. cmaes
(the package) runs the search."""

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from cmaes import CMA

from sim.experiments.arms import Arm, play_arm
from sim.game import Game


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
