"""A run's tables "at equilibrium": its player rows reweighted to a tournament's equilibrium mix.

``soup tournament`` writes the meta-game's equilibrium mix (tournament-equilibrium.csv,
analysis.equilibrium). ``soup report RUN --equilibrium TOURNAMENT_DIR`` then weighs the run's
seat and gene tables by that mix beside the plain ones: a player row of strategy s gets the
importance weight ``w_s / share_s``, ``w_s`` its weight in the mix and ``share_s`` its share of
the run's rows at that player count. The weighted rows hold the strategies in the proportions of
the mix, so a weighted rate is the mix-weighted average of the strategies' rates; strategies
outside the support (weight 0) drop out.

What this does not change: who sat at the table. The opponents of every row are still the run's
pool; reweighting the seats of a game jointly (the product of its players' weights) would give
the field at equilibrium too, but most games would weigh 0 (any non-support player) and the
rest very unequally. So "at equilibrium" reads: players who bring the mix, against the run's
field. The weights are taken as fixed (the run's shares are its design, not an estimate);
intervals are cluster-robust by game (analysis.intervals with ``row_weights``).
"""

import math
from pathlib import Path

import numpy as np
import polars as pl

from analysis.intervals import MIN_ROWS, NO_CONTRAST, cluster_contrast, cluster_wilson, contrast_columns
from analysis.multiple_testing import with_holm
from analysis.win_rates import cluster_ids, with_run

EQUILIBRIUM_CSV = "tournament-equilibrium.csv"
WEIGHT = "eq_weight"  # the importance-weight column added to the rows


def read_mix(tournament_dir: str | Path) -> pl.DataFrame:
    """tournament-equilibrium.csv of a ``soup tournament`` directory (strategy, weight,
    in_support, regret). ValueError with a one-line message when it is missing or malformed."""
    path = Path(tournament_dir) / EQUILIBRIUM_CSV
    if not path.is_file():
        raise ValueError(
            f"--equilibrium {tournament_dir}: no {EQUILIBRIUM_CSV} there (a soup tournament directory)"
        )
    try:
        mix = pl.read_csv(path)
    except Exception as e:  # noqa: BLE001 - any unreadable file is the same user error
        raise ValueError(f"--equilibrium {path}: not readable ({e.__class__.__name__})") from None
    if not {"strategy", "weight"} <= set(mix.columns) or mix.is_empty():
        raise ValueError(f"--equilibrium {path}: expected columns strategy and weight")
    weight = mix["weight"].cast(pl.Float64, strict=False)
    if weight.null_count() or (weight < 0).any() or not math.isclose(weight.sum(), 1.0, abs_tol=1e-4):
        raise ValueError(f"--equilibrium {path}: weights must be >= 0 and sum to 1")
    return mix.with_columns(pl.col("strategy").cast(pl.String), weight.alias("weight"))


def with_weights(rows: pl.DataFrame, mix: pl.DataFrame) -> pl.DataFrame:
    """``rows`` with the importance weight column :data:`WEIGHT`: ``w_s / share_s`` per player
    count. ValueError naming the strategy when one of the run is not in the tournament, or one of
    the mix's support is not in the run (at some player count)."""
    weights = dict(zip(mix["strategy"], mix["weight"], strict=True))
    rows = rows.with_columns(pl.col("strategy").cast(pl.String).alias("_s"))
    unknown = sorted(set(rows["_s"].unique()) - set(weights))
    if unknown:
        raise ValueError(
            f"--equilibrium: strategy {', '.join(unknown)} of the run is not in the tournament "
            f"({', '.join(mix['strategy'])})"
        )
    support = [s for s, w in weights.items() if w > 0]
    for (players,), part in rows.group_by(["players"]):
        missing = [s for s in support if s not in set(part["_s"].unique())]
        if missing:
            raise ValueError(
                f"--equilibrium: strategy {', '.join(missing)} of the equilibrium's support is not in "
                f"the run ({players} players)"
            )
    share = (pl.len().over("players", "_s") / pl.len().over("players")).cast(pl.Float64)
    w = pl.col("_s").replace_strict(weights, return_dtype=pl.Float64)
    return rows.with_columns((w / share).alias(WEIGHT)).drop("_s")


def seat_table(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and start space, the weighted win rate at equilibrium (rows weighted by
    :data:`WEIGHT`) with its cluster-robust Wilson interval, and its difference from the other
    start spaces (cluster-robust interval, p-value, Holm over the table). Rows of weight 0 are
    left out; ``games`` counts the player-games used."""
    df = with_run(rows).filter(pl.col(WEIGHT) > 0).collect()
    out = []
    for (players,), part in df.sort("players").group_by(["players"], maintain_order=True):
        cluster = cluster_ids(part)
        won = part["won"].to_numpy().astype(np.float64)
        rw = part[WEIGHT].to_numpy()
        seat = part["start_space"].to_numpy()
        for s in np.unique(seat):
            at = seat == s
            n = int(at.sum())
            lo, hi, _ = cluster_wilson(won[at], cluster[at], row_weights=rw[at])
            if min(n, len(at) - n) >= MIN_ROWS:
                c = cluster_contrast(won, np.where(at, 0, 1), np.array([1.0, -1.0]), cluster, row_weights=rw)
            else:
                c = NO_CONTRAST
            out.append(
                {
                    "players": int(players),
                    "start_space": int(s),
                    "games": n,
                    "win_rate": float(won[at] @ rw[at] / rw[at].sum()),
                    "ci_low": lo,
                    "ci_high": hi,
                    **contrast_columns(c, "difference", "diff_low", "diff_high", "p_value"),
                }
            )
    return with_holm(out)


def mix_win_rate(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count, the mix's win rate against the run's field (weighted mean of ``won``)
    with its cluster-robust Wilson interval, beside the fair share 1/players."""
    df = with_run(rows).filter(pl.col(WEIGHT) > 0).collect()
    out = []
    for (players,), part in df.sort("players").group_by(["players"], maintain_order=True):
        won = part["won"].to_numpy().astype(np.float64)
        rw = part[WEIGHT].to_numpy()
        lo, hi, _ = cluster_wilson(won, cluster_ids(part), row_weights=rw)
        rate = float(won @ rw / rw.sum())
        out.append(
            {
                "players": int(players),
                "games": part.height,
                "win_rate": rate,
                "ci_low": lo,
                "ci_high": hi,
                "fair_share": 1.0 / int(players),
            }
        )
    return pl.DataFrame(out)
