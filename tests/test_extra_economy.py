"""Issue 14, the economy genes (XG-08, XG-10, XG-14, XG-15, XG-20, XG-25): random games with the
extra genes on, every invariant checked after every phase, under the default readings and all
the other readings of their flags; the random strategy reaches each of their decisions and
outcomes. (Their rules are checked one by one by the XG-* scenarios.)"""

import numpy as np
import pytest

from sim.ursuppe.engine import batch as B
from sim.ursuppe.engine.tally import TALLY_NAMES
from sim.ursuppe.rules.book import load_rules
from tests.fuzzing import fail_on_error

OTHER_READINGS = {
    "ha_exchanges_per_round": "once",
    "ha_into_advanced": "with_lower_given_up",
    "social_gene_timing": "at_owner_turn_before_advance",
    "social_gene_steal_payment_to": "nobody",
    "flexible_on_social_steal": False,
    "flexible_on_exchange": True,
    "healing1_limit": "once_per_amoeba",
    "pop_explosion_mode": "add_leader_count",
    "pop_explosion_each_round": False,
    "healing2_phase": "phase5_before_deaths",
    "healing2_includes_healing1": True,
    "healing2_target_any_colour": False,
}
FLAG_SETS = {
    "defaults": {},
    "other readings": OTHER_READINGS,
    "after advance": {"social_gene_timing": "at_owner_turn_after_advance"},
}
ECONOMY = (
    "decision:exchange",
    "decision:heal",
    "decision:place_explosion",
    "exchange:made",
    "social:income",
    "social:taken",
    "flexible:discount",
    "healing:dp_removed",
    "healing2:dp_given",
    "explosion:placed",
)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("flags", list(FLAG_SETS), ids=list(FLAG_SETS))
def test_economy_genes_keep_every_invariant(params, players, flags):
    book = load_rules(
        overrides={
            # rich players and every extra card out early: many genes held at once
            "flags": {"extra_genes": True, "extra_reveal_per_round": 8, **FLAG_SETS[flags]},
            "economy": {"income": 30},
            "components": {"start_bp": 20},
        }
    )
    ru = book.for_players(players)
    b = B.new_batch(ru, params, np.zeros(players), 14, np.arange(300), check_invariants=True)
    B.play(b, threads=2)
    fail_on_error(b)
    assert b.state.finished.all()
    totals = b.workspace.tally.sum(axis=0)
    never = [name for name in ECONOMY if totals[TALLY_NAMES.index(name)] == 0]
    assert not never, f"never happened in 300 random games: {never}"
