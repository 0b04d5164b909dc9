"""Chromosome from the command line, as a user runs it: play, scenario, rules, and bad input
(issue 23.4, 23.6): one line naming the file and key, exit 2, nothing written."""

import json
import subprocess
import sys
from pathlib import Path

from tests import processes

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "tests" / "scenarios" / "chromosome"


def soup(*args: str) -> subprocess.CompletedProcess:
    return processes.run([sys.executable, "-m", "sim.cli.app", *args], cwd=ROOT)


def test_play_scenario_and_rules(tmp_path):
    played = soup(
        "play", "--game", "chromosome", "--players", "2", "--strategies", "builder,cautious", "--seed", "4"
    )
    assert played.returncode == 0, played.stderr
    assert "seat 1" in played.stdout and "placeholders used" in played.stdout
    ran = soup("scenario", "--game", "chromosome", str(SCENARIOS / "W10_E4_E5_score_and_shared_wins.json"))
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["winners"] == [0, 1]
    rules = soup("rules", "--game", "chromosome")
    assert json.loads(rules.stdout)["rules"]["flags"]["species_mode"] == "plain"


def test_bad_input_is_one_line_and_exit_2(tmp_path, house_rules):
    house = house_rules("[layouts.2]\nrooms = [[1, 1, -2], [1, 0, 0], [5, 1, -1]]\n")
    out = tmp_path / "run"
    bad = soup(
        "simulate", "--game", "chromosome", "--players", "2", "-n", "10",
        "--rules", str(house), "--out", str(out),
    )  # fmt: skip
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1
    assert f"{house}: layouts.2.rooms[1]: tile 1 is listed twice" in bad.stderr
    assert not out.exists()
    effect = house_rules(
        '[flags]\nspecies_mode = "full"\n[species.Alum]\n'
        'actions = [{ id = "AL1", name = "x", cost = {}, effect = "fly" }]\n',
        "effect.toml",
    )
    refused = soup("simulate", "--game", "chromosome", "-n", "10", "--rules", str(effect), "--out", str(out))
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1 and not out.exists()
    assert "species.Alum.actions[0].effect: unknown effect kind 'fly'" in refused.stderr


def test_tune_writes_a_strategy_file_the_runs_accept(tmp_path):
    """Issue 23.3: the presets are usable by soup tune (a strategy .toml file on a preset's base)."""
    out = tmp_path / "tune"
    tuned = soup(
        "tune", "--game", "chromosome", "--strategy", "builder", "--players", "2", "--against", "random",
        "--budget", "2400", "--games-per-candidate", "100", "-q", "--out", str(out),
    )  # fmt: skip
    assert tuned.returncode == 0, tuned.stderr
    strategy = (out / "tuned.txt").read_text().strip()
    assert strategy.endswith(".toml") and 'base = "builder"' in Path(strategy).read_text()
    played = soup("play", "--game", "chromosome", "--players", "2", "--strategies", f"{strategy},random")
    assert played.returncode == 0, played.stderr
