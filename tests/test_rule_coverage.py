"""Every rule id of spec §1-§6, the attack rules of §8 and every worked case of §12 is checked by
some test: a scenario file listing it under test.rules, or a test whose name or docstring cites
it. Rule ids are unique: B1-B2 are the board's (§2), R1-R4 Aggression's (§8; they were B1-B4).
The same for every PX id of the 5-6 player rules (docs/rules.md, "5-6 players") and the worked
cases of its §10, and for every TD id of the 2-player dummy variant (docs/rules.md §16) with a
scenario of each setting of its flags, and every TA and TB id of double play I and II (§17)."""

import json
import re
from pathlib import Path

from sim.ursuppe.rules.book import FLAG_NAMES, PX_FLAGS, TA_FLAGS, TB_FLAGS, TD_FLAGS, X_FLAGS
from sim.ursuppe.rules.extra_flags import EXTRA_FLAGS
from tests.test_scenarios import SCENARIOS, WORKED_CASES, scenario_rule_ids

SPEC = Path(__file__).parent.parent / "docs" / "rules.md"
# Scenarios of a flag's default reading that name neither the flag nor "flag:<name>".
DEFAULT_SCENARIOS = {
    "first_round_flip": "V3_round1_reveals_next_card",
    "finish_zone_start": "K1_finish_zone_default_42_not_41",
}

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
# The 5-6 player rules (docs/rules.md, "5-6 players"): every PX id, and the worked cases its §10
# names (`PXcase:...`), read from the spec rather than listed a second time.
PX_IDS = [f"PX{i}" for i in range(1, 25)]
PX_WORKED_CASES = list(dict.fromkeys(re.findall(r"`(PXcase:[a-z0-9-]+)`", SPEC.read_text())))


def cited_in_tests() -> set[str]:
    text = "\n".join(
        p.read_text() for p in Path(__file__).parent.glob("test_*.py") if p.name != Path(__file__).name
    )
    return set(re.findall(r"\b([A-Z]\d|PX\d+|PXcase:[a-z0-9-]+)\b", text))


def test_every_rule_of_sections_1_to_6_and_the_attacks_has_a_test():
    covered = scenario_rule_ids() | cited_in_tests()
    missing = [r for r in RULE_IDS if r not in covered]
    assert not missing, f"rules without a test: {missing}"


def test_every_worked_case_of_section_12_is_a_scenario():
    missing = [c for c in WORKED_CASES if c not in scenario_rule_ids()]
    assert not missing, f"worked cases without a scenario: {missing}"


def test_rule_ids_are_unique_in_the_spec():
    """B1-B2 name only the board rules (§2); Aggression's rules are R1-R4 (§8)."""
    spec = SPEC.read_text()
    defined = re.findall(r"^- ([A-Z]\d)\. ", spec, re.MULTILINE)
    assert len(defined) == len(set(defined)), sorted(r for r in defined if defined.count(r) > 1)
    assert {"B1", "B2", "R1", "R2", "R3", "R4"} <= set(defined)
    assert not {"B3", "B4", "B5", "B6"} & set(defined)


def test_every_flag_of_section_10_is_a_rules_flag_with_scenarios_in_both_settings():
    """§10: each flag is a key of the rules file's [flags] and has a scenario that sets its
    other reading and one of its default (named after it, or listing "flag:<name>")."""
    section = SPEC.read_text().split("## 10.")[1].split("## 11.")[0]
    flags = re.findall(r"^\| `(\w+)` \|", section, re.MULTILINE)
    # the 5-6 players' flags (PX), the dummy's (TD) and the double plays' (TA, TB) are tested by
    # their own scenarios
    own_scenarios = {*PX_FLAGS, *TD_FLAGS, *TA_FLAGS, *TB_FLAGS, *X_FLAGS}
    assert sorted(flags) == sorted(set(FLAG_NAMES) - own_scenarios)
    for flag in flags:
        other, default = [], []
        for path in SCENARIOS:
            data = json.loads(path.read_text())
            rules = data.get("rules", {})
            if flag in rules or flag in rules.get("flags", {}):
                other.append(path.stem)
            elif flag in path.stem or f"flag:{flag}" in data["test"]["rules"]:
                default.append(path.stem)
        if flag in DEFAULT_SCENARIOS and DEFAULT_SCENARIOS[flag] in {p.stem for p in SCENARIOS}:
            default.append(DEFAULT_SCENARIOS[flag])
        assert other, f"no scenario sets the flag {flag}"
        assert default, f"no scenario of the flag {flag}'s default"


def test_every_PX_rule_of_the_5_6_players_has_a_test():
    covered = scenario_rule_ids() | cited_in_tests()
    missing = [r for r in PX_IDS if r not in covered]
    assert not missing, f"5-6 player rules without a test: {missing}"


def test_every_worked_case_of_the_5_6_players_is_tested():
    assert len(PX_WORKED_CASES) >= 7, f"the spec's §10 names fewer worked cases: {PX_WORKED_CASES}"
    covered = scenario_rule_ids() | cited_in_tests()
    missing = [c for c in PX_WORKED_CASES if c not in covered]
    assert not missing, f"5-6 player worked cases without a test: {missing}"


# The 2-player dummy variant (docs/rules.md §16): every TD id.
TD_IDS = [f"TD{i}" for i in range(1, 10)]


def test_every_TD_rule_of_the_dummy_variant_has_a_scenario():
    """Each TD id is checked by a scenario file that starts with it (TD3_dummy_...)."""
    stems = {p.stem for p in SCENARIOS}
    missing = [r for r in TD_IDS if not any(s.startswith(f"{r}_") for s in stems)]
    assert not missing, f"dummy-variant rules without a scenario: {missing}"
    covered = scenario_rule_ids()
    assert not [r for r in TD_IDS if r not in covered]


def test_every_TD_flag_has_a_scenario_of_its_default_and_of_each_other_setting():
    """§16: each dummy flag has a dummy-variant scenario of its default (naming "flag:<name>")
    and, where it has another setting, one that sets it."""
    for flag in TD_FLAGS:
        other, default = [], []
        for path in SCENARIOS:
            data = json.loads(path.read_text())
            if data.get("variant") != "dummy":
                continue
            if flag in data.get("rules", {}):
                other.append(path.stem)
            elif f"flag:{flag}" in data["test"]["rules"]:
                default.append(path.stem)
        assert default, f"no scenario of the flag {flag}'s default"
        if flag not in ("dummy_policy", "dummy_feeding", "dummy_placement"):  # one setting each
            assert other, f"no scenario sets the flag {flag}"


# Double play I and II (docs/rules.md §17): every TA and TB id.
TA_TB_IDS = [f"TA{i}" for i in range(1, 5)] + [f"TB{i}" for i in range(1, 12)]


def test_every_TA_and_TB_rule_of_the_double_plays_has_a_test():
    """Each TA/TB id is checked by a scenario listing it, or a test citing it (TA2 and TA4 are
    about the result rows: tests/test_double_play.py)."""
    covered = scenario_rule_ids() | set(
        re.findall(
            r"\b(T[AB]\d+)\b",
            "\n".join(
                p.read_text()
                for p in Path(__file__).parent.glob("test_*.py")
                if p.name != Path(__file__).name
            ),
        )
    )
    missing = [r for r in TA_TB_IDS if r not in covered]
    assert not missing, f"double-play rules without a test: {missing}"


def test_every_double_play_flag_has_scenarios_of_both_settings():
    """§17: each TA/TB flag with another setting the engine plays has a scenario of its default
    (naming "flag:<name>") and one that sets it; the PLACEHOLDER amounts (start BP, income,
    division costs) are set by the fuzz test's flag sets (tests/test_double_play.py)."""
    for flag in (
        "double1_partner_is_opponent",
        "double2_partner_is_opponent",
        "double2_colour_order",
        "double2_eat_partner_colour",
    ):
        other, default = [], []
        for path in SCENARIOS:
            data = json.loads(path.read_text())
            if flag in data.get("rules", {}).get("flags", {}):
                other.append(path.stem)
            elif f"flag:{flag}" in data["test"]["rules"]:
                default.append(path.stem)
        assert default and other, (flag, default, other)


# The extra genes (docs/rules.md §18): every XM, XR and XG id, every §6 flag in both settings and
# every worked case of the spec's §7.
XM_IDS = [f"XM{i}" for i in range(1, 10)]
XR_IDS = ["XR1", "XR2", "XR3"]
XG_IDS = [f"XG-{i:02d}" for i in range(1, 27)]
XG_WORKED_CASES = (
    "case:xm-market",
    "case:xg-glutton",
    "case:xg-social-gene",
    "case:xg-short-life-span",
    "case:xg-toxic-excretions",
    "case:xg-camouflage",
    "case:xg-mouthful",
    "case:xg-healing-1",
)


def test_every_XM_and_XG_id_has_a_scenario_file_and_every_XR_id_a_test():
    stems = {p.stem for p in SCENARIOS}
    missing = [r for r in XM_IDS + XG_IDS if not any(s.startswith(f"{r}_") for s in stems)]
    assert not missing, f"extra-gene rules without a scenario file: {missing}"
    covered = scenario_rule_ids() | set(
        re.findall(
            r"\b(X[MRG]-?\d+)\b", "\n".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py"))
        )
    )
    assert not [r for r in XR_IDS if r not in covered]


def test_every_worked_case_of_the_extra_genes_is_a_scenario():
    missing = [c for c in XG_WORKED_CASES if c not in scenario_rule_ids()]
    assert not missing, f"extra-gene worked cases without a scenario: {missing}"


def test_the_extra_flags_table_of_section_18_is_the_declared_flags():
    section = SPEC.read_text().split("## 18.")[1]
    assert re.findall(r"^\| `(\w+)` \|", section, re.MULTILINE) == [f.name for f in EXTRA_FLAGS]


def test_every_extra_flag_has_scenarios_of_its_default_and_of_another_setting():
    """§6: a scenario sets each flag to another reading, and a scenario of the flag's gene (its
    rule id) runs at the default."""
    data = {p.stem: json.loads(p.read_text()) for p in SCENARIOS}
    for flag in EXTRA_FLAGS:
        other = [
            s
            for s, d in data.items()
            if flag.name in d.get("rules", {}).get("flags", {})
            and d["rules"]["flags"][flag.name] != flag.default
        ]
        default = [
            s
            for s, d in data.items()
            if s.startswith(flag.rule + "_") and flag.name not in d.get("rules", {}).get("flags", {})
        ]
        assert other, f"no scenario sets the flag {flag.name}"
        assert default, f"no scenario of {flag.rule} at the flag {flag.name}'s default"
