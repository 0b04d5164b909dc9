"""The decision points of spec §9 and how their options are encoded: one row each, in
:data:`DECISION_KINDS`, from which every table of kinds is derived.

Every decision a player makes goes through :func:`sim.ursuppe.engine.decisions.decide`: the engine
writes the legal options into ``Workspace.options[b, :n]`` (one row of integers each, laid out
as the kind's ``row`` says), then a forced choice from a scenario's tape or the player's strategy
picks a row. Amoeba numbers are 1-based in options (as in the rulebook and scenario files).
"""

from typing import NamedTuple

import numpy as np

from sim.ursuppe.rules import gene_tables
from sim.ursuppe.rules.ledger import in_ledger_order

# Choice keys of a scenario's forced choices (scenario-format.md), stored in Workspace.tape_kind:
# these and the gene modules' (gene_tables.CHOICE_KEYS), in the ledger's order (rules/ledger.toml).
# "buy" twice: CK_BUY_END is the implicit "stop" closing a {"buy": [...]} list.
CORE_CHOICE_KEYS: tuple[str, ...] = (
    "place",
    "move",
    "direction",
    "eat",
    "attack",
    "respond",
    "pay",
    "buy",
    "buy",
    "divide",
    "colour",
)
CHOICE_KEYS: tuple[str, ...] = in_ledger_order(
    "choice_keys", (*CORE_CHOICE_KEYS, *gene_tables.CHOICE_KEYS), lambda key: key
)
CK_PLACE = CHOICE_KEYS.index("place")
CK_MOVE = CHOICE_KEYS.index("move")
CK_DIRECTION = CHOICE_KEYS.index("direction")
CK_EAT = CHOICE_KEYS.index("eat")
CK_ATTACK = CHOICE_KEYS.index("attack")
CK_RESPOND = CHOICE_KEYS.index("respond")
CK_PAY = CHOICE_KEYS.index("pay")
CK_BUY = CHOICE_KEYS.index("buy")
CK_BUY_END = CHOICE_KEYS.index("buy", CK_BUY + 1)
CK_DIVIDE = CHOICE_KEYS.index("divide")
CK_COLOUR = CHOICE_KEYS.index("colour")


class DecisionKind(NamedTuple):
    """One decision point: its name (also the tally's ``decision:<name>``), the rule that asks
    it, how many integers of an option row identify an option (the rest are zero), the scenario
    choice key that forces it, and the option row's layout."""

    name: str
    rule: str
    width: int
    choice_key: int
    row: str


# The decision points the core rules ask; a gene module's come from its row (gene_tables.DECISIONS).
# Glutton's extra cube and Suction's cubes are part of the EAT row, the Social Gene taken from its
# holder a BUY row, Population Explosion's amoebas PLACE rows.
_CORE_KINDS: tuple[DecisionKind, ...] = (
    DecisionKind("place_setup", "S6", 2, CK_PLACE, "space, number"),
    DecisionKind("move", "M1", 1, CK_MOVE, "0 drift / 1 active / 2 stay"),
    DecisionKind("direction", "B2 6, Movement I, II", 1, CK_DIRECTION, "direction 0..3 N,E,S,W; 4 stay"),
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
    DecisionKind("colour", "TB4", 1, CK_COLOUR, "colour (double play II: which colour moves first)"),
    DecisionKind("place_explosion", "XG-20", 2, CK_PLACE, "space, number"),
)
DECISION_KINDS: tuple[DecisionKind, ...] = in_ledger_order(
    "decisions",
    (
        *_CORE_KINDS,
        *(
            DecisionKind(n, rule, w, CHOICE_KEYS.index(key), row)
            for n, rule, w, key, row in gene_tables.DECISIONS
        ),
    ),
    lambda kind: kind.name,
)
N_KINDS = len(DECISION_KINDS)
KIND_NAMES: tuple[str, ...] = tuple(k.name for k in DECISION_KINDS)
KIND_INDEX: dict[str, int] = {name: i for i, name in enumerate(KIND_NAMES)}
KIND_WIDTH: tuple[int, ...] = tuple(k.width for k in DECISION_KINDS)
# The choice key each decision kind accepts (DIVIDE also accepts CK_DIVIDE, BUY also CK_BUY_END).
KIND_CHOICE_KEY: tuple[int, ...] = tuple(k.choice_key for k in DECISION_KINDS)
# The kernels read plain module integers (numba globals); a gene module names its kinds' itself.
PLACE_SETUP = KIND_INDEX["place_setup"]
MOVE = KIND_INDEX["move"]
DIRECTION = KIND_INDEX["direction"]
EAT = KIND_INDEX["eat"]
ATTACK = KIND_INDEX["attack"]
RESPOND = KIND_INDEX["respond"]
PAY = KIND_INDEX["pay"]
BUY = KIND_INDEX["buy"]
PLACE_FREE = KIND_INDEX["place_free"]
DIVIDE = KIND_INDEX["divide"]
COLOUR = KIND_INDEX["colour"]
PLACE_EXPLOSION = KIND_INDEX["place_explosion"]

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
# The same as the kernels read them: a response's first and second answer by its code (RESP_ESCAPE,
# RESP_DEFENSE; RESP_NONE where there is none).
_ANSWER_CODE = {"escape": RESP_ESCAPE, "defense": RESP_DEFENSE}
RESPONSE_ANSWERS = np.array(
    [[_ANSWER_CODE[n] for n in names] + [RESP_NONE] * (2 - len(names)) for names in RESPONSE_NAMES], np.int64
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
