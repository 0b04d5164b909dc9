"""The 2-player dummy variant (docs/rules.md §16, TD ids): fuzzing with every invariant on,
determinism, the result rows (the dummy is no player row: its position is a column), the
run's spec, and the options of ``soup play`` / ``soup simulate``. The rules themselves are the
TD scenarios under tests/scenarios/."""

import json
import sys

import numpy as np
import polars as pl
import pytest

from sim import runner
from sim.ursuppe.engine import batch as B
from sim.ursuppe.rules.book import TD_FLAGS, RulesError, load_rules
from sim.ursuppe.simulation import UrsuppeRun
from strategies.ursuppe.params import load_strategy
from tests import processes
from tests.conftest import outcome_digest
from tests.fuzzing import fail_on_error
from tests.test_cli import soup

TD_FLAG_SETS = {
    "defaults": {},
    "dummy_scores=true": {"dummy_scores": True},
    "dummy_bp=normal_income": {"dummy_bp": "normal_income"},
    "dummy_le_from_pool=true": {"dummy_le_from_pool": True},
    "dummy_amoebas_per_round=0": {"dummy_amoebas_per_round": 0},
    "all other readings": {
        "dummy_scores": True,
        "dummy_bp": "normal_income",
        "dummy_le_from_pool": True,
        "dummy_amoebas_per_round": 3,
        "finish_zone_start": 41,
        "first_round_flip": False,
    },
}


def _dummy_batch(book, params, seed, games, strategy=0, **kwargs):
    ru = book.for_players(2, "dummy")
    return B.new_batch(ru, params, np.full(3, strategy), seed, np.arange(games), **kwargs)


@pytest.mark.parametrize("flags", list(TD_FLAG_SETS), ids=list(TD_FLAG_SETS))
def test_random_dummy_games_keep_every_invariant(params, flags):
    """Fuzz (§11) at 2 players + dummy: the random strategy, invariants after every phase; the
    dummy (colour 2) never wins (TD8), never buys (TD2) and holds no gene card (TD4)."""
    book = load_rules(overrides={"flags": TD_FLAG_SETS[flags]})
    b = _dummy_batch(book, params, 2024, 400, check_invariants=True)
    B.play(b, threads=2)
    fail_on_error(b)
    st = b.state
    assert st.finished.all()
    assert set(np.unique(st.winner)) <= {0, 1}
    assert (st.genes[:, 2].sum() == 0) and (st.genes_bought[:, 2] == 0).all()
    assert (st.genes_bought[:, :2] != 0).mean() > 0.5
    if not book.data["flags"]["dummy_scores"]:
        assert (st.score[:, 2] == st.seat[:, 2]).all()  # TD8: its marker stays on its start space
    if book.data["flags"]["dummy_bp"] == "none":
        assert (st.bp[:, 2] == 0).all()  # TD6


def test_greedy_dummy_games_keep_every_invariant(params):
    b = _dummy_batch(load_rules(), params, 7, 400, strategy=1, check_invariants=True)
    B.play(b, threads=2)
    assert B.first_error(b) is None, B.first_error(b)
    assert (b.state.space[:, 2] >= 0).sum(axis=1).mean() > 2  # TD5: the dummy keeps amoebas coming


def test_dummy_games_are_deterministic_for_any_threads_and_blocks(params):
    """§0: a game is a pure function of (rules, strategies, seed, game index), the dummy's
    random placements included (they come from the game's own stream)."""
    book = load_rules()
    a = _dummy_batch(book, params, 99, 600, strategy=1, n_blocks=1)
    b = _dummy_batch(book, params, 99, 600, strategy=1, n_blocks=13)
    B.play(a, threads=1)
    B.play(b, threads=2)
    assert np.array_equal(outcome_digest(a.state), outcome_digest(b.state))
    c = _dummy_batch(book, params, 100, 600, strategy=1)
    B.play(c)
    assert not np.array_equal(outcome_digest(a.state), outcome_digest(c.state))


def test_rules_for_two_players_need_the_variant_and_name_its_placeholders(rulebook):
    ru = rulebook.for_players(2, "dummy")
    assert (ru.players, ru.dummy, ru.dummy_scores, ru.dummy_income) == (3, 2, False, False)
    assert ru.dummy_amoebas == 2
    assert ru.income == rulebook.for_players(3).income and ru.tentacle_cubes == 2  # TD1: 3-player rules
    assert rulebook.for_players(3).dummy == -1
    for players, variant, needle in [(2, None, "variant"), (3, "dummy", "2-player"), (2, "double9", "dummy")]:
        with pytest.raises(RulesError, match=needle):
            rulebook.for_players(players, variant)
    named = rulebook.placeholders(2, "dummy")
    assert {f"flags.{f}" for f in TD_FLAGS} <= set(named) and "environment.deck" in named
    assert not [n for n in rulebook.placeholders(3) if "dummy" in n]
    house = load_rules(overrides={"flags": {"dummy_scores": True}})
    assert "flags.dummy_scores" not in house.placeholders(2, "dummy")


def test_TD4_dummy_le_from_pool_takes_the_3_player_card(rulebook):
    from sim.ursuppe.engine.genes.life_expectancy import LIFE_EXPECTANCY

    on = load_rules(overrides={"flags": {"dummy_le_from_pool": True}})
    assert (
        on.for_players(2, "dummy").gene_copies[LIFE_EXPECTANCY]
        == rulebook.for_players(3).gene_copies[LIFE_EXPECTANCY] - 1
    )
    assert rulebook.for_players(2, "dummy").gene_copies[LIFE_EXPECTANCY] == 1


def _rows(out) -> pl.DataFrame:
    return runner.scan_chunks(runner.chunk_files(out)).collect().sort(["game", "player"])


def test_rows_are_the_real_players_with_the_dummys_position(rulebook, tmp_path):
    """TD8: one row per real player per game; the variant and the dummy's final position are
    columns, and the spec names the variant and its placeholders."""
    strategies = [load_strategy("greedy"), load_strategy("random")]
    run = UrsuppeRun(rulebook, 2, 5, strategies, seats=[0, 1], seating="rotate", variant="dummy")
    runner.run(run, tmp_path / "a", 300, 100, 2)
    rows = _rows(tmp_path / "a")
    assert rows.height == 600
    assert set(rows["player"].to_list()) == {0, 1} and set(rows["players"].to_list()) == {2}
    assert set(rows["variant"].to_list()) == {"dummy"}
    assert rows["dummy_position"].null_count() == 0 and rows["dummy_position"].min() >= 1
    by_game = rows.group_by("game").agg(pl.col("won").sum(), pl.col("rank").sort(), pl.col("start_space"))
    assert (by_game["won"] == 1).all() and by_game["rank"].to_list() == [[1, 2]] * 300
    starts = set(rows["start_space"].to_list()) | set(rows["dummy_position"].to_list())
    assert {1, 2, 3} <= starts  # the dummy's seat is drawn with the others' (S5 over 3 colours)
    spec = json.loads((tmp_path / "a" / "manifest.json").read_text())["spec"]
    assert spec["variant"] == "dummy" and spec["players"] == 2
    assert "flags.dummy_policy" in spec["placeholders"]
    runner.run(run, tmp_path / "b", 300, 300, 1)
    assert rows.equals(_rows(tmp_path / "b"))


def test_rows_without_a_variant_have_null_variant_columns(rulebook, tmp_path):
    run = UrsuppeRun(rulebook, 3, 5, [load_strategy("greedy")], seats=[0, 0, 0])
    runner.run(run, tmp_path / "a", 50, 50, 1)
    rows = _rows(tmp_path / "a")
    assert rows.height == 150
    assert rows["variant"].null_count() == 150 and rows["dummy_position"].null_count() == 150
    assert json.loads((tmp_path / "a" / "manifest.json").read_text())["spec"]["variant"] is None


def test_soup_play_and_simulate_with_the_dummy(tmp_path):
    r = soup("play", "--players", "2", "--variant", "dummy", "--seed", "3", "--json")
    assert r.returncode == 0, r.stderr
    game = json.loads(r.stdout)
    assert game["players"] == 2 and game["variant"] == "dummy" and game["winner"] in (0, 1)
    assert [s["strategy"] for s in game["seats"]][2] == "dummy" and len(game["final_positions"]) == 3
    again = soup("play", "--players", "2", "--variant", "dummy", "--seed", "3", "--json")
    assert again.stdout == r.stdout
    out = tmp_path / "run"
    args = ("--players", "2", "--variant", "dummy", "--games", "200", "--out", str(out), "--quiet")
    r = soup("simulate", *args)
    assert r.returncode == 0, r.stderr
    assert "variant dummy" in r.stdout
    assert json.loads((out / "manifest.json").read_text())["spec"]["variant"] == "dummy"


@pytest.mark.parametrize(
    "args, needle",
    [
        (["play", "--players", "2"], "--variant dummy"),
        (["simulate", "--players", "2"], "--variant dummy"),
        (["play", "--players", "3", "--variant", "dummy"], "2-player variant"),
        (["simulate", "--players", "4", "--variant", "dummy"], "2-player variant"),
        (["play", "--players", "2", "--variant", "solo"], "expected one of dummy, double1, double2"),
        (["simulate", "--players", "3", "--variant", "double2"], "2-player variant"),
    ],
)
def test_two_players_without_a_variant_or_a_variant_elsewhere_is_one_line(args, needle):
    done = processes.run([sys.executable, "-m", "sim.cli.app", *args])
    assert done.returncode == 2
    assert done.stderr.startswith("soup: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert needle in done.stderr and done.stdout == ""


def test_report_on_a_dummy_run_names_the_variant_and_its_placeholders(tmp_path):
    """soup report reads a dummy run (every section; fair share 1/2) and names the TD
    PLACEHOLDER flags it used, pointing to docs/rules.md §16."""
    from analysis.ursuppe.report import build_report
    from sim.ursuppe.simulation import DEFAULT_POOL

    book = load_rules()
    strategies = [load_strategy(n) for n in DEFAULT_POOL]
    pool = list(range(len(strategies)))
    runner.run(UrsuppeRun(book, 2, 3, strategies, pool=pool, variant="dummy"), tmp_path / "d", 600, 600, 2)
    md = (build_report([tmp_path / "d"], tmp_path / "report") / "report.md").read_text()
    assert "placeholder rules with 2 players, variant dummy" in md and "§16" in md
    assert "`flags.dummy_policy`" in md and "fair share 50.0%" in md
