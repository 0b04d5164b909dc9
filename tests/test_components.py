"""Components and limits (§1, C1-C5), the deck (V1) and when genes act (G5)."""

import numpy as np

from sim.ursuppe.engine import batch as B
from sim.ursuppe.tools.scenario import load_scenario, run_scenario


def test_C1_V1_board_and_deck_data(rulebook):
    """C1: 19 spaces, 26 orthogonal edges; V1/C5: 11 environment cards, exactly one without drift."""
    ru = rulebook.for_players(4)
    assert ru.n_spaces == 19
    assert (ru.neighbours >= 0).sum() == 2 * 26
    assert len(ru.deck_ozone) == 11 and (ru.deck_drift == 4).sum() == 1


def test_C2_C4_C5_limits_hold_over_many_games(rulebook, params):
    """C2: at most 7 amoebas per colour, removed ones placed again; C4: BP are never short of
    the bank; C5: gene copies limited by the pool (I4 is checked after every phase)."""
    ru = rulebook.for_players(4)
    b = B.new_batch(ru, params, np.array([1, 1, 1, 1]), 3, np.arange(300), check_invariants=True)
    B.play(b)
    assert B.first_error(b) is None
    st = b.state
    assert ((st.space >= 0).sum(axis=2) <= 7).all()
    assert st.bp.max() >= 0 and (st.pool >= 0).all()


def test_G5_division_rate_bought_in_phase3_acts_in_phase4():
    """G5: a gene acts at once: Division Rate bought in Phase 3 makes Phase 4's amoebas cost 4."""
    sc = load_scenario(
        {
            "players": 3,
            "round": 2,
            "state": [
                {"score": 3, "bp": 6, "amoebas": [{"number": 1, "space": 7}]},
                {"score": 1, "bp": 0},
                {"score": 2, "bp": 0},
            ],
            "choices": [
                {"buy": ["Division Rate"]},
                {"place": {"space": 2, "number": 2}},
                {"place": {"space": 6, "number": 3}},
                {"divide": "stop"},
            ],
            "run": "phase3",
        }
    )
    run_scenario(sc)
    B.advance_phase(sc.batch, 4)
    st = sc.batch.state
    assert st.space[0, 0, 1] == 2 and st.space[0, 0, 2] == 6
    assert st.bp[0, 0] == 6 - 6 + 10 - 4 - 4  # price 6, income 10, two amoebas at 4
