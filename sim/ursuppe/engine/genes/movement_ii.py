"""Movement II (§8 Movement; advanced, gives up Movement I): an active move (an escape too) needs
no roll: the owner chooses a direction or to stay. Still 1 BP (0 with Streamlining). A gene
without rows: the direction decision (``direction``, B2 6) is the core rules'; Movement II only
says which directions it offers.

Its hook :func:`movement_ii_directions` gives those directions where movement._choose_direction
finds an active move's direction. The strategies read :data:`MOVEMENT_II` to value an active
move by its best destination (policy._active_value, the valuation of the shared M1 decision).
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.rules.gene_rows import Gene

GENE = Gene("Movement II", "§8", advanced=True)

# The kernels' constant (a numba global): the gene.
(MOVEMENT_II,) = indices(GENE)
EVERY_DIRECTION = 0b11111  # bit d: direction d (board: N, E, S, W, then STAY)


@kernel
@always_inline
def movement_ii_directions(st, g, p):
    """Movement II: the directions player p's active move may take without a roll, a bit each
    (the four and staying); 0 without the gene (the dice decide)."""
    if has(st, g, p, MOVEMENT_II):
        return EVERY_DIRECTION
    return 0
