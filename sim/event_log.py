"""The event log of every game: recorded by its kernels one row of integers at a time
(:func:`append_event`, called by the game's engine/events.py ``log``), and read back as dicts with
names and one line a person can follow for each.

A game gives its rows: which columns head a row (round, player, ...), where its kinds' fields
begin, how a field's code reads (``convert``), and one line-maker per event type.
"""

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

import numpy as np

from sim.jit import kernel

ROW_VALUES = 12  # the most values a game's event row holds (append_event's v0..v11)


@kernel
def append_event(events, n_events, error, g, overflow, v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11):
    """Append the row ``v0, v1, ...`` to game g's event table ``events[g]`` (its first
    ``events.shape[2]`` values: a game with narrower rows passes zeros after its own), counted by
    ``n_events[g]``; a full table records ``error[g, 0] = overflow`` instead (the game stops)."""
    i = n_events[g]
    if i >= events.shape[1]:
        error[g, 0] = overflow
        return
    values = (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11)
    row = events[g, i]
    for k in range(events.shape[2]):
        row[k] = values[k]
    n_events[g] = i + 1


class Kind(Protocol):
    """What the log needs of a game's event kind: its name and the names of its fields."""

    @property
    def name(self) -> str: ...

    @property
    def fields(self) -> tuple[str, ...]: ...


class Head(NamedTuple):
    """A column between an event's round and its own fields (in order): its key, and whether a
    value below 0 (nobody, no amoeba) leaves the key out."""

    key: str
    optional: bool = True


def events_as_dicts(
    events: np.ndarray,
    kinds: Sequence[Kind],
    head: Sequence[Head],
    convert: Callable[[Kind, str, int], Any],
) -> list[dict[str, Any]]:
    """Event rows ``[type, round, <head>, <fields>]`` as dicts: ``type`` (the kind's name),
    ``round``, the head's keys, then each of the kind's fields as ``convert(kind, name, code)``
    reads it."""
    first = 2 + len(head)
    out = []
    for row in events:
        kind = kinds[int(row[0])]
        d: dict[str, Any] = {"type": kind.name, "round": int(row[1])}
        for column, h in enumerate(head, start=2):
            if not h.optional or row[column] >= 0:
                d[h.key] = int(row[column])
        for i, name in enumerate(kind.fields):
            d[name] = convert(kind, name, int(row[first + i]))
        out.append(d)
    return out


def describe(
    e: dict[str, Any],
    lines: Mapping[str, Callable[..., str]],
    otherwise: Callable[[dict[str, Any]], str],
    *context: Any,
) -> str:
    """One line for event ``e``: its type's line-maker in ``lines`` called with ``e`` and
    ``context``, or ``otherwise(e)`` for a type without one."""
    line = lines.get(e["type"])
    return line(e, *context) if line is not None else otherwise(e)


def plural(n: int, word: str) -> str:
    """``1 card``, ``2 cards`` (issue 21: a log that says "1 cards" reads as a bug)."""
    return f"{n} {word}" + ("" if n == 1 else "s")
