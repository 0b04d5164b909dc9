"""The S5 rotate seating design's size, in plain Python (no kernels: the report imports it).

The kernel that seats the players is ``sim.ursuppe.engine.phases.setup._seat``.
"""

# Rotate seating cycles through all P! permutations up to this many; above it (5 and 6 players:
# 120 and 720) it uses a Williams balanced Latin square, whose block is P or 2P games.
ROTATE_ALL_PERMUTATIONS_MAX = 24


def rotate_block(players: int) -> int:
    """Games in one block of the S5 rotate design: every player sits on every start space equally
    often in each block of this many consecutive game indices (from a multiple of it).

    3-4 players: P! (every permutation once; 6 and 24 games). 5-6 players: a Williams balanced
    Latin square, P rows for even P (6 games) and the square and its mirror, 2P rows, for odd P
    (10 games): each player sits on each start space once per P rows, and each ordered pair of
    players sits on neighbouring start spaces (space s, space s+1) equally often."""
    fact = 1
    for i in range(2, players + 1):
        fact *= i
    if fact <= ROTATE_ALL_PERMUTATIONS_MAX:
        return fact
    return players if players % 2 == 0 else 2 * players
