"""A deterministic Ctrl-C for the tests: ``soup`` run in a subprocess that interrupts itself (SIGINT,
as a terminal's Ctrl-C) right after its run's manifest first lists ``after`` complete chunks.
Replaces "wait until a chunk file appears, then signal", which skipped the test whenever the run
finished first (issue 22.8). Also: SIGINT, or a pause, once a command's progress bar reaches a
number of games (any command that plays games, issue 31)."""

import subprocess
import sys
import tempfile
from pathlib import Path

from tests import processes

_SCRIPT = """
import os, signal, sys
from sim import runner
write, after, group, where = runner.write_json_atomic, int(sys.argv[1]), sys.argv[2] == "group", sys.argv[3]
def interrupting(path, doc, *frozen):
    write(path, doc, *frozen)
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


_AT_PROGRESS = """
import os, signal, sys, time
from contextlib import contextmanager
from sim.cli import support
at, action, marker = int(sys.argv[1]), sys.argv[2], sys.argv[3]
bar = support.progress_bar
@contextmanager
def stopping_bar(*args, **kwargs):
    with bar(*args, **kwargs) as update:
        def stop(done, total):
            update(done, total)
            if done >= at and not stopping_bar.stopped:
                stopping_bar.stopped = True
                if action == "interrupt":
                    os.kill(os.getpid(), signal.SIGINT)
                open(marker, "w").close()
                while action == "pause":
                    time.sleep(0.05)
        yield stop
stopping_bar.stopped = False
support.progress_bar = stopping_bar  # before the commands import it
from sim.cli.app import main
sys.argv = ["soup", *sys.argv[4:]]
main()
"""


def at_progress_args(args: list[str], at: int, action: str, marker: Path) -> list[str]:
    """The command line of ``soup ARGS`` that, once its progress bar (sim.cli.support.progress_bar:
    every command that plays games) first reaches ``at`` games, touches ``marker`` and then
    either interrupts itself (``action`` "interrupt": SIGINT, as Ctrl-C) or waits there, holding
    whatever it holds, until a signal ends it (``action`` "pause")."""
    return [sys.executable, "-c", _AT_PROGRESS, str(at), action, str(marker), *args]


def soup_interrupted_at(args: list[str], cwd: Path, at: int) -> subprocess.CompletedProcess:
    """``soup ARGS`` run to its end after a real SIGINT once its progress first reaches ``at``
    games (see :func:`at_progress_args`); for commands whose games are not chunks of a run
    (soup combos' arms), where :func:`soup_interrupted` cannot hook."""
    marker = Path(tempfile.mkdtemp()) / "reached"
    return processes.run(at_progress_args(args, at, "interrupt", marker), cwd=cwd, timeout=600)
