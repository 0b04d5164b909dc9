"""The meta-game of a tournament: which mix of strategies no single strategy can exploit.

A round-robin tournament (analysis.tournament) gives a win-rate matrix ``W``: ``W[i, j]`` is the
share of games strategy i won against strategy j, and ``W[i, j] + W[j, i] = 1`` (every game
has one winner, one of the two). Choosing a strategy to bring against an unknown field is then
a symmetric two-player constant-sum game. Its Nash equilibrium is the mix ``x`` of strategies
that wins at least half its games against every strategy: ranking by rating cannot show a
cycle (A beats B beats C beats A), the equilibrium mix can (issue 13).

The game is solved as the zero-sum game with payoff **win rate minus the fair share 1/2**,
taken as the antisymmetric part ``P = (W - W^T) / 2`` of the matrix, which equals ``W - 1/2``
for a constant-sum matrix and ignores the diagonal (a strategy is not played against itself;
by symmetry it would win half). ``P`` is antisymmetric, so the game's value is 0 and the
maximin mix of the row player is a symmetric equilibrium. It is found by linear programming
(``scipy.optimize.linprog``, HiGHS): maximise ``v`` subject to ``sum_i x_i P[i, j] >= v`` for
every column j, ``sum x = 1``, ``x >= 0``. Where several mixes are equilibria (ties), the solver
returns one vertex of that set.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import polars as pl
from scipy.optimize import linprog

# Weights at or below this are numerical zeros of the solver, not part of the mix.
SUPPORT_TOL = 1e-9
# How far W[i, j] + W[j, i] may be from 1 before the matrix is refused as not constant-sum.
CONSTANT_SUM_TOL = 1e-6


@dataclass(frozen=True)
class Equilibrium:
    """A Nash equilibrium mix of the meta-game (:func:`equilibrium`).

    ``mix``: weight per strategy (sums to 1). ``support``: the strategies with weight above
    :data:`SUPPORT_TOL`, in matrix order. ``value``: the mix's guaranteed payoff, win rate minus
    1/2 (0 up to solver precision: the game is symmetric). ``regret``: per strategy, ``value``
    minus that strategy's payoff against the mix, i.e. how much win rate it gives up against
    the equilibrium field; >= 0 for all, 0 on the support.
    """

    strategies: tuple[str, ...]
    mix: dict[str, float]
    support: tuple[str, ...]
    value: float
    regret: dict[str, float]

    def frame(self) -> pl.DataFrame:
        """One row per strategy: strategy, weight, regret, in_support."""
        return pl.DataFrame(
            {
                "strategy": list(self.strategies),
                "weight": [self.mix[s] for s in self.strategies],
                "regret": [self.regret[s] for s in self.strategies],
                "in_support": [s in self.support for s in self.strategies],
            }
        )


def win_rate_array(
    win_rates: np.ndarray | pd.DataFrame | pl.DataFrame, strategies: Sequence[str] | None = None
) -> tuple[np.ndarray, tuple[str, ...]]:
    """The square win-rate matrix and its strategy names from any of the accepted inputs:

    * a polars DataFrame in the long form of :func:`analysis.tournament.win_matrix` (columns
      ``strategy``, ``opponent``, ``win_rate``; one row per ordered pair, no diagonal);
    * a polars DataFrame in wide form: a ``strategy`` column and one column per opponent;
    * a pandas DataFrame in wide form: rows and columns labelled by strategy;
    * a numpy array (e.g. :func:`analysis.tournament.wide_matrix`, NaN diagonal).

    ``strategies`` gives the order (and, for a numpy array, the names; default "0", "1", ...);
    by default a frame's own order is kept.
    """
    if isinstance(win_rates, pl.DataFrame):
        if {"strategy", "opponent", "win_rate"} <= set(win_rates.columns):
            names = strategies or list(dict.fromkeys([*win_rates["strategy"], *win_rates["opponent"]]))
            index = {s: i for i, s in enumerate(names)}
            unknown = sorted({*win_rates["strategy"], *win_rates["opponent"]} - set(index))
            if unknown:
                raise ValueError(f"win-rate matrix: {', '.join(unknown)} not among the strategies given")
            m = np.full((len(names), len(names)), np.nan)
            for s, o, w in win_rates.select("strategy", "opponent", "win_rate").iter_rows():
                m[index[s], index[o]] = w
            return m, tuple(map(str, names))
        if "strategy" not in win_rates.columns:
            raise ValueError("a polars win-rate matrix needs a 'strategy' column (wide or long form)")
        win_rates = win_rates.to_pandas().set_index("strategy")
    if isinstance(win_rates, pd.DataFrame):
        names = list(strategies) if strategies is not None else [str(s) for s in win_rates.index]
        wide = win_rates.rename(index=str, columns=str)
        missing = sorted(set(names) - set(wide.index) | set(names) - set(wide.columns))
        if missing:
            raise ValueError(f"win-rate matrix: no row or column for {', '.join(missing)}")
        return wide.loc[names, names].to_numpy(dtype=np.float64), tuple(names)
    m = np.asarray(win_rates, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"win-rate matrix: expected a square matrix, got shape {m.shape}")
    names = list(strategies) if strategies is not None else [str(i) for i in range(len(m))]
    if len(names) != len(m):
        raise ValueError(f"win-rate matrix: {len(m)} rows but {len(names)} strategy names")
    return m, tuple(map(str, names))


def payoff_matrix(w: np.ndarray) -> np.ndarray:
    """The zero-sum payoff, win rate minus the fair share 1/2, as ``(W - W^T) / 2``. Refuses
    (ValueError) a pair that was not played (NaN off the diagonal) and a matrix that is not
    constant-sum (``W[i, j] + W[j, i]`` not 1: e.g. counts of wins, or shares of 3-player games)."""
    off = ~np.eye(len(w), dtype=bool)
    if np.isnan(w[off]).any():
        i, j = np.argwhere(np.isnan(w) & off)[0]
        raise ValueError(f"win-rate matrix: no win rate for pair ({i}, {j})")
    total = (w + w.T)[off]
    if total.size and np.abs(total - 1.0).max() > CONSTANT_SUM_TOL:
        raise ValueError(
            "win-rate matrix: W[i, j] + W[j, i] must be 1 (a two-strategy game has one winner); "
            f"found {total[np.argmax(np.abs(total - 1.0))]:.6g}"
        )
    d = np.where(off, w, 0.5)
    return (d - d.T) / 2.0


def equilibrium(
    win_rates: np.ndarray | pd.DataFrame | pl.DataFrame, strategies: Sequence[str] | None = None
) -> Equilibrium:
    """A Nash equilibrium of the symmetric constant-sum meta-game given by a win-rate matrix
    (row strategy's win rate against column strategy; see :func:`win_rate_array` for the
    accepted forms, including :func:`analysis.tournament.win_matrix`'s table as it is)."""
    w, names = win_rate_array(win_rates, strategies)
    p = payoff_matrix(w)
    k = len(names)
    if k == 0:
        raise ValueError("win-rate matrix: no strategies")
    # Variables (x_1..x_k, v); linprog minimises, so the objective is -v.
    c = np.zeros(k + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-p.T, np.ones((k, 1))])  # v - sum_i x_i P[i, j] <= 0 for every column j
    a_eq = np.hstack([np.ones((1, k)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * k + [(None, None)]
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(k), A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs")
    if not res.success:  # a finite matrix game always has a solution; this is the solver failing
        raise RuntimeError(f"equilibrium: linear program failed: {res.message}")
    x = np.clip(res.x[:k], 0.0, None)
    x[x <= SUPPORT_TOL] = 0.0  # solver dust is not a strategy to play
    x /= x.sum()
    value = float(res.x[-1])
    # Regret of i: value minus i's payoff against the mix. Clipped at 0 only for solver
    # rounding (~1e-12): an equilibrium has no strategy that beats its own value.
    regret = np.maximum(value - p @ x, 0.0)
    support = tuple(n for n, xi in zip(names, x, strict=True) if xi > SUPPORT_TOL)
    return Equilibrium(
        strategies=names,
        mix=dict(zip(names, map(float, x), strict=True)),
        support=support,
        value=value,
        regret=dict(zip(names, map(float, regret), strict=True)),
    )
