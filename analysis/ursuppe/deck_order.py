"""Environment-deck order: does the order of the cards (V1-V5) favour a seat or a strategy, and
how does it change game length and gene-defect losses?

Every game shuffles the deck (S4), and the results keep the order (``deck``: indices into the
rules' deck). Features of the order: the drift of the first card (where the soup flows in
round 1), the ozone of the first card, and the total ozone of the first ``horizon`` cards, a
fixed window so that the feature does not depend on how long the game lasted. Effects compare
the games with a feature level against the other games of the same player count: differences
are cluster-robust per game and Holm-corrected over the whole table.

The default deck is a placeholder (spec §13): read deck effects as effects of *that* deck.
"""

from typing import Any

import numpy as np
import polars as pl

from analysis.intervals import MIN_ROWS, NO_CONTRAST, cluster_contrast, contrast_columns, wilson
from analysis.multiple_testing import holm, with_holm
from analysis.win_rates import GAME_KEY, cluster_ids, with_run

FEATURES = ("first_drift", "first_ozone", "ozone_band")
BANDS = ("low", "mid", "high")
_DIFF = np.array([1.0, -1.0])
# deck_outcomes' outcomes: the result column and the name its table's columns take.
OUTCOME_COLUMNS = {"rounds": "rounds", "defect_genes_lost": "genes_lost", "defect_bp_paid": "bp_paid"}


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
    in terciles over the games of each player count: low / mid / high). ``deck`` is the rules'
    card list (``manifest["spec"]["rules"]["environment"]["deck"]``)."""
    df = with_run(rows).collect()
    ozone = np.array([c["ozone"] for c in deck], dtype=np.int64)
    drift = np.array([c["drift"] for c in deck], dtype=object)
    order = np.asarray(df["deck"].to_list(), dtype=np.int64).reshape(len(df), -1)
    k = min(horizon, order.shape[1])
    first_k = ozone[order[:, :k]].sum(axis=1)
    band = np.empty(len(df), dtype=object)
    players = df["players"].to_numpy()
    for p in np.unique(players):
        # Terciles over games, not rows, and per player count.
        sel = players == p
        per_game = (
            df.filter(pl.Series(sel))
            .select(GAME_KEY)
            .with_columns(pl.Series("k", first_k[sel]))
            .unique(GAME_KEY)
        )
        low, high = np.quantile(per_game["k"].to_numpy(), [1 / 3, 2 / 3])
        band[sel] = np.where(first_k[sel] <= low, "low", np.where(first_k[sel] <= high, "mid", "high"))
    return df.with_columns(
        pl.Series("first_drift", drift[order[:, 0]].astype(str)),
        pl.Series("first_ozone", ozone[order[:, 0]]),
        pl.Series(f"ozone_first_{k}", first_k),
        pl.Series("ozone_band", band.astype(str)),
    )


def _levels(values: np.ndarray) -> list[Any]:
    return sorted(set(values.tolist()), key=level_order)


def deck_effects(featured: pl.DataFrame, feature: str, by: str) -> pl.DataFrame:
    """Win rate per (player count, ``by`` level, ``feature`` level), e.g. per (4, start space 2,
    first drift N), with its Wilson interval and the difference from the same player count and
    ``by`` level in the other games (cluster-robust interval, p-value, Holm over the table)."""
    out = []
    for (players,), part in featured.sort("players").group_by(["players"], maintain_order=True):
        cluster = cluster_ids(part)
        won = part["won"].to_numpy().astype(np.float64)
        by_values = part[by].cast(pl.String).to_numpy()
        f_values = part[feature].cast(pl.String).to_numpy()
        for b in _levels(by_values):
            in_b = by_values == b
            for f in _levels(f_values):
                cell = in_b & (f_values == f)
                n, w = int(cell.sum()), int(won[cell].sum())
                rest = int(in_b.sum()) - n
                if min(n, rest) >= MIN_ROWS:
                    c = cluster_contrast(won, np.where(cell, 0, np.where(in_b, 1, -1)), _DIFF, cluster)
                else:  # too few players on a side: no test
                    c = NO_CONTRAST
                out.append(cell_row(int(players), {by: b, feature: f}, n, w, c))
    return with_holm(out)


def cell_row(players: int, cell: dict[str, Any], n: int, w: int, c: Any) -> dict[str, Any]:
    """One row of a by x feature table: the cell (its two keys), its rows, its win rate (Wilson)
    and its contrast ``c`` with the rest of its ``by`` level."""
    lo, hi = wilson(w, n)
    return {
        "players": players,
        **cell,
        "rows": n,
        "win_rate": w / n if n else np.nan,
        "ci_low": float(lo),
        "ci_high": float(hi),
        **contrast_columns(c, "difference", "diff_low", "diff_high", "p_value"),
    }


def deck_outcomes(featured: pl.DataFrame, feature: str) -> pl.DataFrame:
    """Per player count and ``feature`` level: games; mean rounds and gene-defect losses per
    player (E2: cards returned, BP paid), each with a 95% interval and the difference from the
    other games of the player count (cluster-robust, Holm over the table's differences); the
    share of games ending in the finish zone with its Wilson interval."""
    out = []
    for (players,), part in featured.sort("players").group_by(["players"], maintain_order=True):
        cluster = cluster_ids(part)
        levels = part[feature].cast(pl.String).to_numpy()
        finish = (part["end_reason"].cast(pl.String) == "finish_zone").to_numpy()
        for f in _levels(levels):
            at = levels == f
            group = np.where(at, 0, 1)
            n_games = len(np.unique(cluster[at]))
            fz_games = len(np.unique(cluster[at & finish]))
            lo, hi = wilson(fz_games, n_games)
            row: dict[str, Any] = {
                "players": int(players),
                feature: f,
                "games": n_games,
                "finish_zone_share": fz_games / n_games if n_games else np.nan,
                "finish_low": float(lo),
                "finish_high": float(hi),
            }
            for column, name in OUTCOME_COLUMNS.items():
                y = part[column].to_numpy().astype(np.float64)
                mean = cluster_contrast(y, np.where(at, 0, -1), np.array([1.0]), cluster)
                row |= outcome_cells(name, mean, cluster_contrast(y, group, _DIFF, cluster))
            out.append(row)
    return outcomes_frame(out)


def outcome_cells(name: str, mean: dict[str, Any], diff: dict[str, Any]) -> dict[str, Any]:
    """:func:`deck_outcomes`' cells of one outcome (``name``, an :data:`OUTCOME_COLUMNS` value): the
    level's ``mean`` with its interval and its difference ``diff`` from the other games with its p."""
    return {
        f"{name}_mean": mean["estimate"],
        f"{name}_low": mean["ci_low"],
        f"{name}_high": mean["ci_high"],
        f"{name}_difference": diff["estimate"],
        f"{name}_p": diff["p_value"],
    }


def outcomes_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """:func:`deck_outcomes`' rows as a table, Holm over every difference of every outcome (one family)."""
    df = pl.DataFrame(rows)
    p_columns = [f"{name}_p" for name in OUTCOME_COLUMNS.values()]
    adjusted = holm(df.select(p_columns).to_numpy().ravel()).reshape(len(df), len(p_columns))
    return df.with_columns(pl.Series(f"{c}_holm", adjusted[:, k]) for k, c in enumerate(p_columns))
