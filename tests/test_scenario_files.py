"""Scenario files as a user writes them (docs/scenario-format.md; issue 31.4, 31.5): every key is
known or named in one line, a file may say its game, and a file that is not a JSON object (binary,
empty, a directory, a list) is one line, never a traceback, for every game."""

import json
import re
from pathlib import Path

import pytest

from sim import game as games
from sim.errors import UserError
from sim.ursuppe.tools.scenario import ScenarioError, load_scenario
from tests.test_cli import ROOT, soup

SCENARIOS = ROOT / "tests" / "scenarios"
# A scenario with forced dice (M3: an active move pays 1 BP)
DICE_FILE = SCENARIOS / "M3_active_move_pays_bp.json"
CHROMOSOME_FILE = SCENARIOS / "chromosome" / "W10_E4_E5_score_and_shared_wins.json"
PIG_FILE = SCENARIOS / "pig" / "PG3_bust_loses_the_turn_total.json"

BASE = {
    "players": 4,
    "round": 2,
    "current_card": {"ozone": 10, "drift": "N"},
    "deck": [{"ozone": 12, "drift": "E"}],
    "state": [
        {
            "score": 3,
            "bp": 6,
            "genes": [{"name": "Speed", "since_round": 1}],
            "amoebas": [{"number": 1, "space": 3}],
        },
        {"score": 1},
        {"score": 2},
        {"score": 4},
    ],
    "dice": [3],
    "choices": [{"move": "active"}, {"pay": {"genes": [], "bp": 1}}, {"place": {"space": 3, "number": 2}}],
    "run": "phase1",
    "test": {"rules": ["M1"], "description": "a position", "expect": {}},
}


def _with(path: str, key: str):
    """BASE with the object at ``path`` (dotted, list indices as numbers) given one more ``key``."""
    doc = json.loads(json.dumps(BASE))
    target = doc
    for part in path.split(".") if path else ():
        target = target[int(part)] if isinstance(target, list) else target[part]
    target[key] = 1
    return doc


@pytest.mark.parametrize(
    "path, key, shown, allowed",
    [
        ("", "dise", "dise", "players, variant, round, current_card"),  # the issue's: dice drawn, not forced
        ("test", "expct", "test.expct", "rules, description, expect, expect_events"),
        ("state.1", "dise", "state[1].dise", "score, bp, genes, amoebas, alarm"),
        ("state.0.genes.0", "since", "state[0].genes[0].since", "name, since_round"),
        ("state.0.amoebas.0", "dpp", "state[0].amoebas[0].dpp", "number, space, dp"),
        ("current_card", "ozon", "current_card.ozon", "ozone, drift"),
        ("deck.0", "drfit", "deck[0].drfit", "ozone, drift"),
        ("choices.0", "fo", "choices[0].fo", "move"),
        ("choices.1.pay", "bpp", "choices[1].pay.bpp", "genes, bp"),
        ("choices.2.place", "spce", "choices[2].place.spce", "space, number"),
    ],
)
def test_an_unknown_key_is_named_with_its_path_and_the_keys_allowed(tmp_path, path, key, shown, allowed):
    """Issue 31.4: a misspelt key at any level of an Ursuppe scenario is an error (it was ignored:
    "dise" played drawn dice), one line naming the file, the key's path and the allowed keys."""
    load_scenario(BASE)  # the base itself is fine
    f = tmp_path / "typo.json"
    f.write_text(json.dumps(_with(path, key)))
    with pytest.raises(ScenarioError) as e:
        load_scenario(f)
    message = str(e.value)
    assert (
        message.startswith(f"{f}: {shown}: unknown key (expected one of: {allowed}") and "\n" not in message
    )


def test_a_near_miss_is_named():
    with pytest.raises(ScenarioError, match=r"dise: unknown key \(.*\); did you mean dice\?$"):
        load_scenario(_with("", "dise"))


def test_every_choice_key_beside_a_choice_is_named():
    """An eat choice may carry parasite and suction (XG-12); another key beside any choice, or a
    choice with no known kind, is named."""
    doc = {**BASE, "choices": [{"eat": [0, 1, 1, 1], "parasite": None, "suction": [], "victim": 1}]}
    with pytest.raises(
        ScenarioError, match=r"choices\[0\]\.victim: unknown key \(expected one of: eat, parasite"
    ):
        load_scenario(doc)
    with pytest.raises(ScenarioError, match=r"choices\[0\]\.mvoe: unknown key .*; did you mean move\?"):
        load_scenario({**BASE, "choices": [{"mvoe": "drift"}]})


def test_chromosome_names_the_unknown_key_and_the_allowed_ones():
    chromosome = games.get("chromosome")
    doc = json.loads(CHROMOSOME_FILE.read_text())
    for where, shown in (((), "dise"), (("test",), "test.dise"), (("state", 0), "state[0].dise")):
        bad = json.loads(json.dumps(doc))
        target = bad
        for part in where:
            target = target[part]
        target["dise"] = 1
        with pytest.raises(
            UserError, match=f"^<scenario>: {re.escape(shown)}: unknown key \\(expected one of: "
        ):
            chromosome.load_scenario(bad)


def test_chromosome_names_a_misspelt_key_of_a_main_actions_choice():
    """Each main action's choice has its keys (growth and impulse in two forms); a special action
    checks its own (SPECIAL_KEYS)."""
    chromosome = games.get("chromosome")
    doc = {"players": 2, "choices": [{"action": "growth", "n": 1, "group": "A1", "nn": 2}]}
    with pytest.raises(
        UserError, match=r"^<scenario>: choices\[0\]\.nn: unknown key \(expected one of: action, n, group\)"
    ):
        chromosome.load_scenario(doc)
    doc["choices"] = [{"action": "impulse", "plcae": "A1"}]
    with pytest.raises(
        UserError, match=r"choices\[0\]\.plcae: unknown key \(expected one of: action, draw\)"
    ):
        chromosome.load_scenario(doc)


def test_pig_names_an_unknown_key():
    pig = games.get("pig")
    doc = json.loads(PIG_FILE.read_text())
    pig.load_scenario(doc)
    doc["dise"] = doc.pop("dice")
    with pytest.raises(UserError, match=r"^<scenario>: dise: unknown key .*did you mean dice\?$"):
        pig.load_scenario(doc)
    doc = json.loads(PIG_FILE.read_text())
    doc["test"]["expcet"] = {}
    with pytest.raises(UserError, match=r"^<scenario>: test\.expcet: unknown key"):
        pig.load_scenario(doc)


def test_a_file_may_name_its_game():
    """The optional top-level "game" (docs/scenario-format.md): a loader accepts its own name and
    refuses another's in one line."""
    load_scenario({**BASE, "game": "ursuppe"})
    with pytest.raises(
        ScenarioError, match=r'^<scenario>: game: the file is a "chromosome" scenario, not a ursuppe one'
    ):
        load_scenario({**BASE, "game": "chromosome"})
    for path in sorted((SCENARIOS / "chromosome").glob("*.json")) + sorted(
        (SCENARIOS / "pig").glob("*.json")
    ):
        assert json.loads(path.read_text())["game"] == path.parent.name  # the files say their game


def _bad_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Files that are no scenario, each with what its one-line error says."""
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00" + bytes(range(128, 256)))
    empty = tmp_path / "empty.json"
    empty.write_text("")
    folder = tmp_path / "folder.json"
    folder.mkdir()
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]")
    return {
        "binary": (binary, "not a text file"),
        "empty": (empty, "the file is empty"),
        "directory": (folder, "is a directory"),
        "list": (listed, "expected a JSON object at the top level, got a list"),
    }


@pytest.mark.parametrize("name", ["ursuppe", "chromosome", "pig"])
def test_a_file_that_is_no_json_object_is_one_line_for_every_game(tmp_path, name):
    """Issue 31.5: a binary file printed a UnicodeDecodeError traceback."""
    for path, says in _bad_files(tmp_path).values():
        with pytest.raises(UserError) as e:
            games.get(name).load_scenario(path)
        message = str(e.value)
        assert message.startswith(f"{path}: ") and says in message and "\n" not in message


# --- soup scenario, as a user runs it ---------------------------------------------------------


def _one_line_error(r) -> str:
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr, r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith("soup: error: ")
    return line


@pytest.mark.slow
def test_soup_scenario_refuses_a_misspelt_key(tmp_path):
    """Issue 31.4, as reported: `dice` renamed `dise` ran (exit 0) with drawn dice."""
    typo = tmp_path / "typo.json"
    typo.write_text(DICE_FILE.read_text().replace('"dice"', '"dise"'))
    line = _one_line_error(soup("scenario", str(typo)))
    assert f"{typo}: dise: unknown key (expected one of: " in line and "did you mean dice?" in line


@pytest.mark.slow
def test_soup_scenario_bad_files_are_one_line(tmp_path):
    """Issue 31.5: binary, empty, a directory, a list: one line and exit 2, whichever game."""
    for path, says in _bad_files(tmp_path).values():
        for game in ([], ["--game", "chromosome"]):
            line = _one_line_error(soup("scenario", *game, str(path)))
            assert line.startswith(f"soup: error: {path}: ") and says in line


@pytest.mark.slow
def test_soup_scenario_plays_the_game_the_file_names(tmp_path):
    """Issue 31.4: a Chromosome scenario without --game failed ("2 players need a variant"); its
    "game" key now says which game plays it, and a --game that contradicts it is one line."""
    ran = soup("scenario", str(CHROMOSOME_FILE))
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["winners"] == [0, 1]  # W10's shared win (E4, E5)
    line = _one_line_error(soup("scenario", "--game", "ursuppe", str(CHROMOSOME_FILE)))
    assert f"{CHROMOSOME_FILE}: game: the file is a chromosome scenario, but --game ursuppe" in line
    pig = soup("scenario", str(PIG_FILE))
    assert pig.returncode == 0 and "scores" in json.loads(pig.stdout), pig.stderr
    unnamed = tmp_path / "unnamed.json"  # without its key the file is read as Ursuppe's, and says so
    unnamed.write_text(
        json.dumps({k: v for k, v in json.loads(CHROMOSOME_FILE.read_text()).items() if k != "game"})
    )
    assert '"game": NAME' in _one_line_error(soup("scenario", str(unnamed)))
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({**json.loads(PIG_FILE.read_text()), "game": "chess"}))
    line = _one_line_error(soup("scenario", str(unknown)))
    assert f"{unknown}: game: expected one of " in line and '"chess"' in line
