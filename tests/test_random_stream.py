"""The counter-based random streams (§0: a game is a pure function of its inputs)."""

import numba
import numpy as np

from sim.random_stream import below, seed_streams


@numba.njit  # not a kernel: it allocates its result (kernels compile without numba's runtime)
def _draw(key, ctr, g, s, n, count):
    out = np.empty(count, np.int64)
    for i in range(count):
        out[i] = below(key, ctr, g, s, n)
    return out


def test_same_key_same_draws_whatever_the_batch():
    key_a, ctr_a = seed_streams(7, np.arange(10), 3)
    key_b, ctr_b = seed_streams(7, np.array([5]), 3)
    assert np.array_equal(_draw(key_a, ctr_a, 5, 1, 6, 100), _draw(key_b, ctr_b, 0, 1, 6, 100))


def test_streams_and_seeds_differ():
    key, ctr = seed_streams(7, np.arange(2), 3)
    a = _draw(key, ctr, 0, 0, 1000, 50)
    b = _draw(key, ctr, 0, 1, 1000, 50)
    c = _draw(key, ctr, 1, 0, 1000, 50)
    key2, ctr2 = seed_streams(8, np.arange(2), 3)
    d = _draw(key2, ctr2, 0, 0, 1000, 50)
    assert len({tuple(a), tuple(b), tuple(c), tuple(d)}) == 4


def test_die_is_fair():
    """A d6 (§0): chi-square over 600,000 rolls well inside the 99.9% bound (20.5 for 5 df)."""
    key, ctr = seed_streams(1, np.arange(1), 3)
    rolls = _draw(key, ctr, 0, 1, 6, 600_000)
    counts = np.bincount(rolls, minlength=6)
    assert rolls.min() == 0 and rolls.max() == 5
    chi2 = ((counts - 100_000) ** 2 / 100_000).sum()
    assert chi2 < 20.5, counts


def test_below_covers_its_range_without_bias_for_odd_n():
    key, ctr = seed_streams(3, np.arange(1), 3)
    draws = _draw(key, ctr, 0, 2, 7, 70_000)
    counts = np.bincount(draws, minlength=7)
    assert counts.min() > 9_400 and counts.max() < 10_600
