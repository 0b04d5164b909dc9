"""Double play II's order of colours (TB2, TB4): which colour of a player moves first.

In double play II (``--players 2 --variant double2``) each player has two colours, one score
marker, one BP stock and one gene set (TB3; players.share_with_partner keeps the second colour's
copies equal to the first's). Phase 1 does not go by ascending markers over colours but
(TB4): (1) the second-ranked player, one of its colours (its choice); (2) the leader, its first
colour (its choice: flag double2_colour_order = "choice"; "fixed" = the lower colour); (3) the
leader, its other colour; (4) the second-ranked player, its other colour. The initial
placements (TB2, PLACEHOLDER) go in that order for the first amoebas and in reverse for the
second ones.
"""

from sim.jit import kernel
from sim.ursuppe.engine.decision_kinds import COLOUR
from sim.ursuppe.engine.decisions import decide, set_option
from sim.ursuppe.engine.players import ORDER_SLOT


@kernel
def first_colour(st, ru, wk, g, b, p):
    """TB4: which colour of the player whose first colour is ``p`` moves first: its choice (a
    COLOUR decision) with flag double2_colour_order = "choice", else ``p``."""
    if not ru.colour_choice:
        return p
    set_option(wk.options, b, 0, p, 0, 0)
    set_option(wk.options, b, 1, ru.partner[p], 0, 0)
    return wk.options[b, decide(st, ru, wk, g, b, p, -1, COLOUR, 2), 0]


@kernel
def colour_order(st, ru, wk, g, b):
    """TB4: write the four colours in Phase-1 order into scratch[b, ORDER_SLOT:ORDER_SLOT + 4]."""
    behind = 0  # the first colours of the two players are 0 and 2 (rules.VARIANT_PLAYER_OF)
    leader = 2
    if st.score[g, 2] < st.score[g, 0]:
        behind = 2
        leader = 0
    x = first_colour(st, ru, wk, g, b, behind)
    y = first_colour(st, ru, wk, g, b, leader)
    order = wk.scratch[b]
    order[ORDER_SLOT] = x
    order[ORDER_SLOT + 1] = y
    order[ORDER_SLOT + 2] = ru.partner[y]
    order[ORDER_SLOT + 3] = ru.partner[x]
