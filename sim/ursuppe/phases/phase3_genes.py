"""Phase 3 - new genes (G1-G5), in descending order."""

from sim.jit import kernel
from sim.ursuppe.decision_kinds import BUY, CK_BUY_END
from sim.ursuppe.decisions import consume_marker, decide, set_option
from sim.ursuppe.events import EV_BUY, log
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
    for gene in range(st.genes.shape[2]):
        if st.pool[g, gene] <= 0 or st.genes[g, p, gene] != 0 or ru.gene_price[gene] > st.bp[g, p]:
            continue
        if blocked & (1 << gene):
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
    st.genes_bought[g, p] |= 1 << gene
    if gave_up >= 0:
        st.genes[g, p, gave_up] = 0
        st.pool[g, gave_up] += 1
    log(st, wk, g, EV_BUY, PHASE, p, -1, gene, ru.gene_price[gene], gave_up, 0, 0, 0, 0)


@kernel
def phase3(st, ru, wk, g, b):
    P = st.seat.shape[1]
    turn_order(st, wk, g, b, True)
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
        if wk.tape_pos[g] > forced:
            # This player's forced buy list ended without its "stop" being needed (nothing else
            # was affordable): its end marker is spent. A player that took no forced choice leaves
            # the next list to the player it belongs to.
            consume_marker(wk, g, CK_BUY_END)
