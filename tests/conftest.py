"""Shared fixtures. The engine is compiled once per machine (numba's on-disk cache): under
pytest-xdist (pyproject's addopts) the controller compiles it before the workers start, else the
first test that touches a kernel pays for it."""

import numpy as np
import pytest

from sim.ursuppe.rules.book import load_rules
from strategies.ursuppe.params import load_strategy, parameter_table


def pytest_configure(config):
    """Under pytest-xdist, fill the kernel cache in the controller before the workers start: on a
    fresh machine every worker would otherwise compile the whole engine at once, into one cache."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    import sim.ursuppe.engine.round  # noqa: F401  (compiles, or loads from the cache)


@pytest.fixture(scope="session")
def rulebook():
    return load_rules()


@pytest.fixture(scope="session")
def params():
    """Row 0: random, row 1: greedy."""
    return parameter_table([load_strategy("random"), load_strategy("greedy")])


def outcome_digest(state) -> np.ndarray:
    """Everything a game's outcome is made of, as one int64 vector per game."""
    parts = [
        state.score,
        state.bp,
        state.winner[:, None],
        state.round[:, None],
        state.space.reshape(len(state.round), -1),
        state.dp.reshape(len(state.round), -1),
        state.genes.reshape(len(state.round), -1),
        state.food.reshape(len(state.round), -1),
        state.card_index,
        state.seat,
        state.genes_bought,
    ]
    return np.concatenate([np.asarray(p, dtype=np.int64) for p in parts], axis=1)


def pytest_collection_modifyitems(config, items):
    """Every test that starts a Ray instance is in the slow tier (README: pytest -m "not slow")."""
    for item in items:
        if {"ray_cluster", "ray_backend"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
