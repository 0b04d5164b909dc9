"""Statistics of ``soup combos`` (issue 14, point 6): gains and interactions of gifted genes.

Input: the per-game outcome of the gifted player in every arm (sim/ursuppe/combos.py): arm 0
the baseline (no gift), then the single genes and the pairs, every arm on the same games (common
random numbers). For game i, with ``y`` the gifted player's outcome (won 0/1, or final position):

- single gain of gene a: ``y_a - y_0``;
- pair gain of genes a, b: ``y_ab - y_0``;
- interaction: ``y_ab - y_a - y_b + y_0`` (the pair's gain minus the two single gains: 0 when
  the two genes add up, > 0 when together they are worth more than apart, a "killer combo").

Each is the mean over games of the per-game difference, with a paired 95% interval and
two-sided p-value from Student's t on n - 1 degrees of freedom (the games are independent; the
arms of one game are not, which is what the per-game difference accounts for). For won (0/1)
with fewer than analysis.paired.EXACT_BELOW games that changed, the p-value is the exact sign
test on them (analysis.paired.sign_flip_p). Benjamini-Hochberg q-values
(analysis.multiple_testing, scipy's false_discovery_control) are taken across all pairs (pair
gain and interaction each their own family) and across the singles.

The *log-odds interaction* reads the same four arms on the logit scale:
``logit(p_ab) - logit(p_a) - logit(p_b) + logit(p_0)`` (0 when each gene multiplies the odds of
winning by its own factor whatever the other). It is less bound by saturation than the
difference of win rates: with one gene a player winning 90% of its games can gain at most 10
points more, but its odds can still grow tenfold. The win rates are Haldane-Anscombe corrected
(``(wins + 0.5) / (n + 1)``, finite at 0 and 1), the interval is the delta method's on the
per-game vectors (so the arms' correlation, the common random numbers, is in it) with a normal
quantile, and BH runs across the pairs like the other families.

The *detectable effect* at a budget is the true difference that a test finds with 80% power
after the BH correction across the m pairs when it is the only real effect (then BH's first
threshold is 0.05/m, Bonferroni's): ``(z_{1-0.05/(2m)} + z_{0.8}) * sd / sqrt(n)`` with sd the
median standard deviation of the per-game differences over the pairs.

The observational view (:func:`observed_pairs`) reads normal market games (no gift): per pair,
the win rate of the players who held both at the end, and its *lift over chance*, P * win rate
(1 = as often as a random player), with a cluster-robust (game) Wilson interval.
"""

import math
from pathlib import Path

import matplotlib
import numpy as np
import polars as pl
from matplotlib.figure import Figure
from scipy import stats

from analysis.distributions import t_quantile, t_two_sided_p
from analysis.intervals import cluster_wilson
from analysis.multiple_testing import benjamini_hochberg
from analysis.paired import EXACT_BELOW, sign_flip_p
from analysis.tables import markdown_table
from sim.ursuppe.genes import GENE_NAMES

ALPHA = 0.05
POWER = 0.8
KIND_SINGLE = "single"
KIND_PAIR = "pair"
MIN_HOLDERS = 30  # the report's observational top list: pairs held by at least this many players


def paired_mean(d: np.ndarray, binary: bool = False) -> dict[str, float]:
    """Mean of the per-game differences ``d`` with its t interval (95%) and two-sided p-value;
    ``binary``: a difference of 0/1 outcomes, whose p-value is the exact sign test when fewer
    than EXACT_BELOW games changed. No spread: the interval is the point, p = 1 when it is 0."""
    d = np.asarray(d, dtype=np.float64)
    n = len(d)
    est = float(d.mean()) if n else math.nan
    sd = float(d.std(ddof=1)) if n > 1 else math.nan
    se = sd / math.sqrt(n) if n > 1 else math.nan
    changed = int(np.count_nonzero(d))
    if n > 1 and se > 0:
        half = t_quantile(0.975, n - 1) * se
        low, high, p = est - half, est + half, t_two_sided_p(est / se, n - 1)
    else:
        low = high = est
        p = 1.0 if est == 0 else (sign_flip_p(d) if binary else math.nan)
    if binary and 0 < changed < EXACT_BELOW:
        p = sign_flip_p(d)
    return {
        "estimate": est,
        "sd": sd,
        "se": se,
        "ci_low": low,
        "ci_high": high,
        "p_value": p,
        "changed": changed,
    }


def logit_interaction(w0: np.ndarray, wa: np.ndarray, wb: np.ndarray, wab: np.ndarray) -> dict[str, float]:
    """The log-odds interaction of a pair (module docs) from the 0/1 outcome vectors of the same
    games in the four arms: estimate, delta-method standard deviation of the per-game influence,
    95% interval and two-sided p-value."""
    n = len(w0)
    arms = (wab, wa, wb, w0)
    signs = (1.0, -1.0, -1.0, 1.0)
    rates = [(float(np.sum(w)) + 0.5) / (n + 1) for w in arms]
    est = sum(s * math.log(r / (1 - r)) for s, r in zip(signs, rates, strict=True))
    # d logit(p) / dp = 1 / (p (1 - p)): the per-game influence of each arm's outcome
    influence = sum(
        s / (r * (1 - r)) * np.asarray(w, dtype=np.float64)
        for s, r, w in zip(signs, rates, arms, strict=True)
    )
    sd = float(np.std(influence, ddof=1)) if n > 1 else math.nan
    se = sd / math.sqrt(n) if n > 1 else math.nan
    if n > 1 and se > 0:
        half = float(stats.norm.ppf(0.975)) * se
        low, high, p = est - half, est + half, float(2 * stats.norm.sf(abs(est) / se))
    else:
        low = high = est
        p = 1.0 if est == 0 else math.nan
    return {"estimate": est, "sd": sd, "se": se, "ci_low": low, "ci_high": high, "p_value": p}


def _columns(prefix: str, r: dict[str, float]) -> dict[str, float]:
    return {
        prefix: r["estimate"],
        f"{prefix}_low": r["ci_low"],
        f"{prefix}_high": r["ci_high"],
        f"{prefix}_p": r["p_value"],
        f"{prefix}_sd": r["sd"],
    }


def combo_table(arms: list[tuple[int, ...]], won: np.ndarray, position: np.ndarray) -> pl.DataFrame:
    """One row per single gene and per pair (arms[1:]; arms[0] is the baseline): the gifted
    player's win rate, the gain in win rate and in final position over the baseline, and for
    pairs the interaction (pair gain - both single gains), each with interval and p-value, and
    BH q-values (``gain_q``, ``interaction_q``: across the pairs; singles: across the singles)."""
    if not arms or arms[0] != ():
        raise ValueError("arms[0] must be the baseline (no gift)")
    index = {arm: k for k, arm in enumerate(arms)}
    w = won.astype(np.float64)
    y = position.astype(np.float64)
    rows = []
    for k, arm in enumerate(arms[1:], start=1):
        row: dict[str, object] = {
            "kind": KIND_SINGLE if len(arm) == 1 else KIND_PAIR,
            "gene_a": GENE_NAMES[arm[0]],
            "gene_b": GENE_NAMES[arm[1]] if len(arm) == 2 else None,
            "games": int(won.shape[1]),
            "win_rate": float(w[k].mean()),
            "baseline_win_rate": float(w[0].mean()),
        }
        row.update(_columns("gain", paired_mean(w[k] - w[0], binary=True)))
        row.update(_columns("position_gain", paired_mean(y[k] - y[0])))
        if len(arm) == 2:
            a, b = index[(arm[0],)], index[(arm[1],)]
            row["additive"] = float((w[a] - w[0]).mean() + (w[b] - w[0]).mean())
            row.update(_columns("interaction", paired_mean(w[k] - w[a] - w[b] + w[0], binary=True)))
            row.update(_columns("logit_interaction", logit_interaction(w[0], w[a], w[b], w[k])))
            row.update(_columns("position_interaction", paired_mean(y[k] - y[a] - y[b] + y[0])))
        else:
            row["additive"] = math.nan
            row.update(_columns("interaction", _nan()))
            row.update(_columns("logit_interaction", _nan()))
            row.update(_columns("position_interaction", _nan()))
        rows.append(row)
    table = pl.DataFrame(rows, infer_schema_length=None)
    pair = (table["kind"] == KIND_PAIR).to_numpy()
    gain_q = np.full(len(table), np.nan)
    inter_q = np.full(len(table), np.nan)
    gain_q[pair] = benjamini_hochberg(table["gain_p"].to_numpy()[pair])
    gain_q[~pair] = benjamini_hochberg(table["gain_p"].to_numpy()[~pair])
    logit_q = np.full(len(table), np.nan)
    inter_q[pair] = benjamini_hochberg(table["interaction_p"].to_numpy()[pair])
    logit_q[pair] = benjamini_hochberg(table["logit_interaction_p"].to_numpy()[pair])
    return table.with_columns(
        pl.Series("gain_q", gain_q),
        pl.Series("interaction_q", inter_q),
        pl.Series("logit_interaction_q", logit_q),
    )


def _nan() -> dict[str, float]:
    return {
        "estimate": math.nan,
        "sd": math.nan,
        "ci_low": math.nan,
        "ci_high": math.nan,
        "p_value": math.nan,
    }


def detectable_effect(
    sd: float, games: int, family: int, alpha: float = ALPHA, power: float = POWER
) -> float:
    """The true mean difference found with ``power`` by a two-sided test at level ``alpha /
    family`` (BH across ``family`` tests with a single real effect) from ``games`` paired games
    whose per-game differences have standard deviation ``sd``."""
    if games < 2 or family < 1 or not sd > 0:
        return math.nan
    z = stats.norm.ppf(1 - alpha / (2 * family)) + stats.norm.ppf(power)
    return float(z * sd / math.sqrt(games))


def detectable_effects(table: pl.DataFrame) -> dict[str, float]:
    """The detectable pair gain and interaction (win-rate points) and single gain at the
    table's budget (:func:`detectable_effect` with the median sd of the family)."""
    games = int(table["games"][0]) if len(table) else 0
    out = {}
    for kind, column in ((KIND_PAIR, "interaction"), (KIND_PAIR, "gain"), (KIND_SINGLE, "gain")):
        part = table.filter(pl.col("kind") == kind)
        sd = float(np.nanmedian(part[f"{column}_sd"].to_numpy())) if len(part) else math.nan
        out[f"{kind}_{column}"] = detectable_effect(sd, games, len(part))
    return out


# --------------------------------------------------------------------------------------------
# The observational view: which pairs winners hold in normal market games
# --------------------------------------------------------------------------------------------


def observed_pairs(rows: pl.DataFrame, genes: list[int], players: int) -> pl.DataFrame:
    """Per pair of ``genes``, from result rows of normal games (``won``, ``genes_held``,
    ``game``; one player count): players who held both at the end, the share of winners who
    held both, the holders' win rate and its lift over chance (players * win rate) with a
    cluster-robust (game) Wilson interval, the binomial p-value against 1/players and BH q."""
    df = rows.filter(pl.col("players") == players) if "players" in rows.columns else rows
    held = df["genes_held"].to_numpy().astype(np.int64)
    won = df["won"].to_numpy().astype(np.float64)
    game = df["game"].to_numpy()
    if "run" in df.columns:  # several runs: a game is (run, game)
        game = df["run"].to_numpy().astype(np.int64) * (int(game.max()) + 1 if len(game) else 1) + game
    n_games = int(np.unique(game).size)
    out = []
    for i, a in enumerate(genes):
        for b in genes[i + 1 :]:
            both = ((held >> a) & 1).astype(bool) & ((held >> b) & 1).astype(bool)
            k_all = int(both.sum())
            k_won = int(won[both].sum())
            rate = k_won / k_all if k_all else math.nan
            if k_all:
                lo, hi, _ = cluster_wilson(won[both], game[both])
                p = float(stats.binomtest(k_won, k_all, 1 / players).pvalue)
            else:
                lo = hi = p = math.nan
            out.append(
                {
                    "gene_a": GENE_NAMES[a],
                    "gene_b": GENE_NAMES[b],
                    "holders": k_all,
                    "winners_holding": k_won / n_games if n_games else math.nan,
                    "holder_win_rate": rate,
                    "lift": rate * players,
                    "lift_low": lo * players,
                    "lift_high": hi * players,
                    "lift_p": p,
                }
            )
    table = pl.DataFrame(out, infer_schema_length=None)
    return table.with_columns(pl.Series("lift_q", benjamini_hochberg(table["lift_p"].to_numpy())))


# --------------------------------------------------------------------------------------------
# Heatmap and report
# --------------------------------------------------------------------------------------------


def pair_matrix(table: pl.DataFrame, genes: list[str], column: str) -> np.ndarray:
    """``column`` of the pair rows as a symmetric [genes, genes] matrix (NaN: no pair)."""
    index = {name: i for i, name in enumerate(genes)}
    m = np.full((len(genes), len(genes)), np.nan)
    pairs = table.filter(pl.col("kind") == KIND_PAIR)
    for a, b, v in pairs.select("gene_a", "gene_b", column).iter_rows():
        if a in index and b in index:
            m[index[a], index[b]] = m[index[b], index[a]] = v
    return m


def heatmap(table: pl.DataFrame, genes: list[str], title: str = "") -> Figure:
    """Two panels, genes x genes: the pair's interaction and the pair's gain (win-rate points of
    the gifted player); the diagonal of the gain panel is the single gene's gain. Dot: BH q <
    0.05; grey: no pair (a gene and the lower gene it replaces, G3)."""
    singles = {
        r["gene_a"]: r["gain"] for r in table.filter(pl.col("kind") == KIND_SINGLE).iter_rows(named=True)
    }
    size = 0.32 * len(genes) + 3
    fig = Figure(figsize=(2 * size + 1, size), layout="constrained")
    cmap = matplotlib.colormaps["RdBu_r"].with_extremes(bad="#d9d9d9")
    for ax, column, q_column, label in zip(
        fig.subplots(1, 2),
        ("interaction", "gain"),
        ("interaction_q", "gain_q"),
        ("interaction: pair gain - both single gains", "pair gain (diagonal: single gain)"),
        strict=True,
    ):
        m = pair_matrix(table, genes, column) * 100
        q = pair_matrix(table, genes, q_column)
        if column == "gain":
            for i, g in enumerate(genes):
                m[i, i] = singles.get(g, math.nan) * 100
        limit = float(np.nanmax(np.abs(m))) if np.isfinite(m).any() else 1.0
        image = ax.imshow(np.ma.masked_invalid(m), cmap=cmap, vmin=-limit, vmax=limit)
        ys, xs = np.nonzero(q < ALPHA)
        ax.scatter(xs, ys, s=5, color="black")
        ax.set_xticks(range(len(genes)), genes, rotation=90, fontsize=7)
        ax.set_yticks(range(len(genes)), genes, fontsize=7)
        ax.set_title(label, fontsize=9)
        fig.colorbar(image, ax=ax, label="win-rate points", shrink=0.7)
    fig.suptitle(title or "Gifted gene pairs (dot: BH q < 0.05)")
    return fig


PAIR_COLUMNS = [
    ("gene_a", "gene A", "text"),
    ("gene_b", "gene B", "text"),
    ("interaction", "interaction", "points"),
    ("interaction_ci", "95% interval", "text"),
    ("interaction_q", "q (BH)", "p"),
    ("gain", "pair gain", "points"),
    ("gain_ci", "95% interval", "text"),
    ("gain_q", "q (BH)", "p"),
    ("additive", "single gains", "points"),
    ("position_gain", "position gain", "num"),
]
SINGLE_COLUMNS = [
    ("gene_a", "gene", "text"),
    ("win_rate", "win rate", "rate"),
    ("gain", "gain", "points"),
    ("gain_ci", "95% interval", "text"),
    ("gain_q", "q (BH)", "p"),
    ("position_gain", "position gain", "num"),
]
LOGIT_COLUMNS = [
    ("gene_a", "gene A", "text"),
    ("gene_b", "gene B", "text"),
    ("logit_interaction", "log-odds interaction", "num"),
    ("logit_interaction_ci", "95% interval", "text"),
    ("logit_interaction_q", "q (BH)", "p"),
    ("interaction", "interaction", "points"),
    ("gain", "pair gain", "points"),
    ("win_rate", "pair's win rate", "rate"),
]
OBSERVED_COLUMNS = [
    ("gene_a", "gene A", "text"),
    ("gene_b", "gene B", "text"),
    ("holders", "holders", "int"),
    ("winners_holding", "winners holding", "pct"),
    ("holder_win_rate", "holders' win rate", "rate"),
    ("lift", "lift", "num"),
    ("lift_low|lift_high", "95% interval", "ci"),
    ("lift_q", "q (BH)", "p"),
]


def report_markdown(
    table: pl.DataFrame,
    lines: list[str],
    top: int,
    observed: pl.DataFrame | None = None,
    observed_line: str = "",
) -> str:
    """The Markdown report: the experiment's lines, the detectable effects, the top ``top`` pairs
    by interaction (both ends) and by pair gain, the singles, and the observational view."""
    mde = detectable_effects(table)
    table = table.with_columns(
        pl.Series("gain_ci", _point_intervals(table, "gain")),
        pl.Series("interaction_ci", _point_intervals(table, "interaction")),
        pl.Series("logit_interaction_ci", _log_odds_intervals(table)),
    )
    pairs = table.filter(pl.col("kind") == KIND_PAIR)
    singles = table.filter(pl.col("kind") == KIND_SINGLE)
    parts = ["# Killer combinations (soup combos)\n"]
    parts.append("\n".join(f"- {line}" for line in lines) + "\n")
    parts.append(
        "\n## How to read it\n\n"
        "One player of every game (start space game mod P + 1, rotating) is given the genes at setup,"
        " paid for by nobody; every arm plays the same games as the baseline without the gift (common"
        " random numbers). Gain: the gifted player's win rate minus the baseline's, in win-rate points."
        " Interaction: the pair's gain minus the two single gains (> 0: the genes are worth more together"
        " than apart; < 0: they overlap, or the win rate saturates: a player who already wins often with"
        " one gene cannot win as much more with the second). Intervals: paired 95% (Student's t over"
        " games), in win-rate points; q: Benjamini-Hochberg across all"
        " pairs (singles: across the singles). Position gain: final score-track spaces.\n"
    )
    parts.append(
        "\n## Detectable effect at this budget\n\n"
        f"With 80% power after BH (one real effect among the family): interaction"
        f" {_points(mde['pair_interaction'])}, pair gain {_points(mde['pair_gain'])},"
        f" single gain {_points(mde['single_gain'])} (from the median spread of the"
        " per-game differences). Smaller true effects are likely to be missed.\n"
    )
    if len(pairs):
        k = min(top, len(pairs))
        logit_text = (
            "The same arms on the logit scale (module docs of analysis/combos.py): each gene's factor on"
            " the odds of winning, multiplied; > 0: more together than the two factors. Less bound by"
            " saturation than the interaction in win-rate points, so a combination of two strong genes"
            " shows here even when the pair's win rate is near 1.\n\n"
        )
        # (title, column sorted on, the bottom end instead of the top, text, table columns)
        for title, column, bottom, text, columns in (
            (f"Top {k} pairs by interaction", "interaction", False, "", PAIR_COLUMNS),
            (f"Bottom {k} pairs by interaction (worse together)", "interaction", True, "", PAIR_COLUMNS),
            (f"Top {k} pairs by pair gain", "gain", False, "", PAIR_COLUMNS),
            (f"Top {k} pairs by log-odds interaction", "logit_interaction", False, logit_text, LOGIT_COLUMNS),
        ):
            ranked = pairs.sort(column, descending=True, nulls_last=True)
            rows = ranked.tail(top).reverse() if bottom else ranked.head(top)
            parts.append(f"\n## {title}\n\n" + text + markdown_table(rows, columns) + "\n")
        n_inter = int((pairs["interaction_q"] < ALPHA).sum())
        n_gain = int((pairs["gain_q"] < ALPHA).sum())
        parts.append(
            f"\n{n_inter} of {len(pairs)} pairs have an interaction with q < 0.05; {n_gain} a pair"
            " gain with q < 0.05.\n"
        )
    if len(singles):
        parts.append(
            "\n## Single genes\n\n"
            + markdown_table(singles.sort("gain", descending=True), SINGLE_COLUMNS)
            + "\n"
        )
    if observed is not None and len(observed):
        seen = observed.filter(pl.col("holders") >= MIN_HOLDERS).sort(
            "lift", descending=True, nulls_last=True
        )
        parts.append(
            "\n## Observational view: pairs winners hold in normal market games\n\n"
            + (observed_line + "\n\n" if observed_line else "")
            + "Lift: the win rate of the players holding both genes at the end times the player count (1 ="
            f" chance); pairs held by at least {MIN_HOLDERS} players, by lift (every pair: observed.csv). Not"
            " causal: good players buy many genes, and a pair bought late says little.\n\n"
            + (
                markdown_table(seen.head(top), OBSERVED_COLUMNS)
                if len(seen)
                else "No pair was held that often."
            )
            + "\n"
        )
    return "".join(parts)


def _point_intervals(table: pl.DataFrame, column: str) -> list[str]:
    """``[+1.2, +3.4]``: a column's 95% interval in win-rate points (as its estimate is shown)."""
    return [
        f"[{lo * 100:+.1f}, {hi * 100:+.1f}]" if math.isfinite(lo) else "–"
        for lo, hi in table.select(f"{column}_low", f"{column}_high").iter_rows()
    ]


def _log_odds_intervals(table: pl.DataFrame) -> list[str]:
    """``[+0.12, +0.85]``: the log-odds interaction's 95% interval."""
    return [
        f"[{lo:+.2f}, {hi:+.2f}]" if lo is not None and math.isfinite(lo) else "–"
        for lo, hi in table.select("logit_interaction_low", "logit_interaction_high").iter_rows()
    ]


def _points(x: float) -> str:
    """A detectable difference in win-rate points ("2.8 points")."""
    return f"{x * 100:.1f} points" if math.isfinite(x) else "–"


def write_heatmap(table: pl.DataFrame, genes: list[str], path: Path, title: str = "") -> None:
    """The heatmap as PNG, written atomically."""
    from analysis.figures import save_atomic

    save_atomic(heatmap(table, genes, title), path)
