"""The ``soup`` command as a user runs it: the installed console script, in a subprocess."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import processes

ROOT = Path(__file__).resolve().parent.parent


def soup_exe() -> str:
    """The installed console script (beside this interpreter when its venv is not on PATH)."""
    return shutil.which("soup") or str(Path(sys.executable).parent / "soup")


def soup(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return processes.run([soup_exe(), *args], cwd=cwd, env=dict(os.environ), timeout=600)


def test_help_teaches():
    r = soup("--help")
    assert r.returncode == 0
    for command in ("play", "scenario", "rules"):
        assert command in r.stdout
    r = soup("play", "--help")
    assert "--players" in r.stdout and "--seed" in r.stdout and "--json" in r.stdout


def test_play_prints_rounds_and_is_repeatable():
    a = soup("play", "--players", "3", "--seed", "42")
    assert a.returncode == 0, a.stderr
    assert "Round 1" in a.stdout and "Phase 1: movement and feeding" in a.stdout
    assert "score" in a.stdout and "BP" in a.stdout and "game over" in a.stdout
    b = soup("play", "--players", "3", "--seed", "42")
    assert a.stdout == b.stdout


def test_play_json():
    r = soup("play", "--players", "4", "--seed", "3", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert {"players", "seed", "rounds", "winner", "final_positions", "events"} <= set(doc)
    assert doc["players"] == 4 and doc["seed"] == 3
    assert doc["winner"] == max(range(4), key=lambda p: doc["final_positions"][p])
    assert doc["events"][-1]["type"] == "end"
    assert soup("play", "--players", "4", "--seed", "3", "--json").stdout == r.stdout
    other = json.loads(soup("play", "--players", "4", "--seed", "4", "--json").stdout)
    assert other["events"] != doc["events"]


def test_house_rules_change_the_game(tmp_path):
    house = tmp_path / "house.toml"
    house.write_text("[economy]\nincome = 14\n")
    r = soup("play", "--seed", "3", "--json", "--rules", str(house))
    assert r.returncode == 0, r.stderr
    incomes = {e["bp"] for e in json.loads(r.stdout)["events"] if e["type"] == "income"}
    assert incomes == {14}


@pytest.mark.parametrize(
    "content, needle",
    [
        ("[economy]\nincome = -3\n", "economy.income"),
        ("[economy]\nincom = 3\n", "economy.incom"),
        ("[flags\n", "house.toml"),
    ],
)
def test_bad_rules_file_one_line_error(tmp_path, content, needle):
    house = tmp_path / "house.toml"
    house.write_text(content)
    r = soup("play", "--rules", str(house))
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in r.stderr


def test_unknown_strategy_one_line_error():
    r = soup("play", "--strategies", "nonesuch")
    assert r.returncode == 2 and "nonesuch" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_scenario_command(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(
        json.dumps(
            {
                "players": 4,
                "round": 2,
                "current_card": {"ozone": 10, "drift": "N"},
                "state": [
                    {"score": 3, "bp": 4, "amoebas": [{"number": 1, "space": 3}]},
                    {"score": 1},
                    {"score": 2},
                    {"score": 4},
                ],
                "dice": [3],
                "choices": [{"move": "active"}, {"move": "drift"}],
                "run": "phase1",
            }
        )
    )
    r = soup("scenario", str(f))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["state"][0]["amoebas"] == [{"number": 1, "space": 4, "dp": 0}]
    assert doc["unused_choices"] == [{"move": "drift"}]


def test_scenario_errors_are_one_line(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(
        json.dumps({"players": 4, "state": [{"genes": ["Speed", "Speed"]}, {}, {}, {}], "run": "phase1"})
    )
    r = soup("scenario", str(f))
    assert r.returncode == 2 and "state[0].genes[1]" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    f.write_text("{not json")
    r = soup("scenario", str(f))
    assert r.returncode == 2 and "not valid JSON" in r.stderr
    r = soup("scenario", str(tmp_path / "missing.json"))
    assert r.returncode == 2 and "missing.json" in r.stderr


def test_rules_command_shows_merged_rules(tmp_path):
    house = tmp_path / "h.toml"
    house.write_text('[genes."Division Rate"]\nprice = 5\n')
    r = soup("rules", str(house))
    assert r.returncode == 0
    doc = json.loads(r.stdout)
    assert doc["rules"]["genes"]["Division Rate"]["price"] == 5 and "PLACEHOLDER" in doc["deck"]


def test_play_shows_gene_events():
    """Issue 3: a person can follow purchases, gene defects, attacks and their answers."""
    r = soup("play", "--seed", "6", "--strategies", "random")
    assert r.returncode == 0, r.stderr
    for needle in (" buys ", "gene defect", " attacks P", "answers: defense", "Defense fight", "attack on P"):
        assert needle in r.stdout, needle


@pytest.mark.parametrize(
    "args, needle",
    [
        (["simulate", "--players", "7"], "--players"),
        (["nonsense"], "No such command 'nonsense'"),
        (["report"], "Missing argument"),
        (["simulate", "--games", "abc"], "--games"),
    ],
)
def test_bad_options_end_with_one_line(args, needle):
    """Typer's own usage errors (out-of-range values, unknown commands) are one line too."""
    done = processes.run([sys.executable, "-m", "sim.cli.app", *args])
    assert done.returncode == 2
    assert done.stderr.startswith("soup: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert needle in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_bare_soup_teaches():
    done = processes.run([sys.executable, "-m", "sim.cli.app"])
    assert done.returncode == 0 and "A typical session" in done.stdout and "Commands" in done.stdout
