"""Gene sets: how holding or buying a gene goes with winning, pairs of genes, winners' gene sets,
and when genes are bought.

These are associations in simulated play, not causes: a player who is ahead has the BP to buy
more genes, and a strategy that buys a gene also plays its own way. Every estimate is therefore
given twice: *raw* (all players of a player count) and *within strategy* (the same comparison
inside each strategy, averaged with the rows as weights), and the report points to a paired
ablation (``soup ablate``, analysis.ursuppe.paired) for the causal question "what if this gene did not
exist?".

Player counts are never pooled: the fair share (1/3 vs 1/4) and the gene copies differ between
them, so every table has a ``players`` column and its tests are corrected over the whole table.

Gene bit i of ``genes_held``/``genes_bought`` is the run's ``spec.gene_names[i]``;
``first_bought`` lists, per gene, the round it was first bought (0 = never). Which genes a run
could hold is the manifest's ``spec.gene_names`` (the 20 base genes, or all 46 with the extra
genes; a run written before the extra genes has no key and means the 20): :func:`run_gene_names`.
The base genes keep their bits in every run, so runs with and without the extra genes read alike.
Each function takes those names as ``genes``; left out (rows without their manifest), this
version's genes are assumed, as many as the longest ``first_bought`` list.
"""

from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np
import polars as pl

from analysis.intervals import (
    MIN_ROWS,
    NO_CONTRAST,
    cluster_contrast,
    cluster_wilson,
    contrast_columns,
    wilson,
)
from analysis.multiple_testing import benjamini_hochberg, holm, with_adjusted
from analysis.win_rates import GAME_KEY, cluster_ids, with_run
from sim.errors import UserError
from sim.ursuppe.rules.genes import GENE_NAMES, N_BASE_GENES

BASES = ("held", "bought")
BASE_GENE_NAMES: tuple[str, ...] = GENE_NAMES[:N_BASE_GENES]  # a run without spec.gene_names


def run_gene_names(manifests: Sequence[dict[str, Any]]) -> tuple[str, ...]:
    """The genes the runs could hold, in bit order, as their manifests name them
    (``spec.gene_names``; a run written before the extra genes has none and means the 20 base
    genes): the longest list, since the runs' lists must agree bit by bit (one line naming the
    run otherwise: its bits mean other genes, and its rows cannot be pooled with the others)."""
    names: tuple[str, ...] = ()
    for m in manifests:
        spec = m.get("spec", m)
        own = tuple(spec.get("gene_names", BASE_GENE_NAMES))
        short, long = sorted((names, own), key=len)
        if long[: len(short)] != short:
            where = m.get("directory", "a run")
            raise UserError(
                f"{where}: its manifest's gene_names ({len(own)} genes) name other genes in the same bits "
                "than the other runs'; report it on its own"
            )
        names = long
    return names or BASE_GENE_NAMES


def _genes_of(rows: pl.LazyFrame | pl.DataFrame, genes: Sequence[str] | None) -> tuple[str, ...]:
    """``genes``, or the run's genes read off the rows: as many as the longest first_bought."""
    if genes is not None:
        return tuple(genes)
    lf = rows.lazy() if isinstance(rows, pl.DataFrame) else rows
    if "first_bought" in lf.collect_schema().names():
        n = lf.select(pl.col("first_bought").list.len().max()).collect().item()
    else:  # no first_bought: at least the base genes, and any gene a row holds or bought
        masks = lf.select(
            pl.col(c) for c in ("genes_held", "genes_bought") if c in lf.collect_schema().names()
        )
        top = int(np.bitwise_or.reduce(masks.collect().to_numpy().astype(np.int64).ravel(), initial=0))
        n = max(N_BASE_GENES, top.bit_length())
    return GENE_NAMES[: int(n or N_BASE_GENES)]


def _frame(rows: pl.LazyFrame | pl.DataFrame, basis: str, weight: str | None = None) -> pl.DataFrame:
    if basis not in BASES:
        raise ValueError(f"basis: expected one of {BASES}, got {basis!r}")
    column = "genes_held" if basis == "held" else "genes_bought"
    lf = with_run(rows)
    extra = [] if weight is None else [pl.col(weight).cast(pl.Float64).alias("_weight")]
    lf = lf.select(*GAME_KEY, "won", "strategy", pl.col(column).alias("mask"), *extra)
    if weight is not None:
        lf = lf.filter(pl.col("_weight") > 0)  # weight 0: not in the mix, not in the table
    return lf.collect()


def gene_masks(df: pl.DataFrame, n_genes: int = len(GENE_NAMES)) -> np.ndarray:
    """bool [rows, n_genes]: whether each row holds (or bought) each of the first n genes."""
    mask = df["mask"].to_numpy().astype(np.int64)
    return (mask[:, None] >> np.arange(n_genes)[None, :]) & 1 == 1


def _strata_weights(counts: np.ndarray, min_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Per stratum: usable (every cell has ``min_rows`` rows) and its weight (share of the
    usable strata's rows)."""
    usable = (counts >= min_rows).all(axis=1)
    rows = np.where(usable, counts.sum(axis=1), 0)
    return usable, rows / max(rows.sum(), 1)


def _strata_label(names: np.ndarray, counts: np.ndarray, usable: np.ndarray) -> str:
    """E.g. "predator (smallest group 32)": the strategies compared, each with the size of its
    smallest cell, which is what limits the precision."""
    return ", ".join(
        f"{n} (smallest group {c:,})" for n, c, u in zip(names, counts.min(axis=1), usable, strict=True) if u
    )


def smallest_group(counts: np.ndarray, usable: np.ndarray) -> int:
    """The smallest cell among the usable strata (0 when none is usable): the group a
    within-strategy estimate leans on most, flagged below ``SMALL_GROUP`` by the report."""
    return int(counts[usable].min()) if usable.any() else 0


def gene_effects(
    rows: pl.LazyFrame | pl.DataFrame,
    basis: str = "held",
    min_rows: int = MIN_ROWS,
    weight: str | None = None,
    genes: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Per player count and gene: win rate with and without the gene (Wilson intervals), the raw
    difference with its cluster-robust 95% interval and p-value, and the difference *within
    strategy* (holders vs non-holders of the same strategy, weighted by the strategy's rows;
    ``strata`` names the strategies that had ``min_rows`` on both sides, with their rows).
    Holm and Benjamini-Hochberg adjust over every gene of every player count.

    ``basis`` "held" = held at the end, "bought" = ever bought. Comparisons with fewer than
    ``min_rows`` rows on a side get no test (NaN).

    ``weight`` names a column of row weights (``soup report --equilibrium``'s importance
    weights): every rate, share and difference is then the weighted one, its interval
    cluster-robust (analysis.intervals.cluster_contrast / cluster_wilson with ``row_weights``),
    the within-strategy average weights each strategy by its rows' total weight (so by the mix),
    rows of weight 0 are left out, and ``rows_with``/``rows_without`` count the rows used.
    """
    names_of_genes = _genes_of(rows, genes)
    df = _frame(rows, basis, weight)
    out = []
    for (players,), part in df.sort("players").group_by(["players"], maintain_order=True):
        won = part["won"].to_numpy().astype(np.float64)
        has = gene_masks(part, len(names_of_genes))
        cluster = cluster_ids(part)
        rw = None if weight is None else part["_weight"].to_numpy()
        names, stratum = np.unique(part["strategy"].cast(pl.String).to_numpy(), return_inverse=True)
        for i, name in enumerate(names_of_genes):
            h = has[:, i]
            n_with, n_without = int(h.sum()), int((~h).sum())
            rates = _holder_rates(won, h, cluster, rw)
            diff, strata = NO_CONTRAST, NO_STRATA
            if min(n_with, n_without) >= min_rows:
                side = np.where(h, 0, 1)
                diff = cluster_contrast(won, side, np.array([1.0, -1.0]), cluster, row_weights=rw)
                strata = _within_strategy(won, h, stratum, names, cluster, rw, min_rows)
            out.append(effect_row(int(players), name, n_with, n_without, rates, diff, strata))
    return effects_frame(out)


# gene_effects' win rates of holders and non-holders: their Wilson bounds (lo, hi: each [with,
# without]), the holders' share and the two rates.
HolderRates = tuple[np.ndarray, np.ndarray, float, float, float]
# gene_effects' difference within strategy, the label of the strata compared and the smallest group.
Strata = tuple[dict, str, int]
NO_STRATA: Strata = (NO_CONTRAST, "", 0)


def _holder_rates(won: np.ndarray, h: np.ndarray, cluster: np.ndarray, rw: np.ndarray | None) -> HolderRates:
    """gene_effects' win rates of holders (``h``) and non-holders: their intervals (lo, hi: with,
    without), the holders' share and the two rates; weighted by ``rw`` when given."""
    n_with, n_without = int(h.sum()), int((~h).sum())
    if rw is None:
        w_with, w_without = int(won[h].sum()), int(won[~h].sum())
        lo, hi = wilson(np.array([w_with, w_without]), np.array([n_with, n_without]))
        share = n_with / len(h)
        rate_with = w_with / n_with if n_with else np.nan
        rate_without = w_without / n_without if n_without else np.nan
    else:
        sides = [cluster_wilson(won[m], cluster[m], row_weights=rw[m]) for m in (h, ~h)]
        lo, hi = np.array([sides[0][0], sides[1][0]]), np.array([sides[0][1], sides[1][1]])
        share = float(rw[h].sum() / rw.sum())
        rate_with = float(won[h] @ rw[h] / rw[h].sum()) if n_with else np.nan
        rate_without = float(won[~h] @ rw[~h] / rw[~h].sum()) if n_without else np.nan
    return lo, hi, share, rate_with, rate_without


def _within_strategy(
    won: np.ndarray,
    h: np.ndarray,
    stratum: np.ndarray,
    names: np.ndarray,
    cluster: np.ndarray,
    rw: np.ndarray | None,
    min_rows: int,
) -> Strata:
    """gene_effects' difference within strategy (holders vs non-holders of each strategy
    ``stratum`` with ``min_rows`` on both sides), the strata's label and the smallest group;
    NO_CONTRAST, "" and 0 when no strategy has them."""
    group = stratum * 2 + np.where(h, 0, 1)
    counts = np.bincount(group, minlength=2 * len(names)).reshape(len(names), 2)
    usable, strata_weight = _strata_weights(counts, min_rows)
    if rw is not None:  # the mix's weight of each usable strategy, not its rows
        mass = np.bincount(stratum, weights=rw, minlength=len(names)) * usable
        strata_weight = mass / max(mass.sum(), 1e-300)
    if not usable.any():
        return NO_STRATA
    within = cluster_contrast(
        won, group, np.stack([strata_weight, -strata_weight], axis=1).ravel(), cluster, row_weights=rw
    )
    return within, _strata_label(names, counts, usable), smallest_group(counts, usable)


def effect_row(
    players: int, gene: str, n_with: int, n_without: int, rates: HolderRates, diff: dict, strata: Strata
) -> dict[str, Any]:
    """One row of :func:`gene_effects` (also built by analysis.ursuppe.streamed, chunk by chunk):
    the rows with and without the gene, their ``rates``, the raw difference ``diff`` and the
    difference within strategy with its ``strata``."""
    lo, hi, share, rate_with, rate_without = rates
    within, label, smallest = strata
    return {
        "players": players,
        "gene": gene,
        "rows_with": n_with,
        "share_with": share,
        "win_rate_with": rate_with,
        "with_low": lo[0],
        "with_high": hi[0],
        "rows_without": n_without,
        "win_rate_without": rate_without,
        "without_low": lo[1],
        "without_high": hi[1],
        **contrast_columns(diff, "difference", "diff_low", "diff_high", "p_value"),
        **contrast_columns(within, "within_strategy", "within_low", "within_high", "within_p"),
        "strata": label,
        "smallest_group": smallest,
    }


def effects_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """:func:`effect_row` rows as a table with Holm and Benjamini-Hochberg over its genes."""
    return with_adjusted(
        rows,
        p_holm=(holm, "p_value"),
        q_bh=(benjamini_hochberg, "p_value"),
        within_p_holm=(holm, "within_p"),
    )


def gene_synergy(
    rows: pl.LazyFrame | pl.DataFrame,
    basis: str = "held",
    min_rows: int = MIN_ROWS,
    genes: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Per player count and pair of genes: does holding both win more than the two genes' own
    effects predict? With the four cells both / A only / B only / neither, the *additive
    prediction* for "both" is ``rate(A only) + rate(B only) - rate(neither)``, and
    ``synergy = observed(both) - prediction`` (the interaction on the win-rate scale; the
    prediction is not a rate and can fall outside [0, 1]). Given raw and *within strategy*
    (the interaction inside each strategy with all four cells of ``min_rows`` rows, weighted by
    rows), each with a cluster-robust interval, p-value and Benjamini-Hochberg q-value over
    every pair of every player count."""
    names_of_genes = _genes_of(rows, genes)
    df = _frame(rows, basis)
    out = []
    interaction = np.array([1.0, -1.0, -1.0, 1.0])
    for (players,), part in df.sort("players").group_by(["players"], maintain_order=True):
        won = part["won"].to_numpy().astype(np.float64)
        has = gene_masks(part, len(names_of_genes))
        cluster = cluster_ids(part)
        names, stratum = np.unique(part["strategy"].cast(pl.String).to_numpy(), return_inverse=True)
        for i, j in combinations(range(len(names_of_genes)), 2):
            a, b = has[:, i], has[:, j]
            cell = np.where(a & b, 0, np.where(a, 1, np.where(b, 2, 3)))
            counts = np.bincount(cell, minlength=4)
            rates = np.bincount(cell, weights=won, minlength=4) / np.maximum(counts, 1)
            raw = within = NO_CONTRAST
            label = ""
            if counts.min() >= min_rows:
                raw = cluster_contrast(won, cell, interaction, cluster)
                group = stratum * 4 + cell
                by_stratum = np.bincount(group, minlength=4 * len(names)).reshape(len(names), 4)
                usable, weight = _strata_weights(by_stratum, min_rows)
                if usable.any():
                    within = cluster_contrast(won, group, np.outer(weight, interaction).ravel(), cluster)
                    label = _strata_label(names, by_stratum, usable)
            out.append(synergy_row(int(players), i, j, counts, rates, raw, within, label, names_of_genes))
    return synergy_frame(out)


def synergy_row(
    players: int,
    i: int,
    j: int,
    counts: np.ndarray,
    rates: np.ndarray,
    raw: dict,
    within: dict,
    label: str,
    names: Sequence[str],
) -> dict[str, Any]:
    """One row of :func:`gene_synergy` (also built by analysis.ursuppe.streamed, chunk by chunk): the pair
    (i, j), the four cells' counts and rates (both, a only, b only, neither), the raw and the
    within-strategy contrasts."""
    return {
        "players": players,
        "gene_a": names[i],
        "gene_b": names[j],
        "rows_both": int(counts[0]),
        "observed": rates[0] if counts[0] else np.nan,
        "additive_prediction": rates[1] + rates[2] - rates[3] if counts[1:].all() else np.nan,
        **contrast_columns(raw, "synergy", "ci_low", "ci_high", "p_value"),
        **contrast_columns(within, "within_strategy", "within_low", "within_high", "within_p"),
        "strata": label,
    }


# A pair's two genes as the reports' tables show them (markdown_table columns).
GENE_PAIR_COLUMNS = [("gene_a", "gene A", "text"), ("gene_b", "gene B", "text")]


def synergy_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """:func:`synergy_row` rows as a table with Benjamini-Hochberg q-values over its pairs."""
    bh = benjamini_hochberg
    return with_adjusted(rows, q_bh=(bh, "p_value"), within_q_bh=(bh, "within_p"))


def synergy_names(synergy: pl.DataFrame) -> list[str]:
    """The genes of :func:`synergy_matrix`'s rows, in the runs' bit order: the table lists its
    pairs (i, j), i < j, in that order, so a gene appears first in its bit order."""
    pairs = synergy.select("gene_a", "gene_b").rows()
    return list(dict.fromkeys(name for pair in pairs for name in pair))


def synergy_matrix(synergy: pl.DataFrame, column: str = "synergy") -> np.ndarray:
    """A column of :func:`gene_synergy` (one player count) as a symmetric [genes, genes] matrix
    over :func:`synergy_names` (NaN on the diagonal and where there is no estimate)."""
    names = synergy_names(synergy)
    index = {name: i for i, name in enumerate(names)}
    m = np.full((len(names), len(names)), np.nan)
    for a, b, s in synergy.select("gene_a", "gene_b", column).iter_rows():
        m[index[a], index[b]] = m[index[b], index[a]] = s
    return m


def gene_set_names(mask: int, names: Sequence[str]) -> str:
    """A gene bit mask as names (bit i is ``names[i]``, the runs' gene_names), e.g. "Speed +
    Tentacle"; 0 is "(none)"."""
    held = [name for i, name in enumerate(names) if mask >> i & 1]
    return " + ".join(held) if held else "(none)"


def frequent_gene_sets(
    rows: pl.LazyFrame | pl.DataFrame,
    basis: str = "held",
    top: int = 15,
    among: str = "winners",
    genes: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Per player count, the ``top`` most frequent gene sets among winners (``among="winners"``)
    or among all players (``"all"``), with the set's share among winners and among all players,
    the lift (winners' share / all players' share: above 1, the set is over-represented among
    winners) and its win rate with a Wilson interval."""
    if among not in ("winners", "all"):
        raise ValueError(f"among: expected 'winners' or 'all', got {among!r}")
    df = _frame(rows, basis)
    counted = df.group_by("players", "mask").agg(pl.len().alias("rows"), pl.col("won").sum().alias("wins"))
    return gene_sets_from_counts(counted, _genes_of(rows, genes), top, among)


def gene_sets_from_counts(
    counted: pl.DataFrame, names: Sequence[str], top: int = 15, among: str = "winners"
) -> pl.DataFrame:
    """:func:`frequent_gene_sets` from the rows and wins per (players, mask): counts of disjoint
    sets of games add up, so a report reading one chunk at a time sums them (analysis.ursuppe.streamed)."""
    if among not in ("winners", "all"):
        raise ValueError(f"among: expected 'winners' or 'all', got {among!r}")
    counts = (
        counted.with_columns(
            pl.col("rows").sum().over("players").alias("_players"),
            pl.col("wins").sum().over("players").alias("_winners"),
        )
        .sort(["players", "wins" if among == "winners" else "rows", "mask"], descending=[False, True, False])
        .group_by("players", maintain_order=True)
        .head(top)
    )
    lo, hi = wilson(counts["wins"].to_numpy(), counts["rows"].to_numpy())
    return counts.select(
        "players",
        pl.col("mask")
        .map_elements(lambda m: gene_set_names(m, names), return_dtype=pl.String)
        .alias("gene_set"),
        pl.col("mask").map_elements(lambda m: bin(m).count("1"), return_dtype=pl.Int64).alias("genes"),
        "rows",
        "wins",
        (pl.col("wins") / pl.col("_winners")).alias("share_of_winners"),
        (pl.col("rows") / pl.col("_players")).alias("share_of_players"),
        ((pl.col("wins") / pl.col("_winners")) / (pl.col("rows") / pl.col("_players"))).alias("lift"),
        (pl.col("wins") / pl.col("rows")).alias("win_rate"),
    ).with_columns(pl.Series("ci_low", lo), pl.Series("ci_high", hi))


def _first_bought(
    rows: pl.LazyFrame | pl.DataFrame, n_genes: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row: players, first-purchase round per gene [rows, n_genes] (a run with fewer genes
    padded with 0: never bought), held per gene, and the game (cluster id,
    :func:`analysis.win_rates.cluster_ids`)."""
    df = with_run(rows).select(*GAME_KEY, "genes_held", "first_bought").collect()
    first = np.zeros((len(df), n_genes), dtype=np.int64)
    lengths = df["first_bought"].list.len().to_numpy()
    for k in np.unique(lengths):  # one block per list length (runs with and without extra genes)
        sel = lengths == k
        block = np.asarray(df.filter(pl.Series(sel))["first_bought"].to_list(), dtype=np.int64)
        first[sel, : min(k, n_genes)] = block.reshape(int(sel.sum()), k)[:, :n_genes]
    held = (df["genes_held"].to_numpy().astype(np.int64)[:, None] >> np.arange(n_genes)) & 1
    return df["players"].to_numpy(), first, held, cluster_ids(df)


def purchase_rates(rows: pl.LazyFrame | pl.DataFrame, genes: Sequence[str] | None = None) -> pl.DataFrame:
    """Per player count and gene: the share of players who ever bought it with its 95% interval,
    who hold it at the end, and the mean and median round of the first purchase among buyers.

    The interval is cluster-robust with the game as the cluster (issue 13, point 3:
    :func:`analysis.intervals.cluster_wilson`): players of one game see the same cards and
    compete for the same copies, so their purchases are correlated, and a Wilson interval on
    player-games was too narrow (Escape's nominal 95% covered 91.5%). ``design_effect`` is the
    variance against that of independent players (above 1: players of a game buy alike)."""
    names_of_genes = _genes_of(rows, genes)
    players, first, held, cluster = _first_bought(rows, len(names_of_genes))
    out = []
    for p in np.unique(players):
        sel = players == p
        f, h, n = first[sel], held[sel], int(sel.sum())
        bought = f > 0
        buyers = bought.sum(axis=0)
        for i, name in enumerate(names_of_genes):
            lo, hi, deff = cluster_wilson(bought[:, i], cluster[sel])
            rounds = f[bought[:, i], i]
            out.append(
                {
                    "players": int(p),
                    "gene": name,
                    "bought_rate": buyers[i] / n,
                    "ci_low": lo,
                    "ci_high": hi,
                    "design_effect": deff,
                    "held_rate": h[:, i].sum() / n,
                    "mean_round": rounds.mean() if len(rounds) else np.nan,
                    "median_round": float(np.median(rounds)) if len(rounds) else np.nan,
                }
            )
    return pl.DataFrame(out)


def purchase_timing(rows: pl.LazyFrame | pl.DataFrame, genes: Sequence[str] | None = None) -> pl.DataFrame:
    """Per player count, gene and round: how many players first bought the gene in that round,
    as a count and as a share of the player count's players (long format)."""
    names_of_genes = _genes_of(rows, genes)
    players, first, _, _ = _first_bought(rows, len(names_of_genes))
    max_round = int(first.max()) if first.size else 0
    records = []
    for p in np.unique(players):
        f = first[players == p]
        for i, name in enumerate(names_of_genes):
            records += timing_rows(int(p), name, np.bincount(f[:, i], minlength=max_round + 1), len(f))
    return pl.DataFrame(records, schema=TIMING_SCHEMA)


# purchase_timing's columns (also analysis.ursuppe.streamed's, built chunk by chunk).
TIMING_SCHEMA = dict(players=pl.Int64, gene=pl.String, round=pl.Int64, purchases=pl.Int64, share=pl.Float64)


def timing_rows(players: int, gene: str, per_round: np.ndarray, rows: int) -> list[dict[str, Any]]:
    """:func:`purchase_timing`'s rows of one gene: ``per_round[r]`` of the player count's ``rows``
    players first bought it in round r (1 to the last round; index 0, never, is not a row)."""
    return [
        {"players": players, "gene": gene, "round": r, "purchases": int(n), "share": n / rows}
        for r, n in enumerate(per_round[1:], start=1)
    ]
