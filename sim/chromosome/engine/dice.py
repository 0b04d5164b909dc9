"""The special die and the reroll windows (spec §10, D1-D4).

Every roll (combat F4/F5, resistance tests X3, the random Evolution A6) goes through :func:`roll`:
a face 1..die_sides from the scenario's forced dice or the game's dice stream, then D3's window:
every player not eliminated with fate is asked in turn (flag reroll_order: the roller first, or
from the roller's left with the roller last); the first who spends 1 fate forces a reroll, the
new face replaces the old, and the window starts again from the first player asked. The roll
stands when every player asked in one pass declines.
"""

from sim.chromosome.engine import flags as FL
from sim.chromosome.engine.decision_kinds import REROLL
from sim.chromosome.engine.decisions import decide, fail, set_option
from sim.chromosome.engine.events import EV_REROLL, EV_ROLL, log
from sim.chromosome.engine.state import (
    CTX_FACE,
    CTX_OPPONENT,
    CTX_PURPOSE,
    CTX_ROLLER,
    ERR_MISSING_DIE,
    N_DIE_SIDES,
    STREAM_DICE,
)
from sim.jit import kernel
from sim.random_stream import below

ROLLER_LAST = 1  # flag reroll_order's second reading


@kernel
def draw(cs, cr, cw, g):
    """D1: one face, from the forced dice while there are any (running out is an error), else
    from the game's dice stream."""
    if cw.dice_len[g] >= 0:
        k = cw.dice_pos[g]
        if k >= cw.dice_len[g]:
            fail(cw, g, ERR_MISSING_DIE, k, 0, -1)
            return 1
        cw.dice_pos[g] = k + 1
        return cw.dice[g, k]
    return below(cs.rng_key, cs.rng_ctr, g, STREAM_DICE, cr.numbers[N_DIE_SIDES]) + 1


@kernel
def roll(cs, cr, cw, g, b, roller, purpose, opponent):
    """D1, D3: the final face of ``roller``'s roll for ``purpose`` (ROLL_*; ``opponent``: the
    other side of a combat, else -1), after every reroll window."""
    P = cs.fate.shape[1]
    face = draw(cs, cr, cw, g)
    log(cs, cw, g, EV_ROLL, roller, purpose, face, opponent, 0, 0, 0, 0)
    last = cr.flag[FL.REROLL_ORDER] == ROLLER_LAST
    while cw.error[g, 0] == 0:
        rerolled = False
        for i in range(P):
            q = (roller + i + 1) % P if last else (roller + i) % P
            if cs.eliminated[g, q] != 0 or cs.fate[g, q] < 1:
                continue
            cw.context[b, CTX_PURPOSE] = purpose
            cw.context[b, CTX_ROLLER] = roller
            cw.context[b, CTX_OPPONENT] = opponent
            cw.context[b, CTX_FACE] = face
            set_option(cw, b, 0, 0, 0, 0, 0, 0)
            set_option(cw, b, 1, 1, 0, 0, 0, 0)
            if decide(cs, cr, cw, g, b, q, REROLL, 2) == 1:
                cs.fate[g, q] -= 1  # D4: spent fate is gone
                face = draw(cs, cr, cw, g)
                log(cs, cw, g, EV_REROLL, q, roller, face, 0, 0, 0, 0, 0)
                rerolled = True
                break
        if not rerolled:
            break
    return face
