"""What things cost and whether they can be paid (spec K1-K3, A5, A8): pure rule functions that
ask no player anything, read by the engine and by the strategies alike."""

from sim.chromosome.engine import flags as FL
from sim.chromosome.engine.state import N_TROPHY_ENERGY, NO_OWNER
from sim.jit import kernel

EMPTY_ROOMS_ONLY = 1  # spark_path's second reading
N_COLOURS = 4
Y = 0
UNREACHABLE = 127


@kernel
def fate_gene_free(cs, g, p):
    """K2: may player p spend fate as a gene now (once a round: the token is active, fate >= 1)?"""
    return cs.fate_exhausted[g, p] == 0 and cs.fate[g, p] >= 1


@kernel
def trophy_energy(cs, cr, g):
    """K3: the energy a returned trophy pays (2; more this round after round_trophy_energy, V5)."""
    return cr.numbers[N_TROPHY_ENERGY] + cs.trophy_bonus[g]


@kernel
def energy_available(cs, cr, g, p):
    """K3: the most energy player p could pay: its charged tokens, 2 per trophy, and (flag
    energy_surplus_scope = turn) the turn's surplus."""
    e = cs.turn_energy[g]
    for r in range(cs.owner.shape[1]):
        if cs.owner[g, r] == p and cs.charged[g, r] != 0:
            e += cs.size[g, r]
    per = trophy_energy(cs, cr, g)
    for q in range(cs.trophies.shape[2]):
        e += per * cs.trophies[g, p, q]
    return e


@kernel
def genes_short(cs, g, p, y, pu, rd, bk, anyc):
    """K1: how many genes of the cost (y, pu, rd, bk named; ``anyc`` of any colour) player p's
    active genes cannot pay."""
    short = 0
    spare = 0
    need = (y, pu, rd, bk)
    for c in range(N_COLOURS):
        have = cs.active_genes[g, p, c]
        if have < need[c]:
            short += need[c] - have
        else:
            spare += have - need[c]
    if spare < anyc:
        short += anyc - spare
    return short


@kernel
def can_pay(cs, cr, g, p, y, pu, rd, bk, anyc, energy, fate_allowed):
    """K1-K3, T3: can player p pay the cost now (the fate as one gene if ``fate_allowed`` and free)?"""
    short = genes_short(cs, g, p, y, pu, rd, bk, anyc)
    if short > 1 or (short == 1 and not (fate_allowed and fate_gene_free(cs, g, p))):
        return False
    return energy <= 0 or energy_available(cs, cr, g, p) >= energy


@kernel
def genes_held(cs, g, p):
    """A4, I5: p's genes, active and passive."""
    n = 0
    for c in range(4):
        n += cs.active_genes[g, p, c] + cs.passive_genes[g, p, c]
    return n


@kernel
def evolution_price(cs, cr, g, p, c):
    """A5, G1: the energy of Evolution option 1 for colour c: R and B their fixed price; Y and P
    the genes of that colour held + 1 (flag plus1_counts_passive: active and passive, the Y paid
    for the action included; else active only, after that Y)."""
    if cr.evolution_energy[c] >= 0:
        return cr.evolution_energy[c]
    if cr.flag[FL.PLUS1_COUNTS_PASSIVE] == 0:
        return cs.active_genes[g, p, c] + cs.passive_genes[g, p, c] + 1
    return cs.active_genes[g, p, c] - (1 if c == Y else 0) + 1


@kernel
def spark_distance(cs, cr, g, a, d):
    """A8, L4: the path length from room a to room d (flag spark_path = empty_rooms_only: the
    rooms between must be empty; removed rooms are holes either way, M7)."""
    if cr.flag[FL.SPARK_PATH] != EMPTY_ROOMS_ONLY:
        bad = False
        for r in range(cs.removed.shape[1]):
            if cs.removed[g, r] != 0:
                bad = True
        if not bad:
            return cr.distance[a, d]
    R = cs.owner.shape[1]
    reached = 1 << a
    frontier = 1 << a
    steps = 0
    while frontier != 0:
        steps += 1
        nxt = 0
        for r in range(R):
            if not (frontier >> r) & 1:
                continue
            for s in range(cr.degree[r]):
                x = int(cr.neighbours[r, s])
                if (reached >> x) & 1 or cs.removed[g, x] != 0:
                    continue
                if x == d:
                    return steps
                if cr.flag[FL.SPARK_PATH] == EMPTY_ROOMS_ONLY and cs.owner[g, x] != NO_OWNER:
                    continue
                reached |= 1 << x
                nxt |= 1 << x
        frontier = nxt
    return UNREACHABLE
