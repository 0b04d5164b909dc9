"""The invariants of spec §12, checked after every step in debug mode (and the cheap ones at the
end of every game). :func:`broken` returns the number of the first broken invariant, 0 if none."""

from sim.chromosome.engine.population import board_tokens
from sim.chromosome.engine.radiation import left_uncharged
from sim.chromosome.engine.state import (
    N_FATE_MAX,
    N_GENE_CUBES,
    N_IRRADIATION_MAX,
    N_MAX_GENES,
    N_RADIATION_CUBES,
    N_TOKENS,
    NO_OWNER,
)
from sim.jit import kernel


@kernel
def broken(cs, cr, g):
    """I1-I10: 0 if they hold in game g, else the first broken one's number."""
    P = cs.supply.shape[1]
    R = cs.owner.shape[1]
    on_board = 0
    for r in range(R):  # I2, I4
        o = cs.owner[g, r]
        if o == NO_OWNER:
            if cs.size[g, r] != 0 or cs.charged[g, r] != 0:
                return 2
        elif cs.size[g, r] < 1 or cs.size[g, r] > 3 or cs.removed[g, r] != 0 or o >= P:
            return 2
        if cs.cubes[g, r] < 0 or (cs.cubes[g, r] > 0 and cs.removed[g, r] != 0):
            return 4
        on_board += cs.cubes[g, r]
    if on_board + cs.pool[g] != cr.numbers[N_RADIATION_CUBES] or cs.pool[g] < 0:
        return 4
    for q in range(P):  # I1: every species' 12 tokens are somewhere
        held = 0
        for h in range(P):
            held += cs.trophies[g, h, q]
            if cs.trophies[g, q, q] != 0 or cs.trophies[g, h, q] < 0:
                return 3  # I3: trophies only of other species
        if cs.supply[g, q] < 0 or board_tokens(cs, g, q) + cs.supply[g, q] + held != cr.numbers[N_TOKENS]:
            return 1
    for c in range(cs.gene_supply.shape[1]):  # I6
        n = cs.gene_supply[g, c]
        for p in range(P):
            n += cs.active_genes[g, p, c] + cs.passive_genes[g, p, c]
        if n != cr.numbers[N_GENE_CUBES] or cs.gene_supply[g, c] < 0:
            return 6
    for p in range(P):
        genes = 0
        for c in range(cs.gene_supply.shape[1]):
            if cs.active_genes[g, p, c] < 0 or cs.passive_genes[g, p, c] < 0:
                return 5
            genes += cs.active_genes[g, p, c] + cs.passive_genes[g, p, c]
        if genes > cr.numbers[N_MAX_GENES]:
            return 5  # I5
        if cs.eliminated[g, p] == 0 and not 0 <= cs.irradiation[g, p] <= cr.numbers[N_IRRADIATION_MAX]:
            return 7  # I7
        if not 0 <= cs.fate[g, p] <= cr.numbers[N_FATE_MAX]:
            return 8  # I8
        tokens = board_tokens(cs, g, p)
        if (cs.eliminated[g, p] != 0) == (tokens > 0):
            return 9  # I9
    if cs.clock[g] < 1 or cs.clock[g] != cr.rounds - cs.round[g] + 1:
        return 10  # I10
    return 0


@kernel
def absorbed(cs, cr, g):
    """I12, right after III.2 (X5): every group an area charges is charged. 0 if it holds, else 12."""
    for room in range(cs.owner.shape[1]):
        if left_uncharged(cs, cr, g, room):
            return 12
    return 0
