"""Run batches of Ursuppe games from Python: the glue between rules, strategies and kernels."""

import time
from dataclasses import dataclass

import numpy as np

from sim.errors import GameError  # noqa: F401 (raised by callers of first_error)
from sim.threads import run_blocks
from sim.ursuppe.engine import state as state_mod
from sim.ursuppe.engine.phases.setup import SEATING_GIVEN, SEATING_RANDOM, SEATING_ROTATE
from sim.ursuppe.engine.round import MODE_PHASE, MODE_PLAY, MODE_SETUP, run_block
from sim.ursuppe.engine.state import (
    State,
    Workspace,
    allocate_state,
    allocate_workspace,
    by_reference,
    seed_state,
)
from sim.ursuppe.rules.book import Rules

SEATING_MODES = {"random": SEATING_RANDOM, "rotate": SEATING_ROTATE, "given": SEATING_GIVEN}


@dataclass
class Batch:
    """A batch of games: their final (or current) state and the workspace they ran in."""

    rules: Rules
    state: State
    workspace: Workspace


def new_batch(
    rules: Rules,
    params: np.ndarray,
    seats_strategy: np.ndarray,
    seed: int,
    game_indices: np.ndarray,
    *,
    check_invariants: bool = False,
    log_events: bool = False,
    max_events: int = 20000,
    tape_capacity: int = 0,
    dice_capacity: int = 0,
    n_blocks: int = 64,
    n_cards: int | None = None,
    stream_decisions: bool = True,
) -> Batch:
    """Allocate and key a batch. ``seats_strategy[g, p]`` is the params row of player p in game g
    (a 1-D array of length P applies to every game); ``stream_decisions`` False lists the options
    of every decision (the same games: Workspace.stream_decisions)."""
    G = len(game_indices)
    st = allocate_state(G, rules, n_cards)
    seed_state(st, seed, np.asarray(game_indices, dtype=np.int64))
    st.strategy[:] = np.asarray(seats_strategy, dtype=np.int16)
    wk = allocate_workspace(
        G,
        rules.players,
        params,
        n_blocks=n_blocks,
        log_events=log_events,
        max_events=max_events,
        check_invariants=check_invariants,
        tape_capacity=tape_capacity,
        dice_capacity=dice_capacity,
        stream_decisions=stream_decisions,
    )
    return Batch(rules, st, wk)


def _run(batch: Batch, mode: int, arg: int, threads: int) -> Batch:
    run_blocks(
        run_block,
        batch.workspace.n_blocks,
        threads,
        lambda _t: by_reference(batch.state, batch.rules, batch.workspace),
        (mode, arg),
    )
    return batch


def play(batch: Batch, seating: str = "random", threads: int = 1) -> Batch:
    """Set up and play every game of the batch to the end (S1-S6, rounds until W1)."""
    return _run(batch, MODE_PLAY, SEATING_MODES[seating], threads)


def setup(batch: Batch, seating: str = "random", threads: int = 1) -> Batch:
    """S1-S6 only."""
    return _run(batch, MODE_SETUP, SEATING_MODES[seating], threads)


def advance_phase(batch: Batch, phase: int, threads: int = 1) -> Batch:
    """Advance every unfinished game by one phase (0 = S6 placements, 1-6, 7 = end check)."""
    return _run(batch, MODE_PHASE, phase, threads)


def play_rounds(
    batch: Batch, rounds: int | None = None, after_round=None, phase_seconds: list[float] | None = None
) -> Batch:
    """Play whole rounds (Phases 1-6 and the end check) phase by phase for every game, until all
    have finished (or stopped with an error), or ``rounds`` rounds; ``after_round(batch)`` is
    called after each; ``phase_seconds`` (8 numbers, by phase) gains each phase's wall time
    (soup bench --profile). The step-by-step twin of :func:`play` (same kernels, same results)."""
    st, wk = batch.state, batch.workspace
    limit = int(st.n_cards.max()) + 2 if rounds is None else rounds
    for _ in range(limit):
        if ((st.finished) | (wk.error[:, 0] != 0)).all():
            break
        for phase in range(1, 8):
            t = time.perf_counter()
            advance_phase(batch, phase)
            if phase_seconds is not None:
                phase_seconds[phase] += time.perf_counter() - t
        if after_round is not None:
            after_round(batch)
    if rounds is None:  # as play_group: a game still running after the last possible round is an error
        stuck = ~st.finished & (wk.error[:, 0] == 0)
        wk.error[stuck, 0] = state_mod.ERR_NO_END
    return batch


_ERROR_TEXT = {
    state_mod.ERR_WRONG_CHOICE_KIND: "a forced choice of another kind than the decision at hand",
    state_mod.ERR_ILLEGAL_CHOICE: "a forced choice the rules forbid",
    state_mod.ERR_MISSING_DIE: "the forced dice ran out",
    state_mod.ERR_TOO_MANY_OPTIONS: f"a decision had more than {state_mod.MAX_OPTIONS} legal options",
    state_mod.ERR_EVENT_OVERFLOW: "the event log is full",
    state_mod.ERR_NO_END: "the game ran past the last possible round",
}


def describe_error(row: np.ndarray) -> str:
    """One line for a game's error row (Workspace.error[g]): what failed, and where."""
    code = int(row[0])
    if code == state_mod.ERR_INVARIANT:
        phase = int(row[2])
        where = {0: "after setup", 7: "at the end-of-game check"}.get(phase, f"after Phase {phase}")
        return f"invariant I{int(row[1])} failed {where} (detail {int(row[3])}; spec §11)"
    text = _ERROR_TEXT.get(code, "engine error")
    return f"{text} (error {row.tolist()})"


def first_error(batch: Batch) -> tuple[int, np.ndarray] | None:
    """(game, error row) of the first game that stopped with an error, or None."""
    bad = np.flatnonzero(batch.workspace.error[:, 0] != 0)
    if len(bad) == 0:
        return None
    g = int(bad[0])
    return g, batch.workspace.error[g].copy()
