"""Two arms compared on common random numbers: the paired difference of win rates by strategy and
by seat, with cluster-robust 95% intervals (the game is the cluster: its rows are not
independent, and the arms' rows of one game are paired)."""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analysis.intervals import Z95
from sim.experiments.arms import Arm, play_arm
from sim.game import Game


def paired_win_rates(a: pl.DataFrame, b: pl.DataFrame, by: str) -> pl.DataFrame:
    """Per value of ``by``: rows, win rate in each arm, the difference b - a and its 95%
    interval. The arms must hold the same games and players in the same order (common random
    numbers: the same run but for what the experiment changes)."""
    keys = list(dict.fromkeys(["game", "player", by]))
    if a.select(keys).to_numpy().tolist() != b.select(keys).to_numpy().tolist():
        raise ValueError(f"paired arms: the rows differ in game, player or {by}")
    d = b["won"].cast(pl.Float64).to_numpy() - a["won"].cast(pl.Float64).to_numpy()
    cluster = np.unique(a["game"].to_numpy(), return_inverse=True)[1]  # a game's rows: one cluster
    key = a[by].to_numpy()
    out = []
    for value in sorted(set(key.tolist())):
        rows = key == value
        n = int(rows.sum())
        diff = float(d[rows].mean())
        # cluster-robust variance of a mean: sum over games of (sum of the game's residuals)^2 / n^2
        residual = np.where(rows, d - diff, 0.0)
        per_game = np.bincount(cluster, weights=residual)
        se = float(np.sqrt((per_game**2).sum())) / n
        out.append(
            {
                by: value,
                "rows": n,
                "win_rate_a": float(a["won"].to_numpy()[rows].mean()),
                "win_rate_b": float(b["won"].to_numpy()[rows].mean()),
                "difference": diff,
                "low": diff - Z95 * se,
                "high": diff + Z95 * se,
            }
        )
    return pl.DataFrame(out)


def compare_tables(
    game: Game, a: Arm, b: Arm, players: int, seed: int, games: int, out: Path,
    keys: Sequence[str] = ("strategy",), **playing: Any,
) -> dict[str, pl.DataFrame]:  # fmt: skip
    """Play arms ``a`` and ``b`` (into ``out``/a and ``out``/b) once and return their paired table
    for each of ``keys``. ``playing``: how each arm is played (:func:`play_arm`'s threads, backend,
    chunk_size, variant, play)."""
    rows_a, rows_b = (
        play_arm(game, arm, players, seed, games, Path(out) / d, **playing) for arm, d in ((a, "a"), (b, "b"))
    )
    return {key: paired_win_rates(rows_a, rows_b, key) for key in keys}


def compare(
    game: Game, a: Arm, b: Arm, *arguments: Any, by: str = "strategy", **options: Any
) -> pl.DataFrame:
    """Play arms ``a`` and ``b`` and return their paired table by ``by`` (the other arguments:
    :func:`compare_tables`'s)."""
    return compare_tables(game, a, b, *arguments, keys=(by,), **options)[by]
