"""Board geometry (spec §2): directions, compass faces and neighbour lookup.

The neighbour table itself is rules data (``[board].neighbours``); this module names the
direction codes the kernels use and answers "where does a step in direction d lead?" (B1).
"""

from sim.jit import kernel
from sim.ursuppe.rules.directions import (  # noqa: F401 (the direction codes, re-exported)
    CHOICE,
    DIRECTION_CODE,
    DIRECTION_NAMES,
    EAST,
    NORTH,
    SOUTH,
    STAY,
    WEST,
)


@kernel
def step(neighbours, space, direction):
    """B1: the space reached by one step; an obstacle (edge or island) or STAY keeps the amoeba."""
    if direction >= STAY:
        return space
    target = neighbours[space, direction]
    if target < 0:
        return space
    return target
