"""Phase 1 - movement and feeding (M1-M4, A1-A6), in ascending order, amoebas by number.

Each amoeba still on the board when its turn comes: chooses drift, active move or (Holding)
stay (M1); moves (movement.py); then feeds (M4). An amoeba that cannot eat the standard pattern
may attack instead of starving if its owner has Struggle for Survival or Aggression (A1; with
the flag attack_only_when_starving, only when it cannot eat any legal pattern).

Extra genes: Migration Sensing (XG-06) looks at the next card at the start of the phase; Fast Food
(XG-07) lets the owner feed before it moves; Energy Conservation (XG-21) pays 1 BP per drift;
Rebound (XG-16) lives in movement.py. In the attack's outcome: More Than a Mouthful (XG-09),
Alarm (XG-03), Hard Crust's failed attack (XG-05), Go Out With a Bang through ``attacks.die``
(XG-17). Healing 2 (XG-25) heals at its owner's turn with flag healing2_phase = any_own_turn.
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.attacks import (
    ATTACK_CLUNG,
    ATTACK_CRUSHED,
    ATTACK_DEFENDED,
    ATTACK_ESCAPED,
    ATTACK_SUCCESS,
    hard_crust_refused,
    resolve_attack,
    retry_target,
    target_options,
)
from sim.ursuppe.engine.deaths import DEATH_VIOLENT, kill
from sim.ursuppe.engine.decision_kinds import (
    ATTACK,
    MOVE,
    MOVE_ACTIVE,
    MOVE_DRIFT,
    MOVE_STAY,
)
from sim.ursuppe.engine.decisions import count_decision, decide, set_option, streamable
from sim.ursuppe.engine.double_play import colour_order
from sim.ursuppe.engine.events import (
    EV_ATTACK,
    EV_ATTACK_RESULT,
    EV_STAY,
    log,
)
from sim.ursuppe.engine.feeding import (
    attack_cubes_placed,
    attack_cubes_watch,
    eat_or_starve,
    meal_options,
    standard_available,
    starve,
)
from sim.ursuppe.engine.genes.alarm import alarm_end_of_phase1, alarm_raised
from sim.ursuppe.engine.genes.camouflage_1 import camouflage, camouflage_retry
from sim.ursuppe.engine.genes.energy_conservation import energy_conservation_drift
from sim.ursuppe.engine.genes.fast_food import fast_food_eats_first
from sim.ursuppe.engine.genes.go_out_with_a_bang import bang
from sim.ursuppe.engine.genes.healing_1 import heals_in_phase
from sim.ursuppe.engine.genes.healing_2 import healing2_now
from sim.ursuppe.engine.genes.holding import holding_may_stay
from sim.ursuppe.engine.genes.migration_sensing import migration_sensing_look
from sim.ursuppe.engine.genes.more_than_a_mouthful import mouthful_saves
from sim.ursuppe.engine.genes.persistence import persistence_retries
from sim.ursuppe.engine.genes.struggle_for_survival import struggle_ability
from sim.ursuppe.engine.movement import active_movement, can_move_actively, drift
from sim.ursuppe.engine.players import ORDER_SLOT, add_bp, turn_order
from sim.ursuppe.engine.policy_port import choose_move
from sim.ursuppe.engine.state import AF_ATTACKED, AF_FED

PHASE = 1


@kernel
def may_attack(st, ru, g, p, a):
    """A1-A2: the owner has Struggle for Survival (or Aggression, which includes it), the amoeba
    has not attacked this round, and the owner can pay."""
    if not struggle_ability(st, g, p):
        return False
    if st.amoeba_flags[g, p, a] & AF_ATTACKED:
        return False
    return st.bp[g, p] >= ru.attack_cost


@kernel
def attack(st, ru, wk, g, b, p, a, q, t):
    """A1-A6: the attack of amoeba (p, a) on (q, t), Persistence's retry, and its outcome.
    XG-11/XG-24: Camouflage rolls before each attempt (once, with the flag
    camouflage_roll_per_attempt false); XG-05: a refused Hard Crust kills or starves the
    attacker; XG-09: Mouthful's target takes 1 DP and stays, the attacker fed, no cubes;
    XG-03: an eaten amoeba raises its owner's Alarm. A3: an attacker that clung to the escaping
    target gets no retry, unless the flag persistence_after_clinging is true: then Persistence's
    retry is offered on the new space, and declining it leaves the meal there (M4)."""
    st.amoeba_flags[g, p, a] |= AF_ATTACKED
    add_bp(st, ru, g, p, -ru.attack_cost)
    space = st.space[g, p, a]
    log(st, wk, g, EV_ATTACK, PHASE, p, a + 1, q, t + 1, space, ru.attack_cost, 0, 0, 0)
    denied = camouflage(st, ru, wk, g, p, a, PHASE)
    result = resolve_attack(st, ru, wk, g, b, p, a, q, t, PHASE, denied)
    log(st, wk, g, EV_ATTACK_RESULT, PHASE, p, a + 1, q, t + 1, result, 0, 0, 0, 0)
    failed = result == ATTACK_ESCAPED or result == ATTACK_DEFENDED
    if persistence_retries(st, ru, g, p, failed, result == ATTACK_CLUNG):
        q, t = retry_target(st, ru, wk, g, b, p, a, True, False)
        if q >= 0:
            log(st, wk, g, EV_ATTACK, PHASE, p, a + 1, q, t + 1, st.space[g, p, a], 0, 1, 0, 0)
            denied = camouflage_retry(st, ru, wk, g, p, a, denied, PHASE)  # XG-11
            result = resolve_attack(st, ru, wk, g, b, p, a, q, t, PHASE, denied)
            log(st, wk, g, EV_ATTACK_RESULT, PHASE, p, a + 1, q, t + 1, result, 0, 0, 0, 0)
    if result == ATTACK_SUCCESS:
        st.amoeba_flags[g, p, a] |= AF_FED
        if not mouthful_saves(st, ru, wk, g, b, p, q, t, PHASE):  # XG-09: 1 DP instead
            # A6: the target dies; the attacker counts as fed, and instead of its excretion one
            # cube of each colour in play is placed on the space.
            where = st.space[g, q, t]
            watched = attack_cubes_watch(st, ru, wk, g, b, p)  # XG-04, XG-19 flags on A6's cubes
            kill(st, wk, g, q, t, ru.violent_death_cubes, DEATH_VIOLENT, PHASE)
            if watched:
                attack_cubes_placed(st, ru, wk, g, b, p, a, space, PHASE)
            bang(st, ru, wk, g, b, q, t, where, PHASE)  # XG-17
            alarm_raised(st, ru, wk, g, b, p, q, t, PHASE)  # XG-03
    elif result == ATTACK_CLUNG:
        # A3: the attacker clung to the escaping target and may eat on the new space (no attack).
        eat_or_starve(st, ru, wk, g, b, p, a, PHASE)
    elif result == ATTACK_CRUSHED and hard_crust_refused(st, ru, wk, g, b, p, a, PHASE):
        return  # XG-05: the attacker died
    else:
        starve(st, ru, wk, g, p, a, PHASE)


@kernel
def may_attack_here(st, ru, wk, g, b, p, a, space):
    """A1: the attack replaces a meal when the standard pattern is not available on ``space``
    (gene patterns need not be used first); with the flag attack_only_when_starving, only when
    no legal meal is, gene patterns (F1-F4) included."""
    if ru.attack_only_when_starving:
        return meal_options(st, ru, wk, g, b, p, a, space) == 0
    return not standard_available(st, ru, wk, g, b, p, space)


@kernel
def feed(st, ru, wk, g, b, p, a):
    """M4 with A1: attack instead of eating when the amoeba may (may_attack_here)."""
    space = st.space[g, p, a]
    if may_attack(st, ru, g, p, a) and may_attack_here(st, ru, wk, g, b, p, a, space):
        n = target_options(st, ru, wk, g, b, p, a, True, False)
        if n > 1:
            i = decide(st, ru, wk, g, b, p, a, ATTACK, n)
            q = wk.options[b, i, 0]
            t = wk.options[b, i, 1] - 1
            if q >= 0:
                attack(st, ru, wk, g, b, p, a, q, t)
                return
    eat_or_starve(st, ru, wk, g, b, p, a, PHASE)


@kernel
@always_inline
def move_amoeba(st, ru, wk, g, b, p, a):
    """M1-M3: drift, active move or (Holding) stay, as the owner chooses."""
    active = 1 if can_move_actively(st, ru, g, p) else 0
    stay = 1 if holding_may_stay(st, g, p) else 0
    if streamable(st, ru, wk, g, p):
        # the strategy values the moves without their rows (issue 24): the same choice
        count_decision(wk, b, MOVE, 1 + active + stay)
        move = MOVE_DRIFT if active + stay == 0 else choose_move(st, ru, wk, g, b, p, a, active, stay)
    else:
        set_option(wk.options, b, 0, MOVE_DRIFT, 0, 0)
        n = 1
        if active != 0:
            set_option(wk.options, b, n, MOVE_ACTIVE, 0, 0)
            n += 1
        if stay != 0:
            set_option(wk.options, b, n, MOVE_STAY, 0, 0)
            n += 1
        move = wk.options[b, decide(st, ru, wk, g, b, p, a, MOVE, n), 0]
    if move == MOVE_DRIFT:
        start = st.space[g, p, a]
        end = drift(st, ru, wk, g, b, p, a, PHASE)
        energy_conservation_drift(st, ru, wk, g, b, p, start, end, PHASE)  # XG-21
    elif move == MOVE_ACTIVE:
        active_movement(st, ru, wk, g, b, p, a, False, PHASE)
    else:
        log(st, wk, g, EV_STAY, PHASE, p, a + 1, st.space[g, p, a], 0, 0, 0, 0, 0, 0)


@kernel
def amoeba_turn(st, ru, wk, g, b, p, a):
    """M1-M4 for one amoeba; with Fast Food (XG-07) the owner may let it feed first, on its
    starting space, and move afterwards (if it is still on the board)."""
    if fast_food_eats_first(st, ru, wk, g, b, p, a, PHASE):  # XG-07
        feed(st, ru, wk, g, b, p, a)
        if st.space[g, p, a] >= 0 and wk.error[g, 0] == 0:
            move_amoeba(st, ru, wk, g, b, p, a)
        return
    move_amoeba(st, ru, wk, g, b, p, a)
    feed(st, ru, wk, g, b, p, a)


@kernel
def phase1(st, ru, wk, g, b):
    """Phase 1 for game g."""
    P = st.seat.shape[1]
    if ru.partner[0] >= 0:
        colour_order(st, ru, wk, g, b)  # TB4: double play II's order of colours
    else:
        turn_order(st, wk, g, b, False)
    migration_sensing_look(st, ru, wk, g, b, PHASE)  # XG-06 (and XG-23): the start of Phase 1
    heal_turns = ru.extra_genes and healing2_now(ru, PHASE)  # XG-25: healing2_phase = any_own_turn
    for i in range(P):
        p = wk.scratch[b, ORDER_SLOT + i]
        if heal_turns:
            heals_in_phase(st, ru, wk, g, b, p, PHASE)  # at its turn, before its amoebas move
            if wk.error[g, 0] != 0:
                return
        for a in range(st.space.shape[2]):
            if st.space[g, p, a] < 0:
                continue  # removed earlier in the phase, or never placed
            amoeba_turn(st, ru, wk, g, b, p, a)
            if wk.error[g, 0] != 0:
                return
    alarm_end_of_phase1(st, ru, g)  # XG-03: Alarm's Escape may last the rest of Phase 1 only
