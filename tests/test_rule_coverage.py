"""Every rule id of spec §1-§6, the attack rules of §8 and every worked case of §12 is checked by
some test: a scenario file listing it under test.rules, or a test whose name or docstring cites
it. Rule ids are unique: B1-B2 are the board's (§2), R1-R4 Aggression's (§8; they were B1-B4)."""

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
    + [f"A{i}" for i in range(1, 7)]
    + [f"R{i}" for i in range(1, 5)]
)


def cited_in_tests() -> set[str]:
    text = "\n".join(
        p.read_text() for p in Path(__file__).parent.glob("test_*.py") if p.name != Path(__file__).name
    )
    return set(re.findall(r"\b([A-Z]\d)\b", text))


def test_every_rule_of_sections_1_to_6_and_the_attacks_has_a_test():
    covered = scenario_rule_ids() | cited_in_tests()
    missing = [r for r in RULE_IDS if r not in covered]
    assert not missing, f"rules without a test: {missing}"


def test_every_worked_case_of_section_12_is_a_scenario():
    missing = [c for c in WORKED_CASES if c not in scenario_rule_ids()]
    assert not missing, f"worked cases without a scenario: {missing}"


def test_rule_ids_are_unique_in_the_spec():
    """B1-B2 name only the board rules (§2); Aggression's rules are R1-R4 (§8)."""
    spec = (Path(__file__).parent.parent / "docs" / "rules.md").read_text()
    defined = re.findall(r"^- ([A-Z]\d)\. ", spec, re.MULTILINE)
    assert len(defined) == len(set(defined)), sorted(r for r in defined if defined.count(r) > 1)
    assert {"B1", "B2", "R1", "R2", "R3", "R4"} <= set(defined)
    assert not {"B3", "B4", "B5", "B6"} & set(defined)
