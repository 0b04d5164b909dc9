"""numba's own linking (``SOUP_JIT_LINK=copy``, and the fallback where the private hooks of
by-reference linking are missing: sim/jit.py) compiles and plays the same games. Pig's kernels and
the kit's random streams are compiled into an empty cache in a subprocess (Ursuppe's whole engine
would take minutes this way on two cores)."""

import json
import os
import sys
from pathlib import Path

import pytest

from sim import jit
from tests import processes

ROOT = Path(__file__).resolve().parent.parent
_PLAY = (
    "import json, numpy as np; from sim import jit; from sim.pig import batch, engine; "
    "from sim.pig.rules import load_rules; "
    "hold = np.tile(np.array([10, 20, 30], dtype=np.int32), (200, 1)); "
    "b = batch.play(batch.new_batch(load_rules(), hold, 7, np.arange(200)), 2, check=True); "
    "print(json.dumps([jit._BY_REFERENCE, b.scores.tolist(), b.games[:, engine.ERROR].tolist()]))"
)


def _play(link: str, cache: Path | None) -> list:
    env = dict(os.environ, SOUP_JIT_LINK=link, PYTHONPATH=str(ROOT))
    if cache is not None:  # an empty cache: everything compiles this way
        env["NUMBA_CACHE_DIR"] = str(cache)
    result = processes.run([sys.executable, "-c", _PLAY], cwd=ROOT, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.skipif(jit.PLAIN_PYTHON, reason="nothing compiles in the plain-Python path")
def test_copy_linking_compiles_and_plays_the_same_games(tmp_path):
    by_copy, scores_copy, errors = _play("copy", tmp_path / "copy")
    by_reference, scores_reference, _ = _play("reference", None)  # the usual cache: loaded
    assert by_copy is False and by_reference is True
    assert not any(errors)
    assert scores_copy == scores_reference
