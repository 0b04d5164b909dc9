"""A binary file where soup expects a text file (a rules file, a strategy file) is one line
naming the file and what is expected, for every game (issue 31's newcomer audit, point 5: a
binary scenario printed a UnicodeDecodeError traceback; tests/test_scenario_files.py covers
scenario files). Runs the installed ``soup`` as a user does."""

from pathlib import Path

import pytest

from tests.test_cli import soup
from tests.test_trustworthy_runs import _one_line_error

pytestmark = pytest.mark.slow


@pytest.fixture
def binary(tmp_path: Path) -> Path:
    path = tmp_path / "binary.toml"
    path.write_bytes(bytes([0xFF, 0xFE, 0x00, 0x9C]) * 64)
    return path


@pytest.mark.parametrize("game", ["ursuppe", "chromosome", "pig"])
def test_a_binary_rules_file_is_one_line(game, binary):
    line = _one_line_error(soup("rules", "--game", game, str(binary)))
    assert str(binary) in line and ("UTF-8" in line or "text" in line)


@pytest.mark.parametrize(("game", "players"), [("ursuppe", "4"), ("chromosome", "2"), ("pig", "2")])
def test_a_binary_strategy_file_is_one_line(game, players, binary, tmp_path):
    out = tmp_path / "run"
    line = _one_line_error(
        soup(
            "simulate",
            "--game",
            game,
            "--players",
            players,
            "--games",
            "10",
            "--strategies",
            ",".join([str(binary)] * int(players)),
            "--out",
            str(out),
        )
    )
    assert str(binary) in line
    assert not out.exists()
