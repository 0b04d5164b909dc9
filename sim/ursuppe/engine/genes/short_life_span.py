"""Short Life Span (XG-18): its owner's amoebas die at 1 DP less (X1), and its cell division costs
``sls_division_cost`` BP (``sls_with_division_rate`` with Division Rate, a PLACEHOLDER) instead
of D3's.

Its hooks are the thresholds' and prices' every phase and the policy read:
:func:`sls_threshold` (players.death_threshold) and :func:`sls_holds` / :func:`sls_division_cost`
(players.division_cost); a natural death at the lowered threshold counts in the tally
``short_life:death`` (:func:`short_life_death`, phases/phase5_deaths.py ``natural_deaths``). This
module imports neither players.py nor another gene module, so players.py may call it.
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.genes.division_rate import division_rate_cost
from sim.ursuppe.rules.gene_rows import ExtraFlag, Gene

GENE = Gene(
    "Short Life Span",
    "XG-18",
    flags=(
        ExtraFlag("sls_division_cost", "XG-18", 4, lo=0, hi=100),
        ExtraFlag("sls_with_division_rate", "XG-18", 4, lo=0, hi=100, placeholder=True),
    ),
    tallies=(("short_life:death", "XG-18: a death at the lowered threshold"),),
)

# The kernels' constants (numba globals): the gene, its flags and tally.
SHORT_LIFE_SPAN, XF_SLS_DIVISION_COST, XF_SLS_WITH_DIVISION_RATE, SHORT_LIFE_DEATH = indices(GENE)


@kernel
@always_inline
def sls_holds(st, g, p):
    """XG-18: does player p hold Short Life Span?"""
    return st.genes[g, p, SHORT_LIFE_SPAN] != 0


@kernel
@always_inline
def sls_threshold(st, g, p, threshold):
    """XG-18, the death threshold's hook (X1): 1 DP lower for an owner of Short Life Span."""
    if sls_holds(st, g, p):
        threshold -= 1
    return threshold


@kernel
@always_inline
def sls_division_cost(st, ru, g, p):
    """XG-18, the division cost's hook (D3) for an owner of Short Life Span: the flag
    sls_division_cost, or sls_with_division_rate with Division Rate."""
    return division_rate_cost(st, g, p, ru.xflag[XF_SLS_DIVISION_COST], ru.xflag[XF_SLS_WITH_DIVISION_RATE])


@kernel
def short_life_death(st, wk, g, b, p, a, threshold):
    """XG-18, Phase 5's natural death (X1): amoeba (p, a) dies at ``threshold``; it counts in the
    tally if that is Short Life Span's lowered threshold."""
    if sls_holds(st, g, p) and st.dp[g, p, a] == threshold:
        wk.tally[b, SHORT_LIFE_DEATH] += 1
