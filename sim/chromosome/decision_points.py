"""Chromosome's decision points (issue 33; the protocol: sim.game.Replay).

As Ursuppe's (sim/ursuppe/decision_points.py): game ``game`` of a run replayed in the batch engine
with the choices so far on the tape of the taped seats, ending in a ``TAPE_STOP`` entry to stop at
the next decision (the engine keeps its options in ``Workspace.stop_options``); rollouts are one
batch, the same game once per fork key, forked at the last choice (engine/fork.py). Players are the
run's (its rows' ``player``); the engine plays them in seat order (0 starts, S6).
"""

from collections.abc import Sequence

import numpy as np

from sim.chromosome.engine import batch as batch_mod
from sim.chromosome.engine.decision_kinds import DECISION_KINDS
from sim.chromosome.engine.decisions import TAPE_STOP
from sim.chromosome.engine.state import ERR_DECISION_POINT, OPTION_WIDTH, Workspace, rules_for
from sim.errors import GameError
from sim.game import Choice, DecisionPoint, TapeArrays, TapedReplay, seat_mask


def put_tapes(wk: Workspace, tapes: Sequence[Sequence[Choice]], stop: bool, engine_masks: np.ndarray) -> None:
    """Game i's tape: the choices ``tapes[i]`` (ending in TAPE_STOP if ``stop``) of the engine's
    players in bit mask ``engine_masks[i]``."""
    for g, tape in enumerate(tapes):
        for t, c in enumerate(tape):
            wk.tape_kind[g, t] = c.kind
            wk.tape_value[g, t, : len(c.row)] = c.row
        if stop:
            wk.tape_kind[g, len(tape)] = TAPE_STOP
        wk.tape_len[g] = len(tape) + (1 if stop else 0)
    wk.tape_seats[: len(tapes)] = engine_masks


def engine_masks(masks: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """The run's players' bit masks (one per game) as the engine's: player p sits at ``seat[g, p]``."""
    out = np.zeros(len(masks), np.int64)
    for p in range(seat.shape[1]):
        out |= ((np.asarray(masks) >> p) & 1) << seat[:, p]
    return out


class ChromosomeReplay(TapedReplay):
    """Game ``game`` of ``run`` (a ChromosomeRun; ``params`` its strategies' rows) as decision
    points of the players in ``seats``."""

    def __init__(self, run, params: np.ndarray, game: int, seats: Sequence[int] | None = None) -> None:
        self.run = run
        self.game = int(game)
        self.players = run.players
        self.rules = rules_for(run.rules, run.players)
        self.params = params
        games = np.array([self.game], np.int64)
        rows = run.strategy_rows(games)
        self.seat = run.seating(games)[0]  # the engine's index (seat) of each of the run's players
        by_seat = np.zeros_like(rows)
        np.put_along_axis(by_seat, self.seat[None, :], rows, axis=1)
        self.rows = by_seat[0].astype(np.int16)
        self.seat_mask = seat_mask(self.players, seats, self.seat)
        self.tape = TapeArrays(int, OPTION_WIDTH, TAPE_STOP)

    def _new(self, n: int, capacity: int, forks: Sequence[int] | None) -> batch_mod.Batch:
        """The game ``n`` times, keyed, the taped seats set, room for ``capacity`` tape entries,
        fork keys ``forks`` if given; one block (a run threads over games, not within a replay)."""
        b = batch_mod.new_batch(
            self.rules,
            self.params,
            np.tile(self.rows, (n, 1)),
            self.run.seed,
            np.full(n, self.game, np.int64),
            n_blocks=1,
            tape_capacity=capacity,
        )
        b.workspace.tape_seats[:] = self.seat_mask
        if forks is not None:
            b.workspace.fork_key[:] = np.asarray(forks, dtype=np.uint64)
        return b

    def _run(self, b: batch_mod.Batch, stop: bool) -> batch_mod.Batch:
        wk = b.workspace
        batch_mod.play(b)
        for g in np.flatnonzero(wk.error[:, 0] != 0):
            if wk.error[g, 0] != (ERR_DECISION_POINT if stop else 0):
                raise GameError(f"game {self.game}: engine error {wk.error[g].tolist()}")
        return b

    def _play(
        self, tapes: list[Sequence[Choice]], stop: bool, forks: Sequence[int] | None
    ) -> batch_mod.Batch:
        n = len(tapes)
        b = self._new(n, max(len(t) for t in tapes) + 1, forks)
        put_tapes(b.workspace, tapes, stop, np.full(n, self.seat_mask))
        if forks is not None:
            b.workspace.fork_at[:] = [len(t) - 1 for t in tapes]
        return self._run(b, stop)

    def point(self, choices: Sequence[Choice]) -> DecisionPoint | None:
        b = self._new(1, len(choices) + 1, None)
        self.tape.put(b.workspace, choices)
        wk = self._run(b, True).workspace
        if wk.error[0, 0] != ERR_DECISION_POINT:
            return None
        index, kind, player = (int(x) for x in wk.error[0, 1:4])
        n = int(wk.n_stop_options[0])
        width = DECISION_KINDS[kind].width
        player = int(np.flatnonzero(self.seat == player)[0])
        options = wk.stop_options[0, :n, :width].copy()
        return DecisionPoint(index, player, kind, DECISION_KINDS[kind].name, options, int(wk.stop_choice[0]))

    def _finish(self, b: batch_mod.Batch) -> batch_mod.Batch:
        return self._run(b, False)

    def _outcomes(self, b: batch_mod.Batch) -> tuple[np.ndarray, np.ndarray]:
        out = batch_mod.outcomes(b)
        by_player = self.seat[None, :]  # the run's player p sits at engine index seat[p]
        score = np.take_along_axis(np.asarray(out["score"], np.float64), by_player, axis=1)
        return score, np.take_along_axis(np.asarray(out["won"], bool), by_player, axis=1)
