"""The table of `soup tune --gene-value` (issue 13, point 2; sim/ursuppe/experiments/gene_value.py):
Markdown from the result document alone."""

from typing import Any

from analysis.tuning_report import p_text, pct

RARELY_BOUGHT = 0.5
RARE_MARK = "†"
DECLINED_MARK = "‡"  # option value: the allowed arm kept the forbidden arm's strategy (it may decline)


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
