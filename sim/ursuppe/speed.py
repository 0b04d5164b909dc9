"""Engine speed in games per second: compiled at 1 and 2 threads vs the plain-Python path, in one run.

``python -m sim.ursuppe.speed [--games N] [--players P] [--strategy NAME]`` prints JSON. The plain
path runs the same kernels uncompiled in a subprocess (NUMBA_DISABLE_JIT=1) on fewer games; the
ratio compares games per second. (Issue 4 turns this into ``soup bench``.)
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

from sim.ursuppe import batch as B
from sim.ursuppe.rules import load_rules
from strategies.params import load_strategy, parameter_table


def games_per_second(players: int, games: int, strategy: str, threads: int, seed: int = 1) -> float:
    rules = load_rules().for_players(players)
    params = parameter_table([load_strategy(strategy)])
    b = B.new_batch(rules, params, np.zeros(players), seed, np.arange(games))
    t = time.perf_counter()
    B.play(b, threads=threads)
    elapsed = time.perf_counter() - t
    if B.first_error(b) is not None:
        raise RuntimeError(f"engine error {B.first_error(b)}")
    return games / elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--plain-games", type=int, default=200)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--strategy", default="greedy")
    ap.add_argument("--plain-only", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.plain_only:
        print(games_per_second(a.players, a.plain_games, a.strategy, 1))
        return
    games_per_second(a.players, 64, a.strategy, 1)  # compile or load the kernels first
    one = games_per_second(a.players, a.games, a.strategy, 1)
    two = games_per_second(a.players, a.games, a.strategy, 2)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    plain = float(
        subprocess.run(
            [
                sys.executable,
                "-m",
                "sim.ursuppe.speed",
                "--plain-only",
                "--players",
                str(a.players),
                "--plain-games",
                str(a.plain_games),
                "--strategy",
                a.strategy,
            ],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    print(
        json.dumps(
            {
                "players": a.players,
                "strategy": a.strategy,
                "games": a.games,
                "games_per_s": {"1": round(one), "2": round(two)},
                "plain_python_games_per_s": round(plain, 1),
                "speedup_vs_python_1_thread": round(one / plain, 1),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
