"""Holding (§8 Movement; A3): (1) the owner's amoeba may stay instead of drifting or moving (M1).
(2) When an amoeba of another player leaves a space by drift, active move or escape, each amoeba
of the Holding owner on that space may cling to it and arrives with it where its movement ends;
the owner decides after the whole movement (with its Tentacle cubes) is known. Clinging is free,
carries no cubes, triggers no further clinging and does not use up the clinging amoeba's turn.
The base flags holding_clings_to_own (cling to one's own amoebas too) and
clinging_after_first_step (with Speed: decide after the first step) stay in the rules book.

Its rows: the decision kind ``cling`` (0 / 1; scenario choice ``{"cling": true}``), the event
``cling`` and the tally ``holding:clung``. Its hooks: :func:`holding_may_stay` (Phase 1's M1
options, phases/phase1_movement_feeding.move_amoeba); :func:`offer_clinging` once a movement
is known (movement.finish_movement; with clinging_after_first_step movement.active_movement
calls :func:`cling_after_first_step` after the first step and :func:`arrive_riders` at the end).
The options are scored by the policy's valuation :func:`value` here. A3's attack that ends with
the attacker clinging to the escaping target is an attack result (attacks.ATTACK_CLUNG, tally
attack:clung), counted where attacks are resolved; the clung amoeba's flag AF_CLUNG and the
riders' slot of the scratch row are shared formats (state.py, scratch.py).
"""

from sim.jit import kernel
from sim.ursuppe.engine.decisions import decide, set_option
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has, put_amoeba, same_side
from sim.ursuppe.engine.policy_port import CLING_THRESHOLD, food_value
from sim.ursuppe.engine.scratch import RIDERS
from sim.ursuppe.engine.state import AF_CLUNG
from sim.ursuppe.rules.gene_rows import Decision, Gene, yes_no

GENE = Gene(
    "Holding",
    "§8",
    decisions=(Decision("cling", "Holding", 1, "cling", "0 / 1", *yes_no("cling")),),
    events=(("cling", ("from", "to", "leader_player", "leader_amoeba")),),
    tallies=(("holding:clung", "Holding"),),
)

# The kernels' constants (numba globals): the gene, its decision kind, event and tally.
HOLDING, CLING, EV_CLING, CLUNG = indices(GENE)


@kernel
def holding_may_stay(st, g, p):
    """M1 with Holding: may player p's amoeba stay instead of drifting or moving?"""
    return has(st, g, p, HOLDING)


@kernel
def value(st, ru, wk, g, b, p, a, n, prm):
    """Holding, the policy's valuation (strategies/ursuppe/policy.py) of the options (0 / 1):
    cling when the food value of the amoeba's space is below ``cling_threshold``."""
    want = food_value(st, g, p, st.space[g, p, a]) < prm[CLING_THRESHOLD]
    for i in range(n):
        o = wk.options[b, i, 0]
        wk.scores[b, i] = float(o) if want else float(1 - o)


@kernel
def _cling(st, wk, g, b, q, t, start, end, p, a, phase):
    """Holding: amoeba (q, t) clung to (p, a) and arrives with it on ``end``."""
    put_amoeba(st, g, q, t, end)
    st.amoeba_flags[g, q, t] |= AF_CLUNG
    wk.tally[b, CLUNG] += 1
    log(st, wk, g, EV_CLING, phase, q, t + 1, start, end, p, a + 1, 0, 0, 0)


@kernel
def offer_clinging(st, ru, wk, g, b, p, a, start, end, phase, defer):
    """Holding: each amoeba of a Holding owner on ``start`` (another player's; with the flag
    holding_clings_to_own also p's own others) may cling to (p, a), which moved to ``end``.
    ``defer`` (flag clinging_after_first_step, after a first step): the ones that cling are
    listed at RIDERS and arrive when the movement ends (arrive_riders)."""
    P = st.supply.shape[1]
    for q in range(P):
        if not has(st, g, q, HOLDING):
            continue
        if same_side(ru, p, q) and not ru.holding_clings_to_own:
            continue  # one's own (TB10: a double play II partner colour is one's own)
        for t in range(st.space.shape[2]):
            if st.space[g, q, t] != start or (q == p and t == a):
                continue
            set_option(wk.options, b, 0, 0, 0, 0)
            set_option(wk.options, b, 1, 1, 0, 0)
            # The policy cannot call value (its module would import this one, which calls
            # decide): the scores are set here, and policy.choose leaves them as they are.
            if q != ru.dummy:
                value(st, ru, wk, g, b, q, t, 2, wk.params[st.strategy[g, q]])
            if decide(st, ru, wk, g, b, q, t, CLING, 2) == 1:
                if defer != 0:
                    k = wk.scratch[b, RIDERS]
                    wk.scratch[b, RIDERS + 1 + k] = 8 * q + t
                    wk.scratch[b, RIDERS] = k + 1
                else:
                    _cling(st, wk, g, b, q, t, start, end, p, a, phase)


@kernel
def cling_after_first_step(st, ru, wk, g, b, p, a, start, here, phase):
    """Flag clinging_after_first_step: (p, a) made its first step from ``start`` to ``here`` and
    has Speed's second move: the Holding amoebas on ``start`` decide now (offer_clinging,
    deferred: they arrive with it where its movement ends, arrive_riders)."""
    wk.scratch[b, RIDERS] = 0
    if here != start:
        offer_clinging(st, ru, wk, g, b, p, a, start, here, phase, 1)


@kernel
def arrive_riders(st, wk, g, b, p, a, start, end, phase):
    """Flag clinging_after_first_step: the amoebas that clung after the first step arrive with
    (p, a) where its movement ended (on ``start`` again if its second step led back)."""
    for k in range(wk.scratch[b, RIDERS]):
        code = wk.scratch[b, RIDERS + 1 + k]
        _cling(st, wk, g, b, code // 8, code % 8, start, end, p, a, phase)
    wk.scratch[b, RIDERS] = 0
