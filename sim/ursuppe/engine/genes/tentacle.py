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
"""

import json

from sim.jit import kernel
from sim.ursuppe.engine.decision_kinds import KIND_INDEX
from sim.ursuppe.engine.decisions import decide, option_overflow
from sim.ursuppe.engine.events import EVENT_INDEX, log
from sim.ursuppe.engine.food import move_cubes
from sim.ursuppe.engine.players import has
from sim.ursuppe.engine.scratch import CARRY_SCRATCH
from sim.ursuppe.engine.state import OPTION_WIDTH
from sim.ursuppe.engine.tally import TALLY_INDEX
from sim.ursuppe.rules.gene_rows import Decision, Gene
from sim.ursuppe.rules.genes import GENE_INDEX
from strategies.ursuppe.params import CARRY_FOREIGN, CARRY_MAX, CARRY_NEED, CARRY_OWN
from strategies.ursuppe.policy import NEVER

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
TENTACLE = GENE_INDEX[GENE.name]
CARRY = KIND_INDEX["carry"]
EV_CARRY = EVENT_INDEX["carry"]
CARRIED = TALLY_INDEX["tentacle:carried"]


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
        if total > prm[CARRY_MAX]:
            val[i] = NEVER
        else:
            val[i] = (
                prm[CARRY_FOREIGN] * foreign + prm[CARRY_OWN] * (total - foreign) + prm[CARRY_NEED] * gain
            )


@kernel
def tentacle_carry(st, ru, wk, g, b, p, a, start, end, phase):
    """Tentacle: with the gene (and a capacity T > 0), choose up to T cubes of any colours on
    ``start`` and carry them to ``end`` (the caller calls it for a movement that changed space)."""
    if not (has(st, g, p, TENTACLE) and ru.tentacle_cubes > 0):
        return
    P = st.supply.shape[1]
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
    i = decide(st, ru, wk, g, b, p, a, CARRY, n)
    packed = 0
    for c in range(P):
        k = wk.options[b, i, c]
        if k > 0:
            move_cubes(st, g, start, end, c, k)
            packed |= k << (4 * c)
    if packed != 0:
        wk.tally[b, CARRIED] += 1
        log(st, wk, g, EV_CARRY, phase, p, a + 1, start, end, packed, 0, 0, 0, 0)
