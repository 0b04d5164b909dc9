"""Ursuppe's `soup tune` reports (issue 13, points 1 and 2): a tuning's Markdown and learning-curve
PNG (sim/ursuppe/experiments/tuning.py) and the ranked table of `soup tune --gene-value`
(sim/ursuppe/experiments/gene_value.py), from the result documents alone."""

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from analysis.tuning_report import interval, p_text, pct
from sim.runner import write_atomic

REPORT = "report.md"
CURVE = "learning_curve.png"
TOP_CHANGES = 10

RARELY_BOUGHT = 0.5
RARE_MARK = "†"
DECLINED_MARK = "‡"  # option value: the allowed arm kept the forbidden arm's strategy (it may decline)


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
        f"| start ({t['start']}) | {pct(fr['start']['win_rate'])} | {interval(*fr['start']['ci'])} |",
        f"| tuned | {pct(fr['tuned']['win_rate'])} | {interval(*fr['tuned']['ci'])} |",
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


def _pts(c: dict[str, Any] | None) -> str:
    """A contrast in win-rate points with its 95% interval, or a dash."""
    if not c:
        return "—"
    return f"{100 * c['estimate']:+.1f} [{100 * c['ci_low']:+.1f}, {100 * c['ci_high']:+.1f}]"


def gene_value_markdown(doc: dict[str, Any], seconds: float | None = None) -> str:
    """The ranked table of a gene-value study (sim/ursuppe/experiments/gene_value.py): per gene the
    design's contrast, its references beside it (plain card, the gene beyond it, BP gift) and the
    null gene's reading; Holm over the genes."""
    lines = [*_design_lines(doc), *_table_lines(doc), *_note_lines(doc)]
    if seconds:
        lines += [f"Played in {seconds:.0f} s (this session).", ""]
    lines += ["How to read this: docs/verdicts.md.", ""]
    return "\n".join(lines)


def _buys(doc: dict[str, Any]) -> bool:
    """Whether the study's design buys the gene (a bought column); the others give it (a BP gift column)."""
    return doc["design"] in ("option", "forced")


def _design_lines(doc: dict[str, Any]) -> list[str]:
    """The title, the question, the design and its conditions, and the null gene's reading."""
    who = f"{doc['players']} players" + (f", variant {doc['variant']}" if doc["variant"] else "")
    with_arm, without_arm = doc["arms"]
    gift = not _buys(doc)  # holding value, with or without re-tuning
    kept = (
        "player 0 given the card at setup and never giving it up (a gene defect is paid with its other "
        "cards or BP)"
    )
    how = (
        f"both arms tuned from `{doc['start']}` (CMA-ES, seed {doc['seed']}, {doc['arm_games']:,} games an "
        "arm, the same games for both)" + (f"; {kept}" if gift else "")
        if doc["arm_games"]
        else f"the same strategy `{doc['start']}` in both arms, {kept}"
    )
    lines = [
        f"# Gene value: {doc['design_label']} ({who})",
        "",
        f"**Question:** {doc['question']}",
        "",
        f"**Design:** {with_arm} vs {without_arm}; {how}; every other seat: {doc['field']}. Both arms then "
        f"played the same {doc['eval_games']:,} fresh games (seed {doc['fresh_seed']}, rotate seating). "
        f"Rules {doc['rules_id']}; deck {doc['deck']}.",
        "",
        "**Conditions:** these estimates hold for this field, this start strategy, this deck and these "
        "readings of the rules; the intervals cover the fresh games' sampling noise only. `soup verdict` "
        "checks one gene across fields, decks and readings (docs/verdicts.md).",
        "",
    ]
    if _buys(doc) and doc["arm_games"]:
        lines += [
            "**Tuned once an arm:** two tunings differ even where the gene changes nothing, and these "
            "intervals do not cover that spread. A gene whose allowed arm kept its start or bought it in "
            "under 1% of its games reads *not measured at this budget*. `soup verdict --gene NAME` "
            "measures option value over independent tuning replicates (docs/verdicts.md).",
            "",
        ]
    if doc.get("placeholders"):
        lines += [f"Placeholders used: {', '.join(doc['placeholders'])}.", ""]
    null = doc.get("null")
    if null:
        ok = null["ci_low"] <= 0 <= null["ci_high"]
        lines += [
            f"**Reference, the null gene** (no effect, price 0, MP 0, weight 0): {_pts(null)} "
            + ("— reads 0, as it must." if ok else "— **does not read 0: the design moves the answer**."),
            "",
        ]
    lines += [
        f"Estimate = {with_arm} − {without_arm} win rate of player 0 in points, 95% interval paired by game; "
        "plain card = the same for a card with the gene's price, MP and weight and no effect; beyond card "
        "= the gene's estimate minus the plain card's, paired by game (what the gene does beyond being a "
        "card)" + ("; BP gift = the gene's price in BP given at setup" if gift else "") + ".",
        "",
    ]
    return lines


def _table_lines(doc: dict[str, Any]) -> list[str]:
    """The genes ranked by estimate, a row each, with the design's and the decks' columns."""
    with_arm, without_arm = doc["arms"]
    tuned, gift = _buys(doc), not _buys(doc)
    head = "| rank | gene | estimate | p (Holm) | plain card | beyond card |"
    sep = "|---|---|---|---|---|---|"
    if gift:
        head += " BP gift |"
        sep += "---|"
    if tuned:
        head += f" bought ({with_arm} / {without_arm}) |"
        sep += "---|"
    decks = doc.get("deck_family") or []
    if decks:
        head += f" across {len(decks)} decks | same sign on every deck |"
        sep += "---|---|"
    lines = [head, sep]
    for i, r in enumerate(doc["genes"], 1):
        estimate = _pts(r)
        if r.get("measured") is False:
            estimate = f"not measured at this budget ({'; '.join(r['not_measured_because'])})"
        row = f"| {i} | {r['gene']} | {estimate} | {p_text(r['p_holm'])} | {_pts(r.get('plain'))} | "
        row += f"{_pts(r.get('beyond_card'))} |"
        if gift:
            row += f" {_pts(r.get('bp_gift'))} |"
        if tuned:
            rare = RARE_MARK if r.get("bought_with", 1.0) < RARELY_BOUGHT else ""
            rare += DECLINED_MARK if r.get("declined") else ""
            row += f" {pct(r.get('bought_with', 0.0))}{rare} / {pct(r.get('bought_without', 0.0))} |"
        if decks:
            lo, hi = r["deck_spread"]
            row += (
                f" {100 * lo:+.1f} to {100 * hi:+.1f} | {'yes' if r['same_sign_every_deck'] else '**no**'} |"
            )
        lines.append(row)
    lines.append("")
    return lines


def _note_lines(doc: dict[str, Any]) -> list[str]:
    """What the table's marks and the design mean: the decks, rarely bought, declined, forced."""
    with_arm = doc["arms"][0]
    decks = doc.get("deck_family") or []
    lines: list[str] = []
    if decks:
        lines += [
            f"Decks: the estimates are on deck 0, the rules' own; every gene was measured again on "
            f"{len(decks) - 1} more decks of the V6 plausible-deck family, on the same games: "
            + "; ".join(f"{k}: {label}" for k, label in enumerate(decks))
            + ".",
            "",
        ]
    if _buys(doc):
        lines += [
            f"{RARE_MARK} The {with_arm} arm bought the gene in fewer than {pct(RARELY_BOUGHT)} of the "
            "games: it is rarely on offer, or needs a lower gene first (G2-G3). Two arms tuned on the same "
            "seeds still end at somewhat different strategies, so a small difference may come from the "
            "tuning rather than the gene: the null gene's reading shows how large that is.",
            "",
        ]
    if any(r.get("declined") for r in doc["genes"]):
        lines += [
            f"{DECLINED_MARK} The allowed arm's own tuning won fewer of the tuning's validation games than "
            "the forbidden arm's strategy, which it may always play (declining the gene): it kept that one.",
            "",
        ]
    if doc["design"] == "forced":
        lines += [
            "**Read with care:** this design measures a rigid plan (buy the gene at the first chance, "
            "never save for it) more than the gene; option value and holding value measure the gene.",
            "",
        ]
    return lines
