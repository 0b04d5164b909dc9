"""Substitution (§8 F2, F3): the owner's amoebas may skip one foreign colour and eat one cube more
(4 players (2:2:0) or (3:1:0), 3 players (4:0); flag substitution_3_1 drops (3:1:0)). A gene
without rows: its shapes are rules data (rules/meal_shapes.py builds every shape set when the
rules are loaded; the base flag substitution_3_1 is the rules book's).

Its hook :func:`substitution_shape_bit` picks the owner's shape set where a feeding lists the
meals (feeding._shape_set, which feeding.meal_options reads).
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.rules.gene_rows import Gene
from sim.ursuppe.rules.meal_shapes import WITH_SUBSTITUTION

GENE = Gene("Substitution", "F2")

# The kernels' constant (a numba global): the gene.
(SUBSTITUTION,) = indices(GENE)


@kernel
@always_inline
def substitution_shape_bit(st, g, p):
    """F2: the bit of player p's shape-set index (meal_shapes.WITH_SUBSTITUTION) if it holds
    Substitution, else 0."""
    return WITH_SUBSTITUTION if has(st, g, p, SUBSTITUTION) else 0
