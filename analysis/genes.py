"""Gene sets: how holding or buying a gene goes with winning, pairs of genes, winners' gene sets,
and when genes are bought.

These are associations in simulated play, not causes: a player who is ahead has the BP to buy
more genes, and a strategy that buys a gene also plays its own way. ``gene_effects`` therefore
also gives the difference *within strategy* (the with/without difference inside each strategy,
averaged with the rows as weights), and the causal question "what if this gene did not exist?"
is answered by a paired ablation (``soup ablate``, analysis.paired).

Gene bit i of ``genes_held``/``genes_bought`` is ``sim.ursuppe.genes.GENE_NAMES[i]``;
``first_bought`` lists, per gene, the round it was first bought (0 = never).
"""

from itertools import combinations

import numpy as np
import polars as pl

from analysis.intervals import cluster_contrast, wilson
from analysis.multiple_testing import benjamini_hochberg, holm
from analysis.win_rates import GAME_KEY
from sim.ursuppe.genes import GENE_NAMES

BASES = ("held", "bought")


def _frame(rows: pl.LazyFrame | pl.DataFrame, basis: str, extra: list[str] = ()) -> pl.DataFrame:
    if basis not in BASES:
        raise ValueError(f"basis: expected one of {BASES}, got {basis!r}")
    column = "genes_held" if basis == "held" else "genes_bought"
    lf = rows.lazy() if isinstance(rows, pl.DataFrame) else rows
    return lf.select(*GAME_KEY, "won", pl.col(column).alias("mask"), *extra).collect()


def _cluster_ids(df: pl.DataFrame) -> np.ndarray:
    """One integer per game (players, seed, game)."""
    return df.select(pl.struct(GAME_KEY).rank("dense")).to_series().to_numpy()


def gene_masks(df: pl.DataFrame) -> np.ndarray:
    """bool [rows, genes]: whether each row holds (or bought) each gene."""
    mask = df["mask"].to_numpy().astype(np.int64)
    return (mask[:, None] >> np.arange(len(GENE_NAMES))[None, :]) & 1 == 1


def gene_effects(rows: pl.LazyFrame | pl.DataFrame, basis: str = "held", min_rows: int = 30) -> pl.DataFrame:
    """Per gene: win rate with and without it (Wilson intervals), the difference with its
    cluster-robust 95% interval and p-value, Holm and Benjamini-Hochberg adjustments over the
    genes, and the same difference within strategy (strata = strategy, weights = rows).

    ``basis`` "held" = held at the end, "bought" = ever bought. Genes with fewer than
    ``min_rows`` rows on either side get no test (NaN).
    """
    df = _frame(rows, basis, ["strategy"])
    won = df["won"].to_numpy().astype(np.float64)
    has = gene_masks(df)
    cluster = _cluster_ids(df)
    strategy = df["strategy"].cast(pl.String).to_numpy()
    strata, stratum = np.unique(strategy, return_inverse=True)
    out = []
    for i, name in enumerate(GENE_NAMES):
        h = has[:, i]
        n_with, n_without = int(h.sum()), int((~h).sum())
        w_with, w_without = int(won[h].sum()), int(won[~h].sum())
        row = {
            "gene": name,
            "rows_with": n_with,
            "share_with": n_with / len(h) if len(h) else np.nan,
            "win_rate_with": w_with / n_with if n_with else np.nan,
            "rows_without": n_without,
            "win_rate_without": w_without / n_without if n_without else np.nan,
        }
        lo, hi = wilson(np.array([w_with, w_without]), np.array([n_with, n_without]))
        row |= {"with_low": lo[0], "with_high": hi[0], "without_low": lo[1], "without_high": hi[1]}
        if min(n_with, n_without) >= min_rows:
            diff = cluster_contrast(won, np.where(h, 0, 1), np.array([1.0, -1.0]), cluster)
            within = _within_strata(won, h, stratum, len(strata), cluster, min_rows)
        else:
            diff = within = dict.fromkeys(("estimate", "ci_low", "ci_high", "p_value"), np.nan)
        row |= {
            "difference": diff["estimate"],
            "diff_low": diff["ci_low"],
            "diff_high": diff["ci_high"],
            "p_value": diff["p_value"],
            "within_strategy": within["estimate"],
            "within_low": within["ci_low"],
            "within_high": within["ci_high"],
            "within_p": within["p_value"],
        }
        out.append(row)
    result = pl.DataFrame(out)
    return result.with_columns(
        pl.Series("p_holm", holm(result["p_value"].to_numpy())),
        pl.Series("q_bh", benjamini_hochberg(result["p_value"].to_numpy())),
        pl.Series("within_p_holm", holm(result["within_p"].to_numpy())),
    )


def _within_strata(
    won: np.ndarray, h: np.ndarray, stratum: np.ndarray, n_strata: int, cluster: np.ndarray, min_rows: int
) -> dict[str, float]:
    """Average over strata of (rate with - rate without), weighted by the stratum's rows; strata
    with too few rows on a side are left out (their weight is 0)."""
    group = stratum * 2 + np.where(h, 0, 1)
    counts = np.bincount(group, minlength=2 * n_strata).reshape(n_strata, 2)
    usable = (counts >= min_rows).all(axis=1)
    if not usable.any():
        return dict.fromkeys(("estimate", "ci_low", "ci_high", "p_value"), np.nan)
    share = np.where(usable, counts.sum(axis=1), 0) / counts[usable].sum()
    weights = np.stack([share, -share], axis=1).ravel()
    return cluster_contrast(won, group, weights, cluster)


def gene_synergy(rows: pl.LazyFrame | pl.DataFrame, basis: str = "held", min_rows: int = 30) -> pl.DataFrame:
    """Per pair of genes: the observed win rate of holding both against the expected one if the
    two effects simply added up, ``expected = rate(A only) + rate(B only) - rate(neither)``.
    ``synergy = observed - expected`` (the interaction on the win-rate scale) with its
    cluster-robust interval, p-value and Benjamini-Hochberg q-value over all pairs. Pairs with
    fewer than ``min_rows`` rows in any of the four cells get no estimate."""
    df = _frame(rows, basis)
    won = df["won"].to_numpy().astype(np.float64)
    has = gene_masks(df)
    cluster = _cluster_ids(df)
    out = []
    for i, j in combinations(range(len(GENE_NAMES)), 2):
        a, b = has[:, i], has[:, j]
        cell = np.where(a & b, 0, np.where(a, 1, np.where(b, 2, 3)))
        counts = np.bincount(cell, minlength=4)
        rates = np.bincount(cell, weights=won, minlength=4) / np.maximum(counts, 1)
        row = {
            "gene_a": GENE_NAMES[i],
            "gene_b": GENE_NAMES[j],
            "rows_both": int(counts[0]),
            "observed": rates[0] if counts[0] else np.nan,
            "expected": rates[1] + rates[2] - rates[3] if counts[1:].all() else np.nan,
        }
        if counts.min() >= min_rows:
            c = cluster_contrast(won, cell, np.array([1.0, -1.0, -1.0, 1.0]), cluster)
        else:
            c = dict.fromkeys(("estimate", "ci_low", "ci_high", "p_value"), np.nan)
        row |= {
            "synergy": c["estimate"],
            "ci_low": c["ci_low"],
            "ci_high": c["ci_high"],
            "p_value": c["p_value"],
        }
        out.append(row)
    result = pl.DataFrame(out)
    return result.with_columns(pl.Series("q_bh", benjamini_hochberg(result["p_value"].to_numpy())))


def synergy_matrix(synergy: pl.DataFrame) -> np.ndarray:
    """The synergy column of :func:`gene_synergy` as a symmetric [genes, genes] matrix (NaN on
    the diagonal and where there is no estimate)."""
    index = {name: i for i, name in enumerate(GENE_NAMES)}
    m = np.full((len(GENE_NAMES), len(GENE_NAMES)), np.nan)
    for a, b, s in synergy.select("gene_a", "gene_b", "synergy").iter_rows():
        m[index[a], index[b]] = m[index[b], index[a]] = s
    return m


def gene_set_names(mask: int) -> str:
    """A gene bit mask as names, e.g. "Speed + Tentacle"; 0 is "(none)"."""
    names = [name for i, name in enumerate(GENE_NAMES) if mask >> i & 1]
    return " + ".join(names) if names else "(none)"


def frequent_gene_sets(rows: pl.LazyFrame | pl.DataFrame, basis: str = "held", top: int = 15) -> pl.DataFrame:
    """The ``top`` most frequent gene sets among winners, with their share among winners and
    among all players, the lift (winners' share / all players' share) and the set's win rate
    with its Wilson interval."""
    df = _frame(rows, basis)
    counts = df.group_by("mask").agg(pl.len().alias("rows"), pl.col("won").sum().alias("wins"))
    total, total_wins = len(df), int(df["won"].sum())
    counts = counts.sort(["wins", "rows"], descending=True).head(top)
    lo, hi = wilson(counts["wins"].to_numpy(), counts["rows"].to_numpy())
    return counts.select(
        pl.col("mask").map_elements(gene_set_names, return_dtype=pl.String).alias("gene_set"),
        pl.col("mask").map_elements(lambda m: bin(m).count("1"), return_dtype=pl.Int64).alias("genes"),
        "rows",
        "wins",
        (pl.col("wins") / total_wins).alias("share_of_winners"),
        (pl.col("rows") / total).alias("share_of_players"),
        ((pl.col("wins") / total_wins) / (pl.col("rows") / total)).alias("lift"),
        (pl.col("wins") / pl.col("rows")).alias("win_rate"),
    ).with_columns(pl.Series("ci_low", lo), pl.Series("ci_high", hi))


def purchase_rates(rows: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """Per gene: the share of players who ever bought it (Wilson interval), who hold it at the
    end, and the mean and median round of the first purchase among buyers."""
    lf = rows.lazy() if isinstance(rows, pl.DataFrame) else rows
    df = lf.select("genes_held", "genes_bought", "first_bought").collect()
    first = np.asarray(df["first_bought"].to_list(), dtype=np.int64).reshape(len(df), len(GENE_NAMES))
    held = (df["genes_held"].to_numpy().astype(np.int64)[:, None] >> np.arange(len(GENE_NAMES))) & 1
    bought = first > 0
    n = len(df)
    buyers = bought.sum(axis=0)
    lo, hi = wilson(buyers, np.full(len(GENE_NAMES), n))
    mean_round = np.array(
        [first[bought[:, i], i].mean() if buyers[i] else np.nan for i in range(len(GENE_NAMES))]
    )
    median_round = np.array(
        [np.median(first[bought[:, i], i]) if buyers[i] else np.nan for i in range(len(GENE_NAMES))]
    )
    return pl.DataFrame(
        {
            "gene": list(GENE_NAMES),
            "bought_rate": buyers / max(n, 1),
            "ci_low": lo,
            "ci_high": hi,
            "held_rate": held.sum(axis=0) / max(n, 1),
            "mean_round": mean_round,
            "median_round": median_round,
        }
    )


def purchase_timing(rows: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """Per gene and round: how many players first bought the gene in that round, as a count and
    as a share of all players (long format: gene, round, purchases, share)."""
    lf = rows.lazy() if isinstance(rows, pl.DataFrame) else rows
    first = lf.select("first_bought").collect()["first_bought"].to_list()
    first = np.asarray(first, dtype=np.int64).reshape(len(first), len(GENE_NAMES))
    n = len(first)
    max_round = int(first.max()) if first.size else 0
    records = []
    for i, name in enumerate(GENE_NAMES):
        per_round = np.bincount(first[:, i], minlength=max_round + 1)
        for r in range(1, max_round + 1):
            records.append(
                {"gene": name, "round": r, "purchases": int(per_round[r]), "share": per_round[r] / n}
            )
    return pl.DataFrame(
        records, schema={"gene": pl.String, "round": pl.Int64, "purchases": pl.Int64, "share": pl.Float64}
    )
