"""What every fuzz test checks after playing a batch: no game stopped with an error, and an
invariant's failure is named (§11) rather than shown as an error row."""

import pytest

from sim.ursuppe.engine import batch as B
from sim.ursuppe.engine.state import ERR_INVARIANT


def fail_on_error(b: B.Batch) -> None:
    err = B.first_error(b)
    if err is not None and err[1][0] == ERR_INVARIANT:
        code, phase, detail = err[1][1], err[1][2], err[1][3]
        pytest.fail(f"game {err[0]}: invariant I{code} failed after phase {phase} (detail {detail})")
    assert err is None, err
