"""Every rule id of spec §1-§6 and every worked case of §12 is checked by some test: a scenario
file listing it under test.rules, or a test whose name or docstring cites it. The same for every
PX id of the 5-6 player rules (docs/rules.md, "5-6 players") and the worked cases of its §10."""

import re
from pathlib import Path

from tests.test_scenarios import WORKED_CASES, scenario_rule_ids

RULE_IDS = (
    [f"C{i}" for i in range(1, 6)]
    + ["B1", "B2"]
    + [f"V{i}" for i in range(1, 6)]
    + ["K1", "K2", "K3"]
    + [f"S{i}" for i in range(1, 7)]
    + [f"M{i}" for i in range(1, 5)]
    + ["E1", "E2"]
    + [f"G{i}" for i in range(1, 6)]
    + [f"D{i}" for i in range(1, 5)]
    + ["X1", "X2", "W1"]
)
# The 5-6 player rules (docs/rules.md, "5-6 players"): every PX id, and the worked cases of its §10.
PX_IDS = [f"PX{i}" for i in range(1, 25)]
PX_WORKED_CASES = (
    "PXcase:eat-5p",
    "PXcase:eat-6p",
    "PXcase:starve-6p",
    "PXcase:setup-6p",
    "PXcase:score-5p",
    "PXcase:income-5p",
    "PXcase:tentacle-6p",
)


def cited_in_tests() -> set[str]:
    text = "\n".join(
        p.read_text() for p in Path(__file__).parent.glob("test_*.py") if p.name != Path(__file__).name
    )
    return set(re.findall(r"\b([A-Z]\d|PX\d+|PXcase:[a-z0-9-]+)\b", text))


def test_every_rule_of_sections_1_to_6_has_a_test():
    covered = scenario_rule_ids() | cited_in_tests()
    missing = [r for r in RULE_IDS if r not in covered]
    assert not missing, f"rules without a test: {missing}"


def test_every_worked_case_of_section_12_is_a_scenario():
    missing = [c for c in WORKED_CASES if c not in scenario_rule_ids()]
    assert not missing, f"worked cases without a scenario: {missing}"


def test_every_PX_rule_of_the_5_6_players_has_a_test():
    covered = scenario_rule_ids() | cited_in_tests()
    missing = [r for r in PX_IDS if r not in covered]
    assert not missing, f"5-6 player rules without a test: {missing}"


def test_every_worked_case_of_the_5_6_players_is_tested():
    covered = scenario_rule_ids() | cited_in_tests()
    missing = [c for c in PX_WORKED_CASES if c not in covered]
    assert not missing, f"5-6 player worked cases without a test: {missing}"
