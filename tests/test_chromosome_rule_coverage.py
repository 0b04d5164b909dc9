"""Every rule id of docs/chromosome-rules.md is checked by some test (issue 23, item 2): a scenario
file of tests/scenarios/chromosome/ listing it under test.rules, or a Chromosome test
(tests/test_chromosome_*.py) citing it in its name or docstring. Every worked case of §13 is a
scenario; rule ids are unique in the spec; every §14 flag is a rules flag, with a scenario that
sets its other reading and one of its default.

The ids are read from the spec itself: its ``- X1. ...`` lines and the table of §7, and the
decision points Q1-Q18 of §11. §15's U1-U10 name gaps in the sources, not rules: the data they
describe is PLACEHOLDER and settable from a rules file (tests/test_chromosome_rules.py).

What the engine does not play yet is listed in NOT_BUILT (ids) and NOT_BUILT_FLAGS (flags whose
other reading it does not play); a test fails as soon as any of it is covered, so that the lists
shrink as the engine grows, and a newly uncited id of the built game fails the coverage test."""

import ast
import json
import re
from pathlib import Path

from sim.chromosome.rules.book import FLAGS

ROOT = Path(__file__).resolve().parent
SPEC = ROOT.parent / "docs" / "chromosome-rules.md"
SCENARIOS = sorted((ROOT / "scenarios" / "chromosome").glob("*.json"))
ID = r"[A-Z]{1,2}\d+"

# Nothing is left to build: every reading of the spec is played (the lists stay, empty, so that
# a reading the engine stops playing is listed here rather than silently uncovered).
NOT_BUILT: set[str] = set()
NOT_BUILT_FLAGS: set[str] = set()
# Flags whose default reading the engine does not play (none now).
DEFAULT_NOT_PLAYED: set[str] = set()
# Scenarios of a flag's default reading that do not cite "flag:<name>".
DEFAULT_SCENARIOS = {
    "fate_strength_timing": "W4_A8_F1_F9_D3_spark_with_boosts_and_rerolls",  # boosts before the rolls
    "reroll_order": "W4_A8_F1_F9_D3_spark_with_boosts_and_rerolls",  # the roller asked first
    "charge_size_limit": "W5_X2_X3_X5_X6_resistance_tests",  # the group of 3 on 18 stays discharged
    "area_room_adjacent_for_charge": "W5_X2_X3_X5_X6_resistance_tests",  # Magda's group on 12 charged
    "start_count": "W8_R5_starting_player",  # discharged tokens count
    "final_turn_includes_active": "W11_E3_elimination_and_the_final_turns",
    "events": "V1_no_events_by_default_phase1_reveals_nothing",
}


def _spec() -> str:
    return SPEC.read_text(encoding="utf-8")


def _section(number: int) -> str:
    return _spec().split(f"\n## {number}.")[1].split("\n## ")[0]


def defined_ids() -> list[str]:
    """Every ``- X1. `` line of the spec, in order (§15 included)."""
    return re.findall(rf"^- ({ID})\. ", _spec(), re.MULTILINE)


def spec_rule_ids() -> list[str]:
    """The rule ids: the ``- X1.`` lines but §15's, the rows of §7's table, §11's Q ids."""
    unknowns = set(re.findall(rf"^- ({ID})\. ", _section(15), re.MULTILINE))
    table = re.findall(r"^\| ([A-Z]{2}\d+) \|", _section(7), re.MULTILINE)
    decisions = re.findall(r"\b(Q\d+)\b", _section(11))
    ids = [i for i in defined_ids() if i not in unknowns] + table + decisions
    return list(dict.fromkeys(ids))


def worked_cases() -> list[str]:
    return re.findall(r"^- (W\d+)\. ", _section(13), re.MULTILINE)


def spec_flags() -> list[str]:
    return re.findall(r"^\| `(\w+)` \|", _section(14), re.MULTILINE)


def _scenario(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def scenario_rule_ids() -> set[str]:
    return {r for p in SCENARIOS for r in _scenario(p)["test"]["rules"]}


def cited_in_tests() -> set[str]:
    """The ids in the names and docstrings of the Chromosome tests (this file's aside)."""
    found: set[str] = set()
    for path in ROOT.glob("test_chromosome_*.py"):
        if path.name == Path(__file__).name:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                text = f"{node.name} {ast.get_docstring(node) or ''}"
                found |= set(re.findall(rf"(?<![A-Za-z0-9])({ID})(?![0-9])", text))
    return found


def covered() -> set[str]:
    """Rule ids with a scenario or a test; a worked case only by a scenario (named after it or
    listing it)."""
    stems = [p.stem for p in SCENARIOS]
    ids = scenario_rule_ids() | cited_in_tests()
    cases = {
        w for w in worked_cases() if w in scenario_rule_ids() or any(s.startswith(f"{w}_") for s in stems)
    }
    return {i for i in ids if not i.startswith("W")} | cases


def test_every_rule_id_of_the_spec_has_a_scenario_or_a_test():
    have = covered()
    missing = [i for i in spec_rule_ids() if i not in have and i not in NOT_BUILT]
    assert not missing, f"rules without a scenario or a test: {missing}"


def test_every_worked_case_is_a_scenario():
    have = covered()
    missing = [w for w in worked_cases() if w not in have and w not in NOT_BUILT]
    assert not missing, f"worked cases without a scenario: {missing}"


def test_what_is_not_built_yet_is_named_in_the_spec_and_has_no_test_yet():
    """Once a scenario or a test covers an id of NOT_BUILT, it leaves the list."""
    assert NOT_BUILT <= set(spec_rule_ids()), sorted(NOT_BUILT - set(spec_rule_ids()))
    now = sorted(NOT_BUILT & covered())
    assert not now, f"covered now, remove them from NOT_BUILT: {now}"


def test_rule_ids_are_unique_in_the_spec():
    """Each id is defined by one line; §7's table lists exactly the special actions it defines."""
    defined = defined_ids()
    assert len(defined) == len(set(defined)), sorted({i for i in defined if defined.count(i) > 1})
    table = re.findall(r"^\| ([A-Z]{2}\d+) \|", _section(7), re.MULTILINE)
    lines = re.findall(r"^- ([A-Z]{2}\d+)\. ", _section(7), re.MULTILINE)
    assert sorted(table) == sorted(i for i in lines if not i.startswith("SP"))
    decisions = re.findall(r"\b(Q\d+)\b", _section(11))
    assert decisions[:18] == [f"Q{i}" for i in range(1, 19)]


def test_scenarios_cite_only_ids_and_flags_of_the_spec():
    ids, flags = set(spec_rule_ids()), set(spec_flags())
    for path in SCENARIOS:
        for r in _scenario(path)["test"]["rules"]:
            ok = r in ids or (r.startswith("flag:") and r[5:] in flags) or r in set(defined_ids())
            assert ok, f"{path.name}: {r!r} is no rule id or flag of the spec"


def _flag_readings(path: Path) -> dict:
    rules = _scenario(path).get("rules", {})
    return {**{k: v for k, v in rules.items() if not isinstance(v, dict)}, **rules.get("flags", {})}


def test_every_flag_of_section_14_is_a_rules_flag_with_a_scenario_of_its_other_reading():
    """Each §14 flag is a key of the rules file's [flags]; each one the engine plays has a scenario
    that sets another reading than its default (and one that does not is in NOT_BUILT_FLAGS, as is
    every reading the engine refuses)."""
    assert spec_flags() == [f.name for f in FLAGS]
    defaults = {f.name: f.choices[0] for f in FLAGS}
    for flag in spec_flags():
        other = [p.stem for p in SCENARIOS if _flag_readings(p).get(flag, defaults[flag]) != defaults[flag]]
        if flag in NOT_BUILT_FLAGS:
            assert not other, (
                f"{flag}'s other reading has a scenario now ({other}): remove it from NOT_BUILT_FLAGS"
            )
        else:
            assert other, f"no scenario sets the flag {flag} to another reading"


def test_every_flag_the_engine_plays_has_a_scenario_of_its_default():
    """A scenario of the default reading cites "flag:<name>" (or is named in DEFAULT_SCENARIOS)."""
    stems = {p.stem for p in SCENARIOS}
    for flag in spec_flags():
        cited = [p.stem for p in SCENARIOS if f"flag:{flag}" in _scenario(p)["test"]["rules"]]
        if flag in DEFAULT_NOT_PLAYED:
            assert not cited, (
                f"{flag}'s default has a scenario now ({cited}): remove it from DEFAULT_NOT_PLAYED"
            )
        elif flag not in NOT_BUILT_FLAGS:
            assert cited or DEFAULT_SCENARIOS.get(flag) in stems, f"no scenario of the flag {flag}'s default"
