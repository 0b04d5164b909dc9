"""Environment-deck order: does the order of the cards (V1-V5) favour a seat or a strategy, and
how does it change game length and gene-defect losses?

Every game shuffles the deck (S4), and the results keep the order (``deck``: indices into the
rules' deck). Features of the order: the drift of the first card (where the soup flows in
round 1), the ozone of the first card (the first gene-defect threshold, E1-E2), and the total
ozone of the first ``horizon`` cards, a fixed window so that the feature does not depend on how
long the game lasted. Effects are differences between games with and without a feature level,
cluster-robust per game, Holm-corrected over the whole table.

The default deck is a placeholder (spec §13): read deck effects as effects of *that* deck.
"""

from typing import Any

import numpy as np
import polars as pl

from analysis.intervals import cluster_contrast, wilson
from analysis.multiple_testing import holm
from analysis.win_rates import GAME_KEY

FEATURES = ("first_drift", "first_ozone", "ozone_band")
BANDS = ("low", "mid", "high")


def level_order(value: object) -> tuple[int, object]:
    """Sort key for feature levels: ozone bands low < mid < high, numbers as numbers."""
    if value in BANDS:
        return (0, BANDS.index(value))
    try:
        return (1, float(value))
    except (TypeError, ValueError):
        return (2, str(value))


def deck_features(
    rows: pl.LazyFrame | pl.DataFrame, deck: list[dict[str, Any]], horizon: int = 5
) -> pl.DataFrame:
    """The rows with the deck features added: ``first_drift`` (N/E/S/W/none), ``first_ozone``,
    ``ozone_first_k`` (total ozone of the first ``horizon`` cards) and ``ozone_band`` (that total
    in terciles over the games: low / mid / high). ``deck`` is the rules' card list
    (``manifest["spec"]["rules"]["environment"]["deck"]``)."""
    lf = rows.lazy() if isinstance(rows, pl.DataFrame) else rows
    df = lf.collect()
    ozone = np.array([c["ozone"] for c in deck], dtype=np.int64)
    drift = np.array([c["drift"] for c in deck], dtype=object)
    order = np.asarray(df["deck"].to_list(), dtype=np.int64).reshape(len(df), -1)
    k = min(horizon, order.shape[1])
    first_k = ozone[order[:, :k]].sum(axis=1)
    # Terciles over games, not rows (every game counts once whatever its player count).
    per_game = df.select(GAME_KEY).with_columns(pl.Series("k", first_k)).unique(GAME_KEY)["k"].to_numpy()
    low, high = np.quantile(per_game, [1 / 3, 2 / 3]) if len(per_game) else (0, 0)
    band = np.where(first_k <= low, "low", np.where(first_k <= high, "mid", "high"))
    return df.with_columns(
        pl.Series("first_drift", drift[order[:, 0]].astype(str)),
        pl.Series("first_ozone", ozone[order[:, 0]]),
        pl.Series(f"ozone_first_{k}", first_k),
        pl.Series("ozone_band", band),
    )


def deck_effects(featured: pl.DataFrame, feature: str, by: str) -> pl.DataFrame:
    """Win rate per (``by`` level, ``feature`` level), e.g. per (start_space, first_drift), with
    its Wilson interval and the difference from the same ``by`` level in the other games
    (cluster-robust interval, p-value, Holm over the table)."""
    cluster = featured.select(pl.struct(GAME_KEY).rank("dense")).to_series().to_numpy()
    won = featured["won"].to_numpy().astype(np.float64)
    by_values = featured[by].cast(pl.String).to_numpy()
    f_values = featured[feature].cast(pl.String).to_numpy()
    out = []
    for b in sorted(set(by_values)):
        in_b = by_values == b
        for f in sorted(set(f_values), key=level_order):
            cell = in_b & (f_values == f)
            n, w = int(cell.sum()), int(won[cell].sum())
            group = np.where(cell, 0, np.where(in_b, 1, -1))
            c = cluster_contrast(won, group, np.array([1.0, -1.0]), cluster)
            lo, hi = wilson(w, n)
            out.append(
                {
                    by: b,
                    feature: f,
                    "rows": n,
                    "win_rate": w / n if n else np.nan,
                    "ci_low": float(lo),
                    "ci_high": float(hi),
                    "difference": c["estimate"],
                    "diff_low": c["ci_low"],
                    "diff_high": c["ci_high"],
                    "p_value": c["p_value"],
                }
            )
    df = pl.DataFrame(out)
    return df.with_columns(pl.Series("p_holm", holm(df["p_value"].to_numpy())))


def deck_outcomes(featured: pl.DataFrame, feature: str) -> pl.DataFrame:
    """Per ``feature`` level: games, mean rounds (95% normal interval over games), the share of
    games ending in the finish zone, and gene-defect losses per player (E2: cards returned, BP
    paid)."""
    per_game = featured.group_by([*GAME_KEY, feature]).agg(
        pl.col("rounds").first(),
        (pl.col("end_reason").cast(pl.String) == "finish_zone").first().alias("finish_zone"),
    )
    length = (
        per_game.group_by(feature)
        .agg(
            pl.len().alias("games"),
            pl.col("rounds").mean().alias("mean_rounds"),
            (1.959963984540054 * pl.col("rounds").std() / pl.len().sqrt()).alias("_half"),
            pl.col("finish_zone").mean().alias("finish_zone_share"),
        )
        .with_columns(
            (pl.col("mean_rounds") - pl.col("_half")).alias("rounds_low"),
            (pl.col("mean_rounds") + pl.col("_half")).alias("rounds_high"),
        )
        .drop("_half")
    )
    losses = featured.group_by(feature).agg(
        pl.col("defect_genes_lost").mean().alias("genes_lost_per_player"),
        pl.col("defect_bp_paid").mean().alias("bp_paid_per_player"),
    )
    df = length.join(losses, on=feature)
    keys = [level_order(v) for v in df[feature].to_list()]
    return df[sorted(range(len(keys)), key=keys.__getitem__)]
