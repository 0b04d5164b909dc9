"""A deterministic Ctrl-C for the tests: ``soup`` run in a subprocess that interrupts itself (SIGINT,
as a terminal's Ctrl-C) right after its run's manifest first lists ``after`` complete chunks.
Replaces "wait until a chunk file appears, then signal", which skipped the test whenever the run
finished first (issue 22.8)."""

import subprocess
import sys
from pathlib import Path

from tests import processes

_SCRIPT = """
import os, signal, sys
from sim import runner
write, after, group, where = runner.write_json_atomic, int(sys.argv[1]), sys.argv[2] == "group", sys.argv[3]
def interrupting(path, doc):
    write(path, doc)
    done = len(doc.get("chunks", {})) >= after and where in str(path)
    if done and not getattr(interrupting, "sent", False):
        interrupting.sent = True
        os.killpg(os.getpgid(0), signal.SIGINT) if group else os.kill(os.getpid(), signal.SIGINT)
runner.write_json_atomic = interrupting
from sim.cli.app import main
sys.argv = ["soup", *sys.argv[4:]]
main()
"""


def soup_interrupted(
    args: list[str], cwd: Path, after: int = 2, group: bool = False, where: str = ""
) -> subprocess.CompletedProcess:
    """``soup ARGS`` interrupted once ``after`` chunks are complete in a run whose manifest path
    contains ``where``; ``group``: the whole process group is signalled (soup and, e.g., the Ray
    instance it started); every command runs in a session of its own (tests/processes.py)."""
    return processes.run(
        [sys.executable, "-c", _SCRIPT, str(after), "group" if group else "self", where, *args],
        cwd=cwd,
        timeout=600,
    )
