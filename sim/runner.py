"""The chunked batch runner (game-agnostic): games in chunks, one Parquet file per chunk, a manifest.

A run is a directory::

    manifest.json             what was run (spec), which chunks are complete, timings
    chunk-000000.parquet      outcome rows of games [0, chunk_size)
    chunk-000001.parquet      ...

Every chunk file and the manifest are written to a temporary file and renamed, so an interrupted
run (Ctrl-C, a crash) leaves only complete chunks and a manifest that lists exactly them.
``resume`` finishes such a run: it checks that the spec is the same and plays only the missing
chunks. Since a game depends only on (rules, strategies, seating, seed, game index), the rows are
the same whatever the chunk size, the thread count or the interruptions.

A game plugs in with a :class:`GameAdapter`: it names itself, describes its spec, and turns a
range of game indices into a pyarrow Table of outcome rows.
"""

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from sim.errors import UserError

MANIFEST = "manifest.json"
FORMAT_VERSION = 1


class RunError(UserError):
    """A run that cannot start or resume (the message is one line)."""


class GameAdapter(Protocol):
    """What the runner needs from a game."""

    def spec(self) -> dict[str, Any]:
        """Everything that determines the results (rules, strategies, seating, seed, players...)."""

    def play_chunk(self, first: int, count: int, threads: int) -> pa.Table:
        """Play games ``first .. first + count - 1`` and return their outcome rows."""


@dataclass
class RunSummary:
    out: Path
    games: int
    chunks: int
    chunks_played: int
    seconds: float


def write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write`` on a temporary file beside ``path``, then rename it into place: a reader
    sees the old file or the complete new one, never a half-written one."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_json_atomic(path: Path, doc: dict[str, Any]) -> None:
    write_atomic(path, lambda p: p.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n"))


def chunk_name(index: int) -> str:
    return f"chunk-{index:06d}.parquet"


def read_manifest(out: Path) -> dict[str, Any] | None:
    path = out / MANIFEST
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise RunError(f"{path}: unreadable manifest ({e})") from None


def run(
    adapter: GameAdapter,
    out: Path,
    games: int,
    chunk_size: int,
    threads: int,
    *,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
    version: str = "",
) -> RunSummary:
    """Play ``games`` games in chunks into ``out`` (see the module docstring)."""
    if games < 1:
        raise RunError(f"--games: expected a positive number, got {games}")
    if chunk_size < 1:
        raise RunError(f"--chunk-size: expected a positive number, got {chunk_size}")
    out.mkdir(parents=True, exist_ok=True)
    spec = {"format_version": FORMAT_VERSION, **adapter.spec(), "games": games}
    manifest = read_manifest(out)
    if manifest is not None:
        if not resume:
            raise RunError(f"{out}: holds a run already (use --resume to finish it, or another --out)")
        if manifest["spec"] != spec:
            changed = sorted(
                k for k in set(spec) | set(manifest["spec"]) if spec.get(k) != manifest["spec"].get(k)
            )
            raise RunError(f"{out}: --resume with a different run: {', '.join(changed)} differ")
        if manifest.get("chunk_size") != chunk_size:
            chunk_size = manifest["chunk_size"]  # the chunk layout of a run is fixed by its start
    else:
        if resume and any(out.glob("chunk-*.parquet")):
            raise RunError(f"{out}: chunk files without a manifest; cannot resume")
        manifest = {
            "spec": spec,
            "chunk_size": chunk_size,
            "version": version,
            "chunks": {},
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "status": "running",
        }
        write_json_atomic(out / MANIFEST, manifest)
    n_chunks = (games + chunk_size - 1) // chunk_size
    done = {int(k) for k, c in manifest["chunks"].items() if (out / c["file"]).exists()}
    games_done = sum(min(chunk_size, games - i * chunk_size) for i in done)
    if progress:
        progress(games_done, games)
    played = 0
    t0 = time.perf_counter()
    for i in range(n_chunks):
        if i in done:
            continue
        first = i * chunk_size
        count = min(chunk_size, games - first)
        t = time.perf_counter()
        table = adapter.play_chunk(first, count, threads)
        seconds = time.perf_counter() - t
        name = chunk_name(i)
        write_atomic(out / name, lambda p, table=table: pq.write_table(table, p, compression="zstd"))
        manifest["chunks"][str(i)] = {
            "file": name,
            "first_game": first,
            "games": count,
            "rows": table.num_rows,
            "seconds": round(seconds, 3),
            "threads": threads,
        }
        write_json_atomic(out / MANIFEST, manifest)
        played += 1
        games_done += count
        if progress:
            progress(games_done, games)
    manifest["status"] = "complete"
    manifest["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    write_json_atomic(out / MANIFEST, manifest)
    return RunSummary(out, games, n_chunks, played, time.perf_counter() - t0)


def chunk_files(out: Path) -> list[Path]:
    """The complete chunk files of a run, in order."""
    manifest = read_manifest(out)
    if manifest is None:
        raise RunError(f"{out}: no {MANIFEST} (not a soup run directory)")
    return [out / c["file"] for _, c in sorted(manifest["chunks"].items(), key=lambda kv: int(kv[0]))]
