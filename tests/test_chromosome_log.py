"""Chromosome's event log (engine/events.py, tools/trace.py; issue 23.4): it tells every change
of the board, so replaying it reproduces each round's position and the final one; a worked case's
rolls and rerolls appear in the rulebook's order; ``soup play`` tells a game turn by turn."""

import json
from pathlib import Path

import numpy as np
import pytest

from sim.chromosome.engine import batch
from sim.chromosome.engine.state import rules_for
from sim.chromosome.game import params_table
from sim.chromosome.rules.book import load_rules
from sim.chromosome.tools.scenario import load_scenario, run_scenario
from sim.chromosome.tools.trace import as_text, events_as_dicts

SCENARIOS = Path(__file__).resolve().parent / "scenarios" / "chromosome"


def _take(board: dict[int, list[int]], tile: int, k: int) -> None:
    board[tile][1] -= k
    if board[tile][1] <= 0:
        del board[tile]


def _apply(board: dict[int, list[int]], areas: dict[int, int], e: dict) -> None:
    """What event ``e`` changes on the board and the areas (the log's own account of the game)."""
    t = e["type"]
    if t == "start_group":
        board[e["room"]] = [e["player"], e["size"], 1]
    elif t == "move":
        side = board[e["from"]][2]
        _take(board, e["from"], e["count"])
        if e["to"] in board:
            board[e["to"]][1] += e["count"]
            board[e["to"]][2] &= side
        else:
            board[e["to"]] = [e["player"], e["count"], side]
    elif t == "growth":
        if e["room"] in board:
            board[e["room"]][1] = e["size"]
        else:
            board[e["room"]] = [e["player"], e["size"], 0]
    elif t == "pay_energy":
        for tile in e["rooms"]:
            board[tile][2] = 0
    elif t == "charged":
        board[e["room"]][2] = 1
    elif t == "combat":
        if e["result"] == 1:
            _take(board, e["target"], e["lost"])
        elif e["result"] == -1:
            _take(board, e["from"], e["lost"])
        else:  # F9: the target's token, and the attacker's (not after Domination, FE2)
            _take(board, e["target"], e["lost"])
            if e["attacker_lost"]:
                _take(board, e["from"], e["attacker_lost"])
    elif t == "takeover":  # AL3: the same tokens, now the player's, discharged
        board[e["room"]] = [e["player"], board[e["room"]][1], 0]
    elif t == "fusion":  # FE3
        board.pop(e["absorbed"])
        board[e["receiver"]][1:] = [e["size"], int(e["charged"])]
    elif t == "destroyed":  # FE4
        _take(board, e["room"], e["tokens"])
    elif t == "wave":  # CA4: the area moves (onto an area there: one area)
        areas[e["to"]] = areas.get(e["to"], 0) + areas.pop(e["from"])
    elif t == "remove":
        _take(board, e["room"], 1)
    elif t == "over_seven" and e["eliminated"]:
        for tile in [k for k, v in board.items() if v[0] == e["player"]]:
            del board[tile]
    elif t == "discharged":  # V5 discharge_all
        board[e["room"]][2] = 0
    elif t == "room_removed":  # V3
        board.pop(e["room"], None)
        areas.pop(e["room"], None)
    elif t in ("impulse", "decay", "area_placed"):
        areas[e["room"]] = e["strength"]
        if areas[e["room"]] == 0:
            del areas[e["room"]]


def _replay(events: list[dict], players: int) -> tuple[dict, dict]:
    """The board (tile -> [owner, size, charged]) and areas (tile -> strength) after ``events``,
    rebuilt from the log alone; every round's snapshot is compared with the rebuilt board."""
    board: dict[int, list[int]] = {}
    areas: dict[int, int] = {}
    snap_groups: dict[int, list[int]] | None = None
    snap_areas: dict[int, int] = {}

    def compare() -> None:
        if snap_groups is not None:
            assert snap_groups == board and snap_areas == areas, (events[0]["round"], snap_groups, board)

    for e in events:
        t = e["type"]
        if t != "group" and t != "area" and snap_groups is not None:
            compare()
            snap_groups = None
        if t == "round":
            snap_groups, snap_areas = {}, {}
        elif t == "group":
            snap_groups[e["room"]] = [e["player"], e["size"], int(e["charged"])]
        elif t == "area":
            snap_areas[e["room"]] = e["strength"]
        else:
            _apply(board, areas, e)
    compare()
    return board, areas


@pytest.mark.parametrize("events", [False, True], ids=["no_events", "events"])
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("mode", ["plain", "full"])
def test_replaying_the_log_gives_every_rounds_position_and_the_final_one(players, events, mode):
    ru = rules_for(load_rules(overrides={"flags": {"events": events, "species_mode": mode}}), players)
    names = ["builder", "aggressive", "cautious", "evolver"][:players]
    games = np.arange(40)
    rows = np.tile(np.arange(players, dtype=np.int16), (len(games), 1))
    b = batch.play(batch.new_batch(ru, params_table(names), rows, 11, games, log_events=True))
    assert not b.workspace.error[:, 0].any()
    kinds = set()
    for g in games:
        log = events_as_dicts(b.workspace.events[g, : b.workspace.n_events[g]], ru.tile)
        kinds |= {e["type"] for e in log}
        board, areas = _replay(log, players)
        st = b.state
        final = {
            int(ru.tile[r]): [int(st.owner[g, r]), int(st.size[g, r]), int(st.charged[g, r])]
            for r in range(len(ru.tile))
            if st.owner[g, r] >= 0
        }
        assert board == final, g
        assert areas == {int(ru.tile[r]): int(st.cubes[g, r]) for r in range(len(ru.tile)) if st.cubes[g, r]}
        assert log[-1]["type"] == "end"
        rounds = sum(e["type"] == "round" for e in log)  # Phase II of every round ...
        cards = [i for i, e in enumerate(log) if e["type"] == "card" and e["round"] == st.round[g]]
        in_phase_one = cards and any(e["type"] == "eliminated" for e in log[cards[0] :])  # ... or a card's E3
        assert rounds == st.round[g] or (events and in_phase_one)
        assert len(as_text(log, ["Alum", "Ferox", "Cadum", "Pars"][:players])) > 0
    # the log's kinds that 40 games of these presets reach (a kind never logged would be a gap)
    assert {"move", "growth", "spark", "combat", "roll", "reroll", "test", "decay", "impulse"} <= kinds
    if events:
        assert {"card", "room_removed", "discharged", "fate", "irradiated"} <= kinds
    if mode == "full":
        assert {"special", "takeover"} <= kinds


def test_W4_rolls_and_rerolls_are_logged_in_the_rulebooks_order():
    """W4 (D3, F7): Przemo rolls 4; Tomek rerolls it to 1; Przemo rerolls to 2; Tomek rolls 1
    and rerolls to 4; Tomek wins 8-7 and Przemo's group 7 loses a token."""
    result = run_scenario(load_scenario(SCENARIOS / "W4_A8_F1_F9_D3_spark_with_boosts_and_rerolls.json"))
    shown = [
        (e["type"], e.get("player"), e.get("face"))
        for e in result["events"]
        if e["type"] in ("roll", "reroll")
    ]
    assert shown == [("roll", 0, 4), ("reroll", 1, 1), ("reroll", 0, 2), ("roll", 1, 1), ("reroll", 1, 4)]
    combat = [e for e in result["events"] if e["type"] == "combat"]
    assert combat == [
        {
            "type": "combat",
            "round": 1,
            "player": 0,
            "from": 7,
            "target": 9,
            "attack": 7,
            "defence": 8,
            "result": -1,
            "lost": 1,
            "attacker_lost": 0,
        }
    ]
    energy = [e for e in result["events"] if e["type"] == "pay_energy"]
    assert [(e["rooms"], e["tokens"], e["lost"]) for e in energy] == [([7], 3, 2)]  # K4: 2 E lost


@pytest.mark.slow  # runs soup in a subprocess
def test_soup_play_tells_the_game_turn_by_turn():
    from tests.test_chromosome_cli import soup

    played = soup("play", "--game", "chromosome", "--players", "3", "--seed", "4")
    assert played.returncode == 0, played.stderr
    text = played.stdout
    for shown in ("Round 1 (clock 5)", "'s turn", "Phase III", "rolls", "areas:", "genes Y2 P1 active"):
        assert shown in text, shown
    as_json = soup("play", "--game", "chromosome", "--players", "3", "--seed", "4", "--json")
    doc = json.loads(as_json.stdout)
    assert doc["events"][0]["type"] == "start_group" and doc["events"][-1]["type"] == "end"
    assert sum(e["type"] == "round" for e in doc["events"]) == doc["rounds"]
