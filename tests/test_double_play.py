"""Double play I and II (docs/rules.md §17; TA and TB ids): fuzzing with every invariant on and
each flag's other setting, determinism, the rules each variant plays by, the result rows (one a
player, both colours' outcomes in list columns), the CLI and the report, and each preset's
strength in every 2-player variant. The rules themselves are the TA/TB scenarios under
tests/scenarios/."""

import json

import numpy as np
import polars as pl
import pytest

from analysis.intervals import wilson
from sim import runner
from sim.ursuppe.engine import batch as B
from sim.ursuppe.engine import tally
from sim.ursuppe.engine.decision_kinds import COLOUR
from sim.ursuppe.rules.book import TB_FLAGS, VARIANT_PLAYER_OF, load_rules
from sim.ursuppe.rules.colours import colour_assignment, player_positions
from sim.ursuppe.simulation import UrsuppeRun, outcome_rows
from strategies.ursuppe import preset_names
from strategies.ursuppe.params import load_strategy
from tests.conftest import outcome_digest
from tests.fuzzing import fail_on_error
from tests.test_cli import soup

FLAG_SETS = {
    "double1": {
        "defaults": {},
        "partner_is_opponent=false": {"double1_partner_is_opponent": False},
    },
    "double2": {
        "defaults": {},
        "colour_order=fixed": {"double2_colour_order": "fixed"},
        "partner_is_opponent=true": {"double2_partner_is_opponent": True},
        "eat_partner_colour=false": {"double2_eat_partner_colour": False},
        "other economy": {
            "double2_start_bp": 10,
            "double2_income": 6,
            "double2_division_cost": 6,
            "double2_division_cost_division_rate": 4,
            "first_round_flip": False,
            "holding_clings_to_own": True,
        },
    },
}
CASES = [(v, name) for v, sets in FLAG_SETS.items() for name in sets]


def _batch(book, params, variant, seed, games, players=(0, 1), **kwargs):
    rows = colour_assignment(np.array([players], dtype=np.int16), variant)[0]
    return B.new_batch(book.for_players(2, variant), params, rows, seed, np.arange(games), **kwargs)


@pytest.mark.parametrize("variant, flags", CASES, ids=[f"{v}-{n}" for v, n in CASES])
def test_random_double_play_games_keep_every_invariant(params, variant, flags):
    """Fuzz (§11, with the engine's I12 for double play II): the random strategy against the
    greedy one, invariants after every phase, each flag's other setting."""
    book = load_rules(overrides={"flags": FLAG_SETS[variant][flags]})
    b = _batch(book, params, variant, 2024, 300, check_invariants=True)
    B.play(b, threads=2)
    fail_on_error(b)
    st = b.state
    assert st.finished.all()
    assert (st.genes_bought != 0).mean() > 0.5
    if variant == "double2":
        # TB3/TB11: one marker, BP stock and gene set a player (I12 checked them after every
        # phase); the winner is a player's first colour, with the furthest marker.
        assert np.array_equal(st.score[:, [0, 2]], st.score[:, [1, 3]])
        assert np.array_equal(st.genes[:, [0, 2]], st.genes[:, [1, 3]])
        assert set(np.unique(st.winner)) <= {0, 2}
        assert (st.score[np.arange(len(st.winner)), st.winner] == st.score.max(axis=1)).all()
        choosing = FLAG_SETS[variant][flags].get("double2_colour_order", "choice") == "choice"
        colour_decisions = int(b.workspace.tally[:, tally.DECISION + COLOUR].sum())
        assert (colour_decisions > 0) == choosing  # TB4: a COLOUR decision only with "choice"


@pytest.mark.parametrize("variant", ["double1", "double2"])
def test_TA4_the_engine_winner_is_the_player_of_the_rows(params, variant):
    """TA4 (issue 31): the engine's winner (st.winner, the end event) is the winning player's first
    colour, the player whose worse marker is further ahead (double play II: its one marker, TB3)
    - the player that soup simulate's rows mark ``won``. Double play I used to name the colour with
    the furthest marker (56 of 300 random games a different player)."""
    b = _batch(load_rules(), params, variant, 10, 300)
    B.play(b, threads=2)
    fail_on_error(b)
    st = b.state
    owner = np.asarray(VARIANT_PLAYER_OF[variant])[st.winner]
    assert np.array_equal(owner, player_positions(st.score, variant).argmax(axis=1))
    assert set(np.unique(st.winner)) <= {0, 2}
    rows = pl.from_arrow(outcome_rows(b, 10, ["random", "greedy"], "x", variant))
    assert rows.filter(pl.col("won")).sort("game")["player"].to_list() == owner.tolist()
    if variant == "double1":  # the furthest marker and the result disagree in some games
        assert (np.asarray(VARIANT_PLAYER_OF[variant])[st.score.argmax(axis=1)] != owner).any()


def test_TA4_soup_play_names_the_player_with_the_better_worse_marker():
    """TA4 (issue 31): ``soup play --players 2 --variant double1 --seed 10`` ends with markers
    [37, 24, 32, 36]: player 0 (colours 0, 1) has 24, player 1 (colours 2, 3) 32, so player 1
    wins - in the JSON (winner: its first colour, whose seat's owner is 1; the end event) and in
    the text (it printed "P0 wins": colour 0 has the furthest marker)."""
    args = ("play", "--players", "2", "--variant", "double1", "--seed", "10", "--strategies", "random")
    r = soup(*args, "--json")
    assert r.returncode == 0, r.stderr
    game = json.loads(r.stdout)
    positions = game["final_positions"]
    owners = [seat["owner"] for seat in game["seats"]]
    assert owners == [0, 0, 1, 1]
    worse = [min(x for x, q in zip(positions, owners, strict=True) if q == p) for p in (0, 1)]
    assert positions.index(max(positions)) == 0 and worse[1] > worse[0]  # the case of the issue
    assert owners[game["winner"]] == 1
    assert [e["winner"] for e in game["events"] if e["type"] == "end"] == [game["winner"]]
    r = soup(*args)
    assert r.returncode == 0, r.stderr
    assert f"player 1 wins (P2 and P3: worse marker {worse[1]} against {worse[0]})" in r.stdout
    assert "P0 wins" not in r.stdout


@pytest.mark.parametrize("variant", ["double1", "double2"])
def test_greedy_double_play_games_keep_every_invariant(params, variant):
    b = _batch(load_rules(), params, variant, 7, 300, players=(1, 1), check_invariants=True)
    B.play(b, threads=2)
    fail_on_error(b)
    assert (b.state.space >= 0).sum(axis=2).mean() > 2


@pytest.mark.parametrize("variant", ["double1", "double2"])
def test_double_play_games_are_deterministic_for_any_threads_and_blocks(params, variant):
    """§0: a game is a pure function of (rules, strategies, seed, game index)."""
    book = load_rules()
    a = _batch(book, params, variant, 99, 400, n_blocks=1)
    b = _batch(book, params, variant, 99, 400, n_blocks=13)
    B.play(a, threads=1)
    B.play(b, threads=2)
    assert np.array_equal(outcome_digest(a.state), outcome_digest(b.state))
    c = _batch(book, params, variant, 100, 400)
    B.play(c)
    assert not np.array_equal(outcome_digest(a.state), outcome_digest(c.state))


def test_TA1_TB1_double_plays_are_4_player_games(rulebook):
    """TA1: double play I is a 4-player game, nothing else changed. TB1-TB3, TB7: double play II
    has the 4-player board, food, feeding, Tentacle and deck, no setup DP, 4 BP to start, 10
    income, and new amoebas for 4 (3 with Division Rate)."""
    four = rulebook.for_players(4)
    one = rulebook.for_players(2, "double1")
    two = rulebook.for_players(2, "double2")
    for ru in (one, two):
        assert ru.players == 4 and ru.tentacle_cubes == four.tentacle_cubes == 3
        assert np.array_equal(ru.gene_copies, four.gene_copies)
        assert np.array_equal(ru.standard_shape, four.standard_shape)
        assert list(ru.team) == list(VARIANT_PLAYER_OF["double1"])
    assert (one.setup_first_dp, one.start_bp, one.income, one.division_cost) == (
        four.setup_first_dp,
        four.start_bp,
        four.income,
        four.division_cost,
    )
    assert list(one.partner) == [-1] * 4 and list(one.side) == [0, 1, 2, 3]  # TA3: all opponents
    assert (two.setup_first_dp, two.start_bp, two.income) == (0, 4, 10)
    assert (two.division_cost, two.division_cost_division_rate) == (4, 3)
    assert list(two.partner) == [1, 0, 3, 2] and list(two.side) == [0, 0, 1, 1]  # TB10
    assert two.colour_choice
    flipped = load_rules(overrides={"flags": {"double1_partner_is_opponent": False}})
    assert list(flipped.for_players(2, "double1").side) == [0, 0, 1, 1]


def test_double_play_placeholders_are_named(rulebook):
    """TB3/TB4's PLACEHOLDER completions are named by a double play II run; double play I has
    none of its own (the deck's stays)."""
    named = rulebook.placeholders(2, "double2")
    assert {"flags.double2_colour_order", "flags.double2_start_bp", "flags.double2_income"} <= set(named)
    assert "environment.deck" in named
    assert not [n for n in rulebook.placeholders(2, "double1") if "double" in n]
    house = load_rules(overrides={"flags": {"double2_start_bp": 5}})
    assert "flags.double2_start_bp" not in house.placeholders(2, "double2")
    assert set(TB_FLAGS) >= {"double2_colour_order", "double2_income"}


def test_TB1_eating_the_partner_colour_as_ones_own_uses_the_3_player_shapes():
    """TB1's other reading (double2_eat_partner_colour = false): the partner's cubes are never
    eaten (rules.inedible) and the meals are the 3-player shapes over the opponent's colours."""
    book = load_rules(overrides={"flags": {"double2_eat_partner_colour": False}})
    ru = book.for_players(2, "double2")
    assert list(ru.inedible) == [1, 0, 3, 2] and list(ru.standard_shape) == [2, 1, 0]
    assert list(load_rules().for_players(2, "double2").inedible) == [-1] * 4
    assert list(book.for_players(2, "double1").inedible) == [-1] * 4  # double play II's flag alone


def _rows(out) -> pl.DataFrame:
    return runner.scan_chunks(runner.chunk_files(out)).collect().sort(["game", "player"])


@pytest.mark.parametrize("variant", ["double1", "double2"])
def test_rows_are_players_with_both_colours_outcomes(rulebook, tmp_path, variant):
    """TA2/TB3: one strategy a player decides for both its colours; one row a player. TA4: in
    double play I a player's result is its worse marker, and the better of the two players'
    worse markers wins. TB3: in double play II one marker a player."""
    strategies = [load_strategy("greedy"), load_strategy("random")]
    run = UrsuppeRun(rulebook, 2, 5, strategies, seats=[0, 1], seating="rotate", variant=variant)
    runner.run(run, tmp_path / "a", 240, 120, 2)
    rows = _rows(tmp_path / "a")
    assert rows.height == 480 and set(rows["variant"].to_list()) == {variant}
    assert rows["strategy"].cast(pl.String).to_list() == ["greedy", "random"] * 240  # TA2
    positions = np.array(rows["colour_positions"].to_list())
    assert positions.shape == (480, 2) and np.array(rows["colour_amoebas"].to_list()).shape == (480, 2)
    assert (rows["amoebas"].to_numpy() == np.array(rows["colour_amoebas"].to_list()).sum(axis=1)).all()
    if variant == "double1":
        assert (rows["final_position"].to_numpy() == positions.min(axis=1)).all()  # TA4
    else:
        assert (positions[:, 0] == positions[:, 1]).all()
        assert (rows["final_position"].to_numpy() == positions[:, 0]).all()
    by_game = rows.group_by("game").agg(pl.col("won").sum(), pl.col("final_position").max().alias("best"))
    assert (by_game["won"] == 1).all()
    winners = rows.filter(pl.col("won"))
    assert winners.join(by_game, on="game")["final_position"].equals(
        winners.join(by_game, on="game")["best"].alias("final_position")
    )
    spec = json.loads((tmp_path / "a" / "manifest.json").read_text())["spec"]
    assert spec["variant"] == variant and spec["players"] == 2
    runner.run(run, tmp_path / "b", 240, 240, 1)
    assert rows.equals(_rows(tmp_path / "b"))


@pytest.mark.parametrize("variant", ["double1", "double2"])
def test_soup_play_simulate_and_report_a_double_play(tmp_path, variant):
    r = soup("play", "--players", "2", "--variant", variant, "--seed", "3", "--json")
    assert r.returncode == 0, r.stderr
    game = json.loads(r.stdout)
    assert game["players"] == 2 and game["variant"] == variant and len(game["final_positions"]) == 4
    out = tmp_path / "run"
    args = ("--players", "2", "--variant", variant, "--games", "600", "--out", str(out), "--quiet")
    r = soup("simulate", *args)
    assert r.returncode == 0, r.stderr
    assert f"variant {variant}" in r.stdout
    r = soup("report", str(out), "--out", str(tmp_path / "report"))
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "report" / "report.md").read_text()
    assert "- 2 players:" in md and "Player counts are never pooled" in md
    if variant == "double2":
        assert "`flags.double2_colour_order`" in md and "§17" in md


# --- strength: each non-trivial preset beats random in every 2-player variant ------------------

VARIANT_GAMES = 240  # a multiple of 24: rotate seating puts the 4 colours on every start space
CONTENDERS = [name for name in preset_names() if name not in ("random", "drifter")]


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["dummy", "double1", "double2"])
@pytest.mark.parametrize("name", CONTENDERS)
def test_preset_beats_random_in_every_2_player_variant(rulebook, name, variant):
    """TD, TA, TB: player 0 plays ``name`` against ``random``, seats rotated (S5 over the
    variant's colours); the lower end of the 95% Wilson interval of its win rate (a row a game)
    is above the fair share 1/2."""
    strategies = [load_strategy(name), load_strategy("random")]
    run = UrsuppeRun(rulebook, 2, 11, strategies, seats=[0, 1], seating="rotate", variant=variant)
    rows = pl.from_arrow(run.play_chunk(0, VARIANT_GAMES, 2))
    wins = int(rows.filter(pl.col("player") == 0)["won"].sum())
    low = float(wilson(wins, VARIANT_GAMES)[0])
    assert low > 0.5, f"{name} vs random, {variant}: {wins}/{VARIANT_GAMES} wins, 95% lower bound {low:.3f}"


def test_report_never_pools_two_player_variants(tmp_path):
    """Issue 11: a 2-player variant is another game; runs of two variants are refused in one
    line, not pooled under "2 players"."""
    for variant in ("dummy", "double2"):
        args = ("--players", "2", "--variant", variant, "--games", "100", "--out", str(tmp_path / variant))
        assert soup("simulate", *args, "--quiet").returncode == 0
    r = soup("report", str(tmp_path / "dummy"), str(tmp_path / "double2"), "--out", str(tmp_path / "r"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "different variants (dummy, double2)" in r.stderr and not (tmp_path / "r").exists()


def test_compare_ablate_and_tournament_play_a_2_player_variant(tmp_path):
    """Issue 11.7: the experiments accept --players 2 with a --variant (the arms are the
    variant's games; an ablation's deck is its colours' count)."""
    house = tmp_path / "house.toml"
    house.write_text("[economy]\ndivision_cost = 5\n")
    base = ("--players", "2", "--variant", "double1", "--quiet", "--threads", "2")
    r = soup("compare", "--rules", str(house), *base, "--games", "48", "--out", str(tmp_path / "c"))
    assert r.returncode == 0, r.stderr
    assert "2 players, variant double1" in r.stdout
    manifest = json.loads((tmp_path / "c" / "b" / "manifest.json").read_text())
    assert manifest["spec"]["variant"] == "double1"
    r = soup("ablate", "--gene", "Speed", *base, "--games", "48", "--out", str(tmp_path / "a"))
    assert r.returncode == 0, r.stderr
    r = soup(
        "tournament",
        "--strategies",
        "greedy,random",
        "--players",
        "2",
        "--variant",
        "double2",
        "--games",
        "48",
        "--quiet",
        "--no-plot",
        "--out",
        str(tmp_path / "t"),
    )
    assert r.returncode == 0, r.stderr
    assert "variant double2" in (tmp_path / "t" / "tournament.md").read_text()
    pair = next((tmp_path / "t").glob("00-*"))
    assert json.loads((pair / "manifest.json").read_text())["spec"]["variant"] == "double2"
