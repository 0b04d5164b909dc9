"""The plain-Python path (NUMBA_DISABLE_JIT=1, the same kernels uncompiled) gives the same games
as the compiled path. The plain path runs in a subprocess because the switch is read at import."""

import os
import subprocess
import sys

import numpy as np
import pytest

from sim.ursuppe.engine import batch as B
from tests.conftest import outcome_digest

SCRIPT = """
import sys, numpy as np
from sim.ursuppe.rules.book import load_rules
from sim.ursuppe.engine import batch as B
from strategies.ursuppe.params import load_strategy, parameter_table
from tests.conftest import outcome_digest
players, games = int(sys.argv[1]), int(sys.argv[2])
params = parameter_table([load_strategy("random"), load_strategy("greedy")])
b = B.new_batch(load_rules().for_players(players), params, np.array([0, 1, 0, 1, 0, 1][:players]), 99,
                np.arange(games), check_invariants=True)
B.play(b)
assert B.first_error(b) is None
np.save(sys.argv[3], outcome_digest(b.state))
"""


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 6])
def test_plain_python_path_agrees_with_jit(rulebook, params, players, tmp_path):
    games = 150
    out = tmp_path / "plain.npy"
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run(
        [sys.executable, "-c", SCRIPT, str(players), str(games), str(out)],
        check=True,
        env=env,
        cwd=os.path.dirname(os.path.dirname(__file__)),
    )
    b = B.new_batch(
        rulebook.for_players(players),
        params,
        np.array([0, 1, 0, 1, 0, 1][:players]),
        99,
        np.arange(games),
        check_invariants=True,
    )
    B.play(b)
    assert np.array_equal(np.load(out), outcome_digest(b.state))
