"""``soup bench``: how fast the engine plays, and how much memory a run takes, measured in one run.

- games/s for 3-, 4-, 5- and 6-player full-gene games (and 2-player double play II games,
  ``"2p-double2"``, and 4-player games with the 26 extra genes, ``"4p-extra"``, whose ratio to
  ``"4p"`` is ``extra_over_4p``, target ``EXTRA_TARGET``) of the default strategy mix at 1 and 2
  threads (warm kernels, invariants off, one batch in memory), the best of ``repeats`` runs taken
  in turns (another process on the machine only ever slows a run down; every run is reported);
- ``pipeline_efficiency``: a whole 4-player ``soup simulate`` run through the chunked runner
  (``PIPELINE_CHUNKS`` x ``games`` games in chunks of ``games``, the last split off short as every
  run's is, sim.runner.ChunkLayout: playing, building rows, encoding, writing and hashing every chunk)
  over the engine alone on the same games in the same batches (its batches' set-up aside), in
  games/s, per thread count, measured in turns in this process: the median of the rounds' paired
  ratios (:func:`paired_efficiency`; issue 12; target ``PIPELINE_TARGET`` at 1 and 2 threads,
  issue 36.3);
- ``6p_over_4p``: 6-player over 4-player games/s per thread count, from the same run (target
  ``RATIO_6P_TARGET``: a 6-player game has 1.5x the players and more options per meal, PX);
- the same 4-player games on the plain-Python path (NUMBA_DISABLE_JIT=1, in a subprocess) and the
  ratio of the compiled 1-thread rate to it;
- peak memory of the whole ``soup simulate`` command as a user runs it (its closing summary
  included) for N and 10·N games, each in a subprocess of its own: the target is flat in N; and
  the peak memory and wall time of ``soup report`` of each of those runs (issue 21.11: flat too);
- cold start (a fresh process with an empty kernel cache: import, compile, first game) and warm
  start (a fresh process with the cache: import and first game; wall and CPU time), and the wall
  and CPU time of the whole warm ``soup play`` command (``warm_command_s``,
  ``warm_command_cpu_s``: what the README's "later runs start in" means), each in a fresh process;
- with ``compare``: the same games/s figures of another git revision, measured side by side with
  the working tree in the same run (subprocesses in turns: working tree, revision, working tree,
  ...), so a change's speed-up or slow-down is a ratio taken under the same machine load.
"""

import contextlib
import fcntl
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sim.bench_games import command_seconds
from sim.errors import UserError
from sim.jit import soup_cache_dir
from sim.ursuppe.engine import batch as batch_mod
from sim.ursuppe.rules.book import count_label, load_rules
from sim.ursuppe.simulation import DEFAULT_POOL, UrsuppeRun
from strategies.ursuppe.params import load_strategy

ROOT = Path(__file__).resolve().parents[3]  # the tree this module belongs to
PLAYERS = (3, 4, 5, 6)  # every player count of the default rules (PX: 5-6 players)
# The games/s figures: a key each (games_per_s), with its player count, 2-player variant and
# whether the extra genes are on (docs/rules.md §18).
FIGURES: tuple[tuple[str, int, str | None, bool], ...] = (
    *((count_label(p), p, None, False) for p in PLAYERS),
    (count_label(2, "double2"), 2, "double2", False),  # double play II (TB)
    (count_label(4) + "-extra", 4, None, True),  # the extra genes and their market (XM, XG)
)
EXTRA_TARGET = 0.6  # issue 14: 4-player games with the extra genes at least 0.6x the base ones
THREADS = (1, 2)
RATIO_6P_TARGET = 0.45  # issue 11: 6-player games at least 0.45x as fast as 4-player ones
PIPELINE_CHUNKS = 5  # a measured run: this many chunks of games (pipeline_efficiency; its last is split)
PIPELINE_TARGET = 0.95  # issue 36.3: a whole run at least 0.95x the engine's games/s on 1 and 2 threads
_KEEP_COMPARED = 3  # compared commits whose kernel caches are kept

# Imports, the engine compiled or loaded, and 8 games: the wall and CPU seconds of this process's
# whole work (interpreter start-up aside).
_FIRST_GAME = (
    "import time; t, c = time.perf_counter(), time.process_time(); "
    "from sim.ursuppe.tools.bench import games_per_second; games_per_second(4, 8, 1); "
    "print(time.perf_counter() - t, time.process_time() - c)"
)
# Runs its arguments as the only child and prints that child's exit status and peak resident
# memory (MB): RUSAGE_CHILDREN of a process that has no other child.
_PEAK_OF_CHILD = (
    "import resource, subprocess, sys; "
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True); "
    "sys.stderr.write(r.stderr[-4000:]); "
    "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)"
)
# The games/s of one tree, run in a subprocess whose cwd and PYTHONPATH are that tree, for every
# figure of FIGURES (a JSON argument) that tree can play. Every revision since 49ac8fd has
# games_per_second(players, games, threads, mix=...); its variant= and extra= keywords came later,
# and a player count the tree does not know raises: such a figure is null (not compared).
_TREE_RATES = (
    # the tree compared may be laid out before issue 22 (sim/ursuppe/bench.py)
    "import inspect, json, sys, importlib.util as u\n"
    "b = __import__('sim.ursuppe.tools.bench' if u.find_spec('sim.ursuppe.tools') else 'sim.ursuppe.bench', "
    "fromlist=['bench'])\n"
    "games, mix, figures = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])\n"
    "known = inspect.signature(b.games_per_second).parameters\n"
    "b.games_per_second(4, 64, 1, mix=mix)\n"
    "rates = {}\n"
    "for key, players, variant, extra in figures:\n"
    "    kw = dict(variant=variant, extra=extra) if variant or extra else {}\n"
    "    rates[key] = None\n"
    "    if set(kw) <= set(known):\n"
    "        try:\n"
    "            rates[key] = {str(t): b.games_per_second(players, games, t, mix=mix, **kw)\n"
    "                          for t in (1, 2)}\n"
    "        except Exception:\n"
    "            pass\n"
    "print(json.dumps({'file': b.__file__, 'rates': rates}))"
)


class CompareError(UserError):
    """A revision to compare with that git cannot resolve or extract (a user error)."""


def default_run(
    players: int, seed: int = 1, mix: str = "", variant: str | None = None, extra: bool = False
) -> UrsuppeRun:
    """Every player of every game drawn from ``mix`` (comma-separated strategies; default:
    DEFAULT_POOL), rotated seating; ``extra``: the default rules with the extra genes on."""
    strategies = [load_strategy(n) for n in (mix.split(",") if mix else DEFAULT_POOL)]
    return UrsuppeRun(
        load_rules(overrides={"flags": {"extra_genes": True}}) if extra else load_rules(),
        players,
        seed,
        strategies,
        pool=list(range(len(strategies))),
        seating="rotate",
        variant=variant,
    )


def games_per_second(
    players: int,
    games: int,
    threads: int,
    seed: int = 1,
    mix: str = "",
    variant: str | None = None,
    extra: bool = False,
) -> float:
    """Play ``games`` games of the mix (comma-separated; default DEFAULT_POOL) in one batch and
    return games per second (``variant``: a 2-player variant's, with ``players`` 2; ``extra``:
    with the extra genes)."""
    return games / play_seconds(default_batch(players, games, seed, mix, variant, extra), threads)


def play_seconds(b: batch_mod.Batch, threads: int) -> float:
    """Seconds to play every game of the batch ``b`` (rotated seating) on ``threads`` threads; a
    GameError if one stopped with an engine error."""
    t = time.perf_counter()
    batch_mod.play(b, seating="rotate", threads=threads)
    elapsed = time.perf_counter() - t
    raise_first_error(b)
    return elapsed


def default_batch(
    players: int,
    games: int,
    seed: int = 1,
    mix: str = "",
    variant: str | None = None,
    extra: bool = False,
    first: int = 0,
) -> batch_mod.Batch:
    """A batch of the ``games`` games of :func:`default_run` from game ``first`` on, not yet set up
    (the run's own set-up, as ``soup simulate`` makes it)."""
    return default_run(players, seed, mix, variant, extra).set_up_games(first, games)


def raise_first_error(b: batch_mod.Batch) -> None:
    """A GameError naming the first game of ``b`` that stopped with an engine error."""
    err = batch_mod.first_error(b)
    if err is not None:
        raise batch_mod.GameError(f"engine error {err[1].tolist()} in game {err[0]}")


def chunks_games_per_second(chunks: int, chunk_games: int, threads: int, mix: str = "") -> float:
    """games/s of the engine alone on the games of a whole 4-player run of ``chunks`` chunks of
    ``chunk_games`` games, batch by batch as the runner plays them (its chunk layout, the short
    last chunk too: sim.runner.ChunkLayout; each batch's set-up aside): what
    :func:`simulate_games_per_second` is compared with. The same games and the same length of time
    as the whole run, so that a moment the machine runs faster or slower weighs on both alike."""
    from sim import runner

    games, run = chunks * chunk_games, default_run(4, mix=mix)
    layout = runner.ChunkLayout.new(games, chunk_games)
    batches = (run.set_up_games(layout.first(i), layout.count(i)) for i in range(layout.n_chunks))
    return games / sum(play_seconds(b, threads) for b in batches)


def simulate_games_per_second(games: int, chunk_size: int, threads: int, out: Path, mix: str = "") -> float:
    """games/s of a whole 4-player run through the chunked runner, as ``soup simulate`` runs it
    (play, build the rows, encode, write and hash every chunk, update the manifest) into ``out``."""
    from sim import runner

    summary = runner.run(default_run(4, mix=mix), out, games, chunk_size, threads)
    return games / summary.seconds


def _python(code: str, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"benchmark subprocess failed (exit {result.returncode}): {result.stderr.strip()[-2000:]}"
        )
    return result.stdout.strip().splitlines()[-1]


def simulate_command(games: int, out: Path, mix: str = "") -> list[str]:
    """The ``soup simulate`` command line whose peak memory is measured."""
    command = [sys.executable, "-m", "sim.cli.app", "simulate", "--games", str(games), "--out", str(out)]
    return command + ["-q", "--threads", "2"] + (["--pool", mix] if mix else [])


def report_command(run: Path, out: Path) -> list[str]:
    """The ``soup report`` command line whose peak memory and time are measured (issue 21.11)."""
    return [sys.executable, "-m", "sim.cli.app", "report", str(run), "--out", str(out), "-q"]


# The whole `soup play` command as a user runs it, warm: what "later runs start in" means.
PLAY_COMMAND = ("play", "--players", "4", "--seed", "1")


def command_peak_rss_mb(command: list[str], cwd: Path = ROOT) -> float:
    """Peak resident memory (MB) of ``command`` run to its end as the only child of a wrapper."""
    return command_peak_rss_and_seconds(command, cwd)[0]


def command_peak_rss_and_seconds(
    command: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None
) -> tuple[float, float]:
    """Peak resident memory (MB) and wall time (s) of ``command`` run to its end as the only
    child of a wrapper (in ``cwd``, which is first on the import path; ``env``: more variables)."""
    path = os.pathsep.join(filter(None, [str(cwd), os.environ.get("PYTHONPATH")]))
    env = {"PYTHONPATH": path, **(env or {})}
    t = time.perf_counter()
    status, peak = _python(_PEAK_OF_CHILD, *command, env=env, cwd=cwd).split()
    seconds = time.perf_counter() - t
    if status != "0":
        raise RuntimeError(f"{' '.join(command[2:])} failed with exit status {status}")
    return float(peak), seconds


def warm_command_seconds(repeats: int) -> tuple[float, float]:
    """The best wall and CPU time of the whole ``soup play`` command (a fresh process: imports,
    the compiled engine loaded from the cache, one game printed), ``repeats`` times."""
    return command_seconds([sys.executable, "-m", "sim.cli.app", *PLAY_COMMAND], repeats, ROOT)


def warm_start_seconds(repeats: int) -> tuple[float, float]:
    """The best wall and CPU time of a fresh process that imports the engine, loads it from the
    cache and plays 8 games (``_FIRST_GAME``), ``repeats`` times."""
    runs = [tuple(map(float, _python(_FIRST_GAME).split())) for _ in range(repeats)]
    return min(wall for wall, _ in runs), min(cpu for _, cpu in runs)


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def resolve_revision(rev: str) -> str:
    """The full commit id of ``rev``; CompareError (one line) if git cannot resolve it."""
    found = None if rev.startswith("-") else _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if found is None or found.returncode != 0:
        where = "" if _git("rev-parse", "--git-dir").returncode == 0 else " (not a git checkout)"
        raise CompareError(f"--compare: git cannot resolve the revision {rev!r} in {ROOT}{where}")
    return found.stdout.strip()


def _extract(commit: str, dest: Path) -> Path:
    """The files of ``commit`` under ``dest`` (git archive of a commit: every file's mtime is the
    commit's, so a tree extracted again at the same place finds its kernel cache valid); returns
    the project's directory in it."""
    prefix = _git("rev-parse", "--show-prefix").stdout.strip()
    archive = subprocess.Popen(
        ["git", "-C", str(ROOT), "archive", "--format=tar", commit, *(["--", prefix] if prefix else [])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    tar = subprocess.run(["tar", "-x", "-C", str(dest)], stdin=archive.stdout, capture_output=True)
    archive.stdout.close()
    err = archive.stderr.read().decode().strip()
    archive.stderr.close()
    if archive.wait() != 0 or tar.returncode != 0:
        raise CompareError(f"--compare: cannot extract {commit[:12]}: {err or tar.stderr.decode().strip()}")
    return dest / prefix


@contextlib.contextmanager
def _revision_place(commit: str) -> Iterator[tuple[Path, Path]]:
    """A directory for the files of ``commit`` (removed at the end, Ctrl-C included) and a kernel
    cache for them. The cache is kept for the next comparison with the same commit (under the
    user's cache directory, the last ``_KEEP_COMPARED`` commits); the files go to the same place
    each time, so the cache stays valid. A place in use by another run, or none writable: a
    temporary directory (compiled afresh)."""
    base = soup_cache_dir() / "bench-compare"
    with tempfile.TemporaryDirectory(prefix="soup-bench-compare-") as tmp:
        lock = None
        try:
            place = base / commit
            place.mkdir(parents=True, exist_ok=True)
            lock = open(place / "lock", "w")  # noqa: SIM115 (held until the end)
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.utime(place)
            _prune(base, keep=place)
        except OSError:
            if lock is not None:
                lock.close()
            lock, place = None, Path(tmp)
        tree = place / "tree"
        try:
            shutil.rmtree(tree, ignore_errors=True)  # left by a run that was killed
            tree.mkdir()
            yield tree, place / "numba-cache"
        finally:
            shutil.rmtree(tree, ignore_errors=True)
            if lock is not None:
                lock.close()


def _prune(base: Path, keep: Path) -> None:
    """Remove the kernel caches of all but the last ``_KEEP_COMPARED`` compared commits (not one
    in use)."""
    old = sorted((d for d in base.iterdir() if d.is_dir() and d != keep), key=lambda d: d.stat().st_mtime)
    for d in old[: max(0, len(old) - (_KEEP_COMPARED - 1))]:
        with open(d / "lock", "w") as other:
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue
            shutil.rmtree(d, ignore_errors=True)


def _engine_files(root: Path) -> dict[str, bytes]:
    """What a games/s measurement runs: every file of sim/ and strategies/ but the command-line
    layers (cli*.py) and caches."""
    files = {}
    for package in ("sim", "strategies"):
        for path in (root / package).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and not path.name.startswith("cli"):
                files[str(path.relative_to(root))] = path.read_bytes()
    return files


def _tree_env(tree: Path, cache: str | None) -> dict[str, str]:
    """The environment of a subprocess that runs ``tree``'s code with its own kernel cache."""
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(tree), os.environ.get("PYTHONPATH")]))}
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    return env


def _tree_rates(tree: Path, games: int, mix: str, cache: str | None) -> dict[str, dict[str, float] | None]:
    env = _tree_env(tree, cache)
    doc = json.loads(_python(_TREE_RATES, str(games), mix, json.dumps(FIGURES), env=env, cwd=tree))
    if not Path(doc["file"]).resolve().is_relative_to(tree.resolve()):  # measured the wrong tree
        raise RuntimeError(f"the benchmark of {tree} imported {doc['file']}")
    return doc["rates"]


def compare_revision(
    rev: str,
    games: int,
    repeats: int,
    mix: str = "",
    commit: str = "",
    rss_games: int | None = None,
    work_rss: float | None = None,
) -> dict[str, Any]:
    """games/s of the working tree and of git revision ``rev`` for every figure of FIGURES that
    ``rev`` can play, measured in subprocesses taken in turns (working tree, rev, working tree,
    rev, ...; ``repeats`` rounds), the same games (mix, seeds) in both. Each tree has its own
    kernel cache, kept across the rounds, so compiling is paid once per tree and never timed (and
    kept for the next comparison with the same commit). A revision whose engine files (sim/,
    strategies/ but the cli layers) equal the working tree's is measured from the working tree's
    files (same code, same cache). ``ratios`` are working tree over rev: above 1, the working tree
    is faster. With ``rss_games``: the peak memory of each tree's whole ``soup simulate`` of that
    many games and of ten times as many (``peak_rss_mb``; ``rss_ratio``: working tree over rev,
    below 1 is less memory); null for a tree whose command fails. ``work_rss``: the working
    tree's peak, which :func:`bench` has measured with the same commands (None: not measured)."""
    commit = commit or resolve_revision(rev)
    names = mix or ",".join(DEFAULT_POOL)  # the same strategies in both trees, by name
    with _revision_place(commit) as (tree, cache):
        rev_root = _extract(commit, tree)
        same = _engine_files(rev_root) == _engine_files(ROOT)
        trees = {"working_tree": (ROOT, None), "rev": (ROOT, None) if same else (rev_root, str(cache))}
        runs: dict[str, dict[str, dict[str, list[float]]]] = {side: {} for side in trees}
        for _ in range(repeats):
            for side, (root, cache_dir) in trees.items():
                for key, by_threads in _tree_rates(root, games, names, cache_dir).items():
                    for t, rate in (by_threads or {}).items():
                        runs[side].setdefault(key, {}).setdefault(t, []).append(round(rate, 1))
        rev_rss = work_rss if same else _tree_peak_rss(*trees["rev"], rss_games, mix)  # the same files: once
        peak = {"working_tree": work_rss, "rev": rev_rss}
    best = {
        side: {key: {t: max(v) for t, v in by_threads.items()} for key, by_threads in by_side.items()}
        for side, by_side in runs.items()
    }
    both = [key for key, *_ in FIGURES if key in best["rev"] and key in best["working_tree"]]
    doc = {
        "rev": rev,
        "commit": commit,
        "same_engine_files": same,
        "working_tree_games_per_s": best["working_tree"],
        "rev_games_per_s": best["rev"],
        "ratios": {
            key: {t: round(best["working_tree"][key][t] / best["rev"][key][t], 3) for t in best["rev"][key]}
            for key in both
        },
        "not_compared": [key for key, *_ in FIGURES if key not in both],
        "runs": runs,
        "games": games,
        "repeats": repeats,
        "mix": names.split(","),
    }
    if rss_games is not None:
        doc["peak_rss_mb"] = peak
        doc["rss_games"] = rss_games
        doc["rss_ratio"] = (
            round(peak["working_tree"] / peak["rev"], 3) if peak["working_tree"] and peak["rev"] else None
        )
    return doc


def _tree_peak_rss(root: Path, cache: str | None, rss_games: int | None, mix: str) -> float | None:
    """The peak memory (MB) of ``root``'s whole ``soup simulate`` of ``rss_games`` and of ten times
    as many games (the larger of the two), or None (no ``rss_games``, or the command failed: a
    revision from before it existed)."""
    if rss_games is None:
        return None
    env = _tree_env(root, cache)
    with tempfile.TemporaryDirectory(prefix="soup-bench-") as tmp:
        try:
            command_peak_rss_and_seconds(simulate_command(50, Path(tmp) / "warm-up", mix), root, env)
            return max(
                command_peak_rss_and_seconds(simulate_command(n, Path(tmp) / f"run{n}", mix), root, env)[0]
                for n in (rss_games, 10 * rss_games)
            )
        except RuntimeError:
            return None


def bench(
    games: int = 20_000,
    plain_games: int = 100,
    rss_games: int = 20_000,
    cold: bool = True,
    mix: str = "",
    repeats: int = 3,
    compare: str | None = None,
) -> dict[str, Any]:
    """Run every measurement and return the JSON document of ``soup bench --json``."""
    commit = resolve_revision(compare) if compare is not None else ""  # a bad revision fails first
    games_per_second(4, 64, 1, mix=mix)  # compile or load the kernels (this process's cache) first
    runs = _engine_runs(games, repeats, mix)
    rates = {key: {t: max(values) for t, values in by_threads.items()} for key, by_threads in runs.items()}
    pipeline = _pipeline_runs(games, repeats, mix)
    best = {k: {t: max(v) for t, v in by_threads.items()} for k, by_threads in pipeline.items()}
    plain = _plain_python_rate(plain_games, mix)
    rss, report_rss, report_s, cold_s = _command_measurements(rss_games, cold, mix)
    warm_s, warm_cpu_s = warm_start_seconds(repeats)
    warm_command_s, warm_command_cpu_s = warm_command_seconds(repeats)
    doc = {
        "games_per_s": rates,
        "games_per_s_runs": runs,
        "6p_over_4p": {t: round(rates["6p"][t] / rates["4p"][t], 3) for t in rates["4p"]},
        "6p_over_4p_target": RATIO_6P_TARGET,
        "extra_over_4p": {t: round(rates["4p-extra"][t] / rates["4p"][t], 3) for t in rates["4p"]},
        "extra_over_4p_target": EXTRA_TARGET,
        "speedup_vs_python": round(rates["4p"]["1"] / plain, 1),
        "pipeline_efficiency": {
            t: paired_efficiency(pipeline["simulate"][t], pipeline["engine"][t]) for t in best["engine"]
        },
        "pipeline_efficiency_best": {
            t: round(best["simulate"][t] / best["engine"][t], 3) for t in best["engine"]
        },
        "pipeline_efficiency_target": PIPELINE_TARGET,
        "simulate_games_per_s": best["simulate"],
        "engine_games_per_s": best["engine"],
        "pipeline_runs": pipeline,
        "pipeline_games": PIPELINE_CHUNKS * games,
        "plain_python_games_per_s": round(plain, 2),
        "peak_rss_mb": max(rss.values()),
        "peak_rss_mb_by_games": rss,
        "peak_rss_ratio": round(rss[str(10 * rss_games)] / rss[str(rss_games)], 3),
        "peak_rss_command": "soup simulate --games N --out DIR -q --threads 2"
        + (f" --pool {mix}" if mix else ""),
        "report_peak_rss_mb_by_games": report_rss,
        "report_peak_rss_ratio": round(report_rss[str(10 * rss_games)] / report_rss[str(rss_games)], 3),
        "report_seconds_by_games": report_s,
        "report_command": "soup report RUN --out DIR -q (RUN: the runs above)",
        "cold_start_s": cold_s,
        "warm_start_s": round(warm_s, 2),
        "warm_start_cpu_s": round(warm_cpu_s, 2),
        "warm_command_s": round(warm_command_s, 2),
        "warm_command_cpu_s": round(warm_command_cpu_s, 2),
        "warm_command": "soup " + " ".join(PLAY_COMMAND),
        "games": games,
        "repeats": repeats,
        "mix": mix.split(",") if mix else list(DEFAULT_POOL),
        "threads_available": os.cpu_count(),
    }
    if compare is not None:
        # the working tree's soup simulate peak is the one measured above: not measured twice
        doc["compare"] = compare_revision(compare, games, repeats, mix, commit, rss_games, doc["peak_rss_mb"])
    return doc


def _engine_runs(games: int, repeats: int, mix: str) -> dict[str, dict[str, list[float]]]:
    """Every figure's games/s at each thread count, ``repeats`` runs taken in turns."""
    runs: dict[str, dict[str, list[float]]] = {key: {str(t): [] for t in THREADS} for key, *_ in FIGURES}
    for _ in range(repeats):
        for key, players, variant, extra in FIGURES:
            for t in THREADS:
                rate = games_per_second(players, games, t, mix=mix, variant=variant, extra=extra)
                runs[key][str(t)].append(round(rate, 1))
    return runs


def paired_efficiency(simulate: list[float], engine: list[float]) -> float:
    """The pipeline's efficiency: the median over the rounds of a whole run's games/s
    (``simulate``) over the engine's measured just before it (``engine``): this machine's speed
    drifts by more than the pipeline's cost between runs seconds apart, so runs are compared with
    their neighbour, not best with best (docs/profiling.md, "Issue 36.3, session 7")."""
    return round(statistics.median(s / e for s, e in zip(simulate, engine, strict=True)), 3)


def _pipeline_runs(games: int, repeats: int, mix: str) -> dict[str, dict[str, list[float]]]:
    """The pipeline (issue 12): whole runs of PIPELINE_CHUNKS chunks of ``games`` games through the
    runner, taken in turns with the engine alone on the same games in the same batches, per thread
    count."""
    pipeline: dict[str, dict[str, list[float]]] = {"engine": {}, "simulate": {}}
    with tempfile.TemporaryDirectory(prefix="soup-bench-") as tmp:
        for r in range(repeats):
            for t in THREADS:
                pipeline["engine"].setdefault(str(t), []).append(
                    round(chunks_games_per_second(PIPELINE_CHUNKS, games, t, mix), 1)
                )
                out = Path(tmp) / f"run-{t}-{r}"
                rate = simulate_games_per_second(PIPELINE_CHUNKS * games, games, t, out, mix)
                pipeline["simulate"].setdefault(str(t), []).append(round(rate, 1))
                shutil.rmtree(out)
    return pipeline


def _plain_python_rate(plain_games: int, mix: str) -> float:
    """games/s of 4-player games on the plain-Python path (NUMBA_DISABLE_JIT=1, a subprocess)."""
    return float(
        _python(
            "import sys; from sim.ursuppe.tools.bench import games_per_second; "
            "print(games_per_second(4, int(sys.argv[1]), 1, mix=sys.argv[2]))",
            str(plain_games),
            mix,
            env={"NUMBA_DISABLE_JIT": "1"},
        )
    )


def _command_measurements(
    rss_games: int, cold: bool, mix: str
) -> tuple[dict[str, float], dict[str, float], dict[str, float], float | None]:
    """The peak memory of ``soup simulate`` of ``rss_games`` and 10x as many games, the peak
    memory and seconds of ``soup report`` of each run (MB and s by games), and with ``cold`` the
    cold start's seconds (else None)."""
    with tempfile.TemporaryDirectory(prefix="soup-bench-") as tmp:
        # Unmeasured first: a kernel the command imports and this process did not compiles into the
        # cache here, not inside a measured run.
        command_peak_rss_mb(simulate_command(50, Path(tmp) / "warm-up", mix))
        rss, report_rss, report_s = {}, {}, {}
        for n in (rss_games, 10 * rss_games):
            run = Path(tmp) / f"run{n}"
            rss[str(n)] = round(command_peak_rss_mb(simulate_command(n, run, mix)), 1)
            # soup report of that very run (issue 21.11: its memory is flat in the run's size too)
            peak, seconds = command_peak_rss_and_seconds(report_command(run, Path(tmp) / f"report{n}"))
            report_rss[str(n)], report_s[str(n)] = round(peak, 1), round(seconds, 1)
        cold_s = None
        if cold:
            cold_s = round(
                float(_python(_FIRST_GAME, env={"NUMBA_CACHE_DIR": os.path.join(tmp, "cache")}).split()[0]), 2
            )
    return rss, report_rss, report_s, cold_s


SCALING_FIGURES = ("4p", "6p", "4p-extra")  # issue 36.4: the per-core figures, at every thread count


def scaling(threads: list[int], games: int, repeats: int, mix: str = "") -> dict[str, Any]:
    """games/s of SCALING_FIGURES at each thread count of ``threads`` (``games`` games per thread,
    so every run lasts about as long; best of ``repeats`` taken in turns), each count's speed-up
    over 1 thread and its efficiency (speed-up / threads), and the whole 4-player ``soup simulate``
    pipeline at the largest count over the engine's games/s there (issue 36.4)."""
    games_per_second(4, 64, 1, mix=mix)  # compile or load first
    figures = [f for f in FIGURES if f[0] in SCALING_FIGURES]
    runs: dict[str, dict[str, list[float]]] = {key: {str(t): [] for t in threads} for key, *_ in figures}
    for _ in range(repeats):
        for key, players, variant, extra in figures:
            for t in threads:
                rate = games_per_second(players, games * t, t, mix=mix, variant=variant, extra=extra)
                runs[key][str(t)].append(round(rate, 1))
    rates = {key: {t: max(v) for t, v in by_threads.items()} for key, by_threads in runs.items()}
    top = max(threads)
    pipeline: dict[str, list[float]] = {"engine": [], "simulate": []}
    with tempfile.TemporaryDirectory(prefix="soup-bench-") as tmp:
        for r in range(repeats):
            rate = chunks_games_per_second(PIPELINE_CHUNKS, games * top, top, mix)
            pipeline["engine"].append(round(rate, 1))
            out = Path(tmp) / f"run-{r}"
            rate = simulate_games_per_second(PIPELINE_CHUNKS * games * top, games * top, top, out, mix)
            pipeline["simulate"].append(round(rate, 1))
            shutil.rmtree(out)
    return {
        "threads": threads,
        "threads_available": os.cpu_count(),
        "games_per_thread": games,
        "repeats": repeats,
        "games_per_s": rates,
        "games_per_s_runs": runs,
        "speedup": {k: {t: round(r[t] / r[str(min(threads))], 2) for t in r} for k, r in rates.items()},
        "efficiency": {
            k: {t: round(r[t] / r[str(min(threads))] / (int(t) / min(threads)), 3) for t in r}
            for k, r in rates.items()
        },
        "pipeline_threads": top,
        "pipeline_games_per_s": {k: max(v) for k, v in pipeline.items()},
        "pipeline_efficiency": paired_efficiency(pipeline["simulate"], pipeline["engine"]),
        "pipeline_runs": pipeline,
        "mix": mix.split(",") if mix else list(DEFAULT_POOL),
    }


def scaling_text(doc: dict[str, Any]) -> str:
    """The scaling table (docs/profiling.md's form): games/s, speed-up and efficiency per count."""
    threads = [str(t) for t in doc["threads"]]
    lines = [
        f"games/s by threads ({doc['games_per_thread']:,} games a thread, best of {doc['repeats']}, "
        f"{doc['threads_available']} cores available)",
        "| figure | " + " | ".join(f"{t} thr" for t in threads) + " |",
        "|---|" + "---:|" * len(threads),
    ]
    for key, r in doc["games_per_s"].items():
        lines.append(
            f"| {_figure_label(key)} | "
            + " | ".join(
                f"{r[t]:,.0f} ({doc['speedup'][key][t]:.1f}x, {doc['efficiency'][key][t]:.0%})"
                for t in threads
            )
            + " |"
        )
    p = doc["pipeline_games_per_s"]
    lines.append(
        f"soup simulate (whole run, 4 players) on {doc['pipeline_threads']} threads: {p['simulate']:,.0f} "
        f"games/s at best against the engine's {p['engine']:,.0f}; a whole run over the engine run "
        f"before it: {doc['pipeline_efficiency']:.2f}x (the rounds' median)"
    )
    return "\n".join(lines)


def compare_text(c: dict[str, Any]) -> list[str]:
    rev = c["rev"] if c["commit"].startswith(c["rev"]) else f"{c['rev']} ({c['commit'][:10]})"
    lines = [
        f"compared with {rev}: games/s, best of {c['repeats']} runs each, working tree and {c['rev']} "
        "in turns" + (" (same engine files as the working tree)" if c["same_engine_files"] else ""),
        f"  {'':<18}{'working tree':>14}{c['rev'][:14]:>16}{'ratio':>9}",
    ]
    for key in c["ratios"]:
        for t in c["ratios"][key]:
            label = f"{_figure_label(key, short=True)}, {t} thr"
            lines.append(
                f"  {label:<18}{c['working_tree_games_per_s'][key][t]:>14,.0f}"
                f"{c['rev_games_per_s'][key][t]:>16,.0f}{c['ratios'][key][t]:>8.3f}x"
            )
    if c.get("not_compared"):
        lines.append(f"  not played by {c['rev']}: " + ", ".join(map(_figure_label, c["not_compared"])))
    if c.get("peak_rss_mb"):
        work, old = c["peak_rss_mb"]["working_tree"], c["peak_rss_mb"]["rev"]
        lines.append(
            f"  {'peak memory, MB':<18}{work or float('nan'):>14,.0f}{old or float('nan'):>16,.0f}"
            + (f"{c['rss_ratio']:>8.3f}x" if c["rss_ratio"] else "")
            + f"  (soup simulate of {c['rss_games']:,} and {10 * c['rss_games']:,} games, the larger peak)"
        )
    return lines


def _figure_label(key: str, short: bool = False) -> str:
    """'4p' -> '4 players'; '2p-double2' -> '2 players, double2'; '4p-extra' -> '4 players, extra
    genes' (``short``: '4p extra')."""
    count, _, variant = key.partition("-")
    if short:
        return f"{count} {variant}".strip()
    variant = "extra genes" if variant == "extra" else variant
    return f"{count[:-1]} players" + (f", {variant}" if variant else "")


def as_text(doc: dict[str, Any]) -> str:
    r = doc["games_per_s"]
    by_games = doc["peak_rss_mb_by_games"]
    lines = [
        f"mix ({', '.join(doc['mix'])}), {doc['games']:,} games per measurement, full genes, "
        f"best of {doc['repeats']}",
        *(
            f"  {_figure_label(key)}: {r[key]['1']:>10,.0f} games/s on 1 thread, {r[key]['2']:>10,.0f} on 2 "
            f"({r[key]['2'] / r[key]['1']:.2f}x)"
            for key in r
        ),
        f"  6 players over 4: {doc['6p_over_4p']['1']:.2f}x on 1 thread, {doc['6p_over_4p']['2']:.2f}x on 2 "
        f"(target {doc['6p_over_4p_target']:.2f}x or more)",
        f"  4 players with the extra genes over without: {doc['extra_over_4p']['1']:.2f}x on 1 thread, "
        f"{doc['extra_over_4p']['2']:.2f}x on 2 (target {doc['extra_over_4p_target']:.2f}x or more)",
        "  soup simulate (whole run, 4 players): "
        + ", ".join(
            f"{doc['simulate_games_per_s'][t]:,.0f} games/s on {t} thread{'s' if t != '1' else ''} "
            f"({doc['pipeline_efficiency'][t]:.2f}x the engine's)"
            for t in doc["pipeline_efficiency"]
        )
        + f" (the rounds' median of a whole run over the engine run before it; target "
        f"{doc['pipeline_efficiency_target']:.2f}x or more)",
        f"  plain Python: {doc['plain_python_games_per_s']:.1f} games/s "
        f"-> speed-up {doc['speedup_vs_python']}x",
        "  peak memory of soup simulate: "
        + ", ".join(f"{v:.0f} MB for {int(k):,} games" for k, v in by_games.items())
        + f" ({doc['peak_rss_ratio']:.2f}x)",
        "  soup report of those runs: "
        + ", ".join(
            f"{v:.0f} MB in {doc['report_seconds_by_games'][k]:.0f} s for {int(k):,} games"
            for k, v in doc["report_peak_rss_mb_by_games"].items()
        )
        + f" ({doc['report_peak_rss_ratio']:.2f}x)",
        (
            f"  start: cold {doc['cold_start_s']} s (compile), "
            if doc["cold_start_s"] is not None
            else "  start: "
        )
        + f"warm {doc['warm_start_s']} s ({doc['warm_start_cpu_s']} s of CPU); the whole warm "
        f"`{doc['warm_command']}`: {doc['warm_command_s']} s ({doc['warm_command_cpu_s']} s of CPU)",
    ]
    if "compare" in doc:
        lines += compare_text(doc["compare"])
    return "\n".join(lines)


if __name__ == "__main__":
    print(json.dumps(bench(), indent=1))
