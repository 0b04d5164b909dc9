"""Run a block kernel over all blocks of a batch on a pool of threads (game-agnostic).

Kernels are compiled with ``nogil=True``, so plain Python threads run them in parallel. Each
block is an independent unit of work with its own scratch row; which thread runs which block does
not change any result. Thread t takes blocks t, t + T, t + 2T, ... with its own kernel arguments
from ``make_args(t)``, so that no object the kernels might touch is shared between cores.
"""

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

    def work(t: int) -> None:
        args = make_args(t)
        for b in range(t, n_blocks, threads):
            block_kernel(*args, b, *extra)

    if threads == 1:
        work(0)
        return
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for f in [pool.submit(work, t) for t in range(threads)]:
            f.result()
