"""The flags of the extra genes (docs/rules.md §18, spec ursuppe-extra-genes.md §6), declared once.

Each :class:`ExtraFlag` row is one key of ``[flags]`` in a rules file: its rule id, its default
and what it may be. The rules loader validates the key from the row, and the kernels read the
value as ``Rules.xflag[XF_<NAME>]`` (an int16: a boolean is 0/1, a choice the index of its
value in ``choices``, a set of choices a bit mask over them, an integer itself). The ``XF_*``
constants below are looked up by name; a gene module looks up its own flags' (XFLAG_INDEX).

Readings of the gene texts that are numbers rather than flags live with the gene in the rules
file: Glutton's return value (``glutton_return_value``) is ``genes.Glutton.defect_payment``, its
card value (``glutton_card_value``) and PhD's (``phd_card_value``) are the genes' ``weight``.
"""

from sim.ursuppe.rules import gene_tables
from sim.ursuppe.rules.gene_rows import ExtraFlag
from sim.ursuppe.rules.ledger import in_ledger_order

# The market's flags (XM3-XM5); a gene module's come from its row (gene_tables.FLAGS). All of them
# in the ledger's order (rules/ledger.toml): a flag's index is its line there.
_CORE_FLAGS: tuple[ExtraFlag, ...] = (
    ExtraFlag("extra_reveal_per_round", "XM4", 3, lo=0, hi=26),
    ExtraFlag(
        "extra_reveal_timing",
        "XM4",
        "after_first_player",
        ("after_first_player", "start_of_phase3", "after_each_purchase"),
    ),
    ExtraFlag("extra_unbought_discarded", "XM5", False),
    ExtraFlag("extra_deck_mixed_with_base", "XM3", False),
)
EXTRA_FLAGS: tuple[ExtraFlag, ...] = in_ledger_order(
    "flags", (*_CORE_FLAGS, *gene_tables.FLAGS), lambda flag: flag.name
)
XFLAG_NAMES: tuple[str, ...] = tuple(f.name for f in EXTRA_FLAGS)
XFLAG_INDEX: dict[str, int] = {name: i for i, name in enumerate(XFLAG_NAMES)}
N_XFLAGS = len(EXTRA_FLAGS)
# The module switch and the market's lists (XM1, XM2, XM8) are flags too, but not int16 values.
MARKET_FLAGS: tuple[str, ...] = ("extra_genes", "extra_start_pair", "extra_excluded")
DEFAULT_START_PAIR: tuple[str, ...] = ("Social Gene", "Population Explosion")  # XM2

XF_REVEAL_PER_ROUND = XFLAG_INDEX["extra_reveal_per_round"]
XF_REVEAL_TIMING = XFLAG_INDEX["extra_reveal_timing"]
XF_UNBOUGHT_DISCARDED = XFLAG_INDEX["extra_unbought_discarded"]
XF_DECK_MIXED_WITH_BASE = XFLAG_INDEX["extra_deck_mixed_with_base"]

# Choice values the kernels compare with (their index in the row's choices).
TIMING_AFTER_FIRST_PLAYER, TIMING_START_OF_PHASE3, TIMING_AFTER_EACH_PURCHASE = range(3)  # XM4


def encode(flag: ExtraFlag, value: bool | int | str | tuple[str, ...] | list[str]) -> int:
    """The int16 the kernels read for a validated value of ``flag``."""
    if isinstance(flag.default, bool):
        return int(bool(value))
    if isinstance(flag.default, int):
        return int(value)  # type: ignore[arg-type]
    if isinstance(flag.default, tuple):
        return sum(1 << flag.choices.index(v) for v in value)  # type: ignore[union-attr]
    return flag.choices.index(value)  # type: ignore[arg-type]
