"""Exact tail probabilities and quantiles of Student's t, chi-square and the binomial sign test.

The normal approximations that could stand in for these are anti-conservative exactly where it
matters: a paired experiment of 20 games has 19 degrees of freedom, not infinitely many, and a
chi-square on 1 degree of freedom is far from normal. The numerics are scipy's (issue 13,
point 5: they replaced a hand-written incomplete beta continued fraction, a bisection quantile
and closed-form chi-square sums); these thin wrappers keep the names, scalar signatures and edge
cases (NaN, infinite t, non-integer df refused) that analysis.ursuppe.paired and analysis.tournament
rely on, and tests/test_distributions.py still checks them against closed forms and tables.
"""

import math

from scipy import special, stats


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function ``I_x(a, b)`` for ``a, b > 0`` and ``0 <= x <= 1``
    (``scipy.special.betainc``); an ``x`` outside [0, 1] is a ValueError, not scipy's NaN."""
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"betainc: x must lie in [0, 1], got {x}")
    return float(special.betainc(a, b, x))


def t_two_sided_p(t: float, df: float) -> float:
    """Two-sided p-value ``P(|T| >= |t|)`` of Student's t with ``df`` degrees of freedom.
    NaN for NaN input or ``df <= 0``."""
    if math.isnan(t) or not df > 0:
        return math.nan
    # 2 sf(|t|), not 1 - cdf: the upper tail keeps p-values like 1e-209 instead of rounding to 0.
    return float(2.0 * stats.t.sf(abs(t), df))


def t_quantile(prob: float, df: float) -> float:
    """The ``prob`` quantile of Student's t with ``df`` degrees of freedom (``0 < prob < 1``);
    NaN for ``df <= 0``."""
    if not 0.0 < prob < 1.0:
        raise ValueError(f"t_quantile: prob must lie in (0, 1), got {prob}")
    if not df > 0:
        return math.nan
    return float(stats.t.ppf(prob, df))


def chi2_sf(x: float, df: int) -> float:
    """Upper tail ``P(X >= x)`` of the chi-square distribution with an integer ``df >= 1``.
    A non-integer df is refused (ValueError): every caller counts degrees of freedom, so a
    fractional one is a bug, not a request for the gamma family."""
    if int(df) != df or df < 1:
        raise ValueError(f"chi2_sf: df must be a positive integer, got {df}")
    if math.isnan(x):
        return math.nan
    if x <= 0.0:
        return 1.0
    return float(stats.chi2.sf(x, int(df)))


def binomial_two_sided_p(k: int, n: int) -> float:
    """Exact two-sided p-value of ``k`` successes in ``n`` fair coin flips (the sign test of
    analysis.ursuppe.paired): ``scipy.stats.binomtest(k, n, 1/2)``, which for the symmetric Bin(n, 1/2)
    is ``min(1, 2 P(X <= min(k, n - k)))``. 1 for ``n = 0`` (no discordant games, no evidence)."""
    if not 0 <= k <= n:
        raise ValueError(f"binomial_two_sided_p: need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 1.0
    return float(stats.binomtest(k, n, 0.5).pvalue)
