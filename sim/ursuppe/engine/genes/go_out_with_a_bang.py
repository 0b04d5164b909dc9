"""Go Out With a Bang (XG-17): when an amoeba of its owner dies, every other amoeba on its space
gets +1 DP. With the flag bang_immediate_death an amoeba that so reaches its threshold dies at once
(X1's cubes), and its own bang goes on (a chain on one space); else the DP wait for Phase 5's
check (phases/phase5_deaths.py ``natural_deaths``).

Its hook :func:`bang` is called after every death: attacks.die (X1, R3, Hard Crust's attacker,
Healing 2's receiver) and phases/phase1_movement_feeding.py ``attack`` (A6, whose kill comes
before the attack's cubes are followed). A bang is logged as the event ``bang`` and counted in
the tally ``bang:dp`` (the amoebas hit).
"""

from sim.jit import kernel
from sim.ursuppe.engine.deaths import DEATH_BANG, kill
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import death_threshold, has
from sim.ursuppe.rules.gene_rows import ExtraFlag, Gene

GENE = Gene(
    "Go Out With a Bang",
    "XG-17",
    flags=(ExtraFlag("bang_immediate_death", "XG-17", False),),
    events=(("bang", ("space", "hit")),),  # XG-17: amoebas that took +1 DP
    tallies=(("bang:dp", "XG-17: an amoeba hit by a bang"),),
)

# The kernels' constants (numba globals): the gene, its flag, event and tally.
BANG, XF_BANG_IMMEDIATE_DEATH, EV_BANG, BANG_DP = indices(GENE)


@kernel
def _bang_hits(st, wk, g, b, q, t, space, phase):
    """XG-17: +1 DP to every amoeba on ``space`` (the dead one is gone already)."""
    hit = 0
    for r in range(st.space.shape[1]):
        for u in range(st.space.shape[2]):
            if st.space[g, r, u] == space:
                st.dp[g, r, u] += 1
                hit += 1
    wk.tally[b, BANG_DP] += hit
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
