"""Life Expectancy (§8 "Others", X1): the owner's amoebas die at 3 DP instead of 2 (the rules'
death_dp_life_expectancy); the dummy of the 2-player variant has it innately (TD4). A gene
without rows (no flag, decision, event or tally).

Its hook :func:`life_expectancy_threshold` is the base of players.death_threshold, which every
death check asks (Phase 5's natural deaths, XG-17's bangs, XG-25's receiver, the strategies);
XG-18's lower threshold stays there. This module reads the gene array itself (not
players.has): players.py imports it, so it must not import players.py back.
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.rules.gene_rows import Gene

GENE = Gene("Life Expectancy", "X1")

# The kernels' constant (a numba global): the gene.
(LIFE_EXPECTANCY,) = indices(GENE)


@kernel
@always_inline
def life_expectancy_threshold(st, ru, g, p):
    """X1: DP at which player p's amoebas die, Life Expectancy's higher one if p holds it (TD4:
    the dummy has it innately)."""
    if st.genes[g, p, LIFE_EXPECTANCY] != 0 or p == ru.dummy:
        return ru.death_dp_life_expectancy
    return ru.death_dp
