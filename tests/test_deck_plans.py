"""Deck plans as an arm provider of the paired stack (sim.experiments.decks; issue 35.1, V6):
the game draws the decks and says how its run plays one, the stack plays every arm over the same
decks and blocks and tables each deck's games."""

from pathlib import Path

import polars as pl

from sim.experiments.decks import DeckPlan
from sim.ursuppe.experiments.arms import ablated_rules
from sim.ursuppe.experiments.deck_family import deck_overrides, deck_plan
from sim.ursuppe.rules.book import load_rules
from sim.ursuppe.simulation import build_run


class _Plan(DeckPlan):
    """A game's plan that says what it was asked: a run on a deck, the runs joined."""

    def on_deck(self, run, deck):
        return f"{run}@{deck}"

    def joined(self, runs):
        return tuple(runs)


_PLAN = _Plan(["own", "d1", "d2"], [(0, 2), (2, 2), (4, 1)], "a family", ["own", "one", "two"])


def test_the_stack_plays_every_arm_over_the_same_decks() -> None:
    """V6: every arm's run is played over every deck of the plan, deck 0 as it is (the rules' own
    deck), by the experiment's own player with the arm's directory, games and label."""
    played = []
    play = _PLAN.player(lambda run, out, games, label: played.append((run, out, games, label)))
    play("A", Path("a"), 5, "rules A")
    play("B", Path("b"), 5, "rules B")
    assert played == [
        (("A", "A@d1", "A@d2"), Path("a"), 5, "rules A"),
        (("B", "B@d1", "B@d2"), Path("b"), 5, "rules B"),
    ]
    assert _PLAN.lines() == [
        "3 decks, every arm over the same ones: a family",
        "deck 0 (the rules' own deck): own; games 0..1",
        "deck 1: one; games 2..3",
        "deck 2: two; games 4..4",
    ]


def test_each_deck_tables_its_own_games_of_every_arm() -> None:
    """V6: the per-deck table is the paired table on each block's games of every arm, stacked
    with the deck and its label first."""
    a = pl.DataFrame({"game": [4, 0, 1, 2, 3], "x": [1, 2, 3, 4, 5]})
    b = pl.DataFrame({"game": [0, 1, 2, 3, 4], "x": [10, 20, 30, 40, 50]})
    table = _PLAN.tables(
        lambda a, b: pl.DataFrame({"games": [a.height], "diff": [b["x"].sum() - a["x"].sum()]}), [a, b]
    )
    assert table.to_dicts() == [
        {"deck": 0, "deck_label": "own", "games": 2, "diff": 25},
        {"deck": 1, "deck_label": "one", "games": 2, "diff": 61},
        {"deck": 2, "deck_label": "two", "games": 1, "diff": 49},
    ]


def test_an_ursuppe_run_on_another_deck_keeps_its_rules_and_seats(tmp_path) -> None:
    """V6, S5: Ursuppe's plan (Game.deck_plan) puts a deck into an arm's rules as the rules file
    loaded with the deck would be (house rules, removed genes kept), with the same strategies and
    seats; blocks of whole seating cycles."""
    house = tmp_path / "b.toml"
    house.write_text("[flags]\nholding_clings_to_own = true\n", encoding="utf-8")
    for book, again in (
        (load_rules(house), lambda deck: load_rules(house, overrides=deck_overrides(deck))),
        (
            ablated_rules(house, ["Speed"]),
            lambda deck: load_rules(
                house, overrides={"genes": {"Speed": {"copies": 0}}, **deck_overrides(deck)}
            ),
        ),
    ):
        plan = deck_plan(book, 2, 12, 3, "rotate", 4)
        assert plan.blocks == [(0, 6), (6, 6)] and plan.decks[0] != plan.decks[1]
        run = build_run(book, 3, 4, None, "greedy,breeder", "rotate")
        moved = plan.on_deck(run, plan.decks[1])
        expected = again(plan.decks[1])
        assert (moved.rulebook.rules_id, moved.rulebook.data) == (expected.rules_id, expected.data)
        assert moved.rulebook.rules_id != book.rules_id
        assert (moved.strategies, moved.seats, moved.pool, moved.seed) == (
            run.strategies,
            run.seats,
            run.pool,
            4,
        )
        joined = plan.over(run)
        assert joined.runs[0] is run and joined.runs[1].rulebook.rules_id == expected.rules_id
        assert joined.blocks == plan.blocks
