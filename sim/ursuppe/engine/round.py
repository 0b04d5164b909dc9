"""Ursuppe's round (§6) and the batch kernels that advance many games at once.

The phases are per-game kernels (phases/). ``run_block`` is the one batch kernel: it takes one
block of the batch's games (sim.threads runs blocks on a pool of threads; the kernel releases the
GIL) and either plays them to the end, sets them up, or advances each by one phase (scenarios,
step-by-step debugging). A block plays its games in groups, phase-major (every game of the group
plays Phase 1, then every game Phase 2, ...), with the block's own scratch row: no phase keeps
anything in the scratch row for a later one. All modes call the same phase kernels; the
plain-Python path (NUMBA_DISABLE_JIT=1) runs this very code uncompiled.

Results do not depend on the number of blocks or threads: every game reads only its own state
and its own random streams, and a scratch row is always written before it is read.
"""

from sim.jit import kernel
from sim.ursuppe.engine import outcome_columns  # noqa: F401 (a kernel of the engine: compiled with it)
from sim.ursuppe.engine.invariants import check_game_end, check_invariants
from sim.ursuppe.engine.phases.end_check import PHASE as PHASE_END
from sim.ursuppe.engine.phases.end_check import end_check
from sim.ursuppe.engine.phases.phase1_movement_feeding import phase1
from sim.ursuppe.engine.phases.phase2_environment import phase2
from sim.ursuppe.engine.phases.phase3_genes import phase3
from sim.ursuppe.engine.phases.phase4_division import phase4
from sim.ursuppe.engine.phases.phase5_deaths import phase5
from sim.ursuppe.engine.phases.phase6_scoring import phase6
from sim.ursuppe.engine.phases.setup import initial_placements, setup_position
from sim.ursuppe.engine.state import ERR_NO_END

PHASE_SETUP = 0

MODE_PLAY = 0
MODE_SETUP = 1
MODE_PHASE = 2


@kernel
def next_round(st, g):
    """Advance the round counter and clear the per-round flags."""
    st.round[g] += 1
    for p in range(st.space.shape[1]):
        st.player_flags[g, p] = 0
        for a in range(st.space.shape[2]):
            st.amoeba_flags[g, p, a] = 0


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
    elif end_check(st, ru, wk, g):
        check_game_end(st, ru, wk, g)  # the cheap checks: every run, once a game
    else:
        next_round(st, g)
    if wk.check_invariants:
        check_invariants(st, ru, wk, g, phase if phase <= 6 else PHASE_END)


ROUND_GROUP = 256  # games a block plays phase by phase together (see run_block)


@kernel
def play_group(st, ru, wk, b, g0, g1):
    """Play games g0..g1-1 to the end, phase-major: every game of the group plays Phase 1, then
    every game Phase 2, and so on, round after round. The same kernels in the same order per
    game as one game played alone (the games share nothing), but one phase's code and branch history
    stay hot across the group instead of seven phases taking turns per game."""
    live = True
    while live:
        live = False
        for phase in range(1, 8):
            for g in range(g0, g1):
                if st.finished[g] or wk.error[g, 0] != 0:
                    continue
                if phase == 1 and st.round[g] > st.n_cards[g] + 1:
                    wk.error[g, 0] = ERR_NO_END
                    continue
                run_phase(st, ru, wk, g, b, phase)
                live = True


@kernel
def run_block(st, ru, wk, b, mode, arg):
    """Run block b of the batch (games b*G//B .. (b+1)*G//B - 1).

    mode MODE_PLAY: set up (seating mode ``arg``) and play every game to the end (in groups of
    ROUND_GROUP games, phase-major: play_group); MODE_SETUP: S1-S6 only; MODE_PHASE: advance
    every unfinished game by phase ``arg``.
    """
    G = st.round.shape[0]
    B = wk.n_blocks
    first = b * G // B
    end = (b + 1) * G // B
    if mode == MODE_PHASE:
        for g in range(first, end):
            if not st.finished[g] and wk.error[g, 0] == 0:
                run_phase(st, ru, wk, g, b, arg)
        return
    for g0 in range(first, end, ROUND_GROUP):
        g1 = min(g0 + ROUND_GROUP, end)
        for g in range(g0, g1):
            setup_position(st, ru, wk, g, arg)
            run_phase(st, ru, wk, g, b, PHASE_SETUP)
        if mode == MODE_PLAY:
            play_group(st, ru, wk, b, g0, g1)
