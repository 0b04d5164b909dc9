"""Phase 5 - deaths (X1) and Aggression's attacks (X2, R1-R4), in descending order; Healing 2
before the deaths with flag healing2_phase = phase5_before_deaths (XG-25).

Extra genes: Short Life Span's lower threshold (XG-18, players.death_threshold), Go Out With a
Bang's chain of deaths (XG-17), and in Aggression's attacks Camouflage (XG-11, XG-24), Hard
Crust (XG-05), Thread Display (XG-13) and More Than a Mouthful (XG-09 flag
mouthful_vs_aggression_phase5)."""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine import tally
from sim.ursuppe.engine.attacks import (
    ATTACK_CLUNG,
    ATTACK_CRUSHED,
    ATTACK_DEFENDED,
    ATTACK_ESCAPED,
    ATTACK_SUCCESS,
    DEATH_AGGRESSION,
    DEATH_NATURAL,
    camouflage,
    die,
    hard_crust_refused,
    resolve_attack,
    retry_target,
    threat_display_allows,
)
from sim.ursuppe.engine.decision_kinds import AGGRESS
from sim.ursuppe.engine.decisions import decide, set_option
from sim.ursuppe.engine.events import EV_ATTACK, EV_ATTACK_RESULT, EV_DP, EV_MOUTHFUL, log
from sim.ursuppe.engine.genes.armor import armor_takes_dp
from sim.ursuppe.engine.genes.persistence import persistence_retries
from sim.ursuppe.engine.healing import healing2_now, heals_in_phase
from sim.ursuppe.engine.invariants import check_no_doomed_amoebas
from sim.ursuppe.engine.players import (
    ORDER_SLOT,
    add_bp,
    death_threshold,
    has,
    same_side,
    share_with_partner,
    turn_order,
)
from sim.ursuppe.engine.state import PF_AGGRESSED
from sim.ursuppe.rules.extra_flags import XF_CAMOUFLAGE_ROLL_PER_ATTEMPT, XF_MOUTHFUL_VS_AGGRESSION_PHASE5
from sim.ursuppe.rules.genes import AGGRESSION, MOUTHFUL, SHORT_LIFE_SPAN

PHASE = 5
# EV_DP's reason, by its name in the event log: Armor (R3), a lost Defense fight (R4), and with
# XG-05 flag hard_crust_refusal = attacker_starves the failed attacker's DP
DP_REASON: tuple[str, ...] = ("armor", "lost_defense", "hard_crust")
DP_ARMOR, DP_LOST_DEFENSE, DP_HARD_CRUST = range(len(DP_REASON))


@kernel
def aggression_options(st, ru, wk, g, b, p):
    """R1: 'none', then (own amoeba, another player's amoeba on the same space; TB10: a double
    play II partner colour is not another player's; XG-13: Thread Display's numbers)."""
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
                    if not threat_display_allows(st, ru, g, p, a, q, t):
                        wk.tally[b, tally.THREAT_DISPLAY_PROTECTED] += 1
                        continue
                    set_option(wk.options, b, n, a + 1, q, t + 1)
                    n += 1
    return n


@kernel
def _attack_once(st, ru, wk, g, b, p, a, q, t, denied):
    """One attempt of an Aggression attack and its outcome: R3 (the target dies, or Armor's DP),
    R4 (a lost Defense fight: the attacker's DP, unless the flag aggression_lost_fight_dp is
    false), XG-05 (a refused Hard Crust), XG-09 (Mouthful's DP)."""
    result = resolve_attack(st, ru, wk, g, b, p, a, q, t, PHASE, denied)
    log(st, wk, g, EV_ATTACK_RESULT, PHASE, p, a + 1, q, t + 1, result, 0, 0, 0, 0)
    if result == ATTACK_SUCCESS:
        if armor_takes_dp(st, ru, wk, g, b, q, t):
            # R3: an armored target does not die but takes DP (it may die in a later Phase 5).
            log(st, wk, g, EV_DP, PHASE, q, t + 1, st.dp[g, q, t], DP_ARMOR, 0, 0, 0, 0, 0)
        elif ru.extra_genes and ru.xflag[XF_MOUTHFUL_VS_AGGRESSION_PHASE5] != 0 and has(st, g, q, MOUTHFUL):
            # XG-09 with the flag mouthful_vs_aggression_phase5: 1 DP instead of death, no cubes.
            st.dp[g, q, t] += 1
            wk.tally[b, tally.MOUTHFUL_SURVIVED] += 1
            log(st, wk, g, EV_MOUTHFUL, PHASE, q, t + 1, st.dp[g, q, t], 0, 0, 0, 0, 0, 0)
        else:
            die(st, ru, wk, g, b, q, t, ru.aggression_death_cubes, DEATH_AGGRESSION, PHASE)
    elif result == ATTACK_DEFENDED and ru.aggression_lost_fight_dp:
        st.dp[g, p, a] += ru.lost_defense_dp  # R4 (flag false: the 2004 English FAQ, no DP)
        wk.tally[b, tally.LOST_DEFENSE_DP] += 1
        log(st, wk, g, EV_DP, PHASE, p, a + 1, st.dp[g, p, a], DP_LOST_DEFENSE, 0, 0, 0, 0, 0)
    elif result == ATTACK_CRUSHED and not hard_crust_refused(st, ru, wk, g, b, p, a, PHASE):
        # XG-05 flag hard_crust_refusal attacker_starves: a failed attack, the attacker's DP as R4.
        st.dp[g, p, a] += ru.lost_defense_dp
        log(st, wk, g, EV_DP, PHASE, p, a + 1, st.dp[g, p, a], DP_HARD_CRUST, 0, 0, 0, 0, 0)
    return result


@kernel
def aggression(st, ru, wk, g, b, p):
    """R1-R4: one attack per round per owner, 1 BP; Persistence's free retry (A5), also after
    the attacker clung to the escaping target with the flag persistence_after_clinging (A3: on
    the new space)."""
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
    denied = camouflage(st, ru, wk, g, p, a, PHASE)  # XG-11, XG-24
    result = _attack_once(st, ru, wk, g, b, p, a, q, t, denied)
    failed = result == ATTACK_ESCAPED or result == ATTACK_DEFENDED
    if persistence_retries(st, ru, g, p, failed, result == ATTACK_CLUNG):
        q, t = retry_target(st, ru, wk, g, b, p, a, False, True)
        if q >= 0:
            log(st, wk, g, EV_ATTACK, PHASE, p, a + 1, q, t + 1, st.space[g, p, a], 0, 1, 0, 0)
            if ru.xflag[XF_CAMOUFLAGE_ROLL_PER_ATTEMPT] != 0:
                denied = camouflage(st, ru, wk, g, p, a, PHASE)
            _attack_once(st, ru, wk, g, b, p, a, q, t, denied)


@kernel
@always_inline
def natural_deaths(st, ru, wk, g, b):
    """X1: every amoeba at or above its threshold dies, in descending order (XG-18: Short Life
    Span's threshold is lower). XG-17: a bang's DP can bring others to their threshold: the
    check is repeated until nobody dies (with extra genes only; without them one pass is all)."""
    P = st.seat.shape[1]
    again = True
    while again:
        again = False
        for k in range(P):
            p = wk.scratch[b, ORDER_SLOT + k]
            threshold = death_threshold(st, ru, g, p)
            for a in range(st.space.shape[2]):
                if st.space[g, p, a] >= 0 and st.dp[g, p, a] >= threshold:
                    if has(st, g, p, SHORT_LIFE_SPAN) and st.dp[g, p, a] == threshold:
                        wk.tally[b, tally.SHORT_LIFE_DEATH] += 1
                    die(st, ru, wk, g, b, p, a, ru.natural_death_cubes, DEATH_NATURAL, PHASE)
                    again = ru.extra_genes


@kernel
def phase5(st, ru, wk, g, b):
    P = st.seat.shape[1]
    turn_order(st, wk, g, b, True)
    if ru.extra_genes and healing2_now(ru, PHASE):
        for k in range(P):  # XG-25 flag healing2_phase = phase5_before_deaths
            heals_in_phase(st, ru, wk, g, b, wk.scratch[b, ORDER_SLOT + k], PHASE)
    natural_deaths(st, ru, wk, g, b)
    if wk.check_invariants:
        check_no_doomed_amoebas(st, ru, wk, g)
    for k in range(P):
        p = wk.scratch[b, ORDER_SLOT + k]
        if has(st, g, p, AGGRESSION) and not (st.player_flags[g, p] & PF_AGGRESSED):
            if st.bp[g, p] >= ru.attack_cost:
                aggression(st, ru, wk, g, b, p)
