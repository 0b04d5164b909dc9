"""A fork of a Chromosome game at a decision point (issue 33: no peeking; docs/decisions.md).

:func:`fork_game` runs when the tape's choice at ``Workspace.fork_at`` is taken: every random
stream is keyed by the fork's key alone from its current counter on (future dice, the strategies'
draws; random_stream.refork) and the event cards not yet revealed (V2) are dealt again, sorted
first so that their true order stays hidden. Every draw before the fork is the original game's.
"""

from sim.chromosome.engine.state import STREAM_SETUP
from sim.jit import kernel
from sim.random_stream import below, refork


@kernel
def fork_game(cs, cr, cw, g):
    """Game g forks here: fresh keys (Workspace.fork_key), then the unrevealed event cards dealt again."""
    refork(cs.rng_key, g, cw.fork_key[g])
    lo = cs.deck_pos[g]
    hi = cs.deck_len[g]
    for i in range(lo + 1, hi):  # insertion sort: the order left depends on the cards, not the deal
        j = i
        while j > lo and cs.deck[g, j - 1] > cs.deck[g, j]:
            cs.deck[g, j - 1], cs.deck[g, j] = cs.deck[g, j], cs.deck[g, j - 1]
            j -= 1
    for i in range(hi - 1, lo, -1):
        j = lo + below(cs.rng_key, cs.rng_ctr, g, STREAM_SETUP, i - lo + 1)
        cs.deck[g, i], cs.deck[g, j] = cs.deck[g, j], cs.deck[g, i]
