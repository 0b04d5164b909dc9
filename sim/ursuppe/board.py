"""Board geometry (spec §2): directions, compass faces and neighbour lookup.

The neighbour table itself is rules data (``[board].neighbours``); this module names the
direction codes the kernels use and answers "where does a step in direction d lead?" (B1).
"""

from sim.jit import kernel

# Direction codes: index into a space's neighbour row [N, E, S, W].
NORTH = 0
EAST = 1
SOUTH = 2
WEST = 3
STAY = 4  # die face 5, Movement II's "stay", a no-drift card
CHOICE = 5  # die face 6: the owner chooses one of the four directions (B2)

DIRECTION_NAMES: tuple[str, ...] = ("N", "E", "S", "W", "stay", "choice")
DIRECTION_CODE: dict[str, int] = {"N": 0, "E": 1, "S": 2, "W": 3, "stay": 4, "none": 4, "choice": 5}


@kernel
def step(neighbours, space, direction):
    """B1: the space reached by one step; an obstacle (edge or island) or STAY keeps the amoeba."""
    if direction >= STAY:
        return space
    target = neighbours[space, direction]
    if target < 0:
        return space
    return target
