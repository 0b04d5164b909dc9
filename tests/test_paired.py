"""Paired experiments (soup compare, soup ablate): the paired estimator's error rate, power and
coverage on synthetic data, then the commands on real games: A vs A finds nothing, a real rule
change is found, an ablated gene is never bought."""

import os
import subprocess
import sys

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from analysis.paired import (
    FAMILY_GENE,
    FAMILY_STRATEGY,
    PairingError,
    ablation_summary,
    ablation_table,
    compare_runs,
    paired_difference,
)
from analysis.win_rates import load_results
from sim.cli import app
from sim.cli_experiments import ablated_rules
from sim.ursuppe.genes import DIVISION_RATE, GENE_NAMES
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
    assert genes.height == len(GENE_NAMES) and (genes["diff"] == 0).all() and (genes["p_value"] == 1).all()
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
    summary = ablation_summary(table)
    assert summary["removed"].to_list() == ["Division Rate", "Spores"]
    assert summary["baseline purchase rate"].to_list() == [1.0, 0.0]
    assert {"d rounds", "d finish_zone share", "d win s0", "d win s1"} <= set(summary.columns)


# --------------------------------------------------------------------------------------------
# The commands on real games
# --------------------------------------------------------------------------------------------


def invoke(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def test_a_versus_a_finds_nothing(tmp_path):
    same = tmp_path / "same.toml"
    same.write_text("[economy]\ndivision_cost = 6  # the default value\n")
    out = tmp_path / "cmp"
    r = invoke(
        "compare", "--rules", "default", "--rules", same, "--games", 200, "--out", out, "-q", "--threads", 1
    )
    assert "No difference is significant" in r.stdout
    table = pl.read_csv(out / "comparison.csv")
    assert (table["diff"] == 0).all() and (table["se"] == 0).all()
    assert not table["significant"].any() and (table["p_holm"] == 1).all()
    assert load_results(out / "a").collect().equals(load_results(out / "b").collect())
    assert (out / "comparison.md").read_text().startswith("# soup compare")
    # Running the same command again reuses both runs.
    again = invoke("compare", "--rules", "default", "--rules", same, "--games", 200, "--out", out, "-q")
    assert again.stdout == r.stdout


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
    assert row["b"] == 0 and row["a"] > 0 and row["significant"]


def test_ablate_each_on_a_tiny_run(tmp_path):
    out = tmp_path / "each"
    r = invoke(
        "ablate", "--each", "--games", 24, "--pool", "greedy,breeder", "--out", out, "-q", "--players", 3
    )
    summary = pl.read_csv(out / "ablation-summary.csv")
    book = ablated_rules(None, [])
    expected = [g for g in GENE_NAMES if book.data["genes"][g]["copies"]["3"] > 0]
    assert summary["removed"].to_list() == expected  # genes without copies at 3 players are skipped
    assert {"d rounds", "d win greedy", "d win breeder"} <= set(summary.columns)
    assert "Division Rate" in r.stdout and (out / "ablation-summary.md").exists()
    table = pl.read_csv(out / "ablation.csv")
    assert table.filter(pl.col("family") == FAMILY_STRATEGY).height == 2 * len(expected)


def run_as_user(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "sim.cli", *map(str, args)], capture_output=True, text=True, cwd=ROOT, env=env
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


def test_out_holding_another_run_is_a_user_error(tmp_path):
    out = tmp_path / "cmp"
    invoke("compare", "--rules", "default", "--rules", "default", "--games", 20, "--out", out, "-q")
    r = CliRunner().invoke(app, ["compare", "--rules", "default", "--games", "30", "--out", str(out), "-q"])
    assert r.exit_code == 2 and r.stderr.startswith("soup: error: --out:") and "games" in r.stderr
