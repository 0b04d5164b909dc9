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
from sim.ursuppe.engine import tally
from sim.ursuppe.engine.attacks import (
    ATTACK_CLUNG,
    ATTACK_CRUSHED,
    ATTACK_DEFENDED,
    ATTACK_ESCAPED,
    ATTACK_SUCCESS,
    DEATH_VIOLENT,
    bang,
    camouflage,
    hard_crust_refused,
    kill,
    resolve_attack,
    retry_target,
    target_options,
)
from sim.ursuppe.engine.decision_kinds import (
    ATTACK,
    FAST_FOOD_ORDER,
    MOVE,
    MOVE_ACTIVE,
    MOVE_DRIFT,
    MOVE_STAY,
)
from sim.ursuppe.engine.decisions import decide, set_option
from sim.ursuppe.engine.double_play import colour_order
from sim.ursuppe.engine.events import (
    EV_ALARM,
    EV_ATTACK,
    EV_ATTACK_RESULT,
    EV_GENE_INCOME,
    EV_MOUTHFUL,
    EV_ORDER,
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
from sim.ursuppe.engine.genes.escape import holds_escape
from sim.ursuppe.engine.genes.holding import holding_may_stay
from sim.ursuppe.engine.genes.persistence import persistence_retries
from sim.ursuppe.engine.genes.struggle_for_survival import holds_struggle, struggle_ability
from sim.ursuppe.engine.healing import healing2_now, heals_in_phase
from sim.ursuppe.engine.movement import active_movement, can_move_actively, drift
from sim.ursuppe.engine.phases.phase2_environment import sense_next_card
from sim.ursuppe.engine.players import ORDER_SLOT, add_bp, has, same_side, turn_order
from sim.ursuppe.engine.state import AF_ATTACKED, AF_FED, PF_ALARM
from sim.ursuppe.rules.extra_flags import (
    ALARM_REST_OF_PHASE1,
    XF_ALARM_DURATION,
    XF_ALARM_TRIGGER_OWN_COLOUR,
    XF_CAMOUFLAGE_ROLL_PER_ATTEMPT,
    XF_ENERGY_CONSERVATION_REQUIRES_MOVE,
    XF_MOUTHFUL_VS_AGGRESSION_PHASE1,
)
from sim.ursuppe.rules.genes import (
    ALARM,
    ENERGY_CONSERVATION,
    ENVIRONMENTAL_SENSING,
    FAST_FOOD,
    MIGRATION_SENSING,
    MOUTHFUL,
)

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
def _mouthful(st, ru, g, p, q):
    """XG-09: does (q's) More Than a Mouthful save its amoeba from p's successful Phase-1 attack?
    Only against an enemy using Struggle for Survival (an Aggression holder's attack too, flag
    mouthful_vs_aggression_phase1)."""
    if not ru.extra_genes or not has(st, g, q, MOUTHFUL) or same_side(ru, p, q):
        return False
    return holds_struggle(st, g, p) or ru.xflag[XF_MOUTHFUL_VS_AGGRESSION_PHASE1] != 0


@kernel
def _alarm(st, ru, wk, g, b, p, q, t):
    """XG-03: player q's amoeba was eaten: from now on its amoebas have Escape (not if q holds
    Escape; an own-colour eater as the flag alarm_trigger_own_colour says)."""
    if not ru.extra_genes or not has(st, g, q, ALARM) or holds_escape(st, g, q):
        return
    if st.player_flags[g, q] & PF_ALARM:
        return
    if same_side(ru, p, q) and ru.xflag[XF_ALARM_TRIGGER_OWN_COLOUR] == 0:
        return
    st.player_flags[g, q] |= PF_ALARM
    r = ru.partner[q]
    if r >= 0:
        st.player_flags[g, r] |= PF_ALARM  # TB3: one player, both colours
    wk.tally[b, tally.ALARM_GRANTED] += 1
    log(st, wk, g, EV_ALARM, PHASE, q, t + 1, 0, 0, 0, 0, 0, 0, 0)


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
            if ru.xflag[XF_CAMOUFLAGE_ROLL_PER_ATTEMPT] != 0:
                denied = camouflage(st, ru, wk, g, p, a, PHASE)
            result = resolve_attack(st, ru, wk, g, b, p, a, q, t, PHASE, denied)
            log(st, wk, g, EV_ATTACK_RESULT, PHASE, p, a + 1, q, t + 1, result, 0, 0, 0, 0)
    if result == ATTACK_SUCCESS:
        st.amoeba_flags[g, p, a] |= AF_FED
        if _mouthful(st, ru, g, p, q):
            st.dp[g, q, t] += 1
            wk.tally[b, tally.MOUTHFUL_SURVIVED] += 1
            log(st, wk, g, EV_MOUTHFUL, PHASE, q, t + 1, st.dp[g, q, t], 0, 0, 0, 0, 0, 0)
        else:
            # A6: the target dies; the attacker counts as fed, and instead of its excretion one
            # cube of each colour in play is placed on the space.
            where = st.space[g, q, t]
            watched = attack_cubes_watch(st, ru, wk, g, b, p)  # XG-04, XG-19 flags on A6's cubes
            kill(st, wk, g, q, t, ru.violent_death_cubes, DEATH_VIOLENT, PHASE)
            if watched:
                attack_cubes_placed(st, ru, wk, g, b, p, a, space, PHASE)
            bang(st, ru, wk, g, b, q, t, where, PHASE)  # XG-17
            _alarm(st, ru, wk, g, b, p, q, t)
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
def energy_conservation(st, ru, wk, g, b, p, start, end):
    """XG-21: the owner of Energy Conservation gains 1 BP for a drift of its amoeba (with the flag
    energy_conservation_requires_move only when the drift left its space)."""
    if ru.xflag[XF_ENERGY_CONSERVATION_REQUIRES_MOVE] and end == start:
        return
    add_bp(st, ru, g, p, 1)
    wk.tally[b, tally.ENERGY_BP] += 1
    log(st, wk, g, EV_GENE_INCOME, PHASE, p, -1, ENERGY_CONSERVATION, 1, 0, 0, 0, 0, 0)


@kernel
@always_inline
def move_amoeba(st, ru, wk, g, b, p, a):
    """M1-M3: drift, active move or (Holding) stay, as the owner chooses."""
    set_option(wk.options, b, 0, MOVE_DRIFT, 0, 0)
    n = 1
    if can_move_actively(st, ru, g, p):
        set_option(wk.options, b, n, MOVE_ACTIVE, 0, 0)
        n += 1
    if holding_may_stay(st, g, p):
        set_option(wk.options, b, n, MOVE_STAY, 0, 0)
        n += 1
    move = wk.options[b, decide(st, ru, wk, g, b, p, a, MOVE, n), 0]
    if move == MOVE_DRIFT:
        start = st.space[g, p, a]
        end = drift(st, ru, wk, g, b, p, a, PHASE)
        if ru.extra_genes and has(st, g, p, ENERGY_CONSERVATION):
            energy_conservation(st, ru, wk, g, b, p, start, end)
    elif move == MOVE_ACTIVE:
        active_movement(st, ru, wk, g, b, p, a, False, PHASE)
    else:
        log(st, wk, g, EV_STAY, PHASE, p, a + 1, st.space[g, p, a], 0, 0, 0, 0, 0, 0)


@kernel
def amoeba_turn(st, ru, wk, g, b, p, a):
    """M1-M4 for one amoeba; with Fast Food (XG-07) the owner may let it feed first, on its
    starting space, and move afterwards (if it is still on the board)."""
    if ru.extra_genes and has(st, g, p, FAST_FOOD):
        set_option(wk.options, b, 0, 0, 0, 0)
        set_option(wk.options, b, 1, 1, 0, 0)
        eat_first = decide(st, ru, wk, g, b, p, a, FAST_FOOD_ORDER, 2)
        log(st, wk, g, EV_ORDER, PHASE, p, a + 1, eat_first, 0, 0, 0, 0, 0, 0)
        if eat_first == 1:
            wk.tally[b, tally.FAST_FOOD_EAT_FIRST] += 1
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
    if ru.extra_genes:
        for p in range(P):  # XG-06 (and XG-23, which includes it): the start of Phase 1
            if has(st, g, p, MIGRATION_SENSING) or has(st, g, p, ENVIRONMENTAL_SENSING):
                sense_next_card(st, wk, g, b, p, PHASE)
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
    if ru.extra_genes and ru.xflag[XF_ALARM_DURATION] == ALARM_REST_OF_PHASE1:
        for p in range(P):
            st.player_flags[g, p] &= ~PF_ALARM  # XG-03: Alarm's Escape lasts the rest of Phase 1
