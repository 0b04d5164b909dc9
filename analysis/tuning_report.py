"""The reports of `soup tune` (issue 13, point 1): Markdown and a learning-curve PNG, from the
result documents alone (nothing here knows the engine); a game's own studies' tables are its
analysis' (Ursuppe's gene value: analysis/ursuppe/gene_value_report.py)."""

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from sim.runner import write_atomic

REPORT = "report.md"
CURVE = "learning_curve.png"
TOP_CHANGES = 10


def learning_curve(doc: dict[str, Any]) -> Figure:
    """Win rate per generation on that generation's games (common random numbers): the start,
    the incumbent (the distribution mean, what tuning returns), the best and the mean candidate."""
    h = doc["history"]
    gen = np.array([r["generation"] for r in h]) + 1
    fig = Figure(figsize=(7, 4))
    ax = fig.add_subplot()
    players = doc["tuning"]["players"]
    ax.plot(gen, [r["best"] for r in h], color="0.75", lw=1, label="best candidate (noisy maximum)")
    ax.plot(gen, [r["candidates"] for r in h], color="tab:blue", lw=1, alpha=0.6, label="candidates' mean")
    ax.plot(gen, [r["start"] for r in h], color="tab:red", lw=1.5, label="start strategy")
    ax.plot(gen, [r["incumbent"] for r in h], color="black", lw=1.8, label="incumbent (distribution mean)")
    ax.axhline(1 / players, color="0.5", ls=":", lw=1, label=f"fair share 1/{players}")
    ax.set_xlabel("generation")
    ax.set_ylabel("win rate on the generation's games")
    ax.set_title("soup tune: learning curve (same games for every strategy of a generation)")
    ax.legend(fontsize=8, loc="best")
    ax.grid(alpha=0.3)
    return fig


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def p_text(p: float) -> str:
    """A p-value; one that underflows to 0 is below the smallest double."""
    return "< 1e-300" if p == 0 else f"{p:.2g}"


def _interval(lo: float, hi: float) -> str:
    return f"[{pct(lo)}, {pct(hi)}]"


def _validation_line(doc: dict[str, Any]) -> str:
    v = doc.get("validation")
    if not v:
        return ""
    line = (
        f"Final check on {v['games']:,} tuning-seed games no generation played: the distribution mean won "
        f"{pct(v['mean'])}, the start {pct(v['start'])}; "
    )
    if v["kept"] == "tuned":
        return line + "the mean is the tuned strategy."
    return line + (
        "**the mean did not beat the start, so the start is kept** (the search found nothing better "
        "than noise: try a larger --budget or --games-per-candidate, or fewer --params)."
    )


def tune_markdown(doc: dict[str, Any], timing: dict[str, Any] | None = None) -> str:
    t = doc["tuning"]
    fr = doc["fresh"]
    g = fr["gain"]
    who = f"{t['players']} players" + (f", variant {t['variant']}" if t["variant"] else "")
    p_relation = "< 1e-300" if g["p_value"] == 0 else f"= {p_text(g['p_value'])}"
    lines = [
        f"# soup tune: {t['start']} ({who})",
        "",
        f"CMA-ES over {len(t['params'])} parameters, population {t['population']}, seed {t['seed']}, "
        f"{doc['generations']} generations, {doc['games']:,} games ({t['games_per_candidate']:,} games a "
        f"strategy a generation, the same games for all: common random numbers). Field: {doc['field']}. "
        f"Rules {t['rules_id']}." + (f" Pinned: {t['pinned']}." if t["pinned"] else ""),
        "",
        "## On fresh games",
        "",
        f"{fr['games']:,} games of seed {fr['seed']} (not a tuning seed), rotate seating, against "
        f"{fr['field']}; both strategies on the same games.",
        "",
        "| strategy | win rate | 95% interval (Wilson) |",
        "|---|---|---|",
        f"| start ({t['start']}) | {pct(fr['start']['win_rate'])} | {_interval(*fr['start']['ci'])} |",
        f"| tuned | {pct(fr['tuned']['win_rate'])} | {_interval(*fr['tuned']['ci'])} |",
        "",
        f"Gain (tuned - start, paired by game): {100 * g['estimate']:+.1f} points, 95% interval "
        f"[{100 * g['ci_low']:+.1f}, {100 * g['ci_high']:+.1f}], p {p_relation} ({g['test']} test, "
        f"{g['discordant']:,} games with different winners). Fair share: {pct(1 / t['players'])}.",
        "",
        _validation_line(doc),
        "",
        f"## The parameters that changed most (of {len(doc['changes'])})",
        "",
        "Ranked by the change as a share of the search range.",
        "",
        "| parameter | start | tuned | change | search range |",
        "|---|---|---|---|---|",
    ]
    for r in doc["changes"][:TOP_CHANGES]:
        lines.append(
            f"| {r['parameter']} | {r['start']:g} | {r['tuned']:g} | {r['change']:+.3g} | "
            f"{r['low']:g} .. {r['high']:g} |"
        )
    buys = sorted(fr["purchases"].items(), key=lambda kv: -abs(kv[1]["tuned"] - kv[1]["start"]))
    lines += [
        "",
        "## Gene purchases on the fresh games (share of games the player bought it)",
        "",
        "| gene | start | tuned |",
        "|---|---|---|",
    ]
    for gene, b in buys:
        if b["start"] or b["tuned"]:
            lines.append(f"| {gene} | {pct(b['start'])} | {pct(b['tuned'])} |")
    lines += ["", f"![learning curve]({CURVE})", ""]
    if timing and timing.get("games_per_second"):
        lines += [
            "## Speed",
            "",
            f"{timing['tuning_games']:,} tuning games in {timing['tuning_seconds']:.0f} s: "
            f"{timing['games_per_second']:,.0f} games/s, {timing['generations_per_minute']:.1f} "
            f"generations a minute; the fresh evaluation {timing['eval_games']:,} games in "
            f"{timing['eval_seconds']:.0f} s.",
            "",
        ]
    lines += [
        "How to read this: docs/tuning.md. The tuned strategy is `tuned.toml` (usable wherever a preset "
        "is: `--strategies`, `--pool`, `--against`).",
        "",
    ]
    return "\n".join(lines)


def write_report(out: Path, doc: dict[str, Any], timing: dict[str, Any] | None = None) -> None:
    text = tune_markdown(doc, timing)
    write_atomic(out / REPORT, lambda p: p.write_text(text, encoding="utf-8"))
    fig = learning_curve(doc)
    # The temporary name has no .png suffix: the format is given.
    write_atomic(out / CURVE, lambda p: fig.savefig(p, dpi=110, format="png", bbox_inches="tight"))


def game_tuning_markdown(doc: dict[str, Any]) -> str:
    """The report of soup tune over the game protocol (sim.experiments.tuning.GameTuning): the
    start and the tuned strategy on the same fresh games, and the learning curve in numbers."""
    from analysis.intervals import wilson

    n = doc["games"]
    rows = []
    for label, rate in (("start", doc["start_win_rate"]), ("tuned", doc["win_rate"])):
        lo, hi = wilson(round(rate * n), n)
        rows.append(f"| {label} | {rate:.3f} | [{float(lo):.3f}, {float(hi):.3f}] |")
    return "\n".join(
        [
            f"# soup tune --game {doc['game']}: {doc['start']} against {doc['field']} at "
            f"{doc['players']} players",
            "",
            f"{doc['rules']}; {doc['generations']} generations of {doc['population']} candidates, "
            f"{n:,} games each (seed {doc['seed']} on); tuned numbers "
            f"{', '.join(f'{x:g}' for x in doc['vector'])}; the tuned strategy: `{doc['spec']}`.",
            "",
            f"Win rate of the seat tuned (player 0) on {n:,} fresh games (seed "
            f"{doc['seed'] + doc['generations']}), the same for both; 95% Wilson intervals (sampling noise "
            "only):",
            "",
            "| strategy | win rate | 95% interval |",
            "|---|---|---|",
            *rows,
            "",
            "Best win rate of each generation: " + ", ".join(f"{r:.3f}" for r in doc["history"]),
            "",
        ]
    )
