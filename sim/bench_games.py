"""games/s of any game on the protocol (``soup bench --game NAME``): per player count on 1 and 2
threads, the speed-up over the plain-Python path of the same kernels measured in the same
run (a subprocess with NUMBA_DISABLE_JIT=1), and the wall and CPU time of a whole warm
``soup play --game NAME`` (:func:`command_seconds`). Each figure is the best of ``repeats`` runs:
another process only ever slows a run down. Ursuppe's bench measures more
(sim/ursuppe/tools/bench.py)."""

import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

_PLAIN = (
    "import json, sys, time; from sim import game; g = game.get(sys.argv[1]); P, n = int(sys.argv[2]), "
    "int(sys.argv[3]); run = g.new_run(g.load_rules(), P, 1); t = time.perf_counter(); "
    "run.play_chunk(0, n, 1); print(json.dumps(n / (time.perf_counter() - t)))"
)


def games_per_second(game: Any, players: int, games: int, threads: int, repeats: int = 3) -> float:
    """The best of ``repeats`` rates of playing ``games`` games (rows built too) on ``threads``."""
    run = game.new_run(game.load_rules(), players, 1)
    run.play_chunk(0, min(games, 64), threads)  # compiled or loaded before the clock starts
    best = 0.0
    for _ in range(repeats):
        t = time.perf_counter()
        run.play_chunk(0, games, threads)
        best = max(best, games / (time.perf_counter() - t))
    return best


def plain_games_per_second(name: str, players: int, games: int) -> float:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", _PLAIN, name, str(players), str(games)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=True,
    )
    return float(json.loads(out.stdout))


def command_seconds(command: list[str], repeats: int, cwd: Path = ROOT) -> tuple[float, float]:
    """The best wall time and the best CPU time (user and system, of the command and the processes
    it waited for) of ``command`` run to its end in a fresh process, ``repeats`` times: what a
    user waits for, and what the command costs a machine shared with others (issue 31: a warm
    command's figure must count every process's imports and loads, none done in this one)."""
    best_wall = best_cpu = math.inf
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True, cwd=cwd)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
    return best_wall, best_cpu


def play_command(name: str, players: int) -> list[str]:
    """The whole ``soup play`` of one game of ``name`` whose warm time is measured."""
    return [sys.executable, "-m", "sim.cli.app", "play", "--game", name, "--players", str(players)] + [
        "--seed",
        "1",
    ]


def bench(game: Any, games: int, plain_games: int, repeats: int) -> dict[str, Any]:
    """The figures of ``soup bench --game``: games/s per player count and thread count, the
    speed-up of the compiled kernels over the plain-Python path (1 thread, the smallest count),
    and the wall and CPU time of a whole warm ``soup play`` (the smallest count)."""
    rates = {
        f"{p}p": {str(t): round(games_per_second(game, p, games, t, repeats)) for t in (1, 2)}
        for p in game.info.player_counts
    }
    smallest = game.info.player_counts[0]
    plain = plain_games_per_second(game.info.name, smallest, plain_games)
    command = play_command(game.info.name, smallest)
    warm_s, warm_cpu_s = command_seconds(command, repeats)  # the cache is warm: this process played
    return {
        "game": game.info.name,
        "games": games,
        "games_per_second": rates,
        "plain_python_games_per_second": round(plain, 1),
        "speedup_over_plain_python": round(rates[f"{smallest}p"]["1"] / plain, 1),
        "warm_command_s": round(warm_s, 2),
        "warm_command_cpu_s": round(warm_cpu_s, 2),
        "warm_command": "soup " + " ".join(command[3:]),
    }


def as_text(doc: dict[str, Any]) -> str:
    lines = [f"soup bench --game {doc['game']}: games/s (best of runs of {doc['games']:,} games)"]
    for label, by_threads in doc["games_per_second"].items():
        lines.append(
            f"  {label}: "
            + ", ".join(f"{t} thread{'s' if t != '1' else ''} {r:,}" for t, r in by_threads.items())
        )
    lines.append(
        f"  plain Python: {doc['plain_python_games_per_second']:,} games/s; compiled is "
        f"{doc['speedup_over_plain_python']:,}x faster"
    )
    lines.append(
        f"  the whole warm `{doc['warm_command']}`: {doc['warm_command_s']} s "
        f"({doc['warm_command_cpu_s']} s of CPU)"
    )
    return "\n".join(lines)
