"""A round robin of strategies and its equilibrium: every pair of strategies plays head to head
(half the seats each, seats alternating), giving a win-rate matrix; analysis.equilibrium finds
the meta-game's Nash mix."""

from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from analysis.equilibrium import Equilibrium, equilibrium
from sim.experiments.arms import Arm, play_arm
from sim.game import Game


def pairs(rules: Any, strategies: list[str], players: int) -> dict[tuple[int, int], Arm]:
    """Each pair (i, j) of ``strategies`` as an arm: i on the even players, j on the odd ones."""
    out = {}
    for i, j in combinations(range(len(strategies)), 2):
        seats = ",".join(strategies[i] if p % 2 == 0 else strategies[j] for p in range(players))
        out[i, j] = Arm(f"{strategies[i]} vs {strategies[j]}", rules, strategies=seats)
    return out


def round_robin(
    game: Game, rules: Any, strategies: list[str], players: int, seed: int, games: int, out: Path, **arm: Any
) -> tuple[np.ndarray, Equilibrium]:
    """The win-rate matrix (row strategy's win rate against the column's, among the pair's wins)
    and its equilibrium. Pair (i, j) seats i on the even players and j on the odd ones, so the
    start spaces, drawn per game, rotate between them. ``arm``: how each pair's run is played
    (sim.experiments.arms.play_arm's threads, backend, variant, play)."""
    k = len(strategies)
    w = np.full((k, k), 0.5)
    for (i, j), pair in pairs(rules, strategies, players).items():
        rows = play_arm(game, pair, players, seed, games, Path(out) / f"{i:02d}-{j:02d}", **arm)
        wins_i = rows.filter(rows["strategy"] == strategies[i])["won"].sum()
        wins_j = rows.filter(rows["strategy"] == strategies[j])["won"].sum()
        total = wins_i + wins_j
        w[i, j] = wins_i / total if total else 0.5
        w[j, i] = 1.0 - w[i, j]
    return w, equilibrium(w, strategies)
