"""The reports of `soup tune` and `soup tune --gene-value` (issue 13, points 1 and 2): Markdown and a
learning-curve PNG, from the result documents alone (nothing here knows the engine)."""

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from sim.runner import write_atomic

REPORT = "report.md"
CURVE = "learning_curve.png"
TOP_CHANGES = 10
RARELY_BOUGHT = 0.5
RARE_MARK = "†"


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


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _p(p: float) -> str:
    """A p-value; one that underflows to 0 is below the smallest double."""
    return "< 1e-300" if p == 0 else f"{p:.2g}"


def _interval(lo: float, hi: float) -> str:
    return f"[{_pct(lo)}, {_pct(hi)}]"


def _validation_line(doc: dict[str, Any]) -> str:
    v = doc.get("validation")
    if not v:
        return ""
    line = (
        f"Final check on {v['games']:,} tuning-seed games no generation played: the distribution mean won "
        f"{_pct(v['mean'])}, the start {_pct(v['start'])}; "
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
    p_relation = "< 1e-300" if g["p_value"] == 0 else f"= {_p(g['p_value'])}"
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
        f"| start ({t['start']}) | {_pct(fr['start']['win_rate'])} | {_interval(*fr['start']['ci'])} |",
        f"| tuned | {_pct(fr['tuned']['win_rate'])} | {_interval(*fr['tuned']['ci'])} |",
        "",
        f"Gain (tuned - start, paired by game): {100 * g['estimate']:+.1f} points, 95% interval "
        f"[{100 * g['ci_low']:+.1f}, {100 * g['ci_high']:+.1f}], p {p_relation} ({g['test']} test, "
        f"{g['discordant']:,} games with different winners). Fair share: {_pct(1 / t['players'])}.",
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
            lines.append(f"| {gene} | {_pct(b['start'])} | {_pct(b['tuned'])} |")
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


def gene_value_markdown(doc: dict[str, Any], seconds: float | None = None) -> str:
    """The ranked table of `soup tune --gene-value`: forced - never win rate per gene."""
    who = f"{doc['players']} players" + (f", variant {doc['variant']}" if doc["variant"] else "")
    lines = [
        f"# Gene value under good play: {doc['start']} ({who})",
        "",
        f"For every gene, two variants of `{doc['start']}` were tuned (CMA-ES, seed {doc['seed']}, "
        f"{doc['arm_games']:,} games each, the same games for both) against {doc['field']}: "
        "**forced** buys the gene whenever it can (gene value pinned at 100), **never** may not buy it "
        "(pinned at 0). Both "
        f"then played the same {doc['eval_games']:,} fresh games (seed {doc['fresh_seed']}, rotate seating). "
        f"Budget {doc['budget']:,} games ({doc['arm_budget']:,} an arm). Rules {doc['rules_id']}.",
        "",
        "Difference = forced - never win rate, 95% interval paired by game (cluster-robust), Holm-adjusted "
        "p over the genes. Positive: the gene is worth buying to a good player; negative: it costs more "
        "than it gives.",
        "",
        "| rank | gene | forced | never | difference | 95% interval | p (Holm) | bought (forced / never) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, r in enumerate(doc["genes"], 1):
        lines.append(
            f"| {i} | {r['gene']} | {_pct(r['forced'])} | {_pct(r['never'])} | "
            f"{100 * r['difference']:+.1f} | "
            f"[{100 * r['ci_low']:+.1f}, {100 * r['ci_high']:+.1f}] | {_p(r['p_holm'])} | "
            f"{_pct(r['forced_bought'])}{RARE_MARK if r['forced_bought'] < RARELY_BOUGHT else ''} / "
            f"{_pct(r['never_bought'])} |"
        )
    lines += [
        "",
        f"{RARE_MARK} The forced variant bought the gene in fewer than {_pct(RARELY_BOUGHT)} "
        "of the games: it is rarely on offer, or needs a lower gene first (G2-G3); the difference "
        "then says little about the gene itself. The intervals cover the fresh games' noise, not "
        "the tuning's: two arms tuned on the same seeds still end at somewhat different "
        "strategies, so a small difference may come from the tuning rather than the gene (run "
        "again with another --seed to check).",
    ]
    if seconds:
        lines += ["", f"Played in {seconds:.0f} s (this session)."]
    lines += ["", "How to read this: docs/tuning.md.", ""]
    return "\n".join(lines)
