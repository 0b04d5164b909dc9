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

For a 0/1 outcome (win rates, finish-zone share, gene purchase rates) even t is too optimistic
when few games changed: what carries the evidence is the number of discordant games (whose
outcome differs between A and B), not the number of games. 3,000 games of which 4 changed, all
the same way, give t p = 0.046, while under no effect each change is a fair coin and four heads
have p = 0.125. So below ``EXACT_BELOW`` discordant games the p-value of a 0/1 row is the exact
sign test on them (:func:`sign_flip_p`) and the row's ``test`` column says ``sign``; otherwise
``t``. The interval stays the t interval (a sign test has no interval of the mean).

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

from analysis.distributions import binomial_two_sided_p, t_quantile, t_two_sided_p
from analysis.intervals import cluster_contrast
from analysis.multiple_testing import benjamini_hochberg, holm
from analysis.win_rates import Rows
from sim.errors import UserError
from sim.ursuppe.rules.genes import GENE_NAMES, N_BASE_GENES

ALPHA = 0.05
# Below this many games per arm the CLI warns: a rare event (a seat's win, a rarely bought gene)
# then changes in a handful of games, and even the t reference is only approximate.
SMALL_EXPERIMENT = 200
# Below this many discordant games a 0/1 row's p-value is the exact sign test. There t is far too
# small near the 5% line (3,000 games; 4 changes all one way: t 0.046, exact 0.125; 9 of 10 one
# way: 0.011 vs 0.021; 15 of 20: 0.025 vs 0.041); from 50 on the gap is a continuity correction
# that shrinks with the count (33 of 50: 0.024 vs 0.033; 60 of 100: 0.046 vs 0.057).
EXACT_BELOW = 50
TEST_T = "t"
TEST_SIGN = "sign"
# The families of a comparison table and what their values are.
FAMILY_STRATEGY = "win rate by strategy"
FAMILY_SEAT = "win rate by seat"
FAMILY_GAME = "game"
FAMILY_GENE = "gene purchase rate"
FAMILIES: tuple[str, ...] = (FAMILY_STRATEGY, FAMILY_SEAT, FAMILY_GAME, FAMILY_GENE)
METRIC_ROUNDS = "mean rounds"
METRIC_FINISH = "finish-zone share"
_COLUMNS = ("game", "player", "strategy", "start_space", "won", "rounds", "end_reason", "genes_bought")


class PairingError(UserError):
    """Two runs that are not the same games (different games, strategies or seats)."""


def paired_difference(
    y_a: np.ndarray,
    y_b: np.ndarray,
    cluster_a: np.ndarray,
    cluster_b: np.ndarray,
    binary: bool = False,
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

    ``discordant`` is the number of clusters whose summed outcome differs between the arms.
    ``binary``: the outcome is 0/1; then with fewer than :data:`EXACT_BELOW` discordant
    clusters the p-value is the exact sign test on them (:func:`sign_flip_p`) and ``test`` is
    ``"sign"`` (else ``"t"``). A NaN p-value (cluster_contrast's for a non-zero estimate with
    no spread, e.g. a gene bought in every game under A and never under B) is replaced by the
    sign test for a 0/1 outcome at any count, since then every game changed the same way and
    the exact p-value is simply ``2^(1 - K)``; otherwise it stays NaN (Holm/BH skip it).
    """
    y_a = np.asarray(y_a, dtype=np.float64)
    y_b = np.asarray(y_b, dtype=np.float64)
    y = np.concatenate([y_b, y_a])
    group = np.concatenate([np.zeros(len(y_b), np.int64), np.ones(len(y_a), np.int64)])
    cluster = np.concatenate([np.asarray(cluster_b), np.asarray(cluster_a)])
    out = cluster_contrast(y, group, np.array([1.0, -1.0]), cluster)
    clusters = int(np.unique(cluster).size)
    out = t_reference(out, clusters - 1)
    d = cluster_differences(y_a, y_b, cluster_a, cluster_b)
    discordant = int(np.count_nonzero(d))
    out["test"] = TEST_T
    one_way = bool(np.all(d >= 0) or np.all(d <= 0))
    # No spread (every changed game moved the same way, t has no p-value): the sign test still has one.
    if binary and discordant > 0 and (discordant < EXACT_BELOW or (math.isnan(out["p_value"]) and one_way)):
        out["p_value"] = sign_flip_p(d)
        out["test"] = TEST_SIGN
    out["clusters"] = clusters
    out["discordant"] = discordant
    out["mean_a"] = float(y_a.mean()) if len(y_a) else math.nan
    out["mean_b"] = float(y_b.mean()) if len(y_b) else math.nan
    out["n_a"] = len(y_a)
    out["n_b"] = len(y_b)
    return out


def cluster_differences(
    y_a: np.ndarray, y_b: np.ndarray, cluster_a: np.ndarray, cluster_b: np.ndarray
) -> np.ndarray:
    """Per cluster (game), the sum of B's outcomes minus the sum of A's: the paired difference
    of a game, which is the independent unit (two rows of one game, e.g. two seats of one
    strategy, are not independent pairs)."""
    ids, inv = np.unique(np.concatenate([np.asarray(cluster_b), np.asarray(cluster_a)]), return_inverse=True)
    sign = np.concatenate([np.ones(len(y_b)), -np.ones(len(y_a))])
    return np.bincount(inv, weights=sign * np.concatenate([y_b, y_a]), minlength=ids.size)


def sign_flip_p(d: np.ndarray) -> float:
    """Exact two-sided p-value of the sign test on the per-game differences ``d`` (integers:
    sums of 0/1 changes). Under no effect the two arms of a game are exchangeable, so each
    non-zero difference is equally likely to have either sign; the p-value is the share of the
    2^K sign patterns of the K discordant games whose total is at least as far from 0 as the
    observed one. When every discordant game changes by one (the usual case: one winner per
    game, one row per game) this is the binomial sign test, ``P(|Bin(K, 1/2) - K/2| >= |k -
    K/2|)``; a game in which two players' outcomes moved the same way counts double, as it
    does in the mean. Computed by convolution over the integer totals, exact for K in the
    hundreds."""
    m = np.abs(np.rint(np.asarray(d, dtype=np.float64))).astype(np.int64)
    m = m[m > 0]
    if m.size == 0:
        return 1.0
    d = np.rint(np.asarray(d, dtype=np.float64))
    if np.all(d >= 0) or np.all(d <= 0):
        # All one way: only the all-plus and all-minus patterns reach the observed total. This
        # also serves thousands of games (2^(1-K) underflows to 0 rather than being summed).
        return min(1.0, 2.0 ** (1 - m.size))
    if np.all(m == 1):
        k = int(np.count_nonzero(np.rint(np.asarray(d)) > 0))
        return binomial_two_sided_p(k, int(m.size))
    # dist[s] = number of sign patterns whose positive part sums to s; total = 2 s - sum(m).
    dist = np.zeros(int(m.sum()) + 1)
    dist[0] = 1.0
    top = 0
    for x in m:
        dist[x : top + x + 1] += dist[: top + 1].copy()
        top += x
    dist /= dist.sum()
    observed = abs(float(np.rint(np.asarray(d, dtype=np.float64)).sum()))
    totals = np.abs(2 * np.arange(dist.size) - m.sum())
    return float(min(1.0, dist[totals >= observed - 1e-9].sum()))


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


def _frame(rows: Rows) -> pl.DataFrame:
    lf = rows.lazy()  # a LazyFrame returns itself
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
        "discordant": d["discordant"],
        "test": d["test"],
        "by_construction": False,
    }


def paired_tests(
    rows_a: Rows, rows_b: Rows, removed: Sequence[str] = (), genes: Sequence[str] | None = None
) -> pl.DataFrame:
    """Every paired test of B against A, uncorrected: one row per (family, metric, group).

    Families: win rate by strategy (share of a strategy's player-games won), win rate by seat
    (start space), game (mean rounds; share of games ended by a marker in the finish zone rather
    than by the last environment card), gene purchase rate (share of player-games in which the
    gene was bought at least once; bit i of ``genes_bought`` is ``genes[i]``, the runs'
    spec.gene_names; None: this version's genes, for rows without a manifest). ``n`` is the number of rows per
    arm (player-games, or games for the game family); ``kind`` is ``rate`` or ``mean``;
    ``discordant`` the number of games whose outcome changed; ``test`` the p-value's reference
    (``sign`` for a rate with fewer than :data:`EXACT_BELOW` discordant games, else ``t``).

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
        d = paired_difference(ya[mask], yb[mask], game[mask], game[mask], binary=kind == "rate")
        out.append(_row(family, metric, key, d, kind))

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
    either = (
        int(np.bitwise_or.reduce(np.concatenate([bought_a, bought_b]).astype(np.int64))) if a.height else 0
    )
    for i, name in enumerate(GENE_NAMES if genes is None else genes):
        if i >= N_BASE_GENES and not either >> i & 1:
            continue  # an extra gene neither arm bought (or a run without them): nothing to test
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
    rows_a: Rows, rows_b: Rows, removed: Sequence[str] = (), genes: Sequence[str] | None = None
) -> pl.DataFrame:
    """The comparison table of a paired experiment: :func:`paired_tests`, corrected per family
    (``removed``: genes absent from B's deck, see :func:`paired_tests`; ``genes``: the runs'
    genes in bit order, their manifests' spec.gene_names)."""
    return correct(paired_tests(rows_a, rows_b, removed, genes))


def removed_genes(label: str) -> list[str]:
    """The genes of an ablation label (``"Tentacle + Holding"``)."""
    return [g.strip() for g in str(label).split("+")]


def ablation_table(
    baseline: Rows, ablated: dict[str, Rows], genes: Sequence[str] | None = None
) -> pl.DataFrame:
    """Paired tests of every ablated run (key: the removed gene or gene set, genes joined by
    ``" + "``) against the baseline, with a ``removed`` column, corrected over the whole family (a
    family spans every removed gene: 20 genes x 5 strategies is one family of 100 win-rate
    tests). The removed genes' own purchase-rate drops are marked ``by_construction`` and left
    out of the gene family."""
    base = _frame(baseline)
    parts = [
        paired_tests(base, rows, removed_genes(gene), genes).select(pl.lit(gene).alias("removed"), pl.all())
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
        for metric, label in ((METRIC_ROUNDS, "d rounds"), (METRIC_FINISH, "d finish-zone share")):
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


# The keys of a table row (a comparison's, or ablate --each's with its removed gene set) that
# identify it across the per-deck tables of an experiment over several decks (V6, --decks K).
DECK_KEYS: tuple[str, ...] = ("removed", "family", "metric", "group")


def deck_spread(pooled: pl.DataFrame, per_deck: pl.DataFrame) -> pl.DataFrame:
    """``pooled`` (a comparison or ablation table over every game of every deck) with each row's
    spread over the decks: ``deck_min`` and ``deck_max``, the smallest and largest per-deck
    ``diff`` of ``per_deck`` (the same table on each deck's games, with a ``deck`` column), and
    ``same_sign``: the difference is positive on every deck, or negative on every deck (a deck
    where it is 0, NaN or the row is missing breaks it). A verdict that holds for one deck only
    is a verdict about that deck (V6).

    The pooled ``diff`` is the row-weighted mean of the per-deck ones (``n`` rows a deck: both
    arms play the same assignment), so the game-weighted mean for the game and seat families;
    its interval and p-value stay the pooled ones. The new columns come after ``significant``
    (``by_construction``, a note, stays last)."""
    keys = [k for k in DECK_KEYS if k in pooled.columns]
    decks = per_deck["deck"].n_unique()
    diff = pl.col("diff").fill_nan(None)
    spread = per_deck.group_by(keys, maintain_order=True).agg(
        diff.min().alias("deck_min"),
        diff.max().alias("deck_max"),
        ((diff.is_not_null().sum() == decks) & ((diff > 0).all() | (diff < 0).all())).alias("same_sign"),
    )
    out = pooled.join(spread, on=keys, how="left", maintain_order="left").with_columns(
        pl.col("same_sign").fill_null(False)
    )
    if "by_construction" in out.columns:
        out = out.select(pl.exclude("by_construction"), "by_construction")
    return out
