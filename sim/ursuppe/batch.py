"""Run batches of Ursuppe games from Python: the glue between rules, strategies and kernels."""

from dataclasses import dataclass

import numpy as np

from sim.ursuppe.game import play_batch, setup_batch
from sim.ursuppe.phases.setup import SEATING_GIVEN, SEATING_RANDOM, SEATING_ROTATE
from sim.ursuppe.rules import Rules
from sim.ursuppe.state import State, Workspace, allocate_state, allocate_workspace, seed_state

SEATING_MODES = {"random": SEATING_RANDOM, "rotate": SEATING_ROTATE, "given": SEATING_GIVEN}


class GameError(RuntimeError):
    """A game stopped with an error recorded in its workspace (see state.ERR_*)."""


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
) -> Batch:
    """Allocate and key a batch. ``seats_strategy[g, p]`` is the params row of player p in game g
    (a 1-D array of length P applies to every game)."""
    G = len(game_indices)
    st = allocate_state(G, rules)
    seed_state(st, seed, np.asarray(game_indices, dtype=np.int64))
    st.strategy[:] = np.asarray(seats_strategy, dtype=np.int16)
    wk = allocate_workspace(
        G, rules.players, params, n_blocks=n_blocks, log_events=log_events, max_events=max_events,
        check_invariants=check_invariants, tape_capacity=tape_capacity, dice_capacity=dice_capacity,
    )
    return Batch(rules, st, wk)


def play(batch: Batch, seating: str = "random") -> Batch:
    """Set up and play every game of the batch to the end (S1-S6, rounds until W1)."""
    play_batch(batch.state, batch.rules, batch.workspace, SEATING_MODES[seating])
    return batch


def setup(batch: Batch, seating: str = "random") -> Batch:
    """S1-S6 only."""
    setup_batch(batch.state, batch.rules, batch.workspace, SEATING_MODES[seating])
    return batch


def first_error(batch: Batch) -> tuple[int, np.ndarray] | None:
    """(game, error row) of the first game that stopped with an error, or None."""
    bad = np.flatnonzero(batch.workspace.error[:, 0] != 0)
    if len(bad) == 0:
        return None
    g = int(bad[0])
    return g, batch.workspace.error[g].copy()
