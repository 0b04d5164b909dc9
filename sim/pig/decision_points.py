"""Pig's decision points (issue 33; the protocol: sim.game.Replay): its one decision, roll again
or hold (PG2, PG4), with the options HOLD (0) and ROLL (1) in that order.

A game of a run is replayed in the batch engine with the taped seats' choices so far on
``PigBatch.tape``, ending in ``TAPE_STOP`` to stop at the next one; rollouts are one batch, the
same game once per fork key, forked at the last choice (engine.forced_roll: Pig hides nothing but
its future dice and draws, so a fork re-keys its streams and nothing else).
"""

from collections.abc import Sequence

import numpy as np

from sim.errors import GameError
from sim.game import Choice, DecisionPoint, ReplayBase, check_rollouts, seat_mask
from sim.pig import batch as batch_mod
from sim.pig import engine
from sim.pig.rules import RULE_TARGET

OPTIONS = np.array([[engine.HOLD], [engine.ROLL]], dtype=np.int64)


def put_tapes(
    b: batch_mod.PigBatch, tapes: Sequence[Sequence[Choice]], stop: bool, masks: np.ndarray
) -> None:
    """Game i's tape: the choices ``tapes[i]`` (ending in TAPE_STOP if ``stop``) of the players
    in bit mask ``masks[i]``."""
    for g, tape in enumerate(tapes):
        b.tape[g, engine.TAPE_HEAD : engine.TAPE_HEAD + len(tape)] = [c.row[0] for c in tape]
        if stop:
            b.tape[g, engine.TAPE_HEAD + len(tape)] = engine.TAPE_STOP
        b.tape[g, engine.TAPE_LEN] = len(tape) + (1 if stop else 0)
    b.tape[: len(tapes), engine.TAPE_SEATS] = masks


class PigReplay(ReplayBase):
    """Game ``game`` of ``run`` (a PigRun; ``holds`` its strategies' hold thresholds) as decision
    points of the players in ``seats``."""

    def __init__(self, run, holds: np.ndarray, game: int, seats: Sequence[int] | None = None) -> None:
        self.run = run
        self.game = int(game)
        self.players = run.players
        self.hold = holds[run.strategy_rows(np.array([self.game]))][0]
        self.seat_mask = seat_mask(self.players, seats)

    def _play(
        self, tapes: list[Sequence[Choice]], stop: bool, forks: Sequence[int] | None
    ) -> batch_mod.PigBatch:
        n = len(tapes)
        b = batch_mod.new_batch(
            self.run.rules,
            np.tile(self.hold, (n, 1)),
            self.run.seed,
            np.full(n, self.game, np.int64),
            tape_capacity=max(len(t) for t in tapes) + 1,
        )
        put_tapes(b, tapes, stop, np.full(n, self.seat_mask))
        if forks is not None:
            b.tape[:, engine.TAPE_FORK_AT] = [len(t) - 1 for t in tapes]
            b.tape[:, engine.TAPE_FORK_KEY] = np.asarray(forks, dtype=np.uint64).view(np.int64)
        batch_mod.play(b)
        for g in np.flatnonzero(b.games[:, engine.ERROR]):
            if not stop or b.games[g, engine.ERROR] != engine.ERR_DECISION_POINT:
                raise GameError(f"game {self.game}: invariant {b.games[g, engine.ERROR]} broken")
        return b

    def point(self, choices: Sequence[Choice]) -> DecisionPoint | None:
        b = self._play([choices], stop=True, forks=None)
        if b.games[0, engine.ERROR] != engine.ERR_DECISION_POINT:
            return None
        index = int(b.tape[0, engine.TAPE_POS])
        p = int(b.games[0, engine.CURRENT])
        hold, score, total = int(self.hold[p]), int(b.scores[0, p]), int(b.games[0, engine.TURN_TOTAL])
        target = int(self.run.rules.row()[RULE_TARGET])
        # the seat's strategy's choice (strategies/pig/policy.py), unknown for the random one's coin
        default = -1 if hold == 0 else int(total < hold and score + total < target)
        return DecisionPoint(index, p, 0, "roll", OPTIONS.copy(), default)

    def rollouts(
        self, tapes: Sequence[Sequence[Choice]], forks: Sequence[int] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        check_rollouts(tapes, forks)
        b = self._play(list(tapes), stop=False, forks=forks)
        scores = b.scores.astype(np.float64)
        return scores, batch_mod.ranks(b.scores) == 1
