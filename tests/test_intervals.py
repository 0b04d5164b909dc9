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


# --- cluster_contrast with row weights (soup report --equilibrium) ---------------------------


def _games(rng, n_games, players=4):
    """Synthetic games: each has one winner among its players; strategy 0 or 1 per row."""
    cluster = np.repeat(np.arange(n_games), players)
    strategy = rng.integers(0, 2, len(cluster))
    strength = np.where(strategy == 0, 2.0, 1.0)
    won = np.zeros(len(cluster))
    for g in range(n_games):
        s = slice(g * players, (g + 1) * players)
        won[g * players + rng.choice(players, p=strength[s] / strength[s].sum())] = 1.0
    return won, strategy, cluster


def test_equal_row_weights_reproduce_the_unweighted_numbers_exactly():
    from analysis.intervals import cluster_contrast, cluster_wilson

    won, strategy, cluster = _games(np.random.default_rng(1), 300)
    ones = np.ones(len(won))
    one_group = np.zeros(len(won), np.int64)
    for group, weights in ((strategy, np.array([1.0, -1.0])), (one_group, np.array([1.0]))):
        assert cluster_contrast(won, group, weights, cluster, row_weights=ones) == cluster_contrast(
            won, group, weights, cluster
        )
    assert cluster_wilson(won, cluster, row_weights=ones) == cluster_wilson(won, cluster)


def test_integer_row_weights_equal_repeated_rows_in_the_same_game():
    from analysis.intervals import cluster_contrast

    won, strategy, cluster = _games(np.random.default_rng(2), 200)
    r = np.where(strategy == 0, 3, 1)
    weighted = cluster_contrast(won, strategy, np.array([1.0, -1.0]), cluster, row_weights=r.astype(float))
    rep = np.repeat(np.arange(len(won)), r)
    repeated = cluster_contrast(won[rep], strategy[rep], np.array([1.0, -1.0]), cluster[rep])
    for key in ("estimate", "se", "p_value"):
        assert weighted[key] == pytest.approx(repeated[key], rel=1e-12)
    # Weight 0 drops a row: the same as leaving it out.
    zero = np.where(strategy == 1, 0.0, 1.0)
    dropped = cluster_contrast(won, np.zeros(len(won), np.int64), np.array([1.0]), cluster, row_weights=zero)
    kept = strategy == 0
    plain = cluster_contrast(won[kept], np.zeros(kept.sum(), np.int64), np.array([1.0]), cluster[kept])
    assert dropped == plain


def test_weighted_mean_interval_covers_about_95_percent():
    # The mix-weighted win rate 0.7 * rate(strategy 0) + 0.3 * rate(strategy 1), weighting rows of
    # a 50:50 run by 0.7/0.5 and 0.3/0.5; the truth from a large simulation of the same games.
    from analysis.intervals import cluster_contrast

    rng = np.random.default_rng(3)
    won, strategy, cluster = _games(rng, 40_000)
    truth = 0.7 * won[strategy == 0].mean() + 0.3 * won[strategy == 1].mean()
    hits, reps = 0, 300
    for _ in range(reps):
        w, s, c = _games(rng, 200)
        share0 = (s == 0).mean()
        r = np.where(s == 0, 0.7 / share0, 0.3 / (1 - share0))
        ci = cluster_contrast(w, np.zeros(len(w), np.int64), np.array([1.0]), c, row_weights=r)
        hits += ci["ci_low"] <= truth <= ci["ci_high"]
    assert 0.91 <= hits / reps <= 0.985


def test_normal_quantile_and_tail_agree_with_scipy():
    """Z95 and two_sided_p are written without scipy (soup simulate's summary must not import
    scipy.stats, issue 36.3): the same figures as scipy's normal distribution, tails included."""
    from analysis.intervals import Z95, two_sided_p

    assert Z95 == pytest.approx(stats.norm.ppf(0.975), rel=1e-15)
    z = np.array([0.0, 0.3, -1.0, 1.96, 4.0, -9.0, 20.0, 37.0, np.inf])
    assert np.allclose(two_sided_p(z), 2 * stats.norm.sf(np.abs(z)), rtol=1e-12, atol=0)
    assert np.isnan(two_sided_p(np.nan)) and float(two_sided_p(0.0)) == 1.0
