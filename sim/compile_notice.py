"""The hook through which the command line hears, just before it starts, that this process is
about to compile the engine (a first run on this machine): sim.jit calls :data:`callback` before
its first kernel compiles into a cache that does not hold the whole engine (issue 21.10).

It lives in a module that imports nothing, so that ``soup --help`` can set it without loading
numba (sim.jit does).
"""

from collections.abc import Callable

# Called once, with the seconds the last full compile took on this machine (None: never seen).
callback: Callable[[float | None], None] | None = None
# When the callback was called (time.perf_counter()), or None if it was not.
announced_at: float | None = None
