"""soup ablate --game chromosome (issue 23.4): a species' special action taken off its board, or a
gene colour's use removed, against the same rules on common random numbers. The reference arm: an
action no one can ever pay for reads exactly 0 everywhere; a real ablation changes the games."""

import json
import re
import sys
from pathlib import Path

import polars as pl

from tests import processes

ROOT = Path(__file__).resolve().parent.parent
UNPAYABLE = """[flags]
species_mode = "full"

[species.Alum]
actions = [
  { id = "AL1", name = "Supergen", cost = { E = 2 }, effect = "supergen", per_round = 1 },
  { id = "AL2", name = "Zamiana", cost = { E = 1 }, effect = "exchange" },
  { id = "AL3", name = "Przejęcie", cost = { Y = 1, P = 1 }, effect = "takeover" },
  { id = "AL4", name = "alum_4", cost = { P = 1 }, effect = "gain_passive_gene" },
  { id = "AL5", name = "never", cost = { E = 99 }, effect = "giant" },
]
"""


def soup(*args: str):
    return processes.run([sys.executable, "-m", "sim.cli.app", *args], cwd=ROOT)


def _differences(markdown: str) -> str:
    """The difference, low and high columns of comparison.md's tables, as one string."""
    cells = []
    for line in markdown.splitlines():
        if line.startswith("|") and not line.startswith("|-") and not line.startswith("| ---"):
            parts = [c.strip() for c in line.strip("|").split("|")]
            cells.append(parts)
    header = cells[0]
    keep = [header.index(c) for c in ("difference", "low", "high")]
    return " ".join(row[i] for row in cells if row != header and row[0] not in header for i in keep)


def _rows(run: Path) -> pl.DataFrame:
    return pl.concat([pl.read_parquet(f) for f in sorted(run.glob("chunk-*.parquet"))]).sort("game", "player")


def test_the_reference_arm_an_action_never_payable_reads_zero(tmp_path):
    house = tmp_path / "house.toml"
    house.write_text(UNPAYABLE)
    out = tmp_path / "ref"
    done = soup(
        "ablate", "--game", "chromosome", "--action", "AL5", "--rules", str(house),
        "--players", "3", "--games", "600", "--out", str(out), "-q",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Alum without AL5" in done.stdout
    a, b = _rows(out / "a"), _rows(out / "b")
    assert a.drop("rules_id").equals(b.drop("rules_id"))  # the same games, row for row
    table = (out / "comparison.md").read_text()
    assert "species" in table and not re.search(r"[+-]?0\.0*[1-9]", _differences(table))


def test_removing_an_action_or_red_strength_changes_the_games(tmp_path):
    out = tmp_path / "fe1"
    done = soup("ablate", "--game", "chromosome", "--action", "FE1", "--players", "3", "--games", "600",
                "--out", str(out), "-q")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "both arms in the full species mode" in done.stdout
    manifest = json.loads((out / "b" / "manifest.json").read_text())["spec"]
    assert [a["id"] for a in manifest["rules"]["species"]["Ferox"]["actions"]] == ["FE2", "FE3", "FE4"]
    assert not _rows(out / "a")["won"].equals(_rows(out / "b")["won"])
    red = tmp_path / "red"
    done = soup("ablate", "--game", "chromosome", "--gene", "R", "--players", "3", "--games", "600",
                "--pool", "random,aggressive", "--out", str(red), "-q")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        json.loads((red / "b" / "manifest.json").read_text())["spec"]["rules"]["genes"]["red_strength"] == 0
    )
    assert not _rows(red / "a")["score"].equals(_rows(red / "b")["score"])


def test_what_cannot_be_ablated_is_refused_in_one_line(tmp_path):
    for args, said in (
        (["--gene", "Y"], "--gene Y: Y genes pay for actions"),
        (["--action", "XX9"], "--action XX9: no species has it"),
        (["--each"], "--each: an experiment of ursuppe's gene deck"),
    ):
        done = soup("ablate", "--game", "chromosome", *args, "--games", "10", "--out", str(tmp_path / "x"))
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert said in done.stderr
        assert not (tmp_path / "x").exists()
