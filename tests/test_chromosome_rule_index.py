"""docs/chromosome_rule_index.md (rule id -> implementing functions -> scenario files) is generated
from the code (sim/chromosome/tools/rule_index.py) and must be current; it lists every rule id of
the specification, and the special actions and event cards point at their kernels."""

from pathlib import Path

from sim.chromosome.tools.rule_index import implementations, render, spec_ids

PAGE = Path(__file__).resolve().parent.parent / "docs" / "chromosome_rule_index.md"


def test_the_chromosome_rule_index_page_is_current():
    assert PAGE.read_text(encoding="utf-8") == render(), (
        "docs/chromosome_rule_index.md is stale: run "
        "`python -m sim.chromosome.tools.rule_index > docs/chromosome_rule_index.md`"
    )


def test_the_index_lists_every_rule_and_where_the_engine_plays_it():
    ids = spec_ids()
    assert {"C1", "FE3", "V5", "W11", "I13", "U10"} <= set(ids) and len(ids) == len(set(ids))
    code = implementations()
    assert "sim.chromosome.engine.specials._fusion" in code["FE3"]
    assert "sim.chromosome.engine.event_deck.reveal" in code["V2"]
    assert "sim.chromosome.engine.over_seven.irradiate" in code["X4"]
