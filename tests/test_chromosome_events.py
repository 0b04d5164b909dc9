"""Chromosome's event deck (spec §8, V1-V7; flag events; engine/event_deck.py): random games with
the deck finish with the invariants after every step, reveal one card a round from round 2, play
every kind of card, are the same on 1 and 2 threads, and seat and draw species as games without
events do. The cards' rules, one by one, are scenario files (tests/scenarios/chromosome/V*.json)."""

import numpy as np
import pytest

from sim.chromosome.engine import batch
from sim.chromosome.engine.state import EVENT_CARD_KINDS, rules_for
from sim.chromosome.rules.book import EVENT_KINDS, load_rules
from strategies.chromosome.presets import PRESETS


def _games(players, games, events=True, threads=1, log=False, seed=5):
    ru = rules_for(load_rules(overrides={"flags": {"events": events}}), players)
    params = np.array([PRESETS["random"], PRESETS["builder"], PRESETS["aggressive"], PRESETS["cautious"]])
    strategies = (np.arange(games * players).reshape(games, players) % 4).astype(np.int16)
    b = batch.new_batch(ru, params, strategies, seed, np.arange(games), check_invariants=True, log_events=log)
    return batch.play(b, threads)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_V2_V7_games_with_events_finish_with_the_invariants_and_one_card_a_round(players):
    b = _games(players, 200, log=True)
    st, work = b.state, b.workspace
    assert (work.error[:, 0] == 0).all() and st.finished.all()
    # V2: a card at every Phase I from round 2 (at most R(P) - 1 cards)
    assert (st.deck_pos == st.round - 1).all()
    assert (st.deck_pos <= b.rules.rounds - 1).all()
    # the deck is dealt as a shuffle: each game's order is a permutation, and orders differ
    E = len(b.rules.card_kind)
    assert all(sorted(st.deck[g]) == list(range(E)) for g in range(len(st.deck)))
    assert len({tuple(row) for row in st.deck}) > 150
    # every kind of card is played in some game (the log's card events)
    played = set()
    for g in range(len(st.deck)):
        ev = work.events[g, : work.n_events[g]]
        played |= {int(k) for k in ev[ev[:, 0] == _CARD, 4]}
    assert played == set(range(len(EVENT_CARD_KINDS)))


_CARD = __import__("sim.chromosome.engine.events", fromlist=["EV_CARD"]).EV_CARD


def test_V2_the_deck_is_dealt_after_the_species_so_seats_and_species_are_unchanged():
    on, off = _games(3, 64), _games(3, 64, events=False)
    assert np.array_equal(on.state.species, off.state.species)
    assert not np.array_equal(on.state.owner, off.state.owner)  # the cards changed the games


def test_events_games_are_the_same_on_1_and_2_threads():
    one, two = _games(4, 64, threads=1), _games(4, 64, threads=2)
    for name in ("owner", "size", "fate", "irradiation", "removed", "deck", "deck_pos", "eliminated"):
        assert np.array_equal(getattr(one.state, name), getattr(two.state, name)), name


def test_V2_every_row_holds_its_games_revealed_cards_in_order(monkeypatch):
    """The result rows' event_order (sim.chromosome.game): on each player's row of a game the same
    cards, one for every round from round 2, each card of the deck at most once, in the order the
    engine revealed them (its event log's card events, played alongside)."""
    from sim import game as games
    from sim.chromosome.engine import batch
    from sim.chromosome.engine.events import EV_CARD

    played = []
    new_batch = batch.new_batch

    def logged(*args, **kwargs):  # the run's own batch, with its events logged
        played.append(new_batch(*args, **{**kwargs, "log_events": True}))
        return played[-1]

    monkeypatch.setattr(batch, "new_batch", logged)
    rules = load_rules(overrides={"flags": {"events": True}})
    deck = len(rules.data["events"]["deck"])
    rows = games.get("chromosome").new_run(rules, 3, 5).play_chunk(0, 40, 1).to_pydict()
    work = played[0].workspace
    orders = {}
    for game, rounds, order in zip(rows["game"], rows["rounds"], rows["event_order"], strict=True):
        assert len(order) == rounds - 1 and len(set(order)) == len(order) <= deck
        assert set(order) <= set(range(deck))
        assert orders.setdefault(game, order) == order  # every player's row alike
        events = work.events[game, : work.n_events[game]]
        assert order == events[events[:, 0] == EV_CARD, 3].tolist()  # as revealed
    assert len(orders) == 40 and len({tuple(o) for o in orders.values()}) > 30


def test_V6_the_default_deck_is_the_specs_placeholder_list():
    deck = load_rules().data["events"]["deck"]
    shown = [(c["kind"], c.get("tile"), c.get("n"), c.get("cubes")) for c in deck]
    assert shown == [
        ("remove_room", 8, None, None),
        ("remove_room", 12, None, None),
        ("remove_room", 15, None, None),
        ("remove_room", 19, None, None),
        ("irradiate_all", None, 1, None),
        ("place_area", 17, None, 2),
        ("decay_all", None, 1, None),
        ("discharge_all", None, None, None),
        ("fate_all", None, 1, None),
        ("round_no_attacks", None, None, None),
        ("round_sterility_plus1", None, None, None),
        ("round_trophy_energy", None, 1, None),
    ]
    assert tuple(EVENT_KINDS) == EVENT_CARD_KINDS  # the engine plays every kind the rules accept


def test_V5_the_placeholders_of_an_events_run_name_the_deck():
    book = load_rules(overrides={"flags": {"events": True}})
    assert {"events.deck", "events.removed_room_tokens"} <= set(book.placeholders(3))
    assert "events.deck" not in load_rules().placeholders(3)
