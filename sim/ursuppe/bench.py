"""``soup bench``: how fast the engine plays, measured in one run.

- games/s for 3- and 4-player full-gene games of the default strategy mix at 1 and 2 threads
  (warm kernels, invariants off, one batch in memory), the best of ``repeats`` runs taken in
  turns (another process on the machine only ever slows a run down; every run is reported);
- the same 4-player games on the plain-Python path (NUMBA_DISABLE_JIT=1, in a subprocess) and the
  ratio of the compiled 1-thread rate to it;
- peak resident memory of ``soup simulate``-style chunked runs of N and 4N games (flat in N);
- cold start (a fresh process with an empty kernel cache: import, compile, first game) and warm
  start (a fresh process with the cache: import and first game).
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

from sim.ursuppe import batch as batch_mod
from sim.ursuppe.rules import load_rules
from sim.ursuppe.simulation import DEFAULT_POOL, UrsuppeRun
from strategies.params import load_strategy, parameter_table

_FIRST_GAME = (
    "import time; t = time.perf_counter(); "
    "from sim.ursuppe.bench import games_per_second; games_per_second(4, 8, 1); "
    "print(time.perf_counter() - t)"
)
_RSS = (
    "import resource, sys, pathlib; from sim import runner; from sim.ursuppe.bench import default_run; "
    "out, games, chunk, mix = pathlib.Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]; "
    "runner.run(default_run(4, mix=mix), out, games, chunk, 2); "
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
)


def default_run(players: int, seed: int = 1, mix: str = "") -> UrsuppeRun:
    """Every player of every game drawn from ``mix`` (comma-separated strategies; default:
    DEFAULT_POOL), rotated seating."""
    strategies = [load_strategy(n) for n in (mix.split(",") if mix else DEFAULT_POOL)]
    return UrsuppeRun(
        load_rules(), players, seed, strategies, pool=list(range(len(strategies))), seating="rotate"
    )


def games_per_second(players: int, games: int, threads: int, seed: int = 1, mix: str = "") -> float:
    """Play ``games`` games of the mix (comma-separated; default DEFAULT_POOL) in one batch and
    return games per second."""
    run = default_run(players, seed, mix)
    indices = np.arange(games)
    rules = run.rulebook.for_players(players)
    b = batch_mod.new_batch(rules, parameter_table(run.strategies), run.assignment(indices), seed, indices)
    t = time.perf_counter()
    batch_mod.play(b, seating="rotate", threads=threads)
    elapsed = time.perf_counter() - t
    err = batch_mod.first_error(b)
    if err is not None:
        raise batch_mod.GameError(f"engine error {err[1].tolist()} in game {err[0]}")
    return games / elapsed


def _python(code: str, *args: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return result.stdout.strip().splitlines()[-1]


def bench(
    games: int = 20_000,
    plain_games: int = 100,
    rss_games: int = 20_000,
    cold: bool = True,
    mix: str = "",
    repeats: int = 3,
) -> dict[str, Any]:
    """Run every measurement and return the JSON document of ``soup bench --json``."""
    games_per_second(4, 64, 1, mix=mix)  # compile or load the kernels (this process's cache) first
    runs: dict[str, dict[str, list[float]]] = {f"{p}p": {"1": [], "2": []} for p in (3, 4)}
    for _ in range(repeats):
        for players in (3, 4):
            for t in (1, 2):
                runs[f"{players}p"][str(t)].append(round(games_per_second(players, games, t, mix=mix), 1))
    rates = {key: {t: max(values) for t, values in by_threads.items()} for key, by_threads in runs.items()}
    plain = float(
        _python(
            "import sys; from sim.ursuppe.bench import games_per_second; "
            "print(games_per_second(4, int(sys.argv[1]), 1, mix=sys.argv[2]))",
            str(plain_games),
            mix,
            env={"NUMBA_DISABLE_JIT": "1"},
        )
    )
    with tempfile.TemporaryDirectory() as tmp:
        rss = {}
        for n in (rss_games, 4 * rss_games):
            rss[str(n)] = round(
                float(_python(_RSS, os.path.join(tmp, f"run{n}"), str(n), str(max(1, rss_games // 4)), mix)),
                1,
            )
        cold_s = None
        if cold:
            cold_s = round(
                float(_python(_FIRST_GAME, env={"NUMBA_CACHE_DIR": os.path.join(tmp, "cache")})), 2
            )
    warm_s = round(float(_python(_FIRST_GAME)), 2)
    return {
        "games_per_s": rates,
        "games_per_s_runs": runs,
        "speedup_vs_python": round(rates["4p"]["1"] / plain, 1),
        "plain_python_games_per_s": round(plain, 2),
        "peak_rss_mb": max(rss.values()),
        "peak_rss_mb_by_games": rss,
        "cold_start_s": cold_s,
        "warm_start_s": warm_s,
        "games": games,
        "repeats": repeats,
        "mix": mix.split(",") if mix else list(DEFAULT_POOL),
        "threads_available": os.cpu_count(),
    }


def as_text(doc: dict[str, Any]) -> str:
    r = doc["games_per_s"]
    lines = [
        f"mix ({', '.join(doc['mix'])}), {doc['games']:,} games per measurement, full genes, "
        f"best of {doc['repeats']}",
        f"  3 players: {r['3p']['1']:>10,.0f} games/s on 1 thread, {r['3p']['2']:>10,.0f} on 2 "
        f"({r['3p']['2'] / r['3p']['1']:.2f}x)",
        f"  4 players: {r['4p']['1']:>10,.0f} games/s on 1 thread, {r['4p']['2']:>10,.0f} on 2 "
        f"({r['4p']['2'] / r['4p']['1']:.2f}x)",
        f"  plain Python: {doc['plain_python_games_per_s']:.1f} games/s "
        f"-> speed-up {doc['speedup_vs_python']}x",
        "  peak memory: "
        + ", ".join(f"{v:.0f} MB for {int(k):,} games" for k, v in doc["peak_rss_mb_by_games"].items()),
        (
            f"  start: cold {doc['cold_start_s']} s (compile), "
            if doc["cold_start_s"] is not None
            else "  start: "
        )
        + f"warm {doc['warm_start_s']} s",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(json.dumps(bench(), indent=1))
