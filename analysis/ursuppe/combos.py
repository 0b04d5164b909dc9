"""Statistics of ``soup combos`` (issue 14, point 6): gains and interactions of gifted genes.

Input: the per-game outcome of the gifted player in every arm (sim/ursuppe/experiments/combos.py): arm 0
the baseline (no gift), then the single genes and the pairs, every arm on the same games (common
random numbers). For game i, with ``y`` the gifted player's outcome (won 0/1, or final position):

- single gain of gene a: ``y_a - y_0``;
- pair gain of genes a, b: ``y_ab - y_0``;
- interaction: ``y_ab - y_a - y_b + y_0`` (the pair's gain minus the two single gains: 0 when
  the two genes add up, > 0 when together they are worth more than apart, a "killer combo").

Each is the mean over games of the per-game difference, with a paired 95% interval and
two-sided p-value from Student's t on n - 1 degrees of freedom (the games are independent; the
arms of one game are not, which is what the per-game difference accounts for). For won (0/1)
with fewer than analysis.ursuppe.paired.EXACT_BELOW games that changed, the p-value is the exact sign
test on them (analysis.ursuppe.paired.sign_flip_p). Benjamini-Hochberg q-values
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
from collections.abc import Callable, Sequence
from pathlib import Path

import matplotlib
import numpy as np
import polars as pl
from matplotlib.figure import Figure
from scipy import stats

from analysis.distributions import t_quantile, t_two_sided_p
from analysis.intervals import cluster_wilson
from analysis.multiple_testing import benjamini_hochberg
from analysis.tables import fmt, markdown_table, plural
from analysis.ursuppe.genes import GENE_PAIR_COLUMNS
from analysis.ursuppe.paired import EXACT_BELOW, sign_flip_p

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


def combo_table(
    arms: list[tuple[int, ...]],
    won: np.ndarray,
    position: np.ndarray,
    held: np.ndarray | None = None,
    names: Sequence[str] = (),
) -> pl.DataFrame:
    """One row per single gene and per pair (arms[1:]; arms[0] is the baseline): the gifted
    player's win rate, the gain in win rate and in final position over the baseline, and for
    pairs the interaction (pair gain - both single gains), each with interval and p-value, and
    BH q-values (``gain_q``, ``interaction_q``: across the pairs; singles: across the singles).
    ``held`` (int8 [arms, 2, games]): whether the gifted player still holds gene a / b at the end,
    as ``held_a`` / ``held_b``, the share of games (NaN without it). ``names``: gene names by
    index (the scan's rules' gene_names: a rules file's number-only genes under their declared
    names); an arm's index beyond them is named "gene <index>"."""
    if not arms or arms[0] != ():
        raise ValueError("arms[0] must be the baseline (no gift)")
    names = list(names) + [f"gene {i}" for i in range(len(names), 64)]
    index = {arm: k for k, arm in enumerate(arms)}
    w = won.astype(np.float64)
    y = position.astype(np.float64)
    rows = []
    for k, arm in enumerate(arms[1:], start=1):
        row: dict[str, object] = {
            "kind": KIND_SINGLE if len(arm) == 1 else KIND_PAIR,
            "gene_a": names[arm[0]],
            "gene_b": names[arm[1]] if len(arm) == 2 else None,
            "games": int(won.shape[1]),
            "win_rate": float(w[k].mean()),
            "baseline_win_rate": float(w[0].mean()),
            "held_a": float(held[k, 0].mean()) if held is not None else math.nan,
            "held_b": float(held[k, 1].mean()) if held is not None and len(arm) == 2 else math.nan,
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


def observed_pairs(rows: pl.DataFrame, genes: list[int], players: int, names: Sequence[str]) -> pl.DataFrame:
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
                    "gene_a": names[a],
                    "gene_b": names[b],
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


def _estimate(column: str, header: str, kind: str = "points") -> list[tuple[str, str, str]]:
    """The columns of an estimate with its interval and its q (BH): ``column``, ``column``_ci and
    ``column``_q, as every table of the scan shows them."""
    return [(column, header, kind), (f"{column}_ci", "95% interval", "text"), (f"{column}_q", "q (BH)", "p")]


PAIR_COLUMNS = [
    *GENE_PAIR_COLUMNS,
    *_estimate("interaction", "interaction"),
    *_estimate("gain", "pair gain"),
    ("additive", "single gains", "points"),
    ("position_gain", "position gain", "num"),
    ("held", "held at end (A / B)", "text"),
]
SINGLE_COLUMNS = [
    ("gene_a", "gene", "text"),
    ("win_rate", "win rate", "rate"),
    *_estimate("gain", "gain"),
    ("position_gain", "position gain", "num"),
    ("held", "held at end", "text"),
]
# A gift the holder holds at the end of fewer than this share of its games is "mostly given
# back" (a gene defect, an exchange, a theft, an advanced gene bought over it): the gain then
# measures a head start more than the card (issue 20.3: mutant-tuned returns Suction 2 in 99%).
MOSTLY_GIVEN_BACK = 0.5
LOGIT_COLUMNS = [
    *GENE_PAIR_COLUMNS,
    *_estimate("logit_interaction", "log-odds interaction", "num"),
    ("interaction", "interaction", "points"),
    ("gain", "pair gain", "points"),
    ("win_rate", "pair's win rate", "rate"),
]
OBSERVED_COLUMNS = [
    *GENE_PAIR_COLUMNS,
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
    preface: str = "",
) -> str:
    """The Markdown report: the experiment's lines, ``preface`` (the confirmation stage's
    headline and panel, Markdown), the detectable effects, the top ``top`` pairs by interaction
    (both ends) and by pair gain, the singles, and the observational view."""
    mde = detectable_effects(table)
    table = table.with_columns(
        pl.Series("gain_ci", _point_intervals(table, "gain")),
        pl.Series("interaction_ci", _point_intervals(table, "interaction")),
        pl.Series("logit_interaction_ci", _log_odds_intervals(table)),
        pl.Series("held", held_text(table)),
    )
    pairs = table.filter(pl.col("kind") == KIND_PAIR)
    singles = table.filter(pl.col("kind") == KIND_SINGLE)
    parts = ["# Killer combinations (soup combos)\n"]
    parts.append("\n".join(f"- {line}" for line in lines) + "\n")
    if preface:
        parts.append("\n" + preface.rstrip("\n") + "\n")
    parts.append("\n# The scan\n" if preface else "")
    parts.append(_how_to_read())
    given_back = given_back_line(table)
    if given_back:
        parts.append("\n" + given_back + "\n")
    parts.append(
        "\n## Detectable effect at this budget\n\n"
        f"With 80% power after BH (one real effect among the family): interaction"
        f" {_points(mde['pair_interaction'])}, pair gain {_points(mde['pair_gain'])},"
        f" single gain {_points(mde['single_gain'])} (from the median spread of the"
        " per-game differences). Smaller true effects are likely to be missed.\n"
    )
    if len(pairs):
        parts.extend(_ranked_pairs(pairs, top))
    else:  # a plan always has a pair (sim.ursuppe.experiments.combos.plan_scan): Ctrl-C came before the first
        parts.append("\nNo pair finished before the scan was interrupted: the tables hold the singles.\n")
    if len(singles):
        parts.append(
            "\n## Single genes\n\n"
            + markdown_table(singles.sort("gain", descending=True), SINGLE_COLUMNS)
            + "\n"
        )
    if observed is not None and len(observed):
        parts.append(_observed_text(observed, observed_line, top))
    return "".join(parts)


def _how_to_read() -> str:
    """The scan report's reading guide: the design, gain, interaction, intervals and holding."""
    return (
        "\n## How to read it\n\n"
        "One player of every game (the gifted player, named above) is given the genes at setup,"
        " paid for by nobody; every arm plays the same games as the baseline without the gift (common"
        " random numbers). Gain: the gifted player's win rate minus the baseline's, in win-rate points."
        " Interaction: the pair's gain minus the two single gains (> 0: the genes are worth more together"
        " than apart; < 0: they overlap, or the win rate saturates: a player who already wins often with"
        " one gene cannot win as much more with the second). Intervals: paired 95% (Student's t over"
        " games), in win-rate points; q: Benjamini-Hochberg across all"
        " pairs (singles: across the singles). Position gain: final score-track spaces. Held at end:"
        " the share of games in which the gifted player still holds the gifted gene when the game"
        f' ends (below {MOSTLY_GIVEN_BACK:.0%}: "mostly given back", in a gene defect, to an'
        " advanced gene or to another player's gene; the gain then measures a head start more than"
        " the card).\n"
    )


def _ranked_pairs(pairs: pl.DataFrame, top: int) -> list[str]:
    """The top ``top`` pairs by interaction (both ends), by pair gain and by log-odds interaction,
    and how many pairs are significant."""
    parts = []
    k = plural(min(top, len(pairs)), "pair")  # "Top 1 pair", not "Top 1 pairs"
    logit_text = (
        "The same arms on the logit scale (module docs of analysis/ursuppe/combos.py): each gene's"
        " factor on the odds of winning, multiplied; > 0: more together than the two factors. Less"
        " bound by saturation than the interaction in win-rate points, so a combination of two strong"
        " genes shows here even when the pair's win rate is near 1.\n\n"
    )
    # (title, column sorted on, the bottom end instead of the top, text, table columns)
    for title, column, bottom, text, columns in (
        (f"Top {k} by interaction", "interaction", False, "", PAIR_COLUMNS),
        (f"Bottom {k} by interaction (worse together)", "interaction", True, "", PAIR_COLUMNS),
        (f"Top {k} by pair gain", "gain", False, "", PAIR_COLUMNS),
        (f"Top {k} by log-odds interaction", "logit_interaction", False, logit_text, LOGIT_COLUMNS),
    ):
        ranked = pairs.sort(column, descending=True, nulls_last=True)
        rows = ranked.tail(top).reverse() if bottom else ranked.head(top)
        parts.append(f"\n## {title}\n\n" + text + markdown_table(rows, columns) + "\n")
    n_inter = int((pairs["interaction_q"] < ALPHA).sum())
    n_gain = int((pairs["gain_q"] < ALPHA).sum())
    parts.append(
        f"\nPairs with an interaction of q < 0.05: {n_inter} of {len(pairs)}; with a pair gain of"
        f" q < 0.05: {n_gain} of {len(pairs)}.\n"
    )
    return parts


def _observed_text(observed: pl.DataFrame, observed_line: str, top: int) -> str:
    """The observational view: the top ``top`` pairs by lift among those held often enough."""
    seen = observed.filter(pl.col("holders") >= MIN_HOLDERS).sort("lift", descending=True, nulls_last=True)
    return (
        "\n## Observational view: pairs winners hold in normal market games\n\n"
        + (observed_line + "\n\n" if observed_line else "")
        + "Lift: the win rate of the players holding both genes at the end times the player count (1 ="
        f" chance); pairs held by at least {MIN_HOLDERS} players, by lift (every pair: observed.csv). Not"
        " causal: good players buy many genes, and a pair bought late says little.\n\n"
        + (markdown_table(seen.head(top), OBSERVED_COLUMNS) if len(seen) else "No pair was held that often.")
        + "\n"
    )


def held_text(table: pl.DataFrame) -> list[str]:
    """The holding column of the report: "97%" (single), "97% / 12% (B mostly given back)"."""
    out = []
    for kind, a, b in table.select("kind", "held_a", "held_b").iter_rows():
        if a is None or not math.isfinite(a):
            out.append("–")
            continue
        text = f"{a:.0%}" if kind == KIND_SINGLE else f"{a:.0%} / {b:.0%}"
        back = [
            x for x, v in (("A", a), ("B", b)) if v is not None and math.isfinite(v) and v < MOSTLY_GIVEN_BACK
        ]
        if back:
            text += (
                " (mostly given back)"
                if kind == KIND_SINGLE
                else f" ({' and '.join(back)} mostly given back)"
            )
        out.append(text)
    return out


def given_back_line(table: pl.DataFrame) -> str:
    """One sentence naming the single gifts held at the end of fewer than MOSTLY_GIVEN_BACK of
    the games (empty when none, or when the table has no holding column)."""
    singles = table.filter((pl.col("kind") == KIND_SINGLE) & (pl.col("held_a") < MOSTLY_GIVEN_BACK))
    if not len(singles):
        return ""
    names = ", ".join(
        f"{g} (held in {h:.0%})" for g, h in singles.sort("held_a").select("gene_a", "held_a").iter_rows()
    )
    return (
        f"Mostly given back: {names}. The holder does not keep these gifts to the end of most games; "
        "their gains are those of a card held for a while, or of what it was given back for."
    )


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


def _points(x: float, unit: str | None = None) -> str:
    """A difference in win-rate points: "2.8 points" (a detectable effect, unsigned), or with
    ``unit`` given (e.g. "") signed, "+2.8" (a gain)."""
    if x is None or not math.isfinite(x):
        return "–"
    if unit is None:
        return f"{x * 100:.1f} points"
    return fmt(x, "points") + unit


def write_heatmap(table: pl.DataFrame, genes: list[str], path: Path, title: str = "") -> None:
    """The heatmap as PNG, written atomically."""
    from analysis.figure_files import save_atomic

    save_atomic(heatmap(table, genes, title), path)


# --------------------------------------------------------------------------------------------
# The confirmation stage (sim/ursuppe/experiments/combos_confirm.py): the top arms under a panel of cells
# --------------------------------------------------------------------------------------------

KIND_REFERENCE = "reference"
LABEL_ROBUST = "robust"
LABEL_CONDITIONAL = "conditional"
LABEL_NOT = "not confirmed"
NULL_SE = 2.0  # the null gene must read 0 within this many standard errors


def arm_text(arm: tuple[int, ...], names: list[str]) -> str:
    """ "Suction 2" or "Highly Adaptable + Population Explosion"; "baseline" for no gift."""
    return " + ".join(names[g] for g in arm) if arm else "baseline"


def confirm_table(
    arms: list[tuple[int, ...]],
    roles: list[str],
    cells: list[str],
    conditions: list[str],
    outcomes: list[tuple[np.ndarray, np.ndarray]],
    deck_of_game: np.ndarray,
    names: list[str],
    scan_gains: list[float],
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """One row per arm (arms[1:]; arms[0] is the baseline) and finished cell: the gifted
    player's win rate, the gain over the cell's baseline on the same games (paired t interval
    and p-value, the exact sign test below EXACT_BELOW changed games), ``gain_holm`` (Holm
    across every gene arm of every cell: the reference arm is a check, not a hypothesis), the
    holding rates, the interaction of a pair whose singles were played, the scan's gain, and
    across the decks (``deck_of_game``: the deck of every game) the smallest and largest
    per-deck gain, their standard deviation and ``deck_sign`` (+1 / -1 when every deck's gain
    has that sign, 0 otherwise). The second frame: one row per arm, cell and deck."""
    from analysis.multiple_testing import holm

    index = {a: k for k, a in enumerate(arms)}
    decks = np.unique(deck_of_game)
    rows: list[dict[str, object]] = []
    deck_rows: list[dict[str, object]] = []
    for c, (cell, text, (won, held)) in enumerate(zip(cells, conditions, outcomes, strict=True)):
        w = won.astype(np.float64)
        for k, arm in enumerate(arms[1:], start=1):
            kind = (
                KIND_REFERENCE
                if roles[k].startswith("reference")
                else (KIND_SINGLE if len(arm) == 1 else KIND_PAIR)
            )
            per_deck = _deck_gains(w[k] - w[0], deck_of_game, decks, arm_text(arm, names), cell, deck_rows)
            row: dict[str, object] = {
                "arm": arm_text(arm, names),
                "kind": kind,
                "role": roles[k],
                "gene_a": names[arm[0]],
                "gene_b": names[arm[1]] if len(arm) == 2 else None,
                "cell": cell,
                "conditions": text,
                "cell_index": c,
                **_gain_columns(w, k, held, len(arm) == 2),
                "scan_gain": scan_gains[k],
                **_deck_columns(per_deck),
            }
            a, b = (index.get((arm[0],)), index.get((arm[1],))) if len(arm) == 2 else (None, None)
            if a is not None and b is not None:
                row.update(_columns("interaction", paired_mean(w[k] - w[a] - w[b] + w[0], binary=True)))
            else:
                row.update(_columns("interaction", _nan()))
            rows.append(row)
    if not rows:
        return pl.DataFrame(), pl.DataFrame()
    table = pl.DataFrame(rows, infer_schema_length=None)
    genes = (table["kind"] != KIND_REFERENCE).to_numpy()
    adjusted = np.full(len(table), np.nan)
    adjusted[genes] = holm(table["gain_p"].to_numpy()[genes])
    table = table.with_columns(pl.Series("gain_holm", adjusted))
    return table, pl.DataFrame(deck_rows, infer_schema_length=None)


def _deck_gains(
    d: np.ndarray,
    deck_of_game: np.ndarray,
    decks: np.ndarray,
    arm: str,
    cell: str,
    deck_rows: list[dict[str, object]],
) -> list[float]:
    """The gain ``d`` (per-game differences of one arm in one cell) on each deck's games: appends
    a row per deck to ``deck_rows`` (confirm-decks.csv) and returns the per-deck estimates."""
    per_deck = []
    for j in decks:
        sel = deck_of_game == j
        r = paired_mean(d[sel], binary=True)
        per_deck.append(r["estimate"])
        deck_rows.append(
            {
                "arm": arm,
                "cell": cell,
                "deck": int(j),
                "games": int(sel.sum()),
                "gain": r["estimate"],
                "gain_low": r["ci_low"],
                "gain_high": r["ci_high"],
                "gain_p": r["p_value"],
            }
        )
    return per_deck


def _gain_columns(w: np.ndarray, k: int, held: np.ndarray, pair: bool) -> dict[str, object]:
    """Arm ``k``'s win rate, its gain over the cell's baseline (won ``w`` [arms, games]) and how
    often the holder still holds the gift at the end (:func:`confirm_table`)."""
    g = paired_mean(w[k] - w[0], binary=True)
    return {
        "games": int(w.shape[1]),
        "win_rate": float(w[k].mean()),
        "baseline_win_rate": float(w[0].mean()),
        "gain": g["estimate"],
        "gain_low": g["ci_low"],
        "gain_high": g["ci_high"],
        "gain_p": g["p_value"],
        "gain_se": g["se"],
        "held_a": float(held[k, 0].mean()),
        "held_b": float(held[k, 1].mean()) if pair else math.nan,
    }


def _deck_columns(per_deck: list[float]) -> dict[str, object]:
    """The spread of an arm's gain across the decks and ``deck_sign`` (:func:`confirm_table`)."""
    signs = np.sign(per_deck)
    return {
        "decks": len(per_deck),
        "deck_gain_min": float(np.min(per_deck)),
        "deck_gain_max": float(np.max(per_deck)),
        "deck_gain_sd": float(np.std(per_deck, ddof=1)) if len(per_deck) > 1 else math.nan,
        "deck_sign": int(signs[0]) if bool(np.all(signs == signs[0])) else 0,
    }


# Size band of a robust arm (issue 32.5, as soup verdict's verdict.BAND): every cell within half
# to double the panel's median of what is judged; a sign alone reads "+6 to +72" as robust.
BAND = (0.5, 2.0)


def confirm_labels(table: pl.DataFrame, n_decks: int = 1) -> pl.DataFrame:
    """Per gene arm of the panel: its label and the range over the cells. What is judged: a
    single's **gain**; a pair's **interaction** (pair gain minus both single gains: what makes it a
    *combination*) where its singles were played in every cell, else its gain (``judged``).
    **robust**: in every cell significant (Holm: the gains across every gene arm of every cell,
    the interactions across every pair of every cell; p < ALPHA) with the scan's sign (a pair's
    interaction: the first cell's), the same sign on every deck (gain), the gift held at the end
    in at least MOSTLY_GIVEN_BACK of the games, and within BAND of the median over the cells where
    it holds with its sign (issue 32.5: a label carries the size); **conditional**: so in some
    cells but not all (``label_reason`` names the cells that flip it, erase it, give it back,
    shrink or grow it, or split it across decks); **not confirmed**: in no cell."""
    from analysis.multiple_testing import holm

    if not len(table):
        return pl.DataFrame(schema={"arm": pl.String, "label": pl.String, "label_reason": pl.String})
    out = []
    genes = table.filter(pl.col("kind") != KIND_REFERENCE)
    inter = genes.filter((pl.col("kind") == KIND_PAIR) & pl.col("interaction").is_not_nan())
    inter_holm = {}
    if len(inter):
        adjusted = holm(inter["interaction_p"].to_list())
        inter_holm = {
            (a, c): float(q) for a, c, q in zip(inter["arm"], inter["cell_index"], adjusted, strict=True)
        }
    for arm in genes["arm"].unique(maintain_order=True).to_list():
        part = genes.filter(pl.col("arm") == arm).sort("cell_index")
        first = part.row(0, named=True)
        scan = first["scan_gain"]
        judged = (
            "interaction"
            if first["kind"] == KIND_PAIR and all((arm, c) in inter_holm for c in part["cell_index"])
            else "gain"
        )
        if judged == "interaction":
            sign = 1 if first["interaction"] >= 0 else -1
        else:
            sign = 1 if scan is None or not math.isfinite(scan) or scan >= 0 else -1
        rows = list(part.iter_rows(named=True))
        p_cells = [
            inter_holm[(arm, r["cell_index"])] if judged == "interaction" else r["gain_holm"] for r in rows
        ]
        agree, reasons = _cell_verdicts(rows, p_cells, judged, sign, n_decks)
        if len(agree) == len(part):
            label = LABEL_ROBUST
        elif agree or any(not x.startswith(("flips", "erased")) for x in reasons):
            label = LABEL_CONDITIONAL
        else:
            label = LABEL_NOT
        out.append(
            {
                "arm": arm,
                "kind": first["kind"],
                "role": first["role"],
                "label": label,
                "label_reason": "; ".join(reasons),
                "judged": judged,
                "cells_agreeing": len(agree),
                "cells": len(part),
                "scan_gain": scan,
                "gain_min": float(part["gain"].min()),
                "gain_max": float(part["gain"].max()),
                "judged_min": float(part[judged].min()),
                "judged_max": float(part[judged].max()),
                "held_a_min": float(part["held_a"].min()),
            }
        )
    return pl.DataFrame(out, infer_schema_length=None)


def _cell_verdicts(
    rows: list[dict[str, object]], p_cells: list[float], judged: str, sign: int, n_decks: int
) -> tuple[list[str], list[str]]:
    """One arm's cells judged against robust (:func:`confirm_labels`; ``p_cells``: each cell's
    Holm p of what is ``judged``, ``sign``: the sign it must have): the cells that meet every
    test, and for every other cell the reason, in words."""
    # the size band's centre: the median over the cells where it holds with its sign
    holding = [
        abs(r[judged]) for r, q in zip(rows, p_cells, strict=True) if q < ALPHA and r[judged] * sign > 0
    ]
    median = float(np.median(holding)) if holding else 0.0
    agree = []
    reasons = []
    for r, p_holm in zip(rows, p_cells, strict=True):
        value = r[judged]
        significant = p_holm < ALPHA
        same = (value > 0) if sign > 0 else (value < 0)
        decks_ok = judged == "interaction" or n_decks <= 1 or r["deck_sign"] == sign
        held = min([r["held_a"], *([r["held_b"]] if r["kind"] == KIND_PAIR else [])])
        where = f"{r['conditions']} ({_with_ci(r, judged)}"
        if significant and not same:
            reasons.append(f"flips when {where}, Holm p {p_holm:.2g})")
        elif not significant:
            reasons.append(f"erased when {where}, Holm p {p_holm:.2g})")
        elif not decks_ok:
            reasons.append(
                f"sign differs across decks when {r['conditions']} (deck gains"
                f" {_points(r['deck_gain_min'])} to {_points(r['deck_gain_max'])})"
            )
        elif held < MOSTLY_GIVEN_BACK:
            reasons.append(f"given back when {where}, held at the end in {held:.0%} of the games)")
        elif abs(value) < BAND[0] * median:
            reasons.append(f"below half the panel's median ({_points(sign * median)}) when {where})")
        elif abs(value) > BAND[1] * median:
            reasons.append(f"above double the panel's median ({_points(sign * median)}) when {where})")
        else:
            agree.append(r["cell"])
    return agree, reasons


def _deck_sign_text(r: dict[str, object]) -> str:
    """ "same sign" on every deck, "0 on every deck" (an arm that changed nothing), or "mixed"."""
    if r["deck_sign"] != 0:
        return "same sign"
    return "0 on every deck" if r["deck_gain_min"] == 0 == r["deck_gain_max"] else "mixed"


def _with_ci(r: dict[str, object], column: str) -> str:
    """ "+12.3 [+10.1, +14.5]": a column in win-rate points with its 95% interval."""
    return f"{_points(r[column], '')} [{_points(r[column + '_low'], '')}, {_points(r[column + '_high'], '')}]"


def _cell_text(r: dict[str, object]) -> str:
    """A panel cell: "+12.3 [+10.1, +14.5], held 95%" (pair: "held 95% / 40%"); a share below
    MOSTLY_GIVEN_BACK says so in words, as the scan's tables do ("held 0% (mostly given back)"):
    a bare 0% beside a gain reads as a misprint."""
    shares = [r["held_a"], *([r["held_b"]] if r["kind"] == KIND_PAIR else [])]
    held = " / ".join(f"{h:.0%}" for h in shares)
    if any(h < MOSTLY_GIVEN_BACK for h in shares):
        held += " (mostly given back)"
    return f"{_with_ci(r, 'gain')}, held {held}"


def confirm_markdown(
    table: pl.DataFrame,
    labels: pl.DataFrame,
    lines: list[str],
    status: str | None,
    cells: list[str],
    conditions: list[str],
    deck_labels: list[str] | None = None,
    decks: pl.DataFrame | None = None,
) -> str:
    """The report's headline (the labelled arms, each with its conditions) and the panel: the
    gain of every arm in every cell with its 95% interval and holding rate, the pairs'
    interactions, the null gene's check and, with several decks, the spread across decks."""
    parts = ["## Headline: the top gifts on fresh games, across the panel\n"]
    parts.append("\n".join(f"- {line}" for line in ([status] if status else []) + lines) + "\n")
    if not len(table):
        parts.append("\nNo cell of the panel finished: nothing to confirm yet.\n")
        return "".join(parts)
    done = table["cell"].unique(maintain_order=True).to_list()
    parts.append(_labels_legend(deck_labels))
    parts.append(_reference_text(table))
    parts.extend(_labelled_lists(labels))
    parts.append(_panel_text(table, labels, cells, conditions, done))
    parts.append(_interactions_text(table, done))
    if deck_labels and decks is not None and len(decks):
        parts.append(_decks_text(table, deck_labels, done))
    return "".join(parts)


def _labels_legend(deck_labels: list[str] | None) -> str:
    """How the headline's labels are given (:func:`confirm_labels`), in words."""
    decks_text = ", and the same sign on every deck" if deck_labels else ""
    return (
        "\nLabels judge a single's gain and a pair's **interaction** (pair gain minus both single"
        " gains: what makes it a combination). **robust**: significant (Holm, p <"
        f" {ALPHA}) with the scan's sign (a pair: its first cell's) in every cell{decks_text}, the"
        f" gift held at the end in at least {MOSTLY_GIVEN_BACK:.0%} of the games, and within half to"
        " double the panel's median (a label carries the size); **conditional**: so in some cells,"
        " and the cells that flip it (significant, other sign), erase it (not significant), give it"
        " back, shrink or grow it are named; **not confirmed**: in no cell. The scan's gain was"
        " measured under the scan's conditions (above); the panel's on fresh games. Win-rate"
        " points.\n"
    )


def _reference_text(table: pl.DataFrame) -> str:
    """The null gene's check: its gain in every cell, within NULL_SE standard errors of 0 or not
    (empty without a reference arm)."""
    null = table.filter(pl.col("kind") == KIND_REFERENCE)
    if not len(null):
        return ""
    bad = null.filter((pl.col("gain").abs() > NULL_SE * pl.col("gain_se")) & (pl.col("gain_se") > 0))
    readings = "; ".join(f"{r['cell']}: {_with_ci(r, 'gain')}" for r in null.iter_rows(named=True))
    verdict = (
        f"within {NULL_SE:g} standard errors of 0 in every cell, as it must"
        if not len(bad)
        else f"**NOT within {NULL_SE:g} standard errors of 0** in {', '.join(bad['cell'].to_list())}:"
        " the design has a bias there (a free card is worth something by itself); read the gains"
        " beside it"
    )
    return (
        "\n**Reference**: the null gene (a card with no effect, price 0, MP 0) reads"
        f" {readings}: {verdict}.\n"
    )


def _labelled_lists(labels: pl.DataFrame) -> list[str]:
    """The headline's lists: the robust arms, the conditional ones (with the cells that break
    them) and the arms not confirmed."""
    parts = []
    for label, title in (
        (LABEL_ROBUST, "Robust"),
        (LABEL_CONDITIONAL, "Conditional"),
    ):
        chosen = labels.filter(pl.col("label") == label)
        if not len(chosen):
            parts.append(f"\n**{title}**: none.\n")
            continue
        items = [_labelled_item(r, label) for r in chosen.iter_rows(named=True)]
        parts.append(f"\n**{title}**:\n\n" + "\n".join(items) + "\n")
    rest = labels.filter(pl.col("label") == LABEL_NOT)
    if len(rest):
        parts.append(f"\n**Not confirmed** (in no cell): {', '.join(rest['arm'].to_list())}.\n")
    return parts


def _labelled_item(r: dict[str, object], label: str) -> str:
    """One labelled arm of the headline: what is judged, its range across the cells and the
    scan's gain; a conditional arm's reasons; a gift mostly given back says so."""
    scan = "–" if r["scan_gain"] is None or not math.isfinite(r["scan_gain"]) else _points(r["scan_gain"], "")
    text = (
        f"- **{r['arm']}** ({r['kind']}, {r['role']}): **{label}**, {r['judged']}"
        f" {_points(r['judged_min'], '')} to {_points(r['judged_max'], '')} points across"
        f" {plural(r['cells'], 'cell')} (scan gain: {scan}"
        + (
            f"; pair gain {_points(r['gain_min'], '')} to {_points(r['gain_max'], '')})"
            if r["judged"] == "interaction"
            else ")"
        )
    )
    if label == LABEL_CONDITIONAL:
        holds = f"{r['cells_agreeing']} of {plural(r['cells'], 'cell')}"
        text += f"; meets every test of robust in {holds}; {r['label_reason']}"
    if r["held_a_min"] < MOSTLY_GIVEN_BACK:
        text += f"; the gift is mostly given back in some cells (held in as few as {r['held_a_min']:.0%})"
    return text


def _panel_text(
    table: pl.DataFrame, labels: pl.DataFrame, cells: list[str], conditions: list[str], done: list[str]
) -> str:
    """The confirmation panel: arm x finished cell, the gain with its interval and holding rate."""
    legend = "; ".join(f"**{c}**: {t}" for c, t in zip(cells, conditions, strict=True) if c in done)
    header = "| arm | role | scan | label | " + " | ".join(done) + " |"
    align = "|:--|:--|--:|:--|" + "--:|" * len(done)
    first_rows = {
        r["cell"]: r for r in table.unique("cell", keep="first", maintain_order=True).iter_rows(named=True)
    }
    body = [
        "| baseline (no gift): the holder's win rate | | | | "
        + " | ".join(fmt(first_rows[c]["baseline_win_rate"], "rate") for c in done)
        + " |"
    ]
    label_of = dict(labels.select("arm", "label").iter_rows())
    for arm in table["arm"].unique(maintain_order=True).to_list():
        part = table.filter(pl.col("arm") == arm)
        first = part.row(0, named=True)
        by_cell = {r["cell"]: _cell_text(r) for r in part.iter_rows(named=True)}
        body.append(
            f"| {arm} | {first['role']} | {_points(first['scan_gain'], '')}"
            f" | {label_of.get(arm, 'reference')} | " + " | ".join(by_cell.get(c, "–") for c in done) + " |"
        )
    return (
        "\n## Confirmation panel\n\nGain over the cell's baseline (win-rate points, 95% paired interval)"
        " and how often the holder still holds the gift at the end of the game. Cells (field / holder): "
        + legend
        + ".\n\n"
        + "\n".join([header, align, *body])
        + "\n"
    )


def _arm_rows(table: pl.DataFrame, done: list[str], cell: Callable[[dict], str]) -> list[str]:
    """A Markdown row per arm of ``table``: ``cell(row)`` in each finished cell of ``done``, "–"
    where the arm has no row in that cell."""
    body = []
    for arm in table["arm"].unique(maintain_order=True).to_list():
        part = {r["cell"]: r for r in table.filter(pl.col("arm") == arm).iter_rows(named=True)}
        body.append(f"| {arm} | " + " | ".join(cell(part[c]) if c in part else "–" for c in done) + " |")
    return body


def _interactions_text(table: pl.DataFrame, done: list[str]) -> str:
    """The pairs' interactions in every finished cell (empty when no pair has one)."""
    pairs = table.filter((pl.col("kind") == KIND_PAIR) & pl.col("interaction").is_not_nan())
    if not len(pairs):
        return ""
    body = _arm_rows(
        pairs,
        done,
        lambda r: (
            f"{_points(r['interaction'], '')} [{_points(r['interaction_low'], '')},"
            f" {_points(r['interaction_high'], '')}]"
        ),
    )
    return (
        "\n### Interactions of the top pairs in the panel\n\nPair gain minus the two single gains"
        " (win-rate points, 95% paired interval), each cell on its own games.\n\n"
        + "\n".join(["| pair | " + " | ".join(done) + " |", "|:--|" + "--:|" * len(done), *body])
        + "\n"
    )


def _decks_text(table: pl.DataFrame, deck_labels: list[str], done: list[str]) -> str:
    """Every arm's gain across the decks in every finished cell: range, spread and sign."""
    body = _arm_rows(
        table,
        done,
        lambda r: (
            f"{_points(r['deck_gain_min'], '')} to {_points(r['deck_gain_max'], '')}"
            f" (sd {r['deck_gain_sd'] * 100:.1f}), {_deck_sign_text(r)}"
        ),
    )
    return (
        f"\n### Across the {len(deck_labels)} decks\n\nThe gain on each deck's block of games:"
        " smallest to largest, the standard deviation across decks (points) and whether it has"
        " the same sign on every deck (confirm-decks.csv: each deck's gain and interval). Decks: "
        + "; ".join(f"{j}: {d}" for j, d in enumerate(deck_labels))
        + ".\n\n"
        + "\n".join(["| arm | " + " | ".join(done) + " |", "|:--|" + "--:|" * len(done), *body])
        + "\n"
    )
