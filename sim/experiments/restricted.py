"""Restricted play for any game (issue 34.7): the same search seat with an option allowed vs
denied, paired games (Jaffe et al.'s restricted play), and its null reference.

Game-agnostic: the search player (strategies/search.py) sees a game only through its decision
points. A :class:`Restriction` names what is denied: ``taken(choice)`` says whether a choice is
the option (the search is never offered such a choice: ``RestrictedSpec.deny``), and
``restrict(replay, player)`` is the game's part, which keeps the seat's rollout policy from it
too (Chromosome: Rules.deny_action, a per-player mask its engine applies when it lists the
actions). Player 0 is the search seat in both arms; every other player, the rules, the games
(seed, game index, seating) and the search's fork keys are the same, so the interval is the
paired games'.

The **null reference** is the same search player twice, unrestricted, its second arm on other
fork keys (an A/A contrast): the two arms differ only by the search's sampling, so it must read
0, and its games differ (the search's choices move with its rollouts), so it checks something.
"""

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from strategies.search import RestrictedSpec, SearchSpec, play_game

# Measured here (Chromosome, 3 players, search-2, the machine shared): about 4 s a game with one
# search seat; the budget line's estimate only.
SEARCH_GAME_S = 4.0


@dataclass(frozen=True)
class Restriction:
    """What a restricted seat may not do: ``label`` in words, ``taken(choice)`` whether a tape
    entry takes it, ``restrict(replay, player)`` the replay with ``player``'s rollouts kept
    from it (returns the replay)."""

    label: str
    taken: Callable[[Any], bool]
    restrict: Callable[[Any, int], Any]

    def spec(self, spec: SearchSpec) -> RestrictedSpec:
        """``spec`` never offered a choice this restriction denies."""
        fields = {f: getattr(spec, f) for f in ("name", "budget", "rollout", "objective")}
        return RestrictedSpec(**fields, deny=lambda point, i: self.taken(point.choice(i)))


def null_seed(seed: int) -> int:
    """The null reference's fork-key seed: derived from ``seed``, never equal to it."""
    h = int.from_bytes(
        hashlib.blake2b(f"soup-restricted-null-{seed}".encode(), digest_size=8).digest(), "little"
    )
    return (h & (2**63 - 1)) or 1


def play_arm(
    game: Any,
    run: Any,
    spec: SearchSpec,
    n_games: int,
    restriction: Restriction,
    denied: bool,
    search_seed: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray, list[list[Any]]]:
    """Games 0 .. n_games-1 of ``run`` with player 0 the search player ``spec``, ``denied``
    ``restriction``'s option or not (fork keys from ``search_seed``, default the run's seed):
    player 0's win share of each game (1 / winners when it is among them, else 0), whether its
    own choices took the option (never, when denied) and its choices (a tape a game)."""
    seed = run.seed if search_seed is None else search_seed
    seat = restriction.spec(spec) if denied else spec
    won = np.zeros(n_games)
    took = np.zeros(n_games, bool)
    tapes = []
    for g in range(n_games):
        replay = game.replay(run, g, seats=[0])
        if denied:
            replay = restriction.restrict(replay, 0)
        tape, (_, w) = play_game(replay, {0: seat}, seed, g)
        won[g] = float(w[0, 0]) / max(int(w[0].sum()), 1)
        took[g] = any(restriction.taken(c) for c in tape)
        tapes.append(tape)
        if progress:
            progress(1)
    return won, took, tapes


def restricted_play(
    game: Any,
    run: Any,
    spec: SearchSpec,
    n_games: int,
    restriction: Restriction,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The option's value (allowed minus denied, paired) and the null reference (the allowed
    arm minus itself on other fork keys), with how often the allowed search took the option."""
    allowed, took, tapes = play_arm(game, run, spec, n_games, restriction, False, None, progress)
    denied, never, denied_tapes = play_arm(game, run, spec, n_games, restriction, True, None, progress)
    again, _, again_tapes = play_arm(
        game, run, spec, n_games, restriction, False, null_seed(run.seed), progress
    )
    if never.any():
        raise RuntimeError(f"{restriction.label}: a denied seat took its option (the game did not deny it)")
    return {
        # games the seat played differently (its choices), beside those whose result differs
        "option": {
            **paired(allowed, denied),
            "used": float(took.mean()),
            "played": _other(tapes, denied_tapes),
        },
        "null": {**paired(allowed, again), "played": _other(tapes, again_tapes)},
        "allowed": float(allowed.mean()),
        "denied": float(denied.mean()),
    }


def _other(a: list[list[Any]], b: list[list[Any]]) -> int:
    """How many games' tapes differ between two arms."""
    return sum(x != y for x, y in zip(a, b, strict=True))


def paired(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """a - b, paired by game: the mean difference, its 95% t interval and two-sided p, and the
    number of games whose result differs."""
    from scipy import stats

    d = np.asarray(a, np.float64) - np.asarray(b, np.float64)
    n = len(d)
    mean = float(d.mean())
    se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    if se > 0:
        q = float(stats.t.ppf(0.975, n - 1))
        p = float(2 * stats.t.sf(abs(mean) / se, n - 1))
    else:
        q, p = 0.0, 1.0 if mean == 0 else 0.0
    return {
        "estimate": mean,
        "low": mean - q * se,
        "high": mean + q * se,
        "p_value": p,
        "differ": int((d != 0).sum()),
        "games": n,
    }


def _pts(c: dict[str, Any]) -> str:
    return f"{100 * c['estimate']:+.1f} [{100 * c['low']:+.1f}, {100 * c['high']:+.1f}]"


def words(doc: dict[str, Any]) -> list[str]:
    """The restricted-play verdict in words: the option's value, the null reference's check."""
    o, n = doc["option"], doc["null"]
    shown = "SHOWN" if o["p_value"] < 0.05 and o["estimate"] != 0 else "NOT SHOWN"
    null_ok = n["low"] <= 0 <= n["high"]
    return [
        f"Option value by restricted search ({doc['game']}, {doc['players']} players): {shown}. Being allowed"
        f" {doc['action']} is worth {_pts(o)} win-rate points to player 0 ({doc['search']}, rollouts by"
        f" {doc['rollout']}, against {doc['field']}; {o['games']:,} paired games, rotate seating); the"
        f" allowed search took it in {100 * o['used']:.0f}% of its games.",
        f"Null reference (the same search on other fork keys, must read 0; player 0's result differs in"
        f" {n['differ']:,} of {n['games']:,} games, its play in {n['played']:,}): {_pts(n)}"
        + (
            " — no game's result differs, so it checks little here (more --search-games)."
            if not n["differ"]
            else "."
            if null_ok
            else " — it does not read 0: distrust this design here."
        ),
    ]


def markdown(doc: dict[str, Any]) -> str:
    return "\n".join(
        [
            f"# Verdict: {doc['action']} ({doc['game']}, {doc['players']} players)",
            "",
            *[w + "\n" for w in words(doc)],
            "## Conditions",
            "",
            f"- {doc['rules'][0].upper()}{doc['rules'][1:]}; seed {doc['seed']}; player 0's win share"
            " (1 / winners if shared).",
            "- Both arms: the same search player at player 0, the same games and fork keys; denied, it is"
            " never offered the action and its rollouts never take it (the engine leaves it out of that"
            " seat's legal actions).",
            "- Intervals: paired t over the games (sampling noise only). How to read it: docs/verdicts.md.",
            "",
        ]
    )
