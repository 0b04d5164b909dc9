"""Matplotlib figures of Chromosome's report (analysis.chromosome.report). Each function takes a
table of analysis.chromosome.outcomes and returns a Figure built without pyplot (no GUI backend,
no global state; ``display(fig)`` shows it in a notebook); analysis.figure_files.save_atomic
writes it. Every rate is drawn with its 95% interval and the fair share, so "is this different
from fair?" is a glance.
"""

import numpy as np
import polars as pl
from matplotlib.figure import Figure

FAIR_COLOUR = "#c44e52"
PAR_COLOUR = "#555555"
RATE_COLOUR = "#4c72b0"
END_COLOURS = {"rounds": "#4c72b0", "elimination": "#dd8452", "none": "#999999"}
LABELS = {"start_space": "start seat (1 starts round 1)", "species": "species", "strategy": "strategy"}


def _panels(n: int, width: float, height: float, max_cols: int = 3) -> tuple[Figure, list]:
    """A figure with ``n`` panels, at most ``max_cols`` to a row (spare cells removed)."""
    cols = max(1, min(n, max_cols))
    rows = -(-max(n, 1) // cols)
    fig = Figure(figsize=(width * cols + 0.6, height * rows), layout="constrained")
    grid = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in grid[n:]:
        ax.remove()
    return fig, list(grid[:n])


def _zoom(ax, values) -> bool:
    """Fit the rate axis to ``values`` with a margin; whether it leaves out 0."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not len(v):
        return False
    pad = max(0.12 * (v.max() - v.min()), 0.005)
    bottom = max(v.min() - pad, 0.0)
    ax.set_ylim(bottom, min(v.max() + pad, 1.0))
    return bottom > 0


def win_rates(table: pl.DataFrame, key: str, title: str = "") -> Figure:
    """Win rate per level of ``key`` (species, start_space, strategy), one panel per player
    count, as points with their 95% Wilson intervals; dashed: the fair share 1/P; dotted: the par
    (all players' win rate, above 1/P by the shared wins). A table of
    analysis.chromosome.outcomes.win_table."""
    counts = table["players"].unique().sort().to_list()
    levels = max(table.group_by("players").len()["len"].max() or 1, 1)
    fig, axes = _panels(len(counts), 0.7 * levels + 2.2, 3.6)
    for ax, p in zip(axes, counts, strict=True):
        d = table.filter(pl.col("players") == p).sort(key)
        x = np.arange(len(d))
        rate, lo, hi = (d[c].to_numpy().astype(float) for c in ("win_rate", "ci_low", "ci_high"))
        fair, par = 1 / p, float(d["par"][0])
        ax.axhline(fair, color=FAIR_COLOUR, ls="--", lw=1, label="fair share 1/P", zorder=1)
        ax.axhline(
            par, color=PAR_COLOUR, ls=":", lw=1.2, label="par: all players (shared wins count)", zorder=1
        )
        ax.errorbar(x, rate, yerr=[rate - lo, hi - rate], fmt="o", color=RATE_COLOUR, capsize=4, lw=1.2)
        ax.set_xticks(x, [str(v) for v in d[key]], rotation=30 if key == "strategy" else 0)
        ax.set_xlim(-0.5, len(d) - 0.5)
        zoomed = _zoom(ax, np.concatenate([lo, hi, [fair, par]]))
        ax.set_ylabel("win rate (axis does not start at 0)" if zoomed else "win rate")
        ax.set_xlabel(LABELS.get(key, key.replace("_", " ")))
        ax.set_title(f"{p} players", fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=2, fontsize=8, frameon=False)
    fig.suptitle(title or f"Win rate by {LABELS.get(key, key)}")
    return fig


def game_length(length: pl.DataFrame) -> Figure:
    """Share of games per rounds played, stacked by how the game ended, one panel per player
    count (analysis.chromosome.outcomes.game_length)."""
    counts = length["players"].unique().sort().to_list()
    fig, axes = _panels(len(counts), 3.8, 3.4)
    reasons = [r for r in END_COLOURS if r in set(length["end_reason"].to_list())]
    for ax, p in zip(axes, counts, strict=True):
        d = length.filter(pl.col("players") == p)
        rounds = np.arange(int(d["rounds"].min()), int(d["rounds"].max()) + 1)
        bottom = np.zeros(len(rounds))
        for reason in reasons:
            share = np.zeros(len(rounds))
            for r, s in d.filter(pl.col("end_reason") == reason).select("rounds", "share").iter_rows():
                share[r - rounds[0]] = s
            ax.bar(rounds, share, bottom=bottom, color=END_COLOURS[reason], label=reason)
            bottom += share
        ax.set_xticks(rounds)
        ax.set_xlabel("rounds played")
        ax.set_ylabel("share of games")
        ax.set_title(f"{p} players", fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, title="game ended by", loc="outside lower center", ncols=3, fontsize=8,
               frameon=False)  # fmt: skip
    fig.suptitle("Game length and how games end (E1, E3)")
    return fig


def distributions(dist: pl.DataFrame) -> Figure:
    """Per measure (irradiation, trophies, tokens, fate at the end) a panel: the share of players
    at each value, one line per player count (analysis.chromosome.outcomes.distributions)."""
    order = ("irradiation", "trophies", "tokens", "fate")  # outcomes.DISTRIBUTIONS first, in its order
    seen = list(dict.fromkeys(dist["measure"].to_list()))
    measures = [m for m in order if m in seen] + [m for m in seen if m not in order]
    fig, axes = _panels(len(measures), 3.8, 2.9, max_cols=2)
    for ax, m in zip(axes, measures, strict=True):
        d = dist.filter(pl.col("measure") == m)
        for p in d["players"].unique().sort().to_list():
            e = d.filter(pl.col("players") == p).sort("value")
            ax.plot(e["value"], e["share"], marker="o", ms=3, lw=1.2, label=f"{p} players")
        ax.set_xlabel(f"{m} at the end")
        ax.set_ylabel("share of players")
        ax.set_ylim(bottom=0)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels), fontsize=8, frameon=False)
    fig.suptitle("The end of the game: irradiation, trophies, tokens on the board, fate left")
    return fig
