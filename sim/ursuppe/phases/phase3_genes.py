"""Phase 3 - new genes (G1-G5), in descending order."""

import numpy as np

from sim.jit import kernel
from sim.ursuppe.decision_kinds import BUY, CK_BUY_END
from sim.ursuppe.decisions import consume_marker, decide, set_option
from sim.ursuppe.events import EV_BUY, log
from sim.ursuppe.extra_flags import (
    TIMING_AFTER_EACH_PURCHASE,
    TIMING_AFTER_FIRST_PLAYER,
    TIMING_START_OF_PHASE3,
    XF_REVEAL_PER_ROUND,
    XF_REVEAL_TIMING,
)
from sim.ursuppe.market import discard_unbought, reveal, reveal_round
from sim.ursuppe.players import (
    ORDER_SLOT,
    acts_for_player,
    add_bp,
    blocked_by_advanced,
    share_with_partner,
    turn_order,
)

PHASE = 3


@kernel
def purchase_options(st, ru, wk, g, b, p):
    """G1-G4: 'stop', then every gene player p may buy now, with the lower gene it gives up."""
    set_option(wk.options, b, 0, -1, -1, 0)
    n = 1
    blocked = blocked_by_advanced(st, ru, g, p)
    for gene in range(ru.n_genes):
        if st.pool[g, gene] <= 0 or st.genes[g, p, gene] != 0 or ru.gene_price[gene] > st.bp[g, p]:
            continue
        if blocked & (np.int64(1) << gene):
            continue
        if ru.gene_lower[gene, 0] < 0:
            set_option(wk.options, b, n, gene, -1, 0)
            n += 1
            continue
        # G3: an advanced gene needs a lower gene held since an earlier round, given up.
        for j in range(ru.gene_lower.shape[1]):
            lower = ru.gene_lower[gene, j]
            if lower >= 0 and st.genes[g, p, lower] != 0 and st.gene_since[g, p, lower] < st.round[g]:
                set_option(wk.options, b, n, gene, lower, 0)
                n += 1
    return n


@kernel
def buy(st, ru, wk, g, p, gene, gave_up):
    """G1-G3: pay the price; the card comes from the pool; a lower gene given up returns to it."""
    add_bp(st, ru, g, p, -ru.gene_price[gene])
    st.genes[g, p, gene] = 1
    st.gene_since[g, p, gene] = st.round[g]
    st.pool[g, gene] -= 1
    if st.first_bought[g, p, gene] == 0:
        st.first_bought[g, p, gene] = st.round[g]
    st.genes_bought[g, p] |= np.int64(1) << gene
    if gave_up >= 0:
        st.genes[g, p, gave_up] = 0
        st.pool[g, gave_up] += 1
    log(st, wk, g, EV_BUY, PHASE, p, -1, gene, ru.gene_price[gene], gave_up, 0, 0, 0, 0)


@kernel
def phase3(st, ru, wk, g, b):
    """G1-G5 in descending order; with the extra genes the market's reveals (XM4, XM5)."""
    P = st.seat.shape[1]
    turn_order(st, wk, g, b, True)
    timing = ru.xflag[XF_REVEAL_TIMING]
    first_revealed = st.extra_top[g]
    to_reveal = ru.xflag[XF_REVEAL_PER_ROUND] if ru.extra_genes else 0
    if to_reveal > 0 and timing == TIMING_START_OF_PHASE3:
        reveal_round(st, ru, wk, g, b)
        to_reveal = 0
    for k in range(P):
        p = wk.scratch[b, ORDER_SLOT + k]
        if not acts_for_player(ru, p):
            continue  # TB6: double play II's genes are bought once per player, for both colours
        forced = wk.tape_pos[g]
        while True:
            n = purchase_options(st, ru, wk, g, b, p)
            i = decide(st, ru, wk, g, b, p, -1, BUY, n)
            gene = wk.options[b, i, 0]
            if gene < 0:
                break
            buy(st, ru, wk, g, p, gene, wk.options[b, i, 1])
            share_with_partner(st, ru, g, p)
            if wk.error[g, 0] != 0:
                return
            if to_reveal > 0 and timing == TIMING_AFTER_EACH_PURCHASE:
                reveal(st, ru, wk, g, b, 1)  # XM4 reading: the round's cards one after each purchase
                to_reveal -= 1
        if to_reveal > 0 and timing == TIMING_AFTER_FIRST_PLAYER and k == 0:
            reveal_round(st, ru, wk, g, b)  # XM4: "so the second player is the first who can buy"
            to_reveal = 0
        if wk.tape_pos[g] > forced:
            # This player's forced buy list ended without its "stop" being needed (nothing else
            # was affordable): its end marker is spent. A player that took no forced choice leaves
            # the next list to the player it belongs to.
            consume_marker(wk, g, CK_BUY_END)
    if ru.extra_genes:
        discard_unbought(st, ru, wk, g, b, first_revealed, st.extra_top[g])
