"""Reading a game's scenario file (JSON, docs/scenario-format.md): its top-level object, the game it
names, and the keys it may hold, or one line naming the file, the key and what is expected."""

import difflib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from sim.errors import UserError

# The optional top-level key naming the file's game (sim.game's registered name): `soup scenario
# FILE` plays that game without --game.
GAME_KEY = "game"


def read_scenario_file(path: str | Path, error: type[UserError]) -> dict[str, Any]:
    """The top-level object of scenario file ``path``; ``error`` (the game's UserError) when it
    cannot be read, is empty, is not text, is not JSON or is not an object (issue 31.5: a binary
    file printed a UnicodeDecodeError traceback)."""
    try:
        raw = Path(path).read_bytes()
    except IsADirectoryError:
        raise error(f"{path}: is a directory; expected a scenario file (JSON)") from None
    except OSError as e:
        raise error(f"{path}: cannot read the scenario file: {e.strerror}") from None
    if not raw.strip():
        raise error(f"{path}: the file is empty; expected a JSON object")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(f"{path}: not a text file (byte {e.start} is not UTF-8); expected JSON") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise error(f"{path}: not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})") from None
    if not isinstance(data, dict):
        raise error(f"{path}: expected a JSON object at the top level, got {_kind(data)}")
    return data


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return f"the {type(value).__name__} {json.dumps(value)}"


def check_keys(
    label: str, where: str, value: Mapping[str, Any], allowed: Iterable[str], error: type[UserError]
) -> None:
    """``error`` naming the first key of ``value`` (the object at dotted path ``where``, "" at the
    top) that is not in ``allowed``, and the allowed ones: a misspelt key is never ignored (issue
    31.4). A near miss is named; an unknown top-level key of a file that names no game may be
    another game's, so the message says how to name it."""
    allowed = tuple(allowed)
    for key in value:
        if key not in allowed:
            path = f"{where}.{key}" if where else str(key)
            near = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.75)  # dise, dice: 0.75
            if near:
                hint = f"; did you mean {near[0]}?"
            elif not where and GAME_KEY not in value:
                hint = f'; another game\'s scenario names it: "{GAME_KEY}": NAME (or --game NAME)'
            else:
                hint = ""
            raise error(f"{label}: {path}: unknown key (expected one of: {', '.join(allowed)}){hint}")


def file_game(
    label: str, data: Mapping[str, Any], known: Iterable[str], error: type[UserError]
) -> str | None:
    """The game the document names (its ``game`` key), None if it names none; ``error`` for a
    value that is not one of the ``known`` games."""
    if GAME_KEY not in data:
        return None
    known = tuple(known)
    name = data[GAME_KEY]
    if not isinstance(name, str) or name not in known:
        raise error(f"{label}: {GAME_KEY}: expected one of {', '.join(known)}, got {json.dumps(name)}")
    return name


def check_game(label: str, data: Mapping[str, Any], game: str, error: type[UserError]) -> None:
    """``error`` unless the document names no game or names ``game`` (the game loading it)."""
    name = data.get(GAME_KEY, game)
    if name != game:
        raise error(f"{label}: {GAME_KEY}: the file is a {json.dumps(name)} scenario, not a {game} one")
