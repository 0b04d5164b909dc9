"""Player-level facts the phases share: turn order (§0), genes held, amoebas on the board."""

import numpy as np

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.gene_sets import genes_in_play, lowest, set_gene
from sim.ursuppe.engine.genes.division_rate import division_rate_cost
from sim.ursuppe.engine.genes.flexible import flexible_price
from sim.ursuppe.engine.genes.life_expectancy import life_expectancy_threshold
from sim.ursuppe.engine.genes.short_life_span import sls_division_cost, sls_holds, sls_threshold
from sim.ursuppe.engine.scratch import ORDER_SLOT
from sim.ursuppe.rules.book import GIFT_KEPT
from sim.ursuppe.rules.extra_flags import XFLAG_INDEX
from sim.ursuppe.rules.genes import (
    GENE_INDEX,
)

# XG-10: every gene's price and source (gene_cost, gene_source: G1, G2, G4) know the Social Gene's
# taking from its holder. Its module (genes/social_gene.py) imports this one, so they are named here.
_SOCIAL_GENE = GENE_INDEX["Social Gene"]
_XF_STEAL_PRICE = XFLAG_INDEX["social_gene_steal_price"]

# gene_source: where a gene would come from (XG-10: the Social Gene from its holder)
SOURCE_NONE = 0
SOURCE_POOL = 1
SOURCE_HOLDER = 2


@kernel
def gifted_player(st, g):
    """soup combos: the player who receives Rules.gift by default, the one on start space (game
    index mod P) + 1, so that the gift rotates over the start spaces (each 1/P of the games)."""
    P = st.seat.shape[1]
    space = st.game_index[g] % P + 1
    for p in range(P):
        if st.seat[g, p] == space:
            return p
    return 0


@kernel
def gift_receiver(st, ru, g):
    """The player Rules.gift goes to: Rules.gift_to, or by default :func:`gifted_player`."""
    return ru.gift_to if ru.gift_to >= 0 else gifted_player(st, g)


@kernel
@always_inline
def kept_gift(st, ru, g, p, gene, level):
    """Is ``gene`` a card player p was gifted at setup (held since round 0: a purchase is held
    since round 1 or later) and still holds, under a Rules.gift_keep of at least ``level``
    (rules.GIFT_NO_EXCHANGE: Highly Adaptable cannot exchange it; GIFT_KEPT: never given up)?"""
    if ru.gift_keep < level or ru.gift[0] < 0:
        return False
    if gene != ru.gift[0] and gene != ru.gift[1]:
        return False
    return st.genes[g, p, gene] != 0 and st.gene_since[g, p, gene] == 0 and p == gift_receiver(st, ru, g)


@kernel
def sort_turn_orders(st, g):
    """§0: the players sorted by score position, ascending and descending, into ``order`` (players
    on one space, double play II's colours of a player, in colour order). Called where the scores
    change: the end of setup and of Phase 6 (turn_order reads it in every other phase)."""
    P = st.score.shape[1]
    for way in range(2):
        descending = way == 1
        order = st.order[g, way]
        for i in range(P):
            order[i] = i
        for i in range(1, P):  # insertion sort: P <= 6
            j = i
            while j > 0:
                x = order[j - 1]
                y = order[j]
                if (st.score[g, y] < st.score[g, x]) != descending and st.score[g, y] != st.score[g, x]:
                    order[j - 1] = y
                    order[j] = x
                    j -= 1
                else:
                    break


@kernel
@always_inline
def turn_order(st, wk, g, b, descending):
    """Write the players sorted by score position into scratch[b, 0:P] (§0: positions are
    distinct), as sort_turn_orders left them when the scores last changed."""
    order = st.order[g, 1 if descending else 0]
    for i in range(st.score.shape[1]):
        wk.scratch[b, ORDER_SLOT + i] = order[i]


@kernel
@always_inline
def put_amoeba(st, g, p, a, space):
    """Put amoeba (p, a) on ``space`` (-1: to the supply): every move, placement and death goes
    through here, so that ``occupancy`` stays the count of ``space`` (state.py)."""
    P = st.space.shape[1]
    old = int(st.space[g, p, a])  # int8: plain Python would overflow old + 1
    if old >= 0:
        st.occupancy[g, p, old + 1] -= 1
        st.occupancy[g, P, old + 1] -= 1
    if space >= 0:
        st.occupancy[g, p, space + 1] += 1
        st.occupancy[g, P, space + 1] += 1
    st.space[g, p, a] = space


@kernel
def amoebas_on_space(st, g, q, space):
    """Amoebas of player q (q = P: of all players) on ``space``; 0 for -1 (no space)."""
    return st.occupancy[g, q, int(space) + 1]


@kernel
@always_inline
def has(st, g, p, gene):
    """True if player p holds ``gene``."""
    return st.genes[g, p, gene] != 0


@kernel
@always_inline
def blocked_by_advanced(st, ru, g, p):
    """G4: bit mask of the genes player p may not buy because it holds an advanced gene above them."""
    blocked = np.int64(0)
    for i in range(ru.advanced_genes.shape[0]):
        gene = ru.advanced_genes[i]
        # genes are 0 or 1 (I5): a product instead of a branch per gene
        blocked |= ru.gene_blocks[gene] * np.int64(st.genes[g, p, gene])
    return blocked


@kernel
@always_inline
def amoebas_on_board(st, g, p):
    n = 0
    for a in range(st.space.shape[2]):
        if st.space[g, p, a] >= 0:
            n += 1
    return n


@kernel
@always_inline
def death_threshold(st, ru, g, p):
    """X1: DP at which an amoeba dies (Life Expectancy raises it; TD4: the dummy has it innately;
    XG-18: Short Life Span lowers it by 1)."""
    return sls_threshold(st, g, p, life_expectancy_threshold(st, ru, g, p))  # XG-18


@kernel
@always_inline
def division_cost(st, ru, g, p):
    """D3: 6 BP, 4 with Division Rate (TB7: 4 and 3 in double play II, the rules' values).
    XG-18: with Short Life Span the flags sls_division_cost and sls_with_division_rate.
    Phase 4 (phases/phase4_division.py) and the strategies both ask here."""
    if sls_holds(st, g, p):
        return sls_division_cost(st, ru, g, p)  # XG-18
    return division_rate_cost(st, g, p, ru.division_cost, ru.division_cost_division_rate)


@kernel
@always_inline
def weighted_cards(st, ru, g, p):
    """K2: gene cards held, an advanced gene counting 2 and Ray Protection 0 (rules: weight)."""
    n = 0
    held = st.held[g, p]
    while held != 0:
        n += ru.gene_weight[lowest(held)]
        held &= held - 1
    return n


@kernel
@always_inline
def mutation_points(st, ru, g, p):
    """E2: the sum of the MP of the player's genes (Ray Protection counts -2)."""
    m = 0
    held = st.held[g, p]
    while held != 0:
        m += ru.gene_mp[lowest(held)]
        held &= held - 1
    return m


@kernel
@always_inline
def same_side(ru, p, q):
    """Is colour q the same player as colour p, not "another player" of the gene texts? Only
    one's own colour, except a double play's partner colour (TA3, TB10: rules.side)."""
    return ru.side[p] == ru.side[q]


@kernel
def add_bp(st, ru, g, p, amount):
    """C4: player p gains (or pays, amount < 0) BP. Double play II (TB3): the two colours of a
    player share one stock, kept as two equal copies, so the partner colour's changes too."""
    st.bp[g, p] += amount
    q = ru.partner[p]
    if q >= 0:
        st.bp[g, q] += amount


@kernel
@always_inline
def acts_for_player(ru, p):
    """Does colour p take the per-player steps (gene defects, purchases, income, the marker)?
    Every colour, except in double play II the second colour of each player (TB5, TB6, TB9)."""
    q = ru.partner[p]
    return q < 0 or p < q


@kernel
def player_result(st, ru, g, p):
    """The final position of the player colour p belongs to (W1, TA4): its marker, or in a double
    play the worse (lower) of its colours' markers (double play II's two are equal, TB3)."""
    result = st.score[g, p]
    for q in range(st.score.shape[1]):
        if ru.team[q] == ru.team[p] and st.score[g, q] < result:
            result = st.score[g, q]
    return result


@kernel
def share_with_partner(st, ru, g, p):
    """TB3/TB6: after colour p's player-level state changed (genes bought or returned, BP, flags,
    the marker), its partner colour's copy becomes equal to it (double play II; else nothing)."""
    q = ru.partner[p]
    if q < 0:
        return
    st.bp[g, q] = st.bp[g, p]
    st.score[g, q] = st.score[g, p]
    st.player_flags[g, q] = st.player_flags[g, p]
    st.genes_bought[g, q] = st.genes_bought[g, p]
    st.defect_genes_lost[g, q] = st.defect_genes_lost[g, p]
    st.defect_bp_paid[g, q] = st.defect_bp_paid[g, p]
    st.held[g, q] = st.held[g, p]
    for i in range(st.genes.shape[2]):
        st.genes[g, q, i] = st.genes[g, p, i]
        st.gene_since[g, q, i] = st.gene_since[g, p, i]
        st.first_bought[g, q, i] = st.first_bought[g, p, i]


# --- what a player may buy and what it pays (G1-G4; XG-10, XG-14): the engine's purchase options,
# buy() and the strategies' saving all ask these, so a gene's price is computed in one place.


@kernel
@always_inline
def is_last(st, g, p):
    """XG-10: player p's marker is last at this moment (no other marker behind it)."""
    for q in range(st.score.shape[1]):
        if q != p and st.score[g, q] < st.score[g, p]:
            return False
    return True


@kernel
def gene_holder(st, g, gene):
    """The player holding ``gene`` (the extra genes are one card each, XM6), -1 if none."""
    for q in range(st.genes.shape[1]):
        if st.genes[g, q, gene] != 0:
            return q
    return -1


@kernel
@always_inline
def gene_cost(st, ru, g, p, gene):
    """G1, XG-10, XG-14: the BP player p pays for ``gene`` now. The price of the rules; the Social
    Gene, when a player holds it, is taken from its holder for ``social_gene_steal_price``;
    Flexible (held by p) takes 1 BP off, never below 0 (on the taking price only with flag
    ``flexible_on_social_steal``)."""
    price = int(ru.gene_price[gene])
    if not ru.extra_genes:
        return price
    taking = gene == _SOCIAL_GENE and st.pool[g, gene] <= 0
    if taking:
        price = int(ru.xflag[_XF_STEAL_PRICE])
    return flexible_price(st, ru, g, p, price, taking)  # XG-14


@kernel
@always_inline
def affordable(st, ru, g, p):
    """G1, XG-10, XG-14: the genes whose gene_cost may be within player p's BP, as a mask (a
    superset): priced within them, or with the extra genes within them plus the 1 BP a price's
    hook may take off, and the Social Gene (its taking price is a flag's)."""
    top = ru.priced_within.shape[0] - 1
    bp = int(st.bp[g, p])
    if not ru.extra_genes:
        return ru.priced_within[max(0, min(bp, top))]
    return ru.priced_within[max(0, min(bp + 1, top))] | (np.int64(1) << _SOCIAL_GENE)


@kernel
def acquire(st, ru, g, p, gene):
    """G2, G3: player p now holds ``gene``, acquired this round (a purchase, an exchange: XG-08)."""
    set_gene(st, g, p, gene, 1)
    st.gene_since[g, p, gene] = st.round[g]
    if st.first_bought[g, p, gene] == 0:
        st.first_bought[g, p, gene] = st.round[g]
    st.genes_bought[g, p] |= np.int64(1) << gene


@kernel
@always_inline
def gene_source(st, ru, g, p, gene, blocked):
    """G2, G4, XG-10: where player p could get ``gene`` from now, price and G3 aside: SOURCE_NONE,
    SOURCE_POOL, or SOURCE_HOLDER (the Social Gene taken from the player holding it). ``blocked``:
    p's blocked_by_advanced mask. Only the last player may acquire the Social Gene."""
    if st.genes[g, p, gene] != 0 or blocked & (np.int64(1) << gene):
        return SOURCE_NONE
    if ru.extra_genes and gene == _SOCIAL_GENE:
        if not is_last(st, g, p):
            return SOURCE_NONE
        if st.pool[g, gene] <= 0:
            holder = gene_holder(st, g, gene)
            if holder < 0 or kept_gift(st, ru, g, holder, gene, GIFT_KEPT):
                return SOURCE_NONE
            return SOURCE_HOLDER
    return SOURCE_POOL if st.pool[g, gene] > 0 else SOURCE_NONE


@kernel
@always_inline
def lower_gene_ok(st, ru, g, p, gene, lower):
    """G3: ``lower`` may be given up for the advanced ``gene`` (held since an earlier round)."""
    if lower < 0 or st.genes[g, p, lower] == 0 or st.gene_since[g, p, lower] >= st.round[g]:
        return False
    return not kept_gift(st, ru, g, p, lower, GIFT_KEPT)


@kernel
@always_inline
def sources(st, ru, g, p, blocked):
    """The genes gene_source may find a source for (a superset), as a mask: not held by p, not
    ``blocked`` (G4), a copy in the pool or (XG-10) the Social Gene."""
    reach = st.pooled[g] & ~st.held[g, p] & ~blocked & genes_in_play(ru)
    if ru.extra_genes:
        reach |= (np.int64(1) << _SOCIAL_GENE) & ~st.held[g, p] & ~blocked
    return reach


@kernel
@always_inline
def within_reach(st, ru, g, p, gene, blocked):
    """Could player p acquire ``gene`` once it has the BP (and, for an advanced gene, once its
    lower gene has been held a round)? The strategies' saving asks this (policy._saving)."""
    if gene_source(st, ru, g, p, gene, blocked) == SOURCE_NONE:
        return False
    if ru.gene_lower[gene, 0] < 0:
        return True
    for j in range(ru.gene_lower.shape[1]):
        lower = ru.gene_lower[gene, j]
        if lower >= 0 and st.genes[g, p, lower] != 0:
            return True
    return False
