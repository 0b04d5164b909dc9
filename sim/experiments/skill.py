"""The skill ladder (issue 33, ``soup skill``): how much playing better pays in a game.

Each rung is a strategy - random, the scripted presets, search at doubling budgets - seated at
player 0 against a fixed field (the game's default rollout strategy at every other seat), every
rung on the same seed and game indices, so the seats (rotated by the run) and the dice are the
same for every rung wherever the rung's play does not change them: the rungs are paired. The
ladder reports each rung's win rate with its 95% Wilson interval, the **skill depth** (the
strongest rung's win rate minus random's) and the **skill curve** of the search rungs: whether
doubling the budget still gains (the next rung's interval above the rung's win rate).
Ludii's SkillTrace (doubling a UCT budget until the win rate stops rising) is the model.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from analysis.intervals import wilson
from sim.experiments.arms import Arm, play_arm
from sim.game import Game


@dataclass(frozen=True)
class Rung:
    """One rung's result: player 0's wins (a shared win counts 1 / winners) in ``games`` games."""

    strategy: str
    games: int
    wins: float
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.wins / self.games


def default_rungs(game: Game, budgets: tuple[int, ...]) -> list[str]:
    """random, every preset, then search at ``budgets`` (the game's presets include its tuned ones)."""
    presets = [n for n in game.strategy_names() if n != game.info.random_strategy]
    return [game.info.random_strategy, *presets, *(f"search-{b}" for b in budgets)]


def ladder(
    game: Game,
    rules: Any,
    players: int,
    rungs: list[str],
    field: str,
    seed: int,
    games: int,
    out: Path,
    threads: int = 1,
) -> list[Rung]:
    """Play every rung against ``field`` (each its own resumable run under ``out``)."""
    results = []
    for k, strategy in enumerate(rungs):
        seats = ",".join([strategy] + [field] * (players - 1))
        rows = play_arm(
            game, Arm(strategy, rules, strategies=seats), players, seed, games, out / f"{k:02d}", threads
        )
        won = rows["won"].to_numpy().reshape(games, players)
        share = won[:, 0] / np.maximum(won.sum(axis=1), 1)
        wins = float(share.sum())
        low, high = wilson(wins, games)
        results.append(Rung(strategy, games, wins, float(low), float(high)))
    return results


def skill_depth(rungs: list[Rung], random_strategy: str) -> tuple[float, str]:
    """The strongest rung's win rate minus random's, and the strongest rung's name."""
    best = max(rungs, key=lambda r: r.rate)
    base = next((r.rate for r in rungs if r.strategy == random_strategy), 0.0)
    return best.rate - base, best.strategy


def skill_curve(rungs: list[Rung]) -> list[tuple[str, str, float, bool]]:
    """The search rungs in order: (rung, next rung, the gain, whether the next rung's interval lies
    above the rung's win rate: doubling still gains)."""
    search = [r for r in rungs if r.strategy.startswith("search")]
    return [
        (a.strategy, b.strategy, b.rate - a.rate, b.low > a.rate)
        for a, b in zip(search, search[1:], strict=False)
    ]


def figure(rungs: list[Rung], players: int, path: Path, title: str) -> Path:
    """Win rate per rung with its interval, parity dashed (a PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from analysis.figure_files import save_atomic

    fig, ax = plt.subplots(figsize=(max(5.0, 0.7 * len(rungs) + 2), 3.6))
    x = np.arange(len(rungs))
    rate = np.array([r.rate for r in rungs])
    err = np.array([[r.rate - r.low for r in rungs], [r.high - r.rate for r in rungs]])
    ax.errorbar(x, rate, yerr=err, fmt="o", capsize=3)
    ax.axhline(1 / players, linestyle="--", color="grey", linewidth=1)
    ax.set_xticks(x, [r.strategy for r in rungs], rotation=30, ha="right")
    ax.set_ylabel("win rate of the rung (95% CI)")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    fig.tight_layout()
    save_atomic(fig, path)
    plt.close(fig)
    return path
