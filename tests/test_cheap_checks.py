"""The cheap checks (invariants.check_game_end): on in every run, not only in debug mode, they
catch an impossible final position, so that no such game is written as a result. Each test
breaks a game on purpose (a corrupted state, or rules that bypass validation) with the full
invariant set off (check_invariants=False) and expects ERR_INVARIANT naming the invariant of §11
(docs/rules.md) and the end check (phase 7)."""

import numpy as np
import pytest

from sim.ursuppe.engine import batch as B
from sim.ursuppe.engine.genes.division_rate import DIVISION_RATE
from sim.ursuppe.engine.genes.speed import SPEED
from sim.ursuppe.engine.invariants import PHASE_GAME_END
from sim.ursuppe.engine.state import ERR_INVARIANT, recount_gene_masks, recount_turn_orders
from sim.ursuppe.rules.book import load_rules
from strategies.ursuppe.params import load_strategy, parameter_table

PARAMS = parameter_table([load_strategy("random"), load_strategy("greedy")])
GAMES = 8
BAD = 5  # the game broken on purpose


def _batch(rules, games: int = GAMES) -> B.Batch:
    seats = np.arange(rules.players) % 2
    b = B.new_batch(rules, PARAMS, seats, 7, np.arange(games), check_invariants=False)
    assert not b.workspace.check_invariants
    return b


def _expect(b: B.Batch, invariant: int, games: list[int]) -> None:
    error = b.workspace.error
    assert np.flatnonzero(error[:, 0]).tolist() == games, error[:, 0]
    for g in games:
        assert error[g, :3].tolist() == [ERR_INVARIANT, invariant, PHASE_GAME_END], error[g]


def _supply(st, g):
    st.supply[g, 1] += 3


def _bp(st, g):
    st.bp[g, 0] = -1_000_000  # the income (D1) cannot bring it back above 0


def _pool(st, g):
    st.pool[g, DIVISION_RATE] += 1
    recount_gene_masks(st)  # the masks the engine derives from the pool and the genes, as broken


def _two_copies(st, g):
    st.genes[g, 2, SPEED] = 2
    st.pool[g, SPEED] -= 2
    recount_gene_masks(st)


def _score(st, g):
    st.score[g, 1] = -20000
    recount_turn_orders(st)  # the orders the engine derives from the scores, as broken


def _food_capped(st, g):
    st.food_capped[g, 3] += 1


@pytest.mark.parametrize(
    ("corrupt", "invariant"),
    [(_supply, 1), (_bp, 3), (_pool, 4), (_two_copies, 5), (_score, 6), (_food_capped, 10)],
    ids=["I1-cubes", "I3-bp", "I4-copies", "I5-one-copy", "I6-score", "I10-food-capped"],
)
@pytest.mark.parametrize("players", [3, 4])
def test_corrupted_state_is_caught_without_debug_invariants(corrupt, invariant: int, players: int) -> None:
    """I1, I3-I6, I10: a position broken after setup is caught at the end of its game (only that
    game), though check_invariants is off."""
    b = _batch(load_rules().for_players(players))
    B.setup(b)
    corrupt(b.state, BAD)
    B.play_rounds(b)
    _expect(b, invariant, [BAD])


def test_I3_bp_overflow_from_unvalidated_rules_is_caught() -> None:
    """I3/C4: BP at the top of its int32 overflows with the first income (D1); validation refuses
    such rules (test_rules_bounds), and the cheap checks catch them when validation is bypassed."""
    costs = ("division_cost", "division_cost_division_rate", "active_move_cost", "attack_cost")
    free = dict.fromkeys((*costs, "escape_cost", "defense_cost", "parasitism_victim_pays"), 0)
    rules = load_rules().for_players(4)  # nothing costs BP, so nobody spends below the top
    rules = rules._replace(start_bp=2**31 - 1, gene_price=rules.gene_price * 0, **free)
    b = _batch(rules)
    B.play(b)
    _expect(b, 3, list(range(GAMES)))


def test_I9_one_card_deck_from_unvalidated_rules_is_caught() -> None:
    """I9/V3: the 1-card deck that `soup simulate` once wrote as 200 one-round games: with
    first_round_flip the engine ends them after round 1, past rounds <= cards - 1."""
    rules = load_rules().for_players(3)
    rules = rules._replace(deck_ozone=rules.deck_ozone[:1].copy(), deck_drift=rules.deck_drift[:1].copy())
    b = _batch(rules)
    B.play(b)
    _expect(b, 9, list(range(GAMES)))
    assert (b.state.round == 1).all()


@pytest.mark.parametrize("players", [3, 4])
def test_sound_games_pass_the_cheap_checks(players: int) -> None:
    """The cheap checks raise no false alarm: 300 games of the default rules end without error,
    with the debug invariants off and on (the same games)."""
    rules = load_rules().for_players(players)
    plain = _batch(rules, 300)
    B.play(plain)
    assert B.first_error(plain) is None
    seats = np.arange(players) % 2
    checked = B.new_batch(rules, PARAMS, seats, 7, np.arange(300), check_invariants=True)
    B.play(checked)
    assert B.first_error(checked) is None
    assert (checked.state.score == plain.state.score).all()
