"""Phase 5 - deaths (X1) and Aggression's attacks (X2, R1-R4), in descending order; Healing 2
before the deaths with flag healing2_phase = phase5_before_deaths (XG-25)."""

from sim.jit import kernel
from sim.ursuppe import tally
from sim.ursuppe.attacks import (
    ATTACK_DEFENDED,
    ATTACK_ESCAPED,
    ATTACK_SUCCESS,
    kill,
    resolve_attack,
    retry_target,
)
from sim.ursuppe.decision_kinds import AGGRESS
from sim.ursuppe.decisions import decide, set_option
from sim.ursuppe.events import EV_ATTACK, EV_ATTACK_RESULT, EV_DP, log
from sim.ursuppe.extra_flags import HEALING2_PHASE5, XF_HEALING2_PHASE
from sim.ursuppe.genes import AGGRESSION, ARMOR, PERSISTENCE
from sim.ursuppe.invariants import check_no_doomed_amoebas
from sim.ursuppe.phases.phase4_division import heals_in_phase
from sim.ursuppe.players import (
    ORDER_SLOT,
    add_bp,
    death_threshold,
    has,
    same_side,
    share_with_partner,
    turn_order,
)
from sim.ursuppe.state import PF_AGGRESSED

PHASE = 5
DEATH_NATURAL = 0
DEATH_AGGRESSION = 2
DP_ARMOR = 0
DP_LOST_DEFENSE = 1


@kernel
def aggression_options(st, ru, wk, g, b, p):
    """R1: 'none', then (own amoeba, another player's amoeba on the same space; TB10: a double
    play II partner colour is not another player's)."""
    set_option(wk.options, b, 0, -1, -1, -1)
    n = 1
    for a in range(st.space.shape[2]):
        s = st.space[g, p, a]
        if s < 0:
            continue
        for q in range(st.space.shape[1]):
            if same_side(ru, p, q):
                continue
            for t in range(st.space.shape[2]):
                if st.space[g, q, t] == s:
                    set_option(wk.options, b, n, a + 1, q, t + 1)
                    n += 1
    return n


@kernel
def _attack_once(st, ru, wk, g, b, p, a, q, t):
    result = resolve_attack(st, ru, wk, g, b, p, a, q, t, PHASE)
    log(st, wk, g, EV_ATTACK_RESULT, PHASE, p, a + 1, q, t + 1, result, 0, 0, 0, 0)
    if result == ATTACK_SUCCESS:
        if has(st, g, q, ARMOR):
            # R3: an armored target does not die but takes DP (it may die in a later Phase 5).
            st.dp[g, q, t] += ru.aggression_armor_dp
            wk.tally[b, tally.ARMOR_DP] += 1
            log(st, wk, g, EV_DP, PHASE, q, t + 1, st.dp[g, q, t], DP_ARMOR, 0, 0, 0, 0, 0)
        else:
            kill(st, wk, g, q, t, ru.aggression_death_cubes, DEATH_AGGRESSION, PHASE)
    elif result == ATTACK_DEFENDED:
        st.dp[g, p, a] += ru.lost_defense_dp  # R4
        wk.tally[b, tally.LOST_DEFENSE_DP] += 1
        log(st, wk, g, EV_DP, PHASE, p, a + 1, st.dp[g, p, a], DP_LOST_DEFENSE, 0, 0, 0, 0, 0)
    return result


@kernel
def aggression(st, ru, wk, g, b, p):
    """R1-R4: one attack per round per owner, 1 BP; Persistence's free retry (A5)."""
    n = aggression_options(st, ru, wk, g, b, p)
    if n <= 1:
        return
    i = decide(st, ru, wk, g, b, p, -1, AGGRESS, n)
    a = wk.options[b, i, 0] - 1
    q = wk.options[b, i, 1]
    t = wk.options[b, i, 2] - 1
    if a < 0:
        return
    st.player_flags[g, p] |= PF_AGGRESSED
    add_bp(st, ru, g, p, -ru.attack_cost)
    share_with_partner(st, ru, g, p)  # TB3: one attack per round per player, not per colour
    log(st, wk, g, EV_ATTACK, PHASE, p, a + 1, q, t + 1, st.space[g, p, a], ru.attack_cost, 0, 0, 0)
    result = _attack_once(st, ru, wk, g, b, p, a, q, t)
    if (result == ATTACK_ESCAPED or result == ATTACK_DEFENDED) and has(st, g, p, PERSISTENCE):
        q, t = retry_target(st, ru, wk, g, b, p, a, False, True)
        if q >= 0:
            log(st, wk, g, EV_ATTACK, PHASE, p, a + 1, q, t + 1, st.space[g, p, a], 0, 1, 0, 0)
            _attack_once(st, ru, wk, g, b, p, a, q, t)


@kernel
def phase5(st, ru, wk, g, b):
    P = st.seat.shape[1]
    turn_order(st, wk, g, b, True)
    if ru.extra_genes and ru.xflag[XF_HEALING2_PHASE] == HEALING2_PHASE5:
        for k in range(P):  # XG-25 flag healing2_phase = phase5_before_deaths
            heals_in_phase(st, ru, wk, g, b, wk.scratch[b, ORDER_SLOT + k], False)
    for k in range(P):
        p = wk.scratch[b, ORDER_SLOT + k]
        threshold = death_threshold(st, ru, g, p)
        for a in range(st.space.shape[2]):
            if st.space[g, p, a] >= 0 and st.dp[g, p, a] >= threshold:
                kill(st, wk, g, p, a, ru.natural_death_cubes, DEATH_NATURAL, PHASE)
    if wk.check_invariants:
        check_no_doomed_amoebas(st, ru, wk, g)
    for k in range(P):
        p = wk.scratch[b, ORDER_SLOT + k]
        if has(st, g, p, AGGRESSION) and not (st.player_flags[g, p] & PF_AGGRESSED):
            if st.bp[g, p] >= ru.attack_cost:
                aggression(st, ru, wk, g, b, p)
