"""The invariants of §11: all of them after every phase in debug mode (Workspace.check_invariants),
and a cheap set at the end of every game in every run (:func:`check_game_end`).

A failed check records ``ERR_INVARIANT`` with the invariant's number and the phase in
``Workspace.error[g]``; the game stops there and the caller reports it (a run stops at the first
game with an error). Besides I1-I9 of the spec the engine checks its own I10 (the counts kept
beside the state match what they count), I11 (the end of the game is consistent: W1) and I12
(double play II, TB3: a player's two colours hold equal copies of its marker, BP and genes; I4
and I6 then count each player once).
"""

import numpy as np

from sim.jit import kernel
from sim.ursuppe.engine.food import FOOD_CAP
from sim.ursuppe.engine.players import acts_for_player, death_threshold, player_result
from sim.ursuppe.engine.state import END_FINISH_ZONE, END_LAST_CARD, ERR_INVARIANT
from sim.ursuppe.rules.extra_flags import XF_UNBOUGHT_DISCARDED

PHASE_GAME_END = 7  # the phase a failed end-of-game check names (the end check, W1)


@kernel
def _fail(wk, g, invariant, phase, detail):
    if wk.error[g, 0] == 0:
        wk.error[g, 0] = ERR_INVARIANT
        wk.error[g, 1] = invariant
        wk.error[g, 2] = phase
        wk.error[g, 3] = detail


@kernel
def _check_cubes(st, ru, wk, g, phase):
    """I1: per colour, cubes on the board + supply = the colour's total; no count below 0."""
    for c in range(st.supply.shape[1]):
        total = int(st.supply[g, c])
        if st.supply[g, c] < 0:
            _fail(wk, g, 1, phase, c)
        for s in range(st.food.shape[1]):
            total += int(st.food[g, s, c])
            if st.food[g, s, c] < 0:
                _fail(wk, g, 1, phase, c)
        if total != ru.cubes_per_colour:
            _fail(wk, g, 1, phase, c)


@kernel
def _check_food_capped(st, ru, wk, g, phase):
    """I10 (the engine's own): ``food_capped`` is each space's food, at most FOOD_CAP a colour (food.py)."""
    for s in range(ru.n_spaces):
        capped = 0
        for c in range(st.supply.shape[1]):
            capped += min(int(st.food[g, s, c]), FOOD_CAP)
        if st.food_capped[g, s] != capped:
            _fail(wk, g, 10, phase, s)


@kernel
def _check_gene_masks(st, wk, g, phase):
    """I10 (the engine's own): ``held`` is ``genes`` and ``pooled`` the pool, as masks."""
    pooled = np.int64(0)
    for i in range(st.pool.shape[1]):
        if st.pool[g, i] > 0:
            pooled |= np.int64(1) << i
    if st.pooled[g] != pooled:
        _fail(wk, g, 10, phase, -1)
    for p in range(st.genes.shape[1]):
        held = np.int64(0)
        for i in range(st.genes.shape[2]):
            if st.genes[g, p, i] != 0:
                held |= np.int64(1) << i
        if st.held[g, p] != held:
            _fail(wk, g, 10, phase, p)


@kernel
def _check_turn_orders(st, wk, g, phase):
    """I10 (the engine's own): ``order`` holds every player once, by score (ascending, then
    descending), players on one space in colour order."""
    P = st.score.shape[1]
    for way in range(2):
        seen = 0
        for i in range(P):
            seen |= 1 << st.order[g, way, i]
        if seen != (1 << P) - 1:
            _fail(wk, g, 10, phase, -1)
        for i in range(1, P):
            x = st.order[g, way, i - 1]
            y = st.order[g, way, i]
            up = st.score[g, x] < st.score[g, y]
            if st.score[g, x] == st.score[g, y]:
                if x > y:
                    _fail(wk, g, 10, phase, y)
            elif up != (way == 0):
                _fail(wk, g, 10, phase, y)


@kernel
def _check_players(st, ru, wk, g, phase):
    """I2 amoebas on valid spaces (numbers are unique by construction: one slot per number); I3
    BP >= 0 and DP >= 0 (an overflowed count is negative); I5 one copy of a gene at most, and no
    advanced gene beside its only lower gene."""
    A = st.space.shape[2]
    NG = st.genes.shape[2]
    for p in range(st.space.shape[1]):
        for a in range(A):
            if st.space[g, p, a] < -1 or st.space[g, p, a] >= ru.n_spaces:
                _fail(wk, g, 2, phase, p)
        if st.bp[g, p] < 0:
            _fail(wk, g, 3, phase, p)
        for a in range(A):
            if st.dp[g, p, a] < 0:
                _fail(wk, g, 3, phase, p)
        for i in range(NG):
            if st.genes[g, p, i] < 0 or st.genes[g, p, i] > 1:
                _fail(wk, g, 5, phase, i)
            if st.genes[g, p, i] != 0 and ru.gene_lower[i, 0] >= 0 and ru.gene_lower[i, 1] < 0:
                if st.genes[g, p, ru.gene_lower[i, 0]] != 0:
                    _fail(wk, g, 5, phase, i)


@kernel
def _check_gene_copies(st, ru, wk, g, phase):
    """I4: per gene, copies in the pool + holders (+ face down in the extra deck, XM3) = copies
    for the player count (a double play II player's gene set counted once, TB3); with flag
    extra_unbought_discarded (XM5) a discarded card is in none of them, so at most. One copy of
    each extra gene (§18)."""
    for i in range(st.genes.shape[2]):
        held = 0
        for p in range(st.genes.shape[1]):
            if acts_for_player(ru, p):
                held += int(st.genes[g, p, i])
        face_down = 0
        if ru.extra_genes:
            for k in range(st.extra_top[g], ru.extra_deck.shape[0]):
                if st.extra_deck[g, k] == i:
                    face_down += 1
        total = int(st.pool[g, i]) + held + face_down
        if st.pool[g, i] < 0 or total > ru.gene_copies[i]:
            _fail(wk, g, 4, phase, i)
        elif total != ru.gene_copies[i] and ru.xflag[XF_UNBOUGHT_DISCARDED] == 0:
            _fail(wk, g, 4, phase, i)


@kernel
def _check_shared(st, ru, wk, g, phase):
    """I12 (the engine's own, double play II, TB3): a player's second colour holds the same
    marker, BP, flags and genes as its first (players.share_with_partner)."""
    for p in range(st.score.shape[1]):
        q = ru.partner[p]
        if q <= p:
            continue
        same = (
            st.score[g, p] == st.score[g, q]
            and st.bp[g, p] == st.bp[g, q]
            and st.player_flags[g, p] == st.player_flags[g, q]
        )
        for i in range(st.genes.shape[2]):
            if st.genes[g, p, i] != st.genes[g, q, i]:
                same = False
        if not same:
            _fail(wk, g, 12, phase, q)


@kernel
def _distinct_markers(st, ru, wk, g, phase):
    """I6: score positions distinct (a double play II player's two colours share one marker)."""
    P = st.score.shape[1]
    for p in range(P):
        for q in range(p + 1, P):
            if q != ru.partner[p] and st.score[g, p] == st.score[g, q]:
                _fail(wk, g, 6, phase, p)


@kernel
def _check_rounds(st, ru, wk, g, phase):
    """I9: rounds <= cards - 1 (<= cards when no card is revealed in round 1)."""
    limit = ru.deck_ozone.shape[0] - (1 if ru.first_round_flip else 0)
    if st.round[g] > limit:
        _fail(wk, g, 9, phase, st.round[g])


@kernel
def check_invariants(st, ru, wk, g, phase):
    """I1-I6, I8 (after setup), I9 and the engine's I10 (occupancy counts) for game g after
    ``phase`` (0 = setup, 7 = end check)."""
    P = st.supply.shape[1]
    A = st.space.shape[2]
    _check_cubes(st, ru, wk, g, phase)
    _check_players(st, ru, wk, g, phase)
    _check_gene_copies(st, ru, wk, g, phase)
    _check_shared(st, ru, wk, g, phase)
    # I6: score positions distinct and never decreasing.
    _distinct_markers(st, ru, wk, g, phase)
    for p in range(P):
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
    # the amoebas' spaces (players.put_amoeba), ``food_capped`` the food (food.py), the gene masks
    # ``held`` and ``pooled`` the genes held and the pool (gene_sets.py), ``order`` the scores
    # (players.sort_turn_orders).
    _check_food_capped(st, ru, wk, g, phase)
    _check_gene_masks(st, wk, g, phase)
    _check_turn_orders(st, wk, g, phase)
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
    _check_rounds(st, ru, wk, g, phase)


@kernel
def check_no_doomed_amoebas(st, ru, wk, g):
    """I7: after the natural deaths of Phase 5 no amoeba has DP at or above its threshold."""
    for p in range(st.space.shape[1]):
        threshold = death_threshold(st, ru, g, p)
        for a in range(st.space.shape[2]):
            if st.space[g, p, a] >= 0 and st.dp[g, p, a] >= threshold:
                _fail(wk, g, 7, 5, p)


@kernel
def check_game_end(st, ru, wk, g):
    """The cheap checks, on in every run: game g's final position, once, when the end check
    has ended it. They catch an impossible state (a defect in the engine or the rules data, an
    overflow) with a few hundred reads against the many thousands of a game, so that no such
    game is written as a result even when the full set (check_invariants) is off:

    I1 cubes per colour (and I10 the capped food sums), I2 amoebas on valid spaces (and I10
    the occupancy totals), I3 BP and DP >= 0, I4 gene copies, I5 one copy a gene, I6 scores
    distinct and >= 0 (an overflowed score is negative), I9 rounds, I11 the end (W1)."""
    P = st.supply.shape[1]
    A = st.space.shape[2]
    _check_cubes(st, ru, wk, g, PHASE_GAME_END)
    _check_food_capped(st, ru, wk, g, PHASE_GAME_END)
    _check_players(st, ru, wk, g, PHASE_GAME_END)
    # I10 (occupancy totals, not per space: cheap): each player's count, and all players'.
    all_on_board = 0
    for p in range(P):
        on_board = 0
        for a in range(A):
            if st.space[g, p, a] >= 0:
                on_board += 1
        counted = 0
        for s in range(ru.n_spaces + 1):
            counted += int(st.occupancy[g, p, s])
        if counted != on_board or st.occupancy[g, p, 0] != 0:
            _fail(wk, g, 10, PHASE_GAME_END, p)
        all_on_board += on_board
    counted = 0
    for s in range(ru.n_spaces + 1):
        counted += int(st.occupancy[g, P, s])
    if counted != all_on_board:
        _fail(wk, g, 10, PHASE_GAME_END, P)
    _check_gene_copies(st, ru, wk, g, PHASE_GAME_END)
    _check_shared(st, ru, wk, g, PHASE_GAME_END)
    # I6: positions distinct, on the track (>= 0: an overflowed int16 is negative).
    _distinct_markers(st, ru, wk, g, PHASE_GAME_END)
    for p in range(P):
        if st.score[g, p] < 0:
            _fail(wk, g, 6, PHASE_GAME_END, p)
    # I9, and a game ends after round 1 at the earliest.
    _check_rounds(st, ru, wk, g, PHASE_GAME_END)
    if st.round[g] < 1:
        _fail(wk, g, 9, PHASE_GAME_END, st.round[g])
    # I11 (W1): the game ended for its reason, and the furthest marker won (TA4: a double play's
    # player with the furthest worse marker, named by its first colour).
    w = st.winner[g]
    if not st.finished[g] or w < 0 or w >= P:
        _fail(wk, g, 11, PHASE_GAME_END, w)
        return
    if w == ru.dummy:  # TD8: the dummy never wins
        _fail(wk, g, 11, PHASE_GAME_END, w)
    furthest = st.score[g, w]
    for p in range(P):
        if p != ru.dummy and player_result(st, ru, g, p) > player_result(st, ru, g, w):
            _fail(wk, g, 11, PHASE_GAME_END, p)
        if p < w and ru.team[p] == ru.team[w]:
            _fail(wk, g, 11, PHASE_GAME_END, w)
        if p != ru.dummy or ru.dummy_scores:  # TD8: a scoring dummy may end the game
            furthest = max(furthest, st.score[g, p])
    if st.deck_pos[g] < 0 or st.deck_pos[g] >= st.n_cards[g]:
        _fail(wk, g, 11, PHASE_GAME_END, st.deck_pos[g])
    if st.end_reason[g] == END_FINISH_ZONE:
        if furthest < ru.finish_zone_start:
            _fail(wk, g, 11, PHASE_GAME_END, st.end_reason[g])
    elif st.end_reason[g] != END_LAST_CARD or st.deck_pos[g] < st.n_cards[g] - 1:
        _fail(wk, g, 11, PHASE_GAME_END, st.end_reason[g])
