"""Healing 1 and 2 (XG-15, XG-25): a player pays BP to remove DP from its amoebas; Healing 2's
heal gives the DP to another amoeba on the same space, which may die of it at once.

Healing 1 heals in Phase 4, before the player divides. Healing 2 heals where the flag
healing2_phase says: Phase 4 (the default, a PLACEHOLDER), Phase 5 before the deaths, or at any of
its owner's turns (Phases 1, 3 and 4; docs/decisions.md). The phases call heals_in_phase at the
owner's turn; the owner's strategy chooses each heal (decision HEAL) until it stops.
"""

from sim.jit import kernel
from sim.ursuppe.engine import tally
from sim.ursuppe.engine.attacks import DEATH_NATURAL, die
from sim.ursuppe.engine.decision_kinds import HEAL
from sim.ursuppe.engine.decisions import decide, option_overflow, set_option
from sim.ursuppe.engine.events import EV_HEAL, log
from sim.ursuppe.engine.players import add_bp, death_threshold
from sim.ursuppe.engine.state import AF_HEALED
from sim.ursuppe.rules.extra_flags import (
    HEALING2_ANY_OWN_TURN,
    HEALING2_PHASE5,
    HEALING_ONCE_PER_AMOEBA,
    XF_HEALING1_COST,
    XF_HEALING1_LIMIT,
    XF_HEALING2_COST,
    XF_HEALING2_INCLUDES_HEALING1,
    XF_HEALING2_PHASE,
    XF_HEALING2_TARGET_ANY_COLOUR,
)
from sim.ursuppe.rules.genes import HEALING_1, HEALING_2


@kernel
def heal_options(st, ru, wk, g, b, p, plain, giving):
    """XG-15, XG-25: 'stop', then (own number, -1, -1) for a plain heal (``plain``: Healing 1, or
    Healing 2 with flag healing2_includes_healing1; healing1_cost BP) and (own number, receiver
    player, receiver number) for Healing 2's heal that gives the DP to another amoeba on the same
    space (``giving``; healing2_cost BP; own colour only with flag healing2_target_any_colour).
    An amoeba healed this round is left out with flag healing1_limit = once_per_amoeba."""
    set_option(wk.options, b, 0, -1, -1, -1)
    n = 1
    once = ru.xflag[XF_HEALING1_LIMIT] == HEALING_ONCE_PER_AMOEBA
    plain = plain and st.bp[g, p] >= ru.xflag[XF_HEALING1_COST]
    giving = giving and st.bp[g, p] >= ru.xflag[XF_HEALING2_COST]
    any_colour = ru.xflag[XF_HEALING2_TARGET_ANY_COLOUR] != 0
    A = st.space.shape[2]
    for a in range(A):
        s = st.space[g, p, a]
        if s < 0 or st.dp[g, p, a] <= 0:
            continue
        if once and st.amoeba_flags[g, p, a] & AF_HEALED:
            continue
        if plain:
            set_option(wk.options, b, n, a + 1, -1, -1)
            n += 1
        if not giving:
            continue
        for q in range(st.space.shape[1]):
            if q == p and not any_colour:
                continue
            for t in range(A):
                if st.space[g, q, t] == s and not (q == p and t == a):
                    if option_overflow(wk, g, n):
                        return n
                    set_option(wk.options, b, n, a + 1, q, t + 1)
                    n += 1
    return n


@kernel
def healing(st, ru, wk, g, b, p, phase, plain, giving):
    """XG-15, XG-25: player p heals as long as it likes and can pay: each heal removes 1 DP from
    one of its amoebas; Healing 2's gives that DP to the receiver, which dies at once when it
    reaches its threshold (removed, X1's cubes)."""
    while True:
        n = heal_options(st, ru, wk, g, b, p, plain, giving)
        if n <= 1:
            return
        i = decide(st, ru, wk, g, b, p, -1, HEAL, n)
        a = wk.options[b, i, 0] - 1
        q = wk.options[b, i, 1]
        t = wk.options[b, i, 2] - 1
        if a < 0 or wk.error[g, 0] != 0:
            return
        cost = ru.xflag[XF_HEALING1_COST] if q < 0 else ru.xflag[XF_HEALING2_COST]
        add_bp(st, ru, g, p, -cost)
        st.dp[g, p, a] -= 1
        st.amoeba_flags[g, p, a] |= AF_HEALED
        wk.tally[b, tally.HEALING_DP_REMOVED] += 1
        log(st, wk, g, EV_HEAL, phase, p, a + 1, st.dp[g, p, a], cost, q, t + 1 if q >= 0 else -1, 0, 0, 0)
        if q >= 0:
            st.dp[g, q, t] += 1
            wk.tally[b, tally.HEALING2_DP_GIVEN] += 1
            if st.dp[g, q, t] >= death_threshold(st, ru, g, q):
                # XG-17: a death like any other (Go Out With a Bang)
                die(st, ru, wk, g, b, q, t, ru.natural_death_cubes, DEATH_NATURAL, phase)


@kernel
def healing2_now(ru, phase):
    """XG-25: may Healing 2 heal at its owner's turn in ``phase``? Flag healing2_phase: Phase 4
    (as Healing 1), Phase 5 before the deaths, or any own turn: the owner's turn in Phase 1
    (before its amoebas move), Phase 3 (before it buys) and Phase 4 (before it divides)."""
    setting = ru.xflag[XF_HEALING2_PHASE]
    if setting == HEALING2_ANY_OWN_TURN:
        return phase == 1 or phase == 3 or phase == 4
    if setting == HEALING2_PHASE5:
        return phase == 5
    return phase == 4


@kernel
def heals_in_phase(st, ru, wk, g, b, p, phase):
    """XG-15, XG-25: player p's healing at its turn in ``phase`` (1, 3, 4 or 5 before the deaths):
    Healing 1 heals in Phase 4; Healing 2 where healing2_now says, with Healing 1's plain heal
    there too under flag healing2_includes_healing1."""
    if not ru.extra_genes:
        return
    h2 = st.genes[g, p, HEALING_2] != 0 and healing2_now(ru, phase)
    plain = phase == 4 and st.genes[g, p, HEALING_1] != 0
    plain = plain or (h2 and ru.xflag[XF_HEALING2_INCLUDES_HEALING1] != 0)
    if h2 or plain:
        healing(st, ru, wk, g, b, p, phase, plain, h2)
