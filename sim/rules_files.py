"""Reading a game's rules file (TOML): its tables, or one line naming the file and what is wrong."""

import tomllib
from pathlib import Path
from typing import Any

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
