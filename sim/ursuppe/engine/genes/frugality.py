"""Frugality (§8 F1, F3): the owner's amoebas may eat one cube fewer than the pattern, any colour
(excretion unchanged). A gene without rows: its shapes are rules data (rules/meal_shapes.py
builds every shape set, frugality_fewer cubes fewer, when the rules are loaded).

Its hook :func:`frugality_shape_bit` picks the owner's shape set where a feeding lists the meals
(feeding._shape_set, which feeding.meal_options reads).
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.rules.gene_rows import Gene
from sim.ursuppe.rules.meal_shapes import WITH_FRUGALITY

GENE = Gene("Frugality", "F1")

# The kernels' constant (a numba global): the gene.
(FRUGALITY,) = indices(GENE)


@kernel
@always_inline
def frugality_shape_bit(st, g, p):
    """F1: the bit of player p's shape-set index (meal_shapes.WITH_FRUGALITY) if it holds
    Frugality, else 0."""
    return WITH_FRUGALITY if has(st, g, p, FRUGALITY) else 0
