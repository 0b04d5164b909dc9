"""The hook through which the command line hears, just before it starts, that this process is
about to compile the engine (a first run on this machine): sim.jit calls :data:`callback` before
its first kernel compiles into a cache that does not hold the whole engine (issue 21.10).

It lives in a module that imports nothing, so that ``soup --help`` can set it without loading
numba (sim.jit does).
"""

from collections.abc import Callable

# Called once, with the seconds the last full compile of what is about to compile took on this
# machine (None: not known) and the name of the game whose engine it is (None: not known).
callback: Callable[[float | None, str | None], None] | None = None
# When the callback was called (time.perf_counter()), or None if it was not.
announced_at: float | None = None
# The game whose engine this command loads (sim.game.GameInfo's name and kernel packages), set by
# the command line as soon as it knows the game: the notice quotes that game's last compile, never
# another game's (issue 31.10: Chromosome's first compile promised Ursuppe's time).
game: str | None = None
kernel_packages: tuple[str, ...] = ()
