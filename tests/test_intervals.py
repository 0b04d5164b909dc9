"""The Wilson interval printed by `soup simulate`: known values and coverage on synthetic data."""

import numpy as np
import pytest
from scipy import stats

from analysis.intervals import wilson


def test_known_values():
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson(0, 20)
    assert lo == 0.0 and hi == pytest.approx(0.1611, abs=1e-4)
    lo, hi = wilson(0, 0)
    assert (lo, hi) == (0.0, 1.0)


def test_interval_contains_its_estimate_and_is_exact_at_the_ends():
    n = np.repeat(np.arange(1, 201), 201)
    wins = np.tile(np.arange(201), 200)
    keep = wins <= n
    n, wins = n[keep], wins[keep]
    lo, hi = wilson(wins, n)
    assert ((lo <= wins / n) & (wins / n <= hi)).all()
    assert (lo[wins == 0] == 0).all() and (hi[wins == n] == 1).all()


@pytest.mark.parametrize("p", [0.05, 0.25, 0.5])
@pytest.mark.parametrize("n", [30, 400])
def test_coverage_close_to_95_percent(p, n):
    rng = np.random.default_rng(12345)
    wins = rng.binomial(n, p, size=20_000)
    lo, hi = wilson(wins, np.full(wins.shape, n))
    coverage = ((lo <= p) & (p <= hi)).mean()
    assert 0.925 <= coverage <= 0.975, coverage


def test_agrees_with_scipys_wilson_interval():
    """The vectorised Wilson interval is kept (scipy's is one count at a time) but must give
    scipy.stats.binomtest's "wilson" interval (issue 13.5)."""
    for n in (1, 7, 30, 400):
        for wins in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            lo, hi = wilson(wins, n)
            ci = stats.binomtest(wins, n).proportion_ci(method="wilson")
            assert (float(lo), float(hi)) == pytest.approx((ci.low, ci.high), abs=1e-12)
