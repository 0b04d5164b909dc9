"""Setup (S1-S6): seating, deck shuffle, BP, food, gene pool and the two initial placements."""

import numpy as np

from sim.jit import kernel
from sim.random_stream import shuffle
from sim.ursuppe.engine.decision_kinds import PLACE_SETUP
from sim.ursuppe.engine.decisions import (
    FREE_NUMBERS,
    count_decision,
    decide_placement,
    free_numbers,
    set_option,
    streamable,
)
from sim.ursuppe.engine.double_play import colour_order
from sim.ursuppe.engine.events import EV_CARD, EV_GIFT, EV_PLACE, EV_SEATING, log
from sim.ursuppe.engine.food import place_cubes
from sim.ursuppe.engine.gene_sets import add_to_pool, recount_pooled, set_gene
from sim.ursuppe.engine.market import shuffle_extra_deck
from sim.ursuppe.engine.players import (
    ORDER_SLOT,
    add_bp,
    amoebas_on_space,
    gift_receiver,
    put_amoeba,
    sort_turn_orders,
    turn_order,
)
from sim.ursuppe.engine.policy_port import choose_space
from sim.ursuppe.engine.state import NO_CARD, STREAM_SETUP
from sim.ursuppe.rules.book import MASK_SPACES
from sim.ursuppe.rules.seating import ROTATE_ALL_PERMUTATIONS_MAX

SEATING_RANDOM = 0  # S5: a random permutation per game
SEATING_ROTATE = 1  # S5: a balanced design, see rotate_block (every seat equally often per block)
SEATING_GIVEN = 2  # State.seat is already filled in by the caller
PHASE_SETUP = 0


@kernel
def _seat(st, g, mode):
    """S5: player -> start space 1..P."""
    P = st.seat.shape[1]
    if mode == SEATING_GIVEN:
        return
    for p in range(P):
        st.seat[g, p] = p + 1
    if mode == SEATING_RANDOM:
        shuffle(st.rng_key, st.rng_ctr, g, STREAM_SETUP, st.seat[g], P)
        return
    fact = 1
    for i in range(2, P + 1):
        fact *= i
    if fact > ROTATE_ALL_PERMUTATIONS_MAX:
        # Williams square: row r puts player (w_c + r) mod P on start space c+1, where w is
        # 0, 1, P-1, 2, P-2, ... (consecutive differences all distinct mod P, so every ordered pair
        # of players meets on neighbouring spaces once per row set). Odd P: rows P..2P-1 are the
        # mirrored rows (space c+1 takes row r's player of space P-c), which restores that balance.
        k = st.game_index[g] % (P if P % 2 == 0 else 2 * P)
        r = k % P
        for c in range(P):
            cc = c if k < P else P - 1 - c
            w = 0 if cc == 0 else ((cc + 1) // 2 if cc % 2 == 1 else P - cc // 2)
            st.seat[g, (w + r) % P] = c + 1
    else:
        # Decode k = game index mod P! in the factorial number system (Lehmer code).
        k = st.game_index[g] % fact
        for i in range(P):
            fact //= P - i
            j = i + k // fact
            k = k % fact
            x = st.seat[g, j]
            while j > i:  # rotate the chosen start space to position i
                st.seat[g, j] = st.seat[g, j - 1]
                j -= 1
            st.seat[g, i] = x


@kernel
def _shuffle_deck(st, ru, g):
    """S4/V2: shuffle the environment deck; its top card is the current card of round 1."""
    C = ru.deck_ozone.shape[0]
    for i in range(C):
        st.card_index[g, i] = i
    shuffle(st.rng_key, st.rng_ctr, g, STREAM_SETUP, st.card_index[g], C)
    for i in range(C):
        st.card_ozone[g, i] = ru.deck_ozone[st.card_index[g, i]]
        st.card_drift[g, i] = ru.deck_drift[st.card_index[g, i]]
    st.n_cards[g] = C
    st.deck_pos[g] = 0


@kernel
def _double2_markers(st, ru, g):
    """TB3 (PLACEHOLDER): double play II's two markers start on spaces 1 and 2, in random order:
    the player whose first colour drew the lower seat starts on 1. Both colours of a player then
    have its marker's space as their start space."""
    low = 0 if st.seat[g, 0] < st.seat[g, 2] else 2
    for p in range(st.seat.shape[1]):
        first = p if p < ru.partner[p] else ru.partner[p]
        st.seat[g, p] = 1 if first == low else 2


@kernel
def _take_from_deck(st, ru, g, gene):
    """A gifted extra gene lying face down (XM3) leaves the deck: the cards above it move down one
    slot and the deck starts one slot later (the scenario layout: the cards fill the last slots),
    so every other card keeps its order. Returns whether the gene was in the deck."""
    m = ru.extra_deck.shape[0]
    for k in range(st.extra_top[g], m):
        if st.extra_deck[g, k] == gene:
            for j in range(k, st.extra_top[g], -1):
                st.extra_deck[g, j] = st.extra_deck[g, j - 1]
            st.extra_deck[g, st.extra_top[g]] = NO_CARD
            st.extra_top[g] += 1
            return True
    return False


@kernel
def give_gifts(st, ru, wk, g):
    """soup combos: the genes of Rules.gift go to :func:`gifted_player` at setup, paid for by
    nobody and held since round 0 (G3: an advanced gene may replace them from round 1). Each is
    taken out of the pool (S3; the start pair, XM2) or out of the face-down extra deck (XM3), so
    that I4 holds; a gene in neither is not given (sim/ursuppe/experiments/combos.py refuses such a gift).
    No random number is drawn: a gifted game and its ungifted twin have the same seating, decks
    and dice until a decision differs. A gift is held, not bought (genes_bought and first_bought
    stay 0; nothing that happens at a purchase, G1, happens). Rules.gift_to names another
    receiver; Rules.gift_bp BP are given to the receiver too (the BP-gift reference arm)."""
    p = gift_receiver(st, ru, g)
    if ru.gift_bp > 0:
        add_bp(st, ru, g, p, ru.gift_bp)
    for k in range(ru.gift.shape[0]):
        gene = ru.gift[k]
        if gene < 0 or st.genes[g, p, gene] != 0:
            continue
        if st.pool[g, gene] > 0:
            add_to_pool(st, g, gene, -1)
        elif not (ru.extra_genes and _take_from_deck(st, ru, g, gene)):
            continue
        set_gene(st, g, p, gene, 1)
        st.gene_since[g, p, gene] = 0
        log(st, wk, g, EV_GIFT, PHASE_SETUP, p, -1, gene, 0, 0, 0, 0, 0, 0)


@kernel
def setup_position(st, ru, wk, g, seating):
    """S1-S5: the position before the initial placements."""
    P = st.seat.shape[1]
    _seat(st, g, seating)
    _shuffle_deck(st, ru, g)
    if ru.partner[0] >= 0:
        _double2_markers(st, ru, g)
    for p in range(P):
        st.score[g, p] = st.seat[g, p]
        # TD6 (flag dummy_bp = "none"): the dummy holds no BP
        st.bp[g, p] = ru.start_bp if p != ru.dummy or ru.dummy_income else 0
        st.supply[g, p] = ru.cubes_per_colour
        for a in range(st.space.shape[2]):
            st.space[g, p, a] = -1
            st.dp[g, p, a] = 0
            st.amoeba_flags[g, p, a] = 0
        st.player_flags[g, p] = 0
        for i in range(st.genes.shape[2]):
            st.genes[g, p, i] = 0
            st.gene_since[g, p, i] = 0
            st.first_bought[g, p, i] = 0
        st.held[g, p] = 0
        st.genes_bought[g, p] = 0
        st.defect_genes_lost[g, p] = 0
        st.defect_bp_paid[g, p] = 0
    for q in range(st.occupancy.shape[1]):
        for s in range(st.occupancy.shape[2]):
            st.occupancy[g, q, s] = 0
    for s in range(ru.n_spaces):
        st.food_capped[g, s] = 0
        for c in range(P):
            st.food[g, s, c] = 0
            place_cubes(st, g, s, c, ru.cubes_per_space)
    for i in range(st.pool.shape[1]):
        st.pool[g, i] = ru.gene_copies[i]
    recount_pooled(st, g)
    for s in range(st.toxic.shape[1]):
        st.toxic[g, s] = 0
    for p in range(P):
        st.seen_card[g, p] = -1
    sort_turn_orders(st, g)  # the markers on their start spaces (S5)
    st.extra_top[g] = 0
    if ru.extra_genes:
        shuffle_extra_deck(st, ru, g)  # XM3 (after the environment deck: same seats and cards)
    st.round[g] = 1
    st.finished[g] = False
    st.end_reason[g] = 0
    st.winner[g] = -1
    for p in range(P):
        log(st, wk, g, EV_SEATING, PHASE_SETUP, p, -1, st.seat[g, p], 0, 0, 0, 0, 0, 0)
    log(
        st,
        wk,
        g,
        EV_CARD,
        PHASE_SETUP,
        -1,
        -1,
        st.card_index[g, 0],
        st.card_ozone[g, 0],
        st.card_drift[g, 0],
        0,
        0,
        0,
        0,
    )
    give_gifts(st, ru, wk, g)


@kernel
def _place_initial(st, ru, wk, g, b, p, dp):
    """S6: one amoeba (any number from the supply) on a space with no amoeba."""
    n_free = free_numbers(st, wk, g, b, p)
    if n_free == 0:
        return
    lowest = wk.scratch[b, FREE_NUMBERS]
    P = st.space.shape[1]
    if ru.n_spaces <= MASK_SPACES and streamable(st, ru, wk, g, p):
        # the strategy values the empty spaces without their rows (issue 24): the same choice
        empty = np.int64(0)
        n = 0
        for s in range(ru.n_spaces):
            if amoebas_on_space(st, g, P, s) == 0:
                empty |= np.int64(1) << s
                n += 1
        if n == 0:
            return
        # one space with several numbers is a decision too (decide_placement lists every number)
        count_decision(wk, b, PLACE_SETUP, n if n > 1 else n_free)
        s = choose_space(st, ru, wk, g, b, p, PLACE_SETUP, empty, lowest)
        a = lowest - 1
    else:
        n = 0
        for s in range(ru.n_spaces):
            if amoebas_on_space(st, g, P, s) == 0:
                set_option(wk.options, b, n, s, lowest, 0)
                n += 1
        if n == 0:
            return
        i = decide_placement(st, ru, wk, g, b, p, PLACE_SETUP, n, n_free)
        s = wk.options[b, i, 0]
        a = wk.options[b, i, 1] - 1
    put_amoeba(st, g, p, a, s)
    st.dp[g, p, a] = dp
    log(st, wk, g, EV_PLACE, PHASE_SETUP, p, a + 1, s, dp, 0, 0, 0, 0, 0)


@kernel
def initial_placements(st, ru, wk, g, b):
    """S6: ascending order, first amoebas (1 DP with 4 players); descending order, second ones.
    TB2: double play II goes in its Phase-1 order of colours (TB4), then in reverse (PLACEHOLDER)."""
    P = st.seat.shape[1]
    if ru.partner[0] >= 0:
        colour_order(st, ru, wk, g, b)
    else:
        turn_order(st, wk, g, b, False)
    for i in range(P):
        _place_initial(st, ru, wk, g, b, wk.scratch[b, ORDER_SLOT + i], ru.setup_first_dp)
    for i in range(P):
        _place_initial(st, ru, wk, g, b, wk.scratch[b, ORDER_SLOT + P - 1 - i], 0)
