"""Ursuppe's decision points and forks (issue 33; docs/decisions.md "Decision points").

The conformance suite (tests/test_conformance.py) checks every game's protocol; these tests check
what only Ursuppe hides: the environment deck's unrevealed order (V2, S4) and the option lists of
listed decisions."""

import numpy as np
import pytest

from sim import game as games
from sim.ursuppe.engine import batch as B
from sim.ursuppe.engine.state import ERR_DECISION_POINT


@pytest.fixture(scope="module")
def ursuppe():
    return games.get("ursuppe")


def _replay(g, seats=(0,), strategies="breeder,greedy,breeder,predator", game=5):
    run = g.new_run(g.load_rules(), 4, 11, strategies=strategies)
    return g.replay(run, game, seats=list(seats))


def _walk_to(replay, stops: int):
    """The tape (first options) up to seat 0's decision number ``stops``, and that decision."""
    tape = []
    for _ in range(stops):
        point = replay.point(tape)
        tape.append(point.choice(len(point.options) - 1))
    return tape, replay.point(tape)


def _deck_pos_at(replay, tape) -> int:
    b = replay._play([tape], stop=True, forks=None)
    assert b.workspace.error[0, 0] == ERR_DECISION_POINT
    return int(b.state.deck_pos[0])


def test_V2_a_fork_keeps_the_revealed_cards_and_deals_the_rest_again(ursuppe):
    """V2/S4 under a fork (issue 33): the cards revealed before the decision keep their places in
    every fork; the unrevealed ones are the same cards, dealt in other orders."""
    replay = _replay(ursuppe)
    tape, point = _walk_to(replay, 30)
    pos = _deck_pos_at(replay, tape)
    cut = [*tape, point.choice(0)]
    original = replay._play([cut], stop=False, forks=None).state
    forks = replay._play([cut] * 12, stop=False, forks=list(range(1, 13))).state
    assert pos + 2 < int(original.n_cards[0]), "too late in the game to see a deal"
    for g in range(12):
        assert np.array_equal(forks.card_index[g, : pos + 1], original.card_index[0, : pos + 1])
        assert sorted(forks.card_index[g, pos + 1 :]) == sorted(original.card_index[0, pos + 1 :])
    tails = {tuple(forks.card_index[g, pos + 1 :]) for g in range(12)}
    assert len(tails) > 1


def test_V2_no_peeking_a_fork_does_not_depend_on_the_true_hidden_future(ursuppe):
    """Issue 33, no peeking: the true order of the cards not yet revealed at the decision is
    changed; the unforked game changes with it, every fork's outcome stays the same."""
    replay = _replay(ursuppe)
    tape, point = _walk_to(replay, 30)
    pos = _deck_pos_at(replay, tape)
    cut = [*tape, point.choice(0)]
    forks = list(range(7, 19))

    def play(permute: bool, with_forks: bool) -> np.ndarray:
        b = replay.batch([cut] * len(forks), stop=False, forks=forks if with_forks else None)
        B.setup(b, seating=replay.run.seating)
        if permute:  # the true future: the unrevealed cards in reverse order
            st = b.state
            for a in (st.card_index, st.card_ozone, st.card_drift):
                a[:, pos + 1 : st.n_cards[0]] = a[:, pos + 1 : st.n_cards[0]][:, ::-1].copy()
        B.play_rounds(b)
        assert B.first_error(b) is None
        return b.state.score.copy()

    assert np.array_equal(play(False, True), play(True, True))
    assert not np.array_equal(play(False, False), play(True, False))


def test_decision_point_options_are_the_listed_legal_options(ursuppe):
    """A decision point lists what the engine lists for a forced choice: every option it names is
    accepted (no error), and a row it does not name is refused as illegal."""
    replay = _replay(ursuppe)
    tape, point = _walk_to(replay, 10)
    for i in range(len(point.options)):
        assert replay.point([*tape, point.choice(i)]) is not None
    bogus = games.Choice(point.kind, tuple([99] * point.options.shape[1]))
    with pytest.raises(B.GameError, match="forbid"):
        replay.point([*tape, bogus])
