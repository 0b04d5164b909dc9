"""The strategy parameter schema, presets and strategy files.

A strategy is a vector of floats; policy.py reads it by the indices below. A strategy file is a
TOML file naming any subset of the parameters (the rest keep their defaults), with per-gene
values in a ``[gene_value]`` table keyed by gene name::

    name = "my-breeder"
    description = "Amoebas first, Division Rate early."
    bp_reserve = 2
    [gene_value]
    "Division Rate" = 9
"""

import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.ursuppe.genes import GENE_NAMES, N_GENES, gene_index

PRESETS_DIR = Path(__file__).resolve().parent / "presets"


@dataclass(frozen=True)
class Parameter:
    name: str
    index: int
    default: float
    low: float
    high: float
    doc: str


_SCALARS: tuple[tuple[str, float, float, float, str], ...] = (
    (
        "randomness",
        0.0,
        0.0,
        1.0,
        "probability of choosing uniformly among the legal options at a decision (1 = the random strategy)",
    ),
    ("bp_reserve", 2.0, 0.0, 50.0, "BP kept back when buying genes and amoebas (G1, D3)"),
    (
        "active_move_margin",
        0.5,
        -10.0,
        10.0,
        "how much better the expected food of an active move must be than drifting to pay for it (M1)",
    ),
    ("attack_propensity", 1.0, 0.0, 1.0, "attack when a target is there (A1, B1): 1 always, 0 never"),
    ("answer_propensity", 1.0, 0.0, 1.0, "answer attacks with Escape/Defense when possible (A2)"),
    ("max_amoebas", 7.0, 0.0, 7.0, "stop buying amoebas at this many on the board (D3)"),
    ("crowding_penalty", 0.5, 0.0, 10.0, "penalty per other amoeba on a space when placing or moving"),
)

PARAMETERS: dict[str, Parameter] = {}
for _i, (_name, _default, _low, _high, _doc) in enumerate(_SCALARS):
    PARAMETERS[_name] = Parameter(_name, _i, _default, _low, _high, _doc)

GENE_VALUE_BASE = len(_SCALARS)  # gene_value[i] at index GENE_VALUE_BASE + i
N_PARAMS = GENE_VALUE_BASE + N_GENES

# Index constants for the policy kernels.
RANDOMNESS = PARAMETERS["randomness"].index
BP_RESERVE = PARAMETERS["bp_reserve"].index
ACTIVE_MOVE_MARGIN = PARAMETERS["active_move_margin"].index
ATTACK_PROPENSITY = PARAMETERS["attack_propensity"].index
ANSWER_PROPENSITY = PARAMETERS["answer_propensity"].index
MAX_AMOEBAS = PARAMETERS["max_amoebas"].index
CROWDING_PENALTY = PARAMETERS["crowding_penalty"].index

DEFAULT_GENE_VALUE = 1.0


class StrategyError(ValueError):
    """A bad strategy name or strategy file; the message is one line naming the key."""


@dataclass(frozen=True)
class Strategy:
    name: str
    description: str
    vector: np.ndarray  # float64 [N_PARAMS]
    source: str


def default_vector() -> np.ndarray:
    v = np.zeros(N_PARAMS, dtype=np.float64)
    for p in PARAMETERS.values():
        v[p.index] = p.default
    v[GENE_VALUE_BASE:] = DEFAULT_GENE_VALUE
    return v


def _number(label: str, key: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise StrategyError(f"{label}: {key}: expected a number in [{low:g}, {high:g}], got {value!r}")
    if not low <= float(value) <= high:
        raise StrategyError(f"{label}: {key}: expected a number in [{low:g}, {high:g}], got {value!r}")
    return float(value)


def strategy_from_dict(data: dict, label: str, default_name: str) -> Strategy:
    """Validate a strategy table (from a TOML file) into a :class:`Strategy`."""
    v = default_vector()
    name = data.get("name", default_name)
    description = data.get("description", "")
    if not isinstance(name, str) or not name:
        raise StrategyError(f"{label}: name: expected a non-empty string, got {name!r}")
    if not isinstance(description, str):
        raise StrategyError(f"{label}: description: expected a string, got {description!r}")
    for key, value in data.items():
        if key in ("name", "description"):
            continue
        if key == "gene_value":
            if not isinstance(value, dict):
                raise StrategyError(f"{label}: gene_value: expected a table of gene name = number")
            for gene, x in value.items():
                try:
                    i = gene_index(gene)
                except KeyError:
                    raise StrategyError(
                        f"{label}: gene_value.{gene!r}: unknown gene "
                        f"(expected one of: {', '.join(GENE_NAMES)})"
                    ) from None
                v[GENE_VALUE_BASE + i] = _number(label, f"gene_value.{gene!r}", x, -100.0, 100.0)
            continue
        if key not in PARAMETERS:
            raise StrategyError(
                f"{label}: {key}: unknown parameter (expected one of: name, description, gene_value, "
                f"{', '.join(PARAMETERS)})"
            )
        p = PARAMETERS[key]
        v[p.index] = _number(label, key, value, p.low, p.high)
    return Strategy(name=name, description=description, vector=v, source=label)


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESETS_DIR.glob("*.toml"))


def load_strategy(spec: str) -> Strategy:
    """A preset by name (``greedy``) or a strategy file by path (``my.toml``)."""
    path = Path(spec)
    if spec.endswith(".toml") or path.exists():
        label = str(path)
        if not path.is_file():
            raise StrategyError(f"{label}: cannot read the strategy file: no such file")
    else:
        path = PRESETS_DIR / f"{spec}.toml"
        label = spec
        if not path.is_file():
            raise StrategyError(
                f"strategy {spec!r}: unknown preset (expected one of: {', '.join(preset_names())}, "
                "or a path to a .toml file)"
            )
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise StrategyError(f"{label}: not valid TOML: {e}") from None
    return strategy_from_dict(data, label, path.stem)


def parameter_table(strategies: list[Strategy]) -> np.ndarray:
    """The ``params`` array the kernels read: one row per strategy."""
    return np.ascontiguousarray(np.stack([s.vector for s in strategies]), dtype=np.float64)
