"""Phase 2 - environment and gene defects (E1-E2, V3-V4)."""

from sim.jit import kernel
from sim.ursuppe import tally
from sim.ursuppe.decision_kinds import PAY
from sim.ursuppe.decisions import decide, set_option
from sim.ursuppe.events import EV_CARD, EV_DEFECT, log
from sim.ursuppe.players import ORDER_SLOT, mutation_points, turn_order
from sim.ursuppe.state import MAX_OPTIONS

PHASE = 2
HELD = 16  # Workspace.scratch[b, 16:16 + N_GENES]: the genes of the paying player


@kernel
def payment_options(st, ru, wk, g, b, p, deficit):
    """E2: every minimal payment of ``deficit``: a set of returned genes (each pays its defect
    payment) and BP, such that removing any one returned gene or one BP would leave it short.
    Genes must be returned, even overpaying, when BP cannot cover the rest.

    Payments are listed by the number of genes returned (BP alone first). With many genes the
    minimal sets can outnumber the option buffer (their count grows like a binomial coefficient):
    then the payments returning the most genes are left out and tallied."""
    held = wk.scratch[b]
    k = 0
    for i in range(st.genes.shape[2]):
        if st.genes[g, p, i] != 0:
            held[HELD + k] = i
            k += 1
    n = 0
    for size in range(k + 1):
        for subset in range(1 << k):
            count = 0
            for j in range(k):
                if subset & (1 << j):
                    count += 1
            if count != size:
                continue
            total = 0
            mask = 0
            for j in range(k):
                if subset & (1 << j):
                    total += ru.gene_defect_payment[held[HELD + j]]
                    mask |= 1 << held[HELD + j]
            bp = 0
            if total < deficit:
                bp = deficit - total
                if bp > st.bp[g, p]:
                    continue
            paid = total + bp
            minimal = True
            for j in range(k):
                if subset & (1 << j) and paid - ru.gene_defect_payment[held[HELD + j]] >= deficit:
                    minimal = False
                    break
            if not minimal:
                continue
            if paid > deficit and not ru.defect_genes_may_overpay and st.bp[g, p] >= deficit:
                continue  # the flag's other reading: no overpaying while BP can cover the deficit
            if n >= MAX_OPTIONS:
                wk.tally[b, tally.PAYMENTS_TRUNCATED] += 1
                return n
            set_option(wk.options, b, n, mask, bp, 0)
            n += 1
    return n


@kernel
def pay_defect(st, ru, wk, g, b, p, m, ozone):
    """E2: player p pays the deficit m - ozone with genes and/or BP of its choice."""
    deficit = m - ozone
    n = payment_options(st, ru, wk, g, b, p, deficit)
    i = decide(st, ru, wk, g, b, p, -1, PAY, n)
    mask = wk.options[b, i, 0]
    bp = wk.options[b, i, 1]
    for gene in range(st.genes.shape[2]):
        if mask & (1 << gene):
            st.genes[g, p, gene] = 0
            st.pool[g, gene] += 1  # returned genes go back to the pool at once
            st.defect_genes_lost[g, p] += 1
    st.bp[g, p] -= bp
    st.defect_bp_paid[g, p] += bp
    log(st, wk, g, EV_DEFECT, PHASE, p, -1, m, ozone, deficit, mask, bp, 0, 0)


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
    if st.round[g] < 2:
        return
    P = st.seat.shape[1]
    turn_order(st, wk, g, b, True)
    for k in range(P):
        p = wk.scratch[b, ORDER_SLOT + k]
        m = mutation_points(st, ru, g, p)
        ozone = st.card_ozone[g, st.deck_pos[g]]
        if m > ozone:
            pay_defect(st, ru, wk, g, b, p, m, ozone)
