"""Where the engine's time goes, by kernel (``soup bench --profile``; issue 24): ``perf`` samples a
subprocess that plays games of any registered game, and a symbol map written by that process
(/tmp/perf-PID.map, perf's convention for code made at run time) names numba's machine code by
kernel, ``module.qualname``. Time is a kernel's own (self) time: what LLVM inlined into a caller
counts for the caller. Without ``perf`` (or where the kernel forbids sampling) the table is
missing and the reason says why; a game's per-phase shares (sim.<game>.tools) need no ``perf``.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sim import jit

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_HZ = 2999  # odd, so that sampling does not beat with a periodic loop


def write_perf_map() -> Path:
    """Write this process's kernels as perf's symbol map (``START SIZE NAME`` in hex, one a line),
    where perf looks for it: /tmp/perf-PID.map."""
    path = Path(tempfile.gettempdir()) / f"perf-{os.getpid()}.map"
    lines = [f"{address:x} {size:x} {name}\n" for address, size, name in jit.machine_code_symbols()]
    path.write_text("".join(lines), encoding="utf-8")
    return path


# The profiled process: load the engine, play a few games (anything compiled or loaded lazily is
# then loaded), write the map, then play the measured games.
_PLAY = """
import sys
from pathlib import Path
from sim import game, profiling
g = game.get(sys.argv[1])
players, games, files = int(sys.argv[2]), int(sys.argv[3]), [Path(f) for f in sys.argv[4:]]
g.load_engine()
run = g.new_run(g.load_rules(files), players, 1)
run.play_chunk(0, 64, 1)
print(profiling.write_perf_map(), flush=True)
run.play_chunk(0, games, 1)
"""

# perf report --stdio --no-children --sort sym: "  12.34%  [.] name" lines
_ROW = re.compile(r"^\s*([0-9.]+)%\s+\[[.k]\]\s+(.*?)\s*$")


@dataclass(frozen=True)
class HotFunctions:
    """Self time by kernel (``rows``: share of the samples in kernels, name, the largest first),
    and the kernels' share of all the profiled process's samples (the rest: starting Python,
    loading the engine, building the result rows)."""

    rows: list[tuple[float, str]]
    kernel_share: float


def perf_missing() -> str | None:
    """Why ``perf`` cannot profile here (None: it can)."""
    if shutil.which("perf") is None:
        return "perf is not installed (Linux: the linux-tools package of the running kernel)"
    if jit.PLAIN_PYTHON:
        return "NUMBA_DISABLE_JIT is set: there is no machine code to sample"
    return None


def hot_functions(game: str, players: int, games: int, rules_files: list[Path] = ()) -> HotFunctions:
    """Profile ``games`` games of ``game`` at ``players`` (rules files merged over the defaults)
    on one thread with ``perf``; a RuntimeError says why when it cannot."""
    reason = perf_missing()
    if reason is not None:
        raise RuntimeError(reason)
    with tempfile.TemporaryDirectory(prefix="soup-profile-") as tmp:
        data = Path(tmp) / "perf.data"
        command = [sys.executable, "-c", _PLAY, game, str(players), str(games), *map(str, rules_files)]
        record = subprocess.run(
            ["perf", "record", "-F", str(SAMPLE_HZ), "-o", str(data), "--", *command],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        if record.returncode != 0 or not data.exists():
            last = (record.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"perf record failed: {last}")
        symbol_map = Path(record.stdout.strip().splitlines()[-1])  # the profiled process's
        try:
            report = subprocess.run(
                ["perf", "report", "-i", str(data), "--stdio", "--no-children", "--sort", "sym"],
                capture_output=True,
                text=True,
            )
        finally:
            symbol_map.unlink(missing_ok=True)
    if report.returncode != 0:
        raise RuntimeError(f"perf report failed: {report.stderr.strip()[-200:]}")
    return parse_report(report.stdout, _kernel_names())


def _kernel_names() -> set[str]:
    """Every kernel's ``module.qualname`` (from the sources: no engine needs to be loaded here)."""
    return {f"{module}.{name}" for module, name in jit.expected_kernels()}


def parse_report(text: str, kernels: set[str]) -> HotFunctions:
    """The rows of ``perf report --stdio --no-children --sort sym`` that are kernels (a wrapper
    counts for its kernel), as shares of the kernels' samples."""
    own: dict[str, float] = {}
    total = 0.0
    for line in text.splitlines():
        row = _ROW.match(line)
        if row is None:
            continue
        share, name = float(row.group(1)), row.group(2)
        name = name.removesuffix(" (Python wrapper)")
        if name in kernels:
            own[name] = own.get(name, 0.0) + share
        total += share
    in_kernels = sum(own.values())
    rows = sorted(((share / in_kernels, name) for name, share in own.items()), reverse=True)
    return HotFunctions(rows, in_kernels / total if total else 0.0)


def by_module(rows: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """The kernels' self times summed by module, the largest first: a game's modules are its
    categories of work (a phase, feeding, movement, the strategies' scoring, a gene), so this is
    where the time goes by category."""
    shares: dict[str, float] = {}
    for share, name in rows:
        module = name.rpartition(".")[0]
        shares[module] = shares.get(module, 0.0) + share
    return sorted(((share, module) for module, share in shares.items()), reverse=True)


def profile(
    game: str, players: int, games: int, rules_files: list[Path] = (), phases: dict[str, float] | None = None
) -> dict:
    """The document of ``soup bench --profile``: the game's phase times if it gave them (seconds by
    phase), and the hot kernels by perf (or why there are none)."""
    doc: dict = {"game": game, "players": players, "games": games, "threads": 1}
    if phases is not None:
        total = sum(phases.values()) or 1.0
        doc["phase_seconds"] = {k: round(v, 4) for k, v in phases.items()}
        doc["phase_shares"] = {k: round(v / total, 4) for k, v in phases.items()}
    try:
        hot = hot_functions(game, players, games, list(rules_files))
    except RuntimeError as e:
        doc["hot_kernels"], doc["kernel_share"], doc["perf_missing"] = None, None, str(e)
        doc["hot_modules"] = None
    else:
        doc["hot_kernels"] = [[round(share, 4), name] for share, name in hot.rows]
        doc["hot_modules"] = [[round(share, 4), module] for share, module in by_module(hot.rows)]
        doc["kernel_share"] = round(hot.kernel_share, 4)
        doc["perf_missing"] = None
    return doc


def as_text(doc: dict, top: int = 25) -> str:
    lines = [f"Profile: {doc['game']}, {doc['players']} players, {doc['games']:,} games on 1 thread"]
    if "phase_shares" in doc:
        lines.append("Time by phase (each phase stepped over the whole batch):")
        for phase, share in doc["phase_shares"].items():
            lines.append(f"  {phase:<10} {100 * share:5.1f}%  {doc['phase_seconds'][phase]:8.3f} s")
    if doc["hot_kernels"] is None:
        lines.append(f"Hot kernels: not measured ({doc['perf_missing']}).")
    else:
        lines.append(
            f"Hot kernels (self time, perf; what LLVM inlined counts for its caller; the kernels hold "
            f"{100 * doc['kernel_share']:.0f}% of the process's samples, the rest is starting Python, "
            f"loading the engine and building rows):"
        )
        for share, name in doc["hot_kernels"][:top]:
            lines.append(f"  {100 * share:5.1f}%  {name}")
        lines.append("By module (the same self times summed: a module is a category of work):")
        for share, module in doc["hot_modules"][:top]:
            lines.append(f"  {100 * share:5.1f}%  {module}")
    return "\n".join(lines)
