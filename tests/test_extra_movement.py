"""Random and greedy games with the movement and sensing extra genes in play (XG-06, XG-07,
XG-16, XG-21, XG-23), both readings of their flags, every invariant checked: the new decisions
are reached and nothing breaks. The start pair puts Fast Food and Rebound in the pool from
round 1; a rich economy lets players hold many genes."""

import numpy as np
import pytest

from sim.ursuppe.engine import batch as B
from sim.ursuppe.engine.tally import TALLY_NAMES
from sim.ursuppe.rules.book import load_rules

READINGS = {
    "defaults": {},
    "other readings": {
        "rebound_applies_to": ["escape", "speed_steps"],
        "energy_conservation_requires_move": True,
        "environmental_sensing_includes_migration": True,
    },
}


@pytest.mark.parametrize("reading", list(READINGS), ids=list(READINGS))
def test_movement_genes_in_random_games(params, reading):
    flags = {"extra_genes": True, "extra_start_pair": ["Fast Food", "Rebound"], **READINGS[reading]}
    rules = load_rules(overrides={"economy": {"income": 30}, "components": {"start_bp": 20}, "flags": flags})
    seats = np.array([0, 1, 0, 1])  # random, greedy (conftest's params)
    b = B.new_batch(rules.for_players(4), params, seats, 5, np.arange(300), check_invariants=True)
    B.play(b, threads=2)
    assert B.first_error(b) is None, B.first_error(b)
    assert b.state.finished.all()
    tally = b.workspace.tally.sum(axis=0)
    for name in (
        "decision:fast_food",
        "fast_food:eat_first",
        "decision:rebound",
        "rebound:made",
        "energy:bp",
        "sensing:seen",
    ):
        assert tally[TALLY_NAMES.index(name)] > 0, name
