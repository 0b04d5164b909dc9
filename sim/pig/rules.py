"""Pig's rules file: the defaults (``rules.toml``) with house-rules files merged on top, validated
key by key from one table of rows (PG1-PG6)."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import numpy as np

from sim.errors import UserError
from sim.rules_files import MergedRules, player_counts_ok, read_rules_file

DEFAULT_RULES_PATH = Path(__file__).resolve().parent / "rules.toml"


class RulesError(UserError):
    """A rules file or key that cannot be used (one line naming the file and key)."""


class Key(NamedTuple):
    """One key of the rules file: its bounds and the rule it sets."""

    name: str
    low: int
    high: int
    rule: str


# The rules file's keys, in the order of the engine's rules row (PigRules.row).
KEYS: tuple[Key, ...] = (
    Key("target", 1, 10_000, "PG5"),
    Key("faces", 2, 100, "PG2"),
    Key("bust", 1, 100, "PG3"),
    Key("max_turns", 1, 100_000, "PG6"),
)
RULE_TARGET, RULE_FACES, RULE_BUST, RULE_MAX_TURNS = range(len(KEYS))
MAX_PLAYERS = 8


@dataclass(frozen=True)
class PigRules(MergedRules):
    """The merged rules (sim.rules_files.MergedRules: the values, the files they came from)."""

    game: ClassVar[str] = "pig"

    def row(self) -> np.ndarray:
        """The rules as the kernels read them (int64, KEYS order)."""
        return np.array([self.data[k.name] for k in KEYS], dtype=np.int64)


def _read(path: Path) -> dict[str, Any]:
    return read_rules_file(path, RulesError)


def load_rules(*files: str | Path, overrides: dict[str, Any] | None = None) -> PigRules:
    """The default rules, each house-rules file on top in order, then ``overrides``."""
    values = _read(DEFAULT_RULES_PATH)
    layers = [(str(f), _read(Path(f))) for f in files] + ([("overrides", overrides)] if overrides else [])
    known = {k.name for k in KEYS} | {"player_counts"}
    for label, layer in layers:
        for key, value in layer.items():
            if key not in known:
                raise RulesError(f"{label}: unknown key {key!r}; expected one of {', '.join(sorted(known))}")
            values[key] = value
    for k in KEYS:
        v = values[k.name]
        if isinstance(v, bool) or not isinstance(v, int) or not k.low <= v <= k.high:
            raise RulesError(
                f"rules: {k.name} ({k.rule}): expected an integer {k.low} to {k.high}, got {v!r}"
            )
    if values["bust"] > values["faces"]:
        raise RulesError(
            f"rules: bust (PG3): expected a face 1 to faces ({values['faces']}), got {values['bust']}"
        )
    counts = values["player_counts"]
    if not player_counts_ok(counts, MAX_PLAYERS):
        raise RulesError(
            f"rules: player_counts: expected a list of integers 2 to {MAX_PLAYERS}, got {counts!r}"
        )
    return PigRules(values, (str(DEFAULT_RULES_PATH), *(str(f) for f in files)))
