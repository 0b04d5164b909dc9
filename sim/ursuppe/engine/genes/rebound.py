"""Rebound (XG-16): a step of the owner's amoeba that runs into an obstacle (edge or island, B1; a
no-drift card or a die 5 is none) may go one space the opposite way instead.

The rebound space is where that step ends, so Tentacle carries to it, clingers arrive there and
Speed's second move starts there (movement.py calls :func:`step_or_rebound` for each step). Flag
rebound_applies_to says which steps may rebound (drift, the active move, Speed's second move, an
escape): the step's bit is passed as ``which``.
"""

from sim.jit import kernel
from sim.ursuppe.engine.board import STAY, step
from sim.ursuppe.engine.decisions import decide, set_option
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.engine.policy_port import is_hunter, space_value
from sim.ursuppe.rules.gene_rows import Decision, ExtraFlag, Gene, two_way

STEPS = ("drift", "active", "speed_steps", "escape")  # the steps that may rebound, a bit each
REBOUND_DRIFT, REBOUND_ACTIVE, REBOUND_SPEED_STEPS, REBOUND_ESCAPE = (1 << i for i in range(len(STEPS)))

GENE = Gene(
    "Rebound",
    "XG-16",
    flags=(ExtraFlag("rebound_applies_to", "XG-16", STEPS, STEPS),),
    decisions=(
        Decision(
            "rebound",
            "XG-16",
            1,
            "rebound",
            "0 stay / 1 rebound to the opposite space",
            *two_way("rebound", ("stay", "rebound")),
        ),
    ),
    events=(("rebound", ("from", "to")),),
    tallies=(("rebound:made", "XG-16"),),
)

# The kernels' constants (numba globals): the gene, its flag, decision kind, event and tally.
REBOUND, XF_REBOUND_APPLIES_TO, REBOUND_CHOICE, EV_REBOUND, REBOUND_MADE = indices(GENE)


@kernel
def value(st, ru, wk, g, b, p, a, n, prm):
    """XG-16, the policy's valuation (strategies/ursuppe/policy.py) of the options (0 stay / 1 rebound;
    the space it leads to, the REBOUND_* bit of the step): an escape always rebounds (staying lets
    the attack go on); otherwise the better space, staying on a tie."""
    hunter = 1 if is_hunter(st, g, p) else 0
    for i in range(n):
        o = wk.options[b, i]
        if o[2] == REBOUND_ESCAPE:
            wk.scores[b, i] = float(o[0])
        else:
            wk.scores[b, i] = space_value(st, wk, g, b, p, o[1], prm, a, hunter) + 1e-6 * (1 - o[0])


@kernel
def _rebound(st, ru, wk, g, b, p, a, here, direction, which, phase):
    """XG-16: the step of (p, a) from ``here`` in ``direction`` ran into an obstacle. With Rebound
    (and ``which`` in the flag rebound_applies_to) the owner may move it one space the opposite
    way instead; if that is an obstacle too it stays. Returns where the step ends."""
    if not (has(st, g, p, REBOUND) and (ru.xflag[XF_REBOUND_APPLIES_TO] & which)):
        return here
    back = step(ru.neighbours, here, (direction + 2) % 4)
    if back == here:
        return here  # the opposite space is an obstacle too: nothing to choose
    # (0 stay / 1 rebound; then the space it leads to and the step's bit, for the strategy)
    set_option(wk.options, b, 0, 0, here, which)
    set_option(wk.options, b, 1, 1, back, which)
    # The policy cannot call value (its module would import this one, which calls decide): the
    # scores are set here, and policy.choose leaves a gene module's kinds' scores as they are.
    if p != ru.dummy:
        value(st, ru, wk, g, b, p, a, 2, wk.params[st.strategy[g, p]])
    if decide(st, ru, wk, g, b, p, a, REBOUND_CHOICE, 2) == 0:
        return here
    wk.tally[b, REBOUND_MADE] += 1
    log(st, wk, g, EV_REBOUND, phase, p, a + 1, here, back, 0, 0, 0, 0, 0)
    return back


@kernel
def step_or_rebound(st, ru, wk, g, b, p, a, here, direction, which, phase):
    """B1 with XG-16: the space one step of (p, a) from ``here`` in ``direction`` leads to: an
    obstacle keeps it, unless it rebounds (_rebound; ``which``: the REBOUND_* bit of the step)."""
    there = step(ru.neighbours, here, direction)
    if there == here and direction < STAY and ru.extra_genes:
        there = _rebound(st, ru, wk, g, b, p, a, here, direction, which, phase)
    return there
