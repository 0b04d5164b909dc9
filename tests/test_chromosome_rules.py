"""Chromosome's rules file and board (spec §1, §7-§10, §14, §15): the default layouts are the
spec's pictures (L6-L8), a layout is checked by L3, and every bad value is one line naming the
file and the key."""

import numpy as np
import pytest

from sim.chromosome.rules.board import UNREACHABLE, connected
from sim.chromosome.rules.book import EFFECT_KINDS, FLAGS, RulesError, default_data, load_rules

# The spec's neighbour lists (L6-L8), copied: the tests never read ../shared.
NEIGHBOURS = {
    2: "1:5,7 2:6,8 5:1,7,9,17,18 6:2,8,10,17,19 7:1,5,10,11,17 8:2,6,9,12,17 9:5,8,12,14,17,18 "
    "10:6,7,11,15,17,19 11:7,10,15 12:8,9,14 14:9,12,18 15:10,11,19 17:5,6,7,8,9,10 18:5,9,14 19:6,10,15",
    3: "1:5,8,13 2:7,9,12 3:6,10,11 5:1,8,13,14,16,17 6:3,10,11,15,16,17 7:2,9,12,14,15,17 8:1,5,14,18 "
    "9:2,7,15,19 10:3,6,16,20 11:3,6,15,19 12:2,7,14,18 13:1,5,16,20 14:5,7,8,12,17,18 "
    "15:6,7,9,11,17,19 16:5,6,10,13,17,20 17:5,6,7,14,15,16 18:8,12,14 19:9,11,15 20:10,13,16",
    4: "1:9,11,15 2:5,7,17,19 3:10,12,16 4:6,8,18,20 5:2,7,9,14,15,17 6:4,8,10,14,16,18 7:2,5,12,14,16,19 "
    "8:4,6,11,14,15,20 9:1,5,15,17 10:3,6,16,18 11:1,8,15,20 12:3,7,16,19 14:5,6,7,8,15,16 "
    "15:1,5,8,9,11,14 16:3,6,7,10,12,14 17:2,5,9 18:4,6,10 19:2,7,12 20:4,8,11",
}
EDGES = {2: 30, 3: 42, 4: 42}


def _neighbours(board) -> dict[int, list[int]]:
    return {
        int(board.tile[i]): sorted(int(board.tile[j]) for j in board.neighbours[i, : board.degree[i]])
        for i in range(board.rooms)
    }


@pytest.mark.parametrize("players", [2, 3, 4])
def test_L1_L6_L7_L8_default_layouts_are_the_specs_pictures(players):
    board = load_rules().board(players)
    spec = {
        int(t): sorted(int(x) for x in ns.split(","))
        for t, ns in (item.split(":") for item in NEIGHBOURS[players].split())
    }
    assert _neighbours(board) == spec
    assert len(board.edges()) == EDGES[players]


def test_L4_start_distances():
    rules = load_rules()

    def d(players, a, b):
        board = rules.board(players)
        return int(board.distance[board.room_of(a), board.room_of(b)])

    assert d(2, 1, 2) == 4  # L6
    assert d(3, 1, 2) == d(3, 2, 3) == d(3, 3, 1) == 4  # L7
    assert d(4, 1, 2) == d(4, 2, 3) == d(4, 3, 4) == d(4, 4, 1) == 3  # L8: around the board
    assert d(4, 1, 3) == d(4, 2, 4) == 4


@pytest.mark.parametrize("players, turns", [(2, 3), (3, 2), (4, 3)])  # 180° = 3 x 60°, 120° = 2 x 60°
def test_L5_tile_table_keeps_sterility_and_start_rooms_under_the_layouts_rotation(players, turns):
    data = default_data()
    rooms = {(q, r): t for t, q, r in data["layouts"][str(players)]["rooms"]}
    tiles = {int(k): v for k, v in data["tiles"].items()}
    for (q, r), t in rooms.items():
        x, y = q, r
        for _ in range(turns):
            x, y = -y, x + y  # 60° about the centre, in axial coordinates
        u = rooms[x, y]
        assert tiles[t]["sterility"] == tiles[u]["sterility"]
        assert tiles[t].get("start", False) == tiles[u].get("start", False)


def test_L4_removed_rooms_are_holes():
    board = load_rules().board(2)
    removed = board.tile == 17  # the centre
    assert connected(board.neighbours, board.degree, removed)
    removed = np.isin(board.tile, [5, 7])  # room 1's only neighbours
    assert not connected(board.neighbours, board.degree, removed)


def _bad(tmp_path, text: str) -> str:
    path = tmp_path / "house.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesError) as e:
        load_rules(path)
    message = str(e.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    return message


@pytest.mark.parametrize(
    ("rooms", "words"),
    [
        pytest.param(
            "[[1, 1, -2], [1, 0, 0], [5, 1, -1]]", "layouts.2.rooms[1]: tile 1 is listed twice", id="twice"
        ),
        pytest.param(
            "[[1, 0, 0], [5, 1, 0], [2, 5, 5], [6, 6, 5]]",
            "layouts.2.rooms: the rooms are not connected",
            id="apart",
        ),
        pytest.param("[[1, 0, 0], [5, 1, 0], [6, 2, 0]]", "1 start rooms for 2 players", id="few-starts"),
        pytest.param(
            "[[1, 0, 0], [17, 1, 0], [2, 2, 0], [5, 3, 0]]",
            "start room 1 has no sterility-1 neighbour",
            id="no-neighbour",
        ),
    ],
)
def test_L3_a_bad_layout_is_one_line(tmp_path, rooms, words):
    """L3: a tile listed twice, unconnected rooms, fewer start rooms than players, a start room
    without a sterility-1 neighbour."""
    assert words in _bad(tmp_path, f"[layouts.2]\nrooms = {rooms}\n")


def test_L1_a_custom_board_by_adjacency(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text("[layouts.2]\nrooms = [[1, 0, 0], [5, 0, 0], [2, 0, 0]]\nadjacency = [[1, 5], [5, 2]]\n")
    board = load_rules(path).board(2)
    assert board.edges() == [(1, 5), (2, 5)] and int(board.distance[0, 2]) == 2
    assert int(board.distance[0, 0]) == 0 and UNREACHABLE not in board.distance


def test_an_unknown_key_and_a_bad_flag_name_the_file_and_key(tmp_path):
    assert "unknown key 'flags.fate_mx'" in _bad(tmp_path, "[flags]\nfate_mx = 7\n")
    msg = _bad(tmp_path, '[flags]\nreroll_order = "anyone"\n')
    assert 'flags.reroll_order: (D3) expected one of "roller_first", "roller_last", got "anyone"' in msg
    assert "components.radiation_cubes (C6): expected an integer" in _bad(
        tmp_path, "[components]\nradiation_cubes = -1\n"
    )


def test_SP1_a_special_action_naming_an_unknown_effect_kind(tmp_path):
    msg = _bad(
        tmp_path,
        '[species.Pars]\nactions = [{ id = "PA9", name = "Fly", cost = { Y = 1 }, effect = "fly" }]\n',
    )
    assert "species.Pars.actions[0].effect: unknown effect kind 'fly'" in msg


def test_V4_an_event_that_would_split_the_board(tmp_path):
    cards = (
        '{ name = "cut", kind = "remove_room", tile = 17 }, { name = "cut", kind = "remove_room", tile = 5 }'
    )
    rooms = "rooms = [[1, 0, 0], [5, 1, 0], [2, 2, 0], [6, 1, 1]]\nadjacency = [[1, 5], [5, 2], [2, 6]]"
    msg = _bad(tmp_path, f"[events]\ndeck = [{cards}]\n[layouts.2]\n{rooms}\n")
    assert "events.deck[1].tile: removing tile 5 splits the 2-player board (V4)" in msg


def test_every_flag_reading_loads(tmp_path):
    for f in FLAGS:
        for value in f.choices:
            rules = load_rules(overrides={"flags": {f.name: value}})
            assert rules.flags[f.name] == value


def test_every_effect_kind_is_named_by_a_default_action():
    named = {a["effect"] for s in default_data()["species"].values() for a in s["actions"]}
    assert named == set(EFFECT_KINDS)


def test_placeholders_name_what_a_game_uses():
    plain = load_rules().placeholders(2)
    assert plain == [
        "components.gene_cubes_per_colour",
        "flags.fate_max",
        "tiles",
        "layouts.2",
        "die.fate_values",
    ]
    full = load_rules(overrides={"flags": {"species_mode": "full", "events": True}}).placeholders(2)
    assert "species.Ferox.FE3.effect" in full and "species.Ferox.FE3.cost" not in full  # FE3's cost: l.267
    assert full[-2:] == ["events.deck", "events.removed_room_tokens"]
    house = load_rules(overrides={"flags": {"fate_max": 7}, "layouts": {"2": default_data()["layouts"]["3"]}})
    assert "flags.fate_max" not in house.placeholders(2)


@pytest.mark.parametrize("counts", ["[]", "[1, 2]", "[2, 5]", "[true]", "[2.0]", '"3"'])
def test_player_counts_is_a_list_of_counts_2_to_4(tmp_path, counts):
    """The rules file's player_counts (sim.rules_files.player_counts_ok): a bad one is one line
    naming the key."""
    path = tmp_path / "house.toml"
    path.write_text(f"player_counts = {counts}\n")
    with pytest.raises(RulesError, match=r"player_counts: expected a list of player counts 2 to 4, got"):
        load_rules(path)
