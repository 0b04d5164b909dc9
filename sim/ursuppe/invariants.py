"""The invariants of §11, checked after every phase in debug mode (Workspace.check_invariants).

A failed check records ``ERR_INVARIANT`` with the invariant's number and the phase in
``Workspace.error[g]``; the game stops there and the caller reports it.
"""

from sim.jit import kernel
from sim.ursuppe.food import FOOD_CAP
from sim.ursuppe.players import death_threshold
from sim.ursuppe.state import ERR_INVARIANT


@kernel
def _fail(wk, g, invariant, phase, detail):
    if wk.error[g, 0] == 0:
        wk.error[g, 0] = ERR_INVARIANT
        wk.error[g, 1] = invariant
        wk.error[g, 2] = phase
        wk.error[g, 3] = detail


@kernel
def check_invariants(st, ru, wk, g, phase):
    """I1-I6, I8 (after setup), I9 and the engine's I10 (occupancy counts) for game g after
    ``phase`` (0 = setup, 7 = end check)."""
    P = st.supply.shape[1]
    A = st.space.shape[2]
    NG = st.genes.shape[2]
    # I1: per colour, cubes on the board + supply = the colour's total; no count below 0.
    for c in range(P):
        total = st.supply[g, c]
        if st.supply[g, c] < 0:
            _fail(wk, g, 1, phase, c)
        for s in range(st.food.shape[1]):
            total += st.food[g, s, c]
            if st.food[g, s, c] < 0:
                _fail(wk, g, 1, phase, c)
        if total != ru.cubes_per_colour:
            _fail(wk, g, 1, phase, c)
    for p in range(P):
        # I2: amoebas on valid spaces (numbers are unique by construction: one slot per number).
        for a in range(A):
            if st.space[g, p, a] < -1 or st.space[g, p, a] >= ru.n_spaces:
                _fail(wk, g, 2, phase, p)
        # I3: BP >= 0 and DP >= 0.
        if st.bp[g, p] < 0:
            _fail(wk, g, 3, phase, p)
        for a in range(A):
            if st.dp[g, p, a] < 0:
                _fail(wk, g, 3, phase, p)
        # I5: one copy of a gene at most (a flag per gene); no advanced gene beside its only lower gene.
        for i in range(NG):
            if st.genes[g, p, i] < 0 or st.genes[g, p, i] > 1:
                _fail(wk, g, 5, phase, i)
            if st.genes[g, p, i] != 0 and ru.gene_lower[i, 0] >= 0 and ru.gene_lower[i, 1] < 0:
                if st.genes[g, p, ru.gene_lower[i, 0]] != 0:
                    _fail(wk, g, 5, phase, i)
    # I4: per gene, copies in the pool + holders = copies for the player count.
    for i in range(NG):
        held = 0
        for p in range(P):
            held += st.genes[g, p, i]
        if st.pool[g, i] < 0 or st.pool[g, i] + held != ru.gene_copies[i]:
            _fail(wk, g, 4, phase, i)
    # I6: score positions distinct and never decreasing.
    for p in range(P):
        for q in range(p + 1, P):
            if st.score[g, p] == st.score[g, q]:
                _fail(wk, g, 6, phase, p)
        if phase > 0 and st.score[g, p] < wk.score_seen[g, p]:
            _fail(wk, g, 6, phase, p)
        wk.score_seen[g, p] = st.score[g, p]
    # I8: after setup no space holds two amoebas.
    if phase == 0:
        for p in range(P):
            for a in range(A):
                s = st.space[g, p, a]
                if s < 0:
                    continue
                for q in range(P):
                    for t in range(A):
                        if (q != p or t != a) and st.space[g, q, t] == s:
                            _fail(wk, g, 8, phase, s)
    # I10 (the engine's own): the derived counts match what they are derived from: ``occupancy``
    # the amoebas' spaces (players.put_amoeba), ``food_capped`` the food (food.py).
    for s in range(ru.n_spaces):
        capped = 0
        for c in range(P):
            capped += min(st.food[g, s, c], FOOD_CAP)
        if st.food_capped[g, s] != capped:
            _fail(wk, g, 10, phase, s)
    for q in range(P + 1):
        if st.occupancy[g, q, 0] != 0:
            _fail(wk, g, 10, phase, q)
        for s in range(ru.n_spaces):
            n = 0
            for p in range(P):
                if q == P or p == q:
                    for a in range(A):
                        if st.space[g, p, a] == s:
                            n += 1
            if st.occupancy[g, q, s + 1] != n:
                _fail(wk, g, 10, phase, s)
    # I9: rounds <= cards - 1 (<= cards when no card is revealed in round 1).
    limit = ru.deck_ozone.shape[0] - (1 if ru.first_round_flip else 0)
    if st.round[g] > limit:
        _fail(wk, g, 9, phase, st.round[g])


@kernel
def check_no_doomed_amoebas(st, ru, wk, g):
    """I7: after the natural deaths of Phase 5 no amoeba has DP at or above its threshold."""
    for p in range(st.space.shape[1]):
        threshold = death_threshold(st, ru, g, p)
        for a in range(st.space.shape[2]):
            if st.space[g, p, a] >= 0 and st.dp[g, p, a] >= threshold:
                _fail(wk, g, 7, 5, p)
