"""Phase 6 - scoring (K2-K3), in descending order, with leapfrog.

Double play II (TB9): one marker a player, advanced by the amoeba table of each of its colours
plus the gene table once; the second colour's copy of the marker follows."""

from sim.jit import kernel
from sim.ursuppe.engine import tally
from sim.ursuppe.engine.events import EV_SCORE, log
from sim.ursuppe.engine.genes.energy_conservation import EV_GENE_INCOME  # XG-10 shares XG-21's event
from sim.ursuppe.engine.players import (
    ORDER_SLOT,
    acts_for_player,
    add_bp,
    amoebas_on_board,
    gene_holder,
    share_with_partner,
    turn_order,
    weighted_cards,
)
from sim.ursuppe.rules.extra_flags import (
    SOCIAL_AFTER_ADVANCE,
    SOCIAL_BEFORE_ADVANCE,
    SOCIAL_END_OF_PHASE6,
    XF_SOCIAL_GENE_GAP,
    XF_SOCIAL_GENE_TIMING,
)
from sim.ursuppe.rules.genes import SOCIAL_GENE

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
def social_income(st, ru, wk, g, b, p):
    """XG-10 effect A: the Social Gene's owner p receives 1 BP for each opponent whose marker is
    ``social_gene_gap`` (6) or more spaces ahead of its own (the plain difference of positions)."""
    gap = ru.xflag[XF_SOCIAL_GENE_GAP]
    bp = 0
    for q in range(st.score.shape[1]):
        if q != p and st.score[g, q] - st.score[g, p] >= gap:
            bp += 1
    if bp > 0:
        add_bp(st, ru, g, p, bp)
        share_with_partner(st, ru, g, p)
        wk.tally[b, tally.SOCIAL_INCOME] += bp
        log(st, wk, g, EV_GENE_INCOME, PHASE, p, -1, SOCIAL_GENE, bp, 0, 0, 0, 0, 0)


@kernel
def phase6(st, ru, wk, g, b):
    """K2-K3 in descending order; XG-10's income at the moment flag social_gene_timing names."""
    P = st.seat.shape[1]
    turn_order(st, wk, g, b, True)
    social = gene_holder(st, g, SOCIAL_GENE) if ru.extra_genes else -1
    timing = ru.xflag[XF_SOCIAL_GENE_TIMING]
    for k in range(P):
        p = wk.scratch[b, ORDER_SLOT + k]
        if p == social and timing == SOCIAL_BEFORE_ADVANCE:
            social_income(st, ru, wk, g, b, p)
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
        if p == social and timing == SOCIAL_AFTER_ADVANCE:
            social_income(st, ru, wk, g, b, p)
    if social >= 0 and timing == SOCIAL_END_OF_PHASE6:
        social_income(st, ru, wk, g, b, social)  # XG-10: PLACEHOLDER, after every marker, before W1
