"""Every scenario file under tests/scenarios/ is a rules test, run with the real engine.

A scenario file is exactly the format of docs/scenario-format.md plus a ``test`` key:
``rules`` (the rule ids and worked cases it checks), ``description``, and what must hold after
the run: ``expect`` (dotted paths into the output document, e.g. ``state.0.amoebas.0.space``,
each equal to the given value), ``expect_events`` (each a subset of some event, in this order),
``absent_events`` (no event matches any of these), or ``expect_error`` (a substring of the
one-line error). The test ids are the file names, which start with the main rule id.
"""

import json
from pathlib import Path

import pytest

from sim.ursuppe.tools.scenario import ScenarioError, load_scenario, run_scenario

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.json"))
# The rules of §1-§6 and the worked cases of §12 (docs/rules.md): each needs a scenario or a
# test elsewhere that cites it (test_rule_coverage.py checks the union).
WORKED_CASES = (
    "case:advance",
    "case:gene-defect",
    "case:movement",
    "case:eat",
    "case:shortage",
    "case:starvation",
    "case:natural-death",
    "case:violent-death",
    "case:life-expectancy",
    "case:division",
    "case:setup-dp",
)


def _get(doc, path: str):
    cur = doc
    for part in path.split("."):
        if isinstance(cur, list):
            cur = cur[int(part)]
        else:
            cur = cur[part]
    return cur


def _matches(event: dict, pattern: dict) -> bool:
    return all(k in event and event[k] == v for k, v in pattern.items())


def check_scenario(path: Path) -> None:
    data = json.loads(path.read_text())
    spec = data["test"]
    if "expect_error" in spec:
        with pytest.raises(ScenarioError) as err:
            run_scenario(load_scenario(path))
        message = str(err.value)
        assert "\n" not in message
        assert spec["expect_error"] in message, message
        return
    out = run_scenario(load_scenario(path))
    for key, want in spec.get("expect", {}).items():
        got = _get(out, key)
        assert got == want, f"{path.name}: {key} is {got!r}, expected {want!r}"
    events = out["events"]
    i = 0
    for pattern in spec.get("expect_events", []):
        while i < len(events) and not _matches(events[i], pattern):
            i += 1
        assert i < len(events), f"{path.name}: no event {pattern} (in order) among {events}"
        i += 1
    for pattern in spec.get("absent_events", []):
        assert not any(_matches(e, pattern) for e in events), f"{path.name}: unexpected event {pattern}"


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path):
    check_scenario(path)


def scenario_rule_ids() -> set[str]:
    ids: set[str] = set()
    for path in SCENARIOS:
        ids.update(json.loads(path.read_text())["test"]["rules"])
    return ids
