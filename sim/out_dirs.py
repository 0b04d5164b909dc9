"""Whose directory is ``--out``? Every command that writes a directory of its own (compare,
ablate, tournament, tune, verdict, calibrate) marks it as its own, and refuses one that is not
(issue 21.7): a ``soup simulate`` run, another command's output, or a directory of other files.

Without this, ``soup tune --out results/ursuppe-4p-seed1-100000`` wrote its checkpoint and report
among the run's chunks and exited 0. ``soup simulate`` has its own check (sim.runner.open_run: a
run directory holds one run and nothing else) and ``soup report`` its own (analysis.ursuppe.report).

The mark is a small file, :data:`MARK`, written when the command starts writing (:func:`claim`),
not when it checks (:func:`check`): bad input must leave nothing behind.

Before any work (issue 31.7): :func:`check_writable` tries to create a file where ``--out`` would
be written (``os.access`` says yes to root on /proc, and a whole scan was played before its
files could not be written), and :func:`check_room` compares a run's size with the free space.

Who is writing ``--out`` now (issue 31.8: two identical runs on one directory both played every
game)? A command holds the directory's :data:`LOCK` while it writes there (:class:`DirLock`,
:func:`hold`): an exclusive ``flock`` on a file naming the process (pid, host, start, command).
The OS releases it when the process ends, however it ends, so a crash leaves no lock behind (at
most the file, which the next run takes over). A second command on the same directory ends at
once in one line naming the holder.
"""

import atexit
import fcntl
import json
import os
import re
import shlex
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path

from sim.errors import UserError

MARK = ".soup-output"
LOCK = ".soup-lock"
RUN_MANIFEST = "manifest.json"  # sim.runner.MANIFEST (not imported: this module stays tiny)
_PROBE = ".soup-probe.tmp-"  # a temporary name (sim.runner skips and removes such files)


def _nearest_existing(out: Path) -> Path:
    return next(p for p in (out, *out.parents) if p.exists())


def check_writable(out: Path) -> None:
    """A user error unless ``out`` is a directory this process can write into, or can be
    created: checked by creating (and removing) a file in ``out`` or, for a new ``out``, in its
    nearest existing directory. Refused: a file on the way, a read-only disk, a directory of
    someone else's, /proc. Leaves nothing behind."""
    out = Path(out)
    for path in (out, *out.parents):
        if path.exists() and not path.is_dir():
            raise UserError(f"--out: {path} is a file, not a directory; choose another --out")
    nearest = _nearest_existing(out)
    try:
        handle, probe = tempfile.mkstemp(prefix=_PROBE, dir=nearest)
    except OSError as e:
        where = "it" if nearest == out else str(nearest)
        raise UserError(
            f"--out: {out} is not writable (no file can be created in {where}: "
            f"{e.strerror or e.__class__.__name__}); choose another --out"
        ) from None
    os.close(handle)
    Path(probe).unlink(missing_ok=True)


def size_text(n_bytes: float) -> str:
    """``n_bytes`` in the unit that reads best: 350 MB, 8.0 GB, 80 TB (powers of 1000, as disks)."""
    for unit, scale in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n_bytes >= scale:
            value = n_bytes / scale
            return f"{value:,.1f} {unit}" if value < 10 else f"{value:,.0f} {unit}"
    return f"{n_bytes:,.0f} bytes"


def check_room(out: Path, needed: int, what: str) -> None:
    """A user error unless the disk of ``out`` (or of its nearest existing directory) has
    ``needed`` bytes free; ``what`` names the option and the work, e.g. "--games 1,000,000"."""
    free = shutil.disk_usage(_nearest_existing(Path(out))).free
    if needed > free:
        raise UserError(
            f"{what}: needs about {size_text(needed)} of disk in {out}, and its disk has "
            f"{size_text(free)} free; play fewer games or choose another --out"
        )


class DirLock:
    """The exclusive lock of a directory a command writes (:data:`LOCK` in it), for one holder in
    this process. :meth:`acquire` creates the directory if needed; :meth:`release` removes the
    lock file, and the directory again if this lock created it and it is empty."""

    def __init__(self, out: Path) -> None:
        self.out = Path(out)
        self.fd: int | None = None
        self.made: list[Path] = []  # the directories acquire created, the deepest first

    @property
    def created(self) -> bool:
        """``out`` did not exist before :meth:`acquire`."""
        return bool(self.made)

    def acquire(self) -> None:
        """Take the lock, or a user error naming the process that holds it."""
        if self.fd is not None:
            return
        self.made = [p for p in (self.out, *self.out.parents) if not p.exists()]
        self.out.mkdir(parents=True, exist_ok=True)
        path = self.out / LOCK
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = _holder(fd)
                os.close(fd)
                self._undo_created()
                raise UserError(busy_line(self.out, holder)) from None
            try:  # the file may have been removed by its holder between open and flock
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        doc = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "command": _command(),
        }
        os.ftruncate(fd, 0)
        os.write(fd, (json.dumps(doc) + "\n").encode())
        self.fd = fd

    def release(self) -> None:
        """Give the lock up (at the latest the OS does, when the process ends)."""
        if self.fd is None:
            return
        fd, self.fd = self.fd, None
        try:
            (self.out / LOCK).unlink(missing_ok=True)  # before unlocking: a waiter re-checks the inode
        except OSError:
            pass
        os.close(fd)
        self._undo_created()

    def __del__(self) -> None:
        # A lock nobody holds any more is given up: an OpenedRun dropped without play or release
        # (a notebook that only asked what is left to play) must not block its directory for the
        # rest of the process, which a second open in the same process would take for another.
        try:
            self.release()
        except Exception:  # noqa: BLE001 (at interpreter exit the modules may be gone)
            pass

    def _undo_created(self) -> None:
        for path in self.made:
            try:
                path.rmdir()  # only if empty: a run that kept something keeps its directory
            except FileNotFoundError:
                continue  # removed already (sim.runner removes a run that kept nothing)
            except OSError:
                break
        self.made = []


def _command() -> str:
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] not in ("", "-c") else "python"
    return shlex.join([name, *sys.argv[1:]])


def _holder(fd: int) -> dict:
    try:
        doc = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def busy_line(out: Path, holder: dict) -> str:
    """The one line for a directory another process holds."""
    who = (
        f"pid {holder.get('pid', '?')} on {holder.get('host', '?')}, since {holder.get('started', '?')}: "
        f"{holder.get('command', '?')}"
        if holder
        else "it is starting"
    )
    return (
        f"--out: {out} is in use by another soup process ({who}); wait until it ends, or choose another --out"
    )


_HELD: dict[Path, DirLock] = {}


def check_not_held(out: Path) -> None:
    """A user error if another process holds ``out``'s lock; writes nothing (a check)."""
    out = Path(out)
    if out.resolve() in _HELD:
        return
    try:
        fd = os.open(out / LOCK, os.O_RDONLY)
    except OSError:
        return  # no lock file: nobody holds it
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        raise UserError(busy_line(out, _holder(fd))) from None
    finally:
        os.close(fd)


def hold(out: Path) -> None:
    """Hold ``out``'s lock until :func:`release_held` or the end of the process (a user error if
    another process holds it); again for the same directory, nothing. The OS releases it on a
    crash."""
    key = Path(out).resolve()
    if key in _HELD:
        return
    lock = DirLock(out)
    lock.acquire()
    _HELD[key] = lock


def release_held() -> None:
    """Give up every directory :func:`hold` holds (the command holding them has ended)."""
    while _HELD:
        _HELD.popitem()[1].release()


atexit.register(release_held)


def owner(out: Path) -> str | None:
    """The command whose output ``out`` is (its mark), or None if it has no mark."""
    try:
        text = (Path(out) / MARK).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text.removeprefix("soup ").strip() or None


def check(out: Path, command: str, legacy: tuple[str, ...] = ()) -> None:
    """A user error unless ``out`` can hold ``soup command``'s output: new, empty, or marked as
    this command's own (to resume or re-run it), or unmarked but holding one of the ``legacy``
    files (the command's output from before the mark). Refused: a file, a directory that is not
    writable (for a new ``out``, the nearest existing directory: a read-only disk is found before
    the work, not after it), a run directory or a directory inside one, another command's output,
    other files, a directory another soup process is writing. Writes nothing."""
    out = Path(out)
    for path in (out, *out.parents):
        if path.exists() and not path.is_dir():
            raise UserError(f"--out: {path} is a file, not a directory; choose another --out")
        if (path / RUN_MANIFEST).is_file():
            what = "is" if path == out else f"is inside {path}, which is"
            raise UserError(
                f"--out: {out} {what} a soup run directory (it holds {RUN_MANIFEST}: a soup simulate run "
                f"or an experiment's arm); soup {command} writes a directory of its own: choose a new or "
                "empty --out"
            )
    check_writable(out)
    if not out.exists():
        return
    check_not_held(out)
    mine = owner(out)
    if mine == command or (mine is None and any((out / f).is_file() for f in legacy)):
        return
    if mine is not None:
        raise UserError(
            f"--out: {out} holds the output of soup {mine}, not of soup {command}; choose another --out"
        )
    others = sorted(p.name for p in out.iterdir() if p.name != LOCK and not p.name.startswith(_PROBE))
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        raise UserError(
            f"--out: {out} holds other files ({shown}) and no soup {command} output; choose a new or "
            "empty --out"
        )


def claim(out: Path, command: str) -> None:
    """Create ``out`` (if needed), hold its lock (:func:`hold`) and mark it as ``soup
    command``'s output; call it when the command starts writing, after :func:`check` and every
    other check."""
    out = Path(out)
    hold(out)
    if owner(out) != command:
        (out / MARK).write_text(f"soup {command}\n", encoding="utf-8")


def slug(text: str) -> str:
    """A name for a file or directory made of ``text``'s letters and digits."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"
