"""Scaling out (issue 12): playing and writing overlap, chunks played on a backend (this process's
threads or Ray tasks), bit-identical rows whatever the backend, resume across backends, and faults
(a killed worker is retried, a game error fails the run naming its chunk)."""

import hashlib
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim import runner
from sim.backends import LocalBackend
from sim.chunk_encoding import encode_chunk
from sim.errors import GameError
from tests import processes
from tests.interrupting import soup_interrupted

# One xdist worker runs this module (pyproject's --dist loadgroup): one local Ray instance at a time.
pytestmark = pytest.mark.xdist_group("ray")


class HashGame(runner.RunAdapter):
    """A fake game for the game-agnostic layer: game i's row is a hash of (seed, i). Game ``bad``
    cannot be played; with ``kill_marker``, the first process to play a chunk holding game
    ``kill_game`` kills itself (SIGKILL) after leaving the marker file, as a crashed worker."""

    def __init__(
        self, seed: int = 1, bad: int | None = None, kill_marker: str | None = None, kill_game: int = 0
    ) -> None:
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
    """Each chunk of the run's layout (its short last chunk too) played and encoded one after
    another, nothing overlapping: the bytes a run must hold."""
    layout = runner.ChunkLayout.new(games, chunk)
    return [
        encode_chunk(adapter.play_chunk(layout.first(i), layout.count(i), 1)) for i in range(layout.n_chunks)
    ]


# --- overlapping play and write (local backend) -------------------------------------------------


def test_pipelined_run_writes_the_bytes_of_a_serial_run(tmp_path):
    runner.run(HashGame(), tmp_path / "run", 95, 10, 1)
    assert chunk_bytes(tmp_path / "run") == serial_reference(HashGame(), 95, 10)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert list(manifest["chunks"]) == [str(i) for i in range(11)]  # listed in chunk order
    assert manifest["status"] == "complete"


def test_a_runs_last_chunk_is_split_off_short():
    """Issue 36.3: the write of the chunk played last overlaps nothing, so a run ends on a short
    chunk (chunk_size // 4 games) when its last chunk has at least twice as many; a run written
    before (no "last_chunk") keeps whole chunks."""

    def layout(games: int, size: int, last: int) -> list[tuple[int, int]]:
        chunks = runner.ChunkLayout(games, size, last)
        return [(chunks.first(i), chunks.count(i)) for i in range(chunks.n_chunks)]

    assert runner.ChunkLayout.new(100_000, 20_000).last_chunk == 5_000
    assert layout(0, 20_000, 5_000) == []  # no games, no chunk (a hand-edited manifest's spec)
    assert layout(100_000, 20_000, 5_000) == [
        (0, 20_000),
        (20_000, 20_000),
        (40_000, 20_000),
        (60_000, 20_000),
        (80_000, 15_000),
        (95_000, 5_000),
    ]
    assert layout(29_999, 20_000, 5_000) == [(0, 20_000), (20_000, 9_999)]  # no part under 5,000
    assert layout(30_000, 20_000, 5_000) == [(0, 20_000), (20_000, 5_000), (25_000, 5_000)]
    assert layout(9_999, 20_000, 5_000) == [(0, 9_999)]  # both parts would not hold 5,000
    assert layout(10_000, 20_000, 5_000) == [(0, 5_000), (5_000, 5_000)]
    assert layout(95, 10, 0) == [(first, min(10, 95 - first)) for first in range(0, 95, 10)]
    assert layout(1, 1, 0) == [(0, 1)]
    huge = runner.ChunkLayout(10**12, 20_000, 5_000)  # arithmetic: no list of 50 million chunks
    assert (huge.n_chunks, huge.first(huge.n_chunks - 1), huge.count(huge.n_chunks - 2)) == (
        50_000_001,
        10**12 - 5_000,
        15_000,
    )


def test_a_run_written_before_the_short_last_chunk_resumes_with_whole_chunks(tmp_path):
    out = tmp_path / "run"
    runner.run(HashGame(), out, 20, 10, 1)  # 10 + 8 + 2
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["last_chunk"] == 2 and len(manifest["chunks"]) == 3
    old = tmp_path / "old"  # as the revision before wrote it: two whole chunks, the second missing
    old.mkdir()
    (old / runner.chunk_name(0)).write_bytes((out / runner.chunk_name(0)).read_bytes())
    manifest.pop("last_chunk")
    manifest["chunks"] = {"0": manifest["chunks"]["0"]}
    manifest["status"] = "running"
    (old / "manifest.json").write_text(json.dumps(manifest))
    runner.run(HashGame(), old, 20, 10, 1)
    resumed = json.loads((old / "manifest.json").read_text())
    assert [(c["first_game"], c["games"]) for c in resumed["chunks"].values()] == [(0, 10), (10, 10)]
    assert "last_chunk" not in resumed and resumed["status"] == "complete"
    assert chunk_bytes(old)[1] == encode_chunk(HashGame().play_chunk(10, 10, 1))
    # soup report checks each chunk's place by the layout the manifest records (analysis.report_runs)
    from analysis.report_runs import chunks_problem

    resumed["spec"]["players"] = 1  # HashGame's spec has none: one row a game
    assert chunks_problem(old, resumed) is None
    assert chunks_problem(old, {**resumed, "last_chunk": 2}) == (
        "chunks.1.games is 10, expected 8 (spec.games 20)"
    )


def test_ursuppe_pipelined_run_equals_serial_chunks(rulebook, tmp_path):
    from sim.ursuppe.simulation import UrsuppeRun
    from strategies.ursuppe.params import load_strategy

    spec = UrsuppeRun(rulebook, 4, 3, [load_strategy("greedy"), load_strategy("random")], pool=[0, 1])
    runner.run(spec, tmp_path / "run", 300, 100, 2)
    assert chunk_bytes(tmp_path / "run") == serial_reference(spec, 300, 100)


class SplitHashGame(HashGame):
    """HashGame with its rows split from its games (RunAdapter.splits_rows) and a set-up of its
    own; every call is logged in order with the thread it ran on (the writer's too)."""

    splits_rows = True

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, int]] = []
        self.threads: dict[tuple[str, int], str] = {}

    def _logged(self, what: str, first: int) -> None:
        self.log.append((what, first))
        self.threads[(what, first)] = threading.current_thread().name

    def set_up_games(self, first: int, count: int) -> tuple[str, int]:
        self._logged("set_up", first)
        return ("set up", first)

    def play_games(self, first: int, count: int, threads: int, set_up=None) -> tuple[int, int]:
        assert set_up == ("set up", first), set_up  # the set-up made for these very games
        self._logged("play", first)
        return first, count

    def chunk_rows(self, played: tuple[int, int]) -> pa.Table:
        self._logged("rows", played[0])
        return self.play_chunk(played[0], played[1], 1)


def test_the_next_chunk_is_set_up_on_the_writer_thread_while_a_chunk_plays(tmp_path):
    """The set-up is off the engine's path (docs/profiling.md, "Issue 36.3, sessions 9 and 10"):
    chunk k + 1 is set up on the writer's thread, queued when chunk k - 1 is handed over, behind
    chunk k - 1's rows (so that chunk k - 1's batch is let go first: never a third batch alive) and
    ahead of chunk k's; the run holds the bytes of a serial one."""
    game = SplitHashGame()
    runner.run(game, tmp_path / "run", 45, 10, 1)
    assert chunk_bytes(tmp_path / "run") == serial_reference(HashGame(), 45, 10)
    firsts = [0, 10, 20, 30, 40, 43]  # the last chunk split off short: 40-42, 43-44
    assert [e for e in game.log if e[0] == "play"] == [("play", first) for first in firsts]
    assert game.threads[("set_up", 0)] == threading.current_thread().name  # nothing to overlap yet
    at = game.log.index
    for k, first in enumerate(firsts[1:], 1):
        assert game.threads[("set_up", first)].startswith("soup-writer"), (first, game.threads)
        assert at(("set_up", first)) < at(("rows", firsts[k - 1]))
        if k >= 2:
            assert at(("rows", firsts[k - 2])) < at(("set_up", first))


def test_a_thread_with_no_block_left_in_a_chunk_plays_the_next_chunks_blocks(tmp_path):
    """Chunks are played through one pool of threads (sim.threads.BlockPool, docs/profiling.md,
    "Issue 36.3, session 10"): while chunk 0's last block still plays, the other thread plays
    chunk 1's, where it used to wait; the run holds the bytes of a serial one."""
    from sim.threads import run_blocks

    events: list[tuple[str, int, int]] = []
    lock = threading.Lock()

    class BlockGame(SplitHashGame):
        def play_games(self, first: int, count: int, threads: int, set_up=None) -> tuple[int, int]:
            def block(b: int) -> None:
                with lock:
                    events.append(("start", first, b))
                time.sleep(0.4 if (first, b) == (0, 3) else 0.002)  # chunk 0's last block is long
                with lock:
                    events.append(("end", first, b))

            run_blocks(block, 4, threads, lambda t: ())
            return super().play_games(first, count, threads, set_up)

    runner.run(BlockGame(), tmp_path / "run", 30, 10, 2)
    assert chunk_bytes(tmp_path / "run") == serial_reference(HashGame(), 30, 10)
    at = events.index
    assert at(("start", 10, 0)) < at(("end", 0, 3))
    assert all(at(("start", 0, b)) < at(("start", 10, 0)) for b in range(4))  # chunk 0's blocks first


def _engine_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith(("soup-blocks", "soup-chunk"))]


def test_a_game_error_in_the_chunk_after_one_still_playing_keeps_that_chunk_and_no_thread(tmp_path):
    """Chunk 1's games fail while chunk 0's last block still plays (they overlap): chunk 0 is
    written and listed, the error names chunk 1, and the run leaves no thread of its pool behind."""
    from sim.threads import run_blocks

    class FailsNext(SplitHashGame):
        def play_games(self, first: int, count: int, threads: int, set_up=None) -> tuple[int, int]:
            def block(b: int) -> None:
                time.sleep(0.3 if (first, b) == (0, 3) else 0.001)
                if first == 10:
                    raise GameError("game 12: the hash fell off the table")

            run_blocks(block, 4, threads, lambda t: ())
            return super().play_games(first, count, threads, set_up)

    out = tmp_path / "run"
    with pytest.raises(GameError, match=r"chunk-000001.parquet \(games 10-19\): game 12"):
        runner.run(FailsNext(), out, 40, 10, 2)
    assert sorted(json.loads((out / "manifest.json").read_text())["chunks"], key=int) == ["0"]
    assert chunk_bytes(out) == serial_reference(HashGame(), 40, 10)[:1]
    assert _engine_threads() == []
    runner.run(SplitHashGame(), tmp_path / "other", 40, 10, 2)
    assert _engine_threads() == []


def test_no_more_than_two_batches_are_alive_however_many_chunks_a_run_plays(tmp_path):
    """Memory stays bounded as the run goes on: when a chunk's batch is made, one other is alive at
    most (the one playing: the one written before is let go first, and freed at once)."""
    import weakref

    class Batch:
        def __init__(self, first: int, count: int) -> None:
            self.first, self.count = first, count

    alive: weakref.WeakSet = weakref.WeakSet()
    most = []

    class BatchGame(SplitHashGame):
        def set_up_games(self, first: int, count: int) -> Batch:
            most.append(len(alive))
            batch = Batch(first, count)
            alive.add(batch)
            return batch

        def play_games(self, first: int, count: int, threads: int, set_up=None) -> Batch:
            from sim.threads import run_blocks

            assert (set_up.first, set_up.count) == (first, count)
            # the pool's threads hold a block's arguments (the batch) while they play
            run_blocks(lambda batch, b: time.sleep(0.002), 3, threads, lambda t: (set_up,))
            return set_up

        def chunk_rows(self, played: Batch) -> pa.Table:
            return self.play_chunk(played.first, played.count, 1)

    runner.run(BatchGame(), tmp_path / "run", 120, 10, 2)
    assert chunk_bytes(tmp_path / "run") == serial_reference(HashGame(), 120, 10)
    assert len(most) == 13 and max(most) <= 1, most


def test_without_a_writer_the_next_chunk_is_set_up_before_the_chunk_played_goes_on():
    """A caller of LocalBackend.play without a writer (the restricted experiment's search games)
    gets each chunk after the next one is set up, on the calling thread."""
    from sim.backends import ChunkWork

    game = SplitHashGame()
    work = [ChunkWork(i, 10 * i, 10) for i in range(3)]
    for chunk in LocalBackend(1).play(game, work):
        game.log.append(("got", chunk.work.first))
    assert game.log == [
        ("set_up", 0), ("play", 0), ("set_up", 10), ("got", 0),
        ("play", 10), ("set_up", 20), ("got", 10), ("play", 20), ("got", 20),
    ]  # fmt: skip
    assert set(game.threads.values()) == {threading.current_thread().name}


def test_ctrl_c_while_the_next_chunk_is_set_up_still_writes_the_chunk_played(tmp_path):
    """The chunk played completely before the interrupt is written and listed (runner.play's
    promise), though the interrupt came in the next chunk's set-up (on the writer's thread, while
    that chunk played: it is raised when the next chunk is asked for)."""

    class Stops(SplitHashGame):
        def set_up_games(self, first: int, count: int) -> tuple[str, int]:
            if first == 20:
                raise KeyboardInterrupt
            return super().set_up_games(first, count)

    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        runner.run(Stops(), out, 45, 10, 1)
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(manifest["chunks"], key=int) == ["0", "1"] and manifest["status"] == "running"
    assert chunk_bytes(out) == serial_reference(HashGame(), 45, 10)[:2]


def test_without_a_writer_a_ctrl_c_in_the_next_set_up_still_gives_the_chunk_played():
    """LocalBackend.play without a writer sets the next chunk up before handing over the chunk
    just played: an interrupt there hands that chunk over first, then stops."""
    from sim.backends import ChunkWork

    class Stops(SplitHashGame):
        def set_up_games(self, first: int, count: int) -> tuple[str, int]:
            if first == 10:
                raise KeyboardInterrupt
            return super().set_up_games(first, count)

    got = []
    with pytest.raises(KeyboardInterrupt):
        for chunk in LocalBackend(1).play(Stops(), [ChunkWork(i, 10 * i, 10) for i in range(3)]):
            got.append(chunk.work.first)
    assert got == [0]


def test_a_bad_chunk_layout_in_a_manifest_is_one_line(tmp_path):
    out = tmp_path / "run"
    runner.run(HashGame(), out, 20, 10, 1)
    doc = json.loads((out / "manifest.json").read_text())
    for key, value in (("last_chunk", -1), ("last_chunk", "2"), ("chunk_size", 0)):
        (out / "manifest.json").write_text(json.dumps({**doc, key: value}))
        with pytest.raises(runner.RunError, match=f"manifest.json: {key}: expected an integer of at least"):
            runner.open_run(HashGame(), out, 20, 10)


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


# --- the Ray backend: one local Ray instance of 2 CPUs for the module ---------------------------


@pytest.fixture(scope="module")
def ray_cluster():
    """A local Ray instance of 2 CPUs, shared by the tests of this module (start-up: seconds)."""
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(
            address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False
        )
    # pytest imports this file as a top-level module the workers cannot import: send the fake
    # game's class by value (sim itself is importable on the workers, as on a cluster).
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def ray_address(ray_cluster) -> str:
    """The module's Ray instance as a cluster address, for `soup --backend ray --ray-address` in a
    subprocess: a command that connects there starts no Ray instance of its own (one start-up,
    seconds, per command otherwise). test_soup_simulate_on_ray_ctrl_c_resume_and_a_damaged_chunk
    keeps the path where soup starts and stops its own local instance."""
    return ray_cluster.get_runtime_context().gcs_address


@pytest.fixture
def ray_backend(ray_cluster):
    from sim.backends import RayBackend

    backend = RayBackend()  # uses the module's instance; close() leaves it running
    yield backend
    backend.close()
    assert ray_cluster.is_initialized()


def test_ray_backend_writes_the_bytes_of_a_serial_run(tmp_path, ray_backend):
    runner.run(HashGame(), tmp_path / "run", 95, 10, 1, backend=ray_backend)
    assert chunk_bytes(tmp_path / "run") == serial_reference(HashGame(), 95, 10)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert list(manifest["chunks"]) == [str(i) for i in range(11)] and manifest["status"] == "complete"


def test_ursuppe_on_ray_is_bit_identical_to_local(rulebook, tmp_path, ray_backend):
    """The adapter is pickled to the workers, which load the compiled engine from the jit cache."""
    from sim.ursuppe.simulation import UrsuppeRun
    from strategies.ursuppe.params import load_strategy

    spec = UrsuppeRun(rulebook, 4, 7, [load_strategy("greedy"), load_strategy("predator")], pool=[0, 1])
    runner.run(spec, tmp_path / "local", 400, 100, 2)
    runner.run(spec, tmp_path / "ray", 400, 100, 2, backend=ray_backend)
    assert chunk_bytes(tmp_path / "ray") == chunk_bytes(tmp_path / "local")


def test_a_search_seat_on_ray_is_bit_identical_to_local(rulebook, tmp_path, ray_backend):
    """Issue 33: a run with a search seat (search-4) gives the same rows on Ray as on this
    process's threads: a Ray task searches its chunk's games on one thread, locally on two."""
    from sim.ursuppe.simulation import build_run

    spec = build_run(rulebook, 4, 7, "search-4,breeder,greedy,breeder", "", "rotate")
    runner.run(spec, tmp_path / "local", 4, 2, 2)
    runner.run(spec, tmp_path / "ray", 4, 2, 2, backend=ray_backend)
    assert chunk_bytes(tmp_path / "ray") == chunk_bytes(tmp_path / "local")
    assert (
        "search-4"
        in pa.concat_tables([pq.read_table(p) for p in runner.chunk_files(tmp_path / "ray")])
        .column("strategy")
        .to_pylist()
    )


@pytest.mark.parametrize("first_on_ray", [False, True])
def test_resume_across_backends(tmp_path, ray_backend, first_on_ray):
    """A run started on one backend and interrupted is finished on the other: the backend is not
    part of the run's spec, and the rows are the same."""

    def stop(done, total):
        if done >= 40:
            raise KeyboardInterrupt

    out = tmp_path / "run"
    first, second = (ray_backend, LocalBackend(1)) if first_on_ray else (LocalBackend(1), ray_backend)
    with pytest.raises(KeyboardInterrupt):
        runner.run(HashGame(), out, 95, 10, 1, progress=stop, backend=first)
    kept = json.loads((out / "manifest.json").read_text())["chunks"]
    assert sorted(kept, key=int) == ["0", "1", "2", "3"]
    summary = runner.run(HashGame(), out, 95, 10, 1, backend=second, must_exist=True)
    assert summary.chunks_played == 7  # 4-8, then 90-92 and 93-94 (the last split off short)
    assert chunk_bytes(out) == serial_reference(HashGame(), 95, 10)


def test_ray_game_error_fails_naming_its_chunk_and_keeps_the_earlier_ones(tmp_path, ray_backend):
    out = tmp_path / "run"
    with pytest.raises(GameError, match=r"chunk-000003.parquet \(games 30-39\): game 33: the hash fell"):
        runner.run(HashGame(bad=33), out, 95, 10, 1, backend=ray_backend)
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(manifest["chunks"], key=int) == ["0", "1", "2"] and manifest["status"] == "running"
    assert sorted(p.name for p in out.glob("chunk-*")) == [runner.chunk_name(i) for i in range(3)]
    assert chunk_bytes(out) == serial_reference(HashGame(), 95, 10)[:3]


def test_a_worker_killed_mid_task_is_retried_and_the_run_is_the_same(tmp_path, ray_backend):
    """The first process to play the chunk holding game 42 kills itself (SIGKILL): Ray plays the
    task again on a new worker; the rows are those of a clean run."""
    marker = tmp_path / "killed"
    out = tmp_path / "run"
    runner.run(HashGame(kill_marker=str(marker), kill_game=42), out, 95, 10, 1, backend=ray_backend)
    assert marker.exists() and int(marker.read_text()) != os.getpid()  # a worker died, not the driver
    assert chunk_bytes(out) == serial_reference(HashGame(), 95, 10)


def test_soup_help_does_not_import_ray():

    from tests.test_cli import ROOT

    code = "import sys, sim.cli.app, sim.backends, sim.runner; print('ray' in sys.modules)"
    r = processes.run([sys.executable, "-c", code], cwd=ROOT)
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr


@pytest.mark.slow  # runs soup in a subprocess
def test_backend_ray_without_ray_installed_is_one_line(tmp_path):

    from tests.test_cli import ROOT

    script = (
        "import sys; sys.modules['ray'] = None\n"  # import ray -> ImportError, as if not installed
        "from sim.cli.app import main; sys.argv[0] = 'soup'; main()\n"
    )
    args = ["simulate", "--games", "10", "--out", str(tmp_path / "run"), "-q", "--backend", "ray"]
    r = processes.run([sys.executable, "-c", script, *args], cwd=ROOT)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert (
        r.stderr.strip() == "soup: error: --backend ray: Ray is not installed; install it with: pip "
        "install 'soup[ray]'"
    )
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_soup_simulate_on_ray_ctrl_c_resume_and_a_damaged_chunk(tmp_path, ray_address):
    """As a user runs it, `soup simulate --backend ray` with a local Ray instance of its own (the
    one test of that path: a Ray start-up is the slowest part of this file). Ctrl-C in a terminal
    reaches the whole process group (soup, and the Ray instance it started): one line saying what
    was kept, only complete chunks listed, and no token-authentication notice of the instance soup
    started (issue 21). `--resume` on Ray (the module's instance, by --ray-address) finishes the
    run to the bytes of a clean local run. A chunk truncated afterwards is named by `soup report`
    and by `--resume`, which plays it again, on the local backend, to the same bytes."""
    from tests.test_cli import ROOT, soup

    out, clean = tmp_path / "run", tmp_path / "clean"
    args = ["simulate", "--games", "20000", "--chunk-size", "1000", "--threads", "2", "-q"]
    p = soup_interrupted([*args, "--out", str(out), "--backend", "ray"], ROOT, group=True)
    stderr = p.stderr
    assert p.returncode == 130 and "Traceback" not in stderr, stderr
    assert any(line.startswith("soup: interrupted: ") for line in stderr.splitlines()), stderr
    assert "Token authentication" not in stderr + p.stdout
    kept = json.loads((out / "manifest.json").read_text())["chunks"]
    listed = [runner.chunk_name(int(i)) for i in sorted(kept, key=int)]
    assert kept and sorted(f.name for f in out.iterdir()) == [*listed, "manifest.json"]
    assert len(kept) < 20, "the run ended before Ctrl-C: nothing left to resume"

    r = soup(*args, "--out", str(out), "--backend", "ray", "--ray-address", ray_address, "--resume")
    assert r.returncode == 0, r.stderr
    assert soup(*args, "--out", str(clean)).returncode == 0
    assert chunk_bytes(out) == chunk_bytes(clean)

    damaged = out / runner.chunk_name(1)
    damaged.write_bytes(damaged.read_bytes()[:100])
    r = soup("report", str(out), "--out", str(tmp_path / "report"))
    errors = [line for line in r.stderr.splitlines() if line.startswith("soup: error:")]
    assert r.returncode == 2 and errors == [errors[0]] and f"{damaged}: damaged chunk file" in errors[0]
    r = soup(*args, "--out", str(out), "--resume")
    assert r.returncode == 0, r.stderr
    assert f"{damaged}: 100 bytes, expected" in r.stderr and "[resumed: 1,000 games played" in r.stdout
    assert chunk_bytes(out) == chunk_bytes(clean)


# --- experiments on a backend -------------------------------------------------------------------


def test_compare_and_tournament_on_ray_give_the_local_tables(tmp_path, ray_backend):
    """`soup compare` and `soup tournament --backend ray` (on the module's Ray instance) print and
    write the same numbers as locally."""
    from typer.testing import CliRunner

    from sim.cli.app import app

    house = tmp_path / "house.toml"
    house.write_text("[economy]\ndivision_cost = 5\n")
    outputs = {}
    for backend in ("local", "ray"):
        out = tmp_path / backend
        for command in (
            [
                "compare",
                "--rules",
                str(house),
                "--games",
                "120",
                "--chunk-size",
                "50",
                "--out",
                str(out / "c"),
            ],
            [
                "tournament",
                "--strategies",
                "greedy,random,predator",
                "--games",
                "24",
                "--chunk-size",
                "24",
                "--no-plot",
                "--out",
                str(out / "t"),
            ],
        ):
            r = CliRunner().invoke(app, [*command, "-q", "--threads", "1", "--backend", backend])
            assert r.exit_code == 0, (r.stdout, r.stderr, r.exception)
            outputs[backend, command[0]] = r.stdout.replace(str(out), "OUT")
    for command in ("compare", "tournament"):
        assert outputs["local", command] == outputs["ray", command]
    tables = ("c/comparison.csv", "c/comparison.md", "t/tournament-matrix.csv", "t/tournament-ratings.csv")
    for table in tables:
        local = (tmp_path / "local" / table).read_text().replace(str(tmp_path / "local"), "OUT")
        assert local == (tmp_path / "ray" / table).read_text().replace(str(tmp_path / "ray"), "OUT"), table
    assert chunk_bytes(tmp_path / "local" / "c" / "b") == chunk_bytes(tmp_path / "ray" / "c" / "b")


def test_experiments_api_plugs_a_backend_in_once(tmp_path, ray_backend):
    """A notebook's way: sim.ursuppe.experiments.arms with an ArmPlayer of the chosen backend."""
    from sim.ursuppe.experiments import arms as experiments

    tables = []
    for name, backend in (("local", None), ("ray", ray_backend)):
        play = experiments.arm_player(threads=1, chunk_size=40, backend=backend)
        result = experiments.ablate(
            ["Division Rate"], False, None, 3, 80, None, "greedy,random", "rotate", 2, tmp_path / name, play
        )
        tables.append(result.table)
    assert tables[0].equals(tables[1])


class AlwaysDies(HashGame):
    """Every process that plays the chunk holding game ``kill_game`` dies: Ray gives up."""

    def play_chunk(self, first: int, count: int, threads: int) -> pa.Table:
        if first <= self.kill_game < first + count:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().play_chunk(first, count, threads)


def test_a_chunk_whose_worker_always_dies_fails_the_run_in_one_line(tmp_path, ray_backend):
    from sim.backends import RAY_MAX_RETRIES
    from sim.errors import BackendError

    out = tmp_path / "run"
    with pytest.raises(BackendError) as failure:
        runner.run(AlwaysDies(kill_game=25), out, 95, 10, 1, backend=ray_backend)
    assert str(failure.value) == (
        f"chunk 2 (games 20-29): its Ray worker died {RAY_MAX_RETRIES + 1} times (WorkerCrashedError)"
    )
    assert sorted(json.loads((out / "manifest.json").read_text())["chunks"], key=int) == ["0", "1"]
    assert chunk_bytes(out) == serial_reference(HashGame(), 95, 10)[:2]


@pytest.mark.slow  # runs soup in a subprocess
def test_an_unreachable_ray_address_is_one_line_not_a_hang(tmp_path):
    import socket

    from tests.test_cli import ROOT, soup_exe

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = ["simulate", "--games", "10", "--out", str(tmp_path / "run"), "-q", "--backend", "ray"]
    address = f"127.0.0.1:{port}"
    r = processes.run([soup_exe(), *args, "--ray-address", address], cwd=ROOT, timeout=120)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"soup: error: cannot reach the Ray cluster at {address} (Connection refused); is `ray start` running"
        " there?"
    ]
    assert not (tmp_path / "run").exists()


# A verdict whose search games are a few Ray tasks: the strong-play cell and option value's units
# (search-2, 12 games an arm, 6 a task) and the cell against a field of search players (6 games).
VERDICT = ["verdict", "--gene", "Tentacle", "--players", "3", "--games", "6", "--decks", "1"]
VERDICT += ["--no-readings", "--fields", "mix", "--holders", "breeder", "--search", "search-2"]
VERDICT += ["--search-games", "12", "--search-field-games", "6", "--threads", "1", "-q"]


def verdict(out: Path, *extra: str) -> None:
    """``soup VERDICT --out OUT EXTRA`` in this process (typer's CliRunner); it must succeed."""
    from typer.testing import CliRunner

    from sim.cli.app import app

    r = CliRunner().invoke(app, [*VERDICT, "--out", str(out), *extra])
    assert r.exit_code == 0, (r.stdout, r.stderr, r.exception)


def verdict_written(out: Path) -> tuple[str, str]:
    return (out / "verdict.csv").read_text(), (out / "verdict.json").read_text()


@pytest.fixture(scope="module")
def local_verdict(tmp_path_factory) -> tuple[str, str]:
    """The verdict.csv and verdict.json of VERDICT played here, its search games on 2 threads: the
    rows a verdict on Ray, or one interrupted and resumed, must write (played once for the module)."""
    out = tmp_path_factory.mktemp("verdict") / "local"
    verdict(out, "--backend", "local", "--threads", "2")
    return verdict_written(out)


def test_a_verdict_on_ray_writes_the_local_rows_and_resumes_on_either(
    tmp_path, ray_backend, local_verdict, monkeypatch
):
    """Issue 34.4: `soup verdict --backend ray` plays its search games (restricted option value,
    the strong-play cell) as Ray tasks on the module's instance and writes the verdict.csv and
    verdict.json of a local run (its search games on 2 threads); units removed from the Ray run
    are played again here on 1 thread, to the same rows (a verdict resumes on either backend)."""
    from sim.backends import RayBackend

    chunks = []
    ray_play = RayBackend.play

    def counted(self, adapter, work, on_game=None, background=None):
        chunks.extend(work)
        return ray_play(self, adapter, work, on_game, background)

    monkeypatch.setattr(RayBackend, "play", counted)
    verdict(tmp_path / "ray", "--backend", "ray")
    # the strong-play cell's 2 arms and option value's 3 units x 2 arms, 12 games each, 6 a task;
    # the cell against a field of search players, 2 arms of 6 games (its search field on Ray too)
    assert len(chunks) == 8 * 2 + 2
    assert verdict_written(tmp_path / "ray") == local_verdict
    strong = "strong-search-2/units"
    units = ["option/units/tentacle.npz", f"{strong}/no-gift.npz", f"{strong}/tentacle.npz"]
    for unit in units:
        (tmp_path / "ray" / unit).unlink()
    chunks.clear()
    verdict(tmp_path / "ray", "--backend", "local")
    assert all((tmp_path / "ray" / unit).exists() for unit in units) and not chunks
    assert verdict_written(tmp_path / "ray") == local_verdict


@pytest.mark.slow  # runs soup in a subprocess
def test_ctrl_c_in_a_verdict_on_ray_keeps_its_units_and_it_finishes_locally(
    tmp_path, ray_address, local_verdict
):
    """Issue 34.4: Ctrl-C while a verdict's search games play on Ray (the strong-play cell, after
    the headline's units; on the module's Ray instance, reached with --ray-address) is one line
    saying what is kept, exit 130, as locally; the same command then finishes it on the local
    backend to the rows of a clean local run."""
    from tests.interrupting import soup_interrupted_at
    from tests.test_cli import ROOT, soup

    out = tmp_path / "run"
    ray = ["--backend", "ray", "--ray-address", ray_address]
    p = soup_interrupted_at([*VERDICT, "--out", str(out), *ray], ROOT, at=40)
    assert p.returncode == 130 and "Traceback" not in p.stderr, p.stderr
    assert f"soup: interrupted: every finished unit is kept in {out}; the same command" in p.stderr
    assert len(list((out / "headline" / "units").glob("*.npz"))) == 5 and not (out / "verdict.csv").exists()
    assert soup(*VERDICT, "--out", str(out)).returncode == 0
    assert verdict_written(out) == local_verdict
