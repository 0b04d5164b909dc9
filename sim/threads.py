"""Run a block kernel over all blocks of a batch on a pool of threads (game-agnostic).

Kernels are compiled with ``nogil=True``, so plain Python threads run them in parallel. Each
block is an independent unit of work with its own scratch row; which thread runs which block does
not change any result. Each thread takes the next block nobody has taken yet, with its own kernel
arguments from ``make_args(t)``, so that no object the kernels might touch is shared between cores.

Blocks are handed out as threads come for them, not dealt in advance (thread t: blocks t, t + T,
...): a thread slowed by other work on its core (the runner's writer thread encoding the last
chunk, another process) then takes fewer blocks, instead of leaving the other threads idle at the
end while it plays its share. On 2 cores with the writer beside 2 engine threads, dealt blocks
cost a whole run 0.87x of the engine's speed, blocks taken as they come 0.89x-0.90x (and
the rows built from codes, 0.89x-0.93x between runs; issue 24).
"""

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor


def run_blocks(
    block_kernel: Callable[..., None],
    n_blocks: int,
    threads: int,
    make_args: Callable[[int], tuple],
    extra: tuple = (),
) -> None:
    """Call ``block_kernel(*make_args(t), b, *extra)`` for every block b, on ``threads`` threads."""
    threads = max(1, min(threads, n_blocks))

    blocks = iter(range(n_blocks))
    taking = threading.Lock()

    def work(t: int) -> None:
        args = make_args(t)
        while True:
            with taking:
                b = next(blocks, None)
            if b is None:
                return
            block_kernel(*args, b, *extra)

    if threads == 1:
        work(0)
        return
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for f in [pool.submit(work, t) for t in range(threads)]:
            f.result()
