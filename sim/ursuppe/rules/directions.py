"""Direction codes of the board (spec §2, B1-B2), without kernels: the rules loader reads them
and must not load the compiled engine (``soup rules`` answers without it)."""

# Direction codes: index into a space's neighbour row [N, E, S, W].
NORTH = 0
EAST = 1
SOUTH = 2
WEST = 3
STAY = 4  # die face 5, Movement II's "stay", a no-drift card
CHOICE = 5  # die face 6: the owner chooses one of the four directions (B2)

DIRECTION_NAMES: tuple[str, ...] = ("N", "E", "S", "W", "stay", "choice")
DIRECTION_CODE: dict[str, int] = {"N": 0, "E": 1, "S": 2, "W": 3, "stay": 4, "none": 4, "choice": 5}
