"""Readings of the rules that touch a gene: the flags a verdict toggles (docs/verdicts.md).

A *reading* is a flag of the spec whose value is a choice between interpretations of a text
(docs/rules.md §10, the extra genes' flags of §18), not a number of the game. A gene's verdict
is re-run with each reading that touches the gene set to each of its other values, one at a
time. The extra genes' flags say which gene they complete by their rule id (ExtraFlag.rule,
"XG-nn"); the §10 flags say it in :data:`BASE_FLAG_GENES` below, one row a flag.
"""

from typing import Any

from sim.ursuppe.rules.book import RuleBook
from sim.ursuppe.rules.extra_flags import EXTRA_FLAGS
from sim.ursuppe.rules.genes import GENE_NAMES, xg_id

# §10's flags that are readings of a gene's text: the genes each touches, and the values it can
# take where it is not a boolean (persistence_copies_4p: 1 in the Italian rules, 2 in the Spanish).
BASE_FLAG_GENES: dict[str, tuple[tuple[str, ...], tuple[Any, ...]]] = {
    "substitution_3_1": (("Substitution",), (True, False)),
    "defense_and_escape_same_attack": (("Defense", "Escape"), (True, False)),
    "holding_clings_to_own": (("Holding",), (True, False)),
    "answers_once_per_round": (("Defense", "Escape"), (True, False)),
    "attack_only_when_starving": (("Struggle for Survival",), (True, False)),
    "armor_blocks_own_attacks": (("Armor",), (True, False)),
    "clinging_after_first_step": (("Holding", "Speed"), (True, False)),
    "gene_meals_optional": (("Substitution", "Frugality", "Parasitism"), (True, False)),
    "persistence_copies_4p": (("Persistence",), (1, 2)),
    "aggression_lost_fight_dp": (("Aggression",), (True, False)),
    "persistence_after_clinging": (("Persistence", "Holding"), (True, False)),
}


def flags_touching(gene: str) -> list[tuple[str, tuple[Any, ...]]]:
    """(flag, the values it can take) for every reading that touches ``gene``: the §10 rows that
    name it and the extra genes' boolean and choice flags of its XG rule (a numeric flag is a
    number of the game, not a reading; a set flag, rebound_applies_to, is left out: its subsets
    are too many to toggle one at a time)."""
    out: list[tuple[str, tuple[Any, ...]]] = []
    for flag, (genes, values) in BASE_FLAG_GENES.items():
        if gene in genes:
            out.append((flag, values))
    index = GENE_NAMES.index(gene) if gene in GENE_NAMES else -1
    rule = xg_id(index) if 20 <= index < 46 else None
    for row in EXTRA_FLAGS:
        if rule is None or row.rule != rule:
            continue
        if isinstance(row.default, bool):
            out.append((row.name, (True, False)))
        elif isinstance(row.default, str):
            out.append((row.name, row.choices))
    return out


def readings(book: RuleBook, gene: str) -> list[tuple[str, dict[str, Any]]]:
    """(label, rules overrides) for every other value of every reading touching ``gene``, the
    rules' own value left out (that is the verdict's headline)."""
    flags = book.data["flags"]
    out = []
    for flag, values in flags_touching(gene):
        if flag not in flags:
            continue  # a reading this version of the rules does not have
        for value in values:
            if value != flags[flag]:
                shown = str(value).lower() if isinstance(value, bool) else value
                out.append((f"{flag} = {shown}", {"flags": {flag: value}}))
    return out
