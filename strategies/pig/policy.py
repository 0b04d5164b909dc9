"""Pig's one decision (PG2, PG4): roll again or hold."""

from sim.jit import kernel
from sim.random_stream import below


@kernel
def rolls_again(hold, score, total, target, key, ctr, g, s):
    """Roll again unless the turn total reaches the strategy's threshold, or banking it wins
    (PG5); the random strategy (hold 0) tosses a coin from the game's policy stream ``s``."""
    if hold == 0:
        return below(key, ctr, g, s, 2) == 1
    return total < hold and score + total < target
