"""Ursuppe's round (§6) and the batch kernels that advance many games at once.

The phases are per-game kernels (phases/). ``play_batch`` runs whole games: a ``prange`` over
blocks of games, each block playing its games one after another with its own scratch row, so a
game's data stays in cache while it is played. ``run_phase_batch`` advances every unfinished game
of a batch by one phase (scenarios, step-by-step debugging). Both call the same phase kernels,
so they agree; the plain-Python path (NUMBA_DISABLE_JIT=1) runs this very code uncompiled.

Results do not depend on the number of blocks or threads: every game reads only its own state
and its own random streams, and a scratch row is always written before it is read.
"""

from sim.jit import kernel, parallel_kernel, prange
from sim.ursuppe.invariants import check_invariants
from sim.ursuppe.phases.end_check import PHASE as PHASE_END
from sim.ursuppe.phases.end_check import end_check
from sim.ursuppe.phases.phase1_movement_feeding import phase1
from sim.ursuppe.phases.phase2_environment import phase2
from sim.ursuppe.phases.phase3_genes import phase3
from sim.ursuppe.phases.phase4_division import phase4
from sim.ursuppe.phases.phase5_deaths import phase5
from sim.ursuppe.phases.phase6_scoring import phase6
from sim.ursuppe.phases.setup import initial_placements, setup_position
from sim.ursuppe.state import ERR_NO_END

PHASE_SETUP = 0
PHASE_ROUND_END = 8  # pseudo-phase: the end check and the step to the next round


@kernel
def run_phase(st, ru, wk, g, b, phase):
    """Run one phase (0 = S6 placements, 1-6, 7 = end check and next round) of game g."""
    if phase == PHASE_SETUP:
        initial_placements(st, ru, wk, g, b)
    elif phase == 1:
        phase1(st, ru, wk, g, b)
    elif phase == 2:
        phase2(st, ru, wk, g, b)
    elif phase == 3:
        phase3(st, ru, wk, g, b)
    elif phase == 4:
        phase4(st, ru, wk, g, b)
    elif phase == 5:
        phase5(st, ru, wk, g, b)
    elif phase == 6:
        phase6(st, ru, wk, g, b)
    else:
        if not end_check(st, ru, wk, g):
            next_round(st, g)
    if wk.check_invariants:
        check_invariants(st, ru, wk, g, phase if phase <= 6 else PHASE_END)


@kernel
def next_round(st, g):
    """Advance the round counter and clear the per-round flags."""
    st.round[g] += 1
    for p in range(st.space.shape[1]):
        st.player_flags[g, p] = 0
        for a in range(st.space.shape[2]):
            st.amoeba_flags[g, p, a] = 0


@kernel
def play_round(st, ru, wk, g, b):
    """Phases 1-6 and the end check (W1) of the current round."""
    for phase in range(1, 8):
        run_phase(st, ru, wk, g, b, phase)
        if wk.error[g, 0] != 0:
            return


@kernel
def play_game(st, ru, wk, g, b):
    """Play game g from its current position to the end (or to an error)."""
    max_round = st.n_cards[g] + 1
    while not st.finished[g] and wk.error[g, 0] == 0:
        if st.round[g] > max_round:
            wk.error[g, 0] = ERR_NO_END
            return
        play_round(st, ru, wk, g, b)


@kernel
def new_game(st, ru, wk, g, b, seating):
    """S1-S6 for game g (its random streams must be keyed, see state.seed_state)."""
    setup_position(st, ru, wk, g, seating)
    run_phase(st, ru, wk, g, b, PHASE_SETUP)


@parallel_kernel
def play_batch(st, ru, wk, seating):
    """Set up and play every game of the batch to the end."""
    G = st.round.shape[0]
    B = wk.n_blocks
    for blk in prange(B):
        for g in range(blk * G // B, (blk + 1) * G // B):
            new_game(st, ru, wk, g, blk, seating)
            if wk.error[g, 0] == 0:
                play_game(st, ru, wk, g, blk)


@parallel_kernel
def setup_batch(st, ru, wk, seating):
    """S1-S6 for every game of the batch."""
    G = st.round.shape[0]
    B = wk.n_blocks
    for blk in prange(B):
        for g in range(blk * G // B, (blk + 1) * G // B):
            new_game(st, ru, wk, g, blk, seating)


@parallel_kernel
def run_phase_batch(st, ru, wk, phase):
    """Advance every unfinished, error-free game of the batch by one phase."""
    G = st.round.shape[0]
    B = wk.n_blocks
    for blk in prange(B):
        for g in range(blk * G // B, (blk + 1) * G // B):
            if not st.finished[g] and wk.error[g, 0] == 0:
                run_phase(st, ru, wk, g, blk, phase)
