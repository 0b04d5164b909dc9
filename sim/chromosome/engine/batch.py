"""A batch of Chromosome games: allocate, seat and seed them, play them on threads (one block of
games per worker, sim.threads), and read each player's outcome (spec E4-E6)."""

from typing import NamedTuple

import numpy as np

from sim import threads
from sim.chromosome.engine.round import play_block
from sim.chromosome.engine.scoring import score_all
from sim.chromosome.engine.state import (
    Rules,
    State,
    Workspace,
    allocate_state,
    allocate_workspace,
    by_reference,
    seed_state,
)
from sim.chromosome.rules.book import SPECIES


class Batch(NamedTuple):
    state: State
    rules: Rules
    workspace: Workspace
    n_blocks: int
    fixed_species: bool  # the species were given (S4: else each game draws them)


def new_batch(
    rules: Rules,
    params: np.ndarray,
    strategies: np.ndarray,
    seed: int,
    games: np.ndarray,
    *,
    species: np.ndarray | None = None,
    check_invariants: bool = False,
    log_events: bool = False,
    n_blocks: int = 64,
    tape_capacity: int = 0,
) -> Batch:
    """``strategies`` [G, P] (rows of ``params``); ``species`` [G, P] fixed, or None: drawn (S4);
    ``tape_capacity``: room for forced choices per game (decision points, issue 33)."""
    G = len(games)
    n_blocks = max(1, min(n_blocks, G))
    state = allocate_state(G, rules)
    seed_state(state, seed, np.asarray(games, dtype=np.int64))
    state.strategy[:] = strategies
    if species is not None:
        state.species[:] = species
    work = allocate_workspace(
        G,
        n_blocks,
        params,
        check_invariants=check_invariants,
        log_events=log_events,
        tape_capacity=tape_capacity,
    )
    return Batch(state, rules, work, n_blocks, species is not None)


def play(batch: Batch, threads_: int = 1) -> Batch:
    """Play every game of the batch to its end on ``threads_`` threads."""
    cs, cr, cw = by_reference(batch.state, batch.rules, batch.workspace)
    extra = (batch.n_blocks, int(batch.fixed_species))
    threads.run_blocks(play_block, batch.n_blocks, threads_, lambda t: (cs, cr, cw), extra)
    return batch


def outcomes(batch: Batch) -> dict[str, np.ndarray]:
    """E4-E6: per game and player: species, score, eliminated, won (E5), and the score's parts."""
    st = batch.state
    G, P = st.supply.shape
    cs, _ = by_reference(st, batch.rules)
    score_ = np.zeros((G, P), np.int16)
    won = np.zeros((G, P), np.int8)
    score_all(cs, score_, won)
    on_board = np.zeros((G, P), np.int16)
    for p in range(P):
        on_board[:, p] = np.where(st.owner == p, st.size, 0).sum(axis=1)
    return {
        "species": np.array(SPECIES)[st.species],
        "score": score_,
        "won": won.astype(bool),
        "eliminated": st.eliminated.astype(bool),
        "tokens": on_board,
        "trophies": st.trophies.sum(axis=2),
        "fate": st.fate,
        "irradiation": st.irradiation,
        "rounds": np.repeat(st.round[:, None], P, axis=1),
        "end_reason": np.repeat(st.end_reason[:, None], P, axis=1),
        "genes": st.active_genes + st.passive_genes,  # [G, P, colour]: held at the end
    }
