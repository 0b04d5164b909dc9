"""Chromosome's preset strategies: rows of the parameter layout (params.py), by name, each with
a style. ``random`` decides uniformly (the conformance suite's random player). A strategy file
(``.toml``: a preset's numbers with some changed, e.g. a tuned one) is a strategy too."""

import tomllib
from pathlib import Path

from sim.errors import UserError
from strategies.chromosome.params import N_PARAMS, PARAM_NAMES

# The columns (params.PARAM_NAMES): randomness, reroll own <=, reroll against >=, token, trophy,
# fate, irradiation, charge, gene, aggression, caution, pass.
PRESETS: dict[str, tuple[float, ...]] = {
    "random": (1.0, 2.0, 4.0, 1.0, 1.0, 2.0, 1.0, 0.3, 0.6, 1.0, 0.5, 0.2),
    "builder": (0.0, 1.0, 4.0, 1.4, 1.0, 2.0, 1.0, 0.3, 0.7, 0.5, 0.6, 0.1),  # grows and evolves
    "aggressive": (0.0, 2.0, 3.0, 1.0, 1.5, 1.6, 0.8, 0.3, 0.5, 2.0, 0.3, 0.1),  # sparks
    "cautious": (0.0, 1.0, 4.0, 1.0, 1.0, 2.2, 1.6, 0.3, 0.6, 0.6, 1.5, 0.2),  # shuns radiation
    "evolver": (0.0, 1.0, 4.0, 1.0, 1.0, 2.0, 1.0, 0.3, 1.2, 0.7, 0.6, 0.1),  # collects genes
}
DEFAULT_POOL = "builder,aggressive,cautious,evolver"
assert all(len(v) == N_PARAMS for v in PRESETS.values())


# The search box of tuning (sim.experiments.tuning), per parameter: (low, high).
BOUNDS: tuple[tuple[float, float], ...] = (
    (0.0, 1.0), (0.0, 4.0), (1.0, 7.0), (0.0, 3.0), (0.0, 3.0), (0.0, 4.0),
    (0.0, 3.0), (0.0, 1.5), (0.0, 2.0), (0.0, 4.0), (0.0, 3.0), (-1.0, 1.0),
)  # fmt: skip
assert len(BOUNDS) == N_PARAMS


def preset_row(name: str) -> tuple[float, ...]:
    """The parameter row of a preset or a strategy file (a UserError naming what is expected)."""
    if name in PRESETS:
        return PRESETS[name]
    if name.endswith(".toml"):
        try:
            data = tomllib.loads(Path(name).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
            raise UserError(f"{name}: cannot read the strategy file: {e}") from None
        base = data.get("base", "builder")
        if base not in PRESETS:
            raise UserError(f"{name}: base: expected one of {', '.join(PRESETS)}, got {base!r}")
        row = list(PRESETS[base])
        for key, value in data.get("params", {}).items():
            if key not in PARAM_NAMES or not isinstance(value, int | float) or isinstance(value, bool):
                raise UserError(
                    f"{name}: params.{key}: expected a number for one of {', '.join(PARAM_NAMES)}"
                )
            row[PARAM_NAMES.index(key)] = float(value)
        return tuple(row)
    raise UserError(f"strategy {name!r}: expected one of {', '.join(PRESETS)} or a strategy .toml file")


def write_strategy(base: str, vector, path: Path) -> str:
    """Write strategy ``base`` with its numbers set to ``vector`` to ``path``.toml; its name."""
    target = Path(path).with_suffix(".toml")
    target.parent.mkdir(parents=True, exist_ok=True)
    lines = [f'base = "{base if base in PRESETS else "builder"}"', "", "[params]"]
    lines += [f"{k} = {float(v)!r}" for k, v in zip(PARAM_NAMES, vector, strict=True)]
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(target)
