"""Phase 2 - environment and gene defects (E1-E2, V3-V4).

Environmental Sensing (XG-23): right after the new card is revealed its owner looks at the next
one (genes/environmental_sensing.py; Migration Sensing's look at the start of Phase 1, XG-06, is
genes/migration_sensing.py); a card seen that is now face up is no secret any more
(State.seen_card back to -1).
"""

import numpy as np

from sim.jit import kernel
from sim.ursuppe.engine import tally
from sim.ursuppe.engine.decision_kinds import PAY
from sim.ursuppe.engine.decisions import (
    FORCED_STOP,
    forced_choice,
    forked_here,
    reject_forced,
    set_option,
    taped,
)
from sim.ursuppe.engine.events import EV_CARD, EV_DEFECT, log
from sim.ursuppe.engine.gene_sets import add_to_pool, high_word, join_words, low_word, lowest, set_gene
from sim.ursuppe.engine.genes.environmental_sensing import environmental_sensing_look
from sim.ursuppe.engine.players import (
    ORDER_SLOT,
    acts_for_player,
    add_bp,
    kept_gift,
    mutation_points,
    share_with_partner,
    turn_order,
)
from sim.ursuppe.engine.policy_port import break_tie, draw_uniform, pay_value
from sim.ursuppe.engine.scratch import HELD, SORTED
from sim.ursuppe.engine.state import MAX_OPTIONS
from sim.ursuppe.rules.book import GIFT_KEPT

PHASE = 2


# Walks over the minimal payments (_walk_payments), by what they return.
WALK_BEST = 0  # count them; the first best for the strategy, and how many tie with it
WALK_NTH = 1  # the payment with a given index in list order
WALK_NTH_TIE = 2  # the k-th payment (0: the first best, at a given index) valued as the first best
WALK_LIST = 3  # list the first MAX_OPTIONS in wk.options (a scenario's forced choice)


@kernel
def _held_genes(st, ru, wk, g, b, p):
    """Write player p's genes, by gene index, to scratch HELD and their defect payments,
    ascending, to SORTED; return how many."""
    held = wk.scratch[b]
    k = 0
    genes = st.held[g, p]
    while genes != 0:
        i = lowest(genes)
        genes &= genes - 1
        if not kept_gift(st, ru, g, p, i, GIFT_KEPT):
            held[HELD + k] = i
            pay = ru.gene_defect_payment[i]
            j = k  # insertion sort: at most N_GENES
            while j > 0 and held[SORTED + j - 1] > pay:
                held[SORTED + j] = held[SORTED + j - 1]
                j -= 1
            held[SORTED + j] = pay
            k += 1
    return k


@kernel
def _payment_bp(st, ru, wk, g, b, p, deficit, k, subset):
    """E2: the BP that complete the returned genes ``subset`` (bit j: the j-th held gene) to a
    minimal payment of ``deficit``, or -1 when no payment returns exactly these genes: every
    returned gene must be needed (removing any one returned gene or BP would leave it short),
    BP pay only what the genes leave, and the player must hold them. Genes must be returned,
    even overpaying, when BP cannot cover the rest; with the flag defect_genes_may_overpay
    false, a gene may overpay only then."""
    held = wk.scratch[b]
    total = 0
    low = 1 << 30  # the smallest payment returned: if removing it leaves the deficit covered, not minimal
    for j in range(k):
        if subset & (1 << j):
            pay = ru.gene_defect_payment[held[HELD + j]]
            low = min(low, pay)
            total += pay
    bp = 0
    if total < deficit:
        bp = deficit - total
        if bp > st.bp[g, p]:
            return -1
    paid = total + bp
    if subset != 0 and paid - low >= deficit:
        return -1
    if paid > deficit and not ru.defect_genes_may_overpay and st.bp[g, p] >= deficit:
        return -1  # the flag's other reading: no overpaying while BP can cover the deficit
    return bp


@kernel
def _mask(wk, b, k, subset):
    """The gene bit mask of ``subset`` (bit j: the j-th held gene)."""
    mask = 0
    for j in range(k):
        if subset & (1 << j):
            mask |= np.int64(1) << wk.scratch[b, HELD + j]
    return mask


@kernel
def _walk_payments(st, ru, wk, g, b, p, deficit, k, mode, want, first):
    """E2: walk every minimal payment of ``deficit`` in list order, without listing them: by the
    number of genes returned (BP alone first), then by subset of the held genes in ascending
    order (Gosper's hack steps through the subsets of one size in that order). ``mode`` WALK_*
    says what to return: (count, gene mask, BP, ties, index of the first best):
    WALK_BEST counts them and values each for player p's strategy (policy.pay_value), returning
    the first best with its ties; WALK_NTH the payment with index ``want``; WALK_NTH_TIE the
    ``want``-th payment valued as the first best (index ``first``) from it on; WALK_LIST lists
    the first MAX_OPTIONS in wk.options."""
    n = 0
    best = -1
    best_mask = 0
    best_bp = 0
    best_value = 0.0
    ties = 0
    smallest = 0  # the sum of the size - 1 smallest payments held
    for size in range(k + 1):
        if size >= 2:
            # A minimal payment of this size leaves the deficit short without its smallest gene,
            # so the size - 1 smallest payments held fall short of it: none of this size or more.
            smallest += wk.scratch[b, SORTED + size - 2]
            if smallest >= deficit:
                break
        subset = (1 << size) - 1
        while subset < (1 << k):
            bp = _payment_bp(st, ru, wk, g, b, p, deficit, k, subset)
            if bp >= 0:
                mask = _mask(wk, b, k, subset)
                if mode == WALK_NTH:
                    if n == want:
                        return n, mask, bp, 0, n
                elif mode == WALK_LIST:
                    if n < MAX_OPTIONS:
                        set_option(wk.options, b, n, low_word(mask), high_word(mask), bp)
                elif mode == WALK_NTH_TIE:
                    if n >= first:
                        value = pay_value(st, ru, wk, g, p, mask, bp)
                        if n == first:
                            best_value = value
                        if value == best_value:
                            if ties == want:
                                return n, mask, bp, ties, first
                            ties += 1
                else:  # as policy.choose: the first best, and how many equal it
                    value = pay_value(st, ru, wk, g, p, mask, bp)
                    if best < 0 or value > best_value:
                        best, best_mask, best_bp, best_value, ties = n, mask, bp, value, 1
                    elif value == best_value:
                        ties += 1
                n += 1
            if size == 0:
                break
            # Gosper's hack: the next larger integer with as many bits set
            low = subset & -subset
            ripple = subset + low
            subset = (((ripple ^ subset) >> 2) // low) | ripple
    return n, best_mask, best_bp, ties, best


@kernel
def choose_payment(st, ru, wk, g, b, p, deficit):
    """E2: player p's payment of ``deficit``, as (gene mask, BP): the decision over every minimal
    payment (spec: however many there are), taken as decide() takes a listed one, without
    listing them. One payment: taken without asking. A scenario's forced payment: checked for
    legality directly (_payment_bp). Otherwise the strategy: a uniform draw over their number, or
    the first best payment by policy.pay_value (a random tie-break among equals); the same
    values and random draws in the same order as decide() over the list, so a game is the same
    as with a list wherever a list would hold them (it held 1,024, MAX_OPTIONS, until
    2026-11-23: about 11 genes held could exceed that, and the rest could not be chosen)."""
    k = _held_genes(st, ru, wk, g, b, p)
    n, mask, bp, ties, best = _walk_payments(st, ru, wk, g, b, p, deficit, k, WALK_BEST, 0, 0)
    if n == 0 and ru.gift_keep == GIFT_KEPT:
        # A kept gift is never returned (docs/verdicts.md): when the other cards and the BP fall
        # short of the deficit, the player gives every other card and all its BP
        return _mask(wk, b, k, (1 << k) - 1), st.bp[g, p]
    if n <= 1:
        return mask, bp  # one payment (none only when a house rule's payments fall short)
    wk.tally[b, tally.DECISION + PAY] += 1
    if taped(wk, g, p):
        _walk_payments(st, ru, wk, g, b, p, deficit, k, WALK_LIST, 0, 0)  # for an error message
        t = forced_choice(wk, g, b, p, PAY, n)
        if t == FORCED_STOP:
            wk.stop_choice[g] = best  # the strategy's first best payment: a search's default
        if t < 0:
            return 0, 0  # another kind: the game's error is set
        forced_mask = join_words(np.int64(wk.tape_value[g, t, 0]), np.int64(wk.tape_value[g, t, 1]))
        forced_bp = wk.tape_value[g, t, 2]
        subset = 0
        for j in range(k):
            if forced_mask & (np.int64(1) << wk.scratch[b, HELD + j]):
                subset |= 1 << j
        legal = _mask(wk, b, k, subset) == forced_mask  # only genes it holds
        if legal and _payment_bp(st, ru, wk, g, b, p, deficit, k, subset) == forced_bp:
            forked_here(st, ru, wk, g, p, t)
            return _mask(wk, b, k, subset), forced_bp
        reject_forced(wk, g, b, p, PAY, n, t)
        return 0, 0
    drawn = draw_uniform(st, wk, g, p, n)
    if drawn >= 0:
        _, mask, bp, _, _ = _walk_payments(st, ru, wk, g, b, p, deficit, k, WALK_NTH, drawn, 0)
        return mask, bp
    if ties > 1:
        tie = break_tie(st, wk, g, p, ties)
        if tie > 0:
            _, mask, bp, _, _ = _walk_payments(st, ru, wk, g, b, p, deficit, k, WALK_NTH_TIE, tie, best)
    return mask, bp


@kernel
def pay_defect(st, ru, wk, g, b, p, m, ozone):
    """E2: player p pays the deficit m - ozone with genes and/or BP of its choice."""
    deficit = m - ozone
    mask, bp = choose_payment(st, ru, wk, g, b, p, deficit)
    returned = mask
    while returned != 0:
        gene = lowest(returned)
        returned &= returned - 1
        set_gene(st, g, p, gene, 0)
        add_to_pool(st, g, gene, 1)  # returned genes go back to the pool at once
        st.defect_genes_lost[g, p] += 1
    add_bp(st, ru, g, p, -bp)
    st.defect_bp_paid[g, p] += bp
    log(st, wk, g, EV_DEFECT, PHASE, p, -1, m, ozone, deficit, low_word(mask), high_word(mask), bp, 0)


@kernel
def phase2(st, ru, wk, g, b):
    """E1: reveal the next card (not in round 1 with first_round_flip = false); E2 from round 2."""
    if ru.first_round_flip or st.round[g] > 1:
        if st.deck_pos[g] + 1 < st.n_cards[g]:
            st.deck_pos[g] += 1
            i = st.deck_pos[g]
            log(
                st,
                wk,
                g,
                EV_CARD,
                PHASE,
                -1,
                -1,
                st.card_index[g, i],
                st.card_ozone[g, i],
                st.card_drift[g, i],
                i,
                0,
                0,
                0,
            )
            if ru.extra_genes:
                for p in range(st.seat.shape[1]):
                    if st.seen_card[g, p] >= 0 and st.seen_card[g, p] <= i:
                        st.seen_card[g, p] = -1  # face up now: no private knowledge left
                    environmental_sensing_look(st, wk, g, b, p, PHASE)  # XG-23
    if st.round[g] < 2:
        return
    P = st.seat.shape[1]
    turn_order(st, wk, g, b, True)
    for k in range(P):
        p = wk.scratch[b, ORDER_SLOT + k]
        if not acts_for_player(ru, p):
            continue  # TB5: double play II's defects are once per player (one gene set)
        m = mutation_points(st, ru, g, p)
        ozone = st.card_ozone[g, st.deck_pos[g]]
        if m > ozone:
            pay_defect(st, ru, wk, g, b, p, m, ozone)
            share_with_partner(st, ru, g, p)
