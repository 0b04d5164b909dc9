"""Scaling out (issue 12): playing and writing overlap, chunks played on a backend (this process's
threads or Ray tasks), bit-identical rows whatever the backend, resume across backends, and faults
(a killed worker is retried, a game error fails the run naming its chunk)."""

import hashlib
import json
import os
import signal
from pathlib import Path

import pyarrow as pa
import pytest

from sim import runner
from sim.backends import LocalBackend, encode_chunk
from sim.errors import GameError


class HashGame:
    """A fake game for the game-agnostic layer: game i's row is a hash of (seed, i). Game ``bad``
    cannot be played; with ``kill_marker``, the first process to play a chunk holding game
    ``kill_game`` kills itself (SIGKILL) after leaving the marker file, as a crashed worker."""

    def __init__(self, seed: int = 1, bad: int | None = None, kill_marker: str | None = None,
                 kill_game: int = 0) -> None:
        self.seed, self.bad, self.kill_marker, self.kill_game = seed, bad, kill_marker, kill_game

    def spec(self) -> dict:
        return {"game": "hash", "seed": self.seed}

    def play_chunk(self, first: int, count: int, threads: int) -> pa.Table:
        games = list(range(first, first + count))
        if self.kill_marker is not None and self.kill_game in games and not os.path.exists(self.kill_marker):
            Path(self.kill_marker).write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        if self.bad is not None and self.bad in games:
            raise GameError(f"game {self.bad}: the hash fell off the table")
        score = [int(hashlib.sha256(f"{self.seed}:{g}".encode()).hexdigest()[:8], 16) for g in games]
        return pa.table({"game": pa.array(games, pa.int64()), "score": pa.array(score, pa.int64())})


def chunk_bytes(out: Path) -> list[bytes]:
    return [p.read_bytes() for p in runner.chunk_files(out)]


def serial_reference(adapter, games: int, chunk: int) -> list[bytes]:
    """Each chunk played and encoded one after another, nothing overlapping: the bytes a run must hold."""
    return [
        encode_chunk(adapter.play_chunk(first, min(chunk, games - first), 1))
        for first in range(0, games, chunk)
    ]


# --- overlapping play and write (local backend) -------------------------------------------------


def test_pipelined_run_writes_the_bytes_of_a_serial_run(tmp_path):
    runner.run(HashGame(), tmp_path / "run", 95, 10, 1)
    assert chunk_bytes(tmp_path / "run") == serial_reference(HashGame(), 95, 10)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert list(manifest["chunks"]) == [str(i) for i in range(10)]  # listed in chunk order
    assert manifest["status"] == "complete"


def test_ursuppe_pipelined_run_equals_serial_chunks(rulebook, tmp_path):
    from sim.ursuppe.simulation import UrsuppeRun
    from strategies.params import load_strategy

    spec = UrsuppeRun(rulebook, 4, 3, [load_strategy("greedy"), load_strategy("random")], pool=[0, 1])
    runner.run(spec, tmp_path / "run", 300, 100, 2)
    assert chunk_bytes(tmp_path / "run") == serial_reference(spec, 300, 100)


def test_interrupt_while_a_chunk_is_written_keeps_only_complete_listed_chunks(tmp_path):
    def stop(done, total):
        if done >= 30:
            raise KeyboardInterrupt

    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        runner.run(HashGame(), out, 95, 10, 1, progress=stop)
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(manifest["chunks"], key=int) == ["0", "1", "2"] and manifest["status"] == "running"
    assert sorted(p.name for p in out.glob("chunk-*")) == [runner.chunk_name(i) for i in range(3)]
    assert not list(out.glob(".*tmp*"))
    runner.run(HashGame(), out, 95, 10, 1)
    assert chunk_bytes(out) == serial_reference(HashGame(), 95, 10)


def test_game_error_names_its_chunk_and_keeps_the_earlier_ones(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(GameError, match=r"chunk-000002.parquet \(games 20-29\): game 25"):
        runner.run(HashGame(bad=25), out, 95, 10, 1, backend=LocalBackend(1))
    assert sorted(json.loads((out / "manifest.json").read_text())["chunks"], key=int) == ["0", "1"]
    assert chunk_bytes(out) == serial_reference(HashGame(), 95, 10)[:2]


def test_default_chunk_size_grows_with_threads():
    assert runner.default_chunk_size(1) == runner.default_chunk_size(2) == 20_000
    assert runner.default_chunk_size(16) == 80_000
    assert runner.default_chunk_size(1000) == 200_000
