"""Gene identities (spec §7): the fixed index of every base-game gene.

A gene's numbers (price, MP, copies, weight, defect payment, lower genes) are rules data and
live in the rules file; what a gene *does* is code, and the kernels refer to it by the
constants below. The index order is the order of the table in §7 and is the gene index used
in results (bit ``i`` of a gene mask is gene ``i``).
"""

GENE_NAMES: tuple[str, ...] = (
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
)
N_GENES = len(GENE_NAMES)
GENE_INDEX: dict[str, int] = {name: i for i, name in enumerate(GENE_NAMES)}
# "Endurance" is another translation of Persistence (§7).
GENE_ALIASES: dict[str, str] = {"Endurance": "Persistence"}

INTELLIGENCE = 0
MOVEMENT_I = 1
SPORES = 2
SPEED = 3
DEFENSE = 4
ESCAPE = 5
SUBSTITUTION = 6
RAY_PROTECTION = 7
STREAMLINING = 8
TENTACLE = 9
HOLDING = 10
LIFE_EXPECTANCY = 11
FRUGALITY = 12
STRUGGLE = 13
PARASITISM = 14
DIVISION_RATE = 15
PERSISTENCE = 16
MOVEMENT_II = 17
AGGRESSION = 18
ARMOR = 19

ADVANCED_GENES: tuple[int, ...] = (PERSISTENCE, MOVEMENT_II, AGGRESSION, ARMOR)


def gene_index(name: str) -> int:
    """Index of a gene by its rulebook name (or a known alias); KeyError if unknown."""
    name = GENE_ALIASES.get(name, name)
    return GENE_INDEX[name]
