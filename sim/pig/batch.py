"""Pig's batches on the Python side: allocate the struct of arrays, play it on threads, rank it."""

from typing import NamedTuple

import numpy as np

from sim import threads
from sim.pig.engine import GAME_FIELDS, N_STREAMS, NO_DIE, TAPE_FORK_AT, TAPE_HEAD, play_block, seat_players
from sim.pig.rules import PigRules
from sim.random_stream import seed_streams


class PigBatch(NamedTuple):
    """A batch of games: every field's leading axis is the game."""

    rules: PigRules
    games: np.ndarray  # int64 [G, GAME_FIELDS]
    scores: np.ndarray  # int32 [G, P]
    hold: np.ndarray  # int32 [G, P]: each player's strategy (strategies.pig: its hold threshold)
    seat: np.ndarray  # int8 [G, P]: each player's start space 1..P (PG1)
    dice: np.ndarray  # int64 [G, D]: forced dice of a scenario, NO_DIE past them
    key: np.ndarray  # uint64 [G, N_STREAMS]
    ctr: np.ndarray  # uint64 [G, N_STREAMS]
    game_index: np.ndarray  # int64 [G]
    tape: np.ndarray  # int64 [G, TAPE_HEAD + T]: forced choices (decision points; engine.py)


def new_batch(
    rules: PigRules,
    hold: np.ndarray,
    seed: int,
    game_index: np.ndarray,
    dice: np.ndarray | None = None,
    tape_capacity: int = 0,
) -> PigBatch:
    """A batch at the start of every game: scores 0, the seats drawn (PG1); room for
    ``tape_capacity`` forced choices a game (decision points, issue 33)."""
    G, P = hold.shape
    key, ctr = seed_streams(seed, game_index, N_STREAMS)
    forced = np.full((G, 1), NO_DIE, dtype=np.int64) if dice is None else np.asarray(dice, dtype=np.int64)
    b = PigBatch(
        rules,
        np.zeros((G, GAME_FIELDS), dtype=np.int64),
        np.zeros((G, P), dtype=np.int32),
        np.ascontiguousarray(hold, dtype=np.int32),
        np.zeros((G, P), dtype=np.int8),
        forced,
        key,
        ctr,
        np.asarray(game_index, dtype=np.int64),
        np.zeros((G, TAPE_HEAD + tape_capacity), dtype=np.int64),
    )
    b.tape[:, TAPE_FORK_AT] = -1
    seat_players(b.games, b.seat, key, ctr)
    return b


def play(batch: PigBatch, threads_: int = 1, check: bool = False, turns: int = 0) -> PigBatch:
    """Play every game of the batch to the end (or ``turns`` more turns) on ``threads_`` threads."""
    n_blocks = max(1, min(64, len(batch.game_index)))
    rules = batch.rules.row()
    arrays = (
        batch.games,
        batch.scores,
        batch.hold,
        batch.seat,
        batch.dice,
        rules,
        batch.tape,
        batch.key,
        batch.ctr,
    )
    threads.run_blocks(play_block, n_blocks, threads_, lambda t: arrays, (n_blocks, int(check), turns))
    return batch


def ranks(scores: np.ndarray) -> np.ndarray:
    """Rank of every player (1 = the best score; ties share a rank: PG5, PG6)."""
    return (scores[:, None, :] > scores[:, :, None]).sum(axis=2).astype(np.int8) + 1
