"""The rules' schema: what the rules TOML holds and what the kernels read.

:class:`Rules` is what the kernels read (a NamedTuple of scalars and small numpy arrays for one
player count). The rest names the TOML's sections and keys, the bounds every number must keep
(no game can overflow its state) and the flag rows (:data:`FLAG_ROWS`): one row a flag, from which
its TOML key, its validation (validation.py) and the Rules field it sets (book.py) follow.
"""

import math
from pathlib import Path
from typing import NamedTuple

import numpy as np

from sim.ursuppe.rules.directions import DIRECTION_NAMES
from sim.ursuppe.rules.extra_flags import EXTRA_FLAGS, MARKET_FLAGS
from sim.ursuppe.rules.genes import N_GENES


class Rules(NamedTuple):
    """The rules for one player count, as the kernels read them (field comments cite rule ids)."""

    players: int  # P, one of the rules' player counts (3..6)
    n_spaces: int  # C1: 19
    neighbours: np.ndarray  # int8 [n_spaces, 4]: [N, E, S, W], -1 = obstacle (B1)
    # int64 [n_spaces]: bit t set for every neighbour t of space s (B1), on a board of at most
    # MASK_SPACES spaces (all 0 on a bigger one: the kernels then read ``neighbours``)
    neighbour_mask: np.ndarray
    compass: np.ndarray  # int8 [7]: die face 1..6 -> direction code (board.py); [0] unused (= STAY)
    deck_ozone: np.ndarray  # int16 [n_cards] (V1, V5)
    deck_drift: np.ndarray  # int8 [n_cards]: 0..3 = N,E,S,W; 4 = none (V1)
    first_round_flip: bool  # V3/V4 flag
    finish_zone_start: int  # K1 flag
    holding_clings_to_own: bool  # Holding flag
    defect_genes_may_overpay: bool  # E2 flag (docs/decisions.md)
    defense_and_escape_same_attack: bool  # A2 flag
    answers_once_per_round: bool  # A2-A4 flag: Escape and Defense each once per round per amoeba
    attack_only_when_starving: bool  # A1 flag: attack only when no legal meal at all
    armor_blocks_own_attacks: bool  # A1 flag: Armor also protects from its owner's own attacks
    clinging_after_first_step: bool  # Holding flag: with Speed, cling after each step
    gene_meals_optional: bool  # M4/F1-F4 flag: gene patterns may be declined
    aggression_lost_fight_dp: bool  # R4 flag: a Phase-5 attacker that loses a Defense fight gets DP
    persistence_after_clinging: bool  # A3/A5 flag: Persistence's retry also after clinging
    amoeba_advance: np.ndarray  # int16 [amoebas_per_player + 1] (K2; PX19 with 5-6 players)
    gene_advance: np.ndarray  # int16 [k]; counts past the end use the last value (K2)
    amoebas_per_player: int  # C2, for this player count (PX1: 6 with 5-6 players)
    cubes_per_colour: int  # C3
    cubes_per_space: int  # S2
    start_bp: int  # S1
    setup_first_dp: int  # S6, for this player count (PX10: flag setup_dp_5_6 with 5-6 players)
    income: int  # D1, for this player count (PX16: 11 with 5-6 players)
    division_cost: int  # D3
    division_cost_division_rate: int  # D3
    active_move_cost: int  # M3
    attack_cost: int  # A2
    escape_cost: int  # A3
    defense_cost: int  # A4
    excretion: int  # M4
    starvation_dp: int  # M4
    death_dp: int  # X1
    death_dp_life_expectancy: int  # X1
    natural_death_cubes: int  # X1
    violent_death_cubes: int  # A6
    aggression_death_cubes: int  # R3
    aggression_armor_dp: int  # R3
    lost_defense_dp: int  # R4
    standard_shape: np.ndarray  # int8 [P-1], largest first (M4)
    substitution_shapes: np.ndarray  # int8 [k, P-1], largest first (F2; flag substitution_3_1 applied)
    tentacle_cubes: int  # Tentacle, for this player count (PX21)
    frugality_fewer: int  # F1
    parasitism_fewer: int  # F4
    parasitism_victim_pays: int  # F4
    # The shapes a player may eat, one set per combination c = (holds Substitution) + 2 * (holds
    # Frugality), each shape sorted ascending, in option order (meal_shapes.py):
    meal_shapes: np.ndarray  # int8 [4, MAX_SHAPES, P-1]: standard (M4), Substitution (F2), fewer (F1, F3)
    n_meal_shapes: np.ndarray  # int8 [4]; set 0 is the standard shape alone (M4, A1)
    parasite_shapes: np.ndarray  # int8 [4, MAX_SHAPES, P-1]: set c's shapes with cubes fewer (F4)
    n_parasite_shapes: np.ndarray  # int8 [4]
    # XG-02 Glutton: the same four sets, each shape with one cube more (meal_shapes.glutton_tables)
    glutton_shapes: np.ndarray  # int8 [4, MAX_GLUTTON_SHAPES, P-1]; set 0: Glutton's standard pattern
    n_glutton_shapes: np.ndarray  # int8 [4]
    glutton_parasite_shapes: np.ndarray  # int8 [4, MAX_GLUTTON_SHAPES, P-1]: with Parasitism (F4)
    n_glutton_parasite_shapes: np.ndarray  # int8 [4]
    # The four tables above as the feeding kernels read them (meal_shapes.code_tables): for table t
    # (meal_shapes.*_TABLE) and set c, every arrangement of every shape packed into one code, in
    # the order of the EAT options; set 0 of MEAL_TABLE is the standard pattern's (A1)
    meal_codes: np.ndarray  # int64 [4, 4, m]
    n_meal_codes: np.ndarray  # int16 [4, 4]
    gene_price: np.ndarray  # int16 [N_GENES] (G1; PX22: flag price_5_6 with 5-6 players)
    gene_mp: np.ndarray  # int16 [N_GENES] (E2)
    gene_copies: np.ndarray  # int8 [N_GENES], for this player count (S3, I4; PX4 and flag deck_5_6)
    gene_weight: np.ndarray  # int8 [N_GENES] (K2)
    gene_defect_payment: np.ndarray  # int16 [N_GENES] (E2)
    gene_lower: np.ndarray  # int8 [N_GENES, 2]: lower genes given up (G3), -1 padded
    gene_blocks: np.ndarray  # int64 [N_GENES]: bit mask of the lower genes a holder may not buy (G4)
    # int64 [max price + 1]: at index x, the genes whose price (gene_price) is at most x, as a mask:
    # what x BP buy in a game without the extra genes' price changes (G1; purchase_options)
    priced_within: np.ndarray
    # int8 [k]: the advanced genes a game can hold (gene_blocks != 0, below n_genes): G4's mask
    # (players.blocked_by_advanced) looks at these only, 4 genes in the base game instead of 20
    advanced_genes: np.ndarray
    # The 2-player dummy variant (TD1-TD9): the dummy's player index (the last colour), -1 in
    # every other game; it never decides (decisions.dummy_choice) and its rules are these fields.
    dummy: int
    dummy_scores: bool  # TD8 flag dummy_scores: its marker advances by K2
    dummy_income: bool  # TD6 flag dummy_bp = "normal_income": start BP and income as a player
    dummy_amoebas: int  # TD5 flag dummy_amoebas_per_round: free amoebas it places in Phase 4
    # Colours one player controls (double play I and II, docs/rules.md §17). ``side[p] == side[q]``:
    # colour q is not "another player" for colour p (Holding, attacks, Armor, Parasitism,
    # Aggression). One side per colour, except double play II (TB10 flag
    # double2_partner_is_opponent false) and double play I with double1_partner_is_opponent false.
    side: np.ndarray  # int8 [P]
    # The player each colour belongs to (rules.VARIANT_PLAYER_OF; its own index in other games):
    # whose interests a strategy weighs (a double play's other colour is no opponent to hurt).
    team: np.ndarray  # int8 [P]
    # Double play II (TB3): the other colour whose BP, genes and score marker colour p shares (the
    # engine keeps both colours' copies equal), -1 in every other game.
    partner: np.ndarray  # int8 [P]
    colour_choice: bool  # TB4 flag double2_colour_order = "choice": a player picks its first colour
    # TB1 (flag double2_eat_partner_colour false): the colour whose cubes colour p never eats (its
    # partner's, eaten "as one's own"; the meal shapes are then the 3-player ones), -1: none.
    inedible: np.ndarray  # int8 [P]
    # The extra genes (XM1-XM8, XG-01..XG-26; extra_flags.py). Off: their copies are 0 and the
    # kernels' gene loops stop at n_genes = N_BASE_GENES.
    extra_genes: bool  # XM1
    # the genes a game can hold: N_BASE_GENES, N_EXTRA_END with the extra genes, N_GENES (every
    # number-only slot) when a number-only gene is declared
    n_genes: int
    extra_start: np.ndarray  # int8 [2] (EXTRA_START_GENES; [0] without the module): XM2's start pair
    # int8 [m]: the cards of the face-down deck (XM3, XM8): the other extra genes not excluded (and
    # with flag extra_deck_mixed_with_base every base-gene card), shuffled per game at setup
    extra_deck: np.ndarray
    xflag: np.ndarray  # int16 [N_XFLAGS]: extra_flags.EXTRA_FLAGS values (XF_* constants)
    # soup combos (sim/ursuppe/experiments/combos.py): up to two genes given at setup to one player, paid for
    # by nobody (setup.give_gifts), -1 padded; [-1, -1] (no gift) in every normal game.
    gift: np.ndarray  # int8 [2]
    # Who receives the gift: -1 = the player on start space (game index mod P) + 1 (soup combos,
    # setup.gifted_player); p >= 0 = colour p (gene value's holding design: the studied player).
    gift_to: int
    # What the receiver may do with a gifted card (GIFT_*): an ordinary card; not exchangeable by
    # Highly Adaptable (XG-08); or kept: never given up (E2, G3, XG-08, XG-10; docs/verdicts.md).
    gift_keep: int
    gift_bp: int  # BP given at setup to the gift's receiver (the "BP gift" reference arm)


NO_GIFT: tuple[int, int] = (-1, -1)  # Rules.gift of a normal game (soup combos gives genes)
# Rules.gift_keep: what the receiver may do with a gifted card
GIFT_ORDINARY = 0  # like any card: returned in a defect, exchanged, taken (XG-10), given up (G3)
GIFT_NO_EXCHANGE = 1  # Highly Adaptable cannot exchange it (soup combos: docs/combos.md)
GIFT_KEPT = 2  # never given up: not returned (E2), exchanged, taken or given up for an advanced gene
# XM2: the extra genes' start pair is two genes; another number is a rules-file error (issue 21.6,
# docs/decisions.md "Start pair and exclusions"): Rules.extra_start has this length with the module.
EXTRA_START_GENES = 2
DEFAULT_RULES_PATH: Path = Path(__file__).resolve().parent / "default_rules.toml"
OVERRIDES_LABEL = "<overrides>"  # the source label of an overrides dict (scenario files)
# The player counts the engine can play: a rules file's components.player_counts is a subset.
# Six is the engine's limit (an option row holds 6 cube counts, EAT_VICTIM_SLOT = 6); two
# players are another game (their own spec), not supported here.
PLAYER_COUNTS: tuple[int, ...] = (3, 4, 5, 6)
MIN_PLAYERS, MAX_PLAYERS = PLAYER_COUNTS[0], PLAYER_COUNTS[-1]
FIVE_SIX: tuple[int, ...] = (5, 6)  # the counts of the 5-6 expansion (PX): their values come from *_5_6 flags
# The 2-player variants (spec ursuppe-2-players.md): --players 2 needs one. Each plays as the
# player count it names (TD1: the dummy is a third colour of a 3-player game; TA1, TB1: the two
# double plays are 4-player games, two colours a player).
VARIANT_COLOURS: dict[str, int] = {"dummy": 3, "double1": 4, "double2": 4}
VARIANTS: tuple[str, ...] = tuple(VARIANT_COLOURS)
# The player (0, 1) each colour of a variant belongs to; -1: the dummy, nobody's (TD1, TA2, TB3).
VARIANT_PLAYER_OF: dict[str, tuple[int, ...]] = {
    "dummy": (0, 1, -1),
    "double1": (0, 0, 1, 1),
    "double2": (0, 0, 1, 1),
}
DOUBLE2_COLOUR_ORDER = ("choice", "fixed")  # TB4


def count_label(players: int, variant: str | None = None) -> str:
    """'4p', or '2p-double2' for a 2-player variant: directory names and bench figures."""
    return f"{players}p" + (f"-{variant}" if variant else "")


# Double play II's PLACEHOLDER completions (TB3, TB4): a double2 game at their default names them.
DOUBLE2_PLACEHOLDERS: tuple[str, ...] = ("double2_colour_order", "double2_start_bp", "double2_income")
DUMMY_POLICY = ("always_drift",)  # TD2 PLACEHOLDER: the only fixed Phase-1 policy specified
DUMMY_FEEDING = ("most_cubes",)  # TD3 PLACEHOLDER: the colour with more cubes twice, ties by colour
DUMMY_PLACEMENT = ("random",)  # TD5/TD7 PLACEHOLDER: a uniformly random legal space, lowest number
DUMMY_BP = ("none", "normal_income")  # TD6
PERSISTENCE = "Persistence"  # §7: the gene whose 4-player copies the flag persistence_copies_4p sets
# Keys of the 3-4 player rules files before the 5-6 players: still accepted, and moved to the
# flag of the 5-6 spec that now holds the value for every player count (a number: every count).
MOVED_KEYS: dict[tuple[str, str], str] = {
    ("economy", "income"): "income_bp",
    ("components", "amoebas_per_player"): "amoebas_per_player",
    ("feeding", "tentacle_cubes"): "tentacle_capacity",
}
SUBSTITUTION_3_1_SHAPE: list[int] = [3, 1, 0]  # F2: dropped when flag substitution_3_1 is false
DECK_5_6 = ("base30_plus_39", "only_39")  # PX4, §7: the 5-6 cards added to the base cards, or alone
# §5: Substitution with 5-6 players: the shapes of feeding.p5/p6.substitution; only those with no
# colour above 2 (the reading of substitution_3_1 = false); or none (Substitution does not feed).
FEEDING_5_6_SUBSTITUTION = ("skip_one_spread", "two_each", "disabled")
# The extra genes' PLACEHOLDERs (§18), named only by a game with flags.extra_genes = true.
EXTRA_PLACEHOLDERS: tuple[str, ...] = (
    "genes.Glutton.defect_payment",
    *(f"flags.{f.name}" for f in EXTRA_FLAGS if f.placeholder),
)
# Named rules data whose default is a PLACEHOLDER (no source has the value): a run that uses the
# default says so (RuleBook.placeholders). Key: dotted name; value: the player counts it affects.
PLACEHOLDERS: dict[str, tuple[int, ...]] = {
    "environment.deck": PLAYER_COUNTS,  # §13: the real card values are in no source
    # V6: the plausible decks' bounds; named only by a run played over the family (--decks K > 1)
    "environment.family": (),
    "flags.setup_dp_5_6": FIVE_SIX,  # PX10
    "flags.price_5_6": FIVE_SIX,  # PX22: base prices
    # The dummy variant's completions (TD2, TD3, TD5, TD4, TD6, TD8): a game of --variant dummy
    # names those at their default (RuleBook.placeholders(2, "dummy")); no other game uses them.
    "flags.dummy_policy": (),
    "flags.dummy_feeding": (),
    "flags.dummy_placement": (),
    "flags.dummy_amoebas_per_round": (),
    "flags.dummy_le_from_pool": (),
    "flags.dummy_bp": (),
    "flags.dummy_scores": (),
    # Double play II's (TB3, TB4): RuleBook.placeholders(2, "double2").
    **{f"flags.{name}": () for name in DOUBLE2_PLACEHOLDERS},
    # The extra genes' (§18): named by a game with flags.extra_genes = true only.
    **dict.fromkeys(EXTRA_PLACEHOLDERS, ()),
}

SECTIONS = (
    "name",
    "flags",
    "board",
    "environment",
    "score",
    "components",
    "economy",
    "life",
    "feeding",
    "genes",
)
BOARD_KEYS = ("spaces", "neighbours", "coordinates", "compass")
COMPASS_VALUES = DIRECTION_NAMES
DIRECTION_LETTERS = DIRECTION_NAMES[:4]
DRIFT_VALUES = (*DIRECTION_LETTERS, "none")
# V6: the bounds of the plausible decks ([environment.family]; sim/ursuppe/experiments/deck_family.py)
FAMILY_KEYS = (
    "placeholder",
    "cards",
    "fixed",
    "ozone_low",
    "ozone_high",
    "without_drift",
    "min_per_direction",
)
GENE_KEYS = ("price", "mp", "copies", "weight", "defect_payment", "gives_up")  # the last 3 optional
# A number-only gene (docs/verdicts.md): a gene a rules file declares by its numbers alone, marked
# `effect = "none"`; it has no lower genes (G3) and fills one of genes.NUMBER_ONLY_GENES' slots.
NUMBER_ONLY_EFFECT = "none"
NUMBER_ONLY_KEYS = ("effect", "price", "mp", "copies", "weight", "defect_payment")  # the last 2 optional
PLAYER_KEYS = tuple(str(p) for p in PLAYER_COUNTS)  # TOML table keys are strings
FEEDING_KEYS = tuple(f"p{p}" for p in PLAYER_COUNTS)
# --------------------------------------------------------------------------------------------
# Bounds of the rules data: no game can overflow its state
# --------------------------------------------------------------------------------------------
# Every number of a rules file ends up in a fixed-width integer: a field of Rules, or a field of
# the state (state.allocate_state) that it adds up in over a game. Each bound below is either the
# range of that dtype or derived from it with the worst case of a game, so that the extremes of
# every key together still fit. A game has at most MAX_ROUNDS rounds: the end check stops it in
# the round that reveals the last card (W1, V4), and the batch kernel stops one later with
# ERR_NO_END. tests/test_rules_bounds.py checks the dtypes named here against allocate_state and
# plays games with the extreme values. A value outside its range is a one-line RulesError.

INT8_MAX = 127
INT16_MIN, INT16_MAX = -32768, 32767
INT32_MAX = 2**31 - 1
# state.MAX_OPTIONS (the option buffer of one decision), repeated here because state.py imports
# this module; tests/test_rules_bounds.py checks that they agree.
MAX_OPTIONS = 1024

# V1-V4: a game reveals one card a round, and no round without a card to reveal: with
# first_round_flip round 1 already reveals the second card, so the deck needs 2 cards (the
# engine cannot play a 1-card deck: it ends the game after round 1, which breaks I9); without
# the flag 1 card is a 1-round game. At most MAX_DECK_CARDS: State.n_cards and deck_pos are int8
# (127), and the rounds multiply every total a game adds up (BP, scores, defect payments below).
MIN_DECK_CARDS = {True: 2, False: 1}  # by first_round_flip
MAX_DECK_CARDS = 60
MAX_ROUNDS = MAX_DECK_CARDS + 1  # the last round a game can reach (ERR_NO_END after it)
MAX_OZONE = INT16_MAX  # State.card_ozone, Rules.deck_ozone: int16

# BP (C4) is an int32 (State.bp). Income (D1) is the only gain, so a player never holds more
# than start_bp + MAX_ROUNDS * income = 6.2 million BP at these bounds; costs and payments are
# taken only from BP a player holds. Every BP amount of the rules is 0..MAX_BP_AMOUNT.
MAX_BP_AMOUNT = 100_000
assert MAX_BP_AMOUNT + MAX_ROUNDS * MAX_BP_AMOUNT <= INT32_MAX
MAX_PRICE = INT16_MAX  # G1: Rules.gene_price is int16 (and below MAX_BP_AMOUNT)

# E2: a deficit is at most the MP of every gene held, N_GENES * MAX_MP = 1,150 a round; the BP
# paid for it over a game, at most MAX_ROUNDS * 1,150 = 70,150, is kept in State.defect_bp_paid
# (int32 since the 46 genes of §18). A negative MP (Ray Protection, Glutton) only lowers the sum.
MAX_MP = 25
assert MAX_ROUNDS * N_GENES * MAX_MP <= INT32_MAX
MAX_DEFECT_PAYMENT = INT16_MAX  # E2: Rules.gene_defect_payment is int16 (summed in int64)
MAX_COPIES = INT8_MAX  # S3, I4: Rules.gene_copies and State.pool are int8; copies beyond P stay in the pool
MAX_WEIGHT = INT8_MAX  # K2: Rules.gene_weight is int8 (summed in int64)

# K1-K3: a score (State.score, int16) starts at 1..P and each round advances by at most an amoeba
# entry plus a gene entry, plus the P - 1 markers it may leapfrog:
# 6 + MAX_ROUNDS * (2 * MAX_ADVANCE + 5) = 30,811 <= 32,767.
MAX_ADVANCE = 250
assert max(PLAYER_COUNTS) + MAX_ROUNDS * (2 * MAX_ADVANCE + max(PLAYER_COUNTS) - 1) <= INT16_MAX
# K1: compared with the int16 scores; a start no marker reaches leaves the last card to end the game.
MAX_FINISH_ZONE = INT16_MAX

# DP (C4) is an int8 (State.dp). An amoeba alive after the natural deaths of Phase 5 has fewer DP
# than its threshold (I7); before the next natural deaths it can gain at most 2 starvations (M4,
# A6 and the Persistence retry), 2 Aggression hits from each of the P - 1 others when armored (R3
# and A5's retry) and 2 lost Defense fights of its own (R4, A5): 14 steps with 6 players. So
# (MAX_DEATH_DP - 1) + 14 * MAX_DP_STEP = 49 + 70 = 119 <= 127. setup_first_dp is such a step too.
# (7 until the 5-6 players: 49 + 98 would not fit.)
MAX_DP_STEP = 5
MAX_DEATH_DP = 50
assert (MAX_DEATH_DP - 1) + (2 + 2 * (max(PLAYER_COUNTS) - 1) + 2) * MAX_DP_STEP <= INT8_MAX

# C3: cubes are int16 (State.food, supply): one colour's cubes may all lie on one space. Every
# count of cubes placed (S2, M4 excretion, X1, A6, R3) is capped by the supply (food shortage).
MAX_CUBES = INT16_MAX
# M4, F1-F4: a pattern's count of one colour is at most 15 (a meal's cubes are logged 4 bits a
# colour); "fewer" beyond a whole pattern (3 colours * 15) leaves no shape (and each cube fewer is a
# pass over the shapes when the rules load).
MAX_PATTERN_CUBES = 15
MAX_FEWER = 3 * MAX_PATTERN_CUBES


def _largest_carry(players: int) -> int:
    """Tentacle: the largest T whose carry decision fits the option buffer. It lists every vector
    of at most T cubes over the P colours, comb(T + P, P) of them when the space holds enough of
    each; the cubes carried are logged 4 bits a colour (at most 15)."""
    t = 0
    while t < MAX_PATTERN_CUBES and math.comb(t + 1 + players, players) <= MAX_OPTIONS:
        t += 1
    return t


MAX_TENTACLE_CUBES = {str(p): _largest_carry(p) for p in PLAYER_COUNTS}  # 3: 15, 4: 10, 5: 7, 6: 6

# C1, C2: State.space is int8 (spaces 0..126 and -1); a placement (S6, D2-D4) may list every
# space with every free number, MAX_SPACES * MAX_AMOEBAS = 889 <= MAX_OPTIONS options.
MAX_SPACES = INT8_MAX
# The most spaces a board may have for the kernels to hold a set of spaces as one int64 bit mask
# (Rules.neighbour_mask; D3's legal spaces); a bigger board is played by listing the spaces.
MASK_SPACES = 63
MAX_AMOEBAS = 7  # C2: the numbers 1..7 (a higher count is untested; the 5-6 player game has 6)
assert MAX_SPACES * MAX_AMOEBAS <= MAX_OPTIONS

# (lo, hi) of every integer scalar of a section; each key is also the Rules field it sets (book.py).
COMPONENT_RANGES = {
    "cubes_per_colour": (0, MAX_CUBES),
    "cubes_per_space": (0, MAX_CUBES),
    "start_bp": (0, MAX_BP_AMOUNT),
}
SETUP_FIRST_DP_MAX = MAX_DP_STEP


# §10: the flags that are integers, with their ranges (the others are booleans).
class FlagRow(NamedTuple):
    """One flag of the rules file: its name, the spec part it belongs to (``group``: §10 base,
    PX 5-6 players, TD dummy, TA double play I, TB double play II, XM the extra-gene market, XG
    an extra gene's reading) and how its value is validated (``kind`` and its ``args``)."""

    name: str
    group: str
    kind: str  # bool, int (lo, hi), choice (choices), prices, by_players (hi, lo), ints (lo, hi),
    # extra_genes (XM2, XM8 names), extra_flag (its extra_flags.EXTRA_FLAGS row)
    args: tuple = ()
    # The Rules field the flag sets as it reads (a by_players flag: its value at the game's count;
    # with ``when``: whether the choice reads ``when``), in every game of its group (base, PX, XM:
    # RuleBook.for_players; TD: the dummy variant's; TB: double play II's). "": the flag is read
    # elsewhere (meal shapes, gene copies, prices, a variant's seats: book.py).
    field: str = ""
    when: str | None = None


# Every flag, in the rules file's order; in a house-rules file or an overrides dict each may also
# be given at top level as shorthand for ``flags.<name>``. The groups and the validation are
# read from the rows (issue 22: no list cut by position, no chain of names).
FLAG_ROWS: tuple[FlagRow, ...] = (
    FlagRow("first_round_flip", "base", "bool", field="first_round_flip"),
    FlagRow("finish_zone_start", "base", "int", (1, MAX_FINISH_ZONE), field="finish_zone_start"),
    FlagRow("substitution_3_1", "base", "bool"),
    FlagRow("defense_and_escape_same_attack", "base", "bool", field="defense_and_escape_same_attack"),
    FlagRow("holding_clings_to_own", "base", "bool", field="holding_clings_to_own"),
    FlagRow("defect_genes_may_overpay", "base", "bool", field="defect_genes_may_overpay"),
    FlagRow("answers_once_per_round", "base", "bool", field="answers_once_per_round"),
    FlagRow("attack_only_when_starving", "base", "bool", field="attack_only_when_starving"),
    FlagRow("armor_blocks_own_attacks", "base", "bool", field="armor_blocks_own_attacks"),
    FlagRow("clinging_after_first_step", "base", "bool", field="clinging_after_first_step"),
    FlagRow("persistence_copies_4p", "base", "int", (0, MAX_COPIES)),
    FlagRow("gene_meals_optional", "base", "bool", field="gene_meals_optional"),
    FlagRow("aggression_lost_fight_dp", "base", "bool", field="aggression_lost_fight_dp"),
    FlagRow("persistence_after_clinging", "base", "bool", field="persistence_after_clinging"),
    FlagRow("deck_5_6", "PX", "choice", (DECK_5_6,)),
    FlagRow("setup_dp_5_6", "PX", "int", (0, SETUP_FIRST_DP_MAX)),
    FlagRow("price_5_6", "PX", "prices"),
    FlagRow("feeding_5_6_substitution", "PX", "choice", (FEEDING_5_6_SUBSTITUTION,)),
    FlagRow("tentacle_capacity", "PX", "by_players", (MAX_TENTACLE_CUBES, 0), field="tentacle_cubes"),
    FlagRow("amoebas_per_player", "PX", "by_players", (MAX_AMOEBAS, 1), field="amoebas_per_player"),
    FlagRow("income_bp", "PX", "by_players", (MAX_BP_AMOUNT, 0), field="income"),
    FlagRow("amoeba_score_table_5_6", "PX", "ints", (0, MAX_ADVANCE)),
    # The 2-player dummy variant (TD, docs/rules.md §16): read only when --variant dummy.
    FlagRow("dummy_policy", "TD", "choice", (DUMMY_POLICY,)),
    FlagRow("dummy_feeding", "TD", "choice", (DUMMY_FEEDING,)),
    FlagRow("dummy_placement", "TD", "choice", (DUMMY_PLACEMENT,)),
    FlagRow("dummy_amoebas_per_round", "TD", "int", (0, MAX_AMOEBAS), field="dummy_amoebas"),
    FlagRow("dummy_scores", "TD", "bool", field="dummy_scores"),
    FlagRow("dummy_bp", "TD", "choice", (DUMMY_BP,), field="dummy_income", when="normal_income"),
    FlagRow("dummy_le_from_pool", "TD", "bool"),
    # Double play I and II (TA, TB; docs/rules.md §17): read only with --variant double1 / double2.
    FlagRow("double1_partner_is_opponent", "TA", "bool"),
    FlagRow("double2_eat_partner_colour", "TB", "bool"),
    FlagRow("double2_partner_is_opponent", "TB", "bool"),
    FlagRow(
        "double2_colour_order", "TB", "choice", (DOUBLE2_COLOUR_ORDER,), field="colour_choice", when="choice"
    ),
    FlagRow("double2_start_bp", "TB", "int", (0, MAX_BP_AMOUNT), field="start_bp"),
    FlagRow("double2_income", "TB", "int", (0, MAX_BP_AMOUNT), field="income"),
    FlagRow("double2_division_cost", "TB", "int", (0, MAX_BP_AMOUNT), field="division_cost"),
    FlagRow(
        "double2_division_cost_division_rate",
        "TB",
        "int",
        (0, MAX_BP_AMOUNT),
        field="division_cost_division_rate",
    ),
    # The extra genes (XM, XG; docs/rules.md §18): extra_flags.py declares the XG readings.
    FlagRow("extra_genes", "XM", "bool", field="extra_genes"),
    FlagRow("extra_start_pair", "XM", "extra_genes"),
    FlagRow("extra_excluded", "XM", "extra_genes"),
    *(FlagRow(f.name, "XG", "extra_flag", (f,)) for f in EXTRA_FLAGS),
)
assert tuple(r.name for r in FLAG_ROWS if r.group == "XM") == MARKET_FLAGS


def _flags(*groups: str) -> tuple[str, ...]:
    return tuple(r.name for r in FLAG_ROWS if r.group in groups)


FLAG_NAMES: tuple[str, ...] = _flags("base", "PX", "TD", "TA", "TB", "XM", "XG")
FLAG_ROW: dict[str, FlagRow] = {r.name: r for r in FLAG_ROWS}
# The flags of the 5-6 player spec's §9 (PX), of the 2-player dummy variant (TD), of double play
# I (TA) and II (TB), and of the extra genes (XM, XG).
PX_FLAGS = _flags("PX")
TD_FLAGS = _flags("TD")
TA_FLAGS = _flags("TA")
TB_FLAGS = _flags("TB")
X_FLAGS = _flags("XM", "XG")
# The scalars of [economy], [life] and [feeding], (lo, hi); each key is also the Rules field it sets.
ECONOMY_RANGES = {  # every cost is a BP amount
    key: (0, MAX_BP_AMOUNT)
    for key in (
        "division_cost",
        "division_cost_division_rate",
        "active_move_cost",
        "attack_cost",
        "escape_cost",
        "defense_cost",
    )
}
LIFE_RANGES = {
    "excretion": (0, MAX_CUBES),
    "starvation_dp": (0, MAX_DP_STEP),
    "death_dp": (1, MAX_DEATH_DP),
    "death_dp_life_expectancy": (1, MAX_DEATH_DP),
    "natural_death_cubes": (0, MAX_CUBES),
    "violent_death_cubes": (0, MAX_CUBES),
    "aggression_death_cubes": (0, MAX_CUBES),
    "aggression_armor_dp": (0, MAX_DP_STEP),
    "lost_defense_dp": (0, MAX_DP_STEP),
}
FEEDING_RANGES = {
    "frugality_fewer": (0, MAX_FEWER),
    "parasitism_fewer": (0, MAX_FEWER),
    "parasitism_victim_pays": (0, MAX_BP_AMOUNT),
}

# A module's switch (a flag) and the groups of flags (FlagRow.group) the module reads only while it
# is on. With the switch off those flags change no game, so the rules id reads them at their
# defaults (issue 31.11: extra_start_pair set without extra_genes played the default's games under
# another id). The variants' flags (TD, TA, TB) are not here: a variant is chosen per run, not by
# the rules, so they change the games of the rules' variants whatever the flags say.
MODULE_SWITCHES: dict[str, tuple[str, ...]] = {"extra_genes": ("XM", "XG")}
