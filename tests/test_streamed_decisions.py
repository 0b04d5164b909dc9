"""Streamed decisions (decisions.streamable; issue 24): a decision whose strategy takes the first
best option may be taken from its options streamed through the strategy's values instead of
listed (Tentacle's cube vectors). The games must be the very same games as with every option
listed: the outcomes, the draws (the random streams' counters) and the decisions counted."""

import numpy as np
import pytest

from sim.ursuppe.engine import batch as B
from sim.ursuppe.rules.book import load_rules
from sim.ursuppe.simulation import DEFAULT_POOL
from strategies.ursuppe.params import load_strategy, parameter_table
from tests.conftest import outcome_digest

# The default mix (deterministic strategies, most breaking ties by a draw) and the random one,
# which never streams; Tentacle's carry weights from forager (carry_need) and the defaults.
POOL = [*DEFAULT_POOL, "random"]


def _play(players: int, extra: bool, stream: bool) -> B.Batch:
    book = load_rules(overrides={"flags": {"extra_genes": True}}) if extra else load_rules()
    params = parameter_table([load_strategy(name) for name in POOL])
    games = 400
    seats = np.arange(games * players).reshape(games, players) % len(POOL)
    b = B.new_batch(book.for_players(players), params, seats, 5, np.arange(games), stream_decisions=stream)
    B.play(b, seating="rotate")
    assert B.first_error(b) is None
    return b


@pytest.mark.parametrize(("players", "extra"), [(3, False), (4, False), (6, False), (5, True)])
def test_streamed_decisions_play_the_listed_games(players: int, extra: bool) -> None:
    listed = _play(players, extra, False)
    streamed = _play(players, extra, True)
    assert np.array_equal(outcome_digest(listed.state), outcome_digest(streamed.state))
    assert np.array_equal(listed.state.rng_ctr, streamed.state.rng_ctr)
    assert np.array_equal(listed.workspace.tally.sum(axis=0), streamed.workspace.tally.sum(axis=0))
