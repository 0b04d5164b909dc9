"""A warm process compiles nothing (issue 31): every kernel, and the constructor of every
by-reference tuple (sim/jit.py, "cached constructors"), comes from the on-disk cache. numba's own
StructRef constructor compiled in every process, half of a warm `soup play`'s CPU time."""

import json
import sys
from pathlib import Path

import pytest

from sim import jit
from tests import processes

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(jit.PLAIN_PYTHON, reason="nothing compiles in the plain-Python path"),
]

ROOT = Path(__file__).resolve().parent.parent
# `soup ARGS` as the command line runs it, with a listener on numba's compile events (fired when a
# function is compiled, not when it is loaded from the cache): the names compiled go to stderr.
_COUNTED = """
import atexit, json, sys
from numba.core import event

compiled = []


class Counter(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    def on_end(self, ev):
        pass


event.register("numba:compile", Counter())
atexit.register(lambda: print("compiled:", json.dumps(compiled), file=sys.stderr))
sys.argv = ["soup", *sys.argv[1:]]
from sim.cli.app import main

main()
"""


def _soup_counting_compiles(*args: str) -> tuple[str, list[str]]:
    result = processes.run([sys.executable, "-c", _COUNTED, *args], cwd=ROOT)
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stderr.splitlines() if line.startswith("compiled: "))
    return result.stdout, json.loads(line.removeprefix("compiled: "))


@pytest.mark.parametrize(("game", "players"), [("ursuppe", 4), ("chromosome", 3)])
def test_a_warm_soup_play_compiles_nothing(game, players):
    args = ("play", "--game", game, "--players", str(players), "--seed", "1", "--json")
    first, _ = _soup_counting_compiles(*args)  # compiles whatever the cache lacks
    second, compiled = _soup_counting_compiles(*args)
    assert compiled == []  # numba's own constructors: ['ctor', 'ctor.<locals>.impl', ...]
    assert second == first  # the same game, constructors compiled or loaded
