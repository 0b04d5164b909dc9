"""docs/rule_index.md (rule id -> implementing functions -> scenario files) is generated from the
code (sim/ursuppe/tools/rule_index.py) and must be current; every gene has a scenario file."""

from pathlib import Path

from sim.ursuppe.rules.genes import GENE_NAMES
from sim.ursuppe.tools.rule_index import render, scenario_tests

PAGE = Path(__file__).resolve().parent.parent / "docs" / "rule_index.md"


def test_rule_index_page_is_current():
    assert PAGE.read_text(encoding="utf-8") == render(), (
        "docs/rule_index.md is stale: run `python -m sim.ursuppe.tools.rule_index > docs/rule_index.md`"
    )


def test_every_gene_has_a_scenario_file():
    """Issue 14.1: a gene without a scenario file (test.rules naming "gene:<name>") fails here."""
    tested = scenario_tests()
    missing = [name for name in GENE_NAMES if not tested.get(f"gene:{name}")]
    assert not missing, f"genes without a scenario file: {missing}"


def test_rule_index_lists_the_double_play_rules_with_their_scenarios():
    page = render()
    assert "| TB4 |" in page and "TB4_double2_phase1_order_behind_leader_leader_behind.json" in page
    assert "`sim.ursuppe.engine.double_play.colour_order`" in page
