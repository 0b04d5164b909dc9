"""The tunable space of an Ursuppe strategy: which parameters a tuning may move, by which names
(``gene_value.<gene>``), and within which search bounds. Read by the game's protocol adapter
(``strategy_space``, the generic tuning stack's) and by ``soup tune`` (sim/ursuppe/experiments/tuning.py);
not by the kernels."""

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from sim.errors import UserError
from sim.ursuppe.rules.genes import GENE_NAMES, gene_index
from strategies.ursuppe.params import GENE_VALUE_BASE, GENE_VALUE_HIGH, GENE_VALUE_LOW, PARAMETERS

GENE_PREFIX = "gene_value."
# Search bounds narrower than the schema's: the schema allows e.g. gene values of -100..100 where
# only the order and the sign matter (the presets use 0..10); a start value outside is included.
SEARCH_BOUNDS: dict[str, tuple[float, float]] = {
    "gene_value": (-10.0, 10.0),
    "bp_reserve": (0.0, 10.0),
    "division_reserve": (0.0, 10.0),
    "second_move_threshold": (0.0, 10.0),
    "cling_threshold": (0.0, 10.0),
    "defect_gene_weight": (0.0, 10.0),
    "mp_limit": (0.0, 40.0),
    "save_for_value": (-10.0, 10.0),
}


class TuningError(UserError):
    """A bad tune option (parameter, budget, field); one line naming it."""


@dataclass(frozen=True)
class SearchSpace:
    """The tuned parameters: their keys, vector indices, search bounds and which are switches."""

    keys: tuple[str, ...]
    index: np.ndarray  # int [d] into the strategy vector
    low: np.ndarray
    high: np.ndarray
    switch: np.ndarray  # bool [d]
    # Masked parameters: tuned like the others (the same dimensions, so the optimiser samples as
    # for an unmasked twin) but played at a fixed value (gene value's option design forbids a
    # gene this way: its forbidden arm searches the space of its allowed arm)
    fixed_index: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    fixed_value: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def to_unit(self, vector: np.ndarray) -> np.ndarray:
        x = (vector[self.index] - self.low) / (self.high - self.low)
        return np.clip(x, 0.0, 1.0)

    def to_vector(self, x: np.ndarray, base: np.ndarray) -> np.ndarray:
        """The strategy vector of a point of [0, 1]^d: ``base`` with the tuned parameters set
        (rounded to 3 decimals, so that the TOML file holds exactly the strategy played;
        switches to 0 or 1)."""
        v = base.copy()
        values = self.low + np.clip(x, 0.0, 1.0) * (self.high - self.low)
        values = np.where(self.switch, np.round(values), np.round(values, 3))
        v[self.index] = np.clip(values, self.low, self.high)
        v[self.fixed_index] = self.fixed_value
        return v


def parameter_key_index(key: str) -> int:
    """The vector index of a parameter name or ``gene_value.<gene>``; a TuningError otherwise."""
    if key.startswith(GENE_PREFIX):
        try:
            return GENE_VALUE_BASE + gene_index(key.removeprefix(GENE_PREFIX))
        except KeyError:
            raise TuningError(
                f"--params: {key!r}: unknown gene (expected gene_value.<one of: {', '.join(GENE_NAMES)}>)"
            ) from None
    if key not in PARAMETERS:
        raise TuningError(
            f"--params: {key!r}: unknown parameter (expected 'default', 'genes', gene_value.<gene> or one "
            f"of: {', '.join(PARAMETERS)})"
        )
    return PARAMETERS[key].index


def search_space(
    keys: Sequence[str], start: np.ndarray, pinned: dict[str, float] | None = None
) -> SearchSpace:
    """The search space of ``keys`` (less the ``pinned`` ones): bounds from SEARCH_BOUNDS within
    the schema's, widened to hold the start value (the start is always a point of the space)."""
    pinned = pinned or {}
    keys = [k for k in keys if k not in pinned]
    if not keys:
        raise TuningError("--params: every tuned parameter is pinned; nothing left to tune")
    idx, low, high, switch = [], [], [], []
    for k in keys:
        i = parameter_key_index(k)
        if k.startswith(GENE_PREFIX):
            lo, hi, sw = GENE_VALUE_LOW, GENE_VALUE_HIGH, False
            slo, shi = SEARCH_BOUNDS["gene_value"]
        else:
            p = PARAMETERS[k]
            lo, hi, sw = p.low, p.high, p.switch
            slo, shi = SEARCH_BOUNDS.get(k, (lo, hi))
        s = float(start[i])
        idx.append(i)
        low.append(max(lo, min(slo, s)))
        high.append(min(hi, max(shi, s)))
        switch.append(sw)
    return SearchSpace(tuple(keys), np.array(idx), np.array(low), np.array(high), np.array(switch))
