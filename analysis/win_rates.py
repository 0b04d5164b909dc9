"""Win rates from runs' outcome rows (sim/ursuppe/simulation.py's schema), with 95% intervals.

Every rate comes with a Wilson interval. Where a rate is tested against the fair share 1/P
(seat advantage, strategy strength), the p-value uses a cluster-robust standard error with the
game as the cluster: two players of one strategy in the same game are not independent draws
(at most one of them wins). Families of such tests are Holm-corrected.

Rows of several runs may be combined (e.g. a 3-player and a 4-player run); a game is identified
by (players, seed, game), so the same game index in two runs stays two games.
"""

import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analysis.intervals import two_sided_p, wilson
from analysis.multiple_testing import holm
from sim.runner import MANIFEST, chunk_files

# Columns that together identify one game across the runs of a report.
GAME_KEY = ["players", "seed", "game"]


def load_results(*run_dirs: str | Path) -> pl.LazyFrame:
    """All complete chunks of one or more runs as one lazy frame."""
    files = [str(f) for d in run_dirs for f in chunk_files(Path(d))]
    return pl.scan_parquet(files)


def load_manifest(run_dir: str | Path) -> dict[str, Any]:
    """A run's manifest (what was run: rules, strategies, seed, counts, timings)."""
    return json.loads((Path(run_dir) / MANIFEST).read_text())


def _lazy(rows: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
    return rows.lazy() if isinstance(rows, pl.DataFrame) else rows


def _cluster_se(rows: pl.LazyFrame, by: list[str], value: str) -> pl.DataFrame:
    """Per group of ``by``: the mean of ``value`` and its cluster-robust standard error (game =
    cluster): ``se^2 = C/(C-1) * sum_c ((S_c - mean * N_c) / N)^2``."""
    per_game = rows.group_by([*by, *(k for k in GAME_KEY if k not in by)]).agg(
        pl.col(value).cast(pl.Float64).sum().alias("_s"), pl.len().alias("_n")
    )
    return (
        per_game.with_columns(
            (pl.col("_s").sum().over(by) / pl.col("_n").sum().over(by)).alias("_mean"),
            pl.col("_n").sum().over(by).alias("_total"),
        )
        .group_by(by)
        .agg(
            pl.len().alias("_clusters"),
            (((pl.col("_s") - pl.col("_mean") * pl.col("_n")) / pl.col("_total")) ** 2).sum().alias("_u2"),
        )
        .with_columns(
            (pl.col("_clusters") / (pl.col("_clusters") - 1).clip(lower_bound=1) * pl.col("_u2"))
            .sqrt()
            .alias("se")
        )
        .select([*by, "se"])
        .collect()
    )


def win_rates(rows: pl.LazyFrame | pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Per group: player-rows, wins, win rate with its 95% Wilson interval, mean rounds, the fair
    share 1/players, and the test of "win rate = fair share" (cluster-robust z, p-value and the
    Holm-adjusted p-value over the groups of the table)."""
    lf = _lazy(rows)
    df = (
        lf.group_by(by)
        .agg(
            pl.len().alias("games"),
            pl.col("won").sum().alias("wins"),
            pl.col("rounds").mean().alias("mean_rounds"),
            (1.0 / pl.col("players").cast(pl.Float64)).mean().alias("fair_share"),
        )
        .sort(by)
        .collect()
    )
    df = df.join(_cluster_se(lf, by, "won"), on=by, how="left")
    lo, hi = wilson(df["wins"].to_numpy(), df["games"].to_numpy())
    rate = (df["wins"] / df["games"]).to_numpy()
    se = df["se"].to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (rate - df["fair_share"].to_numpy()) / se
    p = two_sided_p(z)
    p = np.where(se > 0, p, np.nan)
    return df.with_columns(
        pl.Series("win_rate", rate),
        pl.Series("ci_low", lo),
        pl.Series("ci_high", hi),
        pl.Series("p_value", p),
        pl.Series("p_holm", holm(p)),
    )


def seat_advantage(rows: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """S5: win rate by player count and start space against the fair share, with the advantage
    (rate - 1/P) and Holm-adjusted p-values over every seat of every player count."""
    df = win_rates(rows, ["players", "start_space"])
    return df.with_columns((pl.col("win_rate") - pl.col("fair_share")).alias("advantage"))


def games(rows: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
    """One row per game: players, seed, game, rounds, end reason and the deck order."""
    return (
        _lazy(rows)
        .group_by(GAME_KEY)
        .agg(pl.col("rounds").first(), pl.col("end_reason").first(), pl.col("deck").first())
    )


def game_length(rows: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """The distribution of game length: games and share per (players, rounds, end reason)."""
    g = games(rows)
    return (
        g.group_by(["players", "rounds", "end_reason"])
        .agg(pl.len().alias("games"))
        .with_columns((pl.col("games") / pl.col("games").sum().over("players")).alias("share"))
        .sort(["players", "rounds", "end_reason"])
        .collect()
    )


def game_length_summary(rows: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """Per player count: games, mean, standard deviation, quartiles and range of rounds."""
    return (
        games(rows)
        .group_by("players")
        .agg(
            pl.len().alias("games"),
            pl.col("rounds").mean().alias("mean_rounds"),
            pl.col("rounds").std().alias("sd_rounds"),
            pl.col("rounds").min().alias("min"),
            pl.col("rounds").quantile(0.25, "nearest").alias("q1"),
            pl.col("rounds").median().alias("median"),
            pl.col("rounds").quantile(0.75, "nearest").alias("q3"),
            pl.col("rounds").max().alias("max"),
        )
        .sort("players")
        .collect()
    )


def end_reasons(rows: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """W1: per player count, how often a game ends by the finish zone vs after the last card,
    with Wilson intervals (one row per game, so games are independent)."""
    df = (
        games(rows)
        .group_by(["players", "end_reason"])
        .agg(pl.len().alias("games"))
        .with_columns(pl.col("games").sum().over("players").alias("of"))
        .sort(["players", "end_reason"])
        .collect()
    )
    lo, hi = wilson(df["games"].to_numpy(), df["of"].to_numpy())
    return df.with_columns(
        (pl.col("games") / pl.col("of")).alias("share"), pl.Series("ci_low", lo), pl.Series("ci_high", hi)
    )
