"""Round-robin tournament of strategies: head-to-head win rates and Bradley-Terry ratings.

Every pair of strategies (A, B) plays its own games, half the seats A and half B (3 players:
alternating A,B,A and B,A,B tables, so both sit at equal numbers of seats), with rotated start
spaces. A game is one Bernoulli trial: did one of A's players win? (Exactly one player wins a
game, so it is A's or B's.) The pair's games are independent, so the share of games A won has
a Wilson interval.

The Bradley-Terry model explains all pairs at once: strategy i has a strength ``p_i > 0`` and
wins against j with probability ``p_i / (p_i + p_j)``. It is fit by maximum likelihood with
the MM algorithm of Hunter (2004, Ann. Statist. 32:384), ``p_i <- W_i / sum_j n_ij / (p_i +
p_j)``, and reported on an Elo-like scale ``400 * log10(p_i)`` (a difference of 400 points =
10:1 odds), centred on mean 0 or anchored at a chosen strategy. Standard errors come from the
Fisher information of ``theta = log p`` (its pseudo-inverse is the covariance under the
sum-to-zero constraint).
"""

import math
from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from analysis.distributions import chi2_sf
from analysis.intervals import Z95, wilson

ELO = 400.0 / math.log(10.0)  # rating points per unit of log-strength


def game_winners(rows: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """One row per game of a run: ``game`` and the ``winner`` strategy (result schema rows)."""
    lf = rows.lazy()  # a LazyFrame returns itself
    return (
        lf.filter(pl.col("won"))
        .select("game", pl.col("strategy").cast(pl.String).alias("winner"))
        .sort("game")
        .collect()
    )


def pair_counts(a: str, b: str, winners: pl.DataFrame) -> dict[str, object]:
    """``{"a", "b", "games", "a_wins"}`` of one pair's run from :func:`game_winners`."""
    names = set(winners["winner"].unique().to_list())
    if not names <= {a, b}:
        raise ValueError(f"pair {a} vs {b}: winners {sorted(names - {a, b})} are neither strategy")
    return {"a": a, "b": b, "games": winners.height, "a_wins": int((winners["winner"] == a).sum())}


def win_matrix(pairs: pl.DataFrame, strategies: list[str]) -> pl.DataFrame:
    """Long win-rate matrix from ``pairs`` (columns a, b, games, a_wins; one row per pair):
    one row per ordered pair (strategy, opponent) with games, wins, win_rate and its 95% Wilson
    interval. ``M[A, B] + M[B, A] = 1`` for every pair; the diagonal is not played and left out."""
    rows = []
    for r in pairs.iter_rows(named=True):
        rows.append((r["a"], r["b"], r["games"], r["a_wins"]))
        rows.append((r["b"], r["a"], r["games"], r["games"] - r["a_wins"]))
    df = pl.DataFrame(
        rows,
        schema={"strategy": pl.String, "opponent": pl.String, "games": pl.Int64, "wins": pl.Int64},
        orient="row",
    )
    lo, hi = wilson(df["wins"].to_numpy(), df["games"].to_numpy())
    order = {s: i for i, s in enumerate(strategies)}
    return (
        df.with_columns(
            (pl.col("wins") / pl.col("games")).alias("win_rate"),
            pl.Series("ci_low", lo),
            pl.Series("ci_high", hi),
        )
        .with_columns(
            pl.col("strategy").replace_strict(order, return_dtype=pl.Int64).alias("_i"),
            pl.col("opponent").replace_strict(order, return_dtype=pl.Int64).alias("_j"),
        )
        .sort("_i", "_j")
        .drop("_i", "_j")
    )


def wide_matrix(matrix: pl.DataFrame, strategies: list[str], value: str = "win_rate") -> np.ndarray:
    """``matrix[value]`` as a square array in ``strategies`` order (NaN on the diagonal)."""
    idx = {s: i for i, s in enumerate(strategies)}
    out = np.full((len(strategies), len(strategies)), np.nan)
    for r in matrix.iter_rows(named=True):
        out[idx[r["strategy"]], idx[r["opponent"]]] = r[value]
    return out


def bradley_terry(wins: np.ndarray, tol: float = 1e-10, max_iter: int = 100_000) -> np.ndarray:
    """Bradley-Terry maximum-likelihood strengths by Hunter's MM algorithm.

    ``wins[i, j]`` = games i won against j. Returns log-strengths ``theta`` with mean 0. The
    MLE exists when the comparison graph is strongly connected (every strategy has a win and a
    loss along some chain); otherwise use :func:`bt_ratings`'s ``prior`` pseudo-games.
    """
    w = np.asarray(wins, dtype=np.float64)
    n = w + w.T
    total = w.sum(axis=1)
    p = np.ones(len(w))
    for _ in range(max_iter):
        with np.errstate(divide="ignore", invalid="ignore"):
            denom = np.where(n > 0, n / (p[:, None] + p[None, :]), 0.0).sum(axis=1)
        new = total / denom
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(new - p) / new) < tol:
            p = new
            break
        p = new
    theta = np.log(p)
    return theta - theta.mean()


def bt_covariance(theta: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Covariance of the sum-to-zero log-strengths: pseudo-inverse of the Fisher information,
    ``I_ii = sum_j n_ij q_ij (1 - q_ij)``, ``I_ij = -n_ij q_ij (1 - q_ij)``, ``q_ij`` = P(i beats j)."""
    q = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    v = np.asarray(games, dtype=np.float64) * q * (1.0 - q)
    np.fill_diagonal(v, 0.0)
    info = np.diag(v.sum(axis=1)) - v
    return np.linalg.pinv(info)


def bt_ratings(
    pairs: pl.DataFrame, strategies: list[str], anchor: str | None = None, prior: float | None = None
) -> pl.DataFrame:
    """Bradley-Terry ratings of ``strategies`` from ``pairs`` (columns a, b, games, a_wins).

    ``rating`` is ``400 log10(strength)``: centred on mean 0, or 0 at ``anchor``. ``se`` and the
    95% interval come from the Fisher information (for an anchor: of the difference to it).
    ``prior`` adds that many pseudo-wins each way to every played pair; by default none, and
    0.5 only when some strategy never won or never lost (the MLE would be infinite), which the
    ``prior`` column reports. ``win_rate`` is the strategy's share of its head-to-head games won.
    """
    k = len(strategies)
    idx = {s: i for i, s in enumerate(strategies)}
    wins = np.zeros((k, k))
    for r in pairs.iter_rows(named=True):
        i, j = idx[r["a"]], idx[r["b"]]
        wins[i, j] += r["a_wins"]
        wins[j, i] += r["games"] - r["a_wins"]
    games = wins + wins.T
    if prior is None:
        prior = 0.5 if ((wins.sum(axis=1) == 0) | (wins.sum(axis=0) == 0)).any() else 0.0
    fit = wins + prior * (games > 0)
    theta = bradley_terry(fit)
    cov = bt_covariance(theta, fit + fit.T)
    if anchor is not None:
        if anchor not in idx:
            raise ValueError(f"--anchor: {anchor!r} is not one of {', '.join(strategies)}")
        r = idx[anchor]
        theta = theta - theta[r]
        var = np.diag(cov) + cov[r, r] - 2 * cov[:, r]
    else:
        var = np.diag(cov)
    rating = ELO * theta
    se = ELO * np.sqrt(np.clip(var, 0.0, None))
    played = games.sum(axis=1)
    return pl.DataFrame(
        {
            "strategy": strategies,
            "rating": rating,
            "se": se,
            "ci_low": rating - Z95 * se,
            "ci_high": rating + Z95 * se,
            "games": played.astype(np.int64),
            "wins": wins.sum(axis=1).astype(np.int64),
            "win_rate": np.where(played > 0, wins.sum(axis=1) / np.where(played > 0, played, 1), np.nan),
            "prior": np.full(k, float(prior)),
        }
    ).sort("rating", descending=True)


def bt_check(matrix: pl.DataFrame, ratings: pl.DataFrame) -> pl.DataFrame:
    """``matrix`` (from :func:`win_matrix`) with the Bradley-Terry ``bt_expected`` win rate of
    every ordered pair and the standardised residual ``bt_z = (wins - games q) / sqrt(games q (1 -
    q))``. Large residuals mean the one-number ratings miss something, e.g. rock-paper-scissors
    cycles (A beats B beats C beats A) that no ranking can express."""
    r = dict(zip(ratings["strategy"], ratings["rating"], strict=True))
    q = np.array(
        [expected_win_rate(r[a], r[b]) for a, b in zip(matrix["strategy"], matrix["opponent"], strict=True)]
    )
    n = matrix["games"].to_numpy().astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (matrix["wins"].to_numpy() - n * q) / np.sqrt(n * q * (1 - q))
    return matrix.with_columns(pl.Series("bt_expected", q), pl.Series("bt_z", z))


def bt_goodness_of_fit(checked: pl.DataFrame, strategies: int) -> dict[str, float]:
    """Pearson chi-square of the Bradley-Terry fit over the played pairs (each pair once), its
    degrees of freedom (pairs - strategies + 1) and its exact upper-tail p-value. (The
    Wilson-Hilferty cube-root approximation used before is poor at 1-2 df, the case of three
    strategies: at chi2 = 40 on 1 df it gave 1e-8 for 2.5e-10.)"""
    z = checked.filter(pl.col("strategy") < pl.col("opponent"))["bt_z"].to_numpy()
    chi2 = float(np.nansum(z * z))
    df = int(np.isfinite(z).sum()) - strategies + 1
    if df <= 0:
        return {"chi2": chi2, "df": df, "p_value": math.nan}
    return {"chi2": chi2, "df": df, "p_value": chi2_sf(chi2, df)}


def expected_win_rate(rating_a: float, rating_b: float) -> float:
    """P(A beats B) under Bradley-Terry on the Elo scale: ``1 / (1 + 10^((R_B - R_A) / 400))``."""
    return 1.0 / (1.0 + 10.0 ** ((rating_b - rating_a) / 400.0))


def heatmap_figure(matrix: pl.DataFrame, strategies: list[str], title: str = "") -> Figure:
    """The win-rate matrix as a heatmap (row strategy's share of games won vs column), built
    without pyplot like analysis.ursuppe.figures (no global figure state, no GUI backend)."""
    m = wide_matrix(matrix, strategies)
    k = len(strategies)
    fig = Figure(figsize=(1.2 * k + 2.5, 1.0 * k + 1.8))
    ax = fig.subplots()
    im = ax.imshow(m, cmap="RdBu_r", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(k), strategies, rotation=45, ha="right")
    ax.set_yticks(range(k), strategies)
    ax.set_xlabel("opponent")
    ax.set_ylabel("strategy")
    for i in range(k):
        for j in range(k):
            text = "—" if i == j else f"{m[i, j]:.2f}"
            dark = i != j and abs(m[i, j] - 0.5) > 0.3
            ax.text(j, i, text, ha="center", va="center", fontsize=9, color="white" if dark else "black")
    fig.colorbar(im, ax=ax, label="share of games won")
    ax.set_title(title or "Head-to-head win rate (row vs column)")
    return fig


def heatmap(matrix: pl.DataFrame, strategies: list[str], path: str | Path, title: str = "") -> None:
    """Save :func:`heatmap_figure` as a PNG, atomically (analysis.figure_files.save_atomic)."""
    from analysis.figure_files import save_atomic

    save_atomic(heatmap_figure(matrix, strategies, title), Path(path), dpi=120)
