"""A first compile shared by several processes: the engine's kernels compile on every core.

A namespace's kernels compile eagerly, one after another, in import order (sim.jit); on a fresh
cache that is the whole first run (~30 s on one core). By-reference linking made each kernel's
machine code depend on its callees' symbols only, which are the same in every process, so a
kernel compiled by one process can be loaded from the cache by another. So when a process starts
a namespace on a cache that does not hold it, it starts helper processes that import the same
kernel modules in other orders; every process takes a kernel's lock (a file beside the cache)
while it compiles or loads it, so each kernel is compiled once, by whichever process reaches it
first, and the others load it. The machine code is the same whoever compiles it (same games).

This module holds the mechanics (locks, helpers, the orders); ``sim.jit`` decides when to share
and runs a helper (:func:`sim.jit.help_compile`).
"""

import contextlib
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # no advisory locks (Windows): every process compiles alone
    fcntl = None

HELPER_ENV = "SOUP_JIT_HELPER"  # set in a helper: its number (1, 2, ...)
HELPERS_ENV = "SOUP_JIT_HELPERS"  # how many helpers a first compile starts (0: none)
# set in a helper of a first compile into an empty cache: when (time.time()) the compile began,
# so that whichever process marks the cache complete records the first run's whole compile time
SINCE_ENV = "SOUP_JIT_SHARED_SINCE"
MAX_HELPERS = 3  # the kernels' dependencies leave little for more to share
LOCKS = "locks"  # the directory of the kernels' lock files, in a namespace's cache directory


def is_helper() -> bool:
    return os.environ.get(HELPER_ENV, "") not in ("", "0")


def available() -> bool:
    return fcntl is not None


def helper_count() -> int:
    """How many helpers a first compile starts: ``SOUP_JIT_HELPERS``, else one per usable core
    but this process's, at most :data:`MAX_HELPERS`."""
    value = os.environ.get(HELPERS_ENV, "")
    if value.strip():
        try:
            return max(0, int(value))
        except ValueError:
            return 0
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(0, min(cores - 1, MAX_HELPERS))


@contextlib.contextmanager
def kernel_lock(directory: Path, kernel: str) -> Iterator[None]:
    """Hold the lock of ``kernel`` (``module.qualname``) in a cache directory: while one process
    compiles it, another that needs it waits, then loads it from the cache."""
    path = directory / LOCKS / kernel
    try:
        path.parent.mkdir(exist_ok=True)
        handle = open(path, "a")  # noqa: SIM115 (closed below, which releases the lock)
    except OSError:
        yield  # no lock to be had (a read-only cache): compile as if alone
        return
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        handle.close()


def start_helpers(namespace: str, count: int, since: float | None) -> list[subprocess.Popen]:
    """Start ``count`` helpers compiling ``namespace`` in the background (their output discarded;
    each ends when its work is done, when the namespace's cache is complete, or soon after this
    process ends); ``since``: when a first compile into an empty cache began (time.time())."""
    helpers = []
    for index in range(1, count + 1):
        env = {**os.environ, HELPER_ENV: str(index)}
        env.pop(SINCE_ENV, None)
        if since is not None:
            env[SINCE_ENV] = repr(since)
        code = f"from sim import jit; jit.help_compile({namespace!r}, {index}, {os.getpid()})"
        try:
            helpers.append(
                subprocess.Popen(
                    [sys.executable, "-c", code],
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    cwd=str(Path(__file__).resolve().parent.parent),
                )
            )
        except OSError:
            break
    return helpers


def helper_order(modules: list[str], depends: dict[str, set[str]], index: int) -> list[str]:
    """The order in which helper ``index`` imports the kernel modules ``modules`` (given in the
    order a plain import would compile them): always a module after those it depends on, and
    otherwise as far from the other processes as it can be; helper 1 takes the latest ready
    module, the others a random one (seeded by ``index``). A dependency cycle (imports inside
    functions) is broken in the plain order."""
    position = {m: i for i, m in enumerate(modules)}
    pending = {m: {d for d in depends.get(m, ()) if d in position and d != m} for m in modules}
    chooser = random.Random(index)
    order: list[str] = []
    while pending:
        ready = sorted((m for m, deps in pending.items() if not deps), key=position.__getitem__)
        if not ready:
            ready = [min(pending, key=position.__getitem__)]
        pick = ready[-1] if index == 1 else chooser.choice(ready)
        order.append(pick)
        del pending[pick]
        for deps in pending.values():
            deps.discard(pick)
    return order


def shared_since() -> float | None:
    """In a helper of a first compile into an empty cache: when that compile began."""
    try:
        return float(os.environ[SINCE_ENV])
    except (KeyError, ValueError):
        return None


def parent_gone(parent: int) -> bool:
    return os.getppid() != parent
