"""Speed (§8 Movement): after an active move the amoeba may make a second active move, free of
BP, its direction found the same way as the first (die, 2 dice, or choice); no drifting twice, no
mixing drift and active moves; it eats once, after its last move. Persistence includes Speed's
ability (A5). An escape (A3) is an active move, so it may have its second move too.

Its rows: the decision kind ``second_move`` (0 / 1; scenario choice ``{"second_move": true}``).
Its hooks are called by movement.active_movement after the first step: :func:`speed_ability`
(does the mover have the second move at all; the flag clinging_after_first_step then lets the
Holding amoebas decide first) and :func:`second_move` (the owner's decision, scored by the
policy's valuation :func:`value` here). The second step itself stays in movement.py: it is an
active move (direction, Rebound's step, Toxic Excretions' tokens, Tentacle and Holding after it).
"""

from sim.jit import kernel
from sim.ursuppe.engine.decisions import decide, set_option
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.genes.persistence import PERSISTENCE
from sim.ursuppe.engine.players import has
from sim.ursuppe.engine.policy_port import SECOND_MOVE_THRESHOLD, food_value
from sim.ursuppe.rules.gene_rows import Decision, Gene, yes_no

GENE = Gene(
    "Speed",
    "§8",
    decisions=(Decision("second_move", "Speed", 1, "second_move", "0 / 1", *yes_no("second_move")),),
)

# The kernels' constants (numba globals): the gene and its decision kind.
SPEED, SECOND_MOVE = indices(GENE)


@kernel
def speed_ability(st, g, p):
    """Speed: do player p's amoebas have the free second move (Speed, or Persistence, which
    includes Speed's ability)?"""
    return has(st, g, p, SPEED) or has(st, g, p, PERSISTENCE)


@kernel
def value(st, ru, wk, g, b, p, a, n, prm):
    """Speed, the policy's valuation (strategies/ursuppe/policy.py) of the options (0 / 1): the
    second move when the food value of the space reached is below ``second_move_threshold``."""
    here = st.space[g, p, a] if a >= 0 else -1
    need = food_value(st, g, p, here) < prm[SECOND_MOVE_THRESHOLD] if here >= 0 else False
    for i in range(n):
        wk.scores[b, i] = 1.0 if (wk.options[b, i, 0] == 1) == need else 0.0


@kernel
def second_move(st, ru, wk, g, b, p, a):
    """Speed: does amoeba (p, a), after its first active step, make the free second move? The
    owner's decision (0 / 1)."""
    set_option(wk.options, b, 0, 0, 0, 0)
    set_option(wk.options, b, 1, 1, 0, 0)
    # The policy cannot call value (its module would import this one, which calls decide): the
    # scores are set here, and policy.choose leaves a gene module's kinds' scores as they are.
    if p != ru.dummy:
        value(st, ru, wk, g, b, p, a, 2, wk.params[st.strategy[g, p]])
    return decide(st, ru, wk, g, b, p, a, SECOND_MOVE, 2) == 1
