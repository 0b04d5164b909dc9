"""Gene identities (spec §7, extra genes XG-01..XG-26): the fixed index of every gene.

A gene's numbers (price, MP, copies, weight, defect payment, lower genes) are rules data and
live in the rules file; what a gene *does* is code, and the kernels refer to it by the
constants below. The index order is the order of the table in §7, then the 26 extra genes in
the order of the extra-gene table (XG-01..XG-26), and is the gene index used in results (bit
``i`` of a 64-bit gene mask is gene ``i``). Base genes keep the indices they had before the extra
genes, so a run written then reads the same.
"""

from sim.ursuppe.rules import gene_tables

# The genes this file has always named, in their index order. A gene added since (a gene module,
# docs/adding-a-gene.md) is not named here: the generated gene_tables.APPENDED_GENES come after them.
HISTORIC_GENE_NAMES: tuple[str, ...] = (
    "Intelligence",
    "Movement I",
    "Spores",
    "Speed",
    "Defense",
    "Escape",
    "Substitution",
    "Ray Protection",
    "Streamlining",
    "Tentacle",
    "Holding",
    "Life Expectancy",
    "Frugality",
    "Struggle for Survival",
    "Parasitism",
    "Division Rate",
    "Persistence",
    "Movement II",
    "Aggression",
    "Armor",
    # The extra genes (docs/rules.md §18; XG-nn = 20 + nn, one card each, off by default: XM1).
    "Doris & Frank Gene",
    "Glutton",
    "Alarm",
    "Cleanliness",
    "Hard Crust",
    "Migration Sensing",
    "Fast Food",
    "Highly Adaptable",
    "More Than a Mouthful",
    "Social Gene",
    "Camouflage 1",
    "Suction 1",
    "Thread Display",
    "Flexible",
    "Healing 1",
    "Rebound",
    "Go Out With a Bang",
    "Short Life Span",
    "Toxic Excretions",
    "Population Explosion",
    "Energy Conservation",
    "PhD",
    "Environmental Sensing",
    "Camouflage 2",
    "Healing 2",
    "Suction 2",
    # Number-only genes (docs/verdicts.md): slots a rules file fills with a gene declared by its
    # numbers alone (`effect = "none"`: price, MP, copies, weight and no behaviour), e.g. the
    # reference arms of a causal design (the null gene, a plain card) or a house rule's "new gene
    # that only changes numbers". The slot's name is replaced by the declared one
    # (RuleBook.gene_names); an undeclared slot has no copies. No kernel names these indices.
    *(f"Numbers-only gene {k}" for k in range(1, 5)),
)
GENE_NAMES: tuple[str, ...] = HISTORIC_GENE_NAMES + gene_tables.APPENDED_GENES
N_GENES = len(GENE_NAMES)
GENE_SET_BITS = 64  # gene sets are 64-bit masks (State.genes_bought, results, events, gene_sets.py)
N_BASE_GENES = 20  # §7: genes 0..19; the extra genes are N_BASE_GENES..N_EXTRA_END-1
N_EXTRA_END = 46  # XG-01..XG-26 end here; the number-only slots follow
NUMBER_ONLY_GENES: tuple[int, ...] = tuple(range(N_EXTRA_END, len(HISTORIC_GENE_NAMES)))
if N_GENES > GENE_SET_BITS:
    raise ValueError(
        f"{N_GENES} genes (genes.GENE_NAMES with the gene modules' gene_tables.APPENDED_GENES) do not fit "
        f"the {GENE_SET_BITS}-bit gene sets (State.genes_bought, results, events, engine/gene_sets.py)"
    )
GENE_INDEX: dict[str, int] = {name: i for i, name in enumerate(GENE_NAMES)}
# "Endurance" is another translation of Persistence (§7).
GENE_ALIASES: dict[str, str] = {
    "Endurance": "Persistence",
    # XG-09, XG-13, XG-22: the seed's spellings and the probable English names.
    "More Than a Mouthfull": "More Than a Mouthful",
    "Threat Display": "Thread Display",
    "PhD Intelligence": "PhD",
}

INTELLIGENCE = 0
# Movement I (1): sim/ursuppe/engine/genes/movement_i.py
# Spores (2): sim/ursuppe/engine/genes/spores.py
# Speed (3): sim/ursuppe/engine/genes/speed.py
# Defense (4): sim/ursuppe/engine/genes/defense.py
# Escape (5): sim/ursuppe/engine/genes/escape.py
# Substitution (6): sim/ursuppe/engine/genes/substitution.py
RAY_PROTECTION = 7
# Streamlining (8): sim/ursuppe/engine/genes/streamlining.py
# Tentacle (9): sim/ursuppe/engine/genes/tentacle.py
# Holding (10): sim/ursuppe/engine/genes/holding.py
# Life Expectancy (11): sim/ursuppe/engine/genes/life_expectancy.py
# Frugality (12): sim/ursuppe/engine/genes/frugality.py
# Struggle for Survival (13): sim/ursuppe/engine/genes/struggle_for_survival.py
# Parasitism (14): sim/ursuppe/engine/genes/parasitism.py
# Division Rate (15): sim/ursuppe/engine/genes/division_rate.py
# Persistence (16): sim/ursuppe/engine/genes/persistence.py
# Movement II (17): sim/ursuppe/engine/genes/movement_ii.py
# Aggression (18): sim/ursuppe/engine/genes/aggression.py
# Armor (19): sim/ursuppe/engine/genes/armor.py

DORIS_FRANK = 20  # XG-01
# XG-02 Glutton (21): sim/ursuppe/engine/genes/glutton.py
# XG-03 Alarm (22): sim/ursuppe/engine/genes/alarm.py
# XG-04 Cleanliness (23): sim/ursuppe/engine/genes/cleanliness.py
# XG-05 Hard Crust (24): sim/ursuppe/engine/genes/hard_crust.py
# XG-06 Migration Sensing (25): sim/ursuppe/engine/genes/migration_sensing.py
# XG-07 Fast Food (26): sim/ursuppe/engine/genes/fast_food.py
# XG-08 Highly Adaptable (27): sim/ursuppe/engine/genes/highly_adaptable.py
# XG-09 More Than a Mouthful (28): sim/ursuppe/engine/genes/more_than_a_mouthful.py
# XG-10 Social Gene (29): sim/ursuppe/engine/genes/social_gene.py
# XG-11 Camouflage 1 (30): sim/ursuppe/engine/genes/camouflage_1.py
# XG-12 Suction 1 (31): sim/ursuppe/engine/genes/suction_1.py
# XG-13 Thread Display (32): sim/ursuppe/engine/genes/threat_display.py
# XG-14 Flexible (33): sim/ursuppe/engine/genes/flexible.py
# XG-15 Healing 1 (34): sim/ursuppe/engine/genes/healing_1.py
# XG-16 Rebound (35): sim/ursuppe/engine/genes/rebound.py
# XG-17 Go Out With a Bang (36): sim/ursuppe/engine/genes/go_out_with_a_bang.py
# XG-18 Short Life Span (37): sim/ursuppe/engine/genes/short_life_span.py
# XG-19 Toxic Excretions (38): sim/ursuppe/engine/genes/toxic_excretions.py
# XG-20 Population Explosion (39): sim/ursuppe/engine/genes/population_explosion.py
# XG-21 Energy Conservation (40): sim/ursuppe/engine/genes/energy_conservation.py
PHD = 41  # XG-22
# XG-23 Environmental Sensing (42): sim/ursuppe/engine/genes/environmental_sensing.py
# XG-24 Camouflage 2 (43): sim/ursuppe/engine/genes/camouflage_2.py
# XG-25 Healing 2 (44): sim/ursuppe/engine/genes/healing_2.py
# XG-26 Suction 2 (45): sim/ursuppe/engine/genes/suction_2.py

ADVANCED_GENES: tuple[int, ...] = (
    GENE_INDEX["Persistence"],  # sim/ursuppe/engine/genes/persistence.py
    GENE_INDEX["Movement II"],  # sim/ursuppe/engine/genes/movement_ii.py
    GENE_INDEX["Aggression"],  # sim/ursuppe/engine/genes/aggression.py
    GENE_INDEX["Armor"],  # sim/ursuppe/engine/genes/armor.py
    PHD,
    GENE_INDEX["Environmental Sensing"],  # XG-23 (sim/ursuppe/engine/genes/environmental_sensing.py)
    GENE_INDEX["Camouflage 2"],  # XG-24 (sim/ursuppe/engine/genes/camouflage_2.py)
    GENE_INDEX["Healing 2"],  # XG-25 (sim/ursuppe/engine/genes/healing_2.py)
    GENE_INDEX["Suction 2"],  # XG-26 (sim/ursuppe/engine/genes/suction_2.py)
)
# The gene modules' genes added since (after the number-only slots) are extra genes too (§18).
ADDED_GENES: tuple[int, ...] = tuple(range(len(HISTORIC_GENE_NAMES), N_GENES))
EXTRA_GENES: tuple[int, ...] = (*range(N_BASE_GENES, N_EXTRA_END), *ADDED_GENES)


def xg_id(gene: int) -> str:
    """The rule id of an extra gene ("XG-01".."XG-26")."""
    return f"XG-{gene - N_BASE_GENES + 1:02d}"


def gene_index(name: str) -> int:
    """Index of a gene by its rulebook name (or a known alias); KeyError if unknown."""
    name = GENE_ALIASES.get(name, name)
    return GENE_INDEX[name]
