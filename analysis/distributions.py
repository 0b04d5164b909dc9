"""Exact tail probabilities and quantiles of Student's t and the chi-square distribution.

scipy is not a dependency of soup, and the normal approximations that stand in for these are
anti-conservative exactly where it matters: a paired experiment of 20 games has 19 degrees of
freedom, not infinitely many, and a chi-square on 1 degree of freedom is far from normal. The
functions here are plain Python (math only), accurate to about 1e-12 relative error, and are
checked against closed forms and tabled values in tests/test_distributions.py.
"""

import math

_TINY = 1e-300
_EPS = 1e-15


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """Lentz's evaluation of the continued fraction of the incomplete beta function
    (Numerical Recipes, 3rd ed., 6.4); converges fast for ``x < (a + 1) / (a + b + 2)``."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"incomplete beta: no convergence for a={a}, b={b}, x={x}")


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function ``I_x(a, b)`` for ``a, b > 0`` and ``0 <= x <= 1``."""
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"betainc: x must lie in [0, 1], got {x}")
    if x == 0.0 or x == 1.0:
        return x
    log_front = a * math.log(x) + b * math.log1p(-x) - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    # The symmetry I_x(a, b) = 1 - I_{1-x}(b, a) keeps the continued fraction in its fast range.
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: float) -> float:
    """Two-sided p-value ``P(|T| >= |t|)`` of Student's t with ``df`` degrees of freedom:
    ``I_{df / (df + t^2)}(df / 2, 1 / 2)``. NaN for NaN input or ``df <= 0``."""
    if math.isnan(t) or not df > 0:
        return math.nan
    if math.isinf(t):
        return 0.0
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(prob: float, df: float) -> float:
    """The ``prob`` quantile of Student's t with ``df`` degrees of freedom (``0 < prob < 1``):
    bisection on :func:`t_two_sided_p`, which is monotone, to double precision."""
    if not 0.0 < prob < 1.0:
        raise ValueError(f"t_quantile: prob must lie in (0, 1), got {prob}")
    if not df > 0:
        return math.nan
    if prob == 0.5:
        return 0.0
    tail = 2.0 * min(prob, 1.0 - prob)  # the two-sided p-value of the quantile
    lo, hi = 0.0, 1.0
    while t_two_sided_p(hi, df) > tail:
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_two_sided_p(mid, df) > tail:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-14 * hi:
            break
    q = 0.5 * (lo + hi)
    return q if prob > 0.5 else -q


def chi2_sf(x: float, df: int) -> float:
    """Upper tail ``P(X >= x)`` of the chi-square distribution with an integer ``df >= 1``: the
    regularized upper incomplete gamma ``Q(df / 2, x / 2)`` in closed form. Even df: a Poisson
    sum, ``exp(-x/2) sum_{i<df/2} (x/2)^i / i!``; odd df: ``erfc(sqrt(x/2))`` plus
    ``exp(-x/2) sum_{i=1}^{(df-1)/2} (x/2)^(i-1/2) / Gamma(i+1/2)``. The terms are summed in
    log space, so large ``x`` and ``df`` neither overflow nor lose the tail."""
    if int(df) != df or df < 1:
        raise ValueError(f"chi2_sf: df must be a positive integer, got {df}")
    if math.isnan(x):
        return math.nan
    if x <= 0.0:
        return 1.0
    df = int(df)
    h = x / 2.0
    log_h = math.log(h)
    if df % 2 == 0:
        total = sum(math.exp(-h + i * log_h - math.lgamma(i + 1)) for i in range(df // 2))
    else:
        total = math.erfc(math.sqrt(h)) + sum(
            math.exp(-h + (i - 0.5) * log_h - math.lgamma(i + 0.5)) for i in range(1, (df - 1) // 2 + 1)
        )
    return min(1.0, total)


def binomial_two_sided_p(k: int, n: int) -> float:
    """Exact two-sided p-value of ``k`` successes in ``n`` fair coin flips (the sign test):
    ``min(1, 2 P(X <= min(k, n - k)))`` for ``X ~ Bin(n, 1/2)``, which is symmetric, so doubling
    one tail is the usual two-sided p. Summed with integer binomial coefficients, so exact up to
    the final division. 1 for ``n = 0``."""
    if not 0 <= k <= n:
        raise ValueError(f"binomial_two_sided_p: need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 1.0
    low = min(k, n - k)
    tail = sum(math.comb(n, i) for i in range(low + 1))
    return min(1.0, 2 * tail / 2**n)
