"""Policy kernels: how a strategy's parameter row picks one of the legal options.

``choose`` is called by the engine's ``decide`` (sim/ursuppe/decisions.py) with the legal
options already in ``wk.options[b, :n]``. With probability ``randomness`` the choice is uniform
over the options (drawn from the game's own strategy stream); otherwise every option gets a value
from the heuristics below and the first best one is taken, so the choice is deterministic.

The heuristics are deliberately simple and readable: food nearby is good, BP above the reserve
may be spent, genes are bought by their ``gene_value``, attacks go to other players' amoebas.
"""

import numpy as np
from numba import types

from sim.jit import kernel, register_argument_types
from sim.random_stream import below, next_u64
from sim.ursuppe.board import step
from sim.ursuppe.decision_kinds import (
    AGGRESS,
    ATTACK,
    BUY,
    CARRY,
    CLING,
    DIRECTION,
    DIVIDE,
    EAT,
    EAT_VICTIM_SLOT,
    MOVE,
    MOVE_ACTIVE,
    MOVE_DRIFT,
    PAY,
    PLACE_FREE,
    PLACE_SETUP,
    RESP_NONE,
    RESPOND,
    SECOND_MOVE,
)
from sim.ursuppe.state import STREAM_STRATEGY
from strategies.params import (
    ACTIVE_MOVE_MARGIN,
    ANSWER_PROPENSITY,
    ATTACK_PROPENSITY,
    BP_RESERVE,
    CROWDING_PENALTY,
    GENE_VALUE_BASE,
    MAX_AMOEBAS,
    RANDOMNESS,
)

_INV_2_53 = 1.0 / 9007199254740992.0

register_argument_types({"prm": types.Array(types.float64, 1, "C")})


@kernel
def _uniform01(st, g):
    return np.float64(next_u64(st.rng_key, st.rng_ctr, g, STREAM_STRATEGY) >> np.uint64(11)) * _INV_2_53


@kernel
def food_value(food, g, p, space):
    """How well ``space`` could feed player p's amoeba: foreign cubes there, up to 2 per colour."""
    v = 0.0
    for c in range(food.shape[2]):
        if c != p:
            v += min(food[g, space, c], 2)
    return v


@kernel
def crowding(positions, g, space, skip_p, skip_a):
    """Amoebas on ``space`` other than (skip_p, skip_a)."""
    n = 0
    for q in range(positions.shape[1]):
        for t in range(positions.shape[2]):
            if positions[g, q, t] == space and not (q == skip_p and t == skip_a):
                n += 1
    return n


@kernel
def _space_value(food, positions, g, p, space, prm, skip_a):
    return food_value(food, g, p, space) - prm[CROWDING_PENALTY] * crowding(positions, g, space, p, skip_a)


@kernel
def _bp_after(st, g, p, cost):
    return st.bp[g, p] - cost


@kernel
def choose(st, ru, wk, g, b, p, a, kind, n):
    """Index of the option player p's strategy picks among ``wk.options[b, :n]`` (``a``: the
    deciding amoeba, or -1)."""
    prm = wk.params[st.strategy[g, p]]
    r = prm[RANDOMNESS]
    if r > 0.0 and (r >= 1.0 or _uniform01(st, g) < r):
        return below(st.rng_key, st.rng_ctr, g, STREAM_STRATEGY, n)
    opts = wk.options[b]
    val = wk.scores[b]
    here = st.space[g, p, a] if a >= 0 else -1
    for i in range(n):
        o = opts[i]
        v = 0.0
        if kind == PLACE_SETUP or kind == PLACE_FREE:
            v = _space_value(st.food, st.space, g, p, o[0], prm, -1) - 0.001 * o[1]
        elif kind == DIVIDE:
            if o[0] < 0:
                v = 0.0
            else:
                on_board = 0
                for t in range(st.space.shape[2]):
                    if st.space[g, p, t] >= 0:
                        on_board += 1
                ok = on_board < prm[MAX_AMOEBAS] and st.bp[g, p] >= prm[BP_RESERVE]
                v = (
                    (1.0 + _space_value(st.food, st.space, g, p, o[0], prm, -1) - 0.001 * o[1])
                    if ok
                    else -1.0
                )
        elif kind == MOVE:
            if here < 0:
                v = 0.0
            elif o[0] == MOVE_DRIFT:
                dest = step(ru.neighbours, here, st.card_drift[g, st.deck_pos[g]])
                v = _space_value(st.food, st.space, g, p, dest, prm, a)
            elif o[0] == MOVE_ACTIVE:
                best = 0.0
                for d in range(4):
                    best += _space_value(st.food, st.space, g, p, step(ru.neighbours, here, d), prm, a)
                v = best / 4.0 - prm[ACTIVE_MOVE_MARGIN]
            else:
                v = _space_value(st.food, st.space, g, p, here, prm, a)
        elif kind == DIRECTION:
            v = (
                _space_value(st.food, st.space, g, p, step(ru.neighbours, here, o[0]), prm, a)
                if here >= 0
                else 0.0
            )
        elif kind == SECOND_MOVE:
            need = food_value(st.food, g, p, here) < 3.0 if here >= 0 else False
            v = 1.0 if (o[0] == 1) == need else 0.0
        elif kind == CARRY:
            for c in range(st.supply.shape[1]):
                if c != p:
                    v += o[c]
        elif kind == CLING:
            v = float(o[0])  # follow: the leader usually moves towards food
        elif kind == EAT:
            cubes = 0
            for c in range(st.supply.shape[1]):
                cubes += o[c]
            v = -cubes + (0.5 if o[EAT_VICTIM_SLOT] >= 0 else 0.0)
        elif kind == ATTACK:
            if o[0] < 0:
                v = 0.0
            elif o[0] == p:
                v = -1.0
            else:
                v = prm[ATTACK_PROPENSITY] + 0.01 * st.score[g, o[0]]
        elif kind == AGGRESS:
            v = 0.0 if o[0] < 0 else prm[ATTACK_PROPENSITY] + 0.01 * st.score[g, o[1]]
        elif kind == RESPOND:
            v = 0.0 if o[0] == RESP_NONE else prm[ANSWER_PROPENSITY] * (1.0 + 0.1 * o[0])
        elif kind == PAY:
            lost = 0.0
            for gene in range(st.genes.shape[2]):
                if o[0] & (1 << gene):
                    lost += ru.gene_price[gene] + prm[GENE_VALUE_BASE + gene]
            v = -(o[1] + 2.0 * lost)
        elif kind == BUY:
            if o[0] < 0:
                v = 0.0
            elif _bp_after(st, g, p, ru.gene_price[o[0]]) < prm[BP_RESERVE]:
                v = -1.0
            else:
                v = prm[GENE_VALUE_BASE + o[0]]
        val[i] = v
    best = 0
    for i in range(1, n):
        if val[i] > val[best]:
            best = i
    return best
