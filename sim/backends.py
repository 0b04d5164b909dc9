"""Where a run's chunks are played (game-agnostic): on this machine, or as tasks on a Ray cluster.

A backend plays the chunks the runner asks for and hands them back **in the order asked**, each
as a :class:`PlayedChunk`; the runner writes them (one Parquet file per chunk, then the manifest)
while the backend plays the next ones (issue 12). Since a game depends only on (rules,
strategies, seating, seed, game index), which backend, machine or thread played a chunk never
changes its rows: the backend is not part of a run's spec, so a run started on one backend can be
resumed on the other.

- :class:`LocalBackend`: plays the chunks on ``threads`` threads of this process, one pool of them
  for a whole run, chunk k + 1's blocks taken as soon as chunk k has none left (the game's
  kernels release the GIL, so the runner's writer thread builds the rows of chunk k and encodes
  them while the engine plays chunk k + 1).
- :class:`RayBackend`: each chunk is a Ray task (one CPU, one thread) that plays its games and
  encodes them to Parquet bytes in the worker; the driver only hashes and writes those bytes, so
  its share of the work stays a few milliseconds per chunk however many workers play, and no
  shared file system is needed (the tasks write nothing). A worker that dies mid-task (killed,
  out of memory, a lost node) is retried by Ray (``max_retries``): the same chunk gives the same
  rows. A game that cannot be played (:class:`sim.errors.GameError`) is not retried: it fails the
  run at once, naming the chunk.

Ray is imported only when a :class:`RayBackend` is made, never by ``soup --help`` or a local run.
"""

import logging
import os
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from sim.chunk_encoding import encode_chunk
from sim.errors import BackendError, GameError, UserError

BACKENDS = ("local", "ray")
RAY_MAX_RETRIES = 3  # a task whose worker died is played again this many times (system failures only)
RAY_CONNECT_SECONDS = 5  # an address that does not answer by then is an error, not a hang
RAY_TASKS_PER_CPU = 2  # tasks in flight per cluster CPU: a finished task's CPU never waits for the driver


__all__ = ["BackendError", "LocalBackend", "RayBackend", "make_backend"]


@dataclass
class ChunkWork:
    """Chunk ``index`` of a run: games ``first .. first + count - 1``."""

    index: int
    first: int
    count: int


@dataclass
class PlayedChunk:
    """A played chunk: its outcome rows as a pyarrow Table, or a callable building that Table
    (run by the runner's writer thread), or already encoded as Parquet bytes (``data``, by a
    worker elsewhere; ``rows`` counts them)."""

    work: ChunkWork
    table: Any | None
    data: bytes | None
    seconds: float  # time spent playing it (on the machine that played it)
    threads: int  # threads that played it
    rows: int | None = None

    def encoded(self) -> tuple[bytes, int]:
        """The chunk's Parquet bytes and row count (building and encoding the table if needed)."""
        if self.data is not None:
            return self.data, int(self.rows or 0)
        table = self.table() if callable(self.table) else self.table
        return encode_chunk(table), table.num_rows

    def decoded(self) -> Any:
        """The chunk's rows as a pyarrow Table (decoding the Parquet bytes of a chunk played
        elsewhere): for a caller that reads the rows rather than writing them."""
        if self.data is not None:
            import pyarrow as pa
            import pyarrow.parquet as pq

            return pq.read_table(pa.BufferReader(self.data))
        return self.table() if callable(self.table) else self.table


class Backend(Protocol):
    """Plays the chunks of a run (see the module docstring)."""

    name: str

    def play(
        self,
        adapter: Any,
        work: list[ChunkWork],
        on_game: Callable[[], None] | None = None,
        background: Executor | None = None,
    ) -> Iterator[PlayedChunk]:
        """Play ``work`` and yield each chunk in the order given, as soon as it and every chunk
        before it are played. A GameError of a chunk is raised when that chunk's turn comes.
        ``on_game()``: once per game finished within a chunk, where the adapter reports games
        (sim.runner.GameAdapter) and the backend can say (the local one; Ray counts chunks).
        ``background``: the caller's writer (one thread, its tasks in the order given), where a
        backend may queue work of its own behind the chunk handed over last (the local one sets
        up the chunk after next there)."""

    def close(self) -> None:
        """Release what the backend started (a local Ray instance)."""


class LocalBackend:
    """Chunks played one after another in this process on ``threads`` threads."""

    name = "local"

    def __init__(self, threads: int) -> None:
        self.threads = threads

    def play(
        self,
        adapter: Any,
        work: list[ChunkWork],
        on_game: Callable[[], None] | None = None,
        background: Executor | None = None,
    ) -> Iterator[PlayedChunk]:
        # A run that splits its rows from its games (sim.runner.RunAdapter.splits_rows) has them
        # built by the runner's writer thread, off the engine's path.
        split = adapter.splits_rows
        counted = {"on_game": on_game} if on_game is not None and adapter.reports_games else {}
        if not split:
            for w in work:
                t = time.perf_counter()
                table = adapter.play_chunk(w.first, w.count, self.threads, **counted)
                yield PlayedChunk(w, table, None, time.perf_counter() - t, self.threads)
            return
        if background is not None and not adapter.reports_games:
            yield from self._play_chained(adapter, work, background)
            return
        # Without a writer (the restricted experiment's search games), or with games reported one
        # by one (a search seat's: seconds a game, the progress counts them chunk by chunk), chunk
        # k + 1 is set up after chunk k is played and before chunk k goes on.
        set_up: Any = self._set_up(adapter, work[0]) if work else None
        for i, w in enumerate(work):
            following = work[i + 1] if i + 1 < len(work) else None
            batch, setting_up = set_up
            set_up = None
            t = time.perf_counter()
            played = adapter.play_games(w.first, w.count, self.threads, set_up=batch, **counted)
            seconds = setting_up + time.perf_counter() - t
            chunk = PlayedChunk(w, partial(adapter.chunk_rows, played), None, seconds, self.threads)
            batch = played = None  # the writer's from now on
            if following is not None:
                try:
                    set_up = self._set_up(adapter, following)
                except BaseException:  # Ctrl-C: the chunk played completely is still written
                    yield chunk
                    raise
            yield chunk
            chunk = None

    def _play_chained(
        self, adapter: Any, work: list[ChunkWork], background: Executor
    ) -> Iterator[PlayedChunk]:
        """The chunks played one after another with no gap between them (docs/profiling.md,
        "Issue 36.3, session 10"), each set up on the writer's thread (``background``) beforehand.

        Chunk k + 1's games are handed to the engine's threads (sim.threads.BlockPool) while chunk
        k plays, from a second thread: a thread that finds no block of chunk k left plays chunk k +
        1's at once, where it used to wait for chunk k's last block. Chunk k + 2 is set up on the
        writer's thread when chunk k is handed over, behind chunk k's rows (which let chunk k's
        batch go): when a batch is made, one other is alive at most, as before. The first chunk is
        set up in the calling thread (nothing to overlap yet). A chunk's error, or an interrupt
        while it is awaited, is raised when its turn comes, after the chunks before are handed
        over; a run that stops drops the blocks not begun and sets up nothing more.
        """
        from concurrent.futures import Future, ThreadPoolExecutor

        from sim.threads import BlockPool

        if not work:
            return
        # Chunk i's blocks go to the pool after chunk i - 1's (its turn, ``handed[i - 1]``: set once
        # chunk i - 1 has handed its blocks over, or its play ended without any).
        handed = [threading.Event() for _ in work]
        ended = [0.0] * len(work)  # when each chunk's play ended (perf_counter)

        def play(i: int, set_up: Any) -> tuple[Any, float]:
            try:
                batch, setting_up = set_up.result() if isinstance(set_up, Future) else set_up
                if i:
                    handed[i - 1].wait()
                begun = time.perf_counter()
                with pool.used_here(queued=handed[i].set):
                    w = work[i]
                    played = adapter.play_games(w.first, w.count, self.threads, set_up=batch)
            finally:
                handed[i].set()
            ended[i] = time.perf_counter()
            # The chunk's own time: the part played beside the chunk before is that chunk's.
            return played, setting_up + ended[i] - max(begun, ended[i - 1] if i else begun)

        set_ups: dict[int, Future] = {}  # the set-ups of the chunks not yet played (each holds its batch)

        def start(i: int) -> Future:
            # set up beside the chunk before: not this chunk's time (0 seconds)
            set_ups[i] = background.submit(lambda: (adapter.set_up_games(work[i].first, work[i].count), 0.0))
            return starters.submit(play, i, set_ups[i])

        pool = starters = None
        try:
            pool = BlockPool(self.threads)
            starters = ThreadPoolExecutor(max_workers=2, thread_name_prefix="soup-chunk")
            playing = deque([starters.submit(play, 0, self._set_up(adapter, work[0]))])
            if len(work) > 1:
                playing.append(start(1))
            for i, w in enumerate(work):
                played, seconds = playing.popleft().result()
                set_ups.pop(i, None)
                chunk = PlayedChunk(w, partial(adapter.chunk_rows, played), None, seconds, self.threads)
                played = None  # the writer's from now on
                yield chunk
                chunk = None
                failed = playing and playing[0].done() and playing[0].exception() is not None
                if i + 2 < len(work) and not failed:
                    playing.append(start(i + 2))
        finally:
            try:
                for set_up in set_ups.values():
                    set_up.cancel()  # a run that stops sets up nothing more (if it has not begun)
                if pool is not None:
                    pool.close()  # the blocks not begun are dropped: a starter waiting on them ends
            finally:
                if starters is not None:
                    starters.shutdown(wait=True, cancel_futures=True)

    @staticmethod
    def _set_up(adapter: Any, w: ChunkWork) -> tuple[Any, float]:
        """The adapter's set-up of chunk ``w`` and the seconds it took."""
        t = time.perf_counter()
        return adapter.set_up_games(w.first, w.count), time.perf_counter() - t

    def close(self) -> None:
        pass


def _play_encoded(adapter: Any, first: int, count: int) -> tuple[str, Any, int, float]:
    """A Ray task's body: play a chunk on one thread and encode it. A GameError is returned, not
    raised, so that Ray neither retries it nor wraps its one-line message in a traceback."""
    t = time.perf_counter()
    try:
        table = adapter.play_chunk(first, count, 1)
    except GameError as e:
        return "game_error", str(e), 0, time.perf_counter() - t
    return "ok", encode_chunk(table), table.num_rows, time.perf_counter() - t


class RayBackend:
    """Chunks as Ray tasks on the cluster at ``address``, or on a local Ray instance of
    ``cpus`` CPUs started here (and stopped by :meth:`close`) when ``address`` is None. A Ray
    instance already started in this process (``ray.init`` by a notebook or a test) is used as
    it is."""

    name = "ray"

    def __init__(self, address: str | None = None, cpus: int | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise UserError(
                "--backend ray: Ray is not installed; install it with: pip install 'soup[ray]'"
            ) from None
        self.ray = ray
        self.started = False
        if not ray.is_initialized():
            if address is not None:
                check_reachable(address)
            try:
                if address is None:
                    # Ray's notice that a new local instance has token authentication on (its
                    # default) is about an instance soup starts and stops itself: not printed on
                    # every run (issue 21). A cluster's notices are Ray's to give (RAY_AUTH_MODE).
                    logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(
                        logging.ERROR
                    )
                    ray.init(
                        # "local": a new instance even where `ray start` runs a cluster on this
                        # machine (ray.init() would connect to that one and refuse num_cpus).
                        address="local",
                        num_cpus=cpus or os.cpu_count() or 1,
                        include_dashboard=False,
                        log_to_driver=False,
                        configure_logging=False,
                    )
                else:
                    ray.init(address=address, log_to_driver=False, configure_logging=False)
            except (ConnectionError, RuntimeError, ValueError) as e:
                where = f"the Ray cluster at {address}" if address else "a local Ray instance"
                raise BackendError(f"cannot start or reach {where}: {' '.join(str(e).split())}") from None
            self.started = True
        self.task = ray.remote(num_cpus=1, max_retries=RAY_MAX_RETRIES, retry_exceptions=False)(_play_encoded)

    def play(
        self,
        adapter: Any,
        work: list[ChunkWork],
        on_game: Callable[[], None] | None = None,
        background: Executor | None = None,
    ) -> Iterator[PlayedChunk]:
        # on_game: a chunk is one task here, counted when it comes back; background: unused (a
        # task sets its chunk up itself)
        ray = self.ray
        shared = ray.put(adapter)  # sent to the object store once, not once per task
        window = max(1, int(ray.cluster_resources().get("CPU", 1)) * RAY_TASKS_PER_CPU)
        pending: deque[tuple[ChunkWork, Any]] = deque()
        todo = iter(work)
        # A run that stops (an error, Ctrl-C) submits nothing more and drops the results of the
        # tasks in flight (at most `window`), which are left to finish rather than cancelled:
        # cancelling a task whose reply is on its way aborts Ray's driver (Ray 2.60,
        # task_manager.cc "Tried to complete task that was not pending"; it killed a CI worker).
        # A local instance's tasks end with it (close); a cluster's end with the driver.
        while True:
            while len(pending) < window:
                w = next(todo, None)
                if w is None:
                    break
                pending.append((w, self.task.remote(shared, w.first, w.count)))
            if not pending:
                return
            w, ref = pending.popleft()
            try:
                status, payload, rows, seconds = ray.get(ref)
            except ray.exceptions.RayError as e:
                raise BackendError(f"{chunk_label(w)}: {ray_failure(ray, e)}") from None
            if status == "game_error":
                raise GameError(payload)
            yield PlayedChunk(w, None, payload, seconds, 1, rows)

    def close(self) -> None:
        if self.started:
            self.ray.shutdown()
            self.started = False


def check_reachable(address: str) -> None:
    """A BackendError unless ``host:port`` (or ``ray://host:port``) accepts a connection within
    RAY_CONNECT_SECONDS: ray.init keeps retrying an address nobody answers for minutes. Other
    forms (``auto``, ``local``) are left to Ray."""
    import socket

    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=RAY_CONNECT_SECONDS).close()
    except OSError as e:
        reason = e.strerror or e.__class__.__name__
        raise BackendError(
            f"cannot reach the Ray cluster at {address} ({reason}); is `ray start` running there?"
        ) from None


def chunk_label(w: ChunkWork) -> str:
    return f"chunk {w.index} (games {w.first}-{w.first + w.count - 1})"


def ray_failure(ray: Any, e: Exception) -> str:
    """One line for a Ray task that failed other than by a GameError: its worker died more often
    than it is retried, or Ray could not run it (an argument it could not unpickle, a lost node)."""
    if isinstance(e, ray.exceptions.WorkerCrashedError | ray.exceptions.NodeDiedError):
        return f"its Ray worker died {RAY_MAX_RETRIES + 1} times ({e.__class__.__name__})"
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line).strip() for line in str(e).splitlines()]
    lines = [line for line in lines if line]
    return f"the Ray task failed ({e.__class__.__name__}: {lines[-1][:300] if lines else '?'})"


def make_backend(name: str, threads: int, address: str | None = None) -> Backend:
    """The backend called ``name`` (``local`` or ``ray``; a user error otherwise)."""
    if name == "local":
        if address is not None:
            raise UserError("--ray-address: only with --backend ray")
        return LocalBackend(threads)
    if name == "ray":
        if address is not None and not address.strip():  # "" would silently mean "start a local Ray"
            raise UserError("--ray-address: expected HOST:PORT or auto, got ''")
        return RayBackend(address, threads)
    raise UserError(f"--backend: expected one of {', '.join(BACKENDS)}, got {name!r}")
