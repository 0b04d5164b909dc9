"""The event log in the kit (sim/event_log.py; issue 35.4): the rows every game's trace reads
alike, and one line a type."""

from typing import NamedTuple

import numpy as np

from sim import event_log
from sim.event_log import Head


class _Kind(NamedTuple):
    name: str
    fields: tuple[str, ...]


_KINDS = (_Kind("move", ("from", "to")), _Kind("end", ("winner",)))


def test_rows_read_as_dicts_with_the_games_head_and_fields() -> None:
    """A row is [type, round, <head>, <fields>]: an optional head column below 0 is left out
    (nobody's event), a required one kept; each field as the game's ``convert`` reads it."""
    rows = np.array([[0, 3, 1, -1, 4, 5], [1, 9, 2, 0, -1, 0]], dtype=np.int16)
    head = (Head("phase", optional=False), Head("player"))
    out = event_log.events_as_dicts(rows, _KINDS, head, lambda kind, name, v: f"{kind.name}.{name}={v}")
    assert out == [
        {"type": "move", "round": 3, "phase": 1, "from": "move.from=4", "to": "move.to=5"},
        {"type": "end", "round": 9, "phase": 2, "player": 0, "winner": "end.winner=-1"},
    ]


def test_describe_calls_the_types_line_or_the_fallback() -> None:
    lines = {"move": lambda e, who: f"{who} moves {e['from']} -> {e['to']}"}
    assert event_log.describe({"type": "move", "from": 1, "to": 2}, lines, str, "P0") == "P0 moves 1 -> 2"
    assert event_log.describe({"type": "end"}, lines, lambda e: f"? {e['type']}", "P0") == "? end"


def test_plural_says_one_card_not_one_cards() -> None:
    assert (event_log.plural(1, "card"), event_log.plural(2, "card"), event_log.plural(0, "cube")) == (
        "1 card",
        "2 cards",
        "0 cubes",
    )


def test_append_event_writes_the_games_width_and_stops_at_a_full_table() -> None:
    """The kit's recording kernel (issue 35.4), every game's ``log``: a row's first width values
    (a game with narrower rows passes zeros after its own), counted per game; a full table writes
    nothing and records the game's overflow error (Ursuppe's and Chromosome's ERR_EVENT_OVERFLOW)."""
    events = np.zeros((2, 2, 10), np.int32)
    count = np.zeros(2, np.int32)
    error = np.zeros((2, 4), np.int32)
    for first in range(3):
        event_log.append_event(events, count, error, 1, 6, *range(first, first + 10), 0, 0)
    assert count.tolist() == [0, 2] and error[:, 0].tolist() == [0, 6]
    assert events[1].tolist() == [list(range(10)), list(range(1, 11))] and not events[0].any()
