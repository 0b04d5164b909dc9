"""Run a block kernel over all blocks of a batch on a pool of threads (game-agnostic).

Kernels are compiled with ``nogil=True``, so plain Python threads run them in parallel. Each
block is an independent unit of work with its own scratch row; which thread runs which block does
not change any result. Each thread takes the next block nobody has taken yet, with its own kernel
arguments from ``make_args(t)``, so that no object the kernels might touch is shared between cores.

Blocks are handed out by a :class:`BlockPool`: the run's, where the caller plays a run's batches on
one (sim.backends.LocalBackend), or one of the batch's own. They are handed out as threads come
for them, not dealt in advance (thread t: blocks t, t + T,
...): a thread slowed by other work on its core (the runner's writer thread encoding the last
chunk, another process) then takes fewer blocks, instead of leaving the other threads idle at the
end while it plays its share. On 2 cores with the writer beside 2 engine threads, dealt blocks
cost a whole run 0.87x of the engine's speed, blocks taken as they come 0.89x-0.90x (and
the rows built from codes, 0.89x-0.93x between runs; issue 24).
"""

import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


def run_blocks(
    block_kernel: Callable[..., None],
    n_blocks: int,
    threads: int,
    make_args: Callable[[int], tuple],
    extra: tuple = (),
) -> None:
    """Call ``block_kernel(*make_args(t), b, *extra)`` for every block b, on ``threads`` threads (on
    the :class:`BlockPool` of the calling thread, where it has one of ``threads`` threads)."""
    pool = getattr(_calling, "pool", None)
    if pool is not None and pool.threads == threads:
        pool.run(block_kernel, n_blocks, make_args, extra)
        return
    threads = max(1, min(threads, n_blocks))
    if threads == 1:  # in the calling thread (the plain-Python path, a one-thread run)
        args = make_args(0)
        for b in range(n_blocks):
            block_kernel(*args, b, *extra)
        return
    own = BlockPool(threads, name="soup-batch")  # this batch's alone
    try:
        own.run(block_kernel, n_blocks, make_args, extra)
    finally:
        own.close()


_calling = threading.local()  # .pool, .queued: the calling thread's BlockPool and hook (BlockPool.used_here)


@dataclass(eq=False)
class _Job:
    """One :func:`run_blocks` call on a pool: its blocks, the next to hand out, those finished."""

    kernel: Callable[..., None]
    n_blocks: int
    make_args: Callable[[int], tuple]
    extra: tuple
    taken: int = 0
    finished: int = 0
    error: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)


class BlockPool:
    """``threads`` threads that play the blocks of every batch handed to them, batch after batch:
    a thread that finds no block left in a batch takes the next batch's at once (issue 36.3).

    One batch's blocks run on a fresh pool of threads each (:func:`run_blocks`), and its last
    blocks leave threads idle while the slowest finishes: 0.5-1% of a 2-thread run's engine time,
    more with more threads. A run's chunks played through one pool (sim.backends.LocalBackend, the
    next chunk's :func:`run_blocks` called from a second thread while a chunk plays) have no such
    gap but the run's last. Blocks are handed out in the order the batches came, so a chunk is done
    as soon as it would have been. Games do not depend on which thread plays them.
    """

    def __init__(self, threads: int, name: str = "soup-blocks") -> None:
        self.threads = threads
        self._jobs: deque[_Job] = deque()  # the jobs with blocks not handed out yet, in order
        self._changed = threading.Condition()
        self._closed = False
        self._workers = [
            threading.Thread(target=self._work, args=(t,), name=f"{name}-{t}", daemon=True)
            for t in range(threads)
        ]
        for worker in self._workers:
            worker.start()

    def run(
        self, kernel: Callable[..., None], n_blocks: int, make_args: Callable[[int], tuple], extra: tuple
    ) -> None:
        """Play every block of one batch (behind the batches given before) and return when all are
        played; a kernel's exception is raised here. Interrupted (Ctrl-C), the batch's blocks not
        begun are dropped."""
        if n_blocks <= 0:
            return
        job = _Job(kernel, n_blocks, make_args, extra)
        with self._changed:
            if self._closed:
                raise RuntimeError("BlockPool: closed")
            self._jobs.append(job)
            self._changed.notify_all()
        queued = getattr(_calling, "queued", None)
        if queued is not None:
            queued()
        try:
            job.done.wait()
        except BaseException:
            self._drop(job)
            raise
        if job.error is not None:
            raise job.error

    @contextmanager
    def used_here(self, queued: Callable[[], None] | None = None) -> Iterator["BlockPool"]:
        """Within it, :func:`run_blocks` in the calling thread plays on this pool, and ``queued()``
        is called each time it has handed the pool a batch's blocks (a caller that gives the pool
        batches from several threads orders them with it)."""
        before = getattr(_calling, "pool", None), getattr(_calling, "queued", None)
        _calling.pool, _calling.queued = self, queued
        try:
            yield self
        finally:
            _calling.pool, _calling.queued = before

    def close(self) -> None:
        """Drop the blocks not begun (their batches' ``run`` raises) and end the threads once the
        blocks being played are done."""
        with self._changed:
            self._closed = True
            jobs, self._jobs = list(self._jobs), deque()
            self._changed.notify_all()
        for job in jobs:
            self._drop(job)
        for worker in self._workers:
            worker.join()

    def _drop(self, job: _Job) -> None:
        with self._changed:
            if job in self._jobs:
                self._jobs.remove(job)
            if job.error is None:
                job.error = RuntimeError("BlockPool: the batch's blocks were dropped")
            job.finished += job.n_blocks - job.taken  # the blocks never to be taken
            job.taken = job.n_blocks
            if job.finished == job.n_blocks:
                job.done.set()

    def _work(self, t: int) -> None:
        mine: _Job | None = None  # the job whose kernel arguments this thread holds (``args``)
        args: tuple = ()
        while True:
            with self._changed:
                while not self._jobs and not self._closed:
                    mine, args = None, ()  # a thread waiting holds no batch
                    self._changed.wait()
                if not self._jobs:
                    return
                job = self._jobs[0]
                if job is not mine:
                    mine, args = None, ()
                b = job.taken
                job.taken += 1
                if job.taken == job.n_blocks:
                    self._jobs.popleft()
            try:
                if job.error is None:
                    if mine is not job:
                        mine, args = job, job.make_args(t)
                    job.kernel(*args, b, *job.extra)
            except BaseException as e:  # the batch's error, raised by its run()
                job.error = job.error or e
            finally:
                with self._changed:
                    job.finished += 1
                    if job.finished == job.n_blocks:
                        job.done.set()
                    if job.taken == job.n_blocks:  # none of its blocks left: let its batch go
                        mine, args = None, ()
                job = None
