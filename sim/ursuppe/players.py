"""Player-level facts the phases share: turn order (§0), genes held, amoebas on the board."""

from sim.jit import kernel
from sim.ursuppe.genes import LIFE_EXPECTANCY
from sim.ursuppe.state import State  # noqa: F401  (registers the kernel argument types)

ORDER_SLOT = 0  # Workspace.scratch[b, 0:8]: the current phase's player order
# Workspace.scratch[b, SPACE_AMOEBAS + s] and [b, SPACE_OWN + s]: amoebas on space s, of all players
# and of one player (count_amoebas); a board has at most 127 spaces (rules: int8). The slot of
# s = -1, before each, collects the amoebas in the supply: counting then takes no branch per
# amoeba (those mispredicted branches made the count three times slower).
SPACE_AMOEBAS = 257
SPACE_OWN = 385


@kernel
def turn_order(st, wk, g, b, descending):
    """Write the players sorted by score position into scratch[b, 0:P] (§0: positions are distinct)."""
    P = st.score.shape[1]
    order = wk.scratch[b]
    for i in range(P):
        order[ORDER_SLOT + i] = i
    for i in range(1, P):  # insertion sort: P <= 6
        j = i
        while j > 0:
            x = order[ORDER_SLOT + j - 1]
            y = order[ORDER_SLOT + j]
            if (st.score[g, y] < st.score[g, x]) != descending and st.score[g, y] != st.score[g, x]:
                order[ORDER_SLOT + j - 1] = y
                order[ORDER_SLOT + j] = x
                j -= 1
            else:
                break


@kernel
def count_amoebas(st, wk, g, b, p, n_spaces):
    """Count the amoebas on every space, of all players and of player p, into the scratch row:
    one pass over the amoebas instead of one per space asked about."""
    row = wk.scratch[b]
    for s in range(-1, n_spaces):
        row[SPACE_AMOEBAS + s] = 0
        row[SPACE_OWN + s] = 0
    for q in range(st.space.shape[1]):
        own = 1 if q == p else 0
        for t in range(st.space.shape[2]):
            here = int(st.space[g, q, t])  # -1: the supply slot; int8 would overflow in plain Python
            row[SPACE_AMOEBAS + here] += 1
            row[SPACE_OWN + here] += own


@kernel
def count_own_amoebas(st, wk, g, b, p, n_spaces):
    """Count player p's amoebas on every space into the scratch row (SPACE_OWN only)."""
    row = wk.scratch[b]
    for s in range(-1, n_spaces):
        row[SPACE_OWN + s] = 0
    for a in range(st.space.shape[2]):
        here = int(st.space[g, p, a])  # -1: the supply slot; int8 would overflow in plain Python
        row[SPACE_OWN + here] += 1


@kernel
def has(st, g, p, gene):
    """True if player p holds ``gene``."""
    return st.genes[g, p, gene] != 0


@kernel
def blocked_by_advanced(st, ru, g, p):
    """G4: bit mask of the genes player p may not buy because it holds an advanced gene above them."""
    blocked = 0
    for adv in range(st.genes.shape[2]):
        if st.genes[g, p, adv] != 0:
            for j in range(ru.gene_lower.shape[1]):
                lower = int(ru.gene_lower[adv, j])  # int8: plain Python would overflow the shift
                if lower >= 0:
                    blocked |= 1 << lower
    return blocked


@kernel
def amoebas_on_board(st, g, p):
    n = 0
    for a in range(st.space.shape[2]):
        if st.space[g, p, a] >= 0:
            n += 1
    return n


@kernel
def death_threshold(st, ru, g, p):
    """X1: DP at which an amoeba dies (Life Expectancy raises it)."""
    if st.genes[g, p, LIFE_EXPECTANCY] != 0:
        return ru.death_dp_life_expectancy
    return ru.death_dp


@kernel
def weighted_cards(st, ru, g, p):
    """K2: gene cards held, an advanced gene counting 2 and Ray Protection 0 (rules: weight)."""
    n = 0
    for i in range(st.genes.shape[2]):
        if st.genes[g, p, i] != 0:
            n += ru.gene_weight[i]
    return n


@kernel
def mutation_points(st, ru, g, p):
    """E2: the sum of the MP of the player's genes (Ray Protection counts -2)."""
    m = 0
    for i in range(st.genes.shape[2]):
        if st.genes[g, p, i] != 0:
            m += ru.gene_mp[i]
    return m
