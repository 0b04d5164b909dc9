"""Phase 6 - scoring (K2-K3), in descending order, with leapfrog.

Double play II (TB9): one marker a player, advanced by the amoeba table of each of its colours
plus the gene table once; the second colour's copy of the marker follows."""

from sim.jit import kernel
from sim.ursuppe.engine.events import EV_SCORE, log
from sim.ursuppe.engine.genes.social_gene import (
    social_gene_holder,
    social_income_after_advance,
    social_income_before_advance,
    social_income_end_of_phase,
)
from sim.ursuppe.engine.players import (
    ORDER_SLOT,
    acts_for_player,
    amoebas_on_board,
    share_with_partner,
    sort_turn_orders,
    turn_order,
    weighted_cards,
)

PHASE = 6


@kernel
def advance(st, ru, g, p):
    """K2: amoeba table + gene table (advanced genes weigh 2, Ray Protection 0); TB9: plus the
    amoeba table of the partner colour in double play II."""
    top = ru.amoeba_advance.shape[0] - 1
    cards = weighted_cards(st, ru, g, p)
    steps = ru.amoeba_advance[min(amoebas_on_board(st, g, p), top)]
    steps += ru.gene_advance[min(cards, ru.gene_advance.shape[0] - 1)]
    q = ru.partner[p]
    if q >= 0:
        steps += ru.amoeba_advance[min(amoebas_on_board(st, g, q), top)]
    return steps


@kernel
def phase6(st, ru, wk, g, b):
    """K2-K3 in descending order; XG-10's income at the moment flag social_gene_timing names."""
    P = st.seat.shape[1]
    turn_order(st, wk, g, b, True)
    social = social_gene_holder(st, ru, g)  # XG-10: its income at the moment flag social_gene_timing names
    for k in range(P):
        p = wk.scratch[b, ORDER_SLOT + k]
        social_income_before_advance(st, ru, wk, g, b, p, social, PHASE)
        if p == ru.dummy and not ru.dummy_scores:
            continue  # TD8: its marker stays on its start space
        if not acts_for_player(ru, p):
            continue  # TB9: the partner colour's marker is the first colour's
        partner = ru.partner[p]
        steps = advance(st, ru, g, p)
        start = st.score[g, p]
        pos = start
        left = steps
        while left > 0:  # K3: occupied spaces are not counted
            pos += 1
            occupied = False
            for q in range(P):
                if q != p and q != partner and st.score[g, q] == pos:
                    occupied = True
            if not occupied:
                left -= 1
        st.score[g, p] = pos
        share_with_partner(st, ru, g, p)
        log(
            st,
            wk,
            g,
            EV_SCORE,
            PHASE,
            p,
            -1,
            start,
            pos,
            steps,
            amoebas_on_board(st, g, p),
            weighted_cards(st, ru, g, p),
            0,
            0,
        )
        social_income_after_advance(st, ru, wk, g, b, p, social, PHASE)
    social_income_end_of_phase(st, ru, wk, g, b, social, PHASE)  # XG-10: after every marker, before W1
    sort_turn_orders(st, g)  # the markers moved (K2-K3): the next phases' orders
