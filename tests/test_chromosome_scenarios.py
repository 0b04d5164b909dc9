"""Chromosome's rules by scenario file (tests/scenarios/chromosome/, spec §13): each file pins a
position, forced dice and choices, and says what the rule it cites leads to (``expect``: a part
of the position after the run) or which error it must stop with (``expect_error``)."""

import json
from pathlib import Path

import pytest

from sim.chromosome.tools.scenario import ScenarioError, load_scenario, run_scenario, scenario_document
from sim.errors import GameError

ROOT = Path(__file__).resolve().parent / "scenarios" / "chromosome"
FILES = sorted(ROOT.glob("*.json"))


def _part_of(expected, actual, where="") -> list[str]:
    """Where ``expected`` differs from ``actual`` (a dict's keys not named are free; a list's
    entries are compared one by one, an empty dict matching anything)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        return [m for k, v in expected.items() for m in _part_of(v, actual.get(k), f"{where}.{k}")]
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [
            m
            for i, (e, a) in enumerate(zip(expected, actual, strict=True))
            for m in _part_of(e, a, f"{where}[{i}]")
        ]
    return [] if expected == actual else [f"{where}: expected {expected!r}, got {actual!r}"]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path):
    test = json.loads(path.read_text())["test"]
    if "expect_load_error" in test:  # bad input: one line naming the file and key, nothing runs
        with pytest.raises(ScenarioError, match=test["expect_load_error"]) as e:
            load_scenario(path)
        assert str(e.value).startswith(f"{path}: ") and "\n" not in str(e.value)
        return
    scenario = load_scenario(path, check_invariants=True)
    if "expect_error" in test:
        with pytest.raises(GameError, match=test["expect_error"].replace("[", r"\[").replace("]", r"\]")):
            run_scenario(scenario)
        return
    result = run_scenario(scenario)
    assert _part_of(test["expect"], result) == []


LOADABLE = [p for p in FILES if "expect_load_error" not in json.loads(p.read_text())["test"]]


@pytest.mark.parametrize("path", LOADABLE, ids=[p.stem for p in LOADABLE])
def test_scenario_round_trip(path):
    document = scenario_document(load_scenario(path))
    assert scenario_document(load_scenario(document)) == document
