"""analysis.equilibrium: the Nash mix of the tournament's meta-game on games with known answers
(rock-paper-scissors, dominated and dominant strategies), a property test on random symmetric
constant-sum games, and the tournament's own win-rate tables as input (issue 13)."""

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra.numpy import arrays

from analysis.equilibrium import equilibrium, payoff_matrix, win_rate_array
from analysis.tournament import wide_matrix, win_matrix

RPS = np.array([[0.5, 0.0, 1.0], [1.0, 0.5, 0.0], [0.0, 1.0, 0.5]])  # row beats column: 1


def test_rock_paper_scissors_is_the_uniform_mix_with_value_0_and_no_regret():
    eq = equilibrium(RPS, ["rock", "paper", "scissors"])
    assert list(eq.mix.values()) == pytest.approx([1 / 3] * 3, abs=1e-9)
    assert eq.value == pytest.approx(0.0, abs=1e-12)
    assert list(eq.regret.values()) == pytest.approx([0.0] * 3, abs=1e-9)
    assert eq.support == ("rock", "paper", "scissors")


def test_a_strictly_dominated_strategy_gets_no_weight_and_positive_regret():
    # Rock-paper-scissors plus "sponge", which loses 60:40 to each of them: strictly dominated.
    w = np.full((4, 4), 0.5)
    w[:3, :3] = RPS
    w[3, :3], w[:3, 3] = 0.4, 0.6
    eq = equilibrium(w, ["rock", "paper", "scissors", "sponge"])
    assert eq.mix["sponge"] == 0.0 and "sponge" not in eq.support
    assert eq.regret["sponge"] == pytest.approx(0.1, abs=1e-9)  # it wins 40%, the mix holds 50%
    assert [eq.mix[s] for s in ("rock", "paper", "scissors")] == pytest.approx([1 / 3] * 3, abs=1e-9)
    assert all(eq.regret[s] == pytest.approx(0.0, abs=1e-9) for s in eq.support)


def test_a_dominant_strategy_is_played_alone():
    # "best" beats everyone; the others form a cycle among themselves.
    w = np.array(
        [
            [0.5, 0.55, 0.7, 0.9],
            [0.45, 0.5, 0.8, 0.3],
            [0.3, 0.2, 0.5, 0.6],
            [0.1, 0.7, 0.4, 0.5],
        ]
    )
    eq = equilibrium(w, ["best", "b", "c", "d"])
    assert eq.mix["best"] == 1.0 and eq.support == ("best",)
    assert eq.value == pytest.approx(0.0, abs=1e-12)
    # Against a field of "best" each other strategy gives up its shortfall from 50%.
    assert [eq.regret[s] for s in ("b", "c", "d")] == pytest.approx([0.05, 0.2, 0.4])
    frame = eq.frame()
    assert frame["weight"].sum() == pytest.approx(1.0) and frame["in_support"].to_list() == [1, 0, 0, 0]


@settings(max_examples=60, deadline=None)
@given(
    hs.integers(2, 7).flatmap(
        lambda k: arrays(np.float64, (k, k), elements=hs.floats(0.0, 1.0, allow_nan=False))
    )
)
def test_the_mix_gets_at_least_the_value_against_every_pure_strategy(raw):
    """A random symmetric constant-sum game, W = 1/2 + (antisymmetric part of a random matrix):
    the mix's payoff against every pure strategy is at least the value (which is 0), and the
    regrets are >= 0, 0 on the support."""
    a = (raw - raw.T) / 2  # antisymmetric, entries in [-1/2, 1/2]
    w = 0.5 + a
    eq = equilibrium(w)
    x = np.array([eq.mix[s] for s in eq.strategies])
    assert x.sum() == pytest.approx(1.0) and (x >= 0).all()
    assert eq.value == pytest.approx(0.0, abs=1e-9)
    assert (x @ a >= eq.value - 1e-9).all()  # the column player's every pure answer
    regret = np.array([eq.regret[s] for s in eq.strategies])
    assert (regret >= 0).all()
    assert all(eq.regret[s] <= 1e-9 for s in eq.support)


def _tournament_pairs() -> tuple[pl.DataFrame, list[str]]:
    """Pairs as analysis.tournament builds them (a, b, games, a_wins): a cycle of 70:30 among
    a, b, c and a strategy d that every one of them beats 60:40."""
    games = 1000
    beats = {
        ("a", "b"): 0.7,
        ("b", "c"): 0.7,
        ("a", "c"): 0.3,
        ("a", "d"): 0.6,
        ("b", "d"): 0.6,
        ("c", "d"): 0.6,
    }
    rows = [{"a": x, "b": y, "games": games, "a_wins": round(p * games)} for (x, y), p in beats.items()]
    return pl.DataFrame(rows), ["a", "b", "c", "d"]


def test_the_tournament_win_matrix_is_accepted_as_it_is():
    pairs, names = _tournament_pairs()
    matrix = win_matrix(pairs, names)  # long form, no diagonal
    eq = equilibrium(matrix, names)
    assert [eq.mix[s] for s in names] == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0.0], abs=1e-9)
    assert eq.regret["d"] == pytest.approx(0.1, abs=1e-9)
    # The same matrix as tournament.wide_matrix's array (NaN diagonal), as pandas and wide polars.
    wide = wide_matrix(matrix, names)
    for form in (
        wide,
        pd.DataFrame(wide, index=names, columns=names),
        pl.DataFrame({"strategy": names, **{s: wide[:, j] for j, s in enumerate(names)}}),
    ):
        other = equilibrium(form, names if isinstance(form, np.ndarray) else None)
        assert other.strategies == tuple(names)
        assert [other.mix[s] for s in names] == pytest.approx([eq.mix[s] for s in names], abs=1e-12)
    # Without names the long form keeps the order in which strategies first appear.
    assert win_rate_array(matrix)[1] == tuple(names)


def test_pandas_columns_are_aligned_to_the_rows():
    names = ["rock", "paper", "scissors"]
    df = pd.DataFrame(RPS, index=names, columns=names)[["scissors", "rock", "paper"]]
    assert np.array_equal(win_rate_array(df)[0], RPS)


def test_inputs_that_are_not_a_constant_sum_win_rate_matrix_are_refused():
    with pytest.raises(ValueError, match="must be 1"):
        equilibrium(np.array([[0.0, 30.0], [70.0, 0.0]]))  # counts of wins, not rates
    with pytest.raises(ValueError, match="no win rate"):
        equilibrium(np.array([[np.nan, np.nan], [0.5, np.nan]]))
    with pytest.raises(ValueError, match="square"):
        equilibrium(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="c not among"):
        equilibrium(win_matrix(*_tournament_pairs()), ["a", "b", "d"])
    with pytest.raises(ValueError, match="2 rows but 3"):
        equilibrium(np.full((2, 2), 0.5), ["a", "b", "c"])
    assert np.allclose(payoff_matrix(np.array([[np.nan, 0.8], [0.2, np.nan]])), [[0, 0.3], [-0.3, 0]])
