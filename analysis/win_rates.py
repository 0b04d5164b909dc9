"""Win rates from runs' outcome rows (sim/ursuppe/simulation.py's schema), with 95% intervals.

Every rate comes with a Wilson interval. Where a rate is tested against the fair share 1/P
(seat advantage, strategy strength), the test is a score test with a cluster-robust variance
under the null (the game is the cluster: two players of one strategy in the same game are not
independent draws, at most one of them wins). Families of such tests are Holm-corrected.

Rows of several runs may be combined (e.g. a 3-player and a 4-player run): ``load_results``
adds a ``run`` column, and a game is identified by (run, players, seed, game), so the same game
index in two runs stays two games.
"""

import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analysis.intervals import MIN_ROWS, NO_CONTRAST, cluster_contrast, contrast_columns, two_sided_p, wilson
from analysis.multiple_testing import holm, with_holm
from sim.runner import MANIFEST, chunk_files, read_chunk, scan_chunks

# Columns that together identify one game across the runs of a report.
GAME_KEY = ["run", "players", "seed", "game"]
# Outcome rows as the analyses take them: read lazily (load_results) or already in memory.
Rows = pl.LazyFrame | pl.DataFrame


def load_results(*run_dirs: str | Path) -> pl.LazyFrame:
    """All complete chunks of one or more runs as one lazy frame, with a ``run`` column (the
    position of the run in ``run_dirs``). The same directory twice is refused (ValueError): its
    games would count twice and every interval would be too narrow."""
    resolved = [Path(d).resolve() for d in run_dirs]
    if len(set(resolved)) != len(resolved):
        raise ValueError("the same run directory is given twice")
    frames = [
        scan_chunks(chunk_files(Path(d))).with_columns(pl.lit(i, pl.Int16).alias("run"))
        for i, d in enumerate(run_dirs)
    ]
    return pl.concat(frames, how="vertical") if len(frames) > 1 else frames[0]


def load_manifest(run_dir: str | Path) -> dict[str, Any]:
    """A run's manifest (what was run: rules, strategies, seed, counts, timings)."""
    return json.loads((Path(run_dir) / MANIFEST).read_text())


def with_run(rows: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
    """``rows`` as a lazy frame with a ``run`` column (0 when the rows come from one run)."""
    lf = rows.lazy()  # a LazyFrame returns itself
    if "run" not in lf.collect_schema().names():
        lf = lf.with_columns(pl.lit(0, pl.Int16).alias("run"))
    return lf


def cluster_ids(df: pl.DataFrame) -> np.ndarray:
    """One integer per game (run, players, seed, game) of ``df``'s rows: the clusters of
    :func:`analysis.intervals.cluster_contrast`."""
    return df.select(pl.struct(GAME_KEY).rank("dense")).to_series().to_numpy()


def win_rate_parts(rows: pl.LazyFrame | pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """The sufficient statistics of :func:`win_rates` per group of ``by``: player-games, wins, the
    sums of rounds and of the fair share, and for the cluster-robust score test the number of
    games (clusters) and ``sum_c r_c^2``, with ``r_c`` the sum of (won - 1/P) over the group's rows
    in game c. Every part is a sum over games, so parts of disjoint sets of games (the chunks of a
    run) add up: :func:`win_rates_from_parts` of their concatenation equals :func:`win_rates` of
    all rows, without holding all rows in memory."""
    lf = with_run(rows)
    # A game without rounds (its results have no "rounds" column) has no mean game length: NaN.
    has_rounds = "rounds" in lf.collect_schema().names()
    rounds = pl.col("rounds").cast(pl.Float64) if has_rounds else pl.lit(float("nan"))
    per_game = lf.group_by([*by, *(k for k in GAME_KEY if k not in by)]).agg(
        pl.len().alias("games"),
        pl.col("won").sum().cast(pl.Int64).alias("wins"),
        rounds.sum().alias("_rounds"),
        (1.0 / pl.col("players").cast(pl.Float64)).sum().alias("_fair"),
        (pl.col("won").cast(pl.Float64) - 1.0 / pl.col("players").cast(pl.Float64)).sum().alias("_r"),
    )
    return (
        per_game.group_by(by)
        .agg(
            pl.col("games").sum().cast(pl.Int64),
            pl.col("wins").sum(),
            pl.col("_rounds").sum(),
            pl.col("_fair").sum(),
            pl.len().cast(pl.Int64).alias("_clusters"),
            (pl.col("_r") ** 2).sum().alias("_r2"),
        )
        .collect()
    )


def win_rates_from_parts(parts: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """:func:`win_rates` from the (possibly concatenated) :func:`win_rate_parts` of its rows."""
    df = (
        parts.group_by(by)
        .agg(pl.col("games", "wins", "_rounds", "_fair", "_clusters", "_r2").sum())
        .sort(by)
        .with_columns(
            (pl.col("_rounds") / pl.col("games")).alias("mean_rounds"),
            (pl.col("_fair") / pl.col("games")).alias("fair_share"),
        )
    )
    lo, hi = wilson(df["wins"].to_numpy(), df["games"].to_numpy())
    rate = (df["wins"] / df["games"]).to_numpy()
    # se0 of sum(won - 1/P) / N, on the scale of rate - fair share (N = the group's rows):
    # s = sqrt(C/(C-1) * sum_c r_c^2) over the group's C games (a score test, so a group with 0 or
    # all wins is still testable).
    clusters = df["_clusters"].to_numpy().astype(np.float64)
    s = np.sqrt(clusters / np.maximum(clusters - 1, 1) * df["_r2"].to_numpy())
    se = s / df["games"].to_numpy()
    df = df.drop("_rounds", "_fair", "_clusters", "_r2").with_columns(pl.Series("se", se))
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


def win_rates(rows: pl.LazyFrame | pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Per group: player-games (``games``), wins, win rate with its 95% Wilson interval, mean
    rounds, the fair share 1/players, and the test of "win rate = fair share" (cluster-robust
    score test: p-value and the Holm-adjusted p-value over the groups of the table)."""
    return win_rates_from_parts(win_rate_parts(rows, by), by)


def win_rates_by_chunk(files: list[Path], groupings: list[list[str]]) -> list[pl.DataFrame]:
    """:func:`win_rates` of a run for each grouping in ``groupings``, reading one chunk file at a
    time: memory stays flat in the number of games (``soup simulate``'s summary of a run of
    10^6 or 10^9 games). Each file must hold whole games (a run's chunks do)."""
    needed = sorted({*(c for by in groupings for c in by), "players", "seed", "game", "won", "rounds"})
    parts: list[list[pl.DataFrame]] = [[] for _ in groupings]
    for f in files:
        present = set(pl.read_parquet_schema(f))
        chunk = read_chunk(f, columns=[c for c in needed if c in present])
        for i, by in enumerate(groupings):
            parts[i].append(win_rate_parts(chunk, by))
    return [win_rates_from_parts(pl.concat(p), by) for p, by in zip(parts, groupings, strict=True)]


def seat_advantage(rows: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """S5: win rate by player count and start space against the fair share, with the advantage
    (rate - 1/P) and Holm-adjusted p-values over every seat of every player count."""
    df = win_rates(rows, ["players", "start_space"])
    return df.with_columns((pl.col("win_rate") - pl.col("fair_share")).alias("advantage"))


def games(rows: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
    """One row per game: players, seed, game, rounds, end reason and the deck order."""
    return (
        with_run(rows)
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


def seat_effects(rows: pl.LazyFrame | pl.DataFrame, by: str = "strategy") -> pl.DataFrame:
    """S5 within a group: per player count, ``by`` level (e.g. strategy) and start space, the
    win rate (Wilson interval) and its difference from the same ``by`` level at the other start
    spaces (cluster-robust interval and p-value, Holm over the table). Testing each cell
    against the fair share would flag every cell of a strong strategy; this asks whether a
    strategy does better or worse from a particular seat."""
    df = with_run(rows).select(*GAME_KEY, by, "start_space", "won").collect()
    out = []
    for (players, level), part in df.sort("players", by).group_by(["players", by], maintain_order=True):
        cluster = cluster_ids(part)
        won = part["won"].to_numpy().astype(np.float64)
        seat = part["start_space"].to_numpy()
        for s in np.unique(seat):
            at = seat == s
            n, w = int(at.sum()), int(won[at].sum())
            if min(n, len(at) - n) >= MIN_ROWS:
                c = cluster_contrast(won, np.where(at, 0, 1), np.array([1.0, -1.0]), cluster)
            else:  # too few players on a side for the normal approximation: no test
                c = NO_CONTRAST
            out.append(seat_effect_row(int(players), by, str(level), int(s), n, w, c))
    return with_holm(out)


def seat_effect_row(players: int, by: str, level: str, space: int, n: int, w: int, c: dict) -> dict[str, Any]:
    """One row of :func:`seat_effects` (also built by analysis.ursuppe.streamed, chunk by chunk): the
    ``by`` level's ``w`` wins of ``n`` at start space ``space`` (Wilson) and its contrast ``c`` with
    the level's other start spaces."""
    lo, hi = wilson(w, n)
    return {
        "players": players,
        by: level,
        "start_space": space,
        "games": n,
        "wins": w,
        "win_rate": w / n,
        "ci_low": float(lo),
        "ci_high": float(hi),
        **contrast_columns(c, "difference", "diff_low", "diff_high", "p_value"),
    }
