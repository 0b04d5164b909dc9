"""Movement (M1-M3, B1-B2) with Movement I/II, Speed, Persistence, Streamlining, Tentacle, Holding.

A *movement* is everything one amoeba does to change space in one go: a drift, an active move
(with Speed's optional second move), or an escape (A3). Tentacle cubes and Holding's clinging
belong to the whole movement: the cubes go from the space where the movement started to the
space where it ended, and clinging is decided once the whole movement is known (§8). A movement
that ends where it started carries nothing and lets nobody cling.

With the flag clinging_after_first_step (the other reading of §8), a mover with Speed (or
Persistence) lets the Holding amoebas on its start space decide after its first step, before its
second move is chosen; the ones that cling arrive with it where the movement ends. After a second
step the Holding amoebas on the intermediate space may cling too (seeing the Tentacle cubes, as
in the default). Tentacle still carries once, from start to end.

Rebound (XG-16, sim/ursuppe/engine/genes/rebound.py): each step goes through its step_or_rebound,
passing the step's bit; the rebound space is where that step ends.

The genes' hooks live in their modules (sim/ursuppe/engine/genes/): Streamlining's cost
(streamlining.active_move_cost), Speed's second move (speed.speed_ability, speed.second_move),
Tentacle's cubes (tentacle.tentacle_carry), Holding's clinging (holding.offer_clinging,
cling_after_first_step, arrive_riders), the directions Movement I and II allow
(movement_i.movement_i_die, movement_ii.movement_ii_directions).
"""

from sim.jit import kernel, trailing_zeros
from sim.ursuppe.engine.board import CHOICE
from sim.ursuppe.engine.decision_kinds import DIRECTION
from sim.ursuppe.engine.decisions import decide, set_option
from sim.ursuppe.engine.dice import roll_die
from sim.ursuppe.engine.events import EV_ACTIVE, EV_DRIFT, log
from sim.ursuppe.engine.genes.holding import arrive_riders, cling_after_first_step, offer_clinging
from sim.ursuppe.engine.genes.movement_i import movement_i_die
from sim.ursuppe.engine.genes.movement_ii import movement_ii_directions
from sim.ursuppe.engine.genes.rebound import (
    REBOUND_ACTIVE,
    REBOUND_DRIFT,
    REBOUND_ESCAPE,
    REBOUND_SPEED_STEPS,
    step_or_rebound,
)
from sim.ursuppe.engine.genes.speed import second_move, speed_ability
from sim.ursuppe.engine.genes.streamlining import active_move_cost
from sim.ursuppe.engine.genes.tentacle import tentacle_carry
from sim.ursuppe.engine.genes.toxic_excretions import toxic_arrival, toxic_speed_step
from sim.ursuppe.engine.players import add_bp, put_amoeba

# EV_ACTIVE's "how", by its name in the event log
MOVE_HOW: tuple[str, ...] = ("move", "second_move", "escape")
MOVE_HOW_ACTIVE, MOVE_HOW_SECOND, MOVE_HOW_ESCAPE = range(len(MOVE_HOW))


@kernel
def can_move_actively(st, ru, g, p):
    """M3: without BP (and without Streamlining) an amoeba cannot move actively."""
    return st.bp[g, p] >= active_move_cost(st, ru, g, p, False)


@kernel
def finish_movement(st, ru, wk, g, b, p, a, start, end, phase):
    """Toxic tokens (XG-19: the mover arrives first), Tentacle's cubes, then Holding's clinging,
    for a movement from ``start`` to ``end``."""
    if end == start:
        return
    toxic_arrival(st, ru, wk, g, b, p, a, end, phase)
    tentacle_carry(st, ru, wk, g, b, p, a, start, end, phase)
    offer_clinging(st, ru, wk, g, b, p, a, start, end, phase, 0)


@kernel
def drift(st, ru, wk, g, b, p, a, phase):
    """M2: one space in the current card's drift direction; an obstacle or no drift keeps it
    (an obstacle may rebound, XG-16). Returns the space where the drift ended."""
    start = st.space[g, p, a]
    direction = st.card_drift[g, st.deck_pos[g]]
    end = step_or_rebound(st, ru, wk, g, b, p, a, start, direction, REBOUND_DRIFT, phase)
    put_amoeba(st, g, p, a, end)
    log(st, wk, g, EV_DRIFT, phase, p, a + 1, start, end, direction, 0, 0, 0, 0)
    finish_movement(st, ru, wk, g, b, p, a, start, end, phase)
    return end


@kernel
def _direction_options(wk, b, mask):
    n = 0
    for d in range(5):
        if mask & (1 << d):
            set_option(wk.options, b, n, d, 0, 0)
            n += 1
    return n


@kernel
def _choose_direction(st, ru, wk, g, b, p, a, phase):
    """B2, Movement I, Movement II: the direction of one active move, with the dice rolled."""
    chosen = movement_ii_directions(st, g, p)
    if chosen != 0:
        n = _direction_options(wk, b, chosen)
        i = decide(st, ru, wk, g, b, p, a, DIRECTION, n)
        return wk.options[b, i, 0], -1, -1
    d1 = roll_die(st, wk, g)
    mask = 0
    c = ru.compass[d1]
    mask |= 0b1111 if c == CHOICE else (1 << c)
    d2 = movement_i_die(st, wk, g, p)
    if d2 >= 0:
        c = ru.compass[d2]
        mask |= 0b1111 if c == CHOICE else (1 << c)
    if mask & (mask - 1) == 0:
        # one direction: nothing to decide (decide takes the one option), so no option row
        return trailing_zeros(mask), d1, d2
    n = _direction_options(wk, b, mask)
    i = decide(st, ru, wk, g, b, p, a, DIRECTION, n)
    return wk.options[b, i, 0], d1, d2


@kernel
def active_movement(st, ru, wk, g, b, p, a, escape, phase):
    """M3 (or A3's escape): pay, roll or choose, move; Speed's free second move; then the
    movement's Tentacle cubes and clinging (with the flag clinging_after_first_step and Speed,
    clinging from the start space is decided after the first step: module docs). The caller has
    checked the cost can be paid."""
    start = st.space[g, p, a]
    cost = active_move_cost(st, ru, g, p, escape)
    add_bp(st, ru, g, p, -cost)
    direction, d1, d2 = _choose_direction(st, ru, wk, g, b, p, a, phase)
    which = REBOUND_ESCAPE if escape else REBOUND_ACTIVE
    here = step_or_rebound(st, ru, wk, g, b, p, a, start, direction, which, phase)
    put_amoeba(st, g, p, a, here)
    how = MOVE_HOW_ESCAPE if escape else MOVE_HOW_ACTIVE
    log(st, wk, g, EV_ACTIVE, phase, p, a + 1, start, here, d1, d2, direction, cost, how)
    if speed_ability(st, g, p):
        per_step = ru.clinging_after_first_step
        if per_step:
            cling_after_first_step(st, ru, wk, g, b, p, a, start, here, phase)
        if second_move(st, ru, wk, g, b, p, a):
            if here != start:
                toxic_speed_step(st, ru, wk, g, b, p, a, here, phase)  # XG-19: a step moves into a space
            direction, d1, d2 = _choose_direction(st, ru, wk, g, b, p, a, phase)
            there = step_or_rebound(st, ru, wk, g, b, p, a, here, direction, REBOUND_SPEED_STEPS, phase)
            put_amoeba(st, g, p, a, there)
            log(st, wk, g, EV_ACTIVE, phase, p, a + 1, here, there, d1, d2, direction, 0, MOVE_HOW_SECOND)
        if per_step:
            end = st.space[g, p, a]
            if end != start:
                toxic_arrival(st, ru, wk, g, b, p, a, end, phase)  # XG-19, before the riders arrive
            if end != start:
                tentacle_carry(st, ru, wk, g, b, p, a, start, end, phase)
            if end != here:
                offer_clinging(st, ru, wk, g, b, p, a, here, end, phase, 0)
            arrive_riders(st, wk, g, b, p, a, start, end, phase)
            return
    finish_movement(st, ru, wk, g, b, p, a, start, st.space[g, p, a], phase)
