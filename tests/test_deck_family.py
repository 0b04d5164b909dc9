"""V5-V6: the known card in the default deck, the plausible decks' family
(sim/ursuppe/experiments/deck_family.py) and its bounds in the rules file ([environment.family])."""

from collections import Counter
from pathlib import Path

import pytest

from sim.ursuppe.experiments.deck_family import (
    DIRECTIONS,
    deck_blocks,
    deck_label,
    deck_overrides,
    family_violation,
    plausible_decks,
)
from sim.ursuppe.rules.book import RuleBook, RulesError, load_rules


@pytest.fixture(scope="module")
def book() -> RuleBook:
    return load_rules()


def _check_member(book: RuleBook, deck: tuple) -> None:
    """V6 spelled out: 11 cards, (6,W) among them; the other 10 ozone 6..16, one without drift,
    each direction on at least 2 of the 10 drifting cards (the (6,W) card counted)."""
    assert len(deck) == 11
    rest = list(deck)
    rest.remove((6, "W"))
    assert all(6 <= ozone <= 16 for ozone, _ in rest)
    assert sum(drift == "none" for _, drift in rest) == 1
    drifts = Counter(drift for _, drift in deck if drift != "none")
    assert sum(drifts.values()) == 10
    assert all(drifts[d] >= 2 for d in DIRECTIONS), drifts


def test_V5_default_deck_holds_the_known_card_and_is_a_family_member(book: RuleBook) -> None:
    deck = tuple((c["ozone"], c["drift"]) for c in book.data["environment"]["deck"])
    assert deck[0] == (6, "W") and (6, "N") not in deck
    _check_member(book, deck)
    assert family_violation(book, deck) is None


@pytest.mark.parametrize("seed", range(40))
def test_V6_every_drawn_deck_is_in_the_family_and_distinct(book: RuleBook, seed: int) -> None:
    decks = plausible_decks(book, 8, seed)
    assert len(decks) == 8
    assert decks[0] == tuple((c["ozone"], c["drift"]) for c in book.data["environment"]["deck"])
    for deck in decks:
        _check_member(book, deck)
        assert family_violation(book, deck) is None
        assert all(isinstance(o, int) and d in (*DIRECTIONS, "none") for o, d in deck)
    assert len({tuple(sorted(d)) for d in decks}) == 8  # distinct as multisets of cards


def test_V6_draws_are_deterministic_and_depend_only_on_the_seed(book: RuleBook) -> None:
    assert plausible_decks(book, 6, 7) == plausible_decks(book, 6, 7)
    assert plausible_decks(book, 6, 7) != plausible_decks(book, 6, 8)
    # The first decks do not depend on how many are asked for; nor on a house rule that changes no deck.
    assert plausible_decks(book, 3, 7) == plausible_decks(book, 6, 7)[:3]
    assert plausible_decks(load_rules(overrides={"economy": {"division_cost": 5}}), 6, 7) == plausible_decks(
        book, 6, 7
    )
    assert plausible_decks(book, 1, 7) == plausible_decks(book, 1, 99)  # deck 0 only: the rules' own


def test_V6_draws_cover_the_family(book: RuleBook) -> None:
    """Over many draws every ozone value 6..16 and every direction count the bounds allow occur:
    the draw is not stuck on a corner of the family."""
    decks = plausible_decks(book, 400, 3)[1:]
    ozones = {o for deck in decks for o, _ in deck[1:]}
    assert ozones == set(range(6, 17))
    # 9 drawn directions, E and S at least 2, W at least 1 beside (6,W): N on 2, 3 or 4 cards
    n_counts = Counter(sum(d == "N" for _, d in deck) for deck in decks)
    assert set(n_counts) == {2, 3, 4}


def test_V6_the_rules_deck_must_be_a_member(tmp_path: Path) -> None:
    path = tmp_path / "short.toml"
    path.write_text('[environment]\ndeck = [{ ozone = 6, drift = "W" }, { ozone = 9, drift = "none" }]\n')
    short = load_rules(path)
    with pytest.raises(RulesError) as err:
        plausible_decks(short, 1, 1)  # deck 0 is checked too, whatever k
    message = str(err.value)
    assert "\n" not in message and message.startswith("short.toml: environment.deck: expected a member")
    assert "2 cards, the family has 11" in message
    north = load_rules(overrides={"environment": {"deck": [{"ozone": 6, "drift": "N"}] + _default_rest()}})
    with pytest.raises(RulesError, match="the fixed card 6W is missing"):
        plausible_decks(north, 2, 1)


def _default_rest() -> list[dict]:
    return load_rules().data["environment"]["deck"][1:]


def test_V6_a_family_with_too_few_decks_is_an_error() -> None:
    """Ozone 6..6 and every drawn direction forced: the family has one member, the rules' deck."""
    deck = [{"ozone": 6, "drift": d} for d in ("W", "N", "N", "E", "E", "S", "S", "W", "none")]
    tiny = load_rules(
        overrides={
            "environment": {
                "deck": deck,
                "family": {"cards": 9, "ozone_low": 6, "ozone_high": 6, "min_per_direction": 2},
            }
        }
    )
    assert plausible_decks(tiny, 1, 1)[0] == tuple((6, c["drift"]) for c in deck)
    with pytest.raises(RulesError, match="environment.family: expected bounds that admit 2 distinct decks"):
        plausible_decks(tiny, 2, 1)


@pytest.mark.parametrize(
    ("family", "expected"),
    [
        ({"ozone_high": 5}, "environment.family.ozone_high: expected an integer in 6..32767, got 5"),
        ({"without_drift": 11}, "environment.family.without_drift: expected an integer in 0..10, got 11"),
        ({"min_per_direction": 3}, "environment.family.min_per_direction: expected a bound the drawn cards"),
        ({"fixed": [{"ozone": 6, "drift": "X"}]}, "environment.family.fixed[0].drift: expected one of: N, E"),
        ({"cards": 1}, "environment.family.cards: expected an integer in 2..60, got 1"),
        ({"cardz": 11}, "environment.family.cardz: unknown key (expected one of: placeholder, cards, fixed"),
        (
            {"placeholder": "yes"},
            'environment.family.placeholder: expected a boolean (true or false), got "yes"',
        ),
    ],
)
def test_V6_bad_family_bounds_are_one_line_errors(tmp_path: Path, family: dict, expected: str) -> None:
    lines = "\n".join(f"{k} = {_toml(v)}" for k, v in family.items())
    path = tmp_path / "family.toml"
    path.write_text(f"[environment.family]\n{lines}\n")
    with pytest.raises(RulesError) as err:
        load_rules(path)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{path}: {expected}"), message


def _toml(value) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return (
            "["
            + ", ".join("{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in c.items()) + " }" for c in value)
            + "]"
        )
    return str(value)


def test_V6_family_is_a_placeholder_named_only_by_a_run_over_decks(book: RuleBook) -> None:
    assert "environment.family" not in book.placeholders(4)
    assert "environment.family" in book.placeholders(4, decks=3)
    known = load_rules(overrides={"environment": {"family": {"placeholder": False}}})
    assert "environment.family" not in known.placeholders(4, decks=3)


def test_deck_overrides_merge_with_a_house_rules_file(tmp_path: Path, book: RuleBook) -> None:
    """Arrays replace whole: the override's deck wins over the house rule's, every other key of
    the house rule stays; the rules' own deck as an override is the same rules (same id)."""
    house = tmp_path / "house.toml"
    house.write_text(
        "[economy]\ndivision_cost = 5\n[environment]\n"
        'deck = [{ ozone = 7, drift = "E" }, { ozone = 9, drift = "none" }]\n'
    )
    drawn = plausible_decks(book, 2, 5)[1]
    merged = load_rules(house, overrides=deck_overrides(drawn))
    assert tuple((c["ozone"], c["drift"]) for c in merged.data["environment"]["deck"]) == drawn
    assert merged.data["economy"]["division_cost"] == 5
    assert merged.data["environment"]["placeholder"] is True and merged.data["environment"]["family"]
    own = load_rules(house)
    again = load_rules(house, overrides=deck_overrides(plausible_decks(book, 1, 0)[0]))
    assert again.rules_id != own.rules_id  # the house deck replaced by the default one
    same = load_rules(overrides=deck_overrides(plausible_decks(book, 1, 0)[0]))
    assert same.rules_id == book.rules_id
    assert deck_overrides(((6, "W"), (9, "none"))) == {
        "environment": {"deck": [{"ozone": 6, "drift": "W"}, {"ozone": 9, "drift": "none"}]}
    }


def test_deck_label(book: RuleBook) -> None:
    assert deck_label(plausible_decks(book, 1, 0)[0]) == "6W 8E 9S 10W 10N 11- 12E 12S 13W 14N 16S"


@pytest.mark.parametrize(
    ("n", "k", "cycle"),
    [(100, 1, 24), (100, 3, 24), (24, 3, 24), (72, 3, 24), (5000, 7, 24), (61, 4, 6), (7, 7, 1), (30, 4, 10)],
)
def test_deck_blocks_cover_every_game_once_in_whole_cycles(n: int, k: int, cycle: int) -> None:
    blocks = deck_blocks(n, k, cycle)
    assert len(blocks) == k
    games = [g for first, count in blocks for g in range(first, first + count)]
    assert games == list(range(n))  # contiguous, in order, each game once
    assert all(count >= 1 for _, count in blocks)
    if n >= k * cycle:  # every block but the last whole cycles, starting on a cycle boundary
        assert all(count % cycle == 0 and first % cycle == 0 for first, count in blocks[:-1])
        assert blocks[-1][0] % cycle == 0 and blocks[-1][1] >= cycle
        sizes = [count // cycle for _, count in blocks]
        assert max(sizes) - min(sizes) <= 1
    if n % (k * cycle) == 0:
        assert {count for _, count in blocks} == {n // k}
    assert deck_blocks(n, 1, cycle) == [(0, n)]


def test_deck_blocks_bad_arguments() -> None:
    with pytest.raises(ValueError):
        deck_blocks(10, 0, 1)
    with pytest.raises(ValueError):
        deck_blocks(2, 3, 1)
