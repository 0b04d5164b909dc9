"""Fast Food (XG-07): at each of its amoebas' turns in Phase 1 the owner may let it feed first, on
its starting space, and move afterwards (if it is still on the board).

The choice is the decision kind ``fast_food`` (scenario choice ``{"order": "move_first" |
"eat_first"}``), logged as the event ``order``; an amoeba that eats first counts in the tally
``fast_food:eat_first``. Its hook :func:`fast_food_eats_first` is called by
phases/phase1_movement_feeding.py ``amoeba_turn``, which then feeds and moves in the order chosen
(the feeding and movement kernels are the phase's). The policy's valuation is :func:`value`.
"""

from sim.jit import kernel
from sim.ursuppe.engine.board import step
from sim.ursuppe.engine.decisions import decide, set_option
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.engine.policy_port import is_hunter, space_value
from sim.ursuppe.rules.gene_rows import Decision, Gene, two_way

ORDERS = ("move_first", "eat_first")  # the scenario choice's words, row[0] = 0 / 1


def _render(row: list[int]) -> dict[str, str]:
    """The scenario choice that selects an option row: {"order": "move_first" | "eat_first"}."""
    return {"order": ORDERS[row[0]]}


GENE = Gene(
    "Fast Food",
    "XG-07",
    decisions=(
        Decision(
            "fast_food",
            "XG-07",
            1,
            "order",
            "0 move then eat / 1 eat then move",
            two_way("order", ORDERS)[0],
            _render,
        ),
    ),
    events=(("order", ("eat_first",)),),
    tallies=(("fast_food:eat_first", "XG-07"),),
)

# The kernels' constants (numba globals): the gene, its decision kind, event and tally.
FAST_FOOD, FAST_FOOD_ORDER, EV_ORDER, FAST_FOOD_EAT_FIRST = indices(GENE)


@kernel
def value(st, ru, wk, g, b, p, a, n, prm):
    """XG-07, the policy's valuation (strategies/ursuppe/policy.py) of the options (0 move then
    eat / 1 eat then move). Eat first when the amoeba's space is worth at least as much as where
    its drift leads (the food here is sure; the amoebas still to move may eat it), else move
    first."""
    here = st.space[g, p, a]
    hunter = 1 if is_hunter(st, g, p) else 0
    dest = step(ru.neighbours, here, st.card_drift[g, st.deck_pos[g]])
    here_value = space_value(st, wk, g, b, p, here, prm, a, hunter)
    first = here_value >= space_value(st, wk, g, b, p, dest, prm, a, hunter)
    for i in range(n):
        wk.scores[b, i] = 1.0 if (wk.options[b, i, 0] == 1) == first else 0.0


@kernel
def fast_food_eats_first(st, ru, wk, g, b, p, a, phase):
    """XG-07, the amoeba turn's hook (M1-M4): with Fast Food the owner chooses whether amoeba
    (p, a) feeds before it moves (the event order; the tally when it does). True: feed first."""
    if not (ru.extra_genes and has(st, g, p, FAST_FOOD)):
        return False
    set_option(wk.options, b, 0, 0, 0, 0)
    set_option(wk.options, b, 1, 1, 0, 0)
    # The policy cannot call value (its module would import this one, which calls decide): the
    # scores are set here, and policy.choose leaves a gene module's kinds' scores as they are.
    if p != ru.dummy:
        value(st, ru, wk, g, b, p, a, 2, wk.params[st.strategy[g, p]])
    eat_first = decide(st, ru, wk, g, b, p, a, FAST_FOOD_ORDER, 2)
    log(st, wk, g, EV_ORDER, phase, p, a + 1, eat_first, 0, 0, 0, 0, 0, 0)
    if eat_first == 1:
        wk.tally[b, FAST_FOOD_EAT_FIRST] += 1
        return True
    return False
