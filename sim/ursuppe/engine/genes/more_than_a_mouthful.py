"""More Than a Mouthful (XG-09): an amoeba of the owner that an enemy's Phase-1 attack (Struggle for
Survival) would eat takes 1 DP instead and stays; the attacker counts as fed, no cubes are placed.
The flag mouthful_vs_aggression_phase1 extends it to an Aggression holder's Phase-1 attack,
mouthful_vs_aggression_phase5 to Aggression's Phase-5 attacks.

The hooks are called where an attack succeeds: :func:`mouthful_saves` by
phases/phase1_movement_feeding.py ``attack``, :func:`mouthful_saves_from_aggression` by
phases/phase5_deaths.py ``_attack_once``; a target saved is logged as the event ``mouthful`` and
counted in the tally ``mouthful:survived``. The policy's valuation of an attack target (a shared
decision) asks :func:`mouthful_deters` (strategies/ursuppe/policy.py ``_target_value``; this
module calls no decision, so the policy may import it).
"""

from sim.jit import kernel
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.genes.struggle_for_survival import holds_struggle
from sim.ursuppe.engine.players import has, same_side
from sim.ursuppe.rules.gene_rows import ExtraFlag, Gene

GENE = Gene(
    "More Than a Mouthful",
    "XG-09",
    aliases=("More Than a Mouthfull",),  # the seed's spelling
    flags=(
        ExtraFlag("mouthful_vs_aggression_phase1", "XG-09", True),
        ExtraFlag("mouthful_vs_aggression_phase5", "XG-09", False),
    ),
    events=(("mouthful", ("dp",)),),  # XG-09: the target took DP instead of being eaten
    tallies=(("mouthful:survived", "XG-09"),),
)

# The kernels' constants (numba globals): the gene, its flags, event and tally.
(
    MOUTHFUL,
    XF_MOUTHFUL_VS_AGGRESSION_PHASE1,
    XF_MOUTHFUL_VS_AGGRESSION_PHASE5,
    EV_MOUTHFUL,
    MOUTHFUL_SURVIVED,
) = indices(GENE)


@kernel
def mouthful_deters(st, ru, g, p, q):
    """XG-09: would player q's More Than a Mouthful spare its amoeba from p's Phase-1 attack? q
    holds it and p attacks with Struggle for Survival (an Aggression holder too with the flag
    mouthful_vs_aggression_phase1). For the policy's attack targets; extra genes on."""
    return has(st, g, q, MOUTHFUL) and (
        holds_struggle(st, g, p) or ru.xflag[XF_MOUTHFUL_VS_AGGRESSION_PHASE1] != 0
    )


@kernel
def _survives(st, wk, g, b, q, t, phase):
    """XG-09: amoeba (q, t) takes 1 DP instead of being eaten (no cubes)."""
    st.dp[g, q, t] += 1
    wk.tally[b, MOUTHFUL_SURVIVED] += 1
    log(st, wk, g, EV_MOUTHFUL, phase, q, t + 1, st.dp[g, q, t], 0, 0, 0, 0, 0, 0)


@kernel
def mouthful_saves(st, ru, wk, g, b, p, q, t, phase):
    """XG-09, the Phase-1 attack's hook (A6): p's successful attack on (q, t); True if q's More
    Than a Mouthful saves it (1 DP instead: _survives), not against the own side."""
    if not ru.extra_genes or same_side(ru, p, q) or not mouthful_deters(st, ru, g, p, q):
        return False
    _survives(st, wk, g, b, q, t, phase)
    return True


@kernel
def mouthful_saves_from_aggression(st, ru, wk, g, b, q, t, phase):
    """XG-09 with the flag mouthful_vs_aggression_phase5, the Phase-5 attack's hook (R3): True if
    (q, t) takes 1 DP instead of dying (_survives)."""
    if not (ru.extra_genes and ru.xflag[XF_MOUTHFUL_VS_AGGRESSION_PHASE5] != 0 and has(st, g, q, MOUTHFUL)):
        return False
    _survives(st, wk, g, b, q, t, phase)
    return True
