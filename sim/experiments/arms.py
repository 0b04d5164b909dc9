"""Arms: one run each, on common random numbers.

An arm is a run of a game (rules, strategies or pool, players) with the experiment's seed and game
indices: since a game is a pure function of (rules, strategies, seating, seed, game index) and
every game draws from its own streams, two arms that differ in one thing (a house rule, a
strategy) play the same dice, decks and seats wherever that thing does not reach: the paired
difference cancels their noise (common random numbers).
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from sim import runner
from sim.game import Game


@dataclass(frozen=True)
class Arm:
    """One arm: its label and what makes its games."""

    label: str
    rules: Any  # the game's rules (Game.load_rules)
    strategies: str | None = None  # comma-separated, one per player, or
    pool: str | None = None  # drawn for every seat (default: the game's mix)


def play_arm(
    game: Game,
    arm: Arm,
    players: int,
    seed: int,
    games: int,
    out: Path,
    threads: int = 1,
    backend: Any = None,
    chunk_size: int | None = None,
    variant: str | None = None,
) -> pl.DataFrame:
    """Play ``arm`` into the run directory ``out`` (resuming a run already there) and return its
    outcome rows, sorted by game and player."""
    adapter = game.new_run(
        arm.rules, players, seed, strategies=arm.strategies, pool=arm.pool, variant=variant
    )
    opened = runner.open_run(adapter, Path(out), games, chunk_size or runner.default_chunk_size(threads))
    runner.play(opened, threads, backend=backend)
    return pl.concat([runner.read_chunk(f) for f in runner.chunk_files(Path(out))]).sort(["game", "player"])
