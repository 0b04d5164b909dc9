"""Whose directory is ``--out``? Every command that writes a directory of its own (compare,
ablate, tournament, tune, verdict, calibrate) marks it as its own, and refuses one that is not
(issue 21.7): a ``soup simulate`` run, another command's output, or a directory of other files.

Without this, ``soup tune --out results/ursuppe-4p-seed1-100000`` wrote its checkpoint and report
among the run's chunks and exited 0. ``soup simulate`` has its own check (sim.runner.open_run: a
run directory holds one run and nothing else) and ``soup report`` its own (analysis.ursuppe.report).

The mark is a small file, :data:`MARK`, written when the command starts writing (:func:`claim`),
not when it checks (:func:`check`): bad input must leave nothing behind.
"""

import os
import re
from pathlib import Path

from sim.errors import UserError

MARK = ".soup-output"
RUN_MANIFEST = "manifest.json"  # sim.runner.MANIFEST (not imported: this module stays tiny)


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
    other files. Writes nothing."""
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
    nearest = next(p for p in (out, *out.parents) if p.exists())
    if not os.access(nearest, os.W_OK | os.X_OK):
        where = "" if nearest == out else f" ({nearest}, where it would be created)"
        raise UserError(f"--out: {out} is not writable{where}; choose another --out")
    if not out.exists():
        return
    mine = owner(out)
    if mine == command or (mine is None and any((out / f).is_file() for f in legacy)):
        return
    if mine is not None:
        raise UserError(
            f"--out: {out} holds the output of soup {mine}, not of soup {command}; choose another --out"
        )
    others = sorted(p.name for p in out.iterdir())
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        raise UserError(
            f"--out: {out} holds other files ({shown}) and no soup {command} output; choose a new or "
            "empty --out"
        )


def claim(out: Path, command: str) -> None:
    """Create ``out`` (if needed) and mark it as ``soup command``'s output; call it when the
    command starts writing, after :func:`check` and every other check."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if owner(out) != command:
        (out / MARK).write_text(f"soup {command}\n", encoding="utf-8")


def slug(text: str) -> str:
    """A name for a file or directory made of ``text``'s letters and digits."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"
