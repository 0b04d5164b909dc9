"""Suction 1 (XG-12): the owner's amoebas may take one cube of a meal from an orthogonally adjacent
space (B1), the rest from their own; Suction 2 (XG-26, genes/suction_2.py) two.

The meals with a neighbour's cube are listed by the feeding's meal walk (feeding.py
``_add_suction``, on every arrangement: it is the one walk every meal takes, with Glutton and
Parasitism), which asks :func:`suction_reach` how many cubes may come from neighbours; the EAT
row's suction column names them (decision_kinds.pack_suction, a format of the shared EAT row).
Eating such a meal takes the cubes from the neighbours and counts in the tally ``suction:meal``
(:func:`suction_meal`, feeding.eat), the two genes' row, declared here.
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.decision_kinds import SUCTION_BITS
from sim.ursuppe.engine.food import return_cubes
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.genes.suction_2 import SUCTION_2
from sim.ursuppe.engine.players import has
from sim.ursuppe.rules.gene_rows import Gene

GENE = Gene(
    "Suction 1",
    "XG-12",
    tallies=(("suction:meal", "XG-12, XG-26: a meal with a neighbour's cube"),),
)

# The kernels' constants (numba globals): the gene and the tally it shares with Suction 2.
SUCTION_1, SUCTION_MEAL = indices(GENE)


@kernel
@always_inline
def suction_reach(st, ru, g, p):
    """XG-12, XG-26: how many cubes player p's amoebas may take from neighbouring spaces."""
    if not ru.extra_genes:
        return 0
    if has(st, g, p, SUCTION_2):
        return 2
    if has(st, g, p, SUCTION_1):
        return 1
    return 0


@kernel
def suction_meal(st, wk, g, b, suction):
    """XG-12, XG-26, the meal's hook (feeding.eat, extra genes on): the meal's ``suction`` column
    (0: none) names the cubes taken from neighbouring spaces; they go to the supply."""
    if suction == 0:
        return
    rest = suction
    while rest != 0:
        cube = (rest & ((1 << SUCTION_BITS) - 1)) - 1
        return_cubes(st, g, cube // 8, cube % 8, 1)
        rest >>= SUCTION_BITS
    wk.tally[b, SUCTION_MEAL] += 1
