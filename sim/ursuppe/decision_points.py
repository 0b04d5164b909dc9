"""Ursuppe's decision points (issue 33; the protocol: sim.game.Replay).

A game is replayed from its start in the batch engine with the choices so far on the workspace's
tape (the scenario runner's forced choices), restricted to the taped seats
(``Workspace.tape_seats``). To stop at the next decision the tape ends in a ``TAPE_STOP`` entry:
the engine names the decision in its error slots (``ERR_DECISION_POINT``) and copies its legal
options, the rows it lists for every forced choice (placements expanded to every amoeba number,
E2's payments walked into a list). Rollouts are one batch: the same game once per fork key, each
forked at the last choice (engine/fork.py).
"""

from collections.abc import Sequence
from typing import Any

import numpy as np

from sim.errors import GameError
from sim.game import Choice, DecisionPoint, TapeArrays, TapedReplay, seat_mask
from sim.ursuppe.engine import batch as batch_mod
from sim.ursuppe.engine.decision_kinds import DECISION_KINDS, KIND_CHOICE_KEY
from sim.ursuppe.engine.decisions import TAPE_STOP
from sim.ursuppe.engine.state import ERR_DECISION_POINT, OPTION_WIDTH, Workspace
from sim.ursuppe.rules.book import VARIANT_PLAYER_OF
from strategies.ursuppe.params import parameter_table


def put_tapes(wk: Workspace, tapes: Sequence[Sequence[Choice]], stop: bool, seat_masks: np.ndarray) -> None:
    """Game i's tape: the choices ``tapes[i]`` (ending in TAPE_STOP if ``stop``) of the colours in
    bit mask ``seat_masks[i]``."""
    for g, tape in enumerate(tapes):
        for t, c in enumerate(tape):
            wk.tape_kind[g, t] = KIND_CHOICE_KEY[c.kind]
            wk.tape_value[g, t, : len(c.row)] = c.row
        if stop:
            wk.tape_kind[g, len(tape)] = TAPE_STOP
        wk.tape_len[g] = len(tape) + (1 if stop else 0)
    wk.tape_seats[: len(tapes)] = seat_masks


def _choice_key(kind: int) -> int:
    return int(KIND_CHOICE_KEY[kind])


class UrsuppeReplay(TapedReplay):
    """Game ``game`` of ``run`` (a sim.ursuppe.simulation.UrsuppeRun) as decision points of the
    colours in ``seats`` (default: all)."""

    def __init__(self, run: Any, game: int, seats: Sequence[int] | None = None) -> None:
        self.run = run
        self.game = int(game)
        self.rules = run.rulebook.for_players(run.players, run.variant)
        self.players = run.colours()
        self.params = parameter_table(run.strategies)
        games = np.array([self.game], np.int64)
        self.rows = run.colour_rows(games)[0]
        self.seat_mask = seat_mask(self.players, seats)
        if self.seat_mask >= 1 << 31:
            raise ValueError("seats: at most 31 players")
        self.tape = TapeArrays(_choice_key, OPTION_WIDTH, TAPE_STOP)
        # A 2-player variant's outcomes are by colour: the player each belongs to (-1: the dummy)
        self.teams = None if run.variant is None else VARIANT_PLAYER_OF[run.variant]

    def _new(self, n: int, capacity: int, forks: Sequence[int] | None) -> batch_mod.Batch:
        """A batch of the game ``n`` times, keyed, with room for ``capacity`` tape entries (the
        taped seats set), forked at its tape's last entry with key ``forks[i]`` if given. One
        block: a replay plays on one thread (a run plays its games' searches on its threads)."""
        b = batch_mod.new_batch(
            self.rules,
            self.params,
            self.rows,
            self.run.seed,
            np.full(n, self.game, np.int64),
            tape_capacity=capacity,
            n_blocks=1,
        )
        wk = b.workspace
        wk.tape_seats[:] = self.seat_mask
        if forks is not None:
            wk.fork_key[:] = np.asarray(forks, dtype=np.uint64)
        return b

    def batch(
        self, tapes: list[Sequence[Choice]], stop: bool, forks: Sequence[int] | None
    ) -> batch_mod.Batch:
        """A batch of the game once per tape, keyed and taped, not yet played: ``stop`` ends each
        tape in TAPE_STOP, ``forks`` fork game i at its last choice with key ``forks[i]``."""
        n = len(tapes)
        b = self._new(n, max(len(t) for t in tapes) + 1, forks)
        put_tapes(b.workspace, tapes, stop, np.full(n, self.seat_mask))
        if forks is not None:
            b.workspace.fork_at[:] = [len(t) - 1 for t in tapes]
        return b

    def _play(
        self, tapes: list[Sequence[Choice]], stop: bool, forks: Sequence[int] | None
    ) -> batch_mod.Batch:
        return self._finish(self.batch(tapes, stop, forks))

    def _check(self, b: batch_mod.Batch, allowed: int) -> None:
        for g in np.flatnonzero(b.workspace.error[:, 0] != 0):
            row = b.workspace.error[g]
            if row[0] != allowed:
                raise GameError(f"game {self.game}: {batch_mod.describe_error(row)}")

    def point(self, choices: Sequence[Choice]) -> DecisionPoint | None:
        b = self._new(1, len(choices) + 1, None)
        self.tape.put(b.workspace, choices)
        batch_mod.play(b, seating=self.run.seating)
        self._check(b, ERR_DECISION_POINT)
        wk = b.workspace
        if wk.error[0, 0] != ERR_DECISION_POINT:
            return None
        index, kind, player = (int(x) for x in wk.error[0, 1:4])
        n = int(wk.n_error_options[0])
        width = DECISION_KINDS[kind].width
        options = wk.error_options[0, :n, :width].copy()
        return DecisionPoint(index, player, kind, DECISION_KINDS[kind].name, options, int(wk.stop_choice[0]))

    def _finish(self, b: batch_mod.Batch) -> batch_mod.Batch:
        return batch_mod.play(b, seating=self.run.seating)

    def _outcomes(self, b: batch_mod.Batch) -> tuple[np.ndarray, np.ndarray]:
        self._check(b, 0)
        st = b.state
        score = st.score.astype(np.float64)
        won = np.zeros(st.score.shape, bool)
        won[np.arange(len(won)), st.winner] = True
        if self.teams is not None:  # each colour has its player's result and win (TA4, TB3, TD8)
            team = np.asarray(self.teams)
            for t in (0, 1):
                score[:, team == t] = score[:, team == t].min(axis=1, keepdims=True)
                won[:, team == t] = won[:, team == t].any(axis=1, keepdims=True)
        return score, won
