"""Subprocesses that cannot hang the suite: ``run`` is ``subprocess.run`` with captured text
output, except that the command runs in a session of its own, its output goes to files rather
than pipes, and when it ends (or times out) every process left in its session is killed.

Why: ``subprocess.run(capture_output=True)`` waits for end of file on the pipes, which never
comes while a process the command started still holds them (a Ray instance's daemons, started
by ``soup --backend ray``, outliving an interrupted or crashed run), even after its own timeout
killed the command (the likely way one CI run waited 80 minutes). Files need no end of file, and the
session's leftovers are killed rather than left to hold CPUs for the next test.
"""

import os
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DEFAULT_TIMEOUT = 600  # seconds: far above any test's command (a cold compile on CI is ~60 s)


def _kill_session(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)  # the session's process group has the command's pid
    except (ProcessLookupError, PermissionError):
        pass


def run(args: list[str], *, timeout: float = DEFAULT_TIMEOUT, text: bool = True, **kwargs: Any):
    """Run ``args`` to its end and return a ``CompletedProcess`` with its stdout and stderr (str
    with ``text``, else bytes); ``subprocess.TimeoutExpired`` past ``timeout`` seconds. Other
    keyword arguments go to ``subprocess.Popen`` (cwd, env, input is not supported)."""
    check = kwargs.pop("check", False)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True, **kwargs
        )
        try:
            code = process.wait(timeout=timeout)
        finally:
            _kill_session(process.pid)
            process.wait()
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if text:
        stdout, stderr = stdout.decode(errors="replace"), stderr.decode(errors="replace")
    done = subprocess.CompletedProcess(args, code, stdout, stderr)
    if check:
        done.check_returncode()
    return done


@contextmanager
def tmpfs(mount: Path, options: str) -> Iterator[Path]:
    """A tmpfs mounted at ``mount`` (made here) with the mount ``options`` (``size=1M,ro``) while
    the block runs: a full or read-only disk for a test. Needs root (CI and the development
    machines run as root); the test is skipped elsewhere."""
    import pytest

    mount.mkdir()
    if run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mount)], text=False).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (not root?)")
    try:
        yield mount
    finally:
        run(["umount", str(mount)], text=False)
