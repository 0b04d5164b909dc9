"""Chromosome's components and the data of its rules file (spec §1, §2, §9): the counts the
default rules give, the tile table, the pictures of the layouts, the event deck left unused by
default, and what a batch decides and records outside the players' decisions (S3, S4, E6)."""

import re
from pathlib import Path

import numpy as np
import pytest

from sim.chromosome.engine import batch
from sim.chromosome.engine.event_deck import deal_deck
from sim.chromosome.engine.state import allocate_state, by_reference, rules_for, seed_state
from sim.chromosome.rules.book import COLOURS, SPECIES, default_data, load_rules
from strategies.chromosome.presets import PRESETS

SPEC = Path(__file__).resolve().parent.parent / "docs" / "chromosome-rules.md"


def test_C1_twenty_room_tiles_each_with_a_number_a_sterility_and_marks():
    tiles = {int(t): v for t, v in default_data()["tiles"].items()}
    assert sorted(tiles) == list(range(1, 21))
    assert all(v["sterility"] in (1, 2, 3) for v in tiles.values())
    assert all(
        isinstance(v.get("start", False), bool) and isinstance(v.get("red", False), bool)
        for v in tiles.values()
    )
    for players in (2, 3, 4):  # a layout's rooms are tiles of the table, each used once
        board = load_rules().board(players)
        assert len(set(board.tile.tolist())) == len(board.tile) and set(board.tile.tolist()) <= set(tiles)
        assert [int(s) for s in board.sterility] == [tiles[int(t)]["sterility"] for t in board.tile]


def test_C2_C3_C6_C7_C9_component_counts():
    data = load_rules().data
    components = data["components"]
    assert components["tokens_per_species"] == 12  # C2: 48 tokens in all
    assert len(SPECIES) == 4 and 4 * components["tokens_per_species"] == 48  # C3: 4 species boards
    assert components["irradiation_max"] == 7 and components["max_genes"] == 8  # C3: track 0-7, 8 genes
    assert components["radiation_cubes"] == 10  # C6
    assert components["gene_cubes_per_colour"] * len(COLOURS) == 64  # C7
    assert data["flags"]["die_sides"] == 4  # C9
    assert all(len(data["species"][s]["actions"]) == 4 for s in SPECIES)  # C3: 4 special actions each


def test_C4_auxiliary_board_supplies_costs_die_values_and_clock():
    data = load_rules().data
    assert data["costs"]["evolution_energy"] == {"R": 2, "B": 1}  # G1 (Y and P: held + 1)
    assert data["die"]["fate_values"][:4] == ["Y", "P", "R", "B"]  # D2 PLACEHOLDER
    assert data["rounds"] == {"2": 6, "3": 5, "4": 4}  # S2: the round clock
    ru = rules_for(load_rules(), 2)
    assert list(ru.fate_values) == [COLOURS.index(c) for c in "YPRB"]


def test_C5_V1_the_event_deck_is_data_not_used_by_default():
    rules = load_rules()
    deck = rules.data["events"]["deck"]
    assert len(deck) == 12 and all(card["name"] and card["kind"] for card in deck)  # C5
    assert rules.flags["events"] is False  # V1: WARIANT BEZ WYDARZEŃ
    assert "events.deck" not in rules.placeholders(2)  # a default game does not read the deck


def _pictures() -> dict[int, dict[int, tuple[int, bool]]]:
    """§9's pictures: for each layout, tile -> (the column its number ends at, drawn as a start)."""
    section = SPEC.read_text(encoding="utf-8").split("## 9.")[1].split("## 10.")[0]
    out = {}
    for players, picture in zip((2, 3, 4), re.findall(r"```\n(.*?)```", section, re.DOTALL), strict=True):
        tiles = {}
        for line in picture.splitlines():
            row = re.match(r"r=([+-]\d)", line)
            for m in re.finditer(r"(\d+)(\*?)", line[row.end() :]):
                tiles[int(m.group(1))] = (int(row.group(1)), row.end() + m.end(1), m.group(2) == "*")
        out[players] = tiles
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_L2_the_pictures_are_the_layouts(players):
    """L2: pointy-top hexes, one row per r: a room at (q, r) is drawn in row r, 3 columns per
    step of 2q + r; a start room is starred."""
    drawn = _pictures()[players]
    data = default_data()
    rooms = {t: (q, r) for t, q, r in data["layouts"][str(players)]["rooms"]}
    assert set(drawn) == set(rooms)
    offsets = set()
    for t, (q, r) in rooms.items():
        row, column, star = drawn[t]
        assert row == r
        offsets.add(column - 3 * (2 * q + r))
        assert star == data["tiles"][str(t)].get("start", False)
    assert len(offsets) == 1


def _batch(players: int, games: int, species=None):
    ru = rules_for(load_rules(), players)
    strategies = np.zeros((games, players), np.int16)
    b = batch.new_batch(ru, np.array([PRESETS["builder"]]), strategies, 7, np.arange(games), species=species)
    return batch.play(b)


def test_S4_the_batch_draws_distinct_species_or_keeps_the_given_ones():
    drawn = _batch(3, 40).state.species
    assert all(len(set(row.tolist())) == 3 for row in drawn)
    assert len({tuple(row.tolist()) for row in drawn}) > 1  # a draw, not a fixed seating
    fixed = np.tile(np.array([3, 0, 2], np.int8), (4, 1))
    assert (_batch(3, 4, species=fixed).state.species == fixed).all()


def test_S3_with_events_each_game_deals_the_deck_shuffled():
    """S3 (flag events): the batch shuffles the 12 cards face down for every game."""
    ru = rules_for(load_rules(overrides={"flags": {"events": True}}), 3)
    st = allocate_state(40, ru)
    seed_state(st, 7, np.arange(40))
    cs, cr = by_reference(st, ru)
    for g in range(40):
        deal_deck(cs, cr, g)
    assert (st.deck_len == 12).all() and (st.deck_pos == 0).all()
    assert all(sorted(row[:12].tolist()) == list(range(12)) for row in st.deck)
    assert len({tuple(row[:12].tolist()) for row in st.deck}) > 1  # shuffled, not dealt in order


def test_E6_outcomes_record_each_players_species_score_parts_and_result():
    b = _batch(2, 20)
    out = batch.outcomes(b)
    assert (b.workspace.error[:, 0] == 0).all()
    assert (out["species"] == np.array(SPECIES)[b.state.species]).all()
    parts = out["tokens"] + out["trophies"] + 2 * out["fate"] - out["irradiation"]
    assert (out["score"] == parts).all()  # E4's components add up to the score
    assert ((out["rounds"] >= 1) & (out["rounds"] <= 6)).all()
    assert not (out["won"] & out["eliminated"]).any()
    assert (out["won"].any(axis=1) | out["eliminated"].all(axis=1)).all()  # E5: somebody wins
