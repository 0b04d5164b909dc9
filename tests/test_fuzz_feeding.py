"""Fuzzing the feeding genes of the extra genes (XG-02 Glutton, XG-04 Cleanliness, XG-12 Suction 1,
XG-19 Toxic Excretions, XG-26 Suction 2): random games with the extra genes on, every invariant
checked after every phase, in the default readings and with every feeding flag flipped. The
random strategy buys the genes as the market reveals them, so each one's meals, moves and tokens
happen many times; the rich economy lets random players hold several at once (Glutton with
Frugality and Parasitism, Suction with Substitution, Cleanliness with Toxic Excretions)."""

import numpy as np
import pytest

from sim.ursuppe.engine import batch as B
from sim.ursuppe.engine import tally
from sim.ursuppe.engine.genes import cleanliness, glutton, suction_1, toxic_excretions
from sim.ursuppe.rules.book import load_rules
from tests.fuzzing import fail_on_error

# The slow tier (README: pytest -m "not slow" is the fast one); CI runs both.
pytestmark = pytest.mark.slow

FLAGS = {
    "defaults": {"extra_genes": True},
    "other readings": {
        "extra_genes": True,
        "suction2_same_space": False,
        "cleanliness_covers_attack_cubes": True,
        "toxic_pickup_on_speed_intermediate": False,
        "toxic_pickup_by_placement": True,
        "toxic_zero_cube_excretion": True,
        "toxic_includes_attack_cubes": True,
        "toxic_token_follows_cubes": False,
        "gene_meals_optional": True,
        "attack_only_when_starving": True,
    },
}
FEEDING_TALLIES = (
    glutton.GLUTTON_MEAL,
    suction_1.SUCTION_MEAL,
    cleanliness.CLEANLINESS_MOVED,
    toxic_excretions.TOXIC_TOKEN,
    toxic_excretions.TOXIC_PICKUP,
)


@pytest.mark.parametrize("players", [3, 4, 6])
@pytest.mark.parametrize("flags", list(FLAGS), ids=list(FLAGS))
def test_random_games_with_the_feeding_genes_keep_every_invariant(params, players, flags):
    rich = {"economy": {"income": 30}, "components": {"start_bp": 20}, "flags": FLAGS[flags]}
    ru = load_rules(overrides=rich).for_players(players)
    games = 600
    b = B.new_batch(ru, params, np.zeros(players), 1414, np.arange(games), check_invariants=True)
    B.play(b, threads=2)
    fail_on_error(b)
    assert b.state.finished.all()
    totals = b.workspace.tally.sum(axis=0)
    never = [tally.TALLY_NAMES[i] for i in FEEDING_TALLIES if totals[i] == 0]
    assert not never, f"never happened in {games} random games: {never}"
    assert (b.state.toxic >= 0).all()
