"""Win rates from a run's outcome rows (sim/ursuppe/simulation.py's schema), with 95% intervals."""

from pathlib import Path

import polars as pl

from analysis.intervals import wilson
from sim.runner import chunk_files


def load_results(run_dir: str | Path) -> pl.LazyFrame:
    """All complete chunks of a run as one lazy frame."""
    files = chunk_files(Path(run_dir))
    return pl.scan_parquet([str(f) for f in files])


def win_rates(rows: pl.LazyFrame | pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Per group: games (player-rows), wins, win rate with its 95% Wilson interval, mean rounds,
    and the fair share 1/players for comparison."""
    lf = rows.lazy() if isinstance(rows, pl.DataFrame) else rows
    df = (
        lf.group_by(by)
        .agg(
            pl.len().alias("games"),
            pl.col("won").sum().alias("wins"),
            pl.col("rounds").mean().alias("mean_rounds"),
            (1.0 / pl.col("players").first()).alias("fair_share"),
        )
        .sort(by)
        .collect()
    )
    lo, hi = wilson(df["wins"].to_numpy(), df["games"].to_numpy())
    return df.with_columns(
        (pl.col("wins") / pl.col("games")).alias("win_rate"),
        pl.Series("ci_low", lo),
        pl.Series("ci_high", hi),
    )
