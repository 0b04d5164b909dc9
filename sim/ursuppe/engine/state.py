"""The game state as a struct of arrays (leading axis = game), and the per-batch workspace.

:class:`State` holds everything a position is: food, supply, amoebas, BP, scores, genes, the
environment deck, the round and each game's random streams. :class:`Workspace` holds what the
kernels need beside a position: scratch buffers (one row per block of games, so nothing is
allocated inside a game), the strategy parameter table, the forced dice and choices of a
scenario, the event log of ``soup play`` and the error slots. Both are allocated once per batch.
"""

from typing import NamedTuple

import numpy as np

from sim.jit import (
    PLAIN_PYTHON,
    Borrowed,
    BorrowedReference,
    TupleReference,
    reference_proxy,
    reference_type,
)
from sim.random_stream import seed_streams
from sim.ursuppe.engine.policy_port import saved_for
from sim.ursuppe.engine.scratch import SCRATCH_WIDTH  # the per-block buffers, laid out in scratch.py
from sim.ursuppe.engine.tally import N_TALLIES
from sim.ursuppe.rules.book import Rules
from sim.ursuppe.rules.genes import N_GENES

# Random streams of a game (sim.random_stream): kept apart so that, for example, a house rule
# that rolls more dice leaves the seating and deck order of every game as they were.
STREAM_SETUP = 0  # seating (S5) and the deck shuffle (S4)
STREAM_DICE = 1  # every die roll
STREAM_STRATEGY = 2  # a strategy's own random choices
N_STREAMS = 3

# Per-amoeba per-round flags (State.amoeba_flags), cleared at the start of each round.
AF_ATTACKED = 1  # has made its Phase-1 attack this round (A1: one attack per amoeba per round)
AF_WAS_ATTACKED = 2  # was the target of an attack this round
AF_ESCAPED = 4  # its owner answered an attack on it with Escape this round (A3)
AF_CLUNG = 8  # clung to another amoeba this round (Holding)
AF_FED = 16  # ate (or counts as fed) in this round's Phase 1
AF_STARVED = 32  # starved in this round's Phase 1
AF_DEFENDED = 64  # its owner answered an attack on it with Defense this round (A4)
AF_HEALED = 128  # Healing 1/2 removed a DP from it this round (XG-15 flag healing1_limit)

# State.extra_deck: the extra genes face down, in deck order (XM3); NO_CARD pads a short deck.
NO_CARD = -1

# Per-player per-round flags (State.player_flags).
PF_AGGRESSED = 1  # used Aggression's Phase-5 attack this round (R1)
PF_ALARM = 2  # Alarm granted its amoebas Escape (XG-03), until the end of Phase 1 or of the round
PF_EXCHANGED = 4  # made a Highly Adaptable exchange this Phase 3 (XG-08 flag ha_exchanges_per_round)

# Why a game ended (State.end_reason).
END_NONE = 0
END_FINISH_ZONE = 1  # W1: a marker reached the finish zone
END_LAST_CARD = 2  # W1/V4: the last environment card was revealed this round


FOOD_CAP = 2  # cubes of one colour State.food_capped counts: a meal takes at most 2 (M4, F2)


class State(NamedTuple):
    """A batch of G Ursuppe positions. P = players, A = amoebas per player, C = cards."""

    game_index: np.ndarray  # int64 [G]: the game's index in the run (its random streams' key)
    rng_key: np.ndarray  # uint64 [G, N_STREAMS]
    rng_ctr: np.ndarray  # uint64 [G, N_STREAMS]
    strategy: np.ndarray  # int16 [G, P]: row of Workspace.params that decides for player p
    seat: np.ndarray  # int8 [G, P]: start space 1..P of player p (S5)
    card_index: np.ndarray  # int8 [G, C]: deck order as indices into the rules deck (-1: custom card)
    card_ozone: np.ndarray  # int16 [G, C]: ozone of the deck's cards in order (V1)
    card_drift: np.ndarray  # int8 [G, C]: drift direction of the deck's cards in order
    n_cards: np.ndarray  # int8 [G]: cards in this game's deck
    deck_pos: np.ndarray  # int8 [G]: position of the current card in the deck (V2-V3)
    round: np.ndarray  # int16 [G]: the current round, 1-based (0 before the first)
    finished: np.ndarray  # bool [G]
    end_reason: np.ndarray  # int8 [G]: END_*
    winner: np.ndarray  # int8 [G]: player with the furthest marker (W1; TA4: a double play's winning
    # player's first colour), -1 while running
    food: np.ndarray  # int16 [G, S, P]: cubes of colour c on space s (C3)
    # int16 [G, S]: the sum over colours of min(cubes, FOOD_CAP) on space s, derived from
    # ``food`` and kept up to date by food.py (the policy's space values read it, ~1,000 a game)
    food_capped: np.ndarray
    supply: np.ndarray  # int16 [G, P]: cubes of colour c in the supply (C3)
    bp: np.ndarray  # int32 [G, P]: biological points (C4)
    score: np.ndarray  # int16 [G, P]: score-track position (K1)
    # int8 [G, 2, P]: the players by score, ascending ([0]) and descending ([1]), derived from
    # ``score`` where it changes (setup, Phase 6: players.sort_turn_orders) for the ~50 phases a
    # game that ask for an order (players.turn_order)
    order: np.ndarray
    genes: np.ndarray  # int8 [G, P, N_GENES]: 1 if held (G2)
    # int64 [G, P]: bit i set if player p holds gene i: ``genes`` as a mask, derived from it and
    # kept up to date by gene_sets.set_gene, so that the purchase options, mutation points and
    # card weights walk the genes held (or not held) instead of testing every gene
    held: np.ndarray
    gene_since: np.ndarray  # int16 [G, P, N_GENES]: round in which a held gene was acquired (G3)
    pool: np.ndarray  # int8 [G, N_GENES]: copies left in the gene pool (S3, I4)
    pooled: np.ndarray  # int64 [G]: bit i set if gene i has a copy in the pool (gene_sets.add_to_pool)
    space: np.ndarray  # int8 [G, P, A]: space of amoeba number a+1, -1 in the supply (C2)
    # int8 [G, P+1, S+1]: amoebas of player q on space s at [g, q, s+1]; row P: of all players.
    # Derived from ``space`` and kept up to date by players.put_amoeba, so that the policy's space
    # values and D3's legality read counts instead of recounting per decision. Slot 0 (s = -1,
    # "no space": the supply, a missing neighbour) is always 0.
    occupancy: np.ndarray
    dp: np.ndarray  # int8 [G, P, A]: damage points (C4)
    amoeba_flags: np.ndarray  # int16 [G, P, A]: AF_* bits for this round
    player_flags: np.ndarray  # int8 [G, P]: PF_* bits for this round
    genes_bought: np.ndarray  # int64 [G, P]: bit mask of every gene ever bought (results; N_GENES <= 64)
    first_bought: np.ndarray  # int16 [G, P, N_GENES]: round a gene was first bought, 0 if never (results)
    defect_genes_lost: np.ndarray  # int16 [G, P]: cards returned to pay gene defects (E2)
    defect_bp_paid: np.ndarray  # int32 [G, P]: BP paid for gene defects (E2)
    # The extra genes (docs/rules.md §18; all unused while Rules.extra_genes is false):
    extra_deck: np.ndarray  # int8 [G, len(Rules.extra_deck)]: the face-down cards in order (XM3)
    extra_top: np.ndarray  # int8 [G]: the next card of extra_deck to reveal (XM4)
    toxic: np.ndarray  # int16 [G, S]: DP tokens lying on space s (XG-19)
    # int8 [G, P]: the deck position of the environment card player p has seen privately (XG-06,
    # XG-23), -1 if none: read only by p's own strategy (its observation), never by the rules.
    seen_card: np.ndarray


def allocate_state(games: int, rules: Rules, n_cards: int | None = None) -> State:
    """Zeroed arrays for ``games`` games under ``rules`` (allocated once per batch); a scenario
    may hold a deck of another length than the rules' deck (``n_cards``)."""
    G, P, A, S = games, rules.players, rules.amoebas_per_player, rules.n_spaces
    C = len(rules.deck_ozone) if n_cards is None else n_cards
    return State(
        game_index=np.zeros(G, np.int64),
        rng_key=np.zeros((G, N_STREAMS), np.uint64),
        rng_ctr=np.zeros((G, N_STREAMS), np.uint64),
        strategy=np.zeros((G, P), np.int16),
        seat=np.zeros((G, P), np.int8),
        card_index=np.full((G, C), -1, np.int8),
        card_ozone=np.zeros((G, C), np.int16),
        card_drift=np.zeros((G, C), np.int8),
        n_cards=np.zeros(G, np.int8),
        deck_pos=np.zeros(G, np.int8),
        round=np.zeros(G, np.int16),
        finished=np.zeros(G, np.bool_),
        end_reason=np.zeros(G, np.int8),
        winner=np.full(G, -1, np.int8),
        food=np.zeros((G, S, P), np.int16),
        food_capped=np.zeros((G, S), np.int16),
        supply=np.zeros((G, P), np.int16),
        bp=np.zeros((G, P), np.int32),
        score=np.zeros((G, P), np.int16),
        order=np.zeros((G, 2, P), np.int8),
        genes=np.zeros((G, P, N_GENES), np.int8),
        held=np.zeros((G, P), np.int64),
        gene_since=np.zeros((G, P, N_GENES), np.int16),
        pool=np.zeros((G, N_GENES), np.int8),
        pooled=np.zeros(G, np.int64),
        space=np.full((G, P, A), -1, np.int8),
        occupancy=np.zeros((G, P + 1, S + 1), np.int8),
        dp=np.zeros((G, P, A), np.int8),
        amoeba_flags=np.zeros((G, P, A), np.int16),
        player_flags=np.zeros((G, P), np.int8),
        genes_bought=np.zeros((G, P), np.int64),
        first_bought=np.zeros((G, P, N_GENES), np.int16),
        defect_genes_lost=np.zeros((G, P), np.int16),
        defect_bp_paid=np.zeros((G, P), np.int32),
        extra_deck=np.full((G, max(1, len(rules.extra_deck))), NO_CARD, np.int8),
        extra_top=np.zeros(G, np.int8),
        toxic=np.zeros((G, S), np.int16),
        seen_card=np.full((G, P), -1, np.int8),
    )


def recount_gene_masks(state: State) -> None:
    """Set ``held`` from ``genes`` and ``pooled`` from ``pool``."""
    bits = np.int64(1) << np.arange(state.genes.shape[2], dtype=np.int64)
    state.held[:] = ((state.genes != 0) * bits).sum(axis=2)
    state.pooled[:] = ((state.pool > 0) * bits).sum(axis=1)


def recount_turn_orders(state: State) -> None:
    """Set ``order`` from ``score``: the players by score, ascending and descending, players on one
    space (double play II's colours of a player) in colour order (players.sort_turn_orders)."""
    state.order[:, 0] = np.argsort(state.score, axis=1, kind="stable")
    state.order[:, 1] = np.argsort(-state.score.astype(np.int64), axis=1, kind="stable")


def recount_derived(state: State) -> None:
    """Set ``occupancy`` from ``space``, ``food_capped`` from ``food``, the gene masks from
    ``genes`` and ``pool`` and the turn orders from ``score`` (after a position was written from
    outside the kernels, e.g. a scenario file)."""
    recount_gene_masks(state)
    recount_turn_orders(state)

    state.food_capped[:] = np.minimum(state.food, FOOD_CAP).sum(axis=2)
    G, P, _ = state.space.shape
    state.occupancy[:] = 0
    g, q, _a = np.nonzero(state.space >= 0)
    s = state.space[g, q, _a].astype(np.int64) + 1
    np.add.at(state.occupancy, (g, q, s), 1)
    np.add.at(state.occupancy, (g, np.full_like(q, P), s), 1)


def seed_state(state: State, seed: int, game_indices: np.ndarray) -> None:
    """Key every game's random streams by (seed, game index) (determinism: §0)."""
    key, ctr = seed_streams(seed, game_indices, N_STREAMS)
    state.game_index[:] = game_indices
    state.rng_key[:] = key
    state.rng_ctr[:] = ctr


# --- Workspace -----------------------------------------------------------------------------------

MAX_OPTIONS = 1024  # legal options of one listed decision (E2's payments are not listed: phase 2)
OPTION_WIDTH = 8  # integers describing one option (decisions.py documents each kind's layout)
EVENT_WIDTH = 12  # integers per event record (events.py)

# Error slots (Workspace.error[g, 0]); details in error[g, 1:].
ERR_NONE = 0
ERR_WRONG_CHOICE_KIND = 1  # a forced choice of another kind than the decision at hand
ERR_ILLEGAL_CHOICE = 2  # a forced choice the rules forbid here
ERR_MISSING_DIE = 3  # forced dice ran out
ERR_INVARIANT = 4  # an invariant of §11 failed (debug mode; the end-of-game checks in every run: phase 7)
ERR_TOO_MANY_OPTIONS = 5  # a decision had more than MAX_OPTIONS legal options
ERR_EVENT_OVERFLOW = 6  # the event log is full
ERR_NO_END = 7  # a game ran past the last possible round (a defect in the rules data or engine)
# Not a defect: the game stopped at a decision point, as its tape asked (issue 33, decision_points.py);
# error[g, 1:] = the tape index, the decision kind and the player, error_options its legal options.
ERR_DECISION_POINT = 8


class Workspace(NamedTuple):
    """Everything beside the position that the kernels read or write. B = blocks of games."""

    options: np.ndarray  # int32 [B, MAX_OPTIONS, OPTION_WIDTH]: legal options of the decision at hand
    scratch: np.ndarray  # int32 [B, SCRATCH_WIDTH]: small per-block buffers (orders, pattern shapes...)
    scores: np.ndarray  # float64 [B, MAX_OPTIONS]: a strategy's value of each option
    params: np.ndarray  # float64 [n_strategies, K]: strategy parameter rows (strategies/ursuppe/params.py)
    saved_for: np.ndarray  # int64 [n_strategies]: the genes each row saves BP for (params.saved_for)
    tape_kind: np.ndarray  # int16 [G, T]: forced choices: the choice key (decisions.CK_*)
    tape_value: np.ndarray  # int32 [G, T, OPTION_WIDTH]: forced choices: their option encoding
    tape_len: np.ndarray  # int32 [G]
    tape_pos: np.ndarray  # int32 [G]
    # int32 [G]: bit p set if the tape forces player p's decisions (a search seat's own; -1: all)
    tape_seats: np.ndarray
    # int32 [G]: the tape index whose choice forks the game (decisions.TAPE_STOP, fork.py), -1 none
    fork_at: np.ndarray
    fork_key: np.ndarray  # uint64 [G]: the fork's key (random_stream.refork)
    stop_choice: np.ndarray  # int32 [G]: at a decision point, the option the seat's strategy takes
    dice: np.ndarray  # int8 [G, D]: forced dice
    dice_len: np.ndarray  # int32 [G]: -1 = dice are not forced (draw from the stream)
    dice_pos: np.ndarray  # int32 [G]
    events: np.ndarray  # int32 [G, E, EVENT_WIDTH]: the event log (when log_events)
    n_events: np.ndarray  # int32 [G]
    error: np.ndarray  # int32 [G, 4]: ERR_* and details; a game with an error stops
    error_options: np.ndarray  # int32 [G, MAX_OPTIONS, OPTION_WIDTH]-like copy of the legal options
    n_error_options: np.ndarray  # int32 [G]
    score_seen: np.ndarray  # int16 [G, P]: scores at the last invariant check (I6), when checking
    tally: np.ndarray  # int64 [B, N_TALLIES]: decisions and outcomes counted per block (tally.py)
    log_events: bool
    check_invariants: bool
    n_blocks: int
    # A decision whose strategy takes the first best option may be taken from its options streamed
    # through the values instead of listed (decisions.streamable; issue 24): the same choice.
    # False lists every one (tests/test_streamed_decisions.py compares the two).
    stream_decisions: bool


def allocate_workspace(
    games: int,
    players: int,
    params: np.ndarray,
    *,
    n_blocks: int = 64,
    log_events: bool = False,
    max_events: int = 20000,
    check_invariants: bool = False,
    tape_capacity: int = 0,
    dice_capacity: int = 0,
    stream_decisions: bool = True,
) -> Workspace:
    """A workspace for ``games`` games; event, tape and error buffers are sized only when used."""
    G = games
    n_blocks = max(1, min(n_blocks, G))
    keep_detail = log_events or tape_capacity > 0 or dice_capacity > 0
    return Workspace(
        options=np.zeros((n_blocks, MAX_OPTIONS, OPTION_WIDTH), np.int32),
        scratch=np.zeros((n_blocks, SCRATCH_WIDTH), np.int32),
        scores=np.zeros((n_blocks, MAX_OPTIONS), np.float64),
        params=np.ascontiguousarray(params, dtype=np.float64),
        saved_for=saved_for(np.asarray(params, dtype=np.float64)),
        tape_kind=np.zeros((G, max(tape_capacity, 1)), np.int16),
        tape_value=np.zeros((G, max(tape_capacity, 1), OPTION_WIDTH), np.int32),
        tape_len=np.zeros(G, np.int32),
        tape_pos=np.zeros(G, np.int32),
        tape_seats=np.full(G, -1, np.int32),
        fork_at=np.full(G, -1, np.int32),
        fork_key=np.zeros(G, np.uint64),
        stop_choice=np.zeros(G, np.int32),
        dice=np.zeros((G, max(dice_capacity, 1)), np.int8),
        dice_len=np.full(G, -1, np.int32),
        dice_pos=np.zeros(G, np.int32),
        events=np.zeros((G, max_events if log_events else 1, EVENT_WIDTH), np.int32),
        n_events=np.zeros(G, np.int32),
        error=np.zeros((G, 4), np.int32),
        error_options=np.zeros(
            (G if keep_detail else 1, MAX_OPTIONS if keep_detail else 1, OPTION_WIDTH), np.int32
        ),
        n_error_options=np.zeros(G, np.int32),
        score_seen=np.zeros((G if check_invariants else 1, players), np.int16),
        tally=np.zeros((n_blocks, N_TALLIES), np.int64),
        log_events=log_events,
        check_invariants=check_invariants,
        n_blocks=n_blocks,
        stream_decisions=stream_decisions,
    )


if not PLAIN_PYTHON:
    # Module-level classes: numba's cache names the kernels' argument types by their import path.

    @reference_type
    class StateReference(TupleReference):
        """numba type of a State passed to kernels by reference."""

    @reference_type
    class RulesReference(TupleReference):
        """numba type of a Rules passed to kernels by reference."""

    @reference_type
    class WorkspaceReference(TupleReference):
        """numba type of a Workspace passed to kernels by reference."""

    _StateRef = reference_proxy(StateReference, State._fields)
    _RulesRef = reference_proxy(RulesReference, Rules._fields)
    _WorkspaceRef = reference_proxy(WorkspaceReference, Workspace._fields)


_BORROWED: dict = {}  # the kernels' types of st, ru and wk (borrowed_types)


def by_reference(state: State, rules: Rules, workspace: Workspace) -> tuple:
    """The (st, ru, wk) arguments of a kernel: references to the same arrays (plain Python: as is)."""
    if PLAIN_PYTHON:
        return state, rules, workspace
    return (
        Borrowed(_StateRef(*state), borrowed_types()["st"]),
        Borrowed(_RulesRef(*rules), borrowed_types()["ru"]),
        Borrowed(_WorkspaceRef(*workspace), borrowed_types()["wk"]),
    )


def borrowed_types() -> dict:
    """The numba types of ``st``, ``ru`` and ``wk`` (sim/ursuppe/kernel_types.py gives them to
    sim.jit: one signature per kernel), made once."""
    if _BORROWED:
        return _BORROWED
    from numba import typeof

    from sim.ursuppe.rules.book import load_rules

    def fields(nt) -> list:
        return [(name, typeof(value)) for name, value in zip(nt._fields, nt, strict=True)]

    rules = load_rules().for_players(4)
    _BORROWED.update(
        {
            "st": BorrowedReference(StateReference(fields(allocate_state(1, rules)))),
            "ru": BorrowedReference(RulesReference(fields(rules))),
            "wk": BorrowedReference(WorkspaceReference(fields(allocate_workspace(1, 4, np.zeros((1, 1)))))),
        }
    )
    return _BORROWED
