"""Reading a game's rules file (TOML): its tables, or one line naming the file and what is wrong;
and the merged rules as data (:class:`MergedRules`)."""

import hashlib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from sim.errors import UserError


def read_rules_file(path: str | Path, error: type[UserError]) -> dict[str, Any]:
    """The tables of rules file ``path``; ``error`` (the game's UserError) when it cannot be read
    or is not TOML."""
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise error(f"{path}: cannot read the rules file: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise error(f"{path}: not a text file (byte {e.start} is not UTF-8); expected TOML") from None
    except tomllib.TOMLDecodeError as e:
        raise error(f"{path}: not valid TOML: {e}") from None


def player_counts_ok(counts: Any, most: int) -> bool:
    """Whether ``counts`` (a rules file's player_counts) is a non-empty list of integers 2 to ``most``."""
    return (
        isinstance(counts, list)
        and bool(counts)
        and all(not isinstance(c, bool) and isinstance(c, int) and 2 <= c <= most for c in counts)
    )


@dataclass(frozen=True)
class MergedRules:
    """A game's merged rules: the data (the defaults with house-rules files on top) and the files
    it came from; a game subclasses it and names itself (``game``) for the rules id."""

    game: ClassVar[str]
    data: dict[str, Any]
    files: tuple[str, ...]

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(self.data["player_counts"])

    @property
    def rules_id(self) -> str:
        """The game's name and 12 hex digits of the data's sha256 (what a run's spec names)."""
        text = json.dumps(self.data, sort_keys=True)
        return f"{self.game}-" + hashlib.sha256(text.encode()).hexdigest()[:12]
