"""soup verdict and soup calibrate (issue 20.4-20.6, docs/verdicts.md), run as a user runs them."""

import csv
import subprocess
from pathlib import Path

import numpy as np
import pytest

from sim.errors import UserError
from sim.ursuppe.cli import verdict as cli_verdict
from sim.ursuppe.experiments import calibrate as C
from sim.ursuppe.experiments import gene_value as G
from sim.ursuppe.experiments import restricted as R
from sim.ursuppe.experiments import tuning as T
from sim.ursuppe.experiments import verdict as V
from sim.ursuppe.experiments.readings import flags_touching, readings
from sim.ursuppe.rules.book import load_rules
from tests.test_tuning import soup as run_soup

ROOT = Path(__file__).resolve().parent.parent
SMALL = [
    "--players",
    "3",
    "--games",
    "600",
    "--option-budget",
    "0",
    "--fields",
    "greedy",
    "--holders",
    "greedy",
    "--search",
    "none",
    "-q",
]


def soup(*args: str) -> subprocess.CompletedProcess:
    return run_soup(*args)  # tests/test_tuning.py's: the command line of this checkout


def test_the_cli_defaults_are_the_experiments():
    assert cli_verdict.DEFAULT_GAMES == V.DEFAULT_GAMES
    assert cli_verdict.DEFAULT_DECKS == V.DEFAULT_DECKS
    assert cli_verdict.DEFAULT_OPTION_BUDGET == V.DEFAULT_OPTION_BUDGET
    assert cli_verdict.DEFAULT_OPTION_REPLICATES == G.DEFAULT_REPLICATES
    assert cli_verdict.DEFAULT_SEARCH == R.DEFAULT_SEARCH
    assert cli_verdict.DEFAULT_SEARCH_GAMES == R.DEFAULT_SEARCH_GAMES
    assert cli_verdict.DEFAULT_FIELD_GAMES == R.DEFAULT_FIELD_GAMES
    defaults = (cli_verdict.DEFAULT_GAMES, cli_verdict.DEFAULT_SEARCH_GAMES, cli_verdict.DEFAULT_DECKS)
    assert V.BUDGETS["default"] == V.budget_sizes("default") == defaults


def test_readings_come_from_the_flag_tables():
    assert [f for f, _ in flags_touching("Holding")] == [
        "holding_clings_to_own",
        "clinging_after_first_step",
        "persistence_after_clinging",
    ]
    ec = flags_touching("Energy Conservation")
    assert ("energy_conservation_requires_move", (True, False)) in ec  # XG-21's row
    assert flags_touching("Intelligence") == []
    labels = [label for label, _ in readings(load_rules(), "Defense")]
    assert labels == ["defense_and_escape_same_attack = false", "answers_once_per_round = true"]


def test_verdict_writes_a_verdict_that_names_its_conditions_and_is_deterministic(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    r = soup("verdict", "--gene", "Holding", "--decks", "1", "--out", str(a), *SMALL)
    assert r.returncode == 0, r.stderr
    assert "detectable effect" in r.stderr and "Holding value:" in r.stdout
    rows = list(csv.DictReader((a / V.RESULT_CSV).open()))
    kinds = {row["kind"] for row in rows}
    assert kinds == {"headline", "panel", "reading"}  # the panel: holder greedy, every other seat greedy
    readings_run = {row["condition"] for row in rows if row["kind"] == "reading"}
    assert readings_run == {label for label, _ in readings(load_rules(), "Holding")}
    null = next(row for row in rows if row["reference"] == "null")
    assert float(null["low"]) <= 0 <= float(null["high"])
    assert {row["reference"] for row in rows} == {"gene", "plain", "bp", "null"}
    text = (a / V.RESULT_MD).read_text()
    assert "## Conditions" in text and "Placeholders used" in text and "Null gene (must read 0;" in text
    assert text.splitlines()[2].startswith("**Bottom line: Holding is")
    assert int(null["differ"]) > 0 and "no game differs" not in text  # the null gene changes games
    assert any(w in text for w in ("ROBUST", "CONDITIONAL", "NOT SHOWN"))
    r = soup("verdict", "--gene", "Holding", "--decks", "1", "--out", str(b), *SMALL)
    assert r.returncode == 0, r.stderr
    for name in (V.RESULT_CSV, V.RESULT_JSON):
        assert (a / name).read_text() == (b / name).read_text()


def spores_plan(decks):
    """A small verdict on Spores: 3 players, 600 games, greedy alone, no readings, option value
    nor search player."""
    return V.plan_verdict(
        "Spores",
        3,
        games=600,
        decks=decks,
        with_readings=False,
        option_budget=0,
        fields=("greedy",),
        holders=("greedy",),
        search=None,
    )


def test_verdict_resumes_and_ctrl_c_keeps_the_finished_units(tmp_path, monkeypatch):
    """An interrupt after two units keeps them; the same call finishes with the same files as an
    uninterrupted run."""
    plan = spores_plan(decks=1)
    whole = tmp_path / "whole"
    V.run_verdict(plan, whole, 2)
    calls = 0
    real = G.measure_unit

    def interrupt(*args, **kwargs):
        nonlocal calls
        calls += 1
        if calls == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    part = tmp_path / "part"
    monkeypatch.setattr(G, "measure_unit", interrupt)
    with pytest.raises(KeyboardInterrupt):
        V.run_verdict(plan, part, 2)
    assert len(list((part / "headline" / "units").glob("*.npz"))) == 3  # no gift + 2 units
    monkeypatch.setattr(G, "measure_unit", real)
    V.run_verdict(plan, part, 2)
    assert (part / V.RESULT_CSV).read_text() == (whole / V.RESULT_CSV).read_text()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--gene", "Telepathy"], "unknown gene"),
        (["--gene", "Tentacle", "--games", "100"], "multiple of 6"),
        (["--gene", "Tentacle", "--decks", "0"], "--decks"),
        (["--gene", "Tentacle", "--holders", "nobody"], "nobody"),
        (["--gene", "Tentacle", "--option-budget", "-1"], "--option-budget"),
        (["--gene", "Tentacle", "--budget", "huge"], "--budget: expected one of quick, default, full"),
        (["--gene", "Tentacle", "--backend", "cloud"], "--backend: expected one of local, ray"),
        (["--gene", "Tentacle", "--ray-address", "10.0.0.5:6379"], "--ray-address: only with --backend ray"),
    ],
)
def test_bad_verdict_input_is_one_line_before_any_work(tmp_path, args, words):
    r = soup("verdict", "--players", "3", "--out", str(tmp_path / "out"), "-q", *args)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("soup: error:") and words in lines[0], lines
    assert not (tmp_path / "out").exists()


def test_an_extra_gene_is_judged_with_the_extra_genes_on():
    plan = V.plan_verdict("Energy Conservation", 4, games=24, decks=1, option_budget=0)
    assert plan.book.data["flags"]["extra_genes"]
    assert "energy_conservation_requires_move = true" in plan.readings


def test_calibrate_points_a_planted_too_cheap_gene_back_up(tmp_path, house_rules):
    """Issue 32.2: a house rule makes Division Rate free. Holding it minus holding its price in BP
    that player 0 may not spend on it falls with the price and crosses 0 well above the planted
    price, with an interval; no value's two arms are the same games (before, breeder spent a
    plain BP gift on Division Rate at once and the curve read +0.0 [+0.0, +0.0] by identity)."""
    import numpy as np

    rules = house_rules('[genes."Division Rate"]\nprice = 0\n', "cheap.toml")
    out = tmp_path / "cal"
    r = soup(
        "calibrate", "--gene", "Division Rate", "--design", "holding", "--values", "0,4,8,12,16",
        "--players", "3", "--games", "600", "--rules", str(rules), "--out", str(out), "-q",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stderr.startswith("calibrate Division Rate, price at 0, 4, 8, 12, 16")  # the budget first
    doc = __import__("json").loads((out / C.RESULT_JSON).read_text())
    assert doc["current"] == 0 and doc["direction"] == "up"
    assert isinstance(doc["neutral_low"], float) and 4 < doc["neutral_low"] <= doc["neutral"]
    assert isinstance(doc["neutral_high"], float) and doc["neutral_high"] < 16
    est = [p["estimate"] for p in doc["points"]]
    assert doc["points"][0]["low"] > doc["points"][-1]["high"] and est[0] > 0 > est[-1]
    for v in (0, 16):
        units = out / "values" / f"price-{v}" / "units"
        with (
            np.load(units / "division-rate.npz") as a,
            np.load(units / "bp_forbidden-division-rate.npz") as b,
        ):
            assert (a["won_with"] != b["won_with"]).sum() > 30
    assert "95% bootstrap over the games" in (out / C.RESULT_MD).read_text()


def test_neutral_interpolates_the_first_sign_change():
    assert C.neutral([0, 2, 4], [0.2, 0.1, -0.1]) == (3.0, 2, "in")
    assert C.neutral([0, 1], [0.3, 0.1]) == (None, 1, "above")  # falling towards 0: beyond the top
    assert C.neutral([0, 1], [-0.1, -0.3]) == (None, 0, "below")


def test_bad_calibrate_input_is_one_line(tmp_path):
    for args, words in (
        (["--key", "copies"], "--key"),
        (["--values", "3"], "at least 2"),
        (["--values", "a,b"], "integers"),
        (["--design", "forced"], "--design"),
    ):
        r = soup("calibrate", "--gene", "Tentacle", "--out", str(tmp_path / "o"), "-q", *args)
        assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    with pytest.raises(UserError, match="--values: 100000"):
        C.plan_calibration("Tentacle", "price", [1, 100000], "holding", 3, games=6)


def test_calibrate_is_deterministic_and_resumes(tmp_path):
    cal = C.plan_calibration("Spores", "price", [1, 4], "holding", 3, games=600)
    a = C.run_calibration(cal, tmp_path / "a", 2)
    (tmp_path / "a" / C.RESULT_JSON).unlink()
    (tmp_path / "a" / "values" / "price-4" / "units" / "spores.npz").unlink()  # an interrupted value
    b = C.run_calibration(cal, tmp_path / "a", 2)
    c = C.run_calibration(cal, tmp_path / "c", 2)
    assert a["points"] == b["points"] == c["points"]
    assert (tmp_path / "a" / C.RESULT_CSV).read_text() == (tmp_path / "c" / C.RESULT_CSV).read_text()


def test_ctrl_c_says_what_is_kept_and_how_to_continue(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from sim.cli.app import app

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(V, "run_verdict", interrupted)
    out = tmp_path / "v"
    r = CliRunner().invoke(app, ["verdict", "--gene", "Spores", "--decks", "1", "--out", str(out), *SMALL])
    assert r.exit_code == 130
    assert (
        f"every finished unit is kept in {out}" in r.output and "the same command continues: soup" in r.output
    )


def test_verdict_over_decks_plays_the_family_and_reports_the_spread(tmp_path):
    plan = spores_plan(decks=3)
    assert [c.kind for c in plan.conditions].count("deck") == 2 and len(plan.deck_labels) == 3
    assert plan.conditions[-1].setting.book.deck_description() != plan.book.deck_description()
    doc = V.run_verdict(plan, tmp_path, 2)
    holding = doc["designs"]["holding"]
    rows = [r for r in csv.DictReader((tmp_path / V.RESULT_CSV).open()) if r["reference"] == "gene"]
    decks = [float(r["estimate"]) for r in rows if r["kind"] in ("headline", "deck")]
    assert holding["deck_spread"] == pytest.approx([min(decks), max(decks)], abs=1e-6)
    assert holding["same_sign_every_deck"] == (all(d > 0 for d in decks) or all(d < 0 for d in decks))
    assert "V6 plausible-deck family" in (tmp_path / V.RESULT_MD).read_text()


def test_labels_say_how_far_a_headline_was_tried():
    def row(estimate, p, condition="c"):
        return {"estimate": estimate, "p_value": p, "condition": condition}

    assert V.label([row(0.1, 0.001), row(0.06, 0.01)]) == ("robust", [])
    assert V.label([row(0.1, 0.001), row(-0.05, 0.01, "deck 2"), row(0.05, 0.2, "panel")]) == (
        "conditional",
        ["deck 2", "panel"],
    )
    assert V.label([row(0.1, 0.001)]) == ("headline only", [])
    assert V.label([row(0.1, 0.3), row(0.1, 0.001)]) == ("not shown", [])


def test_ablate_takes_the_null_gene_as_its_reference_arm(tmp_path, house_rules):
    """Ablation's reference arm: a null gene declared in a house rule and removed reads 0."""
    import polars as pl

    null_gene = '[genes."Null gene"]\neffect = "none"\nprice = 0\nmp = 0\ncopies = 1\nweight = 0\n'
    rules = house_rules(null_gene, "null.toml")
    out = tmp_path / "abl"
    r = soup(
        "ablate", "--gene", "null gene", "--rules", str(rules), "--players", "3", "--games", "600",
        "--pool", "greedy,breeder", "--out", str(out), "-q",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    table = pl.read_csv(out / "ablation.csv").filter(pl.col("family") == "win rate by strategy")
    assert table.height == 2 and (table["ci_low"] <= 0).all() and (table["ci_high"] >= 0).all()


def _arm(with_rate: float, without_rate: float, n: int = 100, kept=(False, False), bought=0.5) -> dict:
    won_with = np.arange(n) < round(with_rate * n)
    won_without = np.arange(n) < round(without_rate * n)
    return {
        "won_with": won_with,
        "won_without": won_without,
        "kept_start": np.array(kept),
        "bought_with": np.float64(bought),
    }


def test_option_value_interval_covers_the_spread_between_tunings():
    """Issue 32.1: replicates that disagree (tuning noise) widen the interval past 0, though each
    replicate's own fresh-game interval would exclude 0; the interval is scipy's t over them."""
    from scipy import stats

    reps = [_arm(0.50, 0.40), _arm(0.40, 0.42), _arm(0.45, 0.40)]
    c = G.replicated(reps)
    diffs = np.array([0.10, -0.02, 0.05])
    lo, hi = stats.t.interval(0.95, 2, loc=diffs.mean(), scale=stats.sem(diffs))
    assert c["estimate"] == pytest.approx(diffs.mean())
    assert (c["ci_low"], c["ci_high"]) == pytest.approx((lo, hi))
    assert c["ci_low"] < 0 < c["ci_high"] and c["measured"]
    assert c["p_value"] == pytest.approx(stats.ttest_1samp(diffs, 0).pvalue)


@pytest.mark.parametrize(
    ("kept", "bought", "words"),
    [((True, False), 0.5, "kept its start"), ((False, False), 0.004, "0.4% of their games")],
)
def test_an_option_nobody_tuned_or_used_is_not_measured(kept, bought, words):
    """Issue 32.1: an arm that kept its start, or a gene bought in under 1% of the allowed arm's
    games, is 'not measured at this budget', not a number."""
    reps = [
        _arm(0.5, 0.4, bought=bought),
        _arm(0.5, 0.4, kept=kept, bought=bought),
        _arm(0.5, 0.4, bought=bought),
    ]
    c = G.replicated(reps)
    assert not c["measured"] and words in "; ".join(c["not_measured_because"])
    assert V.label([{"estimate": 0.1, "p_value": 0.001, "measured": False}]) == (
        "not measured at this budget",
        [],
    )


def test_replicates_tune_on_seeds_of_their_own():
    plan = V.plan_verdict("Tentacle", 4, games=24, decks=1, with_readings=False)
    seeds = {plan.option_config(r).seed for r in range(plan.option_replicates)}
    assert plan.option_config(0).seed == plan.seed and len(seeds) == plan.option_replicates == 3
    fresh = {T.fresh_seed(s) for s in seeds}
    assert len(fresh) == 3  # each replicate plays fresh games of its own: independent draws
    with pytest.raises(UserError, match="--option-replicates"):
        V.plan_verdict("Tentacle", 4, games=24, decks=1, option_replicates=1)


def test_the_budget_lines_say_what_will_be_played():
    """Issue 32.7: no '+ option value' when --option-budget 0 skips it; calibrate has a line too."""
    plan = V.plan_verdict("Tentacle", 4, games=24, decks=1, with_readings=False, option_budget=0)
    line = V.budget_line(plan)
    assert "no option value (--option-budget 0)" in line and "+ option value" not in line
    plan = V.plan_verdict("Tentacle", 4, games=24, decks=1, with_readings=False, option_design="tuned")
    line = V.budget_line(plan)
    assert "option value by tuned arms: 3 tuning replicates x 6 arms x 120,000 tuning games" in line
    cal = C.plan_calibration("Spores", "price", [1, 4], "holding", 3, games=600)
    assert C.budget_line(cal).startswith("calibrate Spores, price at 1, 4")


def test_the_budget_line_states_games_search_games_time_and_detectable_effect():
    """Issue 34.4: before any game the line gives the games and search games, the time (from the
    measured costs: a scripted game, a search game at its budget, the threads; search games one a
    thread here, 1.35x on 2 threads, one a worker on Ray), the detectable effects, and what the
    other --budgets take and detect; the default fits the issue's 30 minutes on 2 cores."""

    def plan(budget: str) -> V.Plan:
        games, search_games, decks = V.budget_sizes(budget)
        return V.plan_verdict("Tentacle", 4, None, games, decks, search_games=search_games)

    plans = {b: plan(b) for b in V.BUDGETS}
    default = plans["default"]
    others = {b: p for b, p in plans.items() if b != "default"}
    line = V.budget_line(default, V.Machine(2), "default", others)
    mirror = 2 * R.DEFAULT_FIELD_GAMES  # the cell against a field of search players: 2 arms
    assert line.startswith("verdict on Tentacle, 4 players, --budget default: 11 conditions")
    assert f"{446_688 + mirror:,} games in all ({2_688 + mirror:,} with a search player)" in line
    one_seat = V.SEARCH_GAME_S[0] + 16 * V.SEARCH_GAME_S[1]  # a search-16 game, one search seat
    searched = (2_688 + mirror) * one_seat + mirror * 3 * one_seat  # the mirror's 3 other seats
    scripted = (446_688 - 2_688) * V.SCRIPTED_GAME_S
    assert default.seconds(2) == pytest.approx(searched / V.THREADED_SEARCH + scripted / 2)
    assert f"{V.duration(searched / V.THREADED_SEARCH + scripted / 2)} on 2 threads;" in line
    assert default.seconds(2) < 30 * 60
    assert "detectable effect about 1.8 points with scripted holders (80% power, 12,000 games" in line
    assert "10.8 points with a search player (336 games an arm, --search-games)" in line
    quick, full = plans["quick"], plans["full"]
    assert quick.seconds(2) < default.seconds(2) < full.seconds(2)
    assert quick.detectable(96) > default.detectable(336) > full.detectable(1_344)
    assert (
        f"--budget trades precision for time: quick {V.duration(quick.seconds(2))} at 4.0/20.2 points, "
        f"full {V.duration(full.seconds(2))} at 0.9/5.4 points"
    ) in line
    ray = V.budget_line(default, V.Machine(2, "ray"))
    assert f"{V.duration(searched / 2 + scripted / 2)} on a local Ray instance of 2 CPUs" in ray
    assert "--budget" not in ray  # no budget named: --games and co. were given
    cluster = V.budget_line(default, V.Machine(2, "ray", "10.0.0.5:6379"))
    assert f"{searched / 60:.0f} CPU-minutes of search games shared by the Ray cluster's CPUs" in cluster


def test_a_budget_sets_the_sizes_not_given():
    """--budget quick|default|full: games, search games, decks; each given one wins; the search
    games are rounded up to the players' rotate block (10 at 5 players); a bad name is one line."""
    assert V.budget_sizes("quick") == (2_400, 96, 1)
    assert V.budget_sizes("full", games=480, decks=2) == (480, 1_344, 2)
    assert V.budget_sizes("default", players=5) == (12_000, 340, 4)
    assert V.budget_sizes("default", search_games=48, players=5) == (12_000, 48, 4)
    with pytest.raises(UserError, match="^--budget: expected one of quick, default, full, got 'huge'$"):
        V.budget_sizes("huge")


@pytest.mark.slow
def test_option_value_with_replicates_runs_through_the_verdict(tmp_path, monkeypatch):
    """Issue 32.1 and 32.3 end to end on a tiny budget: option value is measured over 3
    replicates (a row per unit with its replicates), the null gene's games differ under both
    designs, and a tuning that kept its start makes the gene 'not measured at this budget'."""
    monkeypatch.setattr(V, "OPTION_GAMES_PER_CANDIDATE", 24)
    monkeypatch.setattr(V, "OPTION_KEYS", ("bp_reserve", "division_base"))
    plan = V.plan_verdict(
        "Intelligence",
        3,
        games=240,
        decks=1,
        with_readings=False,
        option_budget=2000,
        fields=("mix",),
        holders=("breeder",),
        option_design="tuned",
        search=None,
    )
    doc = V.run_verdict(plan, tmp_path, 2)
    rows = list(csv.DictReader((tmp_path / V.RESULT_CSV).open()))
    nulls = [r for r in rows if r["reference"] == "null"]
    assert {r["design"] for r in nulls} == {"holding", "option"}
    assert all(int(r["differ"]) > 0 for r in nulls)
    option = doc["designs"]["option"]["headline"]
    assert len(option["replicates"]) == 3
    if not option["measured"]:
        assert doc["designs"]["option"]["verdict"] == "not measured at this budget"
        assert "NOT MEASURED AT THIS BUDGET" in (tmp_path / V.RESULT_MD).read_text()


def test_a_robust_label_needs_the_size_as_well_as_the_sign():
    """Issue 32.5: +42 under the rules and +17 under another reading is the same sign but not the
    same size: 'same sign, size varies', with the reading named and its number in the words."""

    def row(estimate, condition, kind="reading"):
        return {
            "estimate": estimate,
            "low": estimate - 0.01,
            "high": estimate + 0.01,
            "p_value": 1e-6,
            "condition": condition,
            "kind": kind,
        }

    rows = [row(0.424, "headline", "headline"), row(0.172, "requires_move = true"), row(0.45, "deck 1")]
    j = V.judge(rows)
    assert j["label"] == "same sign, size varies" and j["range"] == [0.172, 0.45]
    assert [r["condition"] for r in j["shrinks"]] == ["requires_move = true"] and not j["flips"]
    doc = {
        "gene": "Energy Conservation",
        "designs": {
            "holding": {
                "label": "holding value",
                "headline": rows[0],
                "verdict": j["label"],
                "conditions": 3,
                "references": {},
                **{k: j[k] for k in ("range", "flips", "erases", "shrinks", "grows")},
                "against": ["requires_move = true"],
            }
        },
    }
    text = V.words(doc)[0]
    assert "SAME SIGN, SIZE VARIES (+17.2 to +45.0 across 3 conditions)" in text
    assert "\n- shrinks it below half the headline (+21.2): requires_move = true (reading): +17.2" in text
    assert V.judge([row(0.4, "h", "headline"), row(0.3, "a"), row(0.7, "b")])["label"] == "robust"
    flips = V.judge([row(0.4, "h", "headline"), row(-0.3, "a")])
    assert flips["label"] == "conditional" and flips["flips"][0]["condition"] == "a"


def test_the_bottom_line_rule():
    """Issue 32.6 (docs/verdicts.md, The bottom line): too strong = beats its price in setup BP
    (paired); too weak = no effect shown beyond being a card; about right = in between."""

    def ci(lo, hi):
        return {"ci_low": lo, "ci_high": hi, "estimate": (lo + hi) / 2}

    assert V.bottom_class(ci(0.05, 0.2), ci(0.01, 0.1)) == "too strong"
    assert V.bottom_class(ci(0.05, 0.2), ci(-0.1, 0.05)) == "about right"
    assert V.bottom_class(ci(-0.02, 0.2), ci(-0.3, -0.1)) == "too weak"
    assert V.bottom_class(ci(-0.2, -0.1), ci(0.01, 0.1)) == "too strong"  # beats its price: strong anyway


def test_verdict_all_writes_one_table_a_designer_can_act_on(tmp_path):
    out = tmp_path / "all"
    r = soup(
        "verdict",
        "--all",
        "--players",
        "3",
        "--games",
        "30",
        "--decks",
        "1",
        "--no-readings",
        "--option-budget",
        "0",
        "--fields",
        "greedy",
        "--holders",
        "breeder",
        "--search",
        "none",
        "--out",
        str(out),
        "-q",
    )
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader((out / V.OVERVIEW_CSV).open()))
    genes = load_rules().genes_in_play(3, None)
    assert sorted(row["gene"] for row in rows) == sorted(genes)
    assert {row["bottom_line"] for row in rows} <= {"too strong", "about right", "too weak", "depends"}
    assert (out / V._slug(genes[0]) / V.RESULT_MD).exists()
    assert "| gene | price | bottom_line |" in (out / V.OVERVIEW_MD).read_text()
    r = soup("verdict", "--all", "--gene", "Spores", "--out", str(tmp_path / "x"), "-q")
    assert r.returncode == 2 and "--gene/--all" in r.stderr


def test_calibrate_option_value_runs_over_replicates_and_says_what_it_did_not_measure(tmp_path, monkeypatch):
    """Issue 32.1 in soup calibrate: option value at every value over independent tuning
    replicates; a value whose tuning kept its start is 'not measured at this budget' and the scan
    then points nowhere."""
    monkeypatch.setattr(V, "OPTION_GAMES_PER_CANDIDATE", 24)
    monkeypatch.setattr(V, "OPTION_KEYS", ("bp_reserve", "division_base"))
    cal = C.plan_calibration("Spores", "price", [1, 5], "option-tuned", 3, games=240, option_budget=1000)
    assert "3 tuning replicates" in C.budget_line(cal)
    doc = C.run_calibration(cal, tmp_path, 2)
    assert sorted(p.name for p in (tmp_path / "values" / "price-1").iterdir()) == ["rep-0", "rep-1", "rep-2"]
    if not all(p["measured"] for p in doc["points"]):
        assert doc["direction"] == "unknown"
        assert "Not measured at this budget" in (tmp_path / C.RESULT_MD).read_text()


def test_the_progress_bar_counts_work_so_its_eta_weighs_a_search_game_as_its_cost():
    """A verdict's bar counted games: the 444,000 scripted games raced ahead (ETA 18 s) and the
    2,688 search games crawled after them (ETA 4.9 days). It counts work: a game weighs its
    estimated cost, a search game thousands of scripted ones, a field of search players P seats;
    the weights add up to the plan's work, so the bar ends at 100% and its ETA is the time's."""
    from sim.cli.progress import work_share

    plan = V.plan_verdict("Tentacle", 4, None, 12_000, 4, search_games=336)
    weighted = sum(plan.condition_games(c) * plan.game_weight(c) for c in plan.conditions)
    weighted += plan.option_games() * plan.game_weight()
    assert weighted == pytest.approx(plan.work(), rel=1e-6)
    assert plan.work() == round(plan.seconds(1) / V.SCRIPTED_GAME_S)
    kinds = {c.kind: plan.game_weight(c) for c in plan.conditions}
    assert kinds["panel"] == 1 and kinds["strong"] > 1000
    assert kinds["mirror"] == pytest.approx(4 * kinds["strong"])  # every seat a search seat
    search_share = (weighted - plan.total_games() + plan.search_game_count()) / weighted
    assert search_share > 0.9  # the search games are most of the time, a sliver of the games

    class Task:
        completed, total = 250, 1000

    assert work_share(Task()) == "25% of the work"


def test_a_gene_the_restricted_search_seldom_bought_is_not_measured_at_this_budget():
    """Option value by restricted search, as the tuned design: where the allowed search bought the
    gene in under 1% of its games (Suction 2 at search-16: 0 of 48) its arms are the same games
    and the reading says nothing of the option: "not measured at this budget", with why; a
    reference row keeps its reading (the null gene must read 0 whether bought or not)."""
    plan = V.plan_verdict("Suction 2", 3, None, 24, 1, False, 1, 1, ("mix",), ("breeder",), search_games=12)
    cond = plan.option_condition()
    won = np.array([True, False] * 6)
    m = {"won_with": won, "won_without": won, "bought_with": np.float64(0.0), "differ": np.int64(3)}
    row = V._restricted_row(cond, G.Unit("gene", "Suction 2"), m, 12)
    assert not row["measured"] and "bought the gene in 0.0% of its games (under 1%)" in row["note"]
    assert V.judge([row])["label"] == "not measured at this budget"
    assert row["played"] == 3 and row["bought"] == 0.0
    assert V._restricted_row(cond, G.Unit("null", "Suction 2"), m, 12)["measured"]
    used = V._restricted_row(cond, G.Unit("gene", "Suction 2"), {**m, "bought_with": np.float64(0.04)}, 12)
    assert used["measured"]
