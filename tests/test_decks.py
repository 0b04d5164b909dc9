"""soup compare / soup ablate --decks K (V6): every arm over the same K plausible decks, games in
contiguous blocks of whole seating cycles; the pooled table with each row's per-deck spread, the
per-deck table beside it; --decks 1 is the experiment without decks, byte for byte."""

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from analysis.ursuppe.paired import FAMILY_GAME, FAMILY_SEAT
from analysis.win_rates import load_results
from sim.cli.app import app
from sim.runner import MANIFEST
from sim.ursuppe.experiments.deck_family import deck_blocks, deck_label, plausible_decks
from sim.ursuppe.rules.book import load_rules
from tests.test_paired import run_as_user

KEYS = ["family", "metric", "group"]
CSV = 1e-5  # the tables' CSV keeps 6 significant digits


def invoke(*args):
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "160"})  # every column shown
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def house(tmp_path: Path) -> Path:
    path = tmp_path / "house.toml"
    path.write_text("[economy]\ndivision_cost = 5\n")
    return path


def _check_decks_run(arm: Path, games: int, k: int, cycle: int, seed: int) -> list[dict]:
    """The arm's manifest names the family and each deck with its block; the rows cover every
    game once, each game played under its block's deck (the row's rules_id)."""
    spec = json.loads((arm / MANIFEST).read_text())["spec"]
    assert spec["deck_family"].startswith("V6 deck family (PLACEHOLDER): 11 cards, fixed 6W")
    assert "environment.family" in spec["placeholders"]
    decks = spec["decks"]
    blocks = deck_blocks(games, k, cycle)
    assert [(d["first_game"], d["games"]) for d in decks] == blocks
    assert [d["deck"] for d in decks] == [deck_label(x) for x in plausible_decks(load_rules(), k, seed)]
    rows = load_results(arm).select("game", "player", "rules_id").collect()
    per_game = rows.group_by("game").agg(pl.col("rules_id").unique(), pl.len()).sort("game")
    assert per_game["game"].to_list() == list(range(games))  # every game, once per player
    assert per_game["len"].unique().to_list() == [rows["player"].n_unique()]
    for d in decks:
        ids = per_game.filter(pl.col("game").is_between(d["first_game"], d["first_game"] + d["games"] - 1))
        assert ids["rules_id"].to_list() == [[d["rules_id"]]] * d["games"]
    return decks


def _check_pooled_against_decks(
    table: pl.DataFrame, per_deck: pl.DataFrame, decks: list[dict], keys: list[str]
):
    """The pooled diff is the row-weighted mean of the per-deck diffs (both arms have the same rows
    per deck), the game-weighted mean where a deck's rows are its games (the game family, and the
    seats: one row a seat a game); deck_min/deck_max/same_sign summarise the per-deck rows."""
    k = len(decks)
    assert sorted(per_deck["deck"].unique().to_list()) == list(range(k))
    games = np.array([d["games"] for d in decks], dtype=np.float64)
    for row in table.iter_rows(named=True):
        mine = per_deck.filter(pl.all_horizontal(pl.col(c) == row[c] for c in keys)).sort("deck")
        assert mine.height == k, row  # a row on every deck (every seat and strategy plays in each)
        diffs, n = mine["diff"].to_numpy(), mine["n"].to_numpy().astype(np.float64)
        assert row["diff"] == pytest.approx(float((n * diffs).sum() / n.sum()), rel=CSV, abs=CSV)
        if row["family"] in (FAMILY_GAME, FAMILY_SEAT):
            assert np.array_equal(n, games)
            assert row["diff"] == pytest.approx(float((games * diffs).sum() / games.sum()), rel=CSV, abs=CSV)
        assert row["deck_min"] == pytest.approx(diffs.min()) and row["deck_max"] == pytest.approx(diffs.max())
        assert row["same_sign"] == bool((diffs > 0).all() or (diffs < 0).all())


def test_compare_over_three_decks(tmp_path):
    out = tmp_path / "cmp"
    r = invoke(
        "compare", "--rules", house(tmp_path), "--games", 60, "--decks", 3, "--players", 3,
        "--pool", "greedy,breeder", "--out", out, "-q", "--threads", 1, "--seed", 4,
    )  # fmt: skip
    decks = _check_decks_run(out / "a", 60, 3, 6, 4)
    decks_b = _check_decks_run(out / "b", 60, 3, 6, 4)
    assert [d["deck"] for d in decks] == [d["deck"] for d in decks_b]  # the same decks in both arms
    assert [d["rules_id"] for d in decks] != [d["rules_id"] for d in decks_b]  # under each arm's rules
    table = pl.read_csv(out / "comparison.csv")
    per_deck = pl.read_csv(out / "comparison-by-deck.csv")
    assert {"deck_min", "deck_max", "same_sign"} <= set(table.columns)
    assert per_deck.columns[:2] == ["deck", "deck_label"]
    assert per_deck.height == 3 * table.height
    _check_pooled_against_decks(table, per_deck, decks, KEYS)
    md = (out / "comparison.md").read_text()
    first, count = decks[1]["first_game"], decks[1]["games"]
    assert "V6 deck family" in md and f"deck 1: {decks[1]['deck']}; games {first}..{first + count - 1}" in md
    assert "per deck" in r.stdout and "same sign" in r.stdout
    assert "# deck 2: " + decks[2]["deck"] in (out / "comparison-by-deck.md").read_text()


def test_ablate_over_decks(tmp_path):
    out = tmp_path / "abl"
    invoke(
        "ablate", "--gene", "Division Rate", "--games", 24, "--decks", 2, "--players", 3,
        "--pool", "greedy,breeder", "--out", out, "-q", "--threads", 1,
    )  # fmt: skip
    decks = _check_decks_run(out / "minus-division-rate", 24, 2, 6, 1)
    table = pl.read_csv(out / "ablation.csv")
    per_deck = pl.read_csv(out / "ablation-by-deck.csv")
    _check_pooled_against_decks(table, per_deck, decks, KEYS)
    removed = table.filter(pl.col("by_construction")).row(0, named=True)
    assert removed["group"] == "Division Rate" and table.columns[-1] == "by_construction"
    each = tmp_path / "each"
    invoke(
        "ablate", "--each", "--games", 12, "--decks", 2, "--players", 3, "--pool", "greedy,breeder",
        "--out", each, "-q", "--threads", 1,
    )  # fmt: skip
    table = pl.read_csv(each / "ablation.csv")
    per_deck = pl.read_csv(each / "ablation-by-deck.csv")
    _check_pooled_against_decks(
        table, per_deck, _check_decks_run(each / "baseline", 12, 2, 6, 1), ["removed", *KEYS]
    )
    assert (each / "ablation-summary.csv").exists()


def _numbers(out: Path, stem: str, arms: list[str]) -> tuple[bytes, str, list[str]]:
    """The table's CSV bytes, its Markdown with the run directory left out, and the chunks' hashes."""
    md = (out / f"{stem}.md").read_text().replace(str(out), "OUT")
    hashes = []
    for arm in arms:
        chunks = json.loads((out / arm / MANIFEST).read_text())["chunks"]
        hashes += [chunks[c]["sha256"] for c in sorted(chunks, key=int)]
    return (out / f"{stem}.csv").read_bytes(), md, hashes


@pytest.mark.parametrize("command", ["compare", "ablate"])
def test_one_deck_is_the_experiment_without_decks(tmp_path, command):
    """--decks 1 (the default) plays and writes exactly what the command without the option does."""
    if command == "compare":
        args, stem, arms = ["compare", "--rules", house(tmp_path)], "comparison", ["a", "b"]
    else:
        args, stem, arms = ["ablate", "--gene", "Spores"], "ablation", ["baseline", "minus-spores"]
    common = ["--games", 48, "--pool", "greedy,predator", "-q", "--threads", 1, "--seed", 9]
    invoke(*args, *common, "--out", tmp_path / "plain")
    invoke(*args, *common, "--decks", 1, "--out", tmp_path / "one")
    assert _numbers(tmp_path / "plain", stem, arms) == _numbers(tmp_path / "one", stem, arms)
    assert not (tmp_path / "one" / f"{stem}-by-deck.csv").exists()
    assert "deck_min" not in (tmp_path / "one" / f"{stem}.csv").read_text().splitlines()[0]


@pytest.mark.parametrize(
    "args, needle",
    [
        (["compare", "--rules", "default", "--decks", "0"], "--decks: expected a positive number"),
        (["compare", "--rules", "default", "--decks", "-2"], "--decks: expected a positive number"),
        (["ablate", "--gene", "Spores", "--decks", "0"], "--decks: expected a positive number"),
        (["ablate", "--gene", "Spores", "--decks", "4", "--games", "7"], "--games: expected at least 8"),
        (["compare", "--rules", "{short}", "--decks", "2"], "--decks: A (default) and B"),
        (
            ["ablate", "--gene", "Spores", "--rules", "{short}", "--decks", "2"],
            "environment.deck: expected a member",
        ),
    ],
)
def test_bad_decks_one_line_exit_2_nothing_written(tmp_path, args, needle):
    short = tmp_path / "short.toml"
    short.write_text('[environment]\ndeck = [{ ozone = 6, drift = "W" }, { ozone = 9, drift = "none" }]\n')
    out = tmp_path / "out"
    r = run_as_user(*[a.format(short=short) for a in args], "--out", out, "-q", "--threads", 1)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("soup: error: ") and needle in lines[0], r.stderr
    assert not out.exists()


def test_a_run_over_decks_is_not_a_report_input(tmp_path):
    """soup report reads one deck per run (deck-order effects index the run's deck): an arm of
    --decks K > 1 is refused in one line, before anything is written."""
    out = tmp_path / "cmp"
    invoke(
        "compare", "--rules", house(tmp_path), "--games", 12, "--decks", 2, "--players", 3,
        "--pool", "greedy", "--out", out, "-q", "--threads", 1,
    )  # fmt: skip
    r = run_as_user("report", out / "a", "--out", tmp_path / "report")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "spec.decks" in r.stderr
    assert not (tmp_path / "report").exists()
