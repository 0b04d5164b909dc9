"""The decision points of spec §11 (Q1-Q18) and how their options are encoded: one row each, in
:data:`DECISION_KINDS`, from which every table is derived.

Every decision goes through :func:`sim.chromosome.engine.decisions.decide`: the engine writes the
legal options into ``Workspace.options[b, :n]`` (one row of integers each, laid out as the kind's
``row`` says; rooms by index, written as tile numbers in scenario files) and a scenario's forced
choice, or the player's strategy, picks one.
"""

from typing import NamedTuple


class DecisionKind(NamedTuple):
    """One decision point: its name, the rule that asks it, the integers of an option row that
    identify an option, the scenario choice key that forces it (spec §13) and the row's layout."""

    name: str
    rule: str
    width: int
    choice_key: str
    row: str


DECISION_KINDS: tuple[DecisionKind, ...] = (
    DecisionKind("start_room", "Q1 S7", 1, "start_room", "room"),
    DecisionKind("step", "Q2 T2", 1, "step", "STEP_* code"),
    DecisionKind("move", "Q3 M1", 3, "move", "from room, to room, tokens"),
    DecisionKind("discard_black", "Q5 G4 K2", 2, "discard_black", "B genes returned, 1 = the fate too"),
    DecisionKind("action", "Q6 T3 Q9-Q12 Q17", 5, "action", "ACT_* code, then its parameters"),
    DecisionKind("fate_gene", "Q7 K2", 1, "fate_gene", "colour the fate replaces, -1 = none"),
    DecisionKind("any_gene", "Q7 K1", 1, "any_gene", "colour paid for a '?'"),
    DecisionKind(
        "pay_energy",
        "Q8 K3-K5",
        2,
        "pay_energy",
        "room bit mask of groups turned, trophies packed 4 bits per owner",
    ),
    DecisionKind("boost", "Q13 F2 F3", 2, "boost", "R genes exhausted, fate spent"),
    DecisionKind("reroll", "Q14 D3", 1, "reroll", "0 keep / 1 spend 1 fate on a reroll"),
    DecisionKind("area_first", "Q15 X2", 1, "area_first", "room of the area tested next"),
    DecisionKind("remove", "Q16 X4", 1, "remove", "room a token is removed from"),
    # Q9 option B's rooms one at a time (the scenario choice {"action": "growth", "rooms": [...]}
    # is the ACTION row then one of these per room)
    DecisionKind("growth_room", "Q9 A3", 1, "growth_room", "room a new token goes to"),
)
(
    START_ROOM,
    STEP,
    MOVE,
    DISCARD_BLACK,
    ACTION,
    FATE_GENE,
    ANY_GENE,
    PAY_ENERGY,
    BOOST,
    REROLL,
    AREA_FIRST,
    REMOVE,
    GROWTH_ROOM,
) = range(len(DECISION_KINDS))
N_KINDS = len(DECISION_KINDS)
KIND_NAMES: tuple[str, ...] = tuple(k.name for k in DECISION_KINDS)
KIND_WIDTH: tuple[int, ...] = tuple(k.width for k in DECISION_KINDS)
CHOICE_KEYS: tuple[str, ...] = tuple(dict.fromkeys(k.choice_key for k in DECISION_KINDS))
KIND_CHOICE_KEY: tuple[int, ...] = tuple(CHOICE_KEYS.index(k.choice_key) for k in DECISION_KINDS)
assert all(globals()[k.name.upper()] == i for i, k in enumerate(DECISION_KINDS))

# STEP (T2): what a player does next in its turn.
STEP_MOVE, STEP_RESTORE, STEP_DISCARD, STEP_ACTION, STEP_END = range(5)
STEP_NAMES = ("move", "restore", "discard", "action", "end")

# ACTION (T3): the action and its parameters (Q9-Q12; special actions: Q17).
ACT_PASS, ACT_GROWTH_GROUP, ACT_GROWTH_ROOMS, ACT_EVOLUTION, ACT_EVOLUTION_RANDOM, ACT_SPARK = range(6)
ACT_IMPULSE_PLACE, ACT_IMPULSE_DRAW, ACT_SPECIAL, ACT_NONE = range(6, 10)
# ACT_GROWTH_GROUP: n, room · ACT_GROWTH_ROOMS: n (the rooms: GROWTH_ROOM) · ACT_EVOLUTION: colour ·
# ACT_SPARK: attacking room, target room · ACT_IMPULSE_*: room · ACT_SPECIAL: action index, params
# (specials.py) · ACT_NONE: no action (Supergen's extra action declined, AL1; offered instead of Pass)
# The main actions by name (scenario files, soup verdict --action) and the ACT_* codes each is taken by
MAIN_ACTIONS: dict[str, tuple[int, ...]] = {
    "growth": (ACT_GROWTH_GROUP, ACT_GROWTH_ROOMS),  # A1-A3, both options
    "evolution": (ACT_EVOLUTION, ACT_EVOLUTION_RANDOM),  # A4-A7, a named colour or a random gene
    "spark": (ACT_SPARK,),  # A8
    "impulse": (ACT_IMPULSE_PLACE, ACT_IMPULSE_DRAW),  # A10-A12
}
DENY_SPECIAL_BIT = 16  # Rules.deny_action: ACT_* code c is bit c, special action k bit 16 + k
