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
GLUTTON = 21  # XG-02
ALARM = 22  # XG-03
CLEANLINESS = 23  # XG-04
HARD_CRUST = 24  # XG-05
MIGRATION_SENSING = 25  # XG-06
FAST_FOOD = 26  # XG-07
HIGHLY_ADAPTABLE = 27  # XG-08
MOUTHFUL = 28  # XG-09
SOCIAL_GENE = 29  # XG-10
CAMOUFLAGE_1 = 30  # XG-11
SUCTION_1 = 31  # XG-12
THREAT_DISPLAY = 32  # XG-13
FLEXIBLE = 33  # XG-14
HEALING_1 = 34  # XG-15
# XG-16 Rebound (35): sim/ursuppe/engine/genes/rebound.py
BANG = 36  # XG-17
SHORT_LIFE_SPAN = 37  # XG-18
# XG-19 Toxic Excretions (38): sim/ursuppe/engine/genes/toxic_excretions.py
POP_EXPLOSION = 39  # XG-20
ENERGY_CONSERVATION = 40  # XG-21
PHD = 41  # XG-22
ENVIRONMENTAL_SENSING = 42  # XG-23
CAMOUFLAGE_2 = 43  # XG-24
HEALING_2 = 44  # XG-25
SUCTION_2 = 45  # XG-26

ADVANCED_GENES: tuple[int, ...] = (
    GENE_INDEX["Persistence"],  # sim/ursuppe/engine/genes/persistence.py
    GENE_INDEX["Movement II"],  # sim/ursuppe/engine/genes/movement_ii.py
    GENE_INDEX["Aggression"],  # sim/ursuppe/engine/genes/aggression.py
    GENE_INDEX["Armor"],  # sim/ursuppe/engine/genes/armor.py
    PHD,
    ENVIRONMENTAL_SENSING,
    CAMOUFLAGE_2,
    HEALING_2,
    SUCTION_2,
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
