"""Paired experiments (soup compare, soup ablate): the paired estimator's error rate, power and
coverage on synthetic data, then the commands on real games: A vs A finds nothing, a real rule
change is found, an ablated gene is never bought."""

import math
import os
import sys

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from analysis.distributions import binomial_two_sided_p, t_quantile, t_two_sided_p
from analysis.intervals import cluster_contrast
from analysis.ursuppe.paired import (
    EXACT_BELOW,
    FAMILY_GAME,
    FAMILY_GENE,
    FAMILY_SEAT,
    FAMILY_STRATEGY,
    PairingError,
    ablation_summary,
    ablation_table,
    compare_runs,
    correct,
    paired_difference,
    sign_flip_p,
)
from analysis.win_rates import load_results
from sim.cli.app import app
from sim.ursuppe.engine.genes.division_rate import DIVISION_RATE
from sim.ursuppe.experiments.arms import ablated_rules
from sim.ursuppe.rules.genes import N_BASE_GENES
from tests import processes
from tests.test_cli import ROOT

P = 4
STRATEGY = np.array(["s0", "s1", "s0", "s1"])  # players 0 and 2 play s0


def synthetic_pair(rng, games, p_a, p_b, rho):
    """Winners of ``games`` 4-player games under A and B, coupled like common random numbers:
    both arms invert the same uniform (with probability rho; otherwise B draws afresh), so the
    marginals are exactly p_a and p_b and the arms are strongly correlated."""
    u = rng.random(games)
    u_b = np.where(rng.random(games) < rho, u, rng.random(games))
    win_a = np.minimum(np.searchsorted(np.cumsum(p_a), u), P - 1)
    win_b = np.minimum(np.searchsorted(np.cumsum(p_b), u_b), P - 1)
    won_a = (np.arange(P)[None, :] == win_a[:, None]).ravel().astype(float)
    won_b = (np.arange(P)[None, :] == win_b[:, None]).ravel().astype(float)
    return won_a, won_b, np.repeat(np.arange(games), P)


def s0_difference(rng, games, p_a, p_b, rho=0.8):
    won_a, won_b, game = synthetic_pair(rng, games, p_a, p_b, rho)
    mask = np.tile(STRATEGY == "s0", games)
    return paired_difference(won_a[mask], won_b[mask], game[mask], game[mask])


P_A = np.array([0.35, 0.25, 0.25, 0.15])
P_B = np.array([0.42, 0.22, 0.23, 0.13])  # s0: (0.42 + 0.23)/2 - (0.35 + 0.25)/2 = +0.025


def test_false_positive_rate_under_no_effect_is_five_percent():
    rng = np.random.default_rng(2024)
    p = np.array([s0_difference(rng, 300, P_A, P_A)["p_value"] for _ in range(400)])
    rate = (p < 0.05).mean()
    # 400 replications: the binomial standard deviation of a 5% rate is 1.1 points.
    assert 0.02 <= rate <= 0.085, rate


def test_interval_coverage_is_95_percent():
    rng = np.random.default_rng(7)
    true = (P_B[0] + P_B[2]) / 2 - (P_A[0] + P_A[2]) / 2
    results = [s0_difference(rng, 300, P_A, P_B) for _ in range(400)]
    covered = np.mean([r["ci_low"] <= true <= r["ci_high"] for r in results])
    assert 0.92 <= covered <= 0.98, covered
    assert np.mean([r["estimate"] for r in results]) == pytest.approx(true, abs=0.004)


def test_power_for_a_known_effect_is_high():
    rng = np.random.default_rng(11)
    p = np.array([s0_difference(rng, 3000, P_A, P_B)["p_value"] for _ in range(100)])
    assert (p < 0.05).mean() >= 0.9


def test_pairing_narrows_the_interval():
    """Common random numbers: the paired standard error is far below that of independent runs."""
    rng = np.random.default_rng(5)
    paired = s0_difference(rng, 2000, P_A, P_A, rho=0.9)["se"]
    won_a, won_b, game = synthetic_pair(rng, 2000, P_A, P_A, rho=0.0)
    mask = np.tile(STRATEGY == "s0", 2000)
    independent = paired_difference(won_a[mask], won_b[mask], game[mask], game[mask] + 10**6)["se"]
    assert paired < 0.5 * independent


def test_small_experiments_use_student_t():
    """The reviewer's case: 20 games, a seat's win changes in 5 of them, all one way. The normal
    reference gave p = 0.012 (Holm over 4 seats: 0.047, "significant"), though an exact sign test
    cannot go below 0.0625; Student's t on 19 df gives p = 0.021 and the Holm value 0.084."""
    games = 20
    y_a = np.zeros(games)
    y_b = np.r_[np.ones(5), np.zeros(games - 5)]
    cluster = np.arange(games)
    d = paired_difference(y_a, y_b, cluster, cluster)  # not declared 0/1: the t reference
    normal = cluster_contrast(
        np.r_[y_b, y_a],
        np.r_[np.zeros(games, int), np.ones(games, int)],
        np.array([1.0, -1.0]),
        np.r_[cluster, cluster],
    )
    assert d["estimate"] == normal["estimate"] == 0.25 and d["se"] == normal["se"]
    assert normal["p_value"] == pytest.approx(0.0118, abs=1e-3)
    assert d["clusters"] == games
    assert d["p_value"] == pytest.approx(t_two_sided_p(0.25 / d["se"], games - 1), rel=1e-12)
    assert d["p_value"] == pytest.approx(0.021, abs=1e-3)
    half = d["ci_high"] - d["estimate"]
    assert half == pytest.approx(t_quantile(0.975, games - 1) * d["se"]) and half > normal["ci_high"] - 0.25
    # In a comparison table, Holm over the four seats no longer calls it significant.
    won_a = np.zeros(games * P)
    won_a[0::P] = 1  # seat 1 wins every game under A
    won_b = won_a.copy()
    for g in range(5):  # ... and loses 5 of them to seat 2 under B
        won_b[g * P], won_b[g * P + 1] = 0, 1
    table = compare_runs(synthetic_rows(won_a, games), synthetic_rows(won_b, games))
    seat = table.filter(pl.col("family") == FAMILY_SEAT)
    assert not seat["significant"].any() and seat["p_holm"].min() > 0.05
    # A win rate is a 0/1 outcome and only 5 games changed: the table uses the exact sign test.
    changed = seat.filter(pl.col("discordant") > 0)
    assert changed["test"].to_list() == ["sign", "sign"] and changed["p_value"].to_list() == [0.0625] * 2


def binary_change(games, up, down=0):
    """0/1 outcomes of ``games`` games: ``up`` of them go 0 -> 1 under B, ``down`` go 1 -> 0."""
    y_a = np.r_[np.zeros(up), np.ones(down), np.zeros(games - up - down)]
    y_b = np.r_[np.ones(up), np.zeros(down), np.zeros(games - up - down)]
    return y_a, y_b, np.arange(games)


def test_few_discordant_games_use_the_exact_sign_test():
    """The reviewer's case: 3,000 games of which 4 changed, all the same way. t on 2,999 df says
    p = 0.046 (significant); under no effect each change is a fair coin, and 4 heads out of 4
    have p = 2 / 16 = 0.125. The evidence is the 4 discordant games, not the 3,000."""
    y_a, y_b, cluster = binary_change(3000, 4)
    t_only = paired_difference(y_a, y_b, cluster, cluster)
    assert t_only["test"] == "t" and t_only["p_value"] == pytest.approx(0.046, abs=1e-3)
    d = paired_difference(y_a, y_b, cluster, cluster, binary=True)
    assert d["test"] == "sign" and d["discordant"] == 4 and d["p_value"] == 0.125
    assert d["estimate"] == t_only["estimate"] and d["ci_low"] == t_only["ci_low"]  # the interval stays t
    # 20 games, 5 discordant (the small-experiment case): 2 / 32.
    y_a, y_b, cluster = binary_change(20, 5)
    assert paired_difference(y_a, y_b, cluster, cluster, binary=True)["p_value"] == 0.0625
    # Both ways: 3 up, 1 down is P(|Bin(4, 1/2) - 2| >= 1) = 1 - 6 / 16.
    y_a, y_b, cluster = binary_change(3000, 3, 1)
    assert paired_difference(y_a, y_b, cluster, cluster, binary=True)["p_value"] == 0.625
    # In a comparison table: the finish-zone share changed in 4 of 3,000 games, not significant.
    games = 3000
    won = np.tile([1.0, 0, 0, 0], games)
    rows_a = synthetic_rows(won, games)
    rows_b = rows_a.with_columns(
        pl.when(pl.col("game") < 4)
        .then(pl.lit("last_card"))
        .otherwise(pl.col("end_reason"))
        .alias("end_reason")
    )
    finish = compare_runs(rows_a, rows_b).filter(pl.col("family") == FAMILY_GAME)
    row = finish.filter(pl.col("metric") == "finish-zone share").row(0, named=True)
    assert row["test"] == "sign" and row["discordant"] == 4 and row["p_value"] == 0.125
    assert not row["significant"]
    rounds = finish.filter(pl.col("metric") == "mean rounds").row(0, named=True)
    assert rounds["test"] == "t"  # not a 0/1 outcome


def test_many_discordant_games_keep_the_t_reference():
    """From EXACT_BELOW discordant games on, a 0/1 row keeps the t p-value, unchanged."""
    rng = np.random.default_rng(12)
    y_a = (rng.random(2000) < 0.3).astype(float)
    y_b = np.where(rng.random(2000) < 0.9, y_a, (rng.random(2000) < 0.35).astype(float))
    cluster = np.arange(2000)
    t_only = paired_difference(y_a, y_b, cluster, cluster)
    d = paired_difference(y_a, y_b, cluster, cluster, binary=True)
    assert d["discordant"] >= EXACT_BELOW and d["test"] == "t"
    assert d["p_value"] == t_only["p_value"] and d["ci_high"] == t_only["ci_high"]
    # Just below the threshold the sign test takes over: 49 changes, 30 up and 19 down.
    y_a, y_b, cluster = binary_change(3000, 30, EXACT_BELOW - 1 - 30)
    d = paired_difference(y_a, y_b, cluster, cluster, binary=True)
    assert d["test"] == "sign" and d["discordant"] == EXACT_BELOW - 1
    assert d["p_value"] == pytest.approx(binomial_two_sided_p(19, 49), rel=1e-12)


def test_sign_flip_counts_a_game_by_its_change():
    """Two rows of one game (two seats of one strategy, four players buying a gene) are one
    independent pair: the test flips the sign of the game's total change."""
    assert sign_flip_p(np.array([1, 1, -1, 1, 0, 0])) == binomial_two_sided_p(3, 4)
    # Totals of +-2 +-1 +-1: 4, 2, 2, 0, 0, -2, -2, -4; |total| >= 2 in 6 of 8 patterns.
    assert sign_flip_p(np.array([2, 1, -1])) == 0.75
    assert sign_flip_p(np.array([2, 2, 1])) == 0.25  # |total| = 5 only for all-plus / all-minus
    assert sign_flip_p(np.zeros(5)) == 1.0
    # A player-level table: strategy s0 sits twice per game; a game where both s0 seats changed
    # the same way counts once with weight 2, not as two independent coin flips.
    games = 100
    won_a = np.tile([0.0, 1, 0, 0], games)  # player 1 (s1) wins every game under A
    won_b = won_a.copy()
    won_b[1 : 4 * 3 : 4], won_b[0 : 4 * 3 : 4] = 0, 1  # games 0-2: player 0 (s0) wins instead
    strat = compare_runs(synthetic_rows(won_a, games), synthetic_rows(won_b, games))
    s0 = strat.filter((pl.col("family") == FAMILY_STRATEGY) & (pl.col("group") == "s0")).row(0, named=True)
    assert s0["discordant"] == 3 and s0["test"] == "sign" and s0["p_value"] == 0.25


def test_no_spread_keeps_nan_or_the_sign_test():
    """A non-zero change with no spread (every game changed the same way) has no t p-value
    (cluster_contrast: NaN). For a 0/1 outcome the sign test gives one at any count; a
    non-binary row stays NaN, and the Holm and BH corrections leave it out of its family."""
    y_a, y_b, cluster = binary_change(10, 10)
    d = paired_difference(y_a, y_b, cluster, cluster, binary=True)
    assert d["test"] == "sign" and d["p_value"] == pytest.approx(2 / 2**10)
    y_a, y_b, cluster = binary_change(3000, 3000)  # at any count: 2^(1 - K), here 0 in floating point
    d = paired_difference(y_a, y_b, cluster, cluster, binary=True)
    assert d["test"] == "sign" and d["p_value"] == 0.0 and math.isnan(d["ci_low"])
    cluster = np.arange(60)
    d = paired_difference(np.ones(60), np.full(60, 3.0), cluster, cluster)  # not 0/1: stays NaN
    assert d["test"] == "t" and math.isnan(d["p_value"])
    tests = pl.DataFrame({"family": ["f"] * 3, "p_value": [math.nan, 0.01, 0.04]})
    out = correct(tests)
    assert math.isnan(out["p_holm"][0]) and not out["significant"][0]
    assert out["p_holm"].to_list()[1:] == pytest.approx([0.02, 0.04])


def test_large_experiments_agree_with_the_normal_reference():
    rng = np.random.default_rng(8)
    y_a, y_b = rng.random(5000), rng.random(5000) + 0.02
    cluster = np.arange(5000)
    d = paired_difference(y_a, y_b, cluster, cluster)
    normal = cluster_contrast(
        np.r_[y_b, y_a],
        np.r_[np.zeros(5000, int), np.ones(5000, int)],
        np.array([1.0, -1.0]),
        np.r_[cluster, cluster],
    )
    assert d["p_value"] == pytest.approx(normal["p_value"], rel=0.02)  # p ~ 2e-4, 5,000 games
    assert d["ci_low"] == pytest.approx(normal["ci_low"], rel=1e-3)


def synthetic_rows(won, games, genes=None):
    return pl.DataFrame(
        {
            "game": np.repeat(np.arange(games), P),
            "player": np.tile(np.arange(P), games),
            "strategy": np.tile(STRATEGY, games),
            "start_space": np.tile(np.arange(1, P + 1), games),
            "won": won.astype(bool),
            "rounds": np.repeat(np.full(games, 9), P),
            "end_reason": ["finish_zone"] * (games * P),
            "genes_bought": np.zeros(games * P, dtype=np.int32) if genes is None else genes,
        }
    )


def test_compare_runs_tables_on_synthetic_frames():
    rng = np.random.default_rng(3)
    won_a, won_b, _ = synthetic_pair(rng, 500, P_A, P_B, 0.8)
    table = compare_runs(synthetic_rows(won_a, 500), synthetic_rows(won_b, 500))
    assert table["family"].unique(maintain_order=True).to_list() == [
        "win rate by strategy",
        "win rate by seat",
        "game",
        "gene purchase rate",
    ]
    strat = table.filter(pl.col("family") == FAMILY_STRATEGY)
    assert strat["group"].to_list() == ["s0", "s1"]
    # Exactly one winner per game: the two strategies' changes cancel.
    assert strat["diff"].sum() == pytest.approx(0.0, abs=1e-12)
    # Holm within the family: adjusted >= raw, and the smallest is multiplied by the family size.
    assert (table["p_holm"] >= table["p_value"] - 1e-15).all()
    genes = table.filter(pl.col("family") == FAMILY_GENE)
    assert genes.height == N_BASE_GENES and (genes["diff"] == 0).all() and (genes["p_value"] == 1).all()
    with pytest.raises(PairingError):
        compare_runs(synthetic_rows(won_a, 500), synthetic_rows(won_b[: 499 * P], 499))


def test_ablation_tables_correct_over_every_removed_gene():
    rng = np.random.default_rng(4)
    won_a, won_b, _ = synthetic_pair(rng, 200, P_A, P_B, 0.8)
    won_c, _, _ = synthetic_pair(rng, 200, P_A, P_A, 0.8)
    base = synthetic_rows(won_a, 200, genes=np.full(200 * P, 1 << DIVISION_RATE, dtype=np.int32))
    table = ablation_table(
        base, {"Division Rate": synthetic_rows(won_b, 200), "Spores": synthetic_rows(won_c, 200)}
    )
    strat = table.filter(pl.col("family") == FAMILY_STRATEGY)
    assert strat.height == 4  # one family over both removed genes
    # Without Division Rate its purchase rate is 0 by construction: reported, not tested.
    genes = table.filter(pl.col("family") == FAMILY_GENE)
    own = genes.filter(pl.col("by_construction"))
    assert own.select("removed", "group").rows() == [("Division Rate", "Division Rate"), ("Spores", "Spores")]
    assert own["b"].to_list() == [0, 0] and own["a"].to_list() == [1, 0] and own["p_value"][0] == 2.0**-199
    assert own["p_holm"].is_nan().all() and not own["significant"].any()
    # The same drop in the Spores run is a finding (there it is not the ablation itself) ...
    other = genes.filter((pl.col("removed") == "Spores") & (pl.col("group") == "Division Rate"))
    assert other["significant"][0] and not other["by_construction"][0]
    # ... and the family holds every other gene row: 2 x 20 - 2 tests.
    tested = genes.filter(~pl.col("by_construction"))
    assert tested.height == 2 * N_BASE_GENES - 2 and not tested["p_holm"].is_nan().any()
    summary = ablation_summary(table)
    assert summary["removed"].to_list() == ["Division Rate", "Spores"]
    assert summary["baseline purchase rate"].to_list() == [1.0, 0.0]
    assert {"d rounds", "d finish-zone share", "d win s0", "d win s1"} <= set(summary.columns)


# --------------------------------------------------------------------------------------------
# The commands on real games
# --------------------------------------------------------------------------------------------


def house_rules(tmp_path) -> str:
    """A small house rule (divisions cost 5 BP instead of 6): another rule set than the default."""
    path = tmp_path / "house.toml"
    path.write_text("[economy]\ndivision_cost = 5\n")
    return str(path)


def invoke(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def test_a_versus_a_finds_nothing(tmp_path):
    """The same run on both sides: every paired difference is 0 and nothing is significant."""
    run_dir = tmp_path / "run"
    r = run_as_user("simulate", "--games", 200, "--out", run_dir, "-q", "--threads", 1)
    assert r.returncode == 0, r.stderr
    table = compare_runs(load_results(run_dir), load_results(run_dir))
    assert (table["diff"] == 0).all() and (table["se"] == 0).all()
    assert not table["significant"].any() and (table["p_holm"] == 1).all()


def test_compare_of_the_same_rules_says_so_and_plays_nothing(tmp_path):
    """A rules file that repeats a default value is the same rules (same rules id): soup compare
    says so in one line instead of playing two identical arms."""
    same = tmp_path / "same.toml"
    same.write_text("[economy]\ndivision_cost = 6  # the default value\n")
    out = tmp_path / "cmp"
    r = run_as_user("compare", "--rules", "default", "--rules", same, "--games", 200, "--out", out, "-q")
    assert r.returncode == 2 and "are the same rules" in r.stderr and len(r.stderr.splitlines()) == 1
    assert not out.exists()


def test_a_real_rule_change_is_found(tmp_path):
    """Division Rate's division costs 6 instead of 4 (the gene becomes useless). 100 games per arm
    found the breeder's loss in 10 of 10 seeds (Holm p <= 1e-3); 1,000 leave a wide margin."""
    house = tmp_path / "dr6.toml"
    house.write_text("[economy]\ndivision_cost_division_rate = 6\n")
    out = tmp_path / "cmp"
    r = invoke("compare", "--rules", house, "--games", 1000, "--out", out, "-q", "--seed", 3)
    assert "significant after Holm" in r.stdout
    table = pl.read_csv(out / "comparison.csv")
    breeder = table.filter((pl.col("family") == FAMILY_STRATEGY) & (pl.col("group") == "breeder")).row(
        0, named=True
    )
    assert breeder["significant"] and breeder["diff"] < -0.1 and breeder["p_holm"] < 1e-6
    assert breeder["ci_high"] < 0
    assert table.filter(pl.col("family") == "game")["significant"].any()  # games get longer


def test_ablated_gene_is_never_bought(tmp_path):
    book = ablated_rules(None, ["Division Rate"])
    assert book.for_players(4).gene_copies[DIVISION_RATE] == 0  # the rules accept 0 copies
    assert book.for_players(3).gene_copies[DIVISION_RATE] == 0
    assert all(book.for_players(p).gene_copies[DIVISION_RATE] == 0 for p in (5, 6))  # every count (PX4)
    out = tmp_path / "abl"
    invoke("ablate", "--gene", "division rate", "--games", 300, "--out", out, "-q")
    bought = (
        load_results(out / "minus-division-rate").select("genes_bought").collect()["genes_bought"].to_numpy()
    )
    assert ((bought >> DIVISION_RATE) & 1).sum() == 0
    base = load_results(out / "baseline").select("genes_bought").collect()["genes_bought"].to_numpy()
    assert ((base >> DIVISION_RATE) & 1).sum() > 0
    table = pl.read_csv(out / "ablation.csv")
    row = table.filter((pl.col("family") == FAMILY_GENE) & (pl.col("group") == "Division Rate")).row(
        0, named=True
    )
    # The drop to 0 is the ablation itself: reported, but not a finding and not in the family.
    assert row["b"] == 0 and row["a"] > 0 and row["by_construction"]
    assert not row["significant"] and math.isnan(row["p_holm"])


def test_ablate_each_on_a_tiny_run(tmp_path):
    out = tmp_path / "each"
    r = invoke(
        "ablate", "--each", "--games", 24, "--pool", "greedy,breeder", "--out", out, "-q", "--players", 3
    )
    summary = pl.read_csv(out / "ablation-summary.csv")
    book = ablated_rules(None, [])
    expected = book.genes_in_play(3)  # the genes in play: not the extra genes, off by default
    assert summary["removed"].to_list() == expected  # genes without copies at 3 players are skipped
    assert {"d rounds", "d win greedy", "d win breeder"} <= set(summary.columns)
    assert "Division Rate" in r.stdout and (out / "ablation-summary.md").exists()
    table = pl.read_csv(out / "ablation.csv")
    assert table.filter(pl.col("family") == FAMILY_STRATEGY).height == 2 * len(expected)


def run_as_user(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return processes.run(
        [sys.executable, "-m", "sim.cli.app", *map(str, args)],
        cwd=ROOT,
        env=env,
    )


@pytest.mark.parametrize(
    "args, needle",
    [
        (["compare", "--rules", "a.toml", "--rules", "b.toml", "--rules", "c.toml"], "--rules"),
        (["compare", "--rules", "no-such-file.toml"], "no-such-file.toml"),
        (["compare", "--rules", "default", "--seating", "sideways"], "--seating"),
        (["ablate", "--gene", "Photosynthesis"], "--gene"),
        (["ablate"], "--gene/--each"),
        (["ablate", "--each", "--gene", "Spores"], "--gene/--each"),
        (["ablate", "--gene", "Parasitism", "--players", "3"], "no copies"),
    ],
)
def test_bad_input_one_line_exit_2(args, needle):
    r = run_as_user(*args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("soup: error: ") and needle in lines[0], r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


@pytest.mark.parametrize(
    "args, needle",
    [
        (["compare", "--rules", "{dir}"], "cannot read"),
        (["compare", "--rules", "default", "--rules", "{bad}"], "TOML syntax error"),
        (["compare", "--rules", "{unknown}"], "unknown gene"),
        (["compare", "--rules", "default", "--games", "1"], "--games"),
        (["compare", "--rules", "default", "--games", "4", "--out", "{file}"], "--out"),
        (["compare", "--rules", "default", "--games", "4", "--out", "{file}/cmp"], "--out"),
        (["ablate", "--gene", "Spores", "--rules", "{dir}"], "cannot read"),
        (["ablate", "--gene", "Spores", "--rules", "{bad}"], "TOML syntax error"),
        (["ablate", "--gene", "Spores", "--rules", "{unknown}"], "unknown gene"),
        (["ablate", "--gene", "Spores", "--games", "1"], "--games"),
        (["ablate", "--gene", "Spores", "--games", "4", "--out", "{file}"], "--out"),
    ],
)
def test_bad_files_and_values_one_line_exit_2_nothing_written(tmp_path, args, needle):
    (tmp_path / "dir").mkdir()
    (tmp_path / "bad.toml").write_text("[economy\n")
    (tmp_path / "unknown.toml").write_text('[genes."Photosynthesis"]\ncopies = {"3" = 0, "4" = 0}\n')
    (tmp_path / "file").write_text("keep me")
    before = sorted(tmp_path.rglob("*"))
    names = {k: str(tmp_path / k.replace("unknown", "unknown.toml").replace("bad", "bad.toml")) for k in
             ("dir", "bad", "unknown", "file")}  # fmt: skip
    r = run_as_user(*[a.format(**names) for a in args], "-q", "--threads", 1)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("soup: error: ") and needle in lines[0], r.stderr
    assert sorted(tmp_path.rglob("*")) == before and (tmp_path / "file").read_text() == "keep me"


def test_a_small_experiment_warns_in_one_line(tmp_path):
    house = house_rules(tmp_path)
    r = run_as_user("compare", "--rules", house, "--games", 12, "--out", tmp_path / "c", "-q", "--threads", 1)
    assert r.returncode == 0, r.stderr
    warnings = [x for x in r.stderr.splitlines() if x.startswith("soup: warning: ")]
    assert len(warnings) == 1 and "12 games per arm" in warnings[0]
    assert "warning: only 12 games" in (tmp_path / "c" / "comparison.md").read_text()


def test_ablate_reports_the_removed_gene_by_construction(tmp_path):
    r = invoke(
        "ablate", "--gene", "Division Rate", "--games", 60, "--out", tmp_path / "a", "-q", "--threads", 1
    )
    assert "By construction (not tested): Division Rate purchase rate" in r.stdout
    significant = [x for x in r.stdout.splitlines() if "significant after Holm" in x]
    assert all("gene purchase rate: Division Rate" not in x for x in significant)


def test_out_holding_another_run_is_a_user_error(tmp_path):
    out = tmp_path / "cmp"
    house = house_rules(tmp_path)
    invoke("compare", "--rules", "default", "--rules", house, "--games", 20, "--out", out, "-q")
    r = CliRunner().invoke(app, ["compare", "--rules", house, "--games", "30", "--out", str(out), "-q"])
    assert r.exit_code == 2 and r.stderr.startswith("soup: error: ") and "holds a different run" in r.stderr
    assert "(games differs)" in r.stderr and len(r.stderr.splitlines()) == 1


def test_tables_frame_markdown_formats_every_column():
    """The shared all-columns table (analysis.tables) that replaced paired.markdown_table."""
    from analysis.tables import frame_markdown

    df = pl.DataFrame(
        {"group": ["s0"], "n": [12345], "diff": [-0.01234], "p_value": [3.4e-7], "significant": [True]}
    )
    assert frame_markdown(df).splitlines() == [
        "| group | n | diff | p_value | significant |",
        "|:--|--:|--:|--:|--:|",
        "| s0 | 12,345 | -0.0123 | 3.4e-07 | yes |",
    ]
    assert (
        frame_markdown(df, {"diff": "signed"}).splitlines()[2] == "| s0 | 12,345 | -0.012 | 3.4e-07 | yes |"
    )


# --------------------------------------------------------------------------------------------
# Terminal tables on an 80-column terminal
# --------------------------------------------------------------------------------------------


def narrow_output(*args):
    r = processes.run(
        [sys.executable, "-m", "sim.cli.app", *map(str, args)],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="80"),
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


def assert_fits(stdout):
    """No cell cut short ("40.…") and no table line wider than the terminal (paths and the
    one-line summaries are plain text the terminal wraps)."""
    assert "…" not in stdout, stdout
    table_lines = [x for x in stdout.splitlines() if x.startswith(" ")]  # rich's tables
    assert table_lines and all(len(x) <= 80 for x in table_lines), stdout


def test_compare_and_ablate_tables_fit_80_columns(tmp_path):
    """rich cut every number of a 105-column table to "40.…" on an 80-column terminal; narrow
    consoles now drop n and the raw p, and ablate's by-construction note is a † legend."""
    house = house_rules(tmp_path)
    out = narrow_output("compare", "--rules", house, "--games", 30, "--out", tmp_path / "c", "-q")
    assert_fits(out)
    assert "finish-zone" in out and "finish_zone" not in out  # the label (rich may fold it)
    md = (tmp_path / "c" / "comparison.md").read_text()
    assert "| by_construction" not in md and "| test |" in md  # compare removes no gene
    out = narrow_output("ablate", "--gene", "Division Rate", "--games", 30, "--out", tmp_path / "a", "-q")
    assert_fits(out)
    assert "Division Rate †" in out and "† the removed gene" not in out
    legend = "†: the removed gene's own purchase rate, 0 by construction, not tested"
    assert legend in " ".join(out.split())  # the line under the table, wrapped at 80
    assert "by_construction" in (tmp_path / "a" / "ablation.md").read_text()
    out = narrow_output("ablate", "--each", "--games", 10, "--players", 3, "--out", tmp_path / "e", "-q")
    assert_fits(out)


def test_wide_consoles_keep_n_and_p(tmp_path, monkeypatch, capsys):
    from sim.cli.experiments import print_comparison

    y_a, y_b, _ = synthetic_pair(np.random.default_rng(1), 60, P_A, P_B, 0.8)
    table = compare_runs(synthetic_rows(y_a, 60), synthetic_rows(y_b, 60))
    monkeypatch.setenv("COLUMNS", "140")
    print_comparison(table)
    wide = capsys.readouterr().out
    monkeypatch.setenv("COLUMNS", "80")
    print_comparison(table)
    narrow = capsys.readouterr().out
    header = [x for x in wide.splitlines() if "group" in x][0].split()
    assert header[:2] == ["group", "n"] and "p" in header and "Holm" in header
    header = [x for x in narrow.splitlines() if "group" in x][0].split()
    assert "n" not in header and header.count("p") == 1 and "Holm" in header  # p Holm only
    assert "…" not in narrow and "…" not in wide
