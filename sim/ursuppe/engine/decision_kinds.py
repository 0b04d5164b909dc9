"""The decision points of spec §9 and how their options are encoded: one row each, in
:data:`DECISION_KINDS`, from which every table of kinds is derived.

Every decision a player makes goes through :func:`sim.ursuppe.engine.decisions.decide`: the engine
writes the legal options into ``Workspace.options[b, :n]`` (one row of integers each, laid out
as the kind's ``row`` says), then a forced choice from a scenario's tape or the player's strategy
picks a row. Amoeba numbers are 1-based in options (as in the rulebook and scenario files).
"""

from typing import NamedTuple

from sim.ursuppe.rules import gene_tables

# Choice keys of a scenario's forced choices (scenario-format.md), stored in Workspace.tape_kind.
# "buy" twice: CK_BUY_END is the implicit "stop" closing a {"buy": [...]} list.
CHOICE_KEYS: tuple[str, ...] = (
    "place",
    "move",
    "direction",
    *gene_tables.SPEED_CHOICE_KEYS,  # Speed (sim/ursuppe/engine/genes/speed.py)
    *gene_tables.TENTACLE_CHOICE_KEYS,  # Tentacle (sim/ursuppe/engine/genes/tentacle.py)
    *gene_tables.HOLDING_CHOICE_KEYS,  # Holding (sim/ursuppe/engine/genes/holding.py)
    "eat",
    "attack",
    "respond",
    "pay",
    "buy",
    "buy",
    "divide",
    *gene_tables.AGGRESSION_CHOICE_KEYS,  # R1 (sim/ursuppe/engine/genes/aggression.py)
    "colour",
    # The extra genes (docs/rules.md §18)
    *gene_tables.FAST_FOOD_CHOICE_KEYS,  # XG-07 (sim/ursuppe/engine/genes/fast_food.py)
    *gene_tables.CLEANLINESS_CHOICE_KEYS,  # XG-04 (sim/ursuppe/engine/genes/cleanliness.py)
    *gene_tables.REBOUND_CHOICE_KEYS,  # XG-16 (sim/ursuppe/engine/genes/rebound.py)
    *gene_tables.HARD_CRUST_CHOICE_KEYS,  # XG-05 (sim/ursuppe/engine/genes/hard_crust.py)
    *gene_tables.HIGHLY_ADAPTABLE_CHOICE_KEYS,  # XG-08 (sim/ursuppe/engine/genes/highly_adaptable.py)
    *gene_tables.HEALING_1_CHOICE_KEYS,  # XG-15, XG-25 (sim/ursuppe/engine/genes/healing_1.py)
    *gene_tables.APPENDED_CHOICE_KEYS,  # the gene modules' (docs/adding-a-gene.md)
)
(
    CK_PLACE,
    CK_MOVE,
    CK_DIRECTION,
    _,  # a gene module's key (speed.py)
    _,  # a gene module's key (tentacle.py)
    _,  # a gene module's key (holding.py)
    CK_EAT,
    CK_ATTACK,
    CK_RESPOND,
    CK_PAY,
    CK_BUY,
    CK_BUY_END,
    CK_DIVIDE,
    _,  # a gene module's key (aggression.py)
    CK_COLOUR,
    _,  # a gene module's key (fast_food.py)
    _,  # a gene module's key (cleanliness.py)
    _,  # a gene module's key (rebound.py)
    _,  # a gene module's key (hard_crust.py)
    _,  # a gene module's key (highly_adaptable.py)
    _,  # a gene module's key (healing_1.py)
) = range(len(CHOICE_KEYS) - len(gene_tables.APPENDED_CHOICE_KEYS))


class DecisionKind(NamedTuple):
    """One decision point: its name (also the tally's ``decision:<name>``), the rule that asks
    it, how many integers of an option row identify an option (the rest are zero), the scenario
    choice key that forces it, and the option row's layout."""

    name: str
    rule: str
    width: int
    choice_key: int
    row: str


def _declared(rows: tuple[tuple[str, str, int, str, str], ...]) -> tuple[DecisionKind, ...]:
    """A gene module's decision rows (gene_tables.py), their choice keys by name."""
    return tuple(DecisionKind(n, rule, w, CHOICE_KEYS.index(key), row) for n, rule, w, key, row in rows)


DECISION_KINDS: tuple[DecisionKind, ...] = (
    DecisionKind("place_setup", "S6", 2, CK_PLACE, "space, number"),
    DecisionKind("move", "M1", 1, CK_MOVE, "0 drift / 1 active / 2 stay"),
    DecisionKind("direction", "B2 6, Movement I, II", 1, CK_DIRECTION, "direction 0..3 N,E,S,W; 4 stay"),
    *_declared(gene_tables.SPEED_DECISIONS),  # Speed (sim/ursuppe/engine/genes/speed.py)
    *_declared(gene_tables.TENTACLE_DECISIONS),  # Tentacle (sim/ursuppe/engine/genes/tentacle.py)
    *_declared(gene_tables.HOLDING_DECISIONS),  # Holding (sim/ursuppe/engine/genes/holding.py)
    DecisionKind(
        "eat",
        "M4, F1-F4, XG-02, XG-12",
        8,
        CK_EAT,
        "cubes per colour from the own space (6 slots), victim player or -1, suction cubes",
    ),
    DecisionKind("attack", "A1, A5 retry", 2, CK_ATTACK, "target player, number (-1, -1 = none)"),
    DecisionKind("respond", "A2-A4", 1, CK_RESPOND, "RESP_* code"),
    DecisionKind("pay", "E2", 3, CK_PAY, "gene mask low word, high word (gene_sets.py), BP"),
    DecisionKind(
        "buy",
        "G1-G4, XG-10",
        3,
        CK_BUY,
        "gene, gene given up (-1), 1 = taken from its holder (XG-10); (-1, -1) = stop",
    ),
    DecisionKind("place_free", "D2", 2, CK_PLACE, "space, number"),
    DecisionKind("divide", "D3-D4", 2, CK_PLACE, "space, number; (-1, -1) = stop (also CK_DIVIDE)"),
    *_declared(gene_tables.AGGRESSION_DECISIONS),  # R1 (sim/ursuppe/engine/genes/aggression.py)
    DecisionKind("colour", "TB4", 1, CK_COLOUR, "colour (double play II: which colour moves first)"),
    # The extra genes (§18). Glutton's extra cube and Suction's cubes are part of the EAT row, the
    # Social Gene taken from its holder a BUY row, Population Explosion's amoebas PLACE rows.
    *_declared(gene_tables.FAST_FOOD_DECISIONS),  # XG-07 (sim/ursuppe/engine/genes/fast_food.py)
    *_declared(gene_tables.CLEANLINESS_DECISIONS),  # XG-04 (sim/ursuppe/engine/genes/cleanliness.py)
    *_declared(gene_tables.REBOUND_DECISIONS),  # XG-16 (sim/ursuppe/engine/genes/rebound.py)
    *_declared(gene_tables.HARD_CRUST_DECISIONS),  # XG-05 (sim/ursuppe/engine/genes/hard_crust.py)
    *_declared(gene_tables.HIGHLY_ADAPTABLE_DECISIONS),  # XG-08 (engine/genes/highly_adaptable.py)
    *_declared(gene_tables.HEALING_1_DECISIONS),  # XG-15, XG-25 (sim/ursuppe/engine/genes/healing_1.py)
    DecisionKind("place_explosion", "XG-20", 2, CK_PLACE, "space, number"),
    *_declared(gene_tables.APPENDED_DECISIONS),  # the gene modules' (docs/adding-a-gene.md)
)
# The kernels read plain module integers and tuples (numba globals), derived from the rows.
(
    PLACE_SETUP,
    MOVE,
    DIRECTION,
    _,  # a gene module's kind (speed.py): it names its index itself (KIND_INDEX)
    _,  # a gene module's kind (tentacle.py): it names its index itself (KIND_INDEX)
    _,  # a gene module's kind (holding.py): it names its index itself (KIND_INDEX)
    EAT,
    ATTACK,
    RESPOND,
    PAY,
    BUY,
    PLACE_FREE,
    DIVIDE,
    _,  # a gene module's kind (aggression.py): it names its index itself (KIND_INDEX)
    COLOUR,
    _,  # a gene module's kind (fast_food.py): it names its index itself (KIND_INDEX)
    _,  # a gene module's kind (cleanliness.py): it names its index itself (KIND_INDEX)
    _,  # a gene module's kind (rebound.py): it names its index itself (KIND_INDEX)
    _,  # a gene module's kind (hard_crust.py): it names its index itself (KIND_INDEX)
    _,  # a gene module's kind (highly_adaptable.py): it names its index itself (KIND_INDEX)
    _,  # a gene module's kind (healing_1.py): it names its index itself (KIND_INDEX)
    PLACE_EXPLOSION,
) = range(len(DECISION_KINDS) - len(gene_tables.APPENDED_DECISIONS))
N_KINDS = len(DECISION_KINDS)
KIND_NAMES: tuple[str, ...] = tuple(k.name for k in DECISION_KINDS)
KIND_INDEX: dict[str, int] = {name: i for i, name in enumerate(KIND_NAMES)}
KIND_WIDTH: tuple[int, ...] = tuple(k.width for k in DECISION_KINDS)
# The choice key each decision kind accepts (DIVIDE also accepts CK_DIVIDE, BUY also CK_BUY_END).
KIND_CHOICE_KEY: tuple[int, ...] = tuple(k.choice_key for k in DECISION_KINDS)
# Each constant names its row (a constant out of order would silently decode the wrong kind).
_CONSTANT_OF = {}
_GENE_MODULE_KINDS = {
    row[0] for n in dir(gene_tables) if n.endswith("_DECISIONS") for row in getattr(gene_tables, n)
}
assert all(
    globals()[_CONSTANT_OF.get(k.name, k.name.upper())] == i
    for i, k in enumerate(DECISION_KINDS)
    if k.name not in _GENE_MODULE_KINDS
)

MOVE_DRIFT = 0
MOVE_ACTIVE = 1
MOVE_STAY = 2

# Answers to an attack (A2): which of Escape and Defense, in which order.
RESP_NONE = 0
RESP_ESCAPE = 1
RESP_DEFENSE = 2
RESP_ESCAPE_DEFENSE = 3
RESP_DEFENSE_ESCAPE = 4
RESPONSE_NAMES: tuple[tuple[str, ...], ...] = (
    (),
    ("escape",),
    ("defense",),
    ("escape", "defense"),
    ("defense", "escape"),
)

EAT_VICTIM_SLOT = 6  # column of the parasitized player in an EAT option
# Column of an EAT option's cubes taken from neighbouring spaces (Suction, XG-12, XG-26): 0 = none,
# else up to two cubes packed 11 bits each, a cube as 1 + 8 * space + colour (pack_suction).
EAT_SUCTION_SLOT = 7
SUCTION_BITS = 11


def pack_suction(cubes: list[tuple[int, int]]) -> int:
    """(space, colour) pairs -> the EAT row's suction column."""
    packed = 0
    for i, (space, colour) in enumerate(cubes):
        packed |= (1 + 8 * space + colour) << (SUCTION_BITS * i)
    return packed


def unpack_suction(packed: int) -> list[tuple[int, int]]:
    """The EAT row's suction column -> (space, colour) pairs."""
    out = []
    while packed:
        cube = (packed & ((1 << SUCTION_BITS) - 1)) - 1
        out.append((cube // 8, cube % 8))
        packed >>= SUCTION_BITS
    return out
