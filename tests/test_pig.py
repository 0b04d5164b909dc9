"""Pig, the protocol's example game (sim/pig): its rules PG1-PG6 by scenario, its rules file's
errors, and the command line with --game pig."""

import json
import sys
from pathlib import Path

import pytest

from sim import game as games
from sim.errors import UserError
from tests import processes

PIG = games.get("pig")
SCENARIOS = PIG.scenario_files()
ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path):
    expect = json.loads(path.read_text())["test"]["expect"]
    outcome = PIG.run_scenario(PIG.load_scenario(path))
    assert {key: outcome[key] for key in expect} == expect


def test_every_pig_rule_has_a_scenario_or_test():
    cited = {rule for p in SCENARIOS for rule in json.loads(p.read_text())["test"]["rules"]}
    assert {"PG2", "PG3", "PG4", "PG5", "PG6"} <= cited
    # PG1 (seat order): tests/test_conformance.py's seats and this file's play test


def test_PG1_turns_follow_the_seats():
    text = PIG.play_text(PIG.load_rules(), 3, ["steady"] * 3, seed=4, as_json=True)
    doc = json.loads(text)
    order = sorted(range(3), key=lambda p: doc["start_spaces"][p])
    assert [t["player"] for t in doc["turns"][:6]] == order + order


@pytest.mark.parametrize(
    "overrides, key",
    [
        ({"target": 0}, "target"),
        ({"bust": 9}, "bust"),
        ({"colour": 1}, "colour"),
        ({"player_counts": [1]}, "player_counts"),
    ],
)
def test_bad_rules_name_the_key(overrides, key):
    from sim.pig.rules import load_rules

    with pytest.raises(UserError, match=key):
        load_rules(overrides=overrides)


@pytest.mark.slow  # runs soup in subprocesses
def test_simulate_and_play_from_the_command_line(tmp_path):
    def soup(*args):
        return processes.run([sys.executable, "-m", "sim.cli.app", *args], cwd=ROOT)

    run = soup("simulate", "--game", "pig", "-n", "300", "--players", "2", "-q", "--out", str(tmp_path / "r"))
    assert run.returncode == 0, run.stderr
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["spec"]["game"] == "pig"
    report = soup("report", str(tmp_path / "r"), "-q")  # the game is read from the manifest
    assert report.returncode == 0, report.stderr
    assert "## Win rate by strategy" in (tmp_path / "r" / "report" / "report.md").read_text()
    assert "rounds" not in run.stdout  # Pig has no rounds: no column of NaN
    play = soup("play", "--game", "pig", "--players", "2", "--seed", "3")
    assert play.returncode == 0 and "final scores" in play.stdout
    bench = soup(
        "bench", "--game", "pig", "--json", "--games", "200", "--plain-games", "50", "--repeats", "1"
    )
    assert bench.returncode == 0, bench.stderr
    doc = json.loads(bench.stdout)
    assert set(doc["games_per_second"]) == {"2p", "3p", "4p"} and doc["speedup_over_plain_python"] > 1
    # a whole warm `soup play` in a fresh process, wall and CPU (issue 31)
    assert doc["warm_command"] == "soup play --game pig --players 2 --seed 1"
    assert doc["warm_command_s"] > 0 and doc["warm_command_cpu_s"] > 0
    bad = soup("simulate", "--game", "chess", "-n", "10")
    assert bad.returncode == 2 and "--game: expected one of" in bad.stderr and "Traceback" not in bad.stderr


def test_a_run_of_another_game_loads_its_own_engine(tmp_path, monkeypatch):
    """A run's progress loads the engine of the run's game before its bar, not the default game's:
    a first `soup simulate --game chromosome` compiled Ursuppe's engine as well (and quoted
    Ursuppe's compile time), and every Pig or Chromosome run loaded Ursuppe's kernels."""
    from typer.testing import CliRunner

    from sim.cli import support
    from sim.cli.app import app

    loaded, load = [], support.load_engine
    monkeypatch.setattr(support, "load_engine", lambda game=None: (loaded.append(game), load(game))[1])
    args = ["simulate", "--game", "pig", "-n", "20", "--players", "2", "--out", str(tmp_path / "r"), "-q"]
    r = CliRunner().invoke(app, args)  # compare, ablate and tournament play their arms the same way
    assert r.exit_code == 0, (r.stdout, r.stderr, r.exception)
    assert loaded and None not in loaded, loaded  # None: the default game's
    assert {game.info.name for game in loaded} == {"pig"}


@pytest.mark.slow  # runs soup in subprocesses
def test_compare_and_tournament_with_another_game(tmp_path):
    """soup compare/tournament --game pig run the game-agnostic experiments (sim/experiments)."""

    def soup(*args):
        return processes.run([sys.executable, "-m", "sim.cli.app", *args], cwd=ROOT)

    house = tmp_path / "house.toml"
    house.write_text("target = 100\n")
    args = ["--players", "2", "--games", "300", "-q", "--out"]
    same = soup(
        "compare", "--game", "pig", "--rules", "default", "--rules", "default", *args, str(tmp_path / "c")
    )
    assert same.returncode == 0, same.stderr
    assert "+0.000   [+0.000, +0.000]" in same.stdout  # the reference arm: a rule set against itself
    assert (tmp_path / "c" / "comparison.md").is_file()
    ranked = soup(
        "tournament",
        "--game",
        "pig",
        "--strategies",
        "random,steady",
        *args[:-2],
        "--out",
        str(tmp_path / "t"),
    )
    assert ranked.returncode == 0, ranked.stderr
    assert "Equilibrium of the meta-game" in ranked.stdout
    bad = soup("compare", "--game", "pig", "--rules", str(house), "--decks", "3")
    assert bad.returncode == 2 and "--decks: only with --game ursuppe" in bad.stderr


@pytest.mark.slow  # runs soup in subprocesses
def test_tune_scenario_and_rules_with_another_game(tmp_path):
    """soup tune/scenario/rules --game pig go through the protocol; Ursuppe's own experiments
    (GameInfo.own_commands) and options are refused for it in one line, exit 2."""

    def soup(*args):
        return processes.run([sys.executable, "-m", "sim.cli.app", *args], cwd=ROOT)

    rules = soup("rules", "--game", "pig")
    assert rules.returncode == 0, rules.stderr
    assert json.loads(rules.stdout)["rules_id"] == PIG.load_rules().rules_id
    path = next(p for p in SCENARIOS if p.stem.startswith("PG3"))
    played = soup("scenario", "--game", "pig", str(path))
    assert played.returncode == 0, played.stderr
    expected = json.loads(path.read_text())["test"]["expect"]
    assert {k: json.loads(played.stdout)[k] for k in expected} == expected
    out = tmp_path / "tune"
    tuned = soup(
        "tune", "--game", "pig", "--strategy", "cautious", "--players", "2", "--budget", "8000",
        "--games-per-candidate", "400", "-q", "--out", str(out),
    )  # fmt: skip
    assert tuned.returncode == 0, tuned.stderr
    threshold = int((out / "tuned.txt").read_text())  # a Pig strategy is its threshold
    assert threshold > PIG.strategy_space("cautious")[0][0]  # a timid threshold moves up
    assert "| tuned |" in (out / "report.md").read_text()
    for args, line in (
        (("verdict", "--gene", "Tentacle"), "soup verdict is an experiment of ursuppe only"),
        (
            ("ablate",),
            "soup ablate needs parts that can be taken out of the game (its ablation) (chromosome, "
            "ursuppe only)",
        ),
        (("combos",), "soup combos is an experiment of ursuppe only"),
        (("calibrate", "--gene", "Tentacle"), "soup calibrate is an experiment of ursuppe only"),
        (("tune", "--gene-value"), "--gene-value: only with --game ursuppe"),
    ):
        bad = soup(args[0], "--game", "pig", *args[1:])
        assert bad.returncode == 2 and line in bad.stderr and len(bad.stderr.splitlines()) == 1, bad.stderr
