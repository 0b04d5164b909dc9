"""The skill ladder (issue 33, ``soup skill``): how much playing better pays in a game.

Each rung is a strategy - random, the scripted presets, search at doubling budgets - seated at
player 0 against a fixed field (the game's default rollout strategy at every other seat), every
rung on the same seed and game indices, so the seats (rotated by the run) and the dice are the
same for every rung wherever the rung's play does not change them: the rungs are paired. The
ladder reports each rung's win rate with its 95% Wilson interval, the **skill depth** (the
strongest rung's win rate minus random's) and the **skill curve** of the search rungs: whether
doubling the budget still gains. Every comparison between two rungs is **paired**: the mean of
the per-game differences of player 0's win share on the same games, with its cluster-robust 95%
interval (analysis.intervals.cluster_contrast, the game as the cluster), which is much narrower
than two independent Wilson intervals since the games' luck cancels. Each rung is also read
against the field's own strategy at player 0 (the "fourth breeder" of a breeder field), when that
strategy is a rung. Ludii's SkillTrace (doubling a UCT budget until the win rate stops rising) is
the model.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from analysis.intervals import cluster_contrast, wilson
from sim.experiments.arms import Arm, play_arm
from sim.game import Game


@dataclass(frozen=True)
class Rung:
    """One rung's result: player 0's wins (a shared win counts 1 / winners) in ``games`` games,
    and its win share in each game (``shares``, by game, in the order played) for pairing."""

    strategy: str
    games: int
    wins: float
    low: float
    high: float
    shares: np.ndarray

    @property
    def rate(self) -> float:
        return self.wins / self.games


@dataclass(frozen=True)
class Gain:
    """Rung ``better`` over rung ``base`` on the same games: the mean per-game difference of
    player 0's win share, its 95% interval and two-sided p-value (paired)."""

    better: str
    base: str
    estimate: float
    low: float
    high: float
    p_value: float

    @property
    def significant(self) -> bool:
        return self.low > 0


def rung(strategy: str, shares: np.ndarray) -> Rung:
    """A rung from player 0's win share in each of its games."""
    wins = float(shares.sum())
    low, high = wilson(wins, len(shares))
    return Rung(strategy, len(shares), wins, float(low), float(high), shares)


def paired_gain(better: Rung, base: Rung) -> Gain:
    """``better``'s win rate minus ``base``'s on the same games (the game as the cluster)."""
    if better.games != base.games:
        raise ValueError(f"{better.strategy} and {base.strategy}: not the same games")
    n = better.games
    c = cluster_contrast(
        np.concatenate([better.shares, base.shares]),
        np.repeat([0, 1], n),
        np.array([1.0, -1.0]),
        np.tile(np.arange(n), 2),
    )
    return Gain(better.strategy, base.strategy, c["estimate"], c["ci_low"], c["ci_high"], c["p_value"])


def pooled(ladders: list[list[Rung]]) -> list[Rung]:
    """Ladders of the same rungs on disjoint games (e.g. one per seed, played by separate
    processes) as one ladder: each rung's games one after another, ladder by ladder, so the rungs
    stay paired game by game."""
    names = [r.strategy for r in ladders[0]]
    if any([r.strategy for r in rungs] != names for rungs in ladders):
        raise ValueError("pooled: the ladders do not have the same rungs")
    return [
        rung(name, np.concatenate([rungs[k].shares for rungs in ladders])) for k, name in enumerate(names)
    ]


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
        results.append(rung(strategy, won[:, 0] / np.maximum(won.sum(axis=1), 1)))
    return results


def skill_depth(rungs: list[Rung], random_strategy: str) -> tuple[float, str]:
    """The strongest rung's win rate minus random's, and the strongest rung's name."""
    best = max(rungs, key=lambda r: r.rate)
    base = next((r.rate for r in rungs if r.strategy == random_strategy), 0.0)
    return best.rate - base, best.strategy


def skill_curve(rungs: list[Rung]) -> list[Gain]:
    """The search rungs in order, each next rung's paired gain over the one before it (doubling
    still gains where its interval lies above 0)."""
    search = [r for r in rungs if r.strategy.startswith("search")]
    return [paired_gain(b, a) for a, b in zip(search, search[1:], strict=False)]


def over_field(rungs: list[Rung], field: str) -> list[Gain]:
    """Every other rung's paired gain over the field's own strategy at player 0 (none when the
    field's strategy is not a rung)."""
    base = next((r for r in rungs if r.strategy == field), None)
    return [] if base is None else [paired_gain(r, base) for r in rungs if r is not base]


def ladder_doc(
    game: str, players: int, field: str, rungs: list[Rung], random_strategy: str
) -> dict[str, Any]:
    """The ladder as ``skill.json`` holds it (analysis.skill_ladder reads it): each rung's win rate,
    interval and paired gain over the field's strategy, the curve, the depth and the strongest rung."""
    gains = {g.better: g for g in over_field(rungs, field)}

    def gain(g: Gain | None) -> dict[str, float] | None:
        return (
            None
            if g is None
            else {"estimate": g.estimate, "low": g.low, "high": g.high, "p_value": g.p_value}
        )

    depth, best = skill_depth(rungs, random_strategy)
    return {
        "game": game,
        "players": players,
        "field": field,
        "rungs": [
            {
                "strategy": r.strategy,
                "games": r.games,
                "rate": r.rate,
                "low": r.low,
                "high": r.high,
                "over_field": gain(gains.get(r.strategy)),
            }
            for r in rungs
        ],
        "curve": [{"base": g.base, "better": g.better, **gain(g)} for g in skill_curve(rungs)],
        "depth": depth,
        "strongest": best,
    }


def write_ladder(out: Path, doc: dict[str, Any]) -> tuple[Path, Path]:
    """``skill.json`` and the figure ``skill.png`` into ``out`` (each written whole or not at all)."""
    import json
    import os

    from analysis.figure_files import save_atomic
    from analysis.skill_ladder import FIGURE_FILE, LADDER_FILE, figure

    path = out / LADDER_FILE
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    os.replace(tmp, path)
    fig = figure(doc)
    save_atomic(fig, out / FIGURE_FILE)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path, out / FIGURE_FILE
