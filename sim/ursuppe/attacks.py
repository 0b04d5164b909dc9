"""Attacks: Struggle for Survival (A1-A6), Aggression (R1-R4), and the answers Escape and Defense.

``resolve_attack`` is shared by Phase 1 and Phase 5: the target's owner answers (A2) with
Escape and/or Defense in its chosen order; an escape that leaves the space ends the attack (and
if the attacker clung to the escaping target, the attack ends with the attacker beside it); a
Defense fight won by the target ends it; otherwise the attack succeeds. What success and failure
mean differs by phase and is decided by the callers in phases/.
"""

from sim.jit import kernel
from sim.ursuppe import tally
from sim.ursuppe.decision_kinds import (
    ATTACK,
    RESP_DEFENSE,
    RESP_DEFENSE_ESCAPE,
    RESP_ESCAPE,
    RESP_ESCAPE_DEFENSE,
    RESP_NONE,
    RESPOND,
)
from sim.ursuppe.decisions import decide, set_option
from sim.ursuppe.dice import roll_die
from sim.ursuppe.events import EV_DEATH, EV_FIGHT, EV_RESPOND, log
from sim.ursuppe.food import place_each_colour
from sim.ursuppe.genes import ARMOR, DEFENSE, ESCAPE, PERSISTENCE
from sim.ursuppe.movement import active_move_cost, active_movement
from sim.ursuppe.players import add_bp, has, put_amoeba, same_side
from sim.ursuppe.state import AF_DEFENDED, AF_ESCAPED, AF_WAS_ATTACKED

ATTACK_SUCCESS = 0
ATTACK_ESCAPED = 1  # the target escaped to another space (A3)
ATTACK_DEFENDED = 2  # the target won a Defense fight (A4); in Phase 5 the attacker gets DP (R4)
ATTACK_CLUNG = 3  # the attacker clung to the escaping target: the attack ended (A3)
ATTACK_RESULT_NAMES: tuple[str, ...] = ("success", "escaped", "defended", "clung")


@kernel
def target_options(st, ru, wk, g, b, p, a, own_allowed, armor_allowed):
    """ATTACK options for amoeba (p, a): 'none', then every amoeba on its space it may attack.

    Phase 1 (A1): any colour, its own included, except owners with Armor (with the flag
    armor_blocks_own_attacks false, an Armor owner may attack its own amoebas: Armor protects
    only against the others). Phase 5 (R1): another player's amoebas, Armor included. "Own" is
    the player's: a double play partner colour counts as its own where rules.side says so (TA3,
    TB10).
    """
    space = st.space[g, p, a]
    set_option(wk.options, b, 0, -1, -1, 0)
    n = 1
    for q in range(st.space.shape[1]):
        own = same_side(ru, p, q)
        if own and not own_allowed:
            continue
        if not armor_allowed and has(st, g, q, ARMOR) and (not own or ru.armor_blocks_own_attacks):
            continue
        for t in range(st.space.shape[2]):
            if st.space[g, q, t] == space and not (q == p and t == a):
                set_option(wk.options, b, n, q, t + 1, 0)
                n += 1
    return n


@kernel
def _response_options(st, ru, wk, g, b, q, t):
    """A2: the answers player q can give for its amoeba t: none, Escape, Defense, both in either
    order (flag defense_and_escape_same_attack). With the flag answers_once_per_round, an answer
    the amoeba already gave this round (Phase 1 or 5, any attack) is not offered again."""
    escape_cost = active_move_cost(st, ru, g, q, True)
    can_escape = has(st, g, q, ESCAPE) and st.bp[g, q] >= escape_cost
    can_defend = has(st, g, q, DEFENSE) and st.bp[g, q] >= ru.defense_cost
    if ru.answers_once_per_round:
        used = st.amoeba_flags[g, q, t]
        can_escape = can_escape and (used & AF_ESCAPED) == 0
        can_defend = can_defend and (used & AF_DEFENDED) == 0
    set_option(wk.options, b, 0, RESP_NONE, 0, 0)
    n = 1
    if can_escape:
        set_option(wk.options, b, n, RESP_ESCAPE, 0, 0)
        n += 1
    if can_defend:
        set_option(wk.options, b, n, RESP_DEFENSE, 0, 0)
        n += 1
    if (
        can_escape
        and can_defend
        and ru.defense_and_escape_same_attack
        and st.bp[g, q] >= escape_cost + ru.defense_cost
    ):
        set_option(wk.options, b, n, RESP_ESCAPE_DEFENSE, 0, 0)
        set_option(wk.options, b, n + 1, RESP_DEFENSE_ESCAPE, 0, 0)
        n += 2
    return n


@kernel
def _fight(st, ru, wk, g, b, q, t, phase, persistence):
    """A4: attacker rolls, then the target; ties are re-rolled; True if the target wins."""
    while True:
        ra = roll_die(st, wk, g)
        rd = roll_die(st, wk, g)
        if ra != rd or wk.error[g, 0] != 0:
            break
    log(st, wk, g, EV_FIGHT, phase, q, t + 1, ra, rd, 1 if rd > ra else 0, persistence, 0, 0, 0)
    wk.tally[b, tally.FIGHT_DEFENDER_WON if rd > ra else tally.FIGHT_DEFENDER_LOST] += 1
    return rd > ra


@kernel
def resolve_attack(st, ru, wk, g, b, p, a, q, t, phase):
    """Resolve an attack of amoeba (p, a) on (q, t) on their common space; returns ATTACK_*."""
    space = st.space[g, p, a]
    st.amoeba_flags[g, q, t] |= AF_WAS_ATTACKED
    n = _response_options(st, ru, wk, g, b, q, t)
    response = wk.options[b, decide(st, ru, wk, g, b, q, t, RESPOND, n), 0]
    log(st, wk, g, EV_RESPOND, phase, q, t + 1, p, a + 1, response, 0, 0, 0, 0)
    if response == RESP_NONE:
        wk.tally[b, tally.ATTACK_SUCCESS] += 1
        return ATTACK_SUCCESS
    first = RESP_DEFENSE if response == RESP_DEFENSE or response == RESP_DEFENSE_ESCAPE else RESP_ESCAPE
    second = RESP_NONE
    if response == RESP_ESCAPE_DEFENSE:
        second = RESP_DEFENSE
    elif response == RESP_DEFENSE_ESCAPE:
        second = RESP_ESCAPE
    for k in range(2):
        answer = first if k == 0 else second
        if answer == RESP_ESCAPE:
            if st.bp[g, q] < active_move_cost(st, ru, g, q, True):
                continue
            st.amoeba_flags[g, q, t] |= AF_ESCAPED  # an answer given (flag answers_once_per_round)
            active_movement(st, ru, wk, g, b, q, t, True, phase)
            if st.space[g, q, t] != space:
                if st.space[g, p, a] != space:
                    wk.tally[b, tally.ATTACK_CLUNG] += 1
                    return ATTACK_CLUNG
                wk.tally[b, tally.ATTACK_ESCAPED] += 1
                return ATTACK_ESCAPED
            wk.tally[b, tally.ESCAPE_STAYED] += 1
        elif answer == RESP_DEFENSE:
            if st.bp[g, q] < ru.defense_cost:
                continue
            add_bp(st, ru, g, q, -ru.defense_cost)
            st.amoeba_flags[g, q, t] |= AF_DEFENDED  # an answer given (flag answers_once_per_round)
            if _fight(st, ru, wk, g, b, q, t, phase, 0):
                wk.tally[b, tally.ATTACK_DEFENDED] += 1
                return ATTACK_DEFENDED
            # A5: with Persistence a lost Defense fight is fought once more, free.
            if has(st, g, q, PERSISTENCE):
                wk.tally[b, tally.PERSISTENCE_REFIGHT] += 1
                if _fight(st, ru, wk, g, b, q, t, phase, 1):
                    wk.tally[b, tally.ATTACK_DEFENDED] += 1
                    return ATTACK_DEFENDED
    wk.tally[b, tally.ATTACK_SUCCESS] += 1
    return ATTACK_SUCCESS


@kernel
def kill(st, wk, g, q, t, cubes, how, phase):
    """Remove amoeba (q, t) to its owner's supply and place ``cubes`` of each colour (X1/A6/R3)."""
    space = st.space[g, q, t]
    dp = st.dp[g, q, t]
    put_amoeba(st, g, q, t, -1)
    st.dp[g, q, t] = 0
    st.amoeba_flags[g, q, t] = 0
    place_each_colour(st, g, space, cubes)
    log(st, wk, g, EV_DEATH, phase, q, t + 1, space, dp, cubes, how, 0, 0, 0)


@kernel
def retry_target(st, ru, wk, g, b, p, a, own_allowed, armor_allowed):
    """A5: Persistence's free second attempt: the owner picks a target on the current space."""
    n = target_options(st, ru, wk, g, b, p, a, own_allowed, armor_allowed)
    if n <= 1:
        return -1, -1
    i = decide(st, ru, wk, g, b, p, a, ATTACK, n)
    if wk.options[b, i, 0] >= 0:
        wk.tally[b, tally.PERSISTENCE_RETRY] += 1
    return wk.options[b, i, 0], wk.options[b, i, 1] - 1
