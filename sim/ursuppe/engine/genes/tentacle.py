"""Tentacle (§8 Movement; PX21 for 5-6 players): when an amoeba of the owner leaves its space by
drift, active move or escape, it may carry up to T cubes (the rules' tentacle_cubes: 2 with 3
players, 3 with 4) of any colours from the space where the movement starts to the space where it
ends. A movement that ends where it started carries nothing.

Its rows: the decision kind ``carry`` (cubes per colour; scenario choice ``{"carry": [...]}``),
the event ``carry`` and the tally ``tentacle:carried``. Its hook :func:`tentacle_carry` is called
by the movement once the whole movement is known (movement.finish_movement, and
active_movement's ending with the flag clinging_after_first_step), before Holding's clinging;
the options are scored by the policy's valuation :func:`value` here. The capacity T stays rules
data (tentacle_capacity), the enumeration's cube vector a slot of the shared scratch row.

With 5-6 players a carry has hundreds of options (11% of the engine's time, issue 24). When the
strategy takes the first best option by value (decisions.streamable) the vectors are streamed
through the same values in the same order instead of listed (:func:`_streamed_carry`), each value
updated from the last vector's: the same cubes carried, the same draws.
"""

import json

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.decisions import count_decision, decide, option_overflow, streamable
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.food import move_cubes
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.engine.policy_port import CARRY_FOREIGN, CARRY_MAX, CARRY_NEED, CARRY_OWN, NEVER, break_tie
from sim.ursuppe.engine.scratch import CARRY_SCRATCH
from sim.ursuppe.engine.state import FOOD_CAP, MAX_OPTIONS, OPTION_WIDTH
from sim.ursuppe.rules.gene_rows import Decision, Gene

MAX_CUBES = 15  # a scenario's carry count per colour


def _parse(value, row, players):
    """The scenario choice ``{"carry": [n per colour]}`` (one count a colour in play)."""
    ok = isinstance(value, list) and len(value) == players
    if ok and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_CUBES for v in value):
        row[:players] = value
        return row
    raise ValueError(
        f"expected a list of {players} cube counts (integers in 0..{MAX_CUBES}), got {json.dumps(value)}"
    )


def _render(row, players):
    return {"carry": [int(x) for x in row[:players]]}


GENE = Gene(
    "Tentacle",
    "§8",
    decisions=(Decision("carry", "Tentacle", 6, "carry", "cubes per colour (6 slots)", _parse, _render),),
    events=(("carry", ("from", "to", "cubes")),),
    tallies=(("tentacle:carried", "Tentacle moved cubes"),),
)

# The kernels' constants (numba globals): the gene, its decision kind, event and tally.
TENTACLE, CARRY, EV_CARRY, CARRIED = indices(GENE)
CARRY_COLOURS = 6  # the colours a carry's vector has (the engine plays up to 6, an option row holds 6)


@kernel
@always_inline
def _carry_value(prm, total, foreign, gain):
    """The policy's value of a vector of ``total`` cubes, ``foreign`` of them of other colours than
    the carrier's, that adds ``gain`` to what the new space feeds (FOOD_CAP per colour)."""
    if total > prm[CARRY_MAX]:
        return NEVER
    return prm[CARRY_FOREIGN] * foreign + prm[CARRY_OWN] * (total - foreign) + prm[CARRY_NEED] * gain


@kernel
def value(st, ru, wk, g, b, p, a, n, prm):
    """Tentacle, the policy's valuation (strategies/ursuppe/policy.py) of the options: cubes per
    colour carried to the amoeba's new space (where it is now)."""
    opts = wk.options[b]
    val = wk.scores[b]
    here = st.space[g, p, a]
    P = st.supply.shape[1]
    for i in range(n):
        o = opts[i]
        total = 0
        foreign = 0
        gain = 0
        for c in range(P):
            total += o[c]
            if c != p:
                foreign += o[c]
                gain += min(st.food[g, here, c] + o[c], 2) - min(st.food[g, here, c], 2)
        val[i] = _carry_value(prm, total, foreign, gain)


@kernel
def _streamed_carry(st, ru, wk, g, b, p, a, start):
    """tentacle_carry's cube vectors in its order, valued as :func:`value` values them, without
    listing them: returns (the number of vectors, how many share the best value) and leaves those
    best vectors, in order, packed (4 bits a colour: a count is at most 15, book.MAX_TENTACLE_CUBES)
    in ``wk.scores[b, :ties]`` for the tie-break (:func:`_unpack_carry`); MAX_OPTIONS vectors or
    more: (MAX_OPTIONS, 0), for the listing path and its error.

    The odometer (colour 0 turning fastest, each count up to the start space's cubes, the sum up
    to T) is six nested loops, colour 5 outermost (a colour not in play has no cube), each adding
    its colour's share to the sums that ``value`` computes: the cubes, the foreign ones and the
    food value they add to the new space (a foreign colour's first FOOD_CAP - cubes there). Each
    tie is kept as it is found (issue 36: a tie-break's second walk cost half a walk)."""
    P = st.supply.shape[1]
    T = ru.tentacle_cubes
    here = st.space[g, p, a]
    prm = wk.params[st.strategy[g, p]]
    row = wk.scratch[b]
    lim = CARRY_SCRATCH  # per colour: the most cubes it can give (the start space's, at most T)
    need = CARRY_SCRATCH + CARRY_COLOURS  # per colour: how many of them add food value (foreign only)
    for c in range(CARRY_COLOURS):
        row[lim + c] = min(int(st.food[g, start, c]), T) if c < P else 0
        row[need + c] = max(FOOD_CAP - int(st.food[g, here, c]), 0) if c < P and c != p else 0
    kept = wk.scores[b]
    best = 0.0
    n = 0
    ties = 0
    for x5 in range(row[lim + 5] + 1):
        t5 = x5
        f5 = x5 if p != 5 else 0
        g5 = min(x5, row[need + 5])
        k5 = x5 << 20
        for x4 in range(min(row[lim + 4], T - t5) + 1):
            t4 = t5 + x4
            f4 = f5 + (x4 if p != 4 else 0)
            g4 = g5 + min(x4, row[need + 4])
            k4 = k5 | (x4 << 16)
            for x3 in range(min(row[lim + 3], T - t4) + 1):
                t3 = t4 + x3
                f3 = f4 + (x3 if p != 3 else 0)
                g3 = g4 + min(x3, row[need + 3])
                k3 = k4 | (x3 << 12)
                for x2 in range(min(row[lim + 2], T - t3) + 1):
                    t2 = t3 + x2
                    f2 = f3 + (x2 if p != 2 else 0)
                    g2 = g3 + min(x2, row[need + 2])
                    k2 = k3 | (x2 << 8)
                    for x1 in range(min(row[lim + 1], T - t2) + 1):
                        t1 = t2 + x1
                        f1 = f2 + (x1 if p != 1 else 0)
                        g1 = g2 + min(x1, row[need + 1])
                        k1 = k2 | (x1 << 4)
                        for x0 in range(min(row[lim + 0], T - t1) + 1):
                            if n >= MAX_OPTIONS:
                                return MAX_OPTIONS, 0
                            v = _carry_value(
                                prm, t1 + x0, f1 + (x0 if p != 0 else 0), g1 + min(x0, row[need + 0])
                            )
                            if n == 0 or v > best:
                                best = v
                                kept[0] = k1 | x0
                                ties = 1
                            elif v == best:
                                kept[ties] = k1 | x0
                                ties += 1
                            n += 1
    return n, ties


@kernel
def _unpack_carry(wk, b, k):
    """Option row 0: the k-th best vector :func:`_streamed_carry` kept."""
    packed = int(wk.scores[b, k])
    best_row = wk.options[b, 0]
    for j in range(OPTION_WIDTH):  # a constant: stores, not a loop
        best_row[j] = 0
    for c in range(CARRY_COLOURS):
        best_row[c] = (packed >> (4 * c)) & 15


@kernel
def _carry(st, wk, g, b, p, a, start, end, i, phase):
    """Carry the cubes of option row i from ``start`` to ``end``."""
    P = st.supply.shape[1]
    packed = 0
    for c in range(P):
        k = wk.options[b, i, c]
        if k > 0:
            move_cubes(st, g, start, end, c, k)
            packed |= k << (4 * c)
    if packed != 0:
        wk.tally[b, CARRIED] += 1
        log(st, wk, g, EV_CARRY, phase, p, a + 1, start, end, packed, 0, 0, 0, 0)


@kernel
def tentacle_carry(st, ru, wk, g, b, p, a, start, end, phase):
    """Tentacle: with the gene (and a capacity T > 0), choose up to T cubes of any colours on
    ``start`` and carry them to ``end`` (the caller calls it for a movement that changed space)."""
    if not (has(st, g, p, TENTACLE) and ru.tentacle_cubes > 0):
        return
    P = st.supply.shape[1]
    if streamable(st, ru, wk, g, p):
        n, ties = _streamed_carry(st, ru, wk, g, b, p, a, start)
        if n < MAX_OPTIONS:
            count_decision(wk, b, CARRY, n)
            _unpack_carry(wk, b, break_tie(st, wk, g, p, ties) if n > 1 else 0)
            _carry(st, wk, g, b, p, a, start, end, 0, phase)
            return
    T = ru.tentacle_cubes
    # Odometer over cube vectors with sum <= T and each count <= the cubes on the start space,
    # colour 0 turning fastest. A digit that would push the sum over T carries at once: the
    # lower digits are 0 then, so every vector skipped that way has a sum over T too.
    n = 0
    opt = wk.scratch[b]
    base = CARRY_SCRATCH
    for c in range(P):
        opt[base + c] = 0
    total = 0
    while True:
        if option_overflow(wk, g, n):
            break
        row = wk.options[b, n]
        for j in range(OPTION_WIDTH):  # a constant: stores, not a loop
            row[j] = 0
        for c in range(P):
            row[c] = opt[base + c]
        n += 1
        # next vector
        c = 0
        while c < P:
            if total < T and opt[base + c] < st.food[g, start, c]:
                opt[base + c] += 1
                total += 1
                break
            total -= opt[base + c]
            opt[base + c] = 0
            c += 1
        if c == P:
            break
    # The policy cannot call value (its module would import this one, which calls decide): the
    # scores are set here, and policy.choose leaves a gene module's kinds' scores as they are.
    if p != ru.dummy:
        value(st, ru, wk, g, b, p, a, n, wk.params[st.strategy[g, p]])
    _carry(st, wk, g, b, p, a, start, end, decide(st, ru, wk, g, b, p, a, CARRY, n), phase)
