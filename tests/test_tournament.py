"""soup tournament: the Bradley-Terry fit on synthetic pairwise data, the win-rate matrix, the
head-to-head run design (equal seats for both strategies) and the command on a tiny run."""

import math
import sys
from itertools import combinations

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from analysis.tournament import (
    ELO,
    bradley_terry,
    bt_check,
    bt_goodness_of_fit,
    bt_ratings,
    expected_win_rate,
    game_winners,
    pair_counts,
    win_matrix,
)
from analysis.win_rates import load_results
from sim import runner
from sim.cli.app import app
from sim.ursuppe.experiments.tournament_run import TournamentRun, tournament_games
from strategies.ursuppe.params import load_strategy
from tests import processes

TRUE = {"a": -300.0, "b": -100.0, "c": 0.0, "d": 150.0, "e": 250.0}  # Elo scale, mean 0


def synthetic_pairs(rng, ratings, games):
    names = list(ratings)
    rows = []
    for x, y in combinations(names, 2):
        wins = rng.binomial(games, expected_win_rate(ratings[x], ratings[y]))
        rows.append({"a": x, "b": y, "games": games, "a_wins": int(wins)})
    return pl.DataFrame(rows), names


def test_bradley_terry_recovers_known_strengths():
    pairs, names = synthetic_pairs(np.random.default_rng(1), TRUE, 3000)
    ratings = bt_ratings(pairs, names)
    got = dict(zip(ratings["strategy"], ratings["rating"], strict=True))
    se = dict(zip(ratings["strategy"], ratings["se"], strict=True))
    assert sum(got.values()) == pytest.approx(0.0, abs=1e-6)
    for name, true in TRUE.items():
        assert abs(got[name] - true) < max(4 * se[name], 1.0), (name, got[name], true, se[name])
        assert se[name] < 20
    assert ratings["strategy"].to_list() == ["e", "d", "c", "b", "a"]
    assert (ratings["prior"] == 0).all()


def test_mm_solves_the_likelihood_equations():
    """At the MLE every strategy's expected wins equal its observed wins (the score equations)."""
    pairs, names = synthetic_pairs(np.random.default_rng(2), TRUE, 500)
    k = len(names)
    wins = np.zeros((k, k))
    for r in pairs.iter_rows(named=True):
        i, j = names.index(r["a"]), names.index(r["b"])
        wins[i, j], wins[j, i] = r["a_wins"], r["games"] - r["a_wins"]
    theta = bradley_terry(wins)
    q = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    expected = ((wins + wins.T) * q).sum(axis=1)
    np.testing.assert_allclose(expected, wins.sum(axis=1), rtol=1e-7)
    # Two strategies: the closed form theta_1 - theta_2 = log(w12 / w21).
    two = bradley_terry(np.array([[0.0, 30.0], [10.0, 0.0]]))
    assert two[0] - two[1] == pytest.approx(math.log(3.0))


def test_fisher_intervals_cover_about_95_percent():
    rng = np.random.default_rng(3)
    covered = []
    for _ in range(200):
        pairs, names = synthetic_pairs(rng, TRUE, 300)
        r = bt_ratings(pairs, names)
        truth = np.array([TRUE[s] for s in r["strategy"]])
        covered.extend(((r["ci_low"].to_numpy() <= truth) & (truth <= r["ci_high"].to_numpy())).tolist())
    assert 0.92 <= np.mean(covered) <= 0.98, np.mean(covered)


def test_anchor_and_a_strategy_that_never_wins():
    pairs = pl.DataFrame(
        [
            {"a": "x", "b": "y", "games": 100, "a_wins": 70},
            {"a": "x", "b": "z", "games": 100, "a_wins": 100},  # z never wins: infinite MLE
            {"a": "y", "b": "z", "games": 100, "a_wins": 100},
        ]
    )
    r = bt_ratings(pairs, ["x", "y", "z"], anchor="y")
    row = {s: (v, e) for s, v, e in zip(r["strategy"], r["rating"], r["se"], strict=True)}
    assert row["y"] == (0.0, 0.0)
    assert row["x"][0] > 0 > row["z"][0] and np.isfinite(row["z"][0])
    assert (r["prior"] == 0.5).all()
    # With pseudo-wins x vs y keeps about its observed odds 70:30.
    assert row["x"][0] == pytest.approx(ELO * math.log(70 / 30), rel=0.15)
    with pytest.raises(ValueError, match="anchor"):
        bt_ratings(pairs, ["x", "y", "z"], anchor="w")


def test_goodness_of_fit_flags_a_rock_paper_scissors_cycle():
    pairs, names = synthetic_pairs(np.random.default_rng(6), TRUE, 1000)
    ratings = bt_ratings(pairs, names)
    checked = bt_check(win_matrix(pairs, names), ratings)
    assert (checked["bt_z"].abs() < 4).all()
    assert bt_goodness_of_fit(checked, len(names))["p_value"] > 0.001  # the model is true here
    cycle = pl.DataFrame(
        [
            {"a": "rock", "b": "scissors", "games": 1000, "a_wins": 800},
            {"a": "scissors", "b": "paper", "games": 1000, "a_wins": 800},
            {"a": "paper", "b": "rock", "games": 1000, "a_wins": 800},
        ]
    )
    names = ["rock", "paper", "scissors"]
    r = bt_ratings(cycle, names)
    assert np.allclose(r["rating"], 0.0, atol=1e-6)  # no ranking explains a cycle
    fit = bt_goodness_of_fit(bt_check(win_matrix(cycle, names), r), 3)
    assert fit["df"] == 1 and fit["p_value"] < 1e-10


def test_goodness_of_fit_p_value_is_the_exact_chi_square_tail():
    """df = 1 (three strategies): the exact tail is erfc(sqrt(chi2 / 2)); Wilson-Hilferty gave
    2.0e-5 instead of 7.7e-6 at chi2 = 20 and 1.0e-8 instead of 2.5e-10 at 40."""
    names = ["x", "y", "z"]
    pairs = pl.DataFrame(
        [
            {"a": "x", "b": "y", "games": 400, "a_wins": 230},
            {"a": "y", "b": "z", "games": 400, "a_wins": 230},
            {"a": "z", "b": "x", "games": 400, "a_wins": 185},
        ]
    )
    fit = bt_goodness_of_fit(bt_check(win_matrix(pairs, names), bt_ratings(pairs, names)), 3)
    assert fit["df"] == 1 and fit["chi2"] > 0
    assert fit["p_value"] == pytest.approx(math.erfc(math.sqrt(fit["chi2"] / 2)), rel=1e-12)
    pairs, names = synthetic_pairs(np.random.default_rng(6), TRUE, 1000)  # df = 10 - 5 + 1 = 6
    fit = bt_goodness_of_fit(bt_check(win_matrix(pairs, names), bt_ratings(pairs, names)), 5)
    h = fit["chi2"] / 2  # even df: a Poisson sum
    assert fit["df"] == 6
    assert fit["p_value"] == pytest.approx(math.exp(-h) * (1 + h + h * h / 2), rel=1e-12)


def test_heatmap_is_pyplot_free_and_atomic(tmp_path):
    """Drawing must not import pyplot (global state, GUI backends), and a failed save must leave
    the previous PNG intact and no temporary file behind."""
    code = (
        "import sys, polars as pl\n"
        "from analysis.tournament import heatmap, win_matrix\n"
        "pairs = pl.DataFrame([{'a': 'x', 'b': 'y', 'games': 10, 'a_wins': 7}])\n"
        f"heatmap(win_matrix(pairs, ['x', 'y']), ['x', 'y'], {str(tmp_path / 'h.png')!r})\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot imported'\n"
    )
    r = processes.run([sys.executable, "-c", code])
    assert r.returncode == 0, r.stderr
    png = (tmp_path / "h.png").read_bytes()
    assert png.startswith(b"\x89PNG") and sorted(p.name for p in tmp_path.iterdir()) == ["h.png"]

    from analysis.figure_files import save_atomic
    from analysis.tournament import heatmap_figure

    fig = heatmap_figure(
        win_matrix(pl.DataFrame([{"a": "x", "b": "y", "games": 10, "a_wins": 7}]), ["x", "y"]), ["x", "y"]
    )

    def broken(path, **kwargs):
        open(path, "wb").write(b"half")
        raise OSError("disk full")

    fig.savefig = broken
    with pytest.raises(OSError, match="disk full"):
        save_atomic(fig, tmp_path / "h.png")
    assert (tmp_path / "h.png").read_bytes() == png and sorted(p.name for p in tmp_path.iterdir()) == [
        "h.png"
    ]


def test_win_matrix_is_complementary():
    pairs, names = synthetic_pairs(np.random.default_rng(4), TRUE, 200)
    m = win_matrix(pairs, names)
    assert m.height == len(names) * (len(names) - 1)
    rate = {(r["strategy"], r["opponent"]): r for r in m.iter_rows(named=True)}
    for x, y in combinations(names, 2):
        assert rate[x, y]["win_rate"] + rate[y, x]["win_rate"] == pytest.approx(1.0)
        assert rate[x, y]["ci_low"] <= rate[x, y]["win_rate"] <= rate[x, y]["ci_high"]
        assert rate[x, y]["games"] == rate[y, x]["games"] == 200


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_both_strategies_hold_every_seat_equally_often(rulebook, tmp_path, players):
    games = tournament_games(1, players)
    assert games == {3: 12, 4: 48, 5: 20, 6: 12}[players]  # twice the S5 rotate block
    spec = TournamentRun(
        rulebook, players, 9, [load_strategy("greedy"), load_strategy("breeder")], seating="rotate"
    )
    runner.run(spec, tmp_path / "run", games, games, 1)
    rows = load_results(tmp_path / "run").collect()
    counts = rows.group_by("strategy", "start_space").len()
    assert counts.height == 2 * players and counts["len"].n_unique() == 1  # every (strategy, seat) alike
    per_game = rows.group_by("game").agg((pl.col("strategy") == "greedy").sum().alias("greedy"))
    # A,B,A(,B..) and B,A,B(,A..) tables: P/2 seats each, or (P-1)/2 and (P+1)/2 alternately
    assert sorted(per_game["greedy"].unique().to_list()) == sorted({players // 2, (players + 1) // 2})
    winners = game_winners(rows)
    counted = pair_counts("greedy", "breeder", winners)
    assert counted["games"] == games and 0 <= counted["a_wins"] <= games


def test_tournament_command_on_a_tiny_run(tmp_path):
    out = tmp_path / "t"
    args = ["tournament", "--strategies", "random,greedy,breeder", "--players", "3", "--games", "20"]
    r = CliRunner().invoke(app, [*args, "--out", str(out), "-q", "--anchor", "random"])
    assert r.exit_code == 0, (r.stdout, r.stderr, r.exception)
    assert "Bradley-Terry" in r.stdout and "24 games per pair" in r.stdout  # 20 rounded up to 2 x 3!
    m = pl.read_csv(out / "tournament-matrix.csv")
    assert m.height == 6 and set(m["strategy"]) == {"random", "greedy", "breeder"}
    assert ((m["win_rate"] >= 0) & (m["win_rate"] <= 1)).all() and (m["games"] == 24).all()
    rate = {(r["strategy"], r["opponent"]): r["win_rate"] for r in m.iter_rows(named=True)}
    for x, y in combinations(["random", "greedy", "breeder"], 2):
        assert rate[x, y] + rate[y, x] == pytest.approx(1.0, abs=1e-5)  # CSV: 6 significant digits
    ratings = pl.read_csv(out / "tournament-ratings.csv")
    assert ratings.height == 3
    assert ratings.filter(pl.col("strategy") == "random")["rating"][0] == 0.0
    assert ratings.filter(pl.col("strategy") == "breeder")["rating"][0] > 0  # breeder beats random
    assert (out / "tournament-heatmap.png").stat().st_size > 1000
    assert len(list(out.glob("0*-vs-*"))) == 3


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--strategies", "greedy"], "at least two"),
        (["--strategies", "greedy,greedy"], "each strategy once"),
        (["--strategies", "greedy,chess"], "chess"),
        (["--strategies", "greedy,breeder", "--anchor", "random"], "--anchor"),
    ],
)
def test_tournament_bad_input(args, needle):
    """Bad values of the tournament's own options (in-process)."""
    r = CliRunner().invoke(app, ["tournament", *args, "--games", "12"])
    assert r.exit_code == 2
    assert (
        r.stderr.startswith("soup: error: ")
        and needle in r.stderr
        and len(r.stderr.strip().splitlines()) == 1
    )


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--rules", "{dir}"], "cannot read"),
        (["--rules", "{bad}"], "TOML syntax error"),
        (["--games", "0"], "--games"),
        (["--out", "{file}"], "--out"),
        (["--out", "{file}/t"], "--out"),
    ],
)
def test_tournament_bad_files_one_line_exit_2_nothing_written(tmp_path, args, needle):
    """As a user runs it (a subprocess): one line, exit 2, and no directory or file created."""
    from tests.test_paired import run_as_user

    (tmp_path / "dir").mkdir()
    (tmp_path / "bad.toml").write_text("[economy\n")
    (tmp_path / "file").write_text("keep me")
    before = sorted(tmp_path.rglob("*"))
    names = {"dir": tmp_path / "dir", "bad": tmp_path / "bad.toml", "file": tmp_path / "file"}
    r = run_as_user(
        "tournament",
        "--strategies",
        "greedy,breeder",
        "--games",
        "12",
        *[a.format(**names) for a in args],
        "-q",
    )
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("soup: error: ") and needle in lines[0], r.stderr
    assert sorted(tmp_path.rglob("*")) == before and (tmp_path / "file").read_text() == "keep me"


def test_tournament_equilibrium_with_a_tuned_strategy_file(tmp_path):
    # A strategy file as soup tune writes it (tuned.toml: name, extends a preset, tuned values)
    # plays in the tournament under its own name, and the equilibrium is written and printed.
    tuned = tmp_path / "tuned.toml"
    tuned.write_text(
        'name = "greedy-tuned"\ndescription = "as soup tune writes it"\nextends = "greedy"\n'
        "[gene_value]\nother = 3.0\n"
    )
    out = tmp_path / "t"
    args = ["tournament", "--strategies", f"random,breeder,{tuned}", "--players", "3", "--games", "48"]
    r = CliRunner().invoke(app, [*args, "--out", str(out), "-q", "--no-plot"])
    assert r.exit_code == 0, (r.stdout, r.stderr, r.exception)
    assert "Equilibrium of the meta-game" in r.stdout and "equilibrium: " in r.stdout
    eq = pl.read_csv(out / "tournament-equilibrium.csv")
    assert eq.columns == ["strategy", "weight", "in_support", "regret"]
    assert eq["strategy"].to_list() == ["random", "breeder", "greedy-tuned"]
    assert eq["weight"].sum() == pytest.approx(1.0, abs=1e-5)
    assert (eq["weight"] >= 0).all() and (eq["regret"] >= 0).all()
    assert (eq.filter("in_support")["regret"] < 1e-5).all()
    assert (eq["in_support"] == (eq["weight"] > 0)).all()
    # The mix is the equilibrium of the written matrix: against every strategy it wins >= 1/2.
    m = pl.read_csv(out / "tournament-matrix.csv")
    from analysis.equilibrium import equilibrium

    again = equilibrium(m, eq["strategy"].to_list())
    assert list(again.mix.values()) == pytest.approx(eq["weight"].to_list(), abs=1e-5)
    md = (out / "tournament.md").read_text()
    assert "## Equilibrium" in md and "greedy-tuned" in md
