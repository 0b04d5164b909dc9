"""soup combos (issue 14, point 6): gifts at setup, common random numbers, the statistics and the
command, with the real engine at small budgets."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats

from analysis import combos as combo_stats
from sim.ursuppe import batch as batch_mod
from sim.ursuppe import combos
from sim.ursuppe.genes import GENE_INDEX
from sim.ursuppe.state import NO_CARD
from strategies.params import load_strategy, parameter_table

ROOT = Path(__file__).resolve().parent.parent
START_GENE = GENE_INDEX["Population Explosion"]  # the default start pair's (XM2): in the pool
DECK_GENE = GENE_INDEX["PhD"]  # face down in the extra deck (XM3)
DIVISION_RATE = GENE_INDEX["Division Rate"]


@pytest.fixture(scope="module")
def rules():
    return combos.combo_book().for_players(4)


def _batch(rules, gift, games=8, check=True):
    r = combos.gifted_rules(rules, gift)
    return batch_mod.new_batch(
        r,
        parameter_table([load_strategy("greedy")]),
        np.zeros(4, np.int16),
        7,
        np.arange(games, dtype=np.int64),
        check_invariants=check,
        log_events=True,
    )


def test_gift_is_given_at_setup_from_pool_and_deck(rules):
    """The gifted player (start space game mod P + 1) holds both genes from round 0; the pool has
    one copy less, the extra deck lacks the card and keeps the others' order (XM3), and the
    seating and decks are those of the ungifted twin; I1-I10 hold after the placements."""
    plain = batch_mod.setup(_batch(rules, ()), seating="rotate")
    gifted = batch_mod.setup(_batch(rules, (START_GENE, DECK_GENE)), seating="rotate")
    s0, s1 = plain.state, gifted.state
    assert np.array_equal(s0.seat, s1.seat) and np.array_equal(s0.card_index, s1.card_index)
    for g in range(len(s1.seat)):
        p = int(np.flatnonzero(s1.seat[g] == g % 4 + 1)[0])
        assert s1.genes[g, p, START_GENE] == 1 and s1.genes[g, p, DECK_GENE] == 1
        assert s1.gene_since[g, p, START_GENE] == 0 and s1.genes_bought[g, p] == 0
        assert s1.genes[g].sum() == 2 and s0.genes[g].sum() == 0
        assert s1.pool[g, START_GENE] == s0.pool[g, START_GENE] - 1
        assert s1.extra_top[g] == 1 and s1.extra_deck[g, 0] == NO_CARD
        rest = [c for c in s0.extra_deck[g] if c != DECK_GENE]
        assert list(s1.extra_deck[g, 1:]) == rest
    for phase in (0,):  # S6 placements, then the full invariant check (I4 counts the deck)
        batch_mod.advance_phase(gifted, phase)
    assert batch_mod.first_error(gifted) is None
    batch_mod.play_rounds(gifted)
    assert batch_mod.first_error(gifted) is None


def test_gift_is_logged(rules):
    """EV_GIFT: the gifted player and the gene (events.py field "gene")."""
    from sim.ursuppe.events import EV_GIFT

    b = batch_mod.setup(_batch(rules, (DIVISION_RATE,), games=2, check=False), seating="rotate")
    wk, st = b.workspace, b.state
    for g in range(2):
        rows = wk.events[g, : wk.n_events[g]]
        gifts = rows[rows[:, 0] == EV_GIFT]
        p = int(np.flatnonzero(st.seat[g] == g % 4 + 1)[0])
        assert len(gifts) == 1 and gifts[0, 3] == p and gifts[0, 5] == DIVISION_RATE


def test_empty_gift_reproduces_normal_games(rules):
    """The baseline arm is the normal game: same scores as a run of the same seed and seating."""
    from sim.ursuppe.simulation import UrsuppeRun

    won, position, _, _ = combos.play_arm(rules, (), load_strategy("greedy"), 3, 0, 40, 1)
    run = UrsuppeRun(combos.combo_book(), 4, 3, [load_strategy("greedy")], seats=[0] * 4, seating="rotate")
    st = run.play_games(0, 40, 1).state
    gifted = np.argmax(st.seat == (np.arange(40) % 4 + 1)[:, None], axis=1)
    assert np.array_equal(position, st.score[np.arange(40), gifted])
    assert np.array_equal(won, (st.winner[np.arange(40)] == gifted).astype(np.int8))


def test_scan_is_the_same_on_1_and_2_threads(rules):
    arms, _ = combos.build_arms(rules, [START_GENE, DECK_GENE, DIVISION_RATE])
    one = combos.play_scan(rules, arms, load_strategy("greedy"), 5, 60, 1)
    two = combos.play_scan(rules, arms, load_strategy("greedy"), 5, 60, 2)
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))
    assert len(arms) == 1 + 3 + 3


def test_pairs_a_player_cannot_hold_are_skipped(rules):
    arms, skipped = combos.build_arms(rules, combos.scanned_genes(rules, "extra"))
    assert len(arms) == 348 and len(skipped) == 4  # 26 singles, 325 - 4 pairs, the baseline
    assert (GENE_INDEX["Camouflage 1"], GENE_INDEX["Camouflage 2"]) in skipped


def test_statistics_on_synthetic_outcomes():
    """Gain = mean(y_a - y_0); interaction = mean(y_ab - y_a - y_b + y_0); BH as scipy's."""
    rng = np.random.default_rng(0)
    n = 400
    arms = [(), (0,), (1,), (2,), (0, 1), (0, 2), (1, 2)]
    won = (rng.random((len(arms), n)) < [[0.25], [0.3], [0.3], [0.25], [0.6], [0.3], [0.3]]).astype(np.int8)
    position = rng.integers(20, 50, (len(arms), n)).astype(np.int16)
    table = combo_stats.combo_table(arms, won, position)
    w = won.astype(float)
    pair = table.filter(pl.col("kind") == "pair").row(0, named=True)  # (0, 1)
    assert pair["gain"] == pytest.approx((w[4] - w[0]).mean())
    assert pair["interaction"] == pytest.approx((w[4] - w[1] - w[2] + w[0]).mean())
    d = w[4] - w[1] - w[2] + w[0]
    half = stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / np.sqrt(n)
    assert pair["interaction_low"] == pytest.approx(d.mean() - half)
    assert pair["interaction_p"] == pytest.approx(stats.ttest_1samp(d, 0).pvalue)
    pairs = table.filter(pl.col("kind") == "pair")
    expected = stats.false_discovery_control(pairs["interaction_p"].to_numpy(), method="bh")
    assert np.allclose(pairs["interaction_q"].to_numpy(), expected)
    singles = table.filter(pl.col("kind") == "single")
    assert singles["interaction"].is_nan().all() and len(singles) == 3
    mde = combo_stats.detectable_effects(table)
    sd = np.median(pairs["interaction_sd"].to_numpy())
    z = stats.norm.ppf(1 - 0.05 / 6) + stats.norm.ppf(0.8)
    assert mde["pair_interaction"] == pytest.approx(z * sd / np.sqrt(n))


def _outcomes(rate: float, n: int) -> np.ndarray:
    """n outcomes with exactly round(rate * n) wins, shuffled."""
    w = np.zeros(n, np.int8)
    w[: round(rate * n)] = 1
    return np.random.default_rng(int(rate * 1000)).permutation(w)


def test_log_odds_interaction_is_zero_when_the_genes_multiply_the_odds():
    """Two genes each multiplying the odds of winning by 9 (0.5 -> 0.9, together 81 -> 0.988):
    no log-odds interaction, while the win-rate interaction is -0.31 (saturation)."""
    n = 20_000
    w0, wa, wb, wab = (_outcomes(r, n) for r in (0.5, 0.9, 0.9, 81 / 82))
    r = combo_stats.logit_interaction(w0, wa, wb, wab)
    assert abs(r["estimate"]) < 0.02 and r["ci_low"] < 0 < r["ci_high"]
    assert (wab.mean() - wa.mean() - wb.mean() + w0.mean()) == pytest.approx(-0.312, abs=0.002)


def test_log_odds_interaction_interval_matches_a_bootstrap():
    """The delta method's standard error on correlated arms (common random numbers: the pair's
    wins include most of each single's) agrees with a bootstrap over games within 10%."""
    rng = np.random.default_rng(3)
    n = 3000
    luck = rng.random(n)
    w0 = (luck < 0.25).astype(np.int8)
    wa = (luck < 0.40).astype(np.int8)
    wb = ((luck < 0.30) | (rng.random(n) < 0.05)).astype(np.int8)
    wab = ((luck < 0.60) | (rng.random(n) < 0.05)).astype(np.int8)
    r = combo_stats.logit_interaction(w0, wa, wb, wab)
    boot = []
    for _ in range(400):
        i = rng.integers(0, n, n)
        boot.append(combo_stats.logit_interaction(w0[i], wa[i], wb[i], wab[i])["estimate"])
    assert r["se"] == pytest.approx(np.std(boot, ddof=1), rel=0.1)
    arms = [(), (0,), (1,), (0, 1)]
    table = combo_stats.combo_table(arms, np.stack([w0, wa, wb, wab]), np.zeros((4, n), np.int16))
    pair = table.filter(pl.col("kind") == "pair").row(0, named=True)
    assert pair["logit_interaction"] == pytest.approx(r["estimate"])
    assert pair["logit_interaction_q"] == pytest.approx(pair["logit_interaction_p"])  # a family of one


def test_observed_lift_counts_holders():
    both = (1 << 3) | (1 << 5)
    rows = pl.DataFrame(
        {
            "game": [0, 0, 0, 0, 1, 1, 1, 1],
            "players": [4] * 8,
            "won": [True, False, False, False, False, True, False, False],
            "genes_held": [both, 0, 1 << 3, 0, both, 0, 0, 1 << 5],
        }
    )
    t = combo_stats.observed_pairs(rows, [3, 5], 4).row(0, named=True)
    assert t["holders"] == 2 and t["holder_win_rate"] == 0.5 and t["lift"] == 2.0
    assert t["winners_holding"] == 0.5


def test_a_gifted_base_gene_gains(rules):
    """Division Rate given at setup (a real effect in this branch) wins more, clearly."""
    arms = [(), (DIVISION_RATE,)]
    won, position, _ = combos.play_scan(rules, arms, load_strategy("greedy"), 1, 300, 2)
    row = combo_stats.combo_table(arms, won, position).row(0, named=True)
    assert row["gain_low"] > 0 and row["position_gain_low"] > 0


def _soup(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sim.cli", *args], capture_output=True, text=True, cwd=ROOT, timeout=600
    )


def test_cli_writes_report_table_and_heatmap(tmp_path):
    out = tmp_path / "combos"
    done = _soup(
        "combos",
        "--players",
        "4",
        "--games-per-arm",
        "6",
        "--threads",
        "2",
        "--out",
        str(out),
        "-q",
        "--observed-games",
        "40",
        "--top",
        "3",
    )
    assert done.returncode == 0, done.stderr
    for name in ("combos.csv", "combos.md", "combos-heatmap.png", "observed.csv", "outcomes.npz"):
        assert (out / name).stat().st_size > 0, name
    table = pl.read_csv(out / "combos.csv")
    assert table.height == 26 + 321 and set(table["kind"]) == {"single", "pair"}
    report = (out / "combos.md").read_text()
    assert "Top 3 pairs by interaction" in report and "Detectable effect" in report
    assert "Top 3 pairs by log-odds interaction" in report
    assert "Observational view" in report and "games spent" in report
    assert "top 3 pairs by interaction" in done.stdout
    saved = np.load(out / "outcomes.npz")
    assert saved["won"].shape == (348, 6)


def test_ctrl_c_keeps_the_finished_arms(tmp_path):
    """Ctrl-C during the scan (here raised by the progress callback after the baseline, the three
    singles and one pair) writes the tables of the finished arms, marked as interrupted; before
    the baseline and one more arm are done it goes on up and writes nothing."""
    genes = ["Glutton", "Alarm", "Rebound"]

    def stop_after(chunks):
        calls = []

        def progress(done, total):
            calls.append(done)
            if len(calls) == chunks:
                raise KeyboardInterrupt

        return progress

    out = tmp_path / "part"
    result = combos.run_combos(
        games=30, observed_games=0, out=out, only=genes, progress=stop_after(5), threads=1
    )
    assert (result.arms_done, result.arms) == (5, 7)
    table = pl.read_csv(out / "combos.csv")
    assert table["kind"].to_list() == ["single"] * 3 + ["pair"]
    assert "INTERRUPTED (Ctrl-C) after 5 of 7 arms" in (out / "combos.md").read_text()
    assert np.load(out / "outcomes.npz")["won"].shape == (5, 30)
    with pytest.raises(KeyboardInterrupt):
        combos.run_combos(
            games=30, observed_games=0, out=tmp_path / "none", only=genes, progress=stop_after(1), threads=1
        )
    assert not (tmp_path / "none" / "combos.csv").exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--gene", "Tentacle", "--gene", "Nonsense Gene"], "unknown gene"),
        (["--players", "2"], "--players"),
        (["--genes", "some"], "--genes"),
        (["--games-per-arm", "1"], "--games-per-arm"),
        (["--strategy", "no-such-strategy"], "no-such-strategy"),
    ],
)
def test_bad_input_is_one_line(args, needle, tmp_path):
    done = _soup("combos", "--out", str(tmp_path / "x"), *args)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("soup: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert needle in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "x").exists()


def test_cli_default_budget_matches_the_experiment():
    from sim import cli_combos

    assert cli_combos.DEFAULT_GAMES == combos.DEFAULT_GAMES


def test_observed_view_from_an_existing_run(tmp_path):
    """--observed RUN: the lift table comes from a run directory of normal games (extra genes on),
    and no extra baseline games are played."""
    from sim import runner
    from sim.ursuppe.simulation import UrsuppeRun

    run_dir = tmp_path / "normal"
    spec = UrsuppeRun(combos.combo_book(), 4, 9, [load_strategy("greedy")], seats=[0] * 4, seating="rotate")
    runner.run(spec, run_dir, 200, 100, 1, version="test")
    result = combos.run_combos(
        players=4,
        games=10,
        threads=1,
        out=tmp_path / "c",
        observed_dir=run_dir,
        only=["Division Rate", "Life Expectancy", "Population Explosion"],
    )
    assert result.games_spent == 10 * 7  # baseline, 3 singles, 3 pairs
    assert result.observed["holders"].sum() > 0 and len(result.observed) == 3
    assert "From " + str(run_dir) in (tmp_path / "c" / "combos.md").read_text()
    with pytest.raises(combos.UserError, match="--observed"):
        combos.run_combos(
            players=3, games=10, out=tmp_path / "d", observed_dir=run_dir, only=["Tentacle", "Glutton"]
        )
