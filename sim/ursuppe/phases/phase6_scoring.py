"""Phase 6 - scoring (K2-K3), in descending order, with leapfrog."""

from sim.jit import kernel
from sim.ursuppe.events import EV_SCORE, log
from sim.ursuppe.players import ORDER_SLOT, amoebas_on_board, turn_order, weighted_cards

PHASE = 6


@kernel
def advance(st, ru, g, p):
    """K2: amoeba table + gene table (advanced genes weigh 2, Ray Protection 0)."""
    n = amoebas_on_board(st, g, p)
    cards = weighted_cards(st, ru, g, p)
    last = ru.gene_advance.shape[0] - 1
    return ru.amoeba_advance[min(n, ru.amoeba_advance.shape[0] - 1)] + ru.gene_advance[min(cards, last)]


@kernel
def phase6(st, ru, wk, g, b):
    P = st.seat.shape[1]
    turn_order(st, wk, g, b, True)
    for k in range(P):
        p = wk.scratch[b, ORDER_SLOT + k]
        if p == ru.dummy and not ru.dummy_scores:
            continue  # TD8: its marker stays on its start space
        steps = advance(st, ru, g, p)
        start = st.score[g, p]
        pos = start
        left = steps
        while left > 0:  # K3: occupied spaces are not counted
            pos += 1
            occupied = False
            for q in range(P):
                if q != p and st.score[g, q] == pos:
                    occupied = True
            if not occupied:
                left -= 1
        st.score[g, p] = pos
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
