"""Glutton (XG-02): the owner's amoebas eat one foreign cube more (every meal shape, the standard
one too, has one cube more; the modifiers of F1-F4 add).

Glutton's shapes are rules data (rules.glutton_shapes and its parasite sets, built with the
rules, meal_shapes.py; its return value and card value are the rules file's numbers). The walk
over them is the feeding's (feeding.py ``meal_options``, ``_add_glutton_set``,
``_extra_standard_available``): it is the one walk every meal takes, with Suction and Parasitism,
so the feeding asks this module only whether the gene applies (:func:`glutton_eats`). A meal
eaten with it counts in the tally ``glutton:meal`` (:func:`glutton_meal`, feeding.eat).
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.rules.gene_rows import Gene

GENE = Gene(
    "Glutton",
    "XG-02",
    tallies=(("glutton:meal", "XG-02: a meal with the extra cube"),),
)

# The kernels' constants (numba globals): the gene and its tally.
GLUTTON, GLUTTON_MEAL = indices(GENE)


@kernel
@always_inline  # asked on every meal list (A1, M4): as lean as the test it replaced
def glutton_eats(st, ru, g, p):
    """XG-02: do player p's amoebas eat Glutton's shapes (extra genes on and p holds it)?"""
    if not ru.extra_genes:
        return False
    return has(st, g, p, GLUTTON)


@kernel
def glutton_meal(st, wk, g, b, p):
    """XG-02, the meal's hook (feeding.eat, extra genes on): a meal of a Glutton owner's amoeba
    counts in the tally."""
    if has(st, g, p, GLUTTON):
        wk.tally[b, GLUTTON_MEAL] += 1
