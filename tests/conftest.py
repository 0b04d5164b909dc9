"""Shared fixtures. The engine is compiled once per machine (numba's on-disk cache): under
pytest-xdist (pyproject's addopts) the controller compiles it before the workers start, else the
first test that touches a kernel pays for it."""

from pathlib import Path

import numpy as np
import pytest

from sim.ursuppe.rules.book import load_rules
from strategies.ursuppe.params import load_strategy, parameter_table


def pytest_configure(config):
    """Under pytest-xdist, fill the kernel cache in the controller before the workers start: on a
    fresh machine every worker would otherwise compile the whole engine at once, into one cache."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    from sim import game

    for name in game.names():  # every registered game's kernels (the conformance suite)
        game.get(name).load_engine()  # compiles, or loads from the cache


@pytest.fixture(scope="session")
def rulebook():
    return load_rules()


@pytest.fixture(scope="session")
def params():
    """Row 0: random, row 1: greedy."""
    return parameter_table([load_strategy("random"), load_strategy("greedy")])


@pytest.fixture
def house_rules(tmp_path):
    """``house_rules(text, name="house.toml")``: a house-rules file of ``text`` in the test's
    tmp_path, its path (for a command's --rules)."""

    def write(text: str, name: str = "house.toml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write


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


# The slow tier, by file: tests that run `soup` in subprocesses (each loads the compiled engine,
# seconds apiece), play thousands of games, tune, fuzz, start Ray or execute the notebook. The
# fast tier, `pytest -m "not slow"` (README), keeps the rules, scenarios, conformance, layers,
# jit cache and statistics tests and the generic experiments on Pig: about 120 CPU-seconds, so
# about a minute on two idle cores (README says how it was measured). CI runs both.
SLOW_FILES = frozenset(
    {
        "test_newcomer_audit.py",
        "test_trustworthy_runs.py",
        "test_double_play.py",
        "test_combos.py",
        "test_verdict.py",
        "test_paired.py",
        "test_two_players.py",
        "test_players.py",
        "test_extra_genes.py",
        "test_decks.py",
        "test_deck_family.py",
        "test_reference_arms.py",
        "test_tournament.py",
        "test_equilibrium.py",
        "test_report_equilibrium.py",
        "test_report.py",
        "test_report_sections.py",
        "test_simulate.py",
        "test_strategies.py",
        "test_cli.py",
        "test_chromosome_cli.py",
        "test_jit_copy_link.py",
    }
)


def pytest_collection_modifyitems(config, items):
    """The slow tier: the files of SLOW_FILES, and every test that starts a Ray instance."""
    for item in items:
        ray = {"ray_cluster", "ray_backend"} & set(getattr(item, "fixturenames", ()))
        if ray or item.path.name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)


def pytest_runtest_setup(item):
    """Under --dist loadgroup, an xdist_group test must carry its group in its node id (how
    pytest-xdist tells its scheduler): with pytest 9.2 it did not, and every group (the Ray tests:
    one local Ray instance at a time; the tests sharing a module's runs) was spread over the
    workers without a word (pytest-xdist issue 1386). Such a test fails, saying why."""
    grouped = getattr(item.config.option, "loadgroup", False) and item.get_closest_marker("xdist_group")
    if grouped and "@" not in item.nodeid.rpartition("]")[2]:
        pytest.fail(
            f"--dist loadgroup does not group this test with pytest {pytest.__version__} (pytest-xdist "
            "issue 1386); install the dev extra's pytest: pip install 'pytest<9.2'",
            pytrace=False,
        )
