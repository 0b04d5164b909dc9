"""Confidence intervals for rates and for contrasts of rates (cluster-robust, per game)."""

import math

import numpy as np

# The two-sided 95% normal quantile, scipy.stats.norm.ppf(0.975) (tests/test_intervals.py checks it):
# a constant, so that `soup simulate`'s closing summary does not import scipy.stats (~1 s, issue 36.3).
Z95 = 1.959963984540054
# Fewer rows than this on a side of a comparison: no test (the normal approximation fails).
MIN_ROWS = 30
# A within-strategy estimate that rests on a group smaller than this (holders or non-holders of
# one strategy) is flagged in the report: the group carries its strategy's whole weight, and at
# 200 players a win rate near 1/4 is known to about +-6 points, the size of the largest effects.
SMALL_GROUP = 200


def wilson(wins: np.ndarray | int, n: np.ndarray | int, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval (lower, upper) for ``wins`` successes in ``n`` trials.

    Unlike the normal approximation it stays inside [0, 1] and keeps close to nominal coverage
    for small n and rates near 0 or 1. n = 0 gives (0, 1).
    """
    wins = np.asarray(wins, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, wins / n, 0.0)
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        # Rounding can leave the bound a hair inside [0, 1] at 0 or n wins, or past the estimate:
        # the exact bounds there are 0 and 1, and an interval always contains its estimate.
        lo = np.where((n > 0) & (wins > 0), np.minimum(np.clip(centre - half, 0.0, 1.0), p), 0.0)
        hi = np.where((n > 0) & (wins < n), np.maximum(np.clip(centre + half, 0.0, 1.0), p), 1.0)
    return lo, hi


def two_sided_p(z: np.ndarray | float) -> np.ndarray:
    """Two-sided p-value of a standard-normal statistic, ``2 P(Z >= |z|)`` (NaN stays NaN)."""
    # erfc of |z|/sqrt(2), the upper tail itself, not 1 - cdf: p-values far below 1e-16 do not
    # round to 0 (the same figure as scipy.stats.norm.sf, without importing scipy: issue 36.3).
    z = np.abs(np.asarray(z, dtype=np.float64))
    return np.asarray(_erfc(z / math.sqrt(2.0)), dtype=np.float64)


_erfc = np.frompyfunc(math.erfc, 1, 1)


# A contrast that was not estimated (too few rows, no spread): every field NaN.
NO_CONTRAST: dict[str, float] = dict.fromkeys(("estimate", "se", "ci_low", "ci_high", "p_value"), math.nan)


def contrast_columns(c: dict[str, float], estimate: str, low: str, high: str, p: str) -> dict[str, float]:
    """A :func:`cluster_contrast` result as table columns under the given names."""
    return {estimate: c["estimate"], low: c["ci_low"], high: c["ci_high"], p: c["p_value"]}


def cluster_contrast(
    y: np.ndarray,
    group: np.ndarray,
    weights: np.ndarray,
    cluster: np.ndarray,
    z: float = Z95,
    row_weights: np.ndarray | None = None,
) -> dict[str, float]:
    """A linear contrast of group means, ``sum_k weights[k] * mean(y | group == k)``, with a
    cluster-robust (sandwich) standard error, its 95% normal interval and two-sided p-value.

    Rows of one game are not independent (a game has exactly one winner), and a paired
    experiment plays the same game under two rule sets, so the unit of independence is the
    cluster (the game), not the row. Each group mean is a ratio estimator sum(y)/count; its
    linearisation per cluster, ``(S_kc - mean_k * N_kc) / N_k``, gives the variance
    ``C/(C-1) * sum_c (sum_k w_k u_kc)^2``. The difference of two groups is ``weights=[1, -1]``;
    the interaction of two binary factors is ``[1, -1, -1, 1]``. Rows with ``group < 0`` are
    ignored. A group without rows gives NaN; so does a non-zero estimate with no spread (no
    interval or p-value can be had from it). Callers also skip groups under :data:`MIN_ROWS`.

    ``row_weights`` (one per row, >= 0; e.g. the importance weights of ``soup report
    --equilibrium``) make each group mean the weighted mean ``sum(r y) / sum(r)``: the same ratio
    estimator with ``S_kc = sum r y`` and ``N_kc = sum r`` over the cluster's rows, the weights
    taken as fixed. Rows of weight 0 are left out (they neither count nor add a cluster). All
    weights 1 give exactly the unweighted result.
    """
    y = np.asarray(y, dtype=np.float64)
    group = np.asarray(group, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.float64)
    keep = group >= 0
    if row_weights is not None:
        row_weights = np.asarray(row_weights, dtype=np.float64)
        if (row_weights < 0).any() or not np.isfinite(row_weights).all():
            raise ValueError("row_weights: expected finite weights >= 0")
        keep &= row_weights > 0
        row_weights = row_weights[keep]
    y, group, cluster = y[keep], group[keep], np.asarray(cluster)[keep]
    k = len(weights)
    _, c = np.unique(cluster, return_inverse=True)
    n_clusters = int(c.max()) + 1 if len(c) else 0
    idx = c * k + group
    if row_weights is None:
        sums = np.bincount(idx, weights=y, minlength=n_clusters * k).reshape(n_clusters, k)
        counts = np.bincount(idx, minlength=n_clusters * k).reshape(n_clusters, k).astype(np.float64)
    else:
        sums = np.bincount(idx, weights=y * row_weights, minlength=n_clusters * k).reshape(n_clusters, k)
        counts = np.bincount(idx, weights=row_weights, minlength=n_clusters * k).reshape(n_clusters, k)
    total_n = counts.sum(axis=0)
    if n_clusters < 2 or (total_n[weights != 0] == 0).any():
        return dict(NO_CONTRAST)  # a fresh dict: callers add their own fields
    means = sums.sum(axis=0) / np.where(total_n > 0, total_n, 1.0)
    estimate = float(weights @ means)
    with np.errstate(invalid="ignore", divide="ignore"):
        u = np.where(total_n > 0, (sums - means * counts) / total_n, 0.0) @ weights
    return contrast_result(estimate, math.sqrt(n_clusters / (n_clusters - 1) * float(u @ u)), z)


def contrast_result(estimate: float, se: float, z: float = Z95) -> dict[str, float]:
    """A contrast's fields from its estimate and standard error (:func:`cluster_contrast`; also
    analysis.ursuppe.streamed's, from sums): the interval ``estimate +- z se`` and the p-value."""
    if se == 0 and estimate != 0:
        # No spread (e.g. 2 of 2 against 0 of 4): the normal approximation says nothing.
        return NO_CONTRAST | {"estimate": estimate}
    p = float(two_sided_p(estimate / se)) if se > 0 else 1.0  # identical arms: no difference
    return {
        "estimate": estimate,
        "se": se,
        "ci_low": estimate - z * se,
        "ci_high": estimate + z * se,
        "p_value": p,
    }


def cluster_wilson(
    y: np.ndarray, cluster: np.ndarray, z: float = Z95, row_weights: np.ndarray | None = None
) -> tuple[float, float, float]:
    """Wilson interval (lower, upper) for the share of 0/1 rows ``y`` when rows of one cluster
    (game) are correlated, and the design effect (issue 13, point 3).

    The variance is :func:`cluster_contrast`'s cluster-robust one (the share is the mean of a
    single group). It enters the Wilson interval through the effective sample size
    ``n_eff = p (1 - p) / se^2`` (Kish): ``n / n_eff`` is the design effect, above 1 when the
    players of a game tend to decide alike, below 1 when they crowd each other out. Wilson on
    ``n_eff`` keeps what Wilson is for (bounds inside [0, 1], usable near rates of 0 or 1) while
    its width follows the games, not the rows. Where the cluster-robust variance is 0 or
    undefined (no buyer, every row a buyer, fewer than 2 games, or every game the same share)
    the correlation cannot be estimated and the plain Wilson interval on ``n`` rows is given,
    with design effect 1. Empty input gives (0, 1) and NaN.

    ``row_weights``: the share is the weighted mean (:func:`cluster_contrast`'s ``row_weights``)
    and ``n`` the rows of positive weight; ``n_eff`` then also carries the loss from unequal
    weights (Kish), so the design effect includes it.
    """
    y = np.asarray(y, dtype=np.float64)
    if row_weights is not None:
        row_weights = np.asarray(row_weights, dtype=np.float64)
    n = len(y) if row_weights is None else int((row_weights > 0).sum())
    if n == 0:
        return 0.0, 1.0, math.nan
    c = cluster_contrast(y, np.zeros(len(y), np.int64), np.array([1.0]), cluster, z, row_weights)
    p = float(y.mean()) if row_weights is None else float(y @ row_weights / row_weights.sum())
    se = c["se"]
    n_eff = p * (1.0 - p) / se**2 if se > 0 and 0.0 < p < 1.0 else float(n)
    lo, hi = wilson(p * n_eff, n_eff, z)
    return float(lo), float(hi), n / n_eff
