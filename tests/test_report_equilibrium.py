"""soup report --equilibrium: a run's seat and gene tables weighted to a tournament's equilibrium
mix (analysis.at_equilibrium), on a synthetic dataset with a known answer and end to end."""

import sys

import numpy as np
import polars as pl
import pytest

from analysis import at_equilibrium
from analysis.ursuppe.genes import gene_effects
from sim import runner
from sim.ursuppe.rules.book import load_rules
from sim.ursuppe.simulation import DEFAULT_POOL, UrsuppeRun
from strategies.ursuppe.params import load_strategy
from tests import processes


def _known_rows():
    """800 four-player games: every game seats alpha three times and beta once (shares 3/4 and
    1/4 of the rows); alpha players win 20% of their rows, beta 40%; beta always holds gene 0,
    alpha never. A 50:50 mix must then win 30% (0.5 * 0.2 + 0.5 * 0.4), not the plain 25%."""
    games, players = 800, 4
    rows = []
    for g in range(games):
        beta_seat = g % players
        # one winner per game: beta wins games 0, 2 of every 5 (40% of its rows)... alpha the rest
        beta_wins = g % 5 in (0, 2)
        alpha_winner = (beta_seat + 1 + g % 3) % players
        for p in range(players):
            is_beta = p == beta_seat
            won = beta_wins if is_beta else (not beta_wins and p == alpha_winner)
            rows.append(
                {
                    "game": g,
                    "seed": 1,
                    "players": players,
                    "start_space": p + 1,
                    "strategy": "beta" if is_beta else "alpha",
                    "won": won,
                    "genes_held": 1 if is_beta else 0,
                    "genes_bought": 1 if is_beta else 0,
                }
            )
    return pl.DataFrame(rows)


def test_weights_on_a_dataset_with_a_known_answer():
    rows = _known_rows()
    by = rows.group_by("strategy").agg(pl.col("won").mean()).sort("strategy")
    assert by["won"].to_list() == pytest.approx([0.2, 0.4])
    mix = pl.DataFrame({"strategy": ["alpha", "beta"], "weight": [0.5, 0.5]})
    weighted = at_equilibrium.with_weights(rows, mix)
    w = dict(weighted.group_by("strategy").agg(pl.col(at_equilibrium.WEIGHT).first()).iter_rows())
    assert w == pytest.approx({"alpha": 0.5 / 0.75, "beta": 0.5 / 0.25})
    rate = at_equilibrium.mix_win_rate(weighted).row(0, named=True)
    assert rate["win_rate"] == pytest.approx(0.3) and rate["ci_low"] < 0.3 < rate["ci_high"]
    genes = gene_effects(weighted, "held", weight=at_equilibrium.WEIGHT).row(0, named=True)
    plain = gene_effects(rows, "held").row(0, named=True)
    assert plain["share_with"] == pytest.approx(0.25) and genes["share_with"] == pytest.approx(0.5)
    assert genes["win_rate_with"] == pytest.approx(0.4) and genes["win_rate_without"] == pytest.approx(0.2)
    assert genes["difference"] == pytest.approx(0.2) and genes["diff_low"] < 0.2 < genes["diff_high"]
    seats = at_equilibrium.seat_table(weighted)
    assert seats.height == 4 and seats["games"].sum() == rows.height
    # A mix of only alpha: beta drops out; its rows weigh 0 and are not counted.
    alpha_only = pl.DataFrame({"strategy": ["alpha", "beta"], "weight": [1.0, 0.0]})
    only = at_equilibrium.with_weights(rows, alpha_only)
    assert at_equilibrium.mix_win_rate(only).row(0, named=True)["win_rate"] == pytest.approx(0.2)
    assert np.isnan(gene_effects(only, "held", weight=at_equilibrium.WEIGHT).row(0, named=True)["difference"])


def test_equal_weights_give_the_plain_gene_table():
    rows = _known_rows()
    ones = rows.with_columns(pl.lit(1.0).alias("w"))
    plain, weighted = gene_effects(rows, "held"), gene_effects(ones, "held", weight="w")
    same = ["rows_with", "share_with", "win_rate_with", "difference", "diff_low", "diff_high", "p_value"]
    same += ["within_strategy", "within_low", "within_high"]
    for c in same:
        assert weighted[c].to_list() == pytest.approx(plain[c].to_list(), rel=1e-12, nan_ok=True), c


def test_strategy_mismatch_names_the_strategy():
    rows = _known_rows()
    with pytest.raises(ValueError, match="strategy beta of the run is not in the tournament"):
        at_equilibrium.with_weights(
            rows, pl.DataFrame({"strategy": ["alpha", "gamma"], "weight": [0.5, 0.5]})
        )
    with pytest.raises(ValueError, match="strategy gamma of the equilibrium's support is not in the run"):
        at_equilibrium.with_weights(
            rows, pl.DataFrame({"strategy": ["alpha", "beta", "gamma"], "weight": [0.4, 0.3, 0.3]})
        )


def _soup(*args):
    return processes.run([sys.executable, "-m", "sim.cli.app", *args])


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "p4"
    strategies = [load_strategy(n) for n in DEFAULT_POOL]
    spec = UrsuppeRun(load_rules(), 4, 3, strategies, pool=list(range(len(strategies))), seating="rotate")
    runner.run(spec, out, 480, 480, 1)
    return out


def _tournament(path, weights):
    path.mkdir()
    pl.DataFrame(
        {
            "strategy": list(weights),
            "weight": list(weights.values()),
            "in_support": [w > 0 for w in weights.values()],
            "regret": [0.0 if w > 0 else 0.1 for w in weights.values()],
        }
    ).write_csv(path / "tournament-equilibrium.csv")
    return path


def test_cli_report_at_equilibrium(run, tmp_path):
    pool = list(DEFAULT_POOL)
    weights = dict.fromkeys(pool, 0.0) | {pool[0]: 0.6, pool[1]: 0.4}
    t = _tournament(tmp_path / "t", weights)
    done = _soup("report", str(run), "--out", str(tmp_path / "rep"), "--equilibrium", str(t))
    assert done.returncode == 0, done.stderr
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## At equilibrium" in md and "## Seat advantage (S5)" in md
    for name in ("seat_advantage", "gene_effects_held", "gene_effects_bought"):
        table = pl.read_csv(tmp_path / "rep" / "tables" / f"{name}_at_equilibrium.csv")
        assert table.height > 0
    seats = pl.read_csv(tmp_path / "rep" / "tables" / "seat_advantage_at_equilibrium.csv")
    rows = pl.read_parquet(list(run.glob("**/*.parquet")))
    used = rows.filter(pl.col("strategy").cast(pl.String).is_in(pool[:2])).height
    assert seats["games"].sum() == used  # only the support's rows


def test_cli_report_at_equilibrium_errors_are_one_line(run, tmp_path):
    pool = list(DEFAULT_POOL)
    cases = {
        "missing": (tmp_path / "nowhere", "no tournament-equilibrium.csv"),
        "run strategy not in the tournament": (
            _tournament(tmp_path / "a", {s: 1.0 / (len(pool) - 1) for s in pool[1:]}),
            f"strategy {pool[0]} of the run is not in the tournament",
        ),
        "support not in the run": (
            _tournament(tmp_path / "b", dict.fromkeys(pool, 0.0) | {"chess": 1.0}),
            "strategy chess of the equilibrium's support is not in the run",
        ),
    }
    for case, (t, needle) in cases.items():
        done = _soup("report", str(run), "--out", str(tmp_path / "out"), "--equilibrium", str(t))
        assert done.returncode == 2, case
        assert done.stderr.count("\n") == 1 and needle in done.stderr, (case, done.stderr)
        assert not (tmp_path / "out").exists()
