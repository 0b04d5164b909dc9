"""Rules as data: load, validate and merge the rules TOML into typed numpy arrays.

The default rules file (``default_rules.toml`` beside this module) holds every number and flag
of the spec. A house-rules file overrides any subset. :class:`Rules` is what the kernels read:
a NamedTuple of scalars and small numpy arrays for one player count.
"""

import copy
import hashlib
import json
import math
import numbers
import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

import numpy as np

from sim.errors import UserError
from sim.ursuppe.rules.directions import DIRECTION_CODE, STAY
from sim.ursuppe.rules.extra_flags import EXTRA_FLAGS, MARKET_FLAGS, encode
from sim.ursuppe.rules.genes import (
    ADDED_GENES,
    ADVANCED_GENES,
    EXTRA_GENES,
    GENE_ALIASES,
    GENE_INDEX,
    GENE_NAMES,
    N_BASE_GENES,
    N_EXTRA_END,
    N_GENES,
    NUMBER_ONLY_GENES,
)
from sim.ursuppe.rules.meal_shapes import (
    MAX_SHAPES,
    code_tables,
    glutton_tables,
    normal_shapes,
    parasite_shapes,
    shape_tables,
)


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


# --------------------------------------------------------------------------------------------
# Loading, merging and validating the rules files
# --------------------------------------------------------------------------------------------

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
    "genes.Glutton.defect_payment": (),
    **{f"flags.{f.name}": () for f in EXTRA_FLAGS if f.placeholder},
}
EXTRA_PLACEHOLDERS: tuple[str, ...] = (
    "genes.Glutton.defect_payment",
    *(f"flags.{f.name}" for f in EXTRA_FLAGS if f.placeholder),
)

_SECTIONS = (
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
_BOARD_KEYS = ("spaces", "neighbours", "coordinates", "compass")
_COMPASS_VALUES = ("N", "E", "S", "W", "stay", "choice")
_DRIFT_VALUES = ("N", "E", "S", "W", "none")
_DIRECTION_LETTERS = ("N", "E", "S", "W")
# V6: the bounds of the plausible decks ([environment.family]; sim/ursuppe/experiments/deck_family.py)
_FAMILY_KEYS = (
    "placeholder",
    "cards",
    "fixed",
    "ozone_low",
    "ozone_high",
    "without_drift",
    "min_per_direction",
)
_GENE_KEYS = ("price", "mp", "copies", "weight", "defect_payment", "gives_up")  # the last 3 optional
# A number-only gene (docs/verdicts.md): a gene a rules file declares by its numbers alone, marked
# `effect = "none"`; it has no lower genes (G3) and fills one of genes.NUMBER_ONLY_GENES' slots.
NUMBER_ONLY_EFFECT = "none"
_NUMBER_ONLY_KEYS = ("effect", "price", "mp", "copies", "weight", "defect_payment")  # the last 2 optional
_PLAYER_KEYS = tuple(str(p) for p in PLAYER_COUNTS)  # TOML table keys are strings
_FEEDING_KEYS = tuple(f"p{p}" for p in PLAYER_COUNTS)

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

# (lo, hi) of every integer scalar of a section.
_COMPONENT_RANGES = {
    "cubes_per_colour": (0, MAX_CUBES),
    "cubes_per_space": (0, MAX_CUBES),
    "start_bp": (0, MAX_BP_AMOUNT),
}
_SETUP_FIRST_DP_MAX = MAX_DP_STEP


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


# Every flag, in the rules file's order; in a house-rules file or an overrides dict each may also
# be given at top level as shorthand for ``flags.<name>``. The groups and the validation are
# read from the rows (issue 22: no list cut by position, no chain of names).
FLAG_ROWS: tuple[FlagRow, ...] = (
    FlagRow("first_round_flip", "base", "bool"),
    FlagRow("finish_zone_start", "base", "int", (1, MAX_FINISH_ZONE)),
    FlagRow("substitution_3_1", "base", "bool"),
    FlagRow("defense_and_escape_same_attack", "base", "bool"),
    FlagRow("holding_clings_to_own", "base", "bool"),
    FlagRow("defect_genes_may_overpay", "base", "bool"),
    FlagRow("answers_once_per_round", "base", "bool"),
    FlagRow("attack_only_when_starving", "base", "bool"),
    FlagRow("armor_blocks_own_attacks", "base", "bool"),
    FlagRow("clinging_after_first_step", "base", "bool"),
    FlagRow("persistence_copies_4p", "base", "int", (0, MAX_COPIES)),
    FlagRow("gene_meals_optional", "base", "bool"),
    FlagRow("aggression_lost_fight_dp", "base", "bool"),
    FlagRow("persistence_after_clinging", "base", "bool"),
    FlagRow("deck_5_6", "PX", "choice", (DECK_5_6,)),
    FlagRow("setup_dp_5_6", "PX", "int", (0, _SETUP_FIRST_DP_MAX)),
    FlagRow("price_5_6", "PX", "prices"),
    FlagRow("feeding_5_6_substitution", "PX", "choice", (FEEDING_5_6_SUBSTITUTION,)),
    FlagRow("tentacle_capacity", "PX", "by_players", (MAX_TENTACLE_CUBES, 0)),
    FlagRow("amoebas_per_player", "PX", "by_players", (MAX_AMOEBAS, 1)),
    FlagRow("income_bp", "PX", "by_players", (MAX_BP_AMOUNT, 0)),
    FlagRow("amoeba_score_table_5_6", "PX", "ints", (0, MAX_ADVANCE)),
    # The 2-player dummy variant (TD, docs/rules.md §16): read only when --variant dummy.
    FlagRow("dummy_policy", "TD", "choice", (DUMMY_POLICY,)),
    FlagRow("dummy_feeding", "TD", "choice", (DUMMY_FEEDING,)),
    FlagRow("dummy_placement", "TD", "choice", (DUMMY_PLACEMENT,)),
    FlagRow("dummy_amoebas_per_round", "TD", "int", (0, MAX_AMOEBAS)),
    FlagRow("dummy_scores", "TD", "bool"),
    FlagRow("dummy_bp", "TD", "choice", (DUMMY_BP,)),
    FlagRow("dummy_le_from_pool", "TD", "bool"),
    # Double play I and II (TA, TB; docs/rules.md §17): read only with --variant double1 / double2.
    FlagRow("double1_partner_is_opponent", "TA", "bool"),
    FlagRow("double2_eat_partner_colour", "TB", "bool"),
    FlagRow("double2_partner_is_opponent", "TB", "bool"),
    FlagRow("double2_colour_order", "TB", "choice", (DOUBLE2_COLOUR_ORDER,)),
    FlagRow("double2_start_bp", "TB", "int", (0, MAX_BP_AMOUNT)),
    FlagRow("double2_income", "TB", "int", (0, MAX_BP_AMOUNT)),
    FlagRow("double2_division_cost", "TB", "int", (0, MAX_BP_AMOUNT)),
    FlagRow("double2_division_cost_division_rate", "TB", "int", (0, MAX_BP_AMOUNT)),
    # The extra genes (XM, XG; docs/rules.md §18): extra_flags.py declares the XG readings.
    FlagRow("extra_genes", "XM", "bool"),
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
_ECONOMY_RANGES = {
    "division_cost": (0, MAX_BP_AMOUNT),
    "division_cost_division_rate": (0, MAX_BP_AMOUNT),
    "active_move_cost": (0, MAX_BP_AMOUNT),
    "attack_cost": (0, MAX_BP_AMOUNT),
    "escape_cost": (0, MAX_BP_AMOUNT),
    "defense_cost": (0, MAX_BP_AMOUNT),
}
_LIFE_RANGES = {
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
_FEEDING_RANGES = {
    "frugality_fewer": (0, MAX_FEWER),
    "parasitism_fewer": (0, MAX_FEWER),
    "parasitism_victim_pays": (0, MAX_BP_AMOUNT),
}
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")

KeyPath = tuple[str | int, ...]  # a dotted key: table keys (str) and array indices (int)


class RulesError(UserError):
    """Bad rules input. The message is one line: file (or ``<overrides>``), dotted key, expected, found."""


def _dotted(path: KeyPath) -> str:
    """``("genes", "Division Rate", "price")`` -> ``genes."Division Rate".price``; indices as ``[i]``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            segment = part if _BARE_KEY.fullmatch(part) else json.dumps(part, ensure_ascii=False)
            out += f".{segment}" if out else segment
    return out


def _show(value: Any) -> str:
    """A short, one-line, TOML-like rendering of a found value for an error message."""
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, numbers.Number):
        return str(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        text = json.dumps(value, ensure_ascii=False, default=str)
        return text if len(text) <= 60 else text[:57] + "..."
    return f"{value} (a {type(value).__name__})"


def _message(label: str, path: KeyPath, text: str) -> str:
    """The one-line error message ``label: dotted.key: text``."""
    where = f"{label}: {_dotted(path)}: " if path else f"{label}: "
    return " ".join((where + text).splitlines())


def _read_toml(path: Path, label: str) -> dict[str, Any]:
    """Parse one rules file; every failure (missing file, bad encoding, bad TOML) is a RulesError."""
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise RulesError(f"{label}: cannot read the rules file: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise RulesError(f"{label}: not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(_message(label, (), f"TOML syntax error: {exc}")) from None


def _copy_layer(value: Any, label: str, path: KeyPath) -> Any:
    """Deep copy of one layer with every table key a string (``{3: 0}`` from Python -> ``{"3": 0}``)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if isinstance(key, int) and not isinstance(key, bool):
                key = str(key)
            if not isinstance(key, str):
                raise RulesError(_message(label, path, f"expected string table keys, got key {_show(key)}"))
            out[key] = _copy_layer(item, label, (*path, key))
        return out
    if isinstance(value, list | tuple):
        return [_copy_layer(item, label, (*path, i)) for i, item in enumerate(value)]
    return value


def _prepare_layer(raw: Any, label: str, moved: dict[str, tuple[str, str]] | None = None) -> dict[str, Any]:
    """Copy one layer, move top-level flag shorthand into ``[flags]`` and resolve gene aliases.
    Keys moved to a flag (MOVED_KEYS) are recorded in ``moved`` (flag -> the key as written)."""
    if not isinstance(raw, dict):
        raise RulesError(_message(label, (), f"expected a table of rules, got {_show(raw)}"))
    layer: dict[str, Any] = _copy_layer(raw, label, ())
    shorthand = {name: layer.pop(name) for name in FLAG_NAMES if name in layer}
    if shorthand:
        flags = layer.setdefault("flags", {})
        if not isinstance(flags, dict):
            raise RulesError(_message(label, ("flags",), f"expected a table, got {_show(flags)}"))
        for name, value in shorthand.items():
            if name in flags and (flags[name] != value or type(flags[name]) is not type(value)):
                raise RulesError(
                    _message(
                        label,
                        (name,),
                        f"expected one value, got {_show(value)} at top "
                        f"level and {_show(flags[name])} in [flags]",
                    )
                )
            flags[name] = value
    for (section, key), flag in MOVED_KEYS.items():
        table = layer.get(section)
        if isinstance(table, dict) and key in table:
            flags = layer.setdefault("flags", {})
            if not isinstance(flags, dict):
                raise RulesError(_message(label, ("flags",), f"expected a table, got {_show(flags)}"))
            if flag in flags:
                text = f"expected one value, got {section}.{key} and flags.{flag} (the same rule)"
                raise RulesError(_message(label, (section, key), text))
            flags[flag] = table.pop(key)
            if moved is not None:
                moved[flag] = (section, key)
    genes = layer.get("genes")
    if isinstance(genes, dict):
        renamed: dict[str, Any] = {}
        given_as: dict[str, str] = {}
        for name, entry in genes.items():
            canonical = GENE_ALIASES.get(name, name)
            if canonical in renamed:
                text = (
                    f"expected one entry, got both {json.dumps(given_as[canonical])} and {json.dumps(name)}"
                )
                raise RulesError(_message(label, ("genes", canonical), text))
            renamed[canonical] = entry
            given_as[canonical] = name
        layer["genes"] = renamed
    return layer


def _merge(
    base: dict[str, Any],
    layer: dict[str, Any],
    path: tuple[str, ...],
    index: int,
    origin: dict[tuple[str, ...], int],
) -> None:
    """Deep-merge ``layer`` into ``base``: tables key by key, anything else (arrays too) replaced whole.

    ``origin`` records, per dotted key, the index of the source that last set it.
    """
    for key, value in layer.items():
        here = (*path, key)
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value, here, index, origin)
            continue
        base[key] = value
        for stale in [k for k in origin if len(k) > len(here) and k[: len(here)] == here]:
            del origin[stale]
        origin[here] = index


class _Checker:
    """Validates the merged rules and builds the normalised ``data`` dict; errors name their source."""

    def __init__(
        self,
        sources: list[str],
        origin: dict[tuple[str, ...], int],
        moved: dict[int, dict[str, tuple[str, str]]] | None = None,
    ) -> None:
        self.sources = sources
        self.origin = origin
        self.moved = moved or {}  # source index -> {flag: (section, key)} of the keys moved to flags

    # -- error reporting ---------------------------------------------------------------------

    def _source(self, path: KeyPath) -> int:
        """Index of the source that set ``path`` (or the nearest enclosing table)."""
        for n in range(len(path), 0, -1):
            prefix = path[:n]
            if all(isinstance(part, str) for part in prefix) and prefix in self.origin:
                return self.origin[prefix]  # type: ignore[index]
        return 0

    def fail(self, path: KeyPath, text: str, also: Sequence[KeyPath] = ()) -> NoReturn:
        """Raise a RulesError at ``path``, blaming the latest source among ``path`` and ``also``."""
        index = max(self._source(p) for p in (path, *also))
        old = self.moved.get(index, {}).get(str(path[1])) if len(path) >= 2 and path[0] == "flags" else None
        if old is not None:  # name the key as the file wrote it (MOVED_KEYS)
            path, text = (*old, *path[2:]), f"{text} (kept as flags.{path[1]})"
        raise RulesError(_message(self.sources[index], path, text))

    def bad(self, path: KeyPath, expected: str, value: Any, also: Sequence[KeyPath] = ()) -> NoReturn:
        """Raise ``expected <expected>, got <value>``."""
        self.fail(path, f"expected {expected}, got {_show(value)}", also)

    # -- typed readers -----------------------------------------------------------------------

    def table(
        self, value: Any, path: KeyPath, keys: Sequence[str], optional: Sequence[str] = (), what: str = "key"
    ) -> dict[str, Any]:
        """A table holding only ``keys`` (all required except ``optional``)."""
        if not isinstance(value, dict):
            self.bad(path, "a table", value)
        for key in value:
            if key not in keys:
                self.fail((*path, key), f"unknown {what} (expected one of: {', '.join(keys)})")
        for key in keys:
            if key not in value and key not in optional:
                self.fail((*path, key), f"missing {what} (required in {_dotted(path) or 'the top level'})")
        return value

    def integer(self, value: Any, path: KeyPath, lo: int = 0, hi: int | None = None) -> int:
        """An integer in ``lo..hi`` (booleans are not integers here)."""
        expected = f"an integer >= {lo}" if hi is None else f"an integer in {lo}..{hi}"
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            self.bad(path, expected, value)
        if value < lo or (hi is not None and value > hi):
            self.bad(path, expected, value)
        return int(value)

    def boolean(self, value: Any, path: KeyPath) -> bool:
        """A boolean (integers 0/1 are not booleans here)."""
        if not isinstance(value, bool | np.bool_):
            self.bad(path, "a boolean (true or false)", value)
        return bool(value)

    def string(self, value: Any, path: KeyPath, choices: Sequence[str] | None = None) -> str:
        """A string, optionally one of ``choices``."""
        if choices is not None and value not in choices:
            self.bad(path, f"one of: {', '.join(choices)}", value)
        if not isinstance(value, str):
            self.bad(path, "a string", value)
        return value

    def array(
        self,
        value: Any,
        path: KeyPath,
        length: int | None = None,
        min_len: int = 0,
        max_len: int | None = None,
        why: str = "",
        also: Sequence[KeyPath] = (),
    ) -> list[Any]:
        """An array, optionally of an exact length or within length bounds."""
        if not isinstance(value, list):
            self.bad(path, "an array", value)
        n = len(value)
        if length is not None and n != length:
            self.fail(path, f"expected an array of length {length}{why}, got length {n}", also)
        if n < min_len:
            self.fail(path, f"expected an array of at least {min_len} entries{why}, got {n}", also)
        if max_len is not None and n > max_len:
            self.fail(path, f"expected an array of at most {max_len} entries{why}, got {n}", also)
        return value

    def integers(self, value: Any, path: KeyPath, lo: int, hi: int | None, **array_args: Any) -> list[int]:
        """An array of integers in ``lo..hi``."""
        items = self.array(value, path, **array_args)
        return [self.integer(item, (*path, i), lo, hi) for i, item in enumerate(items)]

    def by_players(
        self, value: Any, path: KeyPath, hi: int | dict[str, int], counts: Sequence[int], lo: int = 0
    ) -> dict[str, int]:
        """A table ``{ 3 = n, 4 = m, ... }`` of integers in ``lo..hi`` (``hi`` may be by player
        count) with a key for each of ``counts`` (other engine counts may be present), or one
        integer for every count. Returns the entries of ``counts`` only."""
        keys = [str(p) for p in counts]
        if not isinstance(value, dict):
            return {k: self.integer(value, path, lo, hi[k] if isinstance(hi, dict) else hi) for k in keys}
        others = tuple(k for k in _PLAYER_KEYS if k not in keys)
        table = self.table(value, path, _PLAYER_KEYS, optional=others)
        return {
            key: self.integer(table[key], (*path, key), lo, hi[key] if isinstance(hi, dict) else hi)
            for key in keys
        }

    def shape(self, value: Any, path: KeyPath, length: int) -> list[int]:
        """A feeding shape: ``length`` cube counts, non-increasing, non-negative, summing to >= 1."""
        why = f" (one count per foreign colour with {length + 1} players)"
        counts = self.integers(value, path, 0, MAX_PATTERN_CUBES, length=length, why=why)
        if any(a < b for a, b in zip(counts, counts[1:], strict=False)):
            self.bad(path, "counts largest first (non-increasing)", counts)
        if sum(counts) < 1:
            self.bad(path, "at least one cube in total", counts)
        return counts

    # -- the sections ------------------------------------------------------------------------

    def rules(self, merged: dict[str, Any]) -> dict[str, Any]:
        """Validate the whole merged rules; return the normalised data (defaults filled in)."""
        self.table(merged, (), (*_SECTIONS, *FLAG_NAMES), optional=FLAG_NAMES)
        components = self.components(merged["components"])
        self.counts = components["player_counts"]
        flags = self.flags(merged["flags"])
        # PX4: the 5-6 cards alone (deck_5_6 = only_39) are the 5-6 copies minus the 4-player ones
        only_39 = flags["deck_5_6"] == "only_39" and bool(set(FIVE_SIX) & set(self.counts))
        self.copy_counts = sorted(set(self.counts) | ({4} if only_39 else set()))
        data = {
            "name": self.string(merged["name"], ("name",)),
            "flags": flags,
            "board": self.board(merged["board"]),
            "environment": self.environment(merged["environment"], flags["first_round_flip"]),
            "score": self.score(merged["score"], flags),
            "components": components,
            "economy": self.scalars(merged["economy"], ("economy",), _ECONOMY_RANGES),
            "life": self.scalars(merged["life"], ("life",), _LIFE_RANGES),
            "feeding": self.feeding(merged["feeding"]),
            "genes": self.genes(merged["genes"]),
        }
        self.persistence_copies(flags, data["genes"])
        self.price_5_6(flags["price_5_6"])
        self.deck_5_6(data["genes"], flags["deck_5_6"])
        self.meal_shape_counts(data["feeding"], flags)
        self.extra_market(flags)
        return data

    def price_5_6(self, value: Any) -> None:
        """PX22: ``{ "Gene" = price }`` for the genes whose 5-6 player price differs (aliases resolved)."""
        path: KeyPath = ("flags", "price_5_6")
        for name in list(value):
            canonical = GENE_ALIASES.get(name, name)
            if canonical not in GENE_INDEX:
                self.fail((*path, name), "unknown gene (expected a base-game gene name)")
            value[canonical] = self.integer(value.pop(name), (*path, name), 0, MAX_PRICE)

    def deck_5_6(self, genes: dict[str, Any], deck: str) -> None:
        """PX4, §7: with ``only_39`` a 5-6 game holds the 5-6 cards alone (5-6 copies - 4p copies)."""
        if deck != "only_39":
            return
        for name in GENE_NAMES[:N_BASE_GENES]:  # the base cards only (PX4)
            copies = genes[name]["copies"]
            for key in (str(p) for p in FIVE_SIX if p in self.counts):
                if copies[key] < copies["4"]:
                    self.fail(
                        ("genes", name, "copies", key),
                        f"expected at least the 4-player copies ({copies['4']}) with flag deck_5_6 = "
                        f'"only_39" (the 5-6 cards are the difference), got {copies[key]}',
                        also=(("flags", "deck_5_6"),),
                    )

    def scalars(self, value: Any, path: KeyPath, ranges: dict[str, tuple[int, int]]) -> dict[str, int]:
        """A table of integer scalars, each in its range (lo, hi)."""
        table = self.table(value, path, tuple(ranges))
        return {key: self.integer(table[key], (*path, key), lo, hi) for key, (lo, hi) in ranges.items()}

    def flags(self, value: Any) -> dict[str, Any]:
        """§10 flags."""
        path: KeyPath = ("flags",)
        table = self.table(value, path, FLAG_NAMES)
        out: dict[str, Any] = {}
        for row in FLAG_ROWS:
            out[row.name] = self.flag(row, table[row.name], (*path, row.name))
        return out

    def flag(self, row: FlagRow, item: Any, here: KeyPath) -> Any:
        """One flag's value, validated as its row says."""
        if row.kind == "bool":
            return self.boolean(item, here)
        if row.kind == "int":
            return self.integer(item, here, *row.args)
        if row.kind == "choice":
            return self.string(item, here, row.args[0])
        if row.kind == "prices":
            if not isinstance(item, dict):
                self.bad(here, "a table of gene prices", item)
            return dict(item)
        if row.kind == "by_players":
            return self.by_players(item, here, row.args[0], self.counts, lo=row.args[1])
        if row.kind == "ints":
            return self.integers(item, here, *row.args, min_len=1)
        if row.kind == "extra_genes":
            return self.extra_gene_names(item, here)
        return self.extra_flag(row.args[0], item, here)

    def extra_gene_names(self, value: Any, path: KeyPath) -> list[str]:
        """XM2, XM8: distinct extra-gene names (the table's spelling or a known alias)."""
        names = self.array(value, path, max_len=len(EXTRA_GENES), why=" (extra-gene names)")
        out: list[str] = []
        for i, name in enumerate(names):
            name = GENE_ALIASES.get(name, name) if isinstance(name, str) else name
            if not isinstance(name, str) or GENE_INDEX.get(name, -1) < N_BASE_GENES or name in out:
                self.bad((*path, i), "the name of an extra gene, each once (docs/rules.md §18)", name)
            out.append(name)
        return out

    def extra_flag(self, flag: Any, value: Any, path: KeyPath) -> Any:
        """§18: one flag of extra_flags.EXTRA_FLAGS, validated from its row."""
        if isinstance(flag.default, bool):
            return self.boolean(value, path)
        if isinstance(flag.default, int):
            return self.integer(value, path, flag.lo, flag.hi)
        if isinstance(flag.default, tuple):
            items = self.array(value, path, max_len=len(flag.choices))
            picked = [self.string(v, (*path, i), flag.choices) for i, v in enumerate(items)]
            if len(set(picked)) != len(picked):
                self.bad(path, f"distinct values of: {', '.join(flag.choices)}", value)
            return picked
        return self.string(value, path, flag.choices)

    def extra_market(self, flags: dict[str, Any]) -> None:
        """XM2, XM8: the start pair leaves out the excluded genes, and is a pair. The spec lays
        out "a pair of extra genes" (XM2) and lets players "start with other genes" (XM8): other
        genes, not another number of them (docs/decisions.md, issue 21.6). 0, 1 or 3 genes were
        accepted, played and reported as a "pair"; they are an error, as a table would see them."""
        start = flags["extra_start_pair"]
        both = set(start) & set(flags["extra_excluded"])
        if both:
            self.fail(
                ("flags", "extra_start_pair"),
                f"expected no excluded gene in the start pair, got {json.dumps(sorted(both))} in both",
                also=(("flags", "extra_excluded"),),
            )
        if len(start) != EXTRA_START_GENES:
            self.fail(
                ("flags", "extra_start_pair"),
                f"expected {EXTRA_START_GENES} different extra genes (XM2: the start pair, face up from"
                f" round 1; XM8 lets the table choose which two), got {len(start)}: {json.dumps(start)}",
            )

    def persistence_copies(self, flags: dict[str, Any], genes: dict[str, Any]) -> None:
        """§7/§10: the flag persistence_copies_4p and genes.Persistence.copies.4 are one number.
        The source that set one of them last wins (a house rule's flag over the default copies, an
        ablation's copies over a house rule's flag); one source setting both differently is an
        error. Both are then written with the winner, so the rules id does not depend on which
        key was used."""
        flag_path: KeyPath = ("flags", "persistence_copies_4p")
        copies_path: KeyPath = ("genes", PERSISTENCE, "copies", "4")
        flag, copies = flags["persistence_copies_4p"], genes[PERSISTENCE]["copies"]["4"]
        if flag == copies:
            return
        flag_source, copies_source = self._source(flag_path), self._source(copies_path)
        if flag_source == copies_source:
            self.fail(
                flag_path,
                f"expected the same number as {_dotted(copies_path)} (both set Persistence's "
                f"4-player copies), got {flag} and {copies}",
            )
        if flag_source > copies_source:
            genes[PERSISTENCE]["copies"]["4"] = flag
        else:
            flags["persistence_copies_4p"] = copies

    def board(self, value: Any) -> dict[str, Any]:
        """§2, B1-B2: neighbour table (shape, range, symmetry), coordinates, compass."""
        path: KeyPath = ("board",)
        table = self.table(value, path, _BOARD_KEYS)
        spaces_path = (*path, "spaces")
        n = self.integer(table["spaces"], spaces_path, 1, MAX_SPACES)
        why = " (one row per space, board.spaces)"

        nb_path = (*path, "neighbours")
        rows = self.array(table["neighbours"], nb_path, length=n, why=why, also=(spaces_path,))
        neighbours = [
            self.integers(row, (*nb_path, a), -1, n - 1, length=4, why=" ([N, E, S, W])")
            for a, row in enumerate(rows)
        ]
        for a, row in enumerate(neighbours):
            for d, b in enumerate(row):
                if b == a:
                    self.bad((*nb_path, a, d), "another space or -1 (a space cannot neighbour itself)", b)
                back = (d + 2) % 4
                if b >= 0 and neighbours[b][back] != a:
                    self.fail(
                        (*nb_path, a, d),
                        f"expected space {b}'s {_DIRECTION_LETTERS[back]} neighbour to be {a} "
                        f"(neighbours must be symmetric), got {neighbours[b][back]}",
                    )

        co_path = (*path, "coordinates")
        co_rows = self.array(table["coordinates"], co_path, length=n, why=why, also=(spaces_path,))
        coordinates = [
            self.integers(row, (*co_path, i), INT16_MIN, INT16_MAX, length=2, why=" ([x, y])")
            for i, row in enumerate(co_rows)
        ]

        cp_path = (*path, "compass")
        faces = self.array(table["compass"], cp_path, length=6, why=" (die faces 1..6)")
        compass = [self.string(face, (*cp_path, i), _COMPASS_VALUES) for i, face in enumerate(faces)]
        return {"spaces": n, "neighbours": neighbours, "coordinates": coordinates, "compass": compass}

    def environment(self, value: Any, first_round_flip: bool) -> dict[str, Any]:
        """§3, V1-V6: the deck of environment cards (no rule on how many no-drift cards), of a
        length the engine can play (MIN_DECK_CARDS, MAX_DECK_CARDS), and the bounds of the
        plausible decks (V6, :meth:`family`)."""
        path: KeyPath = ("environment",)
        table = self.table(value, path, ("placeholder", "deck", "family"))
        deck_path = (*path, "deck")
        cards = self.array(table["deck"], deck_path)
        lo = MIN_DECK_CARDS[first_round_flip]
        if not lo <= len(cards) <= MAX_DECK_CARDS:
            if len(cards) > MAX_DECK_CARDS:
                why = "a game's totals over its rounds, one a card, must fit the state"
            elif first_round_flip:
                why = (
                    "V3: with first_round_flip = true round 1 already reveals the next card, "
                    "so a game needs 2; 1 with first_round_flip = false"
                )
            else:
                why = "V2: the current card of round 1"
            self.fail(
                deck_path,
                f"expected {lo}..{MAX_DECK_CARDS} cards ({why}), got {len(cards)}",
                also=(("flags", "first_round_flip"),),
            )
        deck = [self.card(card, (*deck_path, i)) for i, card in enumerate(cards)]
        return {
            "placeholder": self.boolean(table["placeholder"], (*path, "placeholder")),
            "deck": deck,
            "family": self.family(table["family"], (*path, "family"), first_round_flip),
        }

    def card(self, value: Any, path: KeyPath) -> dict[str, Any]:
        """V1: one environment card, ``{ ozone = n, drift = "N"|"E"|"S"|"W"|"none" }``."""
        card = self.table(value, path, ("ozone", "drift"))
        return {
            "ozone": self.integer(card["ozone"], (*path, "ozone"), 0, MAX_OZONE),
            "drift": self.string(card["drift"], (*path, "drift"), _DRIFT_VALUES),
        }

    def family(self, value: Any, path: KeyPath, first_round_flip: bool) -> dict[str, Any]:
        """V6: the plausible decks' bounds (sim/ursuppe/experiments/deck_family.py draws the decks): a member
        has ``cards`` cards, the ``fixed`` ones (V5's known card) and the others with ozone in
        ``ozone_low..ozone_high``, ``without_drift`` of those without drift (V1), the rest drifting
        so that each of N, E, S, W is the drift of at least ``min_per_direction`` cards, the fixed
        ones counted. The bounds must admit a member: a family no deck satisfies is an error here,
        not an endless draw later."""
        table = self.table(value, path, _FAMILY_KEYS)
        cards = self.integer(
            table["cards"], (*path, "cards"), MIN_DECK_CARDS[first_round_flip], MAX_DECK_CARDS
        )
        fixed_path = (*path, "fixed")
        fixed = [
            self.card(card, (*fixed_path, i))
            for i, card in enumerate(
                self.array(table["fixed"], fixed_path, max_len=cards, why=" (at most family.cards)")
            )
        ]
        low = self.integer(table["ozone_low"], (*path, "ozone_low"), 0, MAX_OZONE)
        high = self.integer(table["ozone_high"], (*path, "ozone_high"), low, MAX_OZONE)
        drawn = cards - len(fixed)
        without = self.integer(table["without_drift"], (*path, "without_drift"), 0, drawn)
        least = self.integer(table["min_per_direction"], (*path, "min_per_direction"), 0, cards)
        # Each direction short of min_per_direction among the fixed cards takes drawn drifting cards.
        short = sum(max(0, least - sum(c["drift"] == d for c in fixed)) for d in _DIRECTION_LETTERS)
        if short > drawn - without:
            self.fail(
                (*path, "min_per_direction"),
                f"expected a bound the drawn cards can meet: each of N, E, S, W on {least} cards needs "
                f"{short} drifting cards beside the fixed ones, but cards - fixed - without_drift leaves "
                f"{drawn - without}",
                also=((*path, "cards"), fixed_path, (*path, "without_drift")),
            )
        return {
            "placeholder": self.boolean(table["placeholder"], (*path, "placeholder")),
            "cards": cards,
            "fixed": fixed,
            "ozone_low": low,
            "ozone_high": high,
            "without_drift": without,
            "min_per_direction": least,
        }

    def score(self, value: Any, flags: dict[str, Any]) -> dict[str, Any]:
        """§4, K2 advance tables: score.amoeba_advance for 3-4 players, flag
        amoeba_score_table_5_6 for 5-6 (PX19), each an entry for every amoeba count its player
        counts can have on the board (0..amoebas_per_player; entries beyond are not used)."""
        path: KeyPath = ("score",)
        table = self.table(value, path, ("amoeba_advance", "gene_advance"))
        why = " (flags.amoebas_per_player + 1)"
        amoebas_per_player = flags["amoebas_per_player"]
        base = [amoebas_per_player[str(p)] for p in self.counts if p not in FIVE_SIX]
        amoeba = self.integers(
            table["amoeba_advance"],
            (*path, "amoeba_advance"),
            0,
            MAX_ADVANCE,
            min_len=max(base, default=0) + 1,
            why=why,
            also=(("flags", "amoebas_per_player"),),
        )
        five_six = [amoebas_per_player[str(p)] for p in self.counts if p in FIVE_SIX]
        self.array(
            flags["amoeba_score_table_5_6"],
            ("flags", "amoeba_score_table_5_6"),
            min_len=max(five_six, default=0) + 1,
            why=why,
            also=(("flags", "amoebas_per_player"),),
        )
        gene = self.integers(table["gene_advance"], (*path, "gene_advance"), 0, MAX_ADVANCE, min_len=1)
        return {"amoeba_advance": amoeba, "gene_advance": gene}

    def components(self, value: Any) -> dict[str, Any]:
        """§1, §5 component counts; the player counts the rules support (PX: 5-6 players)."""
        path: KeyPath = ("components",)
        table = self.table(value, path, (*_COMPONENT_RANGES, "player_counts", "setup_first_dp"))
        counts_path = (*path, "player_counts")
        counts = self.integers(table["player_counts"], counts_path, MIN_PLAYERS, MAX_PLAYERS, min_len=1)
        if counts != sorted(set(counts)):
            self.bad(counts_path, "distinct player counts in ascending order", counts)
        out: dict[str, Any] = {"player_counts": counts}
        for key, (lo, hi) in _COMPONENT_RANGES.items():
            out[key] = self.integer(table[key], (*path, key), lo, hi)
        # S6 for 3-4 players; with 5-6 the flag setup_dp_5_6 (PX10) gives the first amoeba's DP.
        out["setup_first_dp"] = self.by_players(
            table["setup_first_dp"],
            (*path, "setup_first_dp"),
            _SETUP_FIRST_DP_MAX,
            [p for p in counts if p not in FIVE_SIX],
        )
        return out

    def feeding(self, value: Any) -> dict[str, Any]:
        """M4, F1-F4: standard and substitution shapes per player count (PX12, PX13, §5), and
        feeding numbers."""
        path: KeyPath = ("feeding",)
        optional = tuple(f"p{p}" for p in PLAYER_COUNTS if p not in self.counts)
        table = self.table(value, path, (*_FEEDING_KEYS, *_FEEDING_RANGES), optional=optional)
        out: dict[str, Any] = {}
        for players in self.counts:
            key = f"p{players}"
            p_path = (*path, key)
            shapes = self.table(table[key], p_path, ("standard", "substitution"))
            sub_path = (*p_path, "substitution")
            out[key] = {
                "standard": self.shape(shapes["standard"], (*p_path, "standard"), players - 1),
                "substitution": [
                    self.shape(s, (*sub_path, i), players - 1)
                    for i, s in enumerate(self.array(shapes["substitution"], sub_path))
                ],
            }
        for key, (lo, hi) in _FEEDING_RANGES.items():
            out[key] = self.integer(table[key], (*path, key), lo, hi)
        return out

    def genes(self, value: Any) -> dict[str, Any]:
        """§7: every base-game gene, in gene-index order, with weight/defect_payment/gives_up
        filled (and every gene module's gene after the number-only slots, genes.ADDED_GENES: its
        data row is required like any other); then the number-only genes the files declare
        (``effect = "none"``), in the order they were declared, each in the next slot of
        genes.NUMBER_ONLY_GENES."""
        path: KeyPath = ("genes",)
        if not isinstance(value, dict):
            self.bad(path, "a table", value)
        known = GENE_NAMES[: NUMBER_ONLY_GENES[0]] + tuple(GENE_NAMES[i] for i in ADDED_GENES)
        declared = [name for name in value if name not in known]
        for name in declared:
            entry = value[name]
            if not (isinstance(entry, dict) and "effect" in entry):
                self.fail(
                    (*path, name),
                    "unknown gene (expected one of: " + ", ".join(known) + "; or a number-only gene "
                    f'marked effect = "{NUMBER_ONLY_EFFECT}")',
                )
            taken = {n.lower() for n in (*known, *GENE_ALIASES)}
            if name.strip().lower() in taken:
                self.fail((*path, name), "a number-only gene needs a name of its own, not a gene's")
        if len(declared) > len(NUMBER_ONLY_GENES):
            self.fail(
                (*path, declared[len(NUMBER_ONLY_GENES)]),
                f"expected at most {len(NUMBER_ONLY_GENES)} number-only genes (the engine's slots, "
                "genes.NUMBER_ONLY_GENES), got " + str(len(declared)),
            )
        table = self.table({k: v for k, v in value.items() if k in known}, path, known, what="gene")
        out: dict[str, Any] = {}
        for name in known:
            g_path = (*path, name)
            gene = self.table(table[name], g_path, _GENE_KEYS, optional=_GENE_KEYS[3:])
            mp = self.integer(gene["mp"], (*g_path, "mp"), -MAX_MP, MAX_MP)
            if "defect_payment" in gene:
                defect = self.integer(
                    gene["defect_payment"], (*g_path, "defect_payment"), 0, MAX_DEFECT_PAYMENT
                )
            elif mp < 0:
                self.fail(
                    (*g_path, "defect_payment"),
                    f"missing key (required when mp is negative; mp = {mp})",
                    also=((*g_path, "mp"),),
                )
            else:
                defect = mp
            out[name] = {
                "price": self.integer(gene["price"], (*g_path, "price"), 0, MAX_PRICE),
                "mp": mp,
                "copies": self.by_players(gene["copies"], (*g_path, "copies"), MAX_COPIES, self.copy_counts),
                "weight": self.integer(gene.get("weight", 1), (*g_path, "weight"), 0, MAX_WEIGHT),
                "defect_payment": defect,
                "gives_up": self.gives_up(gene.get("gives_up", []), (*g_path, "gives_up"), name),
            }
        for name in declared:
            g_path = (*path, name)
            gene = self.table(value[name], g_path, _NUMBER_ONLY_KEYS, optional=_NUMBER_ONLY_KEYS[4:])
            self.string(gene["effect"], (*g_path, "effect"), (NUMBER_ONLY_EFFECT,))
            mp = self.integer(gene["mp"], (*g_path, "mp"), -MAX_MP, MAX_MP)
            out[name] = {
                "effect": NUMBER_ONLY_EFFECT,
                "price": self.integer(gene["price"], (*g_path, "price"), 0, MAX_PRICE),
                "mp": mp,
                "copies": self.by_players(gene["copies"], (*g_path, "copies"), MAX_COPIES, self.copy_counts),
                "weight": self.integer(gene.get("weight", 1), (*g_path, "weight"), 0, MAX_WEIGHT),
                "defect_payment": self.integer(
                    gene.get("defect_payment", max(mp, 0)), (*g_path, "defect_payment"), 0, MAX_DEFECT_PAYMENT
                ),
                "gives_up": [],
            }
        return out

    def meal_shape_counts(self, feeding: dict[str, Any], flags: dict[str, Any]) -> None:
        """M4, F1-F4: every shape set of every player count fits the engine's MAX_SHAPES (the
        tables of meal_shapes.py keep the first MAX_SHAPES shapes and would drop the rest)."""
        for players in self.counts:
            key = f"p{players}"
            counts = _shape_set_sizes(
                feeding[key]["standard"],
                substitution_shapes(feeding, flags, players),
                feeding["frugality_fewer"],
                feeding["parasitism_fewer"],
            )
            worst = max(counts, key=counts.get)  # type: ignore[arg-type]
            if counts[worst] > MAX_SHAPES:
                self.fail(
                    ("feeding", key),
                    f"expected at most {MAX_SHAPES} meal shapes for one set of feeding genes "
                    f"(the engine's MAX_SHAPES), got {counts[worst]} {worst} "
                    "(fewer substitution shapes, or a smaller frugality_fewer or parasitism_fewer)",
                    also=(("feeding", "frugality_fewer"), ("feeding", "parasitism_fewer")),
                )
            options = meal_option_bound(
                feeding[key]["standard"],
                substitution_shapes(feeding, flags, players),
                feeding["frugality_fewer"],
                feeding["parasitism_fewer"],
                players,
            )
            if options > MAX_OPTIONS:
                self.fail(
                    ("feeding", key),
                    f"expected at most {MAX_OPTIONS} meal options in one decision (the engine's option "
                    f"buffer), got up to {options} with {players} players (fewer or smaller substitution "
                    "shapes, or a smaller frugality_fewer or parasitism_fewer)",
                    also=(("feeding", "frugality_fewer"), ("feeding", "parasitism_fewer")),
                )

    def gives_up(self, value: Any, path: KeyPath, owner: str) -> list[str]:
        """G3: at most two distinct, existing, non-advanced lower genes (aliases resolved)."""
        names = self.array(value, path, max_len=2, why=" (lower genes given up)")
        out: list[str] = []
        for i, name in enumerate(names):
            name = GENE_ALIASES.get(name, name) if isinstance(name, str) else name
            if not isinstance(name, str) or name not in GENE_INDEX:
                self.bad((*path, i), "the name of a base-game gene", name)
            if GENE_INDEX[name] in ADVANCED_GENES or name == owner or name in out:
                self.bad((*path, i), f"a distinct non-advanced gene other than {json.dumps(owner)}", name)
            out.append(name)
        return out


def substitution_shapes(feeding: dict[str, Any], flags: dict[str, Any], players: int) -> list[list[int]]:
    """F2 with P players, the flags applied: substitution_3_1 drops [3, 1, 0] (4 players);
    feeding_5_6_substitution (§5) keeps, with 5-6 players, every shape (skip_one_spread), those
    with no colour above 2 (two_each) or none (disabled)."""
    shapes = feeding[f"p{players}"]["substitution"]
    if not flags["substitution_3_1"]:
        shapes = [s for s in shapes if s != SUBSTITUTION_3_1_SHAPE]
    if players in FIVE_SIX:
        reading = flags["feeding_5_6_substitution"]
        if reading == "two_each":
            shapes = [s for s in shapes if max(s) <= 2]
        elif reading == "disabled":
            shapes = []
    return shapes


def meal_option_bound(
    standard: list[int],
    substitution: list[list[int]],
    frugality_fewer: int,
    parasitism_fewer: int,
    players: int,
) -> int:
    """M4, F1-F4: the most EAT options one feeding can list with P players: every distinct
    arrangement of every normal shape, plus every arrangement of every parasite shape with each
    of the P - 1 possible victims, over the worst combination of Substitution and Frugality. The
    feeding kernel needs them all in the option buffer (it walks every normal shape to its last
    arrangement before it reads the parasite set); with 5-6 players shapes have up to 5! / k!
    arrangements, so this is a bound the rules must keep (always true with 3-4 players)."""

    def arrangements(shape: Sequence[int]) -> int:
        n = math.factorial(len(shape))
        for count in set(shape):
            n //= math.factorial(list(shape).count(count))
        return n

    worst = 0
    for c in range(4):
        normal = normal_shapes(standard, substitution, frugality_fewer, bool(c & 1), bool(c & 2))
        parasite = parasite_shapes(normal, parasitism_fewer)
        total = sum(map(arrangements, normal)) + (players - 1) * sum(map(arrangements, parasite))
        worst = max(worst, total)
    return worst


def _shape_set_sizes(
    standard: list[int], substitution: list[list[int]], frugality_fewer: int, parasitism_fewer: int
) -> dict[str, int]:
    """The size of every shape set of meal_shapes.py built without its MAX_SHAPES cap (the same
    builder, uncapped), so a set that fits has the size the tables give it, and one that does
    not is found before its shapes are dropped (tests/test_rules_bounds.py compares them)."""
    sizes: dict[str, int] = {}
    for with_substitution in (False, True):
        for with_frugality in (False, True):
            normal = normal_shapes(
                standard, substitution, frugality_fewer, with_substitution, with_frugality, limit=None
            )
            parasite = parasite_shapes(normal, parasitism_fewer, limit=None)
            genes = (("Substitution", with_substitution), ("Frugality", with_frugality))
            held = " and ".join(name for name, on in genes if on)
            sizes[f"with {held}" if held else "without feeding genes"] = len(normal)
            sizes[f"with Parasitism{' and ' + held if held else ''}"] = len(parasite)
    return sizes


# A module's switch (a flag) and the groups of flags (FlagRow.group) the module reads only while it
# is on. With the switch off those flags change no game, so the rules id reads them at their
# defaults (issue 31.11: extra_start_pair set without extra_genes played the default's games under
# another id). The variants' flags (TD, TA, TB) are not here: a variant is chosen per run, not by
# the rules, so they change the games of the rules' variants whatever the flags say.
MODULE_SWITCHES: dict[str, tuple[str, ...]] = {"extra_genes": ("XM", "XG")}
_DEFAULT_FLAGS: list[dict[str, Any]] = []


def played_data(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (normalised rules) with the flags of every module that is off at their defaults:
    what the games depend on, and so what the rules id hashes. The default rules are unchanged."""
    flags = data["flags"]
    inert = [
        row.name
        for switch, groups in MODULE_SWITCHES.items()
        if not flags[switch]
        for row in FLAG_ROWS
        if row.group in groups and row.name != switch
    ]
    if not _DEFAULT_FLAGS:  # the file's own values: loading the defaults would ask for their id
        _DEFAULT_FLAGS.append(_read_toml(DEFAULT_RULES_PATH, str(DEFAULT_RULES_PATH))["flags"])
    return {**data, "flags": {**flags, **{name: _DEFAULT_FLAGS[0][name] for name in inert}}}


def rules_id(data: dict[str, Any]) -> str:
    """First 12 hex digits of the sha256 of the canonical JSON of what in ``data`` changes a game
    (:func:`played_data`): a stable content id, the same for rules that play the same games."""
    canonical = json.dumps(played_data(data), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


class RuleBook:
    """The validated, merged rules for every player count (plain Python; not for numba).

    Build one with :func:`load_rules`. ``data`` is normalised: every optional gene field is
    filled in (``weight`` 1, ``defect_payment`` = ``mp``, ``gives_up`` []), genes are in
    gene-index order and table keys for player counts are strings ("3" .. "6"), one for each
    of ``player_counts``.
    """

    def __init__(self, data: dict[str, Any], sources: Sequence[str]) -> None:
        self.data: dict[str, Any] = data
        self.sources: list[str] = list(sources)
        self.name: str = data["name"]
        self.rules_id: str = rules_id(data)
        self.placeholder_deck: bool = data["environment"]["placeholder"]
        self.player_counts: tuple[int, ...] = tuple(data["components"]["player_counts"])
        self.files: list[str] = []  # the house-rules files and overrides load_rules merged (derive)
        self.overrides: dict[str, Any] = {}
        # The number-only genes the files declare, in slot order (genes.NUMBER_ONLY_GENES)
        self.number_only: tuple[str, ...] = tuple(
            n for n, g in data["genes"].items() if g.get("effect") == NUMBER_ONLY_EFFECT
        )
        first = NUMBER_ONLY_GENES[0]
        # The name of every gene index: GENE_NAMES with the declared number-only genes in their slots
        self.gene_names: tuple[str, ...] = (
            GENE_NAMES[:first] + self.number_only + GENE_NAMES[first + len(self.number_only) :]
        )

    def gene_index(self, name: str) -> int:
        """A gene's index by its name (aliases, any case, number-only genes by their declared
        name); KeyError if these rules have no such gene."""
        name = GENE_ALIASES.get(name, name)
        lookup = {n.lower(): i for i, n in enumerate(self.gene_names)}
        lookup.update({a.lower(): GENE_INDEX[r] for a, r in GENE_ALIASES.items()})
        return lookup[name.strip().lower()]

    def genes_in_play(self, players: int, variant: str | None = None) -> list[str]:
        """The genes with at least one copy at this player count (S3, XM1-XM3): the only ones a
        strategy can buy. An experiment on any other gene (removing it, tuning its value) would
        play both arms alike and report zeros, so the commands refuse it (issue 21.2)."""
        copies = self.for_players(players, variant).gene_copies
        return [g for i, g in enumerate(self.gene_names) if copies[i] > 0]

    def not_in_play(self, gene: str, players: int, variant: str | None = None) -> str:
        """Why ``gene`` is not in play (for a one-line error): an extra gene without the module,
        a number-only slot the rules do not declare, or no copies at this player count."""
        i = GENE_INDEX.get(gene, -1)
        who = f"{players} players" + (f" (--variant {variant})" if variant else "")
        in_play = ", ".join(self.genes_in_play(players, variant))
        if i in EXTRA_GENES and not self.data["flags"]["extra_genes"]:
            why = "is an extra gene and these rules do not play them (flags.extra_genes = false)"
        elif i in EXTRA_GENES:
            why = "is not in these rules' extra-gene market (flags.extra_excluded or extra_start_pair)"
        else:
            why = f"has no copies at {who}"
        return f"{gene} {why}, so it cannot be in play (genes in play at {who}: {in_play})"

    def placeholders(
        self, players: int | None = None, variant: str | None = None, decks: int = 1
    ) -> list[str]:
        """The PLACEHOLDER values (PLACEHOLDERS) a game of ``players`` (None: any supported count)
        uses: those still at their default. The deck is one while ``environment.placeholder`` is
        true; ``flags.price_5_6`` while a gene has no 5-6 price of its own. A 2-player ``variant``
        plays as its colours' count and adds its own (TD: the dummy's flags at their default).
        ``decks`` > 1: the run is played over that many plausible decks (V6), so the deck family
        is one while ``environment.family.placeholder`` is true."""
        if variant is not None:
            players = VARIANT_COLOURS[variant]
        counts = self.player_counts if players is None else (players,)
        default = _default_data()
        flags = self.data["flags"]
        used = {
            "environment.deck": self.placeholder_deck,
            "flags.setup_dp_5_6": flags["setup_dp_5_6"] == default["flags"]["setup_dp_5_6"],
            "flags.price_5_6": len(flags["price_5_6"]) < N_BASE_GENES,
        }
        family = decks > 1 and self.data["environment"]["family"]["placeholder"]
        names = [n for n, affects in PLACEHOLDERS.items() if used.get(n) and set(affects) & set(counts)]
        names += ["environment.family"] if family else []
        own = {"dummy": TD_FLAGS, "double2": DOUBLE2_PLACEHOLDERS}.get(variant, ())
        names += [f"flags.{f}" for f in own if flags[f] == default["flags"][f]]
        if flags["extra_genes"]:
            glutton = self.data["genes"]["Glutton"]["defect_payment"]
            if glutton == default["genes"]["Glutton"]["defect_payment"]:
                names.append("genes.Glutton.defect_payment")
            names += [
                n
                for n in EXTRA_PLACEHOLDERS
                if n.startswith("flags.") and flags[n[6:]] == default["flags"][n[6:]]
            ]
        return names

    def __repr__(self) -> str:
        return f"RuleBook(name={self.name!r}, rules_id={self.rules_id!r}, sources={self.sources!r})"

    def derive(self, overrides: dict[str, Any]) -> "RuleBook":
        """These rules with one more layer of ``overrides`` on top (the same files, the overrides
        this book was loaded with, then these): a reference gene, a deck, a toggled flag."""
        merged: dict[str, Any] = copy.deepcopy(self.overrides)
        _merge(merged, copy.deepcopy(overrides), (), 0, {})
        return load_rules(*self.files, overrides=merged)

    def as_dict(self) -> dict[str, Any]:
        """A deep copy of the merged, validated rules."""
        return copy.deepcopy(self.data)

    def deck_description(self) -> str:
        """E.g. ``11 cards (PLACEHOLDER deck): 6W 8E 9S ... 11- ...`` (``-`` = no drift)."""
        deck = self.data["environment"]["deck"]
        cards = " ".join(f"{c['ozone']}{'-' if c['drift'] == 'none' else c['drift']}" for c in deck)
        note = " (PLACEHOLDER deck)" if self.placeholder_deck else ""
        return f"{len(deck)} card{'s' if len(deck) != 1 else ''}{note}: {cards}"

    def for_players(self, players: int, variant: str | None = None) -> Rules:
        """The numpy :class:`Rules` for one of the rules' player counts (the flags applied:
        substitution_3_1, and with 5-6 players every flag of PX §9), or for 2 players with a
        ``variant`` (VARIANTS): the dummy variant is a 3-player game whose last colour is the
        dummy (TD1), with the TD flags applied."""
        check_variant(players, variant)
        if variant is not None and self.data["flags"]["extra_genes"]:
            where = ", ".join(str(s) for s in self.sources[1:]) or "the rules"  # the file that set it
            raise RulesError(
                f"{where}: flags.extra_genes: the extra genes are played with 3-6 players (XM1), "
                f"not with a 2-player variant (--variant {variant})"
            )
        if variant in ("double1", "double2"):
            return self._double_play(variant)
        if variant is not None:
            rules = self.for_players(VARIANT_COLOURS[variant])
            flags = self.data["flags"]
            copies = rules.gene_copies.copy()
            if flags["dummy_le_from_pool"]:  # TD4: the dummy's Life Expectancy is the pool's card
                copies[GENE_INDEX["Life Expectancy"]] = max(0, int(copies[GENE_INDEX["Life Expectancy"]]) - 1)
            return rules._replace(
                dummy=rules.players - 1,
                dummy_scores=flags["dummy_scores"],
                dummy_income=flags["dummy_bp"] == "normal_income",
                dummy_amoebas=flags["dummy_amoebas_per_round"],
                gene_copies=copies,
            )
        expected = f"one of {', '.join(map(str, self.player_counts))} (components.player_counts)"
        if isinstance(players, bool) or not isinstance(players, numbers.Integral):
            raise RulesError(f"players: expected {expected}, got {_show(players)}")
        if players not in self.player_counts:
            raise RulesError(f"players: expected {expected}, got {_show(players)}")
        players = int(players)
        d = self.data
        key = str(players)
        flags, board, comp, econ, life, feed = (
            d[s] for s in ("flags", "board", "components", "economy", "life", "feeding")
        )
        absent = {"price": 0, "mp": 0, "copies": {key: 0}, "weight": 0, "defect_payment": 0, "gives_up": []}
        genes = [d["genes"].get(name, absent) for name in self.gene_names]
        five_six = players in FIVE_SIX
        amoebas = flags["amoebas_per_player"][key]
        amoeba_advance = flags["amoeba_score_table_5_6"] if five_six else d["score"]["amoeba_advance"]
        setup_first_dp = flags["setup_dp_5_6"] if five_six else comp["setup_first_dp"][key]
        prices = [
            flags["price_5_6"].get(name, g["price"]) if five_six else g["price"]
            for name, g in zip(self.gene_names, genes, strict=True)
        ]
        copies = [g["copies"][key] for g in genes]
        if five_six and flags["deck_5_6"] == "only_39":
            copies = [
                c - g["copies"]["4"] if i < N_BASE_GENES else c
                for i, (c, g) in enumerate(zip(copies, genes, strict=True))
            ]
        # XM1-XM3, XM8: the extra genes are the start pair (in the pool from round 1) and the deck
        # (revealed in Phase 3); excluded ones, and all of them without the module, are not in play.
        extra = flags["extra_genes"]
        start = [GENE_INDEX[n] for n in flags["extra_start_pair"]] if extra else []
        out = set(flags["extra_excluded"])
        deck = [i for i in EXTRA_GENES if extra and i not in start and GENE_NAMES[i] not in out]
        for i in EXTRA_GENES:
            if i not in start and i not in deck:
                copies[i] = 0
        if extra and flags["extra_deck_mixed_with_base"]:
            # XM3's literal reading: the base genes' cards are shuffled into the face-down deck too
            deck = [i for i in range(N_BASE_GENES) for _ in range(copies[i])] + deck

        def arr(values: Any, dtype: type) -> np.ndarray:
            return np.ascontiguousarray(np.array(values, dtype=dtype))

        shapes = substitution_shapes(feed, flags, players)
        meal, n_meal, parasite, n_parasite = shape_tables(
            feed[f"p{players}"]["standard"], shapes, feed["frugality_fewer"], feed["parasitism_fewer"]
        )
        g_meal, g_n_meal, g_parasite, g_n_parasite = glutton_tables(
            feed[f"p{players}"]["standard"], shapes, feed["frugality_fewer"], feed["parasitism_fewer"]
        )
        gene_lower = np.full((N_GENES, 2), -1, dtype=np.int8)
        for i, gene in enumerate(genes):
            for j, lower in enumerate(gene["gives_up"]):
                gene_lower[i, j] = GENE_INDEX[lower]

        return Rules(
            players=players,
            n_spaces=board["spaces"],
            neighbours=arr(board["neighbours"], np.int8).reshape(board["spaces"], 4),
            neighbour_mask=_neighbour_masks(board["neighbours"]),
            compass=arr([STAY] + [DIRECTION_CODE[face] for face in board["compass"]], np.int8),
            deck_ozone=arr([c["ozone"] for c in d["environment"]["deck"]], np.int16),
            deck_drift=arr([DIRECTION_CODE[c["drift"]] for c in d["environment"]["deck"]], np.int8),
            first_round_flip=flags["first_round_flip"],
            finish_zone_start=flags["finish_zone_start"],
            holding_clings_to_own=flags["holding_clings_to_own"],
            defect_genes_may_overpay=flags["defect_genes_may_overpay"],
            defense_and_escape_same_attack=flags["defense_and_escape_same_attack"],
            answers_once_per_round=flags["answers_once_per_round"],
            attack_only_when_starving=flags["attack_only_when_starving"],
            armor_blocks_own_attacks=flags["armor_blocks_own_attacks"],
            clinging_after_first_step=flags["clinging_after_first_step"],
            gene_meals_optional=flags["gene_meals_optional"],
            aggression_lost_fight_dp=flags["aggression_lost_fight_dp"],
            persistence_after_clinging=flags["persistence_after_clinging"],
            amoeba_advance=arr(amoeba_advance[: amoebas + 1], np.int16),
            gene_advance=arr(d["score"]["gene_advance"], np.int16),
            amoebas_per_player=amoebas,
            cubes_per_colour=comp["cubes_per_colour"],
            cubes_per_space=comp["cubes_per_space"],
            start_bp=comp["start_bp"],
            setup_first_dp=setup_first_dp,
            income=flags["income_bp"][key],
            division_cost=econ["division_cost"],
            division_cost_division_rate=econ["division_cost_division_rate"],
            active_move_cost=econ["active_move_cost"],
            attack_cost=econ["attack_cost"],
            escape_cost=econ["escape_cost"],
            defense_cost=econ["defense_cost"],
            excretion=life["excretion"],
            starvation_dp=life["starvation_dp"],
            death_dp=life["death_dp"],
            death_dp_life_expectancy=life["death_dp_life_expectancy"],
            natural_death_cubes=life["natural_death_cubes"],
            violent_death_cubes=life["violent_death_cubes"],
            aggression_death_cubes=life["aggression_death_cubes"],
            aggression_armor_dp=life["aggression_armor_dp"],
            lost_defense_dp=life["lost_defense_dp"],
            standard_shape=arr(feed[f"p{players}"]["standard"], np.int8),
            substitution_shapes=arr(shapes, np.int8).reshape(len(shapes), players - 1),
            tentacle_cubes=flags["tentacle_capacity"][key],
            frugality_fewer=feed["frugality_fewer"],
            parasitism_fewer=feed["parasitism_fewer"],
            parasitism_victim_pays=feed["parasitism_victim_pays"],
            meal_shapes=meal,
            n_meal_shapes=n_meal,
            parasite_shapes=parasite,
            n_parasite_shapes=n_parasite,
            glutton_shapes=g_meal,
            n_glutton_shapes=g_n_meal,
            glutton_parasite_shapes=g_parasite,
            n_glutton_parasite_shapes=g_n_parasite,
            **_codes(meal, n_meal, parasite, n_parasite, g_meal, g_n_meal, g_parasite, g_n_parasite),
            gene_price=arr(prices, np.int16),
            gene_mp=arr([g["mp"] for g in genes], np.int16),
            gene_copies=arr(copies, np.int8),
            gene_weight=arr([g["weight"] for g in genes], np.int8),
            gene_defect_payment=arr([g["defect_payment"] for g in genes], np.int16),
            gene_lower=gene_lower,
            gene_blocks=arr([sum(1 << int(x) for x in row if x >= 0) for row in gene_lower], np.int64),
            priced_within=_priced_within(prices),
            advanced_genes=arr(
                [i for i in range(N_GENES if extra else N_BASE_GENES) if gene_lower[i, 0] >= 0], np.int8
            ),
            dummy=-1,
            dummy_scores=False,
            dummy_income=False,
            dummy_amoebas=0,
            side=arr(range(players), np.int8),
            team=arr(range(players), np.int8),
            partner=arr([-1] * players, np.int8),
            colour_choice=False,
            inedible=arr([-1] * players, np.int8),
            extra_genes=extra,
            # a number-only gene in play widens the loops to every slot (the extra genes' copies
            # stay 0 without the module, so none is ever held); so do the gene modules' genes that
            # come after the slots (genes.ADDED_GENES: extra genes too)
            n_genes=N_GENES
            if self.number_only or (extra and ADDED_GENES)
            else N_EXTRA_END
            if extra
            else N_BASE_GENES,
            extra_start=arr(start, np.int8),
            extra_deck=arr(deck, np.int8),
            xflag=arr([encode(f, flags[f.name]) for f in EXTRA_FLAGS], np.int16),
            gift=arr(NO_GIFT, np.int8),
            gift_to=-1,
            gift_keep=GIFT_ORDINARY,
            gift_bp=0,
        )

    def _double_play(self, variant: str) -> Rules:
        """Double play I (TA1: a 4-player game, a player's two colours two complete seats) or II
        (TB1-TB10: a 4-player game whose two colours of a player share one BP stock, gene set and
        score marker; no setup DP, TB7's division costs, TB3's start BP and income)."""
        rules = self.for_players(VARIANT_COLOURS[variant])
        flags = self.data["flags"]
        player_of = np.array(VARIANT_PLAYER_OF[variant], dtype=np.int8)
        rules = rules._replace(team=player_of)
        if variant == "double1":
            return rules._replace(side=rules.side if flags["double1_partner_is_opponent"] else player_of)
        partner = np.array([1, 0, 3, 2], dtype=np.int8)
        if not flags["double2_eat_partner_colour"]:
            # TB1's other reading: the partner's cubes count as one's own, so a meal is the
            # 3-player pattern over the two opponent colours (a 0 for the partner's column).
            feed = self.data["feeding"]
            shapes = [[*shape, 0] for shape in substitution_shapes(feed, flags, 3)]
            meal, n_meal, parasite, n_parasite = shape_tables(
                [*feed["p3"]["standard"], 0], shapes, feed["frugality_fewer"], feed["parasitism_fewer"]
            )
            rules = rules._replace(
                inedible=partner.copy(),
                standard_shape=np.array([*feed["p3"]["standard"], 0], dtype=np.int8),
                substitution_shapes=np.array(shapes, dtype=np.int8).reshape(len(shapes), 3),
                meal_shapes=meal,
                n_meal_shapes=n_meal,
                parasite_shapes=parasite,
                n_parasite_shapes=n_parasite,
                **_codes(
                    meal,
                    n_meal,
                    parasite,
                    n_parasite,
                    rules.glutton_shapes,
                    rules.n_glutton_shapes,
                    rules.glutton_parasite_shapes,
                    rules.n_glutton_parasite_shapes,
                ),
            )
        return rules._replace(
            side=np.arange(4, dtype=np.int8) if flags["double2_partner_is_opponent"] else player_of,
            partner=partner,
            colour_choice=flags["double2_colour_order"] == "choice",
            setup_first_dp=0,  # TB2: the starting amoebas are "without" damage points
            start_bp=flags["double2_start_bp"],
            income=flags["double2_income"],
            division_cost=flags["double2_division_cost"],
            division_cost_division_rate=flags["double2_division_cost_division_rate"],
        )


def _priced_within(prices: list[int]) -> np.ndarray:
    """Rules.priced_within: for x BP up to the highest price, the genes priced at most x (G1)."""
    top = max([0, *prices])
    return np.array(
        [sum(1 << i for i, price in enumerate(prices) if price <= x) for x in range(top + 1)], np.int64
    )


def _neighbour_masks(neighbours: list[list[int]]) -> np.ndarray:
    """Rules.neighbour_mask: each space's neighbours as a bit mask (B1), on a board of at most
    MASK_SPACES spaces; zeros on a bigger one."""
    masks = np.zeros(len(neighbours), np.int64)
    if len(neighbours) <= MASK_SPACES:
        for s, row in enumerate(neighbours):
            masks[s] = sum(1 << t for t in set(row) if t >= 0)
    return masks


def _codes(*tables: np.ndarray) -> dict[str, np.ndarray]:
    """Rules.meal_codes and n_meal_codes of the shape tables (shapes, sizes, ...) in the order of
    meal_shapes.*_TABLE: meal, parasite, Glutton's, Glutton's parasite (M4, F1-F4, XG-02)."""
    codes, counts = code_tables(list(zip(tables[::2], tables[1::2], strict=True)))
    return {"meal_codes": codes, "n_meal_codes": counts}


def check_variant(players: int, variant: str | None) -> None:
    """2 players need a variant of VARIANTS, and a variant needs 2 players (one-line RulesError)."""
    names = ", ".join(VARIANTS)
    if players == 2 and variant is None:
        raise RulesError(f"players: 2 players need a variant (--variant {names}; ursuppe-2-players spec)")
    if variant is not None and variant not in VARIANTS:
        raise RulesError(f"variant: expected one of {names}, got {_show(variant)}")
    if variant is not None and players != 2:
        raise RulesError(f"variant: {variant} is a 2-player variant, but players is {_show(players)}")


_DEFAULT_DATA: list[dict[str, Any]] = []


def _default_data() -> dict[str, Any]:
    """The default rules' normalised data (loaded once): what a placeholder's default is."""
    if not _DEFAULT_DATA:
        _DEFAULT_DATA.append(load_rules().data)
    return _DEFAULT_DATA[0]


def load_rules(*paths: str | Path | None, overrides: dict[str, Any] | None = None) -> RuleBook:
    """Load the default rules, deep-merge each house-rules file in order, then ``overrides``.

    Tables merge key by key (genes per gene and per field); arrays are replaced whole. In a
    house-rules file or ``overrides`` the §10 flags may also be given at top level as
    shorthand for ``flags.<name>``. ``None`` paths are skipped. Any bad input -> RulesError.
    """
    layers: list[tuple[str, Any]] = [
        (str(DEFAULT_RULES_PATH), _read_toml(DEFAULT_RULES_PATH, str(DEFAULT_RULES_PATH)))
    ]
    for path in paths:
        if path is not None:
            layers.append((str(path), _read_toml(Path(path), str(path))))
    if overrides is not None:
        layers.append((OVERRIDES_LABEL, overrides))

    merged: dict[str, Any] = {}
    origin: dict[tuple[str, ...], int] = {}
    sources: list[str] = []
    moved: dict[int, dict[str, tuple[str, str]]] = {}
    for index, (label, raw) in enumerate(layers):
        _merge(merged, _prepare_layer(raw, label, moved.setdefault(index, {})), (), index, origin)
        sources.append(label)
    book = RuleBook(_Checker(sources, origin, moved).rules(merged), sources)
    book.files = [str(p) for p in paths if p is not None]
    book.overrides = copy.deepcopy(overrides) if overrides else {}
    return book
