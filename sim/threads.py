"""Run a block kernel over all blocks of a batch on a pool of threads (game-agnostic).

Kernels are compiled with ``nogil=True``, so plain Python threads run them in parallel. Each
block is an independent unit of work with its own scratch row; which thread runs which block does
not change any result. One thread runs the blocks in order, in the calling thread (the path the
plain-Python baseline takes too).
"""

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor


def run_blocks(block_kernel: Callable[..., None], n_blocks: int, threads: int, *args) -> None:
    """Call ``block_kernel(*args[:3], b, *args[3:])`` for every block b, on ``threads`` threads."""
    head, tail = args[:3], args[3:]
    if threads <= 1 or n_blocks <= 1:
        for b in range(n_blocks):
            block_kernel(*head, b, *tail)
        return
    with ThreadPoolExecutor(max_workers=threads) as pool:
        futures = [pool.submit(block_kernel, *head, b, *tail) for b in range(n_blocks)]
        for f in futures:
            f.result()
