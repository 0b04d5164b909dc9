"""Aggression (§8 R1-R4, X2; advanced, gives up Struggle for Survival, whose ability it includes):
in Phase 5, once per round per owner and after all natural deaths, one of the owner's amoebas
attacks an amoeba of another player on the same space; 1 BP. The target may answer with Escape
and Defense (R2); success kills it (2 cubes of each colour in play, R3) unless it has Armor (DP
instead); a lost Defense fight gives the attacker DP (R4, base flag aggression_lost_fight_dp, a
rules-book flag); Persistence gives one free second attempt (A5).

Its rows: the decision kind ``aggress`` (own number, target player, target number; scenario
choice ``{"aggress": {...} | null}``), the event ``damage`` (DP an Aggression attack gave: R3's
Armor, R4's lost fight, XG-05's refused Hard Crust; its reasons are :data:`DP_REASON`) and the
tally ``aggression:lost_defense_dp``. Its hooks are called by Phase 5
(phases/phase5_deaths.phase5): :func:`may_aggress` and :func:`aggression` (the attack, with its
answers resolved by attacks.resolve_attack, shared with Phase 1). The policy values the
``aggress`` decision itself (policy._value_aggress): its propensity is drawn after choose's own
draw (and may decline at once), so no hook can score it before decide without changing the
games; the attack events and attack:* outcome tallies are shared with Struggle for Survival.
"""

import json

from sim.jit import kernel
from sim.ursuppe.engine.attacks import (
    ATTACK_CLUNG,
    ATTACK_CRUSHED,
    ATTACK_DEFENDED,
    ATTACK_ESCAPED,
    ATTACK_SUCCESS,
    die,
    hard_crust_refused,
    resolve_attack,
    retry_target,
)
from sim.ursuppe.engine.deaths import DEATH_AGGRESSION
from sim.ursuppe.engine.decisions import decide, set_option
from sim.ursuppe.engine.events import EV_ATTACK, EV_ATTACK_RESULT, log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.genes.armor import armor_takes_dp
from sim.ursuppe.engine.genes.camouflage_1 import camouflage, camouflage_retry
from sim.ursuppe.engine.genes.more_than_a_mouthful import mouthful_saves_from_aggression
from sim.ursuppe.engine.genes.persistence import persistence_retries
from sim.ursuppe.engine.genes.threat_display import threat_display_protects
from sim.ursuppe.engine.players import add_bp, has, same_side, share_with_partner
from sim.ursuppe.engine.state import PF_AGGRESSED
from sim.ursuppe.rules.gene_rows import Decision, Gene


def _number(value, name, low, high):
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f'"{name}": expected an integer in {low}..{high}, got {json.dumps(value)}')
    return value


def _parse(value, row, players):
    """The scenario choice ``{"aggress": {"number": n, "player": p, "target": n}}`` or
    ``{"aggress": null}`` (no attack)."""
    if value is None:
        row[0], row[1], row[2] = -1, -1, -1
    elif isinstance(value, dict) and set(value) == {"number", "player", "target"}:
        row[0] = _number(value["number"], "number", 1, 7)
        row[1] = _number(value["player"], "player", 0, players - 1)
        row[2] = _number(value["target"], "target", 1, 7)
    else:
        shown = json.dumps(value)
        raise ValueError(f'expected null or {{"number": n, "player": p, "target": n}}, got {shown}')
    return row


def _render(row):
    if row[0] < 0:
        return {"aggress": None}
    return {"aggress": {"number": int(row[0]), "player": int(row[1]), "target": int(row[2])}}


GENE = Gene(
    "Aggression",
    "R1",
    advanced=True,
    decisions=(
        Decision(
            "aggress",
            "R1",
            3,
            "aggress",
            "own number, target player, target number; all -1 = none",
            _parse,
            _render,
        ),
    ),
    events=(("damage", ("dp", "reason")),),  # reason: DP_REASON
    tallies=(("aggression:lost_defense_dp", "R4"),),
)

# The kernels' constants (numba globals): the gene, its decision kind, event and tally.
AGGRESSION, AGGRESS, EV_DAMAGE, LOST_DEFENSE_DP = indices(GENE)
PHASE = 5  # R1: Aggression attacks in Phase 5
# The damage event's reason, by its name in the event log: Armor (R3), a lost Defense fight (R4),
# and with XG-05 flag hard_crust_refusal = attacker_starves the failed attacker's DP
DP_REASON: tuple[str, ...] = ("armor", "lost_defense", "hard_crust")
DP_ARMOR, DP_LOST_DEFENSE, DP_HARD_CRUST = range(len(DP_REASON))


@kernel
def may_aggress(st, ru, g, p):
    """R1: does player p attack with Aggression this Phase 5? It holds the gene, has not attacked
    this round (TB3: one attack per player, not per colour) and can pay."""
    if not has(st, g, p, AGGRESSION) or (st.player_flags[g, p] & PF_AGGRESSED):
        return False
    return st.bp[g, p] >= ru.attack_cost


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
                    if threat_display_protects(st, ru, wk, g, b, p, a, q, t):  # XG-13
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
            log(st, wk, g, EV_DAMAGE, PHASE, q, t + 1, st.dp[g, q, t], DP_ARMOR, 0, 0, 0, 0, 0)
        elif not mouthful_saves_from_aggression(st, ru, wk, g, b, q, t, PHASE):  # XG-09: 1 DP instead
            die(st, ru, wk, g, b, q, t, ru.aggression_death_cubes, DEATH_AGGRESSION, PHASE)
    elif result == ATTACK_DEFENDED and ru.aggression_lost_fight_dp:
        st.dp[g, p, a] += ru.lost_defense_dp  # R4 (flag false: the 2004 English FAQ, no DP)
        wk.tally[b, LOST_DEFENSE_DP] += 1
        log(st, wk, g, EV_DAMAGE, PHASE, p, a + 1, st.dp[g, p, a], DP_LOST_DEFENSE, 0, 0, 0, 0, 0)
    elif result == ATTACK_CRUSHED and not hard_crust_refused(st, ru, wk, g, b, p, a, PHASE):
        # XG-05 flag hard_crust_refusal attacker_starves: a failed attack, the attacker's DP as R4.
        st.dp[g, p, a] += ru.lost_defense_dp
        log(st, wk, g, EV_DAMAGE, PHASE, p, a + 1, st.dp[g, p, a], DP_HARD_CRUST, 0, 0, 0, 0, 0)
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
            denied = camouflage_retry(st, ru, wk, g, p, a, denied, PHASE)  # XG-11
            _attack_once(st, ru, wk, g, b, p, a, q, t, denied)
