"""Phase 3 - new genes (G1-G5), in descending order; with the extra genes the market's reveals
(XM4, XM5), the Social Gene taken from its holder (XG-10), Flexible's discount (XG-14, through
players.gene_cost), Highly Adaptable's exchanges (XG-08, genes/highly_adaptable.py) and, with
flag healing2_phase = any_own_turn, Healing 2's heals at a player's turn before it buys (XG-25)."""

from sim.jit import kernel
from sim.ursuppe.engine.decision_kinds import BUY, CK_BUY_END
from sim.ursuppe.engine.decisions import consume_marker, decide, set_option
from sim.ursuppe.engine.events import EV_BUY, log
from sim.ursuppe.engine.gene_sets import add_to_pool, genes_in_play, lowest, set_gene
from sim.ursuppe.engine.genes.flexible import flexible_discount_tally
from sim.ursuppe.engine.genes.healing_1 import heals_in_phase
from sim.ursuppe.engine.genes.healing_2 import healing2_now
from sim.ursuppe.engine.genes.highly_adaptable import exchanges
from sim.ursuppe.engine.genes.social_gene import social_gene_takeable, social_gene_taken
from sim.ursuppe.engine.market import discard_unbought, reveal, reveal_round
from sim.ursuppe.engine.players import (
    ORDER_SLOT,
    SOURCE_HOLDER,
    SOURCE_NONE,
    acquire,
    acts_for_player,
    add_bp,
    affordable,
    blocked_by_advanced,
    gene_cost,
    gene_holder,
    gene_source,
    lower_gene_ok,
    share_with_partner,
    turn_order,
)
from sim.ursuppe.rules.extra_flags import (
    TIMING_AFTER_EACH_PURCHASE,
    TIMING_AFTER_FIRST_PLAYER,
    TIMING_START_OF_PHASE3,
    XF_REVEAL_PER_ROUND,
    XF_REVEAL_TIMING,
)

PHASE = 3


@kernel
def purchase_options(st, ru, wk, g, b, p):
    """G1-G4: 'stop', then every gene player p may buy now, with the lower gene it gives up; with
    the extra genes the Social Gene taken from its holder is the row (gene, -1, 1) (XG-10).
    Prices are gene_cost's (Flexible, XG-14). The genes are walked as a mask: those not held,
    not blocked (G4), in the pool (or the Social Gene, XG-10) and maybe affordable (players.
    affordable), in gene order."""
    set_option(wk.options, b, 0, -1, -1, 0)
    n = 1
    blocked = blocked_by_advanced(st, ru, g, p)
    candidates = (st.pooled[g] | social_gene_takeable(ru)) & ~st.held[g, p] & ~blocked & genes_in_play(ru)
    candidates &= affordable(st, ru, g, p)
    while candidates != 0:
        gene = lowest(candidates)
        candidates &= candidates - 1
        source = gene_source(st, ru, g, p, gene, blocked)
        if source == SOURCE_NONE or gene_cost(st, ru, g, p, gene) > st.bp[g, p]:
            continue
        if source == SOURCE_HOLDER:
            set_option(wk.options, b, n, gene, -1, 1)
            n += 1
            continue
        if ru.gene_lower[gene, 0] < 0:
            set_option(wk.options, b, n, gene, -1, 0)
            n += 1
            continue
        # G3: an advanced gene needs a lower gene held since an earlier round, given up.
        for j in range(ru.gene_lower.shape[1]):
            lower = ru.gene_lower[gene, j]
            if lower_gene_ok(st, ru, g, p, gene, lower):
                set_option(wk.options, b, n, gene, lower, 0)
                n += 1
    return n


@kernel
def buy(st, ru, wk, g, b, p, gene, gave_up, taken):
    """G1-G3: pay gene_cost; the card comes from the pool; a lower gene given up returns to it.
    XG-10: ``taken`` = the Social Gene taken from its holder, who gets the BP (flag
    social_gene_steal_payment_to) and gives the card up. XG-14: Flexible's discount is tallied."""
    cost = gene_cost(st, ru, g, p, gene)
    holder = gene_holder(st, g, gene) if taken else -1
    add_bp(st, ru, g, p, -cost)
    flexible_discount_tally(st, ru, wk, g, b, p, gene, cost, taken)  # XG-14
    if holder >= 0:
        social_gene_taken(st, ru, wk, g, b, p, holder, gene, cost, PHASE)  # XG-10, the event take
    else:
        add_to_pool(st, g, gene, -1)
    acquire(st, ru, g, p, gene)
    if gave_up >= 0:
        set_gene(st, g, p, gave_up, 0)
        add_to_pool(st, g, gave_up, 1)
    if holder < 0:
        log(st, wk, g, EV_BUY, PHASE, p, -1, gene, cost, gave_up, 0, 0, 0, 0)


@kernel
def phase3(st, ru, wk, g, b):
    """G1-G5 in descending order; with the extra genes the market's reveals (XM4, XM5)."""
    P = st.seat.shape[1]
    turn_order(st, wk, g, b, True)
    timing = ru.xflag[XF_REVEAL_TIMING]
    first_revealed = st.extra_top[g]
    to_reveal = ru.xflag[XF_REVEAL_PER_ROUND] if ru.extra_genes else 0
    heal_turns = ru.extra_genes and healing2_now(ru, PHASE)  # XG-25: healing2_phase = any_own_turn
    if to_reveal > 0 and timing == TIMING_START_OF_PHASE3:
        reveal_round(st, ru, wk, g, b)
        to_reveal = 0
    for k in range(P):
        p = wk.scratch[b, ORDER_SLOT + k]
        if not acts_for_player(ru, p):
            continue  # TB6: double play II's genes are bought once per player, for both colours
        if heal_turns:
            heals_in_phase(st, ru, wk, g, b, p, PHASE)  # at its turn, before it buys
            if wk.error[g, 0] != 0:
                return
        forced = wk.tape_pos[g]
        while True:
            n = purchase_options(st, ru, wk, g, b, p)
            i = decide(st, ru, wk, g, b, p, -1, BUY, n)
            gene = wk.options[b, i, 0]
            if gene < 0:
                break
            buy(st, ru, wk, g, b, p, gene, wk.options[b, i, 1], wk.options[b, i, 2])
            share_with_partner(st, ru, g, p)
            if wk.error[g, 0] != 0:
                return
            if to_reveal > 0 and timing == TIMING_AFTER_EACH_PURCHASE:
                reveal(st, ru, wk, g, b, 1)  # XM4 reading: the round's cards one after each purchase
                to_reveal -= 1
        if wk.tape_pos[g] > forced:
            # This player's forced buy list ended without its "stop" being needed (nothing else
            # was affordable): its end marker is spent. A player that took no forced choice leaves
            # the next list to the player it belongs to.
            consume_marker(wk, g, CK_BUY_END)
        if ru.extra_genes:
            exchanges(st, ru, wk, g, b, p, PHASE)  # XG-08
            if wk.error[g, 0] != 0:
                return
        if to_reveal > 0 and timing == TIMING_AFTER_FIRST_PLAYER and k == 0:
            # XM4: "so the second player is the first who can buy". Highly Adaptable's exchanges
            # are part of the first player's turn, so the cards wait for them too (XG-08).
            reveal_round(st, ru, wk, g, b)
            to_reveal = 0
    if ru.extra_genes:
        discard_unbought(st, ru, wk, g, b, first_revealed, st.extra_top[g])
