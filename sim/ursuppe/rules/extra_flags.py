"""The flags of the extra genes (docs/rules.md §18, spec ursuppe-extra-genes.md §6), declared once.

Each :class:`ExtraFlag` row is one key of ``[flags]`` in a rules file: its rule id, its default
and what it may be. The rules loader validates the key from the row, and the kernels read the
value as ``Rules.xflag[XF_<NAME>]`` (an int16: a boolean is 0/1, a choice the index of its
value in ``choices``, a set of choices a bit mask over them, an integer itself). The ``XF_*``
constants below are checked against the rows, so a row added without its constant (or the other
way round) fails at import.

Readings of the gene texts that are numbers rather than flags live with the gene in the rules
file: Glutton's return value (``glutton_return_value``) is ``genes.Glutton.defect_payment``, its
card value (``glutton_card_value``) and PhD's (``phd_card_value``) are the genes' ``weight``.
"""

from sim.ursuppe.rules import gene_tables
from sim.ursuppe.rules.gene_rows import ExtraFlag

EXTRA_FLAGS: tuple[ExtraFlag, ...] = (
    ExtraFlag("extra_reveal_per_round", "XM4", 3, lo=0, hi=26),
    ExtraFlag(
        "extra_reveal_timing",
        "XM4",
        "after_first_player",
        ("after_first_player", "start_of_phase3", "after_each_purchase"),
    ),
    ExtraFlag("extra_unbought_discarded", "XM5", False),
    ExtraFlag("extra_deck_mixed_with_base", "XM3", False),
    *gene_tables.ALARM_FLAGS,  # XG-03 (sim/ursuppe/engine/genes/alarm.py)
    *gene_tables.CLEANLINESS_FLAGS,  # XG-04 (sim/ursuppe/engine/genes/cleanliness.py)
    *gene_tables.HARD_CRUST_FLAGS,  # XG-05 (sim/ursuppe/engine/genes/hard_crust.py)
    *gene_tables.HIGHLY_ADAPTABLE_FLAGS,  # XG-08 (sim/ursuppe/engine/genes/highly_adaptable.py)
    *gene_tables.MORE_THAN_A_MOUTHFUL_FLAGS,  # XG-09 (sim/ursuppe/engine/genes/more_than_a_mouthful.py)
    *gene_tables.SOCIAL_GENE_FLAGS,  # XG-10 (sim/ursuppe/engine/genes/social_gene.py)
    *gene_tables.CAMOUFLAGE_1_FLAGS,  # XG-11 (sim/ursuppe/engine/genes/camouflage_1.py)
    *gene_tables.THREAT_DISPLAY_FLAGS,  # XG-13 (sim/ursuppe/engine/genes/threat_display.py)
    *gene_tables.FLEXIBLE_FLAGS,  # XG-14 (sim/ursuppe/engine/genes/flexible.py)
    *gene_tables.HEALING_1_FLAGS,  # XG-15 (sim/ursuppe/engine/genes/healing_1.py)
    *gene_tables.REBOUND_FLAGS,  # XG-16 (sim/ursuppe/engine/genes/rebound.py)
    *gene_tables.GO_OUT_WITH_A_BANG_FLAGS,  # XG-17 (sim/ursuppe/engine/genes/go_out_with_a_bang.py)
    *gene_tables.SHORT_LIFE_SPAN_FLAGS,  # XG-18 (sim/ursuppe/engine/genes/short_life_span.py)
    *gene_tables.TOXIC_EXCRETIONS_FLAGS,  # XG-19 (sim/ursuppe/engine/genes/toxic_excretions.py)
    *gene_tables.POPULATION_EXPLOSION_FLAGS,  # XG-20 (sim/ursuppe/engine/genes/population_explosion.py)
    *gene_tables.ENERGY_CONSERVATION_FLAGS,  # XG-21 (sim/ursuppe/engine/genes/energy_conservation.py)
    *gene_tables.ENVIRONMENTAL_SENSING_FLAGS,  # XG-23 (sim/ursuppe/engine/genes/environmental_sensing.py)
    *gene_tables.HEALING_2_FLAGS,  # XG-25 (sim/ursuppe/engine/genes/healing_2.py)
    *gene_tables.SUCTION_2_FLAGS,  # XG-26 (sim/ursuppe/engine/genes/suction_2.py)
    *gene_tables.APPENDED_FLAGS,  # the gene modules' flags (docs/adding-a-gene.md)
)
XFLAG_NAMES: tuple[str, ...] = tuple(f.name for f in EXTRA_FLAGS)
XFLAG_INDEX: dict[str, int] = {name: i for i, name in enumerate(XFLAG_NAMES)}
N_XFLAGS = len(EXTRA_FLAGS)
# The module switch and the market's lists (XM1, XM2, XM8) are flags too, but not int16 values.
MARKET_FLAGS: tuple[str, ...] = ("extra_genes", "extra_start_pair", "extra_excluded")
DEFAULT_START_PAIR: tuple[str, ...] = ("Social Gene", "Population Explosion")  # XM2

(
    XF_REVEAL_PER_ROUND,
    XF_REVEAL_TIMING,
    XF_UNBOUGHT_DISCARDED,
    XF_DECK_MIXED_WITH_BASE,
    _,  # the 2 flags of a gene module (alarm.py): it names their indices itself
    _,
    _,  # a gene module's flag (cleanliness.py): it names its index itself (XFLAG_INDEX)
    _,  # the 4 flags of a gene module (hard_crust.py): it names their indices itself
    _,
    _,
    _,
    _,  # the 2 flags of a gene module (highly_adaptable.py): it names their indices itself
    _,
    _,  # the 2 flags of a gene module (more_than_a_mouthful.py): it names their indices itself
    _,
    _,  # the 4 flags of a gene module (social_gene.py): it names their indices itself
    _,
    _,
    _,
    _,  # a gene module's flag (camouflage_1.py): it names its index itself (XFLAG_INDEX)
    _,  # a gene module's flag (threat_display.py): it names its index itself (XFLAG_INDEX)
    _,  # the 2 flags of a gene module (flexible.py): it names their indices itself
    _,
    _,  # the 2 flags of a gene module (healing_1.py): it names their indices itself
    _,
    _,  # a gene module's flag (rebound.py): it names its index itself (XFLAG_INDEX)
    _,  # a gene module's flag (go_out_with_a_bang.py): it names its index itself (XFLAG_INDEX)
    _,  # the 2 flags of a gene module (short_life_span.py): it names their indices itself
    _,
    _,  # the 5 flags of a gene module (toxic_excretions.py): it names their indices itself
    _,
    _,
    _,
    _,
    _,  # the 2 flags of a gene module (population_explosion.py): it names their indices itself
    _,
    _,  # a gene module's flag (energy_conservation.py): it names its index itself (XFLAG_INDEX)
    _,  # a gene module's flag (environmental_sensing.py): it names its index itself (XFLAG_INDEX)
    _,  # the 4 flags of a gene module (healing_2.py): it names their indices itself
    _,
    _,
    _,
    _,  # a gene module's flag (suction_2.py): it names its index itself (XFLAG_INDEX)
) = range(N_XFLAGS - len(gene_tables.APPENDED_FLAGS))
for _name, _value in list(globals().items()):
    if _name.startswith("XF_"):
        _row = _name[3:].lower()
        assert XFLAG_NAMES[_value].endswith(_row), (_name, XFLAG_NAMES[_value])

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
