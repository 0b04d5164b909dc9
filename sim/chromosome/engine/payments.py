"""Paying a cost (spec §4.3, K1-K5): genes, the fate as a gene, and energy.

A cost is genes by colour, genes of any colour ('?') and energy E. Genes are paid by moving
active genes to passive spaces (K1); once a round a player may spend 1 fate instead of one gene
of any colour, exhausting its fate token (K2). Energy is paid, only in the payer's own turn, by
turning whole charged groups to their discharged side (1 E a token) and returning trophies to
their owners' supplies (2 E each) (K3); the payment must be minimal (K5) and its surplus is lost
(K4; flag energy_surplus_scope = turn: kept for the rest of the turn).
"""

from sim.chromosome.engine import flags as FL
from sim.chromosome.engine.costs import fate_gene_free, genes_short, trophy_energy
from sim.chromosome.engine.decision_kinds import ANY_GENE, FATE_GENE, PAY_ENERGY
from sim.chromosome.engine.decisions import decide, set_option
from sim.chromosome.engine.events import EV_PAY_ENERGY, EV_PAY_GENES, log
from sim.jit import kernel

SCOPE_TURN = 1
N_COLOURS = 4
ANY = 4  # FATE_GENE option: the fate pays a '?' gene
TROPHY_BITS = 4  # PAY_ENERGY's trophies column: 4 bits per owner


@kernel
def _spend_fate_as_gene(cs, g, p):
    cs.fate[g, p] -= 1
    cs.fate_exhausted[g, p] = 1


@kernel
def _exhaust(cs, g, p, c, n):
    cs.active_genes[g, p, c] -= n
    cs.passive_genes[g, p, c] += n


@kernel
def _one_less(y, pu, rd, bk, c):
    """The named genes (y, pu, rd, bk) with one fewer of colour c."""
    return (
        y - (1 if c == 0 else 0),
        pu - (1 if c == 1 else 0),
        rd - (1 if c == 2 else 0),
        bk - (1 if c == 3 else 0),
    )


@kernel
def pay_genes(cs, cr, cw, g, b, p, y, pu, rd, bk, anyc, fate_allowed):
    """K1, K2, Q7: pay the genes of a cost (checked by can_pay). The player decides whether the
    fate replaces a gene, and which (only where the rest stays payable), then the colour of each
    '?' gene."""
    short = genes_short(cs, g, p, y, pu, rd, bk, anyc)
    pick = -1
    if fate_allowed and fate_gene_free(cs, g, p) and y + pu + rd + bk + anyc > 0:
        n = 0
        if short == 0:
            set_option(cw, b, n, -1, 0, 0, 0, 0)
            n += 1
        for c in range(N_COLOURS + 1):
            if c < N_COLOURS:
                named = y if c == 0 else pu if c == 1 else rd if c == 2 else bk
                if named == 0:
                    continue
                a, e, f, h = _one_less(y, pu, rd, bk, c)
                ok = genes_short(cs, g, p, a, e, f, h, anyc) == 0
            else:
                ok = anyc > 0 and genes_short(cs, g, p, y, pu, rd, bk, anyc - 1) == 0
            if ok:
                set_option(cw, b, n, c, 0, 0, 0, 0)
                n += 1
        pick = cw.options[b, decide(cs, cr, cw, g, b, p, FATE_GENE, n), 0]
        if pick >= 0:
            _spend_fate_as_gene(cs, g, p)
            if pick == ANY:
                anyc -= 1
            else:
                y, pu, rd, bk = _one_less(y, pu, rd, bk, pick)
    _exhaust(cs, g, p, 0, y)
    _exhaust(cs, g, p, 1, pu)
    _exhaust(cs, g, p, 2, rd)
    _exhaust(cs, g, p, 3, bk)
    for _ in range(anyc):
        n = 0
        for c in range(N_COLOURS):
            if cs.active_genes[g, p, c] > 0:
                set_option(cw, b, n, c, 0, 0, 0, 0)
                n += 1
        c = cw.options[b, decide(cs, cr, cw, g, b, p, ANY_GENE, n), 0]
        _exhaust(cs, g, p, c, 1)
        y, pu, rd, bk = y + (c == 0), pu + (c == 1), rd + (c == 2), bk + (c == 3)
    if y + pu + rd + bk > 0 or pick >= 0:
        log(cs, cw, g, EV_PAY_GENES, p, y, pu, rd, bk, pick, 0, 0)


@kernel
def _trophy_splits(cs, cw, g, b, p, n, mask, t):
    """Add an option for every way to return ``t`` trophies, by owner (4 bits each), with the
    groups ``mask``; returns the new count (an odometer over the owners' counts: no recursion)."""
    P = cs.trophies.shape[2]
    digits = 0  # packed counts, TROPHY_BITS per owner
    while True:
        total = 0
        for q in range(P):
            total += (digits >> (TROPHY_BITS * q)) & 15
        if total == t:
            if n < cw.options.shape[1]:
                set_option(cw, b, n, mask, digits, 0, 0, 0)
            n += 1
        q = 0  # the next odometer reading: owner q's count up, or wrap and carry
        while q < P:
            k = (digits >> (TROPHY_BITS * q)) & 15
            if k < cs.trophies[g, p, q] and k < t:
                digits += 1 << (TROPHY_BITS * q)
                break
            digits -= k << (TROPHY_BITS * q)
            q += 1
        if q == P:
            return n


@kernel
def energy_payments(cs, cr, cw, g, b, p, energy):
    """K5: every minimal way for player p to pay ``energy`` (after the turn's surplus): a set of
    charged groups (a room bit mask) and trophies by owner; removing any one group or trophy
    would leave the cost unpaid. Returns how many (in cw.options[b])."""
    need = energy - cs.turn_energy[g]
    R = cs.owner.shape[1]
    k = 0
    for r in range(R):
        if cs.owner[g, r] == p and cs.charged[g, r] != 0:
            k += 1
    trophies = 0
    for q in range(cs.trophies.shape[2]):
        trophies += cs.trophies[g, p, q]
    per = trophy_energy(cs, cr, g)
    n = 0
    for sub in range(1 << k):
        total = 0
        smallest = 99
        mask = 0
        i = 0
        for r in range(R):
            if cs.owner[g, r] == p and cs.charged[g, r] != 0:
                if (sub >> i) & 1:
                    total += cs.size[g, r]
                    smallest = min(smallest, cs.size[g, r])
                    mask |= 1 << r
                i += 1
        t = 0
        if total < need:
            t = (need - total + per - 1) // per
            if t > trophies:
                continue
        paid = total + per * t
        if mask != 0 and paid - smallest >= need:
            continue  # a group could be left out
        if t > 0 and paid - per >= need:
            continue
        n = _trophy_splits(cs, cw, g, b, p, n, mask, t)
    return n


@kernel
def pay_energy(cs, cr, cw, g, b, p, energy):
    """K3-K5, Q8: player p pays ``energy`` by one of the minimal payments it picks; the groups
    turn to their discharged side, the trophies go back to their owners' supplies; the surplus
    is lost (flag energy_surplus_scope = turn: kept in cs.turn_energy for this turn)."""
    if energy <= 0:
        return
    n = energy_payments(cs, cr, cw, g, b, p, energy)
    i = decide(cs, cr, cw, g, b, p, PAY_ENERGY, n)
    mask = cw.options[b, i, 0]
    packed = cw.options[b, i, 1]
    paid = cs.turn_energy[g]
    tokens = 0
    for r in range(cs.owner.shape[1]):
        if (mask >> r) & 1:
            tokens += cs.size[g, r]
            cs.charged[g, r] = 0
    returned = 0
    for q in range(cs.trophies.shape[2]):
        t = (packed >> (TROPHY_BITS * q)) & ((1 << TROPHY_BITS) - 1)
        cs.trophies[g, p, q] -= t
        cs.supply[g, q] += t
        returned += t
    paid += tokens + trophy_energy(cs, cr, g) * returned
    surplus = paid - energy
    kept = cr.flag[FL.ENERGY_SURPLUS_SCOPE] == SCOPE_TURN
    cs.turn_energy[g] = surplus if kept else 0
    log(cs, cw, g, EV_PAY_ENERGY, p, energy, mask, tokens, returned, 0 if kept else surplus, 0, 0)
