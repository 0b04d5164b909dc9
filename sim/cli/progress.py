"""The progress bars of ``soup``: one line per task on stderr that fits the terminal (issue 31.11).

A line is the description, the bar, a count ("20,000/1,000,000 games"), the time elapsed and
the ETA. At 80 columns rich used to cut the times ("0:00:…") once the counts grew long. Here each
line is laid out for the console's width whenever it is drawn, by priority: the count and the
times are never cut; the bar shrinks (40 cells down to 10), then the description is cut (with an
ellipsis, down to 12 characters), then the bar is dropped, then the description is cut further.
Counts of ten million and more are written short (12.3M/1.0T games), and times of 100 hours and
more in days or years.

When stderr is no terminal (redirected to a file, a pipe, a CI log) a bar cannot be redrawn, and
rich showed it once, at the end (issue 32.7): there each task prints plain lines instead, the
first when it starts, then one every ``SOUP_PROGRESS_EVERY`` seconds (10 by default) and one when
it ends or the command stops.

Imported when a bar is shown (or a long run's duration is said): ``soup --help`` loads no rich
rendering.
"""

import os
import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.progress import Progress, ProgressBar, Task
from rich.table import Table
from rich.text import Text

BAR_MAX, BAR_MIN = 40, 10
DESCRIPTION_MIN = 12
SHORT_FROM = 10_000_000  # counts from here on are written 12.3M, 4.5B, 1.0T
YEAR = 365.25 * 86400


def duration_text(seconds: float) -> str:
    """A duration in the unit that reads best: 40 s, 12 minutes, 3.5 hours, 12 days, 1.6 years."""
    for unit, scale in (("years", YEAR), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= scale:
            value = seconds / scale
            return f"{value:,.1f} {unit}" if value < 10 else f"{value:,.0f} {unit}"
    return f"{seconds:.0f} s"


def count_text(n: float) -> str:
    """``n`` in full below ten million (1,234,567), else short (12.3M, 4.5B, 1.0T)."""
    if n < SHORT_FROM:
        return f"{n:,.0f}"
    for suffix, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
        if n >= scale:
            return f"{n / scale:,.1f}{suffix}"
    return f"{n:,.0f}"  # pragma: no cover (SHORT_FROM is above a million)


def clock(seconds: float | None) -> str:
    """H:MM:SS below 100 hours, else days or years (100+ years beyond); -:--:-- while unknown."""
    if seconds is None:
        return "-:--:--"
    if seconds < 100 * 3600:
        s = int(seconds)
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return duration_text(seconds) if seconds < 100 * YEAR else "100+ years"


def times_text(task: Task) -> str:
    """The time elapsed and the ETA of ``task``."""
    elapsed = task.finished_time if task.finished else task.elapsed
    remaining = 0.0 if task.finished else task.time_remaining
    return f"{clock(elapsed)} ETA {clock(remaining)}"


def games_count(task: Task) -> str:
    return f"{count_text(task.completed)}/{count_text(task.total or 0)} games"


def work_share(task: Task) -> str:
    """The share done of a task counted in work rather than games (a verdict: a search game
    weighs thousands of scripted ones, so a games count would run far ahead of the time)."""
    total = task.total or 0
    return f"{100 * task.completed / total:.0f}% of the work" if total else "0% of the work"


def layout(width: int, description: str, right: str) -> tuple[str, int]:
    """The description (cut if need be) and the bar's cells (0: no bar) of a line ``width`` wide
    that ends with ``right`` (the count and the times, never cut)."""
    room = width - len(right) - 1  # the space before the count
    if room - len(description) - 1 >= BAR_MIN:
        return description, min(BAR_MAX, room - len(description) - 1)
    if room - BAR_MIN - 1 >= DESCRIPTION_MIN:
        return _cut(description, room - BAR_MIN - 1), BAR_MIN
    return _cut(description, room), 0


def _cut(text: str, width: int) -> str:
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"


def every_seconds() -> float:
    """Seconds between two progress lines when stderr is no terminal (``SOUP_PROGRESS_EVERY``)."""
    try:
        return max(0.0, float(os.environ.get("SOUP_PROGRESS_EVERY", "10")))
    except ValueError:
        return 10.0


class FittedProgress(Progress):
    """A rich Progress whose every line is laid out for the console's width (:func:`layout`);
    ``count(task)`` is a task's count text. On a console that is no terminal it prints
    periodic plain lines instead (see the module docs)."""

    def __init__(self, count: Callable[[Task], str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.count = count
        self.plain = not self.console.is_terminal and not self.disable
        self.every = every_seconds()
        self._said: dict[Any, tuple[float, str]] = {}  # task id -> (when, the line) last printed
        self._finished: set[Any] = set()  # tasks whose finishing line is printed

    def start(self) -> None:
        if not self.plain:  # no live display to redraw: the lines are printed as they come
            super().start()

    def update(self, task_id: Any, **kwargs: Any) -> None:
        super().update(task_id, **kwargs)
        if self.plain:
            self._say(task_id, at_end=False)

    def stop(self) -> None:
        if self.plain:
            for task in self.tasks:
                self._say(task.id, at_end=True)
            return
        super().stop()

    def _say(self, task_id: Any, at_end: bool) -> None:
        """Print ``task_id``'s line if it is due: its first, one every ``every`` seconds, the one
        that finishes it (once), and at the end its last state unless that was printed already."""
        task = self._tasks[task_id]
        finished = task.total is not None and task.completed >= task.total
        right = f"{self.count(task)} {times_text(task)}"
        description, _ = layout(self.console.width - 1, f"{task.description}:", right)
        line = f"{description} {right}".lstrip()
        now = time.monotonic()
        last = self._said.get(task_id)
        if task_id in self._finished:
            return
        due = last is None or finished or now - last[0] >= self.every
        if due and (last is None or line != last[1]) or at_end and last is not None and line != last[1]:
            self.console.file.write(line + "\n")
            self.console.file.flush()
            self._said[task_id] = (now, line)
            if finished:
                self._finished.add(task_id)

    def make_tasks_table(self, tasks: Any) -> Table:
        table = Table.grid()
        for task in tasks:
            if task.visible:
                table.add_row(self.line(task))
        return table

    def line(self, task: Task) -> Table:
        """One task's line."""
        right = f"{self.count(task)} {times_text(task)}"
        description, bar = layout(self.console.width, str(task.description), right)
        row = Table.grid(padding=(0, 1))
        cells: list[Any] = []
        if description:
            cells.append(Text(description, style="progress.description", no_wrap=True))
        if bar:
            cells.append(ProgressBar(total=task.total, completed=task.completed, width=bar))
        cells.append(Text(right, no_wrap=True))
        for _ in cells:
            row.add_column(no_wrap=True)
        row.add_row(*cells)
        return row


def make_progress(count: Callable[[Task], str], quiet: bool, console: Console | None = None) -> Progress:
    """A fitted progress display on stderr (or ``console``); ``count(task)``: its count text."""
    console = console or Console(stderr=True)
    return FittedProgress(count, console=console, disable=quiet)
