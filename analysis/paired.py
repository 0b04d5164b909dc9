"""Paired experiments: the same games under two rule sets (common random numbers).

Two runs with the same seed, game indices, strategy assignment and seating play "the same game"
under rules A and rules B: same deck order, same dice streams, same players at the same start
spaces. Whatever differs between the two rows of a game is caused by the rule change or by the
random draws the change shifted. The games stay strongly correlated, so a paired difference
``B - A`` has a much smaller variance than the difference of two independent runs.

Every difference below is a contrast of group means estimated by
:func:`analysis.intervals.cluster_contrast` on the stacked rows of both runs (group 0 = B's
rows, group 1 = A's rows, weights ``[1, -1]``) with the **game index as the cluster**: the two
plays of one game, and the players of one game, are one independent unit. That gives the
paired (sandwich) standard error. The interval and p-value then use Student's t with C - 1
degrees of freedom (C = games), not the normal: with few games the normal reference is
anti-conservative (20 games, 5 discordant, gave p = 0.012 where an exact sign test cannot go
below 0.0625), and with many games the two agree. Experiments of fewer than
``SMALL_EXPERIMENT`` games per arm are flagged by the CLI all the same.

Families of tests (every strategy, every seat, every gene, the game-level measures) are
corrected for multiple testing within the family: Holm (family-wise error rate: the chance of
any false finding stays below 5%) and Benjamini-Hochberg q-values (false discovery rate).

All functions take polars frames of the result schema (sim/ursuppe/simulation.py) and return
polars DataFrames, so a notebook can call them on ``analysis.win_rates.load_results(run)``.
"""

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from analysis.distributions import t_quantile, t_two_sided_p
from analysis.intervals import cluster_contrast
from analysis.multiple_testing import benjamini_hochberg, holm
from sim.ursuppe.genes import GENE_NAMES

ALPHA = 0.05
# Below this many games per arm the CLI warns: a rare event (a seat's win, a rarely bought gene)
# then changes in a handful of games, and even the t reference is only approximate.
SMALL_EXPERIMENT = 200
# The families of a comparison table and what their values are.
FAMILY_STRATEGY = "win rate by strategy"
FAMILY_SEAT = "win rate by seat"
FAMILY_GAME = "game"
FAMILY_GENE = "gene purchase rate"
FAMILIES: tuple[str, ...] = (FAMILY_STRATEGY, FAMILY_SEAT, FAMILY_GAME, FAMILY_GENE)
METRIC_ROUNDS = "mean rounds"
METRIC_FINISH = "finish_zone share"
_COLUMNS = ("game", "player", "strategy", "start_space", "won", "rounds", "end_reason", "genes_bought")


class PairingError(ValueError):
    """Two runs that are not the same games (different games, strategies or seats)."""


def paired_difference(
    y_a: np.ndarray, y_b: np.ndarray, cluster_a: np.ndarray, cluster_b: np.ndarray
) -> dict[str, float]:
    """Mean of ``y_b`` minus mean of ``y_a`` with a cluster-robust 95% interval and p-value.

    Rows of A and B with the same cluster id (the game index) are dependent; the sandwich
    variance over clusters accounts for that (it is the paired variance when every cluster has
    one row per arm, and stays right when a game contributes several rows, e.g. 2 of 4 players).
    Returns ``mean_a, mean_b, n_a, n_b``, ``clusters`` (C) and cluster_contrast's ``estimate,
    se`` with the interval ``estimate +- t_{0.975, C-1} se`` and the two-sided p-value of
    ``estimate / se`` under Student's t with ``C - 1`` degrees of freedom (cluster_contrast's
    normal reference is anti-conservative for small C). Identical inputs give estimate 0, se 0
    and p-value 1.
    """
    y_a = np.asarray(y_a, dtype=np.float64)
    y_b = np.asarray(y_b, dtype=np.float64)
    y = np.concatenate([y_b, y_a])
    group = np.concatenate([np.zeros(len(y_b), np.int64), np.ones(len(y_a), np.int64)])
    cluster = np.concatenate([np.asarray(cluster_b), np.asarray(cluster_a)])
    out = cluster_contrast(y, group, np.array([1.0, -1.0]), cluster)
    clusters = int(np.unique(cluster).size)
    out = t_reference(out, clusters - 1)
    out["clusters"] = clusters
    out["mean_a"] = float(y_a.mean()) if len(y_a) else math.nan
    out["mean_b"] = float(y_b.mean()) if len(y_b) else math.nan
    out["n_a"] = len(y_a)
    out["n_b"] = len(y_b)
    return out


def t_reference(contrast: dict[str, float], df: int) -> dict[str, float]:
    """``contrast`` (cluster_contrast's output) with its interval and p-value taken from Student's
    t with ``df`` degrees of freedom instead of the normal. A zero or NaN standard error keeps
    cluster_contrast's values (a degenerate interval, p-value 1 or 0)."""
    out = dict(contrast)
    est, se = out["estimate"], out["se"]
    if df < 1 or not (se > 0) or math.isnan(est):
        return out
    half = t_quantile(0.975, df) * se
    out.update(ci_low=est - half, ci_high=est + half, p_value=t_two_sided_p(est / se, df))
    return out


def _frame(rows: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    lf = rows.lazy() if isinstance(rows, pl.DataFrame) else rows
    return (
        lf.select(_COLUMNS)
        .with_columns(pl.col("strategy").cast(pl.String), pl.col("end_reason").cast(pl.String))
        .sort(["game", "player"])
        .collect()
    )


def check_paired(a: pl.DataFrame, b: pl.DataFrame) -> None:
    """Raise PairingError unless both frames hold the same (game, player, strategy, seat) rows."""
    keys = ["game", "player", "strategy", "start_space"]
    if a.height != b.height or not a.select(keys).equals(b.select(keys)):
        raise PairingError(
            "the two runs are not the same games (game indices, strategies or seats differ): "
            "use the same --seed, --games, --players, --strategies/--pool and --seating"
        )


def _row(family: str, metric: str, key: str, d: dict[str, float], kind: str) -> dict[str, object]:
    return {
        "family": family,
        "metric": metric,
        "group": key,
        "kind": kind,
        "n": d["n_a"],
        "a": d["mean_a"],
        "b": d["mean_b"],
        "diff": d["estimate"],
        "se": d["se"],
        "ci_low": d["ci_low"],
        "ci_high": d["ci_high"],
        "p_value": d["p_value"],
        "by_construction": False,
    }


def paired_tests(
    rows_a: pl.LazyFrame | pl.DataFrame,
    rows_b: pl.LazyFrame | pl.DataFrame,
    removed: Sequence[str] = (),
) -> pl.DataFrame:
    """Every paired test of B against A, uncorrected: one row per (family, metric, group).

    Families: win rate by strategy (share of a strategy's player-games won), win rate by seat
    (start space), game (mean rounds; share of games ended by a marker in the finish zone rather
    than by the last environment card), gene purchase rate (share of player-games in which the
    gene was bought at least once; bit i of ``genes_bought``). ``n`` is the number of rows per
    arm (player-games, or games for the game family); ``kind`` is ``rate`` or ``mean``.

    ``removed``: genes B's deck lacks (an ablation). Their purchase rate in B is 0 by
    construction, so its drop is no finding: those rows get ``by_construction = True`` and
    :func:`correct` leaves them out of their family (no Holm, no q-value, never significant),
    while the row still reports how often the gene was bought with the full deck.
    """
    a, b = _frame(rows_a), _frame(rows_b)
    check_paired(a, b)
    game = a["game"].to_numpy()
    out: list[dict[str, object]] = []

    def add(family: str, metric: str, key: str, mask: np.ndarray, ya: np.ndarray, yb: np.ndarray, kind: str):
        out.append(
            _row(family, metric, key, paired_difference(ya[mask], yb[mask], game[mask], game[mask]), kind)
        )

    won_a, won_b = a["won"].to_numpy().astype(np.float64), b["won"].to_numpy().astype(np.float64)
    strategy = a["strategy"].to_numpy()
    for name in sorted(set(strategy.tolist())):
        add(FAMILY_STRATEGY, "win rate", name, strategy == name, won_a, won_b, "rate")
    seat = a["start_space"].to_numpy()
    for s in sorted(set(seat.tolist())):
        add(FAMILY_SEAT, "win rate", str(s), seat == s, won_a, won_b, "rate")
    first = a["player"].to_numpy() == 0  # one row per game
    add(FAMILY_GAME, METRIC_ROUNDS, "all", first, a["rounds"].to_numpy(), b["rounds"].to_numpy(), "mean")
    fin_a = (a["end_reason"] == "finish_zone").to_numpy().astype(np.float64)
    fin_b = (b["end_reason"] == "finish_zone").to_numpy().astype(np.float64)
    add(FAMILY_GAME, METRIC_FINISH, "all", first, fin_a, fin_b, "rate")
    bought_a, bought_b = a["genes_bought"].to_numpy(), b["genes_bought"].to_numpy()
    everyone = np.ones(a.height, dtype=bool)
    for i, name in enumerate(GENE_NAMES):
        ya = ((bought_a >> i) & 1).astype(np.float64)
        yb = ((bought_b >> i) & 1).astype(np.float64)
        add(FAMILY_GENE, "purchase rate", name, everyone, ya, yb, "rate")
        if name in removed:
            out[-1]["by_construction"] = True
    return pl.DataFrame(out, infer_schema_length=None)


def correct(tests: pl.DataFrame, family: list[str] | None = None, alpha: float = ALPHA) -> pl.DataFrame:
    """Add ``p_holm`` (Holm-adjusted p-value), ``q_bh`` (Benjamini-Hochberg q-value) and
    ``significant`` (p_holm < alpha) within each family (the columns in ``family``, default
    ``["family"]``). Tests with a NaN p-value stay NaN and do not count in their family, nor do
    rows marked ``by_construction`` (their p-value is kept, the adjusted ones are NaN)."""
    family = family or ["family"]
    tests = tests.with_row_index("_i")
    parts = []
    for _, part in tests.group_by(family, maintain_order=True):
        p = part["p_value"].to_numpy().astype(np.float64)
        if "by_construction" in part.columns:
            p = np.where(part["by_construction"].to_numpy(), np.nan, p)
        parts.append(
            part.with_columns(pl.Series("p_holm", holm(p)), pl.Series("q_bh", benjamini_hochberg(p)))
        )
    out = (
        pl.concat(parts)
        .sort("_i")
        .drop("_i")
        .with_columns((pl.col("p_holm").fill_nan(None) < alpha).fill_null(False).alias("significant"))
    )
    if "by_construction" in out.columns:  # last: a note on the row, not a statistic
        out = out.select(pl.exclude("by_construction"), "by_construction")
    return out


def compare_runs(
    rows_a: pl.LazyFrame | pl.DataFrame, rows_b: pl.LazyFrame | pl.DataFrame, removed: Sequence[str] = ()
) -> pl.DataFrame:
    """The comparison table of a paired experiment: :func:`paired_tests`, corrected per family
    (``removed``: genes absent from B's deck, see :func:`paired_tests`)."""
    return correct(paired_tests(rows_a, rows_b, removed))


def removed_genes(label: str) -> list[str]:
    """The genes of an ablation label (``"Tentacle + Holding"``)."""
    return [g.strip() for g in str(label).split("+")]


def ablation_table(
    baseline: pl.LazyFrame | pl.DataFrame, ablated: dict[str, pl.LazyFrame | pl.DataFrame]
) -> pl.DataFrame:
    """Paired tests of every ablated run (key: the removed gene or gene set, genes joined by
    ``" + "``) against the baseline, with a ``removed`` column, corrected over the whole family (a
    family spans every removed gene: 20 genes x 5 strategies is one family of 100 win-rate
    tests). The removed genes' own purchase-rate drops are marked ``by_construction`` and left
    out of the gene family."""
    base = _frame(baseline)
    parts = [
        paired_tests(base, rows, removed_genes(gene)).select(pl.lit(gene).alias("removed"), pl.all())
        for gene, rows in ablated.items()
    ]
    return correct(pl.concat(parts))


def ablation_summary(table: pl.DataFrame) -> pl.DataFrame:
    """One row per removed gene: its purchase rate in the baseline, the change of mean rounds and
    of the finish-zone share, and the change of each strategy's win rate (columns ``d win
    <strategy>``), with ``*`` columns counting the Holm-significant changes in that row."""
    rows = []
    for removed, part in table.group_by("removed", maintain_order=True):
        removed = removed[0]
        row: dict[str, object] = {"removed": removed}
        genes = removed_genes(removed)
        bought = part.filter((pl.col("family") == FAMILY_GENE) & pl.col("group").is_in(genes))
        row["baseline purchase rate"] = float(bought["a"].sum()) if bought.height else math.nan
        for metric, label in ((METRIC_ROUNDS, "d rounds"), (METRIC_FINISH, "d finish_zone share")):
            r = part.filter((pl.col("family") == FAMILY_GAME) & (pl.col("metric") == metric)).row(
                0, named=True
            )
            row[label] = r["diff"]
            row[label + " p_holm"] = r["p_holm"]
        strat = part.filter(pl.col("family") == FAMILY_STRATEGY)
        for r in strat.iter_rows(named=True):
            row[f"d win {r['group']}"] = r["diff"]
        row["significant win changes"] = int(strat["significant"].sum())
        big = strat.sort(pl.col("diff").abs(), descending=True).row(0, named=True) if strat.height else None
        row["largest win change"] = f"{big['group']} {big['diff']:+.4f}" if big else ""
        rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None)
