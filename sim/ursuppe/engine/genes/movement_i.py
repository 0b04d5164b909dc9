"""Movement I (§8 Movement): an active move (an escape too) rolls 2 dice; the owner uses either
result. A gene without rows: the direction decision (``direction``, B2 6) is the core rules',
listing the directions the dice allow; Movement I only adds its second die.

Its hook :func:`movement_i_die` rolls that die where movement._choose_direction finds an active
move's direction. The strategies read :data:`MOVEMENT_I` to value an active move by both dice
(policy._active_value, the valuation of the shared M1 decision).
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.dice import roll_die
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.rules.gene_rows import Gene

GENE = Gene("Movement I", "§8")

# The kernels' constant (a numba global): the gene.
(MOVEMENT_I,) = indices(GENE)


@kernel
@always_inline
def movement_i_die(st, wk, g, p):
    """Movement I: the second die of player p's active move (rolled after the first), whose
    direction it may use instead; -1 (no die rolled) without the gene."""
    if has(st, g, p, MOVEMENT_I):
        return roll_die(st, wk, g)
    return -1
