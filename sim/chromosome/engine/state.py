"""Chromosome's position as a struct of arrays (leading axis = game) and the rules as the kernels
read them (:class:`Rules`, one player count).

Rooms are indexed 0..R-1 in the layout's order (rules/board.py); a room holds at most one group
(I2), so the groups are the room arrays ``owner``/``size``/``charged``. Gene colours are indexed
in rules.book.COLOURS order (Y, P, R, B); species in rules.book.SPECIES order.
"""

from typing import NamedTuple

import numpy as np

from sim.chromosome.engine.effects import SPECIAL_EFFECTS
from sim.chromosome.rules.book import COLOURS, EFFECT_KINDS, EVENT_KINDS, FLAGS, SPECIES, ChromosomeRules
from sim.jit import PLAIN_PYTHON, Borrowed, BorrowedReference, TupleReference, reference_proxy, reference_type
from sim.random_stream import seed_streams

Y, P_, R, B = range(len(COLOURS))  # gene colours (P_: P is the player count everywhere else)
NO_OWNER = -1
UNBOUNDED = 127  # fate_max = 0 (unbounded): a bound no game reaches

# A game's random streams (sim.random_stream): seating and species (S4, S6) apart from the dice
# and a strategy's own draws, so that a house rule that rolls more leaves the seating as it was.
STREAM_SETUP, STREAM_DICE, STREAM_STRATEGY = range(3)
N_STREAMS = 3

# Why a game ended (State.end_reason).
END_NONE, END_ROUNDS, END_ELIMINATION = range(3)  # E1, E3

# Rules.numbers: every integer of the rules a kernel reads, by constant.
NUMBER_KEYS: tuple[str, ...] = (
    "components.tokens_per_species",
    "components.gene_cubes_per_colour",
    "components.radiation_cubes",
    "components.max_genes",
    "components.irradiation_max",
    "components.max_turns_per_round",
    "setup.start_fate",
    "setup.start_group",
    "costs.fate_restore_energy",
    "costs.trophy_energy",
    "costs.black_discard_irradiation",
    "costs.evolution_random_energy",
    "costs.impulse_cubes",
    "flags.die_sides",
    "flags.fate_max",
    "genes.red_strength",
    "genes.black_test",
)
(
    N_TOKENS,
    N_GENE_CUBES,
    N_RADIATION_CUBES,
    N_MAX_GENES,
    N_IRRADIATION_MAX,
    N_MAX_TURNS,
    N_START_FATE,
    N_START_GROUP,
    N_FATE_RESTORE,
    N_TROPHY_ENERGY,
    N_BLACK_DISCARD,
    N_EVOLUTION_RANDOM,
    N_IMPULSE_CUBES,
    N_DIE_SIDES,
    N_FATE_MAX,
    N_RED_STRENGTH,
    N_BLACK_TEST,
) = range(len(NUMBER_KEYS))

# Rules.flag: each §14 flag as the index of its reading in rules.book.FLAGS' choices (0 = default).
F = {f.name: i for i, f in enumerate(FLAGS)}


class Rules(NamedTuple):
    """The rules of one player count as the kernels read them."""

    players: int
    rounds: int  # S2: R(P)
    tile: np.ndarray  # int16 [R]
    sterility: np.ndarray  # int8 [R]
    start: np.ndarray  # int8 [R]: 1 = a start room
    neighbours: np.ndarray  # int8 [R, 6], -1 padded
    degree: np.ndarray  # int8 [R]
    distance: np.ndarray  # int8 [R, R] (L4)
    numbers: np.ndarray  # int32 [len(NUMBER_KEYS)]
    flag: np.ndarray  # int8 [len(FLAGS)]: the reading's index
    fate_values: np.ndarray  # int8 [die_sides]: face k+1 -> gene colour (D2)
    start_genes: np.ndarray  # int8 [4] (S5)
    evolution_energy: np.ndarray  # int8 [4]: -1 = held of that colour + 1 (G1)
    card_kind: np.ndarray  # int8 [E]: the event deck's cards (V5), EVENT_CARD_KINDS index
    card_room: np.ndarray  # int8 [E]: the room a card names, -1 if none or not in this layout
    card_n: np.ndarray  # int8 [E]: a card's n (cubes for place_area)
    special_count: np.ndarray  # int8 [4]: each species' special actions (SP1; 0 in the plain mode)
    special_effect: np.ndarray  # int8 [4, A]: the action's effect, SPECIAL_EFFECTS index
    special_cost: np.ndarray  # int8 [4, A, 7]: Y, P, R, B, any colour, E, E per room between (A8)
    special_param: np.ndarray  # int8 [4, A]: the effect's integer parameter (tokens, cubes, amount, size)
    special_per_round: np.ndarray  # int8 [4, A]: uses allowed a round (0: no limit)
    # Restricted play (issue 34): per player (the engine's index), a bit mask of the actions it may
    # not take (bit ACT_* code; bit 16 + k: special action k). 0 in every game of a run; a
    # restricted-play experiment sets it for one seat of one game (actions.list_actions).
    deny_action: np.ndarray  # int64 [P]


# V5: the event cards' kinds, in rules.book.EVENT_KINDS order (events.py applies them).
EVENT_CARD_KINDS: tuple[str, ...] = tuple(EVENT_KINDS)
(
    CARD_REMOVE_ROOM,
    CARD_IRRADIATE_ALL,
    CARD_PLACE_AREA,
    CARD_DECAY_ALL,
    CARD_DISCHARGE_ALL,
    CARD_FATE_ALL,
    CARD_ROUND_NO_ATTACKS,
    CARD_ROUND_STERILITY_PLUS1,
    CARD_ROUND_TROPHY_ENERGY,
) = range(len(EVENT_CARD_KINDS))
assert all(globals()["CARD_" + k.upper()] == i for i, k in enumerate(EVENT_CARD_KINDS))

COST_FIELDS = ("Y", "P", "R", "B", "any", "E", "E_per_room")  # special_cost's last axis


def rules_for(book: ChromosomeRules, players: int) -> Rules:
    """The kernels' view of ``book`` for ``players`` (every reading of the spec is played)."""
    board = book.board(players)
    data = book.data
    numbers = []
    for key in NUMBER_KEYS:
        section, name = key.split(".")
        numbers.append(data[section][name])
    numbers[N_FATE_MAX] = numbers[N_FATE_MAX] or UNBOUNDED
    flag = [f.choices.index(data["flags"][f.name]) for f in FLAGS]
    sides = data["flags"]["die_sides"]
    energy = [
        -1,
        -1,
        data["costs"]["evolution_energy"].get("R", 2),
        data["costs"]["evolution_energy"].get("B", 1),
    ]
    return Rules(
        players=players,
        rounds=book.rounds(players),
        tile=board.tile.copy(),
        sterility=board.sterility.copy(),
        start=board.start.astype(np.int8),
        neighbours=board.neighbours.copy(),
        degree=board.degree.copy(),
        distance=board.distance.copy(),
        numbers=np.array(numbers, dtype=np.int32),
        flag=np.array(flag, dtype=np.int8),
        fate_values=np.array([COLOURS.index(c) for c in data["die"]["fate_values"][:sides]], dtype=np.int8),
        start_genes=np.array([data["setup"]["start_genes"].get(c, 0) for c in COLOURS], dtype=np.int8),
        evolution_energy=np.array(energy, dtype=np.int8),
        **_event_deck(book, board),
        **_special_actions(book),
        deny_action=np.zeros(players, np.int64),
    )


def _special_actions(book: ChromosomeRules) -> dict[str, np.ndarray]:
    """SP1: each species' special actions as arrays (none in the plain mode)."""
    actions = book.species_actions()
    width = max(1, max(len(a) for a in actions.values()))
    count = np.zeros(len(SPECIES), np.int8)
    effect = np.zeros((len(SPECIES), width), np.int8)
    cost = np.zeros((len(SPECIES), width, len(COST_FIELDS)), np.int8)
    param = np.zeros((len(SPECIES), width), np.int8)
    per_round = np.zeros((len(SPECIES), width), np.int8)
    for s, name in enumerate(SPECIES):
        count[s] = len(actions[name])
        for k, a in enumerate(actions[name]):
            effect[s, k] = SPECIAL_EFFECTS.index(a["effect"])
            cost[s, k] = [a["cost"].get(c, 0) for c in COST_FIELDS]
            defaults = EFFECT_KINDS[a["effect"]]
            values = [a.get("params", {}).get(key, default) for key, (_, _, default) in defaults.items()]
            param[s, k] = values[0] if values else 0
            per_round[s, k] = a.get("per_round", 0)
    return {
        "special_count": count,
        "special_effect": effect,
        "special_cost": cost,
        "special_param": param,
        "special_per_round": per_round,
    }


def _event_deck(book: ChromosomeRules, board) -> dict[str, np.ndarray]:
    """V5: the deck's cards as arrays (an empty deck with events off: nothing is revealed)."""
    deck = book.data["events"]["deck"] if book.flags["events"] else []
    rooms = {int(t): i for i, t in enumerate(board.tile)}
    return {
        "card_kind": np.array([EVENT_CARD_KINDS.index(c["kind"]) for c in deck], dtype=np.int8),
        "card_room": np.array([rooms.get(c.get("tile", -1), -1) for c in deck], dtype=np.int8),
        "card_n": np.array([c.get("n", c.get("cubes", 0)) for c in deck], dtype=np.int8),
    }


class State(NamedTuple):
    """A batch of G Chromosome positions: P players, R rooms."""

    game_index: np.ndarray  # int64 [G]: the game's index in the run (its random streams' key)
    rng_key: np.ndarray  # uint64 [G, N_STREAMS]
    rng_ctr: np.ndarray  # uint64 [G, N_STREAMS]
    strategy: np.ndarray  # int16 [G, P]: the strategy deciding for player p
    species: np.ndarray  # int8 [G, P]: index into SPECIES (S4)
    round: np.ndarray  # int8 [G]: 1-based
    clock: np.ndarray  # int8 [G]: R(P) - round + 1 (I10)
    start_player: np.ndarray  # int8 [G]: this round's starting player (S6, R5)
    active: np.ndarray  # int8 [G]: the player whose turn it is (Phase II)
    finished: np.ndarray  # bool [G]
    end_reason: np.ndarray  # int8 [G]: END_*
    owner: np.ndarray  # int8 [G, R]: the player whose group stands in room r, NO_OWNER if none (I2)
    size: np.ndarray  # int8 [G, R]: tokens of that group, 0 if none (1-3)
    charged: np.ndarray  # int8 [G, R]: 1 if that group is charged
    cubes: np.ndarray  # int8 [G, R]: radiation cubes: the strength of room r's area (X1)
    removed: np.ndarray  # int8 [G, R]: 1 once an event removed the room (V3)
    pool: np.ndarray  # int8 [G]: radiation cubes not on the board (I4)
    supply: np.ndarray  # int8 [G, P]: player p's tokens in its supply (I1)
    trophies: np.ndarray  # int8 [G, P, P]: [holder, owner]: owner's tokens the holder holds (F8)
    active_genes: np.ndarray  # int8 [G, P, 4]: by colour (K1)
    passive_genes: np.ndarray  # int8 [G, P, 4]
    gene_supply: np.ndarray  # int8 [G, 4] (I6)
    fate: np.ndarray  # int8 [G, P]
    fate_exhausted: np.ndarray  # int8 [G, P]: the fate token's exhausted side (K2, I8)
    irradiation: np.ndarray  # int8 [G, P]: 0 = off the track (C3)
    eliminated: np.ndarray  # int8 [G, P] (E2)
    passed: np.ndarray  # int8 [G, P]: has passed this round (R6)
    turn_energy: np.ndarray  # int8 [G]: surplus energy of this turn (flag energy_surplus_scope = turn, K4)
    ending: np.ndarray  # int8 [G]: 1 once a player was eliminated (E3: the final turns, then the end)
    turns: np.ndarray  # int16 [G]: turns taken this round (R8's guard)
    deck: np.ndarray  # int8 [G, E]: the event cards in the order they are revealed (V2)
    deck_len: np.ndarray  # int8 [G]: cards in the deck (a scenario may give fewer)
    deck_pos: np.ndarray  # int8 [G]: cards revealed so far
    no_attacks: np.ndarray  # int8 [G]: 1 this round after round_no_attacks (V5)
    sterility_plus: np.ndarray  # int8 [G]: every room's sterility + this, max 3, this round (V5)
    trophy_bonus: np.ndarray  # int8 [G]: energy a trophy pays beyond costs.trophy_energy this round (V5)
    special_used: np.ndarray  # int8 [G, P, A]: each special action's uses this round (per_round)


def allocate_state(games: int, rules: Rules) -> State:
    """Zeroed arrays for ``games`` games of ``rules`` (allocated once per batch)."""
    G, P, Rn = games, rules.players, len(rules.tile)
    return State(
        game_index=np.zeros(G, np.int64),
        rng_key=np.zeros((G, N_STREAMS), np.uint64),
        rng_ctr=np.zeros((G, N_STREAMS), np.uint64),
        strategy=np.zeros((G, P), np.int16),
        species=np.zeros((G, P), np.int8),
        round=np.zeros(G, np.int8),
        clock=np.zeros(G, np.int8),
        start_player=np.zeros(G, np.int8),
        active=np.zeros(G, np.int8),
        finished=np.zeros(G, np.bool_),
        end_reason=np.zeros(G, np.int8),
        owner=np.full((G, Rn), NO_OWNER, np.int8),
        size=np.zeros((G, Rn), np.int8),
        charged=np.zeros((G, Rn), np.int8),
        cubes=np.zeros((G, Rn), np.int8),
        removed=np.zeros((G, Rn), np.int8),
        pool=np.zeros(G, np.int8),
        supply=np.zeros((G, P), np.int8),
        trophies=np.zeros((G, P, P), np.int8),
        active_genes=np.zeros((G, P, len(COLOURS)), np.int8),
        passive_genes=np.zeros((G, P, len(COLOURS)), np.int8),
        gene_supply=np.zeros((G, len(COLOURS)), np.int8),
        fate=np.zeros((G, P), np.int8),
        fate_exhausted=np.zeros((G, P), np.int8),
        irradiation=np.zeros((G, P), np.int8),
        eliminated=np.zeros((G, P), np.int8),
        passed=np.zeros((G, P), np.int8),
        turn_energy=np.zeros(G, np.int8),
        ending=np.zeros(G, np.int8),
        turns=np.zeros(G, np.int16),
        deck=np.zeros((G, len(rules.card_kind)), np.int8),
        deck_len=np.zeros(G, np.int8),
        deck_pos=np.zeros(G, np.int8),
        no_attacks=np.zeros(G, np.int8),
        sterility_plus=np.zeros(G, np.int8),
        trophy_bonus=np.zeros(G, np.int8),
        special_used=np.zeros((G, P, rules.special_effect.shape[1]), np.int8),
    )


def seed_state(state: State, seed: int, game_indices: np.ndarray) -> None:
    """Key every game's random streams by (seed, game index) (§0: a game is a pure function of
    rules, strategies, seed and game index)."""
    key, ctr = seed_streams(seed, game_indices, N_STREAMS)
    state.game_index[:] = game_indices
    state.rng_key[:] = key
    state.rng_ctr[:] = ctr


MAX_OPTIONS = 1024  # legal options of one decision
OPTION_WIDTH = 8  # integers describing one option (decision_kinds.py: each kind's layout)
EVENT_WIDTH = 10  # integers per event record (events.py)

# Workspace.context: what a roll's reroll window is about (D3), for the strategies' valuation.
CTX_PURPOSE, CTX_ROLLER, CTX_OPPONENT, CTX_FACE = range(4)
CONTEXT_WIDTH = 4
ROLL_ATTACK, ROLL_DEFENCE, ROLL_TEST, ROLL_EVOLUTION = range(4)  # CTX_PURPOSE (F4, F5, X3, A6)

ERR_NONE = 0
ERR_WRONG_CHOICE_KIND = 1  # a forced choice of another kind than the decision at hand
ERR_ILLEGAL_CHOICE = 2  # a forced choice the rules forbid here
ERR_MISSING_DIE = 3  # forced dice ran out
ERR_INVARIANT = 4  # an invariant of §12 failed (error[g, 1] = its number)
ERR_TOO_MANY_OPTIONS = 5
ERR_EVENT_OVERFLOW = 6
ERR_NO_END = 7  # a round ran past the R8 guard
# Not a defect: the game stopped at a decision point, as its tape asked (issue 33, decision_points.py):
# error[g, 1:] = the tape index, the decision kind and the player; stop_options its legal options.
ERR_DECISION_POINT = 8


class Workspace(NamedTuple):
    """Everything beside the position that the kernels read or write. B = blocks of games."""

    options: np.ndarray  # int32 [B, MAX_OPTIONS, OPTION_WIDTH]: legal options of the decision at hand
    scores: np.ndarray  # float64 [B, MAX_OPTIONS]: a strategy's value of each option
    params: np.ndarray  # float64 [n_strategies, K]: strategy parameter rows (strategies/chromosome)
    tape_kind: np.ndarray  # int16 [G, T]: forced choices: the decision kind (decision_kinds.py)
    tape_value: np.ndarray  # int32 [G, T, OPTION_WIDTH]: forced choices: the option row
    tape_len: np.ndarray  # int32 [G]
    tape_pos: np.ndarray  # int32 [G]
    tape_seats: np.ndarray  # int32 [G]: bit p set if the tape forces player p's decisions (-1: all)
    fork_at: np.ndarray  # int32 [G]: the tape index whose choice forks the game (fork.py), -1 none
    fork_key: np.ndarray  # uint64 [G]: the fork's key (random_stream.refork)
    stop_options: np.ndarray  # int32 [G, MAX_OPTIONS, OPTION_WIDTH] (with a tape): a decision point's options
    n_stop_options: np.ndarray  # int32 [G]
    stop_choice: np.ndarray  # int32 [G]: at a decision point, the option the seat's strategy takes
    dice: np.ndarray  # int8 [G, D]: forced dice
    dice_len: np.ndarray  # int32 [G]: -1 = not forced (draw from the game's stream)
    dice_pos: np.ndarray  # int32 [G]
    events: np.ndarray  # int32 [G, E, EVENT_WIDTH]: the event log (when log_events)
    n_events: np.ndarray  # int32 [G]
    error: np.ndarray  # int32 [G, 4]: ERR_* and details; a game with an error stops
    context: np.ndarray  # int32 [B, CONTEXT_WIDTH]: what the decision at hand is about (the roll...)
    log_events: bool
    check_invariants: bool


def allocate_workspace(
    games: int,
    blocks: int,
    params: np.ndarray,
    *,
    log_events: bool = False,
    check_invariants: bool = False,
    tape_capacity: int = 0,
    dice_capacity: int = 0,
    event_capacity: int = 4096,
) -> Workspace:
    """The workspace of a batch: per-block buffers, the strategies' rows, a scenario's tapes."""
    G = games
    return Workspace(
        options=np.zeros((blocks, MAX_OPTIONS, OPTION_WIDTH), np.int32),
        scores=np.zeros((blocks, MAX_OPTIONS), np.float64),
        params=np.ascontiguousarray(params, dtype=np.float64),
        tape_kind=np.zeros((G, max(1, tape_capacity)), np.int16),
        tape_value=np.zeros((G, max(1, tape_capacity), OPTION_WIDTH), np.int32),
        tape_len=np.zeros(G, np.int32),
        tape_pos=np.zeros(G, np.int32),
        tape_seats=np.full(G, -1, np.int32),
        fork_at=np.full(G, -1, np.int32),
        fork_key=np.zeros(G, np.uint64),
        stop_options=np.zeros(
            (G, MAX_OPTIONS, OPTION_WIDTH) if tape_capacity > 0 else (1, 1, OPTION_WIDTH), np.int32
        ),
        n_stop_options=np.zeros(G, np.int32),
        stop_choice=np.zeros(G, np.int32),
        dice=np.zeros((G, max(1, dice_capacity)), np.int8),
        dice_len=np.full(G, -1 if dice_capacity == 0 else 0, np.int32),
        dice_pos=np.zeros(G, np.int32),
        events=np.zeros((G if log_events else 1, event_capacity if log_events else 1, EVENT_WIDTH), np.int32),
        n_events=np.zeros(G, np.int32),
        error=np.zeros((G, 4), np.int32),
        context=np.zeros((blocks, CONTEXT_WIDTH), np.int32),
        log_events=log_events,
        check_invariants=check_invariants,
    )


# --- by reference (sim.jit): the kernels take ``cs`` (State) and ``cr`` (Rules) as one pointer each
_BORROWED: dict = {}
if not PLAIN_PYTHON:

    @reference_type
    class StateReference(TupleReference):
        pass

    @reference_type
    class RulesReference(TupleReference):
        pass

    @reference_type
    class WorkspaceReference(TupleReference):
        pass

    _StateRef = reference_proxy(StateReference, State._fields)
    _RulesRef = reference_proxy(RulesReference, Rules._fields)
    _WorkspaceRef = reference_proxy(WorkspaceReference, Workspace._fields)


def borrowed_types() -> dict:
    """The numba types of ``cs``, ``cr`` and ``cw`` (kernel_types.py gives them to sim.jit), made
    once."""
    if _BORROWED:
        return _BORROWED
    from numba import typeof

    from sim.chromosome.rules.book import load_rules

    def fields(nt) -> list:
        return [(name, typeof(value)) for name, value in zip(nt._fields, nt, strict=True)]

    rules = rules_for(load_rules(), 4)
    _BORROWED.update(
        {
            "cs": BorrowedReference(StateReference(fields(allocate_state(1, rules)))),
            "cr": BorrowedReference(RulesReference(fields(rules))),
            "cw": BorrowedReference(WorkspaceReference(fields(allocate_workspace(1, 1, np.zeros((1, 1)))))),
        }
    )
    return _BORROWED


def by_reference(state: State, rules: Rules, workspace: Workspace | None = None) -> tuple:
    """``(cs, cr)``, or ``(cs, cr, cw)`` with a workspace, for the kernels (plain Python: the
    tuples themselves)."""
    if PLAIN_PYTHON:
        return (state, rules) if workspace is None else (state, rules, workspace)
    types = borrowed_types()
    refs = (Borrowed(_StateRef(*state), types["cs"]), Borrowed(_RulesRef(*rules), types["cr"]))
    if workspace is None:
        return refs
    return (*refs, Borrowed(_WorkspaceRef(*workspace), types["cw"]))


SPECIES_COUNT = len(SPECIES)


def derive_supplies(state: State, rules: Rules, g: int = 0) -> None:
    """Set game g's supplies from the rest of its position (I1, I4, I6): tokens 12 - board -
    trophies held by others, genes 16 - held, radiation cubes 10 - board (a scenario's position)."""
    n = rules.numbers
    for p in range(rules.players):
        on_board = int(state.size[g][state.owner[g] == p].sum())
        state.supply[g, p] = n[N_TOKENS] - on_board - int(state.trophies[g, :, p].sum())
    held = state.active_genes[g].sum(axis=0) + state.passive_genes[g].sum(axis=0)
    state.gene_supply[g] = n[N_GENE_CUBES] - held
    state.pool[g] = n[N_RADIATION_CUBES] - int(state.cubes[g].sum())
