"""Reference arms of a causal design: genes whose answer is known (docs/verdicts.md).

A design that measures a gene should read 0 for a gene with no effect, and should say how much
of a gene's value is only that of being a card (price, mutation points, weight for K2). The
references are *number-only genes* (genes.NUMBER_ONLY_GENES, declared in a rules layer with
``effect = "none"``) and a BP gift:

- the **null gene**: no effect, price 0, MP 0, weight 0 — every design must read 0 for it. It
  goes through the code paths a gene goes through: it is gifted or bought and held, and it is
  sold beside its **twin** (the same card in another slot; NULL_COPIES of each, so every player
  can buy one of each), both valued NULL_VALUE by every strategy (the designs set it). A
  player that may buy both at once meets a tie, drawn (random_ties), so a gift or a ban of the
  null gene changes the draws that follow and the games *differ*, while the answer stays 0 (a
  free card that does nothing). A null gene that changes no draw reads 0 by construction and
  checks nothing (issue 32.3);
- the **plain card** of a gene: the gene's price, MP, weight and defect payment and no effect —
  what the gene does beyond being a card is its value minus the plain card's;
- the **BP gift**: the gene's price in BP at setup (Rules.gift_bp) — what a gift of the gene is
  worth beside the BP it would have cost.

This module only builds rules layers; the designs (sim/ursuppe/experiments/gene_value.py, soup verdict,
soup combos' confirmation stage) play them.
"""

from typing import Any

from sim.ursuppe.rules.book import NUMBER_ONLY_EFFECT, RuleBook, load_rules

NULL_GENE = "Null gene"
NULL_TWIN = "Null gene (twin)"
NULL_COPIES = 6  # one of each for every player at any count (copies beyond P stay in the pool)
NULL_VALUE = 1.0  # every player's gene_value for both: wanted, and bought when nothing better is
REFERENCE_KINDS = ("null", "plain")


def plain_card_name(gene: str) -> str:
    """The name of ``gene``'s plain card."""
    return f"Plain card ({gene})"


def null_gene_row(copies: int = 1) -> dict[str, Any]:
    """The null gene's rules row: no effect, nothing it costs or counts for."""
    return {"effect": NUMBER_ONLY_EFFECT, "price": 0, "mp": 0, "copies": copies, "weight": 0}


def plain_card_row(book: RuleBook, gene: str, copies: int | dict[str, int] | None = None) -> dict[str, Any]:
    """``gene``'s numbers as a number-only gene: its price, MP, weight and defect payment (the
    base price; a 5-6 player price of flags.price_5_6 is not carried over), and its copies by
    player count unless ``copies`` is given."""
    row = book.data["genes"][book.gene_names[book.gene_index(gene)]]
    return {
        "effect": NUMBER_ONLY_EFFECT,
        "price": int(row["price"]),
        "mp": int(row["mp"]),
        "copies": dict(row["copies"]) if copies is None else copies,
        "weight": int(row["weight"]),
        "defect_payment": int(row["defect_payment"]),
    }


def reference_overrides(
    studied: str | None = None,
    kinds: tuple[str, ...] = ("null",),
    book: RuleBook | None = None,
    copies: int | None = None,
) -> dict[str, Any]:
    """A rules layer (``load_rules(..., overrides=)``) declaring the reference genes ``kinds``
    ("null": the null gene and its twin; "plain": the plain card of ``studied``) as number-only
    genes. ``copies``: the plain card's (default: the studied gene's)."""
    unknown = [k for k in kinds if k not in REFERENCE_KINDS]
    if unknown:
        raise ValueError(f"reference kinds: expected some of {REFERENCE_KINDS}, got {unknown}")
    genes: dict[str, Any] = {}
    if "null" in kinds:
        genes[NULL_GENE] = null_gene_row(NULL_COPIES)
        genes[NULL_TWIN] = null_gene_row(NULL_COPIES)
    if "plain" in kinds:
        if studied is None:
            raise ValueError("a plain card needs the studied gene")
        book = book or load_rules()
        name = book.gene_names[book.gene_index(studied)]
        genes[plain_card_name(name)] = plain_card_row(book, name, copies)
    return {"genes": genes}
