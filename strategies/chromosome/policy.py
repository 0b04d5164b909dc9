"""The policy kernel: a strategy's choice among a decision's legal options (spec §11).

:func:`choose` is called by sim.chromosome.engine.decisions.decide when no forced choice applies:
with probability ``randomness`` it draws uniformly, else it scores every option with the kind's
valuation and takes the best (the first among equals). Kinds without a valuation of their own yet
score every option 0 (the first option is taken).
"""

import numpy as np

from sim.chromosome.engine.decision_kinds import REROLL
from sim.chromosome.engine.state import (
    CTX_FACE,
    CTX_OPPONENT,
    CTX_PURPOSE,
    CTX_ROLLER,
    ROLL_ATTACK,
    ROLL_DEFENCE,
    STREAM_STRATEGY,
)
from sim.jit import kernel
from sim.random_stream import below, next_u64
from strategies.chromosome.params import RANDOMNESS, REROLL_AGAINST_AT_LEAST, REROLL_OWN_AT_MOST

_INV_2_53 = 1.0 / float(1 << 53)


@kernel
def _uniform01(cs, g):
    """A uniform float in [0, 1) from the strategy's stream (53 bits)."""
    return np.float64(next_u64(cs.rng_key, cs.rng_ctr, g, STREAM_STRATEGY) >> np.uint64(11)) * _INV_2_53


@kernel
def _value_reroll(cs, cw, g, b, p, prm):
    """Q14 (D3): reroll an own roll that is low, and a combat opponent's roll that is high."""
    face = cw.context[b, CTX_FACE]
    roller = cw.context[b, CTX_ROLLER]
    purpose = cw.context[b, CTX_PURPOSE]
    want = 0.0
    if roller == p:
        want = 1.0 if face <= prm[REROLL_OWN_AT_MOST] else 0.0
    elif (purpose == ROLL_ATTACK or purpose == ROLL_DEFENCE) and cw.context[b, CTX_OPPONENT] == p:
        want = 1.0 if face >= prm[REROLL_AGAINST_AT_LEAST] else 0.0
    cw.scores[b, 0] = 1.0 - want  # option 0: keep
    cw.scores[b, 1] = want  # option 1: reroll


@kernel
def choose(cs, cr, cw, g, b, p, kind, n):
    """The index of the option strategy ``cs.strategy[g, p]`` picks among ``n``."""
    prm = cw.params[cs.strategy[g, p]]
    r = prm[RANDOMNESS]
    if r > 0.0 and (r >= 1.0 or _uniform01(cs, g) < r):
        return below(cs.rng_key, cs.rng_ctr, g, STREAM_STRATEGY, n)
    for i in range(n):
        cw.scores[b, i] = 0.0
    if kind == REROLL:
        _value_reroll(cs, cw, g, b, p, prm)
    best = 0
    for i in range(1, n):
        if cw.scores[b, i] > cw.scores[b, best]:
            best = i
    return best
