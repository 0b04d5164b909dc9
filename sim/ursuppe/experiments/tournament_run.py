"""The head-to-head run design of ``soup tournament``: two strategies, half the seats each.

It is a run design (what games are played), not command-line handling, so it lives next to
:class:`sim.ursuppe.simulation.UrsuppeRun`, where a notebook or test can build one without the CLI.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.ursuppe.rules.book import VARIANT_COLOURS
from sim.ursuppe.rules.seating import rotate_block
from sim.ursuppe.simulation import UrsuppeRun


@dataclass
class TournamentRun(UrsuppeRun):
    """A head-to-head run of strategies 0 (A) and 1 (B): the tables alternate between A,B,A(,B)
    and B,A,B(,A) in blocks of the rotate design's block (S5: P! games at 3-4 players, the
    balanced Latin square at 5-6), so with rotated seating each composition meets every seat
    assignment of the design equally often and A and B hold the same number of seats."""

    def _block(self) -> int:
        return rotate_block(self.colours())  # S5 rotates the colours (a 2-player variant's 3 or 4)

    def _tables(self) -> np.ndarray:
        first = np.arange(self.players, dtype=np.int16) % 2
        return np.stack([first, 1 - first])

    def spec(self) -> dict[str, Any]:
        """UrsuppeRun's spec plus the alternating assignment (a changed design is another run)."""
        doc = super().spec()
        doc["assignment"] = {"alternate": self._tables().tolist(), "block": self._block()}
        return doc

    def assignment(self, games: np.ndarray) -> np.ndarray:
        """Strategy row per player of each game: composition ``(game // block) % 2``."""
        return self._tables()[(np.asarray(games) // self._block()) % 2]


def tournament_games(games: int, players: int, variant: str | None = None) -> int:
    """Games per pair rounded up to a multiple of twice the rotate block (both compositions x the
    whole seating design: 2 P! at 3-4 players, 20 and 12 at 5 and 6; a 2-player variant's over its
    colours), so that both strategies hold every start space equally often."""
    block = 2 * rotate_block(players if variant is None else VARIANT_COLOURS[variant])
    return -(-games // block) * block
