"""The end of the game (W1, V4): after Phase 6, a marker in the finish zone or the last card."""

from sim.jit import kernel
from sim.ursuppe.engine.events import EV_END, log
from sim.ursuppe.engine.players import player_result
from sim.ursuppe.engine.state import END_FINISH_ZONE, END_LAST_CARD

PHASE = 7


@kernel
def end_check(st, ru, wk, g):
    """W1: end the game if a marker is at or beyond the finish-zone start or if this round
    revealed the last environment card; the furthest marker wins. TA4: in a double play the
    player whose worse marker is further ahead wins, named by its first colour (players.
    player_result; TB3: double play II's one marker). TD8: the dummy (the last player, so
    ``best`` starts at a real one) never wins, and ends the game only if it scores."""
    P = st.seat.shape[1]
    best = 0
    zone = False
    for p in range(P):
        if p == ru.dummy:
            if ru.dummy_scores and st.score[g, p] >= ru.finish_zone_start:
                zone = True
            continue
        if player_result(st, ru, g, p) > player_result(st, ru, g, best):
            best = p
        if st.score[g, p] >= ru.finish_zone_start:
            zone = True
    last = st.deck_pos[g] >= st.n_cards[g] - 1
    if zone or last:
        st.finished[g] = True
        st.end_reason[g] = END_FINISH_ZONE if zone else END_LAST_CARD
        st.winner[g] = best
        log(st, wk, g, EV_END, PHASE, -1, -1, best, st.end_reason[g], 0, 0, 0, 0, 0)
    return st.finished[g]
