"""The decision points of spec §9 and how their options are encoded.

Every decision a player makes goes through :func:`sim.ursuppe.decisions.decide`: the engine
writes the legal options into ``Workspace.options[b, :n]`` (one row of integers each, layout
below), then a forced choice from a scenario's tape or the player's strategy picks a row.

| kind | rule | option row | scenario choice key |
|---|---|---|---|
| PLACE_SETUP | S6 | space, number | place |
| MOVE | M1 | 0 drift / 1 active / 2 stay | move |
| DIRECTION | B2 6, Movement I, II | direction 0..3 N,E,S,W; 4 stay | direction |
| SECOND_MOVE | Speed | 0 / 1 | second_move |
| CARRY | Tentacle | cubes per colour (6 slots) | carry |
| CLING | Holding | 0 / 1 | cling |
| EAT | M4, F1-F4 | cubes per colour (6 slots), victim player or -1 | eat |
| ATTACK | A1, A5 retry | target player, number (-1, -1 = none) | attack |
| RESPOND | A2-A4 | RESP_* code | respond |
| PAY | E2 | gene bit mask, BP | pay |
| BUY | G1-G4 | gene, gene given up (-1); (-1, -1) = stop | buy |
| PLACE_FREE | D2 | space, number | place |
| DIVIDE | D3-D4 | space, number; (-1, -1) = stop | place / divide |
| AGGRESS | R1 | own number, target player, target number; all -1 = none | aggress |
| COLOUR | TB4 | colour (double play II: which of a player's colours moves first) | colour |

Amoeba numbers are 1-based in options (as in the rulebook and scenario files).
"""

PLACE_SETUP = 0
MOVE = 1
DIRECTION = 2
SECOND_MOVE = 3
CARRY = 4
CLING = 5
EAT = 6
ATTACK = 7
RESPOND = 8
PAY = 9
BUY = 10
PLACE_FREE = 11
DIVIDE = 12
AGGRESS = 13
COLOUR = 14
N_KINDS = 15

KIND_NAMES: tuple[str, ...] = (
    "place_setup",
    "move",
    "direction",
    "second_move",
    "carry",
    "cling",
    "eat",
    "attack",
    "respond",
    "pay",
    "buy",
    "place_free",
    "divide",
    "aggress",
    "colour",
)

# Integers of an option row that identify it (the rest are zero).
KIND_WIDTH: tuple[int, ...] = (2, 1, 1, 1, 6, 1, 7, 2, 1, 2, 2, 2, 2, 3, 1)

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

# Choice keys of a scenario's forced choices (scenario-format.md), stored in Workspace.tape_kind.
CK_PLACE = 0
CK_MOVE = 1
CK_DIRECTION = 2
CK_SECOND_MOVE = 3
CK_CARRY = 4
CK_CLING = 5
CK_EAT = 6
CK_ATTACK = 7
CK_RESPOND = 8
CK_PAY = 9
CK_BUY = 10
CK_BUY_END = 11  # the implicit "stop" closing a {"buy": [...]} list
CK_DIVIDE = 12
CK_AGGRESS = 13
CK_COLOUR = 14

CHOICE_KEYS: tuple[str, ...] = (
    "place",
    "move",
    "direction",
    "second_move",
    "carry",
    "cling",
    "eat",
    "attack",
    "respond",
    "pay",
    "buy",
    "buy",
    "divide",
    "aggress",
    "colour",
)

# The choice key each decision kind accepts (DIVIDE also accepts CK_DIVIDE, BUY also CK_BUY_END).
KIND_CHOICE_KEY: tuple[int, ...] = (
    CK_PLACE,
    CK_MOVE,
    CK_DIRECTION,
    CK_SECOND_MOVE,
    CK_CARRY,
    CK_CLING,
    CK_EAT,
    CK_ATTACK,
    CK_RESPOND,
    CK_PAY,
    CK_BUY,
    CK_PLACE,
    CK_PLACE,
    CK_AGGRESS,
    CK_COLOUR,
)
