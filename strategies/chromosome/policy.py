"""The policy kernel: a strategy's choice among a decision's legal options (spec §11).

:func:`choose` is called by sim.chromosome.engine.decisions.decide when no forced choice applies:
with probability ``randomness`` it draws uniformly, else it values every option as the expected
change of the player's score (E4), weighed by the strategy's numbers (params.py), and takes the
best (the first among equals). The valuations read the engine's rule functions (costs,
radiation, population), never re-derive a rule.
"""

import numpy as np

from sim.chromosome.engine import decision_kinds as K
from sim.chromosome.engine import effects as E
from sim.chromosome.engine.costs import evolution_price, spark_distance, trophy_energy
from sim.chromosome.engine.population import adjacent, enemy, groups_adjacent, sterility
from sim.chromosome.engine.radiation import cubes_placed, near_area
from sim.chromosome.engine.state import (
    CTX_FACE,
    CTX_OPPONENT,
    CTX_PURPOSE,
    CTX_ROLLER,
    N_DIE_SIDES,
    N_EVOLUTION_RANDOM,
    N_FATE_RESTORE,
    N_IMPULSE_CUBES,
    N_RED_STRENGTH,
    NO_OWNER,
    ROLL_ATTACK,
    ROLL_DEFENCE,
    STREAM_STRATEGY,
)
from sim.jit import kernel
from sim.random_stream import below, next_u64
from strategies.chromosome.params import (
    AGGRESSION,
    CAUTION,
    CHARGE_VALUE,
    FATE_VALUE,
    GENE_VALUE,
    IRRADIATION_COST,
    PASS_VALUE,
    RANDOMNESS,
    REROLL_AGAINST_AT_LEAST,
    REROLL_OWN_AT_MOST,
    TOKEN_VALUE,
    TROPHY_VALUE,
)

_INV_2_53 = 1.0 / float(1 << 53)
RED, BLACK = 2, 3


@kernel
def _uniform01(cs, g):
    """A uniform float in [0, 1) from the strategy's stream (53 bits)."""
    return np.float64(next_u64(cs.rng_key, cs.rng_ctr, g, STREAM_STRATEGY) >> np.uint64(11)) * _INV_2_53


@kernel
def _exposure(cs, cr, g, room):
    """The radiation a group in ``room`` stands next to: the strengths of the areas adjacent."""
    e = 0
    for a in range(cs.cubes.shape[1]):
        if cs.cubes[g, a] > 0 and near_area(cr, room, a):
            e += cs.cubes[g, a]
    return e


@kernel
def _spark_gain(cs, cr, g, p, a, d, prm):
    """A8-F9: the expected tokens won (as trophies, +) or lost (-) by p's group in ``a`` attacking
    ``d``, both sides boosting with their active R genes, over the die's faces."""
    q = cs.owner[g, d]
    red = cr.numbers[N_RED_STRENGTH]
    s = cs.size[g, a] - cs.size[g, d] + (cs.active_genes[g, p, RED] - cs.active_genes[g, q, RED]) * red
    sides = cr.numbers[N_DIE_SIDES]
    total = 0.0
    for x in range(1, sides + 1):
        for y in range(1, sides + 1):
            diff = s + x - y
            if diff > 0:
                total += min(diff, cs.size[g, d]) * (prm[TROPHY_VALUE] + 0.5)
            elif diff < 0:
                total -= min(-diff, cs.size[g, a]) * prm[TOKEN_VALUE]
            else:
                total += prm[TROPHY_VALUE] - prm[TOKEN_VALUE]
    return total / (sides * sides)


@kernel
def _charge_gain(cs, cr, g, p, area, strength):
    """A11/A12: own discharged tokens an area of ``strength`` on ``area`` would charge."""
    n = 0
    for r in range(cs.owner.shape[1]):
        if (
            cs.owner[g, r] == p
            and cs.charged[g, r] == 0
            and cs.size[g, r] <= strength
            and near_area(cr, r, area)
        ):
            n += cs.size[g, r]
    return n


@kernel
def _value_special(cs, cr, cw, g, b, p, i, prm):
    """Q17: a special action's expected change of p's score (§7), its genes and energy counted
    as for the main actions."""
    s = cs.species[g, p]
    k = cw.options[b, i, 1]
    a = cw.options[b, i, 2]
    x = cw.options[b, i, 3]
    eff = cr.special_effect[s, k]
    c = cr.special_cost[s, k]
    param = cr.special_param[s, k]
    v = -(c[5] + 0.0) * prm[CHARGE_VALUE] - 0.05 * (c[0] + c[1] + c[2] + c[3] + c[4])
    if eff == E.SUPERGEN:
        v += prm[GENE_VALUE] * 0.3 + 0.8  # the gene back, and one more action
    elif eff == E.EXCHANGE:
        v += 0.3 * prm[CAUTION] * min(cs.irradiation[g, p], 4) / 4.0 if x == BLACK else -0.05
    elif eff == E.TAKEOVER:
        v += cs.size[g, a] * (prm[TOKEN_VALUE] + prm[TROPHY_VALUE]) * 0.8 + 0.2 * prm[AGGRESSION]
    elif eff == E.GAIN_PASSIVE_GENE:
        v += prm[GENE_VALUE] * 0.7
    elif eff == E.BOND_ATTACK or eff == E.DOMINATION_ATTACK:
        v += prm[AGGRESSION] * _spark_gain(cs, cr, g, p, a, x, prm)
        if eff == E.BOND_ATTACK:  # FE1's bonus; added a group at a time (the same floats as before)
            for _ in range(groups_adjacent(cs, cr, g, p, x)):
                v += 0.5 * prm[AGGRESSION]
        else:
            v -= c[6] * (spark_distance(cs, cr, g, a, x) - 1) * prm[CHARGE_VALUE]
    elif eff == E.FUSION:
        rx = cs.owner[g, a]
        ry = cs.owner[g, x]
        grow = min(3 - cs.size[g, a], cs.size[g, x])
        if rx == p:
            v += grow * prm[TOKEN_VALUE]
        if ry == p:
            v -= cs.size[g, x] * prm[TOKEN_VALUE]
        elif ry != rx:
            v += 0.3 * cs.size[g, x] * prm[AGGRESSION]
    elif eff == E.DESTROY:
        v += 0.3 * min(param, cs.size[g, a]) * prm[AGGRESSION]
    elif eff == E.CONCENTRATION:
        # the cubes the engine places (A11: fewer from a short pool under impulse_partial)
        strength = cs.cubes[g, a] + cubes_placed(cs, cr, g, param)
        v += _charge_gain(cs, cr, g, p, a, strength) * prm[CHARGE_VALUE]
        for r in range(cs.owner.shape[1]):
            if cs.owner[g, r] != NO_OWNER and near_area(cr, r, a):
                v += (-1.0 if cs.owner[g, r] == p else 0.4) * 0.25 * prm[CAUTION] * prm[IRRADIATION_COST]
    elif eff == E.IRRADIATE_ALL:
        others = 0
        for q in range(cs.supply.shape[1]):
            if q != p and cs.eliminated[g, q] == 0:
                others += 1
        v += param * (0.3 * others * prm[AGGRESSION] - prm[IRRADIATION_COST])
    elif eff == E.CHARGE_ADJACENT:
        for r in range(cs.owner.shape[1]):
            if cs.owner[g, r] == p and cs.charged[g, r] == 0 and _exposure(cs, cr, g, r) >= cs.size[g, r]:
                v += cs.size[g, r] * prm[CHARGE_VALUE]
    elif eff == E.WAVE:
        strength = cs.cubes[g, a]
        for r in range(cs.owner.shape[1]):
            q = cs.owner[g, r]
            if q != NO_OWNER:
                w = (-1.0 if q == p else 0.5) * 0.15 * strength * prm[IRRADIATION_COST]
                if near_area(cr, r, x):
                    v += w
                if near_area(cr, r, a):
                    v -= w
    elif eff == E.TELEPORT:
        q = cs.owner[g, a]
        away = _exposure(cs, cr, g, a) - _exposure(cs, cr, g, x)
        v += (1.0 if q == p else -0.5) * 0.15 * prm[CAUTION] * away - 0.1
    elif eff == E.HOTBED:
        v += 0.1
    elif eff == E.GIANT:
        v += param * prm[TOKEN_VALUE] - 0.1 * prm[CAUTION] * _exposure(cs, cr, g, a)
    elif eff == E.EXTRA_MOVE:
        v += 0.2
    return v


@kernel
def _value_action(cs, cr, cw, g, b, p, n, prm):
    """Q6, Q9-Q12: each action's expected change of p's score."""
    for i in range(n):
        act = cw.options[b, i, 0]
        x = cw.options[b, i, 1]
        y = cw.options[b, i, 2]
        v = 0.0
        if act == K.ACT_PASS:
            v = prm[PASS_VALUE]
        elif act == K.ACT_GROWTH_GROUP:
            v = x * prm[TOKEN_VALUE] - 0.1 * prm[CAUTION] * _exposure(cs, cr, g, y)
        elif act == K.ACT_GROWTH_ROOMS:
            v = x * (prm[TOKEN_VALUE] - 0.05)
        elif act == K.ACT_EVOLUTION:
            v = prm[GENE_VALUE] - evolution_price(cs, cr, g, p, x) * prm[CHARGE_VALUE]
            if x == BLACK:
                v += 0.3 * prm[CAUTION] * min(cs.irradiation[g, p], 4) / 4.0
        elif act == K.ACT_EVOLUTION_RANDOM:
            v = prm[GENE_VALUE] - cr.numbers[N_EVOLUTION_RANDOM] * prm[CHARGE_VALUE] - 0.1
        elif act == K.ACT_SPARK:
            cost = spark_distance(cs, cr, g, x, y) - 1
            v = prm[AGGRESSION] * _spark_gain(cs, cr, g, p, x, y, prm) - cost * prm[CHARGE_VALUE]
        elif act == K.ACT_IMPULSE_PLACE:
            strength = cs.cubes[g, x] + cubes_placed(cs, cr, g, cr.numbers[N_IMPULSE_CUBES])
            v = _charge_gain(cs, cr, g, p, x, strength) * prm[CHARGE_VALUE]
            for r in range(cs.owner.shape[1]):  # the threat to the groups next to it, own and others'
                if cs.owner[g, r] != NO_OWNER and near_area(cr, r, x):
                    v += (-1.0 if cs.owner[g, r] == p else 0.4) * 0.25 * prm[CAUTION] * prm[IRRADIATION_COST]
        elif act == K.ACT_IMPULSE_DRAW:
            v = _charge_gain(cs, cr, g, p, x, cs.cubes[g, x]) * prm[CHARGE_VALUE] + 0.1 * prm[CAUTION]
        elif act == K.ACT_SPECIAL:
            v = _value_special(cs, cr, cw, g, b, p, i, prm)
        cw.scores[b, i] = v


@kernel
def _value_move(cs, cr, cw, g, b, p, n, prm):
    """Q3: away from radiation, towards a weaker enemy group (aggression), merging to grow."""
    for i in range(n):
        src = cw.options[b, i, 0]
        dst = cw.options[b, i, 1]
        k = cw.options[b, i, 2]
        v = 0.15 * prm[CAUTION] * (_exposure(cs, cr, g, src) - _exposure(cs, cr, g, dst)) * k / 3.0
        for r in range(cs.owner.shape[1]):
            if enemy(cs, g, p, r) and adjacent(cr, dst, r) and cs.size[g, r] < k:
                v += 0.1 * prm[AGGRESSION]
        if cs.owner[g, dst] == p:
            v += 0.05
        cw.scores[b, i] = v - 0.02


@kernel
def _value_step(cs, cr, cw, g, b, p, n, prm):
    """Q2: act first; restore fate when the energy is cheap; shed irradiation with black genes."""
    for i in range(n):
        step = cw.options[b, i, 0]
        v = 0.0
        if step == K.STEP_ACTION:
            v = 1.0
        elif step == K.STEP_MOVE:
            v = 0.5
        elif step == K.STEP_RESTORE:
            v = prm[FATE_VALUE] - cr.numbers[N_FATE_RESTORE] * prm[CHARGE_VALUE] * 1.5
        elif step == K.STEP_DISCARD:
            if cs.active_genes[g, p, BLACK] > 0:
                v = 0.8 if cs.irradiation[g, p] >= 3 else -1.0
            else:  # only the fate (K2): worth it when 2 levels of irradiation cost more than a fate
                worth = min(2, cs.irradiation[g, p]) * prm[IRRADIATION_COST] > prm[FATE_VALUE]
                v = 0.8 if worth else -1.0
        cw.scores[b, i] = v


@kernel
def _value_pay_energy(cs, cr, cw, g, b, p, n, prm):
    """Q8: the payment that gives up least: charged tokens, then trophies (they score)."""
    for i in range(n):
        mask = cw.options[b, i, 0]
        packed = cw.options[b, i, 1]
        cost = 0.0
        for r in range(cs.owner.shape[1]):
            if (mask >> r) & 1:
                cost += cs.size[g, r] * prm[CHARGE_VALUE]
        for q in range(cs.trophies.shape[2]):
            cost += ((packed >> (4 * q)) & 15) * (prm[TROPHY_VALUE] + trophy_energy(cs, cr, g) * 0.1)
        cw.scores[b, i] = -cost


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
def _value_simple(cs, cr, cw, g, b, p, kind, n, prm):
    """The smaller decisions: boosts (R genes always, fate rarely), the fate as a gene (kept),
    '?' genes (the most plentiful colour), black discards (as far as irradiation goes down),
    start and growth rooms (next to free sterility-1 rooms, away from radiation), token
    removals (from the smallest group), the order of equal areas (as listed)."""
    for i in range(n):
        x = cw.options[b, i, 0]
        y = cw.options[b, i, 1]
        v = 0.0
        if kind == K.BOOST:
            v = x - y * (prm[FATE_VALUE] - 0.3 * prm[AGGRESSION])
        elif kind == K.FATE_GENE:
            v = 0.0 if x < 0 else -prm[FATE_VALUE]
        elif kind == K.ANY_GENE:
            v = cs.active_genes[g, p, x] - (0.5 if x == BLACK else 0.0)
        elif kind == K.DISCARD_BLACK:  # x B genes and y = 1: the fate too (K2)
            v = min(2 * (x + y), cs.irradiation[g, p]) * prm[IRRADIATION_COST] - x * prm[GENE_VALUE] * 1.2
            v -= y * prm[FATE_VALUE]
        elif kind == K.START_ROOM or kind == K.GROWTH_ROOM:
            for s in range(cr.degree[x]):
                r = cr.neighbours[x, s]
                if cs.owner[g, r] == NO_OWNER and cs.removed[g, r] == 0 and sterility(cs, cr, g, r) == 1:
                    v += 0.1
            v -= 0.1 * prm[CAUTION] * _exposure(cs, cr, g, x)
        elif kind == K.REMOVE:
            v = -cs.size[g, x]
        cw.scores[b, i] = v


@kernel
def choose(cs, cr, cw, g, b, p, kind, n):
    """The index of the option strategy ``cs.strategy[g, p]`` picks among ``n``."""
    prm = cw.params[cs.strategy[g, p]]
    r = prm[RANDOMNESS]
    if r > 0.0 and (r >= 1.0 or _uniform01(cs, g) < r):
        return below(cs.rng_key, cs.rng_ctr, g, STREAM_STRATEGY, n)
    if kind == K.ACTION:
        _value_action(cs, cr, cw, g, b, p, n, prm)
    elif kind == K.MOVE:
        _value_move(cs, cr, cw, g, b, p, n, prm)
    elif kind == K.STEP:
        _value_step(cs, cr, cw, g, b, p, n, prm)
    elif kind == K.PAY_ENERGY:
        _value_pay_energy(cs, cr, cw, g, b, p, n, prm)
    elif kind == K.REROLL:
        _value_reroll(cs, cw, g, b, p, prm)
    else:
        _value_simple(cs, cr, cw, g, b, p, kind, n, prm)
    best = 0
    for i in range(1, n):
        if cw.scores[b, i] > cw.scores[b, best]:
            best = i
    return best
