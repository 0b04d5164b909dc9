"""Struggle for Survival (§8 A1-A2, A6): in Phase 1 an amoeba of the owner that cannot eat the
standard pattern on its space may, instead of starving, attack another amoeba on the same space
(any colour, its own included, except amoebas whose owner has Armor); 1 BP; once per amoeba and
round. Aggression includes Struggle for Survival's ability (R1). A gene without rows of its own:
the attack decision (``attack``: A1 and Persistence's retry, A5), the attack's events and its
outcome tallies (``attack:*``) are shared with Aggression's and Persistence's attacks, and stay
with the attacks (attacks.py, decision_kinds.py); the policy values the attack decision itself
(with a random propensity drawn after choose's own draw, so no hook can score it beforehand).

Its hooks: :func:`struggle_ability` (phases/phase1_movement_feeding.may_attack: may the owner's
amoeba attack at all) and :func:`holds_struggle` (XG-09 More Than a Mouthful: an attacker using
Struggle for Survival itself, phase1_movement_feeding._mouthful). The strategies read
:data:`STRUGGLE` for their hunter test and Mouthful's target value (policy.is_hunter,
policy._target_value).
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.rules.gene_rows import Gene
from sim.ursuppe.rules.genes import GENE_INDEX

GENE = Gene("Struggle for Survival", "A1")

# The kernels' constant (a numba global): the gene.
(STRUGGLE,) = indices(GENE)
# Aggression (genes/aggression.py) includes its ability; that module calls decide (which the
# policy, importing this module, sits below), so its index is read from the table here.
AGGRESSION = GENE_INDEX["Aggression"]


@kernel
@always_inline
def holds_struggle(st, g, p):
    """A1: does player p hold Struggle for Survival itself (not only Aggression's ability)?"""
    return has(st, g, p, STRUGGLE)


@kernel
@always_inline
def struggle_ability(st, g, p):
    """A1: may player p's amoebas attack in Phase 1? Struggle for Survival, or Aggression, which
    includes its ability (R1)."""
    return has(st, g, p, STRUGGLE) or has(st, g, p, AGGRESSION)
