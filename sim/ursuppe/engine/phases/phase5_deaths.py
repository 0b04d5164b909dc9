"""Phase 5 - deaths (X1) and Aggression's attacks (X2, R1-R4), in descending order; Healing 2
before the deaths with flag healing2_phase = phase5_before_deaths (XG-25).

Aggression's attack (with Camouflage, XG-11/XG-24, Hard Crust, XG-05, Thread Display, XG-13, and
More Than a Mouthful, XG-09 flag mouthful_vs_aggression_phase5) is its gene module's:
sim/ursuppe/engine/genes/aggression.py. Extra genes here: Short Life Span's lower threshold
(XG-18, players.death_threshold) and Go Out With a Bang's chain of deaths (XG-17)."""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.attacks import die
from sim.ursuppe.engine.deaths import DEATH_NATURAL
from sim.ursuppe.engine.genes.aggression import aggression, may_aggress
from sim.ursuppe.engine.genes.healing_1 import heals_in_phase
from sim.ursuppe.engine.genes.healing_2 import healing2_now
from sim.ursuppe.engine.genes.short_life_span import short_life_death
from sim.ursuppe.engine.invariants import check_no_doomed_amoebas
from sim.ursuppe.engine.players import ORDER_SLOT, death_threshold, turn_order

PHASE = 5


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
                    short_life_death(st, wk, g, b, p, a, threshold)  # XG-18
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
        if may_aggress(st, ru, g, p):
            aggression(st, ru, wk, g, b, p)  # R1-R4 (sim/ursuppe/engine/genes/aggression.py)
