"""Phase 4 - cell division (D1-D4), in descending order; with the extra genes Population
Explosion's free amoebas (XG-20) and the healing of Healing 1 and 2 (XG-15, XG-25: genes/healing_1.py)
before a player divides.

Double play II (TB7): every step is per colour (D2's free amoeba, D3's spaces next to the
colour's own amoebas), except the income, once per player; the two colours pay from one stock."""

import numpy as np

from sim.jit import kernel
from sim.ursuppe.engine.decision_kinds import DIVIDE, PLACE_EXPLOSION, PLACE_FREE
from sim.ursuppe.engine.decisions import (
    FREE_NUMBERS,
    count_decision,
    decide,
    decide_placement,
    free_numbers,
    set_option,
    streamable,
)
from sim.ursuppe.engine.events import EV_INCOME, EV_PLACE, log
from sim.ursuppe.engine.genes.healing_1 import heals_in_phase
from sim.ursuppe.engine.genes.population_explosion import (
    explodes,
    explosion_begin,
    explosion_end,
    explosion_placed,
)
from sim.ursuppe.engine.genes.spores import spores_anywhere
from sim.ursuppe.engine.genes.toxic_excretions import toxic_placement
from sim.ursuppe.engine.players import (
    ORDER_SLOT,
    acts_for_player,
    add_bp,
    amoebas_on_board,
    division_cost,  # D3, XG-18: in players.py, where strategies can call it too
    put_amoeba,
    turn_order,
)
from sim.ursuppe.engine.policy_port import choose_space
from sim.ursuppe.rules.book import MASK_SPACES

PHASE = 4
# EV_PLACE's "how", by its name in the event log (setup's placements log 0; XG-20's explosion)
PLACE_HOW: tuple[str, ...] = ("setup", "free", "division", "explosion")
_, PLACED_FREE, PLACED_DIVISION, PLACED_EXPLOSION = range(len(PLACE_HOW))


@kernel
def _place(st, ru, wk, g, p, space, number, cost, how):
    a = number - 1
    put_amoeba(st, g, p, a, space)
    st.dp[g, p, a] = 0
    st.amoeba_flags[g, p, a] = 0
    add_bp(st, ru, g, p, -cost)
    log(st, wk, g, EV_PLACE, PHASE, p, number, space, 0, cost, how, 0, 0, 0)


@kernel
def free_placement(st, ru, wk, g, b, p):
    """D2: a player with no amoeba on the board places one free on any space (any number, D4)."""
    n_free = free_numbers(st, wk, g, b, p)
    if n_free == 0:
        return
    lowest = wk.scratch[b, FREE_NUMBERS]
    for s in range(ru.n_spaces):
        set_option(wk.options, b, s, s, lowest, 0)
    i = decide_placement(st, ru, wk, g, b, p, PLACE_FREE, ru.n_spaces, n_free)
    _place(st, ru, wk, g, p, wk.options[b, i, 0], wk.options[b, i, 1], 0, PLACED_FREE)
    toxic_placement(st, ru, wk, g, b, p, wk.options[b, i, 1] - 1, PHASE)


@kernel
def legal_division_space(st, neighbours, g, p, s, spores, anywhere):
    """D3: no amoeba of the colour there, and adjacent to one (Spores or a lone amoeba: anywhere).

    Reads the player's amoebas per space from ``occupancy``, whose slot of space -1 is 0: a
    missing neighbour (-1) then reads 0, and the four neighbours are or-ed without a branch
    each (these branches were most of D3's cost)."""
    if st.occupancy[g, p, s + 1] != 0:
        return False
    near = 0
    for d in range(4):
        near |= st.occupancy[g, p, int(neighbours[s, d]) + 1]
    return spores or anywhere or near != 0


@kernel
def division_spaces(st, ru, g, p, spores, on_board):
    """D3 as a bit mask over the spaces (a board of at most MASK_SPACES): the spaces without an
    amoeba of the colour, next to one of them (Spores, or ``on_board`` = 1: any)."""
    own = np.int64(0)
    near = np.int64(0)
    for a in range(st.space.shape[2]):
        s = st.space[g, p, a]
        if s >= 0:
            own |= np.int64(1) << s
            near |= ru.neighbour_mask[s]
    if spores or on_board == 1:
        near = (np.int64(1) << ru.n_spaces) - 1
    return near & ~own


@kernel
def division_options(st, ru, wk, g, b, p, spores, on_board, n):
    """D3-D4: write one option per legal division space (with the lowest free number, listed by
    free_numbers) from option row ``n`` on; return the count of rows after them. ``on_board``
    amoebas: one alone may divide anywhere (D3's one-amoeba exception)."""
    lowest = wk.scratch[b, FREE_NUMBERS]
    for s in range(ru.n_spaces):
        if legal_division_space(st, ru.neighbours, g, p, s, spores, on_board == 1):
            set_option(wk.options, b, n, s, lowest, 0)
            n += 1
    return n


@kernel
def divide(st, ru, wk, g, b, p):
    """D3-D4: buy new amoebas one at a time while the player can pay and has amoebas in supply."""
    spores = spores_anywhere(st, g, p)
    while True:
        cost = division_cost(st, ru, g, p)
        if st.bp[g, p] < cost:
            return
        n_free = free_numbers(st, wk, g, b, p)
        if n_free == 0:
            return
        on_board = st.space.shape[2] - n_free
        if ru.n_spaces <= MASK_SPACES and streamable(st, ru, wk, g, p):
            # the strategy values the legal spaces without their rows (issue 24): the same choice
            legal = division_spaces(st, ru, g, p, spores, on_board)
            if legal == 0:
                return
            count_decision(wk, b, DIVIDE, 2)  # the stop and at least one space
            space = choose_space(st, ru, wk, g, b, p, DIVIDE, legal, wk.scratch[b, FREE_NUMBERS])
            number = wk.scratch[b, FREE_NUMBERS]
        else:
            set_option(wk.options, b, 0, -1, -1, 0)
            n = division_options(st, ru, wk, g, b, p, spores, on_board, 1)
            if n == 1:
                return
            i = decide_placement(st, ru, wk, g, b, p, DIVIDE, n, n_free)
            space = wk.options[b, i, 0]
            number = wk.options[b, i, 1]
        if space < 0:
            return
        _place(st, ru, wk, g, p, space, number, cost, PLACED_DIVISION)
        toxic_placement(st, ru, wk, g, b, p, number - 1, PHASE)


@kernel
def dummy_division(st, ru, wk, g, b, p):
    """TD5: the dummy places ``ru.dummy_amoebas`` free amoebas (fewer if its supply is short) by
    D3's spaces, each on a random legal space with its lowest free number (decisions.dummy_place);
    with no amoeba on the board, D2's free amoeba comes first and is one of them."""
    placed = 0
    if amoebas_on_board(st, g, p) == 0 and ru.dummy_amoebas > 0:
        if free_numbers(st, wk, g, b, p) == 0:
            return
        free_placement(st, ru, wk, g, b, p)
        placed = 1
    while placed < ru.dummy_amoebas:
        n_free = free_numbers(st, wk, g, b, p)
        if n_free == 0:
            return
        n = division_options(st, ru, wk, g, b, p, False, st.space.shape[2] - n_free, 0)
        if n == 0:
            return
        i = decide(st, ru, wk, g, b, p, -1, DIVIDE, n)
        _place(st, ru, wk, g, p, wk.options[b, i, 0], wk.options[b, i, 1], 0, PLACED_FREE)
        placed += 1


@kernel
def population_explosion(st, ru, wk, g, b, p):
    """XG-20: no income (the caller skips it); all of p's BP return to the bank; then free
    amoebas until p has as many on the board as the leading player (highest marker) - or that
    many more (flag pop_explosion_mode = add_leader_count) - placed by D3 (next to its own
    amoebas; Spores, or none or one on the board: anywhere) with numbers of its choice (D4), as
    far as its supply lasts. The leader itself places nothing but still loses its BP."""
    returned, own, target = explosion_begin(st, ru, g, p)  # the BP to the bank, the leader's count
    spores = spores_anywhere(st, g, p)
    placed = 0
    while own < target:
        n_free = free_numbers(st, wk, g, b, p)
        if n_free == 0:
            break
        n = division_options(st, ru, wk, g, b, p, spores, own if own > 0 else 1, 0)
        if n == 0:
            break
        i = decide_placement(st, ru, wk, g, b, p, PLACE_EXPLOSION, n, n_free)
        _place(st, ru, wk, g, p, wk.options[b, i, 0], wk.options[b, i, 1], 0, PLACED_EXPLOSION)
        toxic_placement(st, ru, wk, g, b, p, wk.options[b, i, 1] - 1, PHASE)  # XG-19
        own += 1
        placed += 1
        explosion_placed(wk, b)
        if wk.error[g, 0] != 0:
            return
    explosion_end(st, wk, g, p, placed, returned, PHASE)


@kernel
def phase4(st, ru, wk, g, b):
    P = st.seat.shape[1]
    turn_order(st, wk, g, b, True)
    for k in range(P):
        p = wk.scratch[b, ORDER_SLOT + k]
        if p == ru.dummy:
            if ru.dummy_income:  # TD6: with dummy_bp = "normal_income" it gets (and never spends) income
                add_bp(st, ru, g, p, ru.income)
                log(st, wk, g, EV_INCOME, PHASE, p, -1, ru.income, 0, 0, 0, 0, 0, 0)
            dummy_division(st, ru, wk, g, b, p)
            continue
        if explodes(st, ru, g, p):
            population_explosion(st, ru, wk, g, b, p)  # XG-20: instead of the income
        elif acts_for_player(ru, p):  # TB3: double play II's income is once per player
            add_bp(st, ru, g, p, ru.income)
            log(st, wk, g, EV_INCOME, PHASE, p, -1, ru.income, 0, 0, 0, 0, 0, 0)
        if amoebas_on_board(st, g, p) == 0:
            free_placement(st, ru, wk, g, b, p)
        heals_in_phase(st, ru, wk, g, b, p, PHASE)  # XG-15, XG-25
        divide(st, ru, wk, g, b, p)
        if wk.error[g, 0] != 0:
            return
