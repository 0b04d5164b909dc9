"""Attacks: Struggle for Survival (A1-A6), Aggression (R1-R4), and the answers Escape and Defense.

``resolve_attack`` is shared by Phase 1 and Phase 5: the target's owner answers (A2) with
Escape and/or Defense in its chosen order; an escape that leaves the space ends the attack (and
if the attacker clung to the escaping target, the attack ends with the attacker beside it); a
Defense fight won by the target ends it; otherwise the attack succeeds. What success and failure
mean differs by phase and is decided by the callers in phases/.

The extra genes (XG-03, XG-05, XG-11, XG-13, XG-17, XG-24) hook in here: Alarm's granted
Escape is one more answer, Camouflage's roll (genes/camouflage_1.py) can take every answer away,
Hard Crust makes an unanswered attack cost more (else it fails: ATTACK_CRUSHED), Thread Display
shortens the target lists, and every death goes through ``die`` for Go Out With a Bang
(genes/go_out_with_a_bang.py; ``kill`` is deaths.py's).

The base genes' hooks live in their modules (sim/ursuppe/engine/genes/): Armor's targets
(armor.armor_protects), Escape's answer (escape.holds_escape, escape.escape), Defense's fight
(defense.may_defend, defense.defend, with Persistence's second fight) and Persistence's retry
(persistence.persistence_retried); Aggression's Phase-5 attack is genes/aggression.py's.
"""

from sim.jit import kernel
from sim.ursuppe.engine import tally
from sim.ursuppe.engine.deaths import DEATH_HARD_CRUST, kill
from sim.ursuppe.engine.decision_kinds import (
    ATTACK,
    RESP_DEFENSE,
    RESP_DEFENSE_ESCAPE,
    RESP_ESCAPE,
    RESP_ESCAPE_DEFENSE,
    RESP_NONE,
    RESPOND,
    RESPONSE_ANSWERS,
)
from sim.ursuppe.engine.decisions import decide, set_option
from sim.ursuppe.engine.events import (
    EV_RESPOND,
    log,
)
from sim.ursuppe.engine.genes.alarm import alarm_escape, alarm_escape_taken
from sim.ursuppe.engine.genes.armor import armor_protects
from sim.ursuppe.engine.genes.camouflage_1 import camouflage_no_defence
from sim.ursuppe.engine.genes.defense import defend, may_defend
from sim.ursuppe.engine.genes.escape import escape, holds_escape
from sim.ursuppe.engine.genes.go_out_with_a_bang import bang
from sim.ursuppe.engine.genes.hard_crust import hard_crust_death_cubes, hard_crust_stops
from sim.ursuppe.engine.genes.persistence import persistence_retried
from sim.ursuppe.engine.genes.streamlining import active_move_cost
from sim.ursuppe.engine.genes.threat_display import threat_display_protects
from sim.ursuppe.engine.players import same_side
from sim.ursuppe.engine.state import AF_DEFENDED, AF_ESCAPED, AF_WAS_ATTACKED

ATTACK_SUCCESS = 0
ATTACK_ESCAPED = 1  # the target escaped to another space (A3)
ATTACK_DEFENDED = 2  # the target won a Defense fight (A4); in Phase 5 the attacker gets DP (R4)
ATTACK_CLUNG = 3  # the attacker clung to the escaping target: the attack ended (A3)
ATTACK_CRUSHED = 4  # XG-05: the attacker did not pay Hard Crust's extra BP: the attack failed
ATTACK_RESULT_NAMES: tuple[str, ...] = ("success", "escaped", "defended", "clung", "crust")


@kernel
def target_options(st, ru, wk, g, b, p, a, own_allowed, armor_allowed):
    """ATTACK options for amoeba (p, a): 'none', then every amoeba on its space it may attack.

    Phase 1 (A1): any colour, its own included, except owners with Armor (with the flag
    armor_blocks_own_attacks false, an Armor owner may attack its own amoebas: Armor protects
    only against the others). Phase 5 (R1): another player's amoebas, Armor included. "Own" is
    the player's: a double play partner colour counts as its own where rules.side says so (TA3,
    TB10). XG-13: Thread Display's owners only by the numbers it allows.
    """
    space = st.space[g, p, a]
    set_option(wk.options, b, 0, -1, -1, 0)
    n = 1
    for q in range(st.space.shape[1]):
        own = same_side(ru, p, q)
        if own and not own_allowed:
            continue
        if not armor_allowed and armor_protects(st, ru, g, q, own):
            continue
        for t in range(st.space.shape[2]):
            if st.space[g, q, t] == space and not (q == p and t == a):
                if threat_display_protects(st, ru, wk, g, b, p, a, q, t):  # XG-13
                    continue
                set_option(wk.options, b, n, q, t + 1, 0)
                n += 1
    return n


@kernel
def _response_options(st, ru, wk, g, b, q, t, phase):
    """A2: the answers player q can give for its amoeba t: none, Escape, Defense, both in either
    order (flag defense_and_escape_same_attack). With the flag answers_once_per_round, an answer
    the amoeba already gave this round (Phase 1 or 5, any attack) is not offered again. XG-03:
    Alarm's Escape is an Escape."""
    escape_cost = active_move_cost(st, ru, g, q, True)
    can_escape = (holds_escape(st, g, q) or alarm_escape(st, ru, g, q, phase)) and st.bp[g, q] >= escape_cost
    can_defend = may_defend(st, ru, g, q)
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
def _succeeds(st, ru, wk, g, b, p, a, q, phase, answered):
    """The attack got past the answers: ATTACK_SUCCESS, unless Hard Crust (XG-05) stops it."""
    if hard_crust_stops(st, ru, wk, g, b, p, a, q, phase, answered):  # XG-05
        return ATTACK_CRUSHED
    wk.tally[b, tally.ATTACK_SUCCESS] += 1
    return ATTACK_SUCCESS


@kernel
def resolve_attack(st, ru, wk, g, b, p, a, q, t, phase, denied):
    """Resolve an attack of amoeba (p, a) on (q, t) on their common space; returns ATTACK_*.
    ``denied``: Camouflage took the target's answers away (genes/camouflage_1.py, XG-11/XG-24)."""
    space = st.space[g, p, a]
    st.amoeba_flags[g, q, t] |= AF_WAS_ATTACKED
    n = 1
    if denied:
        set_option(wk.options, b, 0, RESP_NONE, 0, 0)
        camouflage_no_defence(wk, b)  # XG-11, XG-24
    else:
        n = _response_options(st, ru, wk, g, b, q, t, phase)
    response = wk.options[b, decide(st, ru, wk, g, b, q, t, RESPOND, n), 0]
    log(st, wk, g, EV_RESPOND, phase, q, t + 1, p, a + 1, response, 0, 0, 0, 0)
    if response == RESP_NONE:
        return _succeeds(st, ru, wk, g, b, p, a, q, phase, False)
    answered = False
    for k in range(2):
        answer = RESPONSE_ANSWERS[response, k]
        if answer == RESP_ESCAPE:
            if st.bp[g, q] < active_move_cost(st, ru, g, q, True):
                continue
            answered = True
            alarm_escape_taken(st, wk, g, b, q)  # XG-03: the Escape Alarm granted
            if escape(st, ru, wk, g, b, q, t, phase):
                if st.space[g, p, a] != space:
                    wk.tally[b, tally.ATTACK_CLUNG] += 1
                    return ATTACK_CLUNG
                wk.tally[b, tally.ATTACK_ESCAPED] += 1
                return ATTACK_ESCAPED
        elif answer == RESP_DEFENSE:
            if st.bp[g, q] < ru.defense_cost:
                continue
            answered = True
            if defend(st, ru, wk, g, b, q, t, phase):  # A4, and A5's second fight with Persistence
                wk.tally[b, tally.ATTACK_DEFENDED] += 1
                return ATTACK_DEFENDED
    return _succeeds(st, ru, wk, g, b, p, a, q, phase, answered)


@kernel
def die(st, ru, wk, g, b, q, t, cubes, how, phase):
    """An amoeba dies (X1, A6, R3, XG-05's attacker, XG-25's receiver): ``kill`` (deaths.py), then
    Go Out With a Bang's hook (XG-17)."""
    space = st.space[g, q, t]
    kill(st, wk, g, q, t, cubes, how, phase)
    bang(st, ru, wk, g, b, q, t, space, phase)


@kernel
def hard_crust_refused(st, ru, wk, g, b, p, a, phase):
    """XG-05: the attack failed for want of the extra BP. With the flag hard_crust_refusal
    attacker_dies the attacker dies (cubes: flag hard_crust_death_cubes) and True is returned;
    with attacker_starves False: the caller treats it as a failed attack (A6 starvation, R4)."""
    cubes = hard_crust_death_cubes(ru)
    if cubes < 0:
        return False
    die(st, ru, wk, g, b, p, a, cubes, DEATH_HARD_CRUST, phase)
    return True


@kernel
def retry_target(st, ru, wk, g, b, p, a, own_allowed, armor_allowed):
    """A5: Persistence's free second attempt: the owner picks a target on the current space."""
    n = target_options(st, ru, wk, g, b, p, a, own_allowed, armor_allowed)
    if n <= 1:
        return -1, -1
    i = decide(st, ru, wk, g, b, p, a, ATTACK, n)
    if wk.options[b, i, 0] >= 0:
        persistence_retried(wk, b)
    return wk.options[b, i, 0], wk.options[b, i, 1] - 1
