"""Matplotlib figures of the balance report. Each function takes an analysis table and returns a
Figure built without pyplot (no GUI backend, no global state: safe in scripts, threads and
notebooks, where ``display(fig)`` shows it); analysis.figure_files.save_atomic writes it as PNG.

Every rate is drawn with its 95% interval, and the fair share or zero line is drawn so that
"is this different from fair?" is a glance.
"""

import matplotlib
import numpy as np
import polars as pl
from matplotlib.figure import Figure

from analysis.ursuppe.deck_order import level_order
from analysis.ursuppe.genes import synergy_matrix, synergy_names

# Readable words for the columns the figures name, so that no chart shows a code name
# (start_space, ozone_band); the report's captions use the same words.
LABELS = {
    "start_space": "start space (seat)",
    "strategy": "strategy",
    "first_drift": "first card's drift",
    "first_ozone": "first card's ozone",
    "ozone_band": "ozone band",
    "end_reason": "how the game ended",
    "win_rate": "win rate",
    "rounds": "rounds",
    "players": "players",
    "gene": "gene",
}


def label(column: str) -> str:
    """Readable words for a column name: :data:`LABELS`, else the name with spaces for
    underscores (never a snake_case code name on a chart)."""
    return LABELS.get(column, column.replace("_", " "))


FAIR_COLOUR = "#c44e52"
NOT_FROM_ZERO = "win rate (axis does not start at 0)"


def _fair_line(ax, fair: float):
    return ax.axhline(fair, color=FAIR_COLOUR, ls="--", lw=1, label="fair share (1 / players)", zorder=1)


def _fair_legend(fig: Figure) -> None:
    """One legend entry for the fair-share line, below the panels: inside an axes it would sit
    on bars or intervals."""
    handles, labels = fig.axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", fontsize=8, frameon=False)


def _count_panels(counts: list, panel_w: float, panel_h: float, max_cols: int, extra_w: float = 0.0):
    """A figure with one panel per player count, at most ``max_cols`` to a row: with 3 to 6
    players a report can hold four counts, and four panels in a row would shrink every label when
    the figure is fitted to a page. Returns the figure and the axes in count order (spare cells of
    the last row removed)."""
    cols = min(len(counts), max_cols)
    rows = -(-len(counts) // cols)
    fig = Figure(figsize=(panel_w * cols + extra_w, panel_h * rows), layout="constrained")
    grid = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in grid[len(counts) :]:
        ax.remove()
    return fig, list(grid[: len(counts)])


def zoom_rate_axis(ax, low, high, fair: float | None = None) -> bool:
    """Fit the rate axis to the intervals ``low``..``high`` (and the fair share), with a margin,
    instead of starting at 0: a ±1-point seat difference is invisible on a 0-to-max axis.
    Returns whether the axis leaves out 0, so that the label can say so."""
    values = np.concatenate([np.asarray(low, dtype=float), np.asarray(high, dtype=float)])
    if fair is not None:
        values = np.append(values, fair)
    values = values[np.isfinite(values)]
    if not len(values):
        return False
    lo, hi = values.min(), values.max()
    pad = max(0.12 * (hi - lo), 0.005)
    bottom = max(lo - pad, 0.0)
    ax.set_ylim(bottom, min(hi + pad, 1.0))
    return bottom > 0


def _rate_bars(ax, labels: list[str], rate, lo, hi, fair=None) -> None:
    x = np.arange(len(labels))
    rate, lo, hi = (np.asarray(v, dtype=float) for v in (rate, lo, hi))
    ax.bar(x, rate, color="#4c72b0", alpha=0.85)
    ax.errorbar(x, rate, yerr=[rate - lo, hi - rate], fmt="none", ecolor="black", capsize=3, lw=1)
    if fair is not None:
        _fair_line(ax, fair)
    ax.set_xticks(x, labels)
    ax.set_ylabel("win rate")


def _rate_points(ax, labels: list[str], rate, lo, hi, fair: float) -> None:
    """Rates as points with interval bars on an axis fitted to the data (bars would have to
    start at 0, where the differences vanish)."""
    x = np.arange(len(labels))
    rate, lo, hi = (np.asarray(v, dtype=float) for v in (rate, lo, hi))
    _fair_line(ax, fair)
    ax.errorbar(
        x, rate, yerr=[rate - lo, hi - rate], fmt="o", color="#4c72b0", ecolor="#4c72b0", capsize=4, lw=1.2
    )
    ax.set_xticks(x, labels)
    ax.set_xlim(-0.5, len(labels) - 0.5)
    ax.set_ylabel(NOT_FROM_ZERO if zoom_rate_axis(ax, lo, hi, fair) else "win rate")


def seat_bias(seats: pl.DataFrame) -> Figure:
    """Win rate per start space (one panel per player count) with 95% intervals and the fair
    share (analysis.win_rates.seat_advantage). The rate axis is fitted to the intervals, not
    started at 0, and its label says so."""
    counts = seats["players"].unique().sort().to_list()
    fig, axes = _count_panels(counts, 3.6, 3.6, 3, 0.6)
    for ax, p in zip(axes, counts, strict=True):
        d = seats.filter(pl.col("players") == p).sort("start_space")
        _rate_points(ax, [str(s) for s in d["start_space"]], d["win_rate"], d["ci_low"], d["ci_high"], 1 / p)
        ax.set_xlabel(label("start_space"))
        ax.set_title(f"{p} players (fair share {1 / p:.3f})", fontsize=10)
    _fair_legend(fig)
    fig.suptitle("Win rate by start space (S5)")
    return fig


def strategy_rates(rates: pl.DataFrame, key: str = "strategy") -> Figure:
    """Win rate per strategy (or any key), one panel per player count, with 95% intervals and
    the fair share (analysis.win_rates.win_rates grouped by players and ``key``)."""
    counts = rates["players"].unique().sort().to_list() if "players" in rates.columns else [None]
    n = max(rates.group_by("players").len()["len"].max() if "players" in rates.columns else len(rates), 1)
    fig, axes = _count_panels(counts, 1.1 * n + 1.5, 3.6, 2)
    for ax, p in zip(axes, counts, strict=True):
        d = (rates if p is None else rates.filter(pl.col("players") == p)).sort("win_rate", descending=True)
        _rate_bars(
            ax, [str(v) for v in d[key]], d["win_rate"], d["ci_low"], d["ci_high"], d["fair_share"].mean()
        )
        ax.set_title(f"{p} players" if p is not None else "", fontsize=10)
    _fair_legend(fig)
    fig.suptitle(f"Win rate by {label(key)}")
    return fig


def gene_forest(effects: pl.DataFrame, column: str = "difference", title: str = "") -> Figure:
    """Forest plot: per gene, the win-rate difference (with - without) and its 95% interval, one
    panel per player count. ``column`` "difference" (raw) or "within_strategy". Genes without an
    estimate are left out; filled markers are significant after Holm correction."""
    lo_col, hi_col, p_col = (
        ("diff_low", "diff_high", "p_holm")
        if column == "difference"
        else ("within_low", "within_high", "within_p_holm")
    )
    counts = effects["players"].unique().sort().to_list()
    height = 0.32 * len(effects.filter(pl.col(column).is_not_nan())) / len(counts) + 1.4
    fig, axes = _count_panels(counts, 7.0, height, 2)
    for ax, p in zip(axes, counts, strict=True):
        d = effects.filter((pl.col("players") == p) & pl.col(column).is_not_nan()).sort(column)
        y = np.arange(len(d))
        est, lo, hi = (d[c].to_numpy() for c in (column, lo_col, hi_col))
        significant = d[p_col].to_numpy() < 0.05
        ax.hlines(y, lo, hi, color="#4c72b0", lw=1.5)
        ax.scatter(est[significant], y[significant], color="#4c72b0", zorder=3, label="Holm p < 0.05")
        ax.scatter(
            est[~significant],
            y[~significant],
            facecolor="white",
            edgecolor="#4c72b0",
            zorder=3,
            label="not significant",
        )
        ax.axvline(0, color="black", lw=0.8)
        ax.set_yticks(y, d["gene"].to_list())
        ax.set_xlabel("win rate with gene - without (95% CI)")
        ax.set_title(f"{p} players")
    axes[min(len(axes), 2) - 1].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    fig.suptitle(title or "Gene effects")
    return fig


def synergy_heatmap(synergy: pl.DataFrame, column: str = "within_strategy", title: str = "") -> Figure:
    """Heatmap of pairwise synergy (observed win rate of holding both - the additive
    prediction) for one player count; ``column`` "within_strategy" or "synergy" (raw). Grey:
    no estimate (too few players in a cell); dot: Benjamini-Hochberg q < 0.05."""
    q_column = "within_q_bh" if column == "within_strategy" else "q_bh"
    m = synergy_matrix(synergy, column)
    q = synergy_matrix(synergy, q_column)
    keep = ~np.all(np.isnan(m), axis=1)
    if not keep.any():
        keep[:] = True
    m, q = m[np.ix_(keep, keep)], q[np.ix_(keep, keep)]
    names = [n for n, k in zip(synergy_names(synergy), keep, strict=True) if k]
    limit = np.nanmax(np.abs(m)) if np.isfinite(m).any() else 1.0
    fig = Figure(figsize=(0.42 * len(names) + 2.5, 0.42 * len(names) + 1.5))
    ax = fig.subplots()
    cmap = matplotlib.colormaps["RdBu_r"].with_extremes(bad="#d9d9d9")
    image = ax.imshow(np.ma.masked_invalid(m), cmap=cmap, vmin=-limit, vmax=limit)
    ys, xs = np.nonzero(q < 0.05)
    ax.scatter(xs, ys, s=6, color="black")
    ax.set_xticks(range(len(names)), names, rotation=90, fontsize=8)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    fig.colorbar(image, ax=ax, label="synergy (win-rate points)", shrink=0.8)
    ax.set_title(title or "Gene pair synergy (grey: no estimate; dot: BH q < 0.05)")
    return fig


def length_histogram(lengths: pl.DataFrame) -> Figure:
    """Game length: share of games per number of rounds, stacked by end reason, one panel per
    player count (analysis.win_rates.game_length)."""
    counts = lengths["players"].unique().sort().to_list()
    fig, axes = _count_panels(counts, 4.2, 3.8, 3, 0.6)
    for ax, p in zip(axes, counts, strict=True):
        d = lengths.filter(pl.col("players") == p)
        rounds = np.arange(d["rounds"].min(), d["rounds"].max() + 1)
        bottom = np.zeros(len(rounds))
        ended = pl.col("end_reason").cast(pl.String).str.replace("_", " ")
        for reason, colour in (("finish zone", "#4c72b0"), ("last card", "#dd8452")):
            share = np.zeros(len(rounds))
            for r, s in d.filter(ended == reason).select("rounds", "share").iter_rows():
                share[r - rounds[0]] = s
            ax.bar(rounds, share, bottom=bottom, color=colour, label=reason)
            bottom += share
        ax.set_xticks(rounds)
        ax.set_xlabel(label("rounds"))
        ax.set_ylabel("share of games")
        ax.set_title(f"{p} players", fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(
        handles, labels, title="game ended by", loc="outside lower center", ncols=2, fontsize=8, frameon=False
    )
    fig.suptitle("Game length and how games end (W1)")
    return fig


def deck_effect_plot(effects: pl.DataFrame, feature: str, by: str, fair: float | None = None) -> Figure:
    """Win rate per ``by`` level (x) and ``feature`` level (side by side) with 95% intervals,
    for one player count (analysis.ursuppe.deck_order.deck_effects filtered to it); ``fair``: the fair
    share 1 / players, drawn as a line. Points rather than bars, on a rate axis fitted to the
    intervals (the label says when it leaves out 0): seat differences of a point or two vanish
    on an axis from 0."""
    if "players" in effects.columns and effects["players"].n_unique() > 1:
        raise ValueError("deck_effect_plot: filter the effects to one player count")
    levels = sorted(set(effects[feature].to_list()), key=level_order)
    groups = sorted(set(effects[by].to_list()))
    width = 0.8 / len(levels)
    fig = Figure(
        figsize=(max(6.0, 1.2 * len(groups) * max(1, len(levels) / 3)) + 1.4, 3.8), layout="constrained"
    )
    ax = fig.subplots()
    index = {g: i for i, g in enumerate(groups)}
    handles = []
    for k, level in enumerate(levels):
        d = effects.filter(pl.col(feature) == level)
        x = np.array([index[g] for g in d[by]]) + (k - (len(levels) - 1) / 2) * width
        rate, lo, hi = (d[c].to_numpy() for c in ("win_rate", "ci_low", "ci_high"))
        yerr = [rate - lo, hi - rate]
        handles.append(ax.errorbar(x, rate, yerr=yerr, fmt="o", ms=4, capsize=2, lw=1, label=str(level)))
    for i in range(1, len(groups)):
        ax.axvline(i - 0.5, color="#dddddd", lw=0.8, zorder=0)
    ax.set_xticks(range(len(groups)), [str(g) for g in groups])
    ax.set_xlim(-0.5, len(groups) - 0.5)
    ax.set_xlabel(label(by))
    zoomed = zoom_rate_axis(ax, effects["ci_low"], effects["ci_high"], fair)
    ax.set_ylabel(NOT_FROM_ZERO if zoomed else "win rate")
    outside = {"fontsize": 8, "loc": "upper left", "bbox_to_anchor": (1.01, 1.0)}
    ax.add_artist(ax.legend(handles=handles, title=label(feature), **outside))
    if fair is not None:  # a second legend, below the levels' one
        line = _fair_line(ax, fair)
        ax.legend(handles=[line], fontsize=8, loc="lower left", bbox_to_anchor=(1.01, 0.0), frameon=False)
    ax.set_title(f"Win rate by {label(by)} and {label(feature)}")
    return fig


def purchase_heatmap(timing: pl.DataFrame) -> Figure:
    """Share of players first buying each gene in each round (analysis.ursuppe.genes.purchase_timing)."""
    if "players" in timing.columns and timing["players"].n_unique() > 1:
        raise ValueError("purchase_heatmap: filter the timing table to one player count")
    rounds = sorted(set(timing["round"].to_list()))
    names = list(dict.fromkeys(timing["gene"].to_list()))  # the run's genes, in its bit order
    m = np.zeros((len(names), len(rounds)))
    index = {name: i for i, name in enumerate(names)}
    for gene, r, share in timing.select("gene", "round", "share").iter_rows():
        m[index[gene], rounds.index(r)] = share
    fig = Figure(figsize=(0.5 * len(rounds) + 3.5, max(6.0, 0.22 * len(names) + 1.5)))
    ax = fig.subplots()
    image = ax.imshow(m, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(rounds)), rounds)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.set_xlabel("round of first purchase")
    fig.colorbar(image, ax=ax, label="share of players")
    ax.set_title("When genes are bought")
    return fig
