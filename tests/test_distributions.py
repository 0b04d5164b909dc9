"""The t and chi-square tails of analysis.distributions against closed forms and tabled values
(independent of the scipy functions they wrap)."""

import math

import pytest

from analysis.distributions import betainc, binomial_two_sided_p, chi2_sf, t_quantile, t_two_sided_p

# Two-sided 95% quantiles t_{0.975, df} (any statistics table; scipy.stats.t.ppf).
T975 = {
    1: 12.706204736174698,
    2: 4.302652729749464,
    5: 2.5705818356363146,
    10: 2.2281388519862744,
    19: 2.093024054408263,
    30: 2.0422724563012373,
    100: 1.9839715184496334,
}


@pytest.mark.parametrize("df, q", sorted(T975.items()))
def test_t_quantile_matches_tables(df, q):
    assert t_quantile(0.975, df) == pytest.approx(q, rel=1e-9)
    assert t_quantile(0.025, df) == pytest.approx(-q, rel=1e-9)
    assert t_two_sided_p(q, df) == pytest.approx(0.05, rel=1e-9)


def test_t_tends_to_the_normal():
    assert t_quantile(0.975, 10**7) == pytest.approx(1.959963984540054, abs=1e-6)
    assert t_two_sided_p(1.959963984540054, 10**7) == pytest.approx(0.05, rel=1e-5)


@pytest.mark.parametrize("t", [0.0, 0.3, 1.0, 2.5, 10.0, 300.0])
def test_t_p_value_closed_forms(t):
    # df = 1 (Cauchy): 1 - 2/pi atan|t|; df = 2: 1 - |t| / sqrt(2 + t^2).
    assert t_two_sided_p(t, 1) == pytest.approx(1 - 2 / math.pi * math.atan(t), rel=1e-10, abs=1e-300)
    assert t_two_sided_p(-t, 2) == pytest.approx(1 - t / math.sqrt(2 + t * t), rel=1e-10, abs=1e-300)


def test_t_known_values_and_edges():
    # df = 5 in closed form: 1 - 2/pi (a + sin a cos a (1 + 2/3 cos^2 a)), a = atan(t / sqrt 5).
    a = math.atan(2.0 / math.sqrt(5))
    closed = 1 - 2 / math.pi * (a + math.sin(a) * math.cos(a) * (1 + 2 / 3 * math.cos(a) ** 2))
    assert t_two_sided_p(2.0, 5) == pytest.approx(closed, rel=1e-12)
    assert t_two_sided_p(math.inf, 3) == 0.0 and math.isnan(t_two_sided_p(math.nan, 3))
    assert 0 < t_two_sided_p(40.0, 999) < 1e-200  # tiny p-values stay positive and finite


def test_incomplete_beta_identities():
    assert betainc(3.0, 3.0, 0.5) == pytest.approx(0.5)  # symmetric
    assert betainc(1.0, 1.0, 0.3) == pytest.approx(0.3)  # uniform
    assert betainc(2.0, 1.0, 0.4) == pytest.approx(0.16)  # x^a for b = 1
    assert betainc(2.5, 4.0, 0.2) + betainc(4.0, 2.5, 0.8) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        betainc(1.0, 1.0, 1.5)


# Upper 5% points of the chi-square distribution.
CHI2_95 = {1: 3.841458820694124, 2: 5.991464547107979, 3: 7.814727903251178, 5: 11.070497693516351,
           15: 24.995790139728616, 30: 43.77297182574219}  # fmt: skip


@pytest.mark.parametrize("df, x", sorted(CHI2_95.items()))
def test_chi2_upper_tail_matches_tables(df, x):
    assert chi2_sf(x, df) == pytest.approx(0.05, rel=1e-9)


@pytest.mark.parametrize("x", [0.01, 0.5, 3.0, 20.0, 200.0])
def test_chi2_closed_forms(x):
    assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-12)
    assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12)
    assert chi2_sf(x, 4) == pytest.approx(math.exp(-x / 2) * (1 + x / 2), rel=1e-12)


def test_chi2_edges():
    assert chi2_sf(0.0, 3) == 1.0
    assert chi2_sf(1000.0, 1000) == pytest.approx(0.49405285, rel=1e-6)  # near the median: no overflow
    assert chi2_sf(1e5, 1000) == 0.0
    with pytest.raises(ValueError):
        chi2_sf(1.0, 1.5)


def test_binomial_sign_test_exact_values():
    """The sign test of analysis.ursuppe.paired: doubled binomial tails, exact fractions."""
    assert binomial_two_sided_p(4, 4) == binomial_two_sided_p(0, 4) == 2 / 16
    assert binomial_two_sided_p(5, 5) == 2 / 32
    assert binomial_two_sided_p(3, 4) == 10 / 16
    assert binomial_two_sided_p(2, 4) == binomial_two_sided_p(0, 0) == 1.0
    assert binomial_two_sided_p(1, 10) == pytest.approx(2 * 11 / 1024)
    # Large n against the normal approximation with continuity correction (z = 3.5 / 5).
    assert binomial_two_sided_p(46, 100) == pytest.approx(math.erfc(3.5 / 5 / math.sqrt(2)), abs=5e-3)
    with pytest.raises(ValueError):
        binomial_two_sided_p(5, 4)
