"""Attacks: Struggle for Survival (A1-A6), Aggression (R1-R4), and the answers Escape and Defense.

``resolve_attack`` is shared by Phase 1 and Phase 5: the target's owner answers (A2) with
Escape and/or Defense in its chosen order; an escape that leaves the space ends the attack (and
if the attacker clung to the escaping target, the attack ends with the attacker beside it); a
Defense fight won by the target ends it; otherwise the attack succeeds. What success and failure
mean differs by phase and is decided by the callers in phases/.

The extra genes (XG-03, XG-05, XG-11, XG-13, XG-17, XG-24) hook in here: Alarm's granted
Escape is one more answer, Camouflage's roll (``camouflage``) can take every answer away,
Hard Crust makes an unanswered attack cost more (else it fails: ATTACK_CRUSHED), Thread Display
shortens the target lists, and every death goes through ``die`` for Go Out With a Bang.

The base genes' hooks live in their modules (sim/ursuppe/engine/genes/): Armor's targets
(armor.armor_protects), Escape's answer (escape.holds_escape, escape.escape), Defense's fight
(defense.may_defend, defense.defend, with Persistence's second fight) and Persistence's retry
(persistence.persistence_retried); Aggression's Phase-5 attack is genes/aggression.py's.
"""

from sim.jit import kernel
from sim.ursuppe.engine import tally
from sim.ursuppe.engine.decision_kinds import (
    ATTACK,
    HARD_CRUST_PAY,
    RESP_DEFENSE,
    RESP_DEFENSE_ESCAPE,
    RESP_ESCAPE,
    RESP_ESCAPE_DEFENSE,
    RESP_NONE,
    RESPOND,
)
from sim.ursuppe.engine.decisions import decide, set_option
from sim.ursuppe.engine.dice import roll_die
from sim.ursuppe.engine.events import (
    EV_BANG,
    EV_CAMOUFLAGE,
    EV_DEATH,
    EV_HARD_CRUST,
    EV_RESPOND,
    log,
)
from sim.ursuppe.engine.food import place_each_colour
from sim.ursuppe.engine.genes.armor import armor_protects
from sim.ursuppe.engine.genes.defense import defend, may_defend
from sim.ursuppe.engine.genes.escape import escape, holds_escape
from sim.ursuppe.engine.genes.persistence import persistence_retried
from sim.ursuppe.engine.genes.streamlining import active_move_cost
from sim.ursuppe.engine.players import add_bp, death_threshold, has, put_amoeba, same_side
from sim.ursuppe.engine.state import AF_DEFENDED, AF_ESCAPED, AF_WAS_ATTACKED, PF_ALARM
from sim.ursuppe.rules.extra_flags import (
    ALARM_REST_OF_ROUND,
    CRUST_ATTACKER_DIES,
    CRUST_CUBES_1_EACH,
    CRUST_CUBES_2_EACH,
    THREAT_FORBIDDEN,
    THREAT_UNRESTRICTED,
    XF_ALARM_DURATION,
    XF_BANG_IMMEDIATE_DEATH,
    XF_HARD_CRUST_AFTER_FAILED_DEFENCE,
    XF_HARD_CRUST_DEATH_CUBES,
    XF_HARD_CRUST_EXTRA_BP,
    XF_HARD_CRUST_REFUSAL,
    XF_THREAT_DISPLAY_OWN_ATTACKERS,
)
from sim.ursuppe.rules.genes import (
    ALARM,
    BANG,
    CAMOUFLAGE_1,
    CAMOUFLAGE_2,
    HARD_CRUST,
    THREAT_DISPLAY,
)

ATTACK_SUCCESS = 0
ATTACK_ESCAPED = 1  # the target escaped to another space (A3)
ATTACK_DEFENDED = 2  # the target won a Defense fight (A4); in Phase 5 the attacker gets DP (R4)
ATTACK_CLUNG = 3  # the attacker clung to the escaping target: the attack ended (A3)
ATTACK_CRUSHED = 4  # XG-05: the attacker did not pay Hard Crust's extra BP: the attack failed
ATTACK_RESULT_NAMES: tuple[str, ...] = ("success", "escaped", "defended", "clung", "crust")

# EV_DEATH's "how", by its name in the event log: X1's natural death (Phase 5, and Healing 2's
# receiver, XG-25), A6's violent one (Phase 1), R3's (Aggression), the attacker that did not pay
# Hard Crust (XG-05), a bang's at once (XG-17 flag bang_immediate_death).
DEATH_HOW: tuple[str, ...] = ("natural", "violent", "aggression", "hard_crust", "bang")
DEATH_NATURAL, DEATH_VIOLENT, DEATH_AGGRESSION, DEATH_HARD_CRUST, DEATH_BANG = range(len(DEATH_HOW))


@kernel
def threat_display_allows(st, ru, g, p, a, q, t):
    """XG-13: may amoeba (p, a) attack (q, t)? An owner with Thread Display can be attacked only
    by enemy amoebas whose number is at most the target's; its own colour (and a double play
    partner's) as the flag threat_display_own_attackers says (forbidden, number rule, anyone)."""
    if not ru.extra_genes or not has(st, g, q, THREAT_DISPLAY):
        return True
    if same_side(ru, p, q):
        mode = ru.xflag[XF_THREAT_DISPLAY_OWN_ATTACKERS]
        if mode == THREAT_FORBIDDEN:
            return False
        if mode == THREAT_UNRESTRICTED:
            return True
    return a <= t


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
                if not threat_display_allows(st, ru, g, p, a, q, t):
                    wk.tally[b, tally.THREAT_DISPLAY_PROTECTED] += 1
                    continue
                set_option(wk.options, b, n, q, t + 1, 0)
                n += 1
    return n


@kernel
def alarm_escape(st, ru, g, q, phase):
    """XG-03: player q's amoebas have Escape by Alarm now (granted this round after one of its
    amoebas was eaten in Phase 1; in Phase 5 too with the flag alarm_duration rest_of_round)."""
    if not ru.extra_genes or (st.player_flags[g, q] & PF_ALARM) == 0 or not has(st, g, q, ALARM):
        return False
    return phase == 1 or ru.xflag[XF_ALARM_DURATION] == ALARM_REST_OF_ROUND


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
def camouflage(st, ru, wk, g, p, a, phase):
    """XG-11, XG-24: may the target of amoeba (p, a)'s attack not answer it? Camouflage 2: never
    (no roll); Camouflage 1: the attacker's owner rolls a die, 4-6 takes every answer away
    (Escape, Defense, Alarm's Escape); Armor is no answer and still protects."""
    if not ru.extra_genes:
        return False
    if has(st, g, p, CAMOUFLAGE_2):
        log(st, wk, g, EV_CAMOUFLAGE, phase, p, a + 1, 0, 0, 0, 0, 0, 0, 0)
        return True
    if has(st, g, p, CAMOUFLAGE_1):
        roll = roll_die(st, wk, g)
        log(st, wk, g, EV_CAMOUFLAGE, phase, p, a + 1, roll, 1 if roll <= 3 else 0, 0, 0, 0, 0, 0)
        return roll >= 4
    return False


@kernel
def _hard_crust(st, ru, wk, g, b, p, a, phase):
    """XG-05: the attacker's owner pays the extra BP to go on (its choice, if it has them);
    True if it paid."""
    cost = ru.xflag[XF_HARD_CRUST_EXTRA_BP]
    set_option(wk.options, b, 0, 0, 0, 0)
    n = 1
    if st.bp[g, p] >= cost:
        set_option(wk.options, b, 1, 1, 0, 0)
        n = 2
    paid = wk.options[b, decide(st, ru, wk, g, b, p, a, HARD_CRUST_PAY, n), 0] == 1
    if paid:
        add_bp(st, ru, g, p, -cost)
        wk.tally[b, tally.HARD_CRUST_PAID] += 1
        log(st, wk, g, EV_HARD_CRUST, phase, p, a + 1, 1, cost, 0, 0, 0, 0, 0)
    else:
        wk.tally[b, tally.HARD_CRUST_REFUSED] += 1
        log(st, wk, g, EV_HARD_CRUST, phase, p, a + 1, 0, 0, 0, 0, 0, 0, 0)
    return paid


@kernel
def _succeeds(st, ru, wk, g, b, p, a, q, phase, answered):
    """The attack got past the answers: ATTACK_SUCCESS, unless Hard Crust (XG-05) stops it."""
    if ru.extra_genes and has(st, g, q, HARD_CRUST):
        if not answered or ru.xflag[XF_HARD_CRUST_AFTER_FAILED_DEFENCE] != 0:
            if not _hard_crust(st, ru, wk, g, b, p, a, phase):
                return ATTACK_CRUSHED
    wk.tally[b, tally.ATTACK_SUCCESS] += 1
    return ATTACK_SUCCESS


@kernel
def resolve_attack(st, ru, wk, g, b, p, a, q, t, phase, denied):
    """Resolve an attack of amoeba (p, a) on (q, t) on their common space; returns ATTACK_*.
    ``denied``: Camouflage took the target's answers away (``camouflage``, XG-11/XG-24)."""
    space = st.space[g, p, a]
    st.amoeba_flags[g, q, t] |= AF_WAS_ATTACKED
    n = 1
    if denied:
        set_option(wk.options, b, 0, RESP_NONE, 0, 0)
        wk.tally[b, tally.CAMOUFLAGE_NO_DEFENCE] += 1
    else:
        n = _response_options(st, ru, wk, g, b, q, t, phase)
    response = wk.options[b, decide(st, ru, wk, g, b, q, t, RESPOND, n), 0]
    log(st, wk, g, EV_RESPOND, phase, q, t + 1, p, a + 1, response, 0, 0, 0, 0)
    if response == RESP_NONE:
        return _succeeds(st, ru, wk, g, b, p, a, q, phase, False)
    first = RESP_DEFENSE if response == RESP_DEFENSE or response == RESP_DEFENSE_ESCAPE else RESP_ESCAPE
    second = RESP_NONE
    if response == RESP_ESCAPE_DEFENSE:
        second = RESP_DEFENSE
    elif response == RESP_DEFENSE_ESCAPE:
        second = RESP_ESCAPE
    answered = False
    for k in range(2):
        answer = first if k == 0 else second
        if answer == RESP_ESCAPE:
            if st.bp[g, q] < active_move_cost(st, ru, g, q, True):
                continue
            answered = True
            if not holds_escape(st, g, q):
                wk.tally[b, tally.ALARM_ESCAPE] += 1  # XG-03: the Escape Alarm granted
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
def kill(st, wk, g, q, t, cubes, how, phase):
    """Remove amoeba (q, t) to its owner's supply and place ``cubes`` of each colour (X1/A6/R3).
    The phases' deaths go through ``die``, which adds Go Out With a Bang (XG-17)."""
    space = st.space[g, q, t]
    dp = st.dp[g, q, t]
    put_amoeba(st, g, q, t, -1)
    st.dp[g, q, t] = 0
    st.amoeba_flags[g, q, t] = 0
    place_each_colour(st, g, space, cubes)
    log(st, wk, g, EV_DEATH, phase, q, t + 1, space, dp, cubes, how, 0, 0, 0)


@kernel
def _bang_hits(st, wk, g, b, q, t, space, phase):
    """XG-17: +1 DP to every amoeba on ``space`` (the dead one is gone already)."""
    hit = 0
    for r in range(st.space.shape[1]):
        for u in range(st.space.shape[2]):
            if st.space[g, r, u] == space:
                st.dp[g, r, u] += 1
                hit += 1
    wk.tally[b, tally.BANG_DP] += hit
    log(st, wk, g, EV_BANG, phase, q, t + 1, space, hit, 0, 0, 0, 0, 0)


@kernel
def bang(st, ru, wk, g, b, q, t, space, phase):
    """XG-17 Go Out With a Bang, after amoeba (q, t) died on ``space``: if its owner has the gene,
    every other amoeba on the space gets +1 DP. With the flag bang_immediate_death an amoeba
    that reaches its threshold so dies at once (X1's cubes), and its own bang goes on (a chain on
    one space); else the DP wait for Phase 5's check (phase5_deaths.natural_deaths)."""
    if not ru.extra_genes or not has(st, g, q, BANG) or space < 0:
        return
    _bang_hits(st, wk, g, b, q, t, space, phase)
    if ru.xflag[XF_BANG_IMMEDIATE_DEATH] == 0:
        return
    again = True
    while again:
        again = False
        for r in range(st.space.shape[1]):
            threshold = death_threshold(st, ru, g, r)
            for u in range(st.space.shape[2]):
                if st.space[g, r, u] == space and st.dp[g, r, u] >= threshold:
                    kill(st, wk, g, r, u, ru.natural_death_cubes, DEATH_BANG, phase)
                    if has(st, g, r, BANG):
                        _bang_hits(st, wk, g, b, r, u, space, phase)
                        again = True


@kernel
def die(st, ru, wk, g, b, q, t, cubes, how, phase):
    """An amoeba dies (X1, A6, R3, XG-05's attacker, XG-25's receiver): ``kill``, then ``bang``."""
    space = st.space[g, q, t]
    kill(st, wk, g, q, t, cubes, how, phase)
    bang(st, ru, wk, g, b, q, t, space, phase)


@kernel
def hard_crust_refused(st, ru, wk, g, b, p, a, phase):
    """XG-05: the attack failed for want of the extra BP. With the flag hard_crust_refusal
    attacker_dies the attacker dies (cubes: flag hard_crust_death_cubes) and True is returned;
    with attacker_starves False: the caller treats it as a failed attack (A6 starvation, R4)."""
    if ru.xflag[XF_HARD_CRUST_REFUSAL] != CRUST_ATTACKER_DIES:
        return False
    mode = ru.xflag[XF_HARD_CRUST_DEATH_CUBES]
    cubes = 2 if mode == CRUST_CUBES_2_EACH else (1 if mode == CRUST_CUBES_1_EACH else 0)
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
