"""Suction 2 (XG-26, an advanced gene over Suction 1): the owner's amoebas may take up to two cubes
of a meal from orthogonally adjacent spaces (B1); with the flag suction2_same_space (the default)
both from one neighbour.

What Suction does is Suction 1's (genes/suction_1.py: ``suction_reach`` is 2 for this gene, and
the tally ``suction:meal``, declared there, counts both genes' meals); the feeding's meal walk
(feeding.py ``_add_suction``) asks :func:`suction2_same_space` whether two cubes must come from
one neighbour.
"""

from sim.jit import kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.rules.gene_rows import ExtraFlag, Gene

GENE = Gene(
    "Suction 2",
    "XG-26",
    advanced=True,
    flags=(ExtraFlag("suction2_same_space", "XG-26", True),),
)

# The kernels' constants (numba globals): the gene and its flag.
SUCTION_2, XF_SUCTION2_SAME_SPACE = indices(GENE)


@kernel
def suction2_same_space(ru):
    """XG-26 (flag suction2_same_space): do a meal's two cubes from neighbours come from one
    neighbouring space?"""
    return ru.xflag[XF_SUCTION2_SAME_SPACE] != 0
