"""soup combos (issue 14, point 6): gifts at setup, common random numbers, the statistics and the
command, with the real engine at small budgets."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats

from analysis.ursuppe import combos as combo_stats
from sim.ursuppe.engine import batch as batch_mod
from sim.ursuppe.engine.state import NO_CARD
from sim.ursuppe.experiments import combos, combos_run
from sim.ursuppe.rules.genes import GENE_INDEX, GENE_NAMES
from strategies.ursuppe.params import load_strategy, parameter_table
from tests import processes

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
    from sim.ursuppe.engine.events import EV_GIFT

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
    table = combo_stats.combo_table(arms, won, position, names=GENE_NAMES)
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
    table = combo_stats.combo_table(
        arms, np.stack([w0, wa, wb, wab]), np.zeros((4, n), np.int16), names=GENE_NAMES
    )
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
    t = combo_stats.observed_pairs(rows, [3, 5], 4, GENE_NAMES).row(0, named=True)
    assert t["holders"] == 2 and t["holder_win_rate"] == 0.5 and t["lift"] == 2.0
    assert t["winners_holding"] == 0.5


def test_a_gifted_base_gene_gains(rules):
    """Division Rate given at setup (a real effect in this branch) wins more, clearly."""
    arms = [(), (DIVISION_RATE,)]
    won, position, _ = combos.play_scan(rules, arms, load_strategy("greedy"), 1, 300, 2)
    row = combo_stats.combo_table(arms, won, position, names=GENE_NAMES).row(0, named=True)
    assert row["gain_low"] > 0 and row["position_gain_low"] > 0


def _soup(*args: str) -> subprocess.CompletedProcess:
    return processes.run([sys.executable, "-m", "sim.cli.app", *args], cwd=ROOT, timeout=600)


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
    assert "Observational view" in report and "games in all" in report
    assert "top 3 pairs by interaction" in done.stdout
    saved = np.load(out / "outcomes.npz")
    assert saved["won"].shape == (348, 6) and saved["held"].shape == (348, 2, 6)
    # the confirmation stage ran by default: the default panel, 3 fields x 2 holders
    assert "## Headline" in report and "# The scan" in report
    confirm = pl.read_csv(out / "confirm.csv")
    assert confirm["cell"].n_unique() == 6 and len(list((out / "confirm").glob("cell-*.npz"))) == 6


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
    result = combos_run.run_combos(
        games=30, observed_games=0, out=out, only=genes, progress=stop_after(5), threads=1
    )
    assert (result.arms_done, result.arms) == (5, 7)
    table = pl.read_csv(out / "combos.csv")
    assert table["kind"].to_list() == ["single"] * 3 + ["pair"]
    assert "INTERRUPTED (Ctrl-C) after 5 of 7 arms" in (out / "combos.md").read_text()
    assert np.load(out / "outcomes.npz")["won"].shape == (5, 30)
    with pytest.raises(KeyboardInterrupt):
        combos_run.run_combos(
            games=30, observed_games=0, out=tmp_path / "none", only=genes, progress=stop_after(1), threads=1
        )
    assert not (tmp_path / "none" / "combos.csv").exists()


def _refused(tmp_path, args, needle):
    """soup combos with bad ``args``: exit 2 and one line naming ``needle``, before the engine
    loads (no "compiling") and before anything is written."""
    done = _soup("combos", "--out", str(tmp_path / "x"), *args)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("soup: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert needle in done.stderr and "compiling" not in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "x").exists()


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
    _refused(tmp_path, args, needle)


def test_cli_default_budget_matches_the_experiment():
    from sim.ursuppe.cli import combos as cli_combos

    assert cli_combos.DEFAULT_GAMES == combos.DEFAULT_GAMES


def test_observed_view_from_an_existing_run(tmp_path):
    """--observed RUN: the lift table comes from a run directory of normal games (extra genes on),
    and no extra baseline games are played."""
    from sim import runner
    from sim.ursuppe.simulation import UrsuppeRun

    run_dir = tmp_path / "normal"
    spec = UrsuppeRun(combos.combo_book(), 4, 9, [load_strategy("greedy")], seats=[0] * 4, seating="rotate")
    runner.run(spec, run_dir, 200, 100, 1, version="test")
    result = combos_run.run_combos(
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
        combos_run.run_combos(
            players=3, games=10, out=tmp_path / "d", observed_dir=run_dir, only=["Tentacle", "Glutton"]
        )


# --------------------------------------------------------------------------------------------
# Issue 20.3: the holder and the field, the holding column, the confirmation stage
# --------------------------------------------------------------------------------------------

HIGHLY_ADAPTABLE = GENE_INDEX["Highly Adaptable"]
SUCTION_2 = GENE_INDEX["Suction 2"]


def test_default_scan_is_todays_batch(rules):
    """Without field options an arm's batch is built as before the options existed (one strategy
    row, the gift to start space game mod P + 1): a non-HA arm gives exactly the games of
    today's construction (gift_keep ORDINARY, the only other difference), bit for bit."""
    from sim.ursuppe.rules.book import GIFT_ORDINARY

    greedy = load_strategy("greedy")
    arm = (DIVISION_RATE, START_GENE)
    new = combos.play_arm(rules, arm, greedy, 11, 0, 120, 2)
    old_rules = rules._replace(gift=np.array(arm, np.int8), gift_to=-1, gift_keep=GIFT_ORDINARY)
    b = batch_mod.new_batch(old_rules, parameter_table([greedy]), np.zeros(4, np.int16), 11, np.arange(120))
    batch_mod.play(b, seating="rotate", threads=2)
    assert np.array_equal(new.batch.state.score, b.state.score)
    assert np.array_equal(new.batch.state.genes, b.state.genes)
    assert combos.Players.mirror(greedy, 4).gift_to() == -1
    assert combos.scan_players(4, "greedy", holder="greedy", against="greedy").uniform()


def test_holder_and_field_reach_their_seats(rules):
    """Players(holder, field): player 0 plays the holder and receives the gift; the other seats
    play the field. A holder that never buys a gene (drifter) beside greedy buyers, and the
    reverse: the purchases follow the strategies to their seats."""
    arm = (DIVISION_RATE,)
    drifter_holds = combos.scan_players(4, "greedy", holder="drifter")
    assert drifter_holds.gift_to() == 0 and not drifter_holds.uniform()
    r = combos.play_arm(rules, arm, drifter_holds, 3, 0, 48, 2)
    st = r.batch.state
    assert (st.genes_bought[:, 0] == 0).all() and (st.genes_bought[:, 1:] != 0).mean() > 0.5
    assert (st.genes[:, 0, DIVISION_RATE] == 1).all()  # the gift went to player 0 and stayed
    assert np.array_equal(r.held[0], np.ones(48, np.int8)) and not r.held[1].any()
    greedy_holds = combos.scan_players(4, "greedy", against="drifter,drifter,drifter")
    st = combos.play_arm(rules, arm, greedy_holds, 3, 0, 48, 2).batch.state
    assert (st.genes_bought[:, 1:] == 0).all() and (st.genes_bought[:, 0] != 0).mean() > 0.5
    # the rotate design puts player 0 on every start space equally often (48 = 2 cycles of 24)
    assert sorted(np.bincount(st.seat[:, 0])[1:].tolist()) == [12, 12, 12, 12]


def test_pool_field_draws_the_same_opponents_in_every_arm():
    """--pool: every other seat drawn per game from the pool, from (seed, game) only."""
    who = combos.scan_players(4, pool="greedy,predator,forager")
    games = np.arange(200)
    a = who.assignment(5, games, 4)
    assert (a[:, 0] == 0).all() and set(np.unique(a[:, 1:])) == {1, 2, 3}
    assert np.array_equal(a, who.assignment(5, games, 4))
    assert not np.array_equal(a, who.assignment(6, games, 4))


def test_holding_rate_is_read_from_the_final_state(rules):
    """held[k, g] = the gifted player holds gene k of the gift at the end of game g: a gift kept
    for good (GIFT_KEPT) is held in every game, and the vector is the final state's; the table's
    held_a / held_b are its means."""
    from sim.ursuppe.rules.book import GIFT_KEPT

    mutant = load_strategy("mutant-tuned")  # gives Suction 2 back in a defect (issue 20.3)
    r = combos.play_arm(rules, (SUCTION_2,), mutant, 2, 0, 48, 2)
    st = r.batch.state
    gifted = np.argmax(st.seat == (np.arange(48) % 4 + 1)[:, None], axis=1)
    assert np.array_equal(r.held[0], st.genes[np.arange(48), gifted, SUCTION_2])
    assert r.held[0].mean() < 0.5 and not r.held[1].any()
    kept = rules._replace(gift=np.array([SUCTION_2, -1], np.int8), gift_keep=GIFT_KEPT)
    b = batch_mod.new_batch(kept, parameter_table([mutant]), np.zeros(4, np.int16), 2, np.arange(48))
    batch_mod.play(b, seating="rotate", threads=2)
    assert b.state.genes[np.arange(48), gifted, SUCTION_2].all()
    held = np.zeros((4, 2, 4), np.int8)
    held[1, 0] = [1, 1, 0, 0]
    held[2, 0] = [1, 1, 1, 0]
    held[3] = [[1, 1, 1, 1], [0, 0, 0, 1]]
    arms = [(), (5,), (6,), (5, 6)]
    table = combo_stats.combo_table(arms, np.zeros((4, 4), np.int8), np.zeros((4, 4)), held, names=GENE_NAMES)
    assert table["held_a"].to_list() == [0.5, 0.75, 1.0] and table["held_b"][2] == 0.25
    assert np.isnan(table["held_b"][0])
    text = combo_stats.held_text(table)
    assert text[1] == "75%" and text[2] == "100% / 25% (B mostly given back)"


def _scan_plan(tmp_path, **kw):
    return combos.plan_scan(
        games=24, observed_games=0, out=tmp_path, only=["Suction 2", "Glutton", "Alarm"], **kw
    )


def _fake_scan_table(genes: list[str]) -> pl.DataFrame:
    """A scan's table as confirm_arms reads it: the first gene has the largest gain."""
    rows = [
        {"kind": "single", "gene_a": g, "gene_b": None, "gain": 1.0 - i / 10} for i, g in enumerate(genes)
    ]
    return pl.DataFrame(rows)


def test_null_gene_reads_zero_and_a_planted_gene_reads_positive(tmp_path):
    """The confirmation stage on enough games for a 95% interval under 3 points: the null gene
    (no effect) reads 0 within 2 standard errors in every cell, and a strong gift (Suction 2, +70
    points to a greedy holder in the scan) reads clearly positive and robust in every cell."""
    from sim.ursuppe.experiments import combos_confirm as C

    config = C.ConfirmConfig(top=1, games=6_000, fields=("greedy", "predator"), holders=("greedy",))
    plan = C.plan_confirmation(_scan_plan(tmp_path), config)
    conf = C.run_confirmation(plan, _fake_scan_table(["Suction 2", "Glutton"]), threads=2)
    t = conf.table
    null = t.filter(pl.col("kind") == "reference")
    assert len(null) == 2 and plan.games >= 6_000
    for r in null.iter_rows(named=True):
        assert r["gain_high"] - r["gain_low"] < 0.03
        assert abs(r["gain"]) <= 2 * r["gain_se"] or r["gain"] == 0
    planted = t.filter(pl.col("arm") == "Suction 2")
    assert (planted["gain_low"] > 0.1).all() and (planted["gain_holm"] < 1e-6).all()
    label = conf.labels.filter(pl.col("arm") == "Suction 2").row(0, named=True)
    assert label["label"] == "robust" and label["cells_agreeing"] == 2
    md = conf.markdown
    assert "within 2 standard errors of 0 in every cell" in md and "**Suction 2**" in md
    assert "every other seat predator, holder greedy" in md


def test_confirmation_labels_conditional_and_names_the_cell():
    """A gain significant in one cell and not in another is conditional, and the reason names
    the cell that erases it; one that flips sign is named as flipping."""
    n = 2_000
    rng = np.random.default_rng(1)
    base = (rng.random(n) < 0.25).astype(np.int8)
    strong = np.maximum(base, (rng.random(n) < 0.5).astype(np.int8))
    weak = base.copy()
    weak[:4] = 1 - weak[:4]
    worse = np.minimum(base, (rng.random(n) < 0.3).astype(np.int8))
    held = np.ones((3, 2, n), np.int8)
    outcomes = [
        (np.stack([base, base, strong]), held),
        (np.stack([base, base, weak]), held),
        (np.stack([base, base, worse]), held),
    ]
    names = list(combos.GENE_NAMES)
    table, _ = combo_stats.confirm_table(
        [(), (0,), (SUCTION_2,)],
        ["baseline", "reference (null gene)", "top single"],
        ["a", "b", "c"],
        ["field A", "field B", "field C"],
        outcomes,
        np.zeros(n, np.int64),
        names,
        [float("nan"), float("nan"), 0.5],
    )
    labels = combo_stats.confirm_labels(table)
    row = labels.row(0, named=True)
    assert row["label"] == "conditional" and row["cells_agreeing"] == 1
    assert "erased when field B" in row["label_reason"] and "flips when field C" in row["label_reason"]
    assert len(labels) == 1  # the reference arm is a check, not a labelled arm


def test_confirmation_resumes_after_ctrl_c_and_gives_the_same_files(tmp_path):
    """Ctrl-C in the confirmation stage keeps the scan's files and the finished arms and cells,
    marks the report INTERRUPTED with the command; the same call resumes and its files are byte
    for byte those of an uninterrupted run (timing.json aside)."""
    from sim.ursuppe.experiments import combos_confirm as C

    config = C.ConfirmConfig(top=1, games=24, fields=("greedy", "predator"), holders=("greedy",))
    kw = dict(games=24, observed_games=48, only=["Suction 2", "Glutton", "Alarm"], threads=1, confirm=config)
    whole = combos_run.run_combos(out=tmp_path / "whole", **kw)
    assert not whole.interrupted and whole.confirmation.cells_done == 2
    calls = []

    def stop(done, total):
        calls.append(done)
        if done > 24 * 7 + 24 + 5 * 24:  # the scan (7 arms, +24 observed games) and 5 arms of the panel
            raise KeyboardInterrupt

    part = combos_run.run_combos(out=tmp_path / "part", progress=stop, command="soup combos --again", **kw)
    assert part.interrupted and part.arms_done == part.arms
    report = (tmp_path / "part" / "combos.md").read_text()
    assert "INTERRUPTED (Ctrl-C) in the confirmation stage after 1 of 2 cells" in report
    assert "`soup combos --again`" in report and (tmp_path / "part" / "combos.csv").exists()
    again = combos_run.run_combos(out=tmp_path / "part", **kw)
    assert again.resumed_arms == 7 and not again.interrupted
    for f in (
        "combos.md",
        "combos.csv",
        "confirm.csv",
        "outcomes.npz",
        "combos-heatmap.png",
        "observed.csv",
        "confirm/cell-00.npz",
        "confirm/cell-01.npz",
    ):
        assert (tmp_path / "part" / f).read_bytes() == (tmp_path / "whole" / f).read_bytes(), f


def test_interrupted_scan_resumes(tmp_path):
    """Ctrl-C during the scan keeps the finished arms; the same call plays only the others and
    gives the uninterrupted scan's outcomes."""
    kw = dict(games=24, observed_games=0, only=["Glutton", "Alarm", "Rebound"], threads=1)
    combos_run.run_combos(out=tmp_path / "whole", **kw)

    def stop(done, total):
        if done >= 24 * 4:
            raise KeyboardInterrupt

    part = combos_run.run_combos(out=tmp_path / "part", progress=stop, **kw)
    assert part.arms_done == 4 and part.arms == 7
    again = combos_run.run_combos(out=tmp_path / "part", **kw)
    assert again.resumed_arms == 4 and again.arms_done == 7
    a, b = np.load(tmp_path / "whole" / "outcomes.npz"), np.load(tmp_path / "part" / "outcomes.npz")
    assert all(np.array_equal(a[k], b[k]) for k in ("won", "position", "held", "arms"))


def test_cli_holder_against_and_panel(tmp_path):
    """The command as a user types it: a holder and fixed opponents for the scan, a one-cell
    panel over 2 decks; the headline names the conditions, confirm.csv has the cell,
    confirm-decks.csv the decks, combos.csv the holding."""
    out = tmp_path / "c"
    done = _soup(
        "combos",
        "--gene",
        "Suction 2",
        "--gene",
        "Glutton",
        "--games-per-arm",
        "24",
        "--holder",
        "greedy",
        "--against",
        "predator,greedy,predator",
        "--confirm-top",
        "1",
        "--panel-fields",
        "against:predator+greedy+predator",
        "--panel-holders",
        "greedy",
        "--decks",
        "2",
        "--observed-games",
        "0",
        "--threads",
        "2",
        "--out",
        str(out),
        "-q",
    )
    assert done.returncode == 0, done.stderr
    assert pl.read_csv(out / "confirm-decks.csv")["deck"].n_unique() == 2
    assert "2 plausible decks" in (out / "combos.md").read_text()
    report = (out / "combos.md").read_text()
    assert "fixed opponents predator, greedy, predator (one per other seat), holder greedy" in report
    assert "gift not exchangeable by Highly Adaptable" in report and "## Headline" in report
    assert "player 0, the holder" in report
    table = pl.read_csv(out / "combos.csv")
    assert {"held_a", "held_b"} <= set(table.columns)
    confirm = pl.read_csv(out / "confirm.csv")
    assert set(confirm["cell"]) == {"against:predator+greedy+predator / greedy"}
    assert {"label", "gain_holm", "held_a", "deck_sign"} <= set(confirm.columns)
    assert "confirmation on fresh games" in done.stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--holder", "no-such-holder"], "no-such-holder"),
        (["--against", "greedy,greedy"], "--against: expected 1 or 3"),
        (["--against", "greedy", "--pool", "greedy,predator"], "--against and --pool"),
        (["--pool", ","], "--pool"),
        (["--panel-fields", "greedy,against:greedy+greedy"], "--panel-fields"),
        (["--panel-holders", "no-such-holder"], "no-such-holder"),
        (["--confirm-top", "0"], "--confirm-top"),
        (["--confirm-games", "1"], "--confirm-games"),
        (["--decks", "0"], "--decks"),
        (["--decks", "2", "--no-confirm"], "--decks"),
    ],
)
def test_bad_field_options_are_one_line(args, needle, tmp_path):
    """Every field, panel and deck option is checked before the engine loads or a bar shows."""
    _refused(tmp_path, args, needle)


def test_cli_panel_defaults_match_the_experiment():
    from sim.ursuppe.cli import combos as cli_combos
    from sim.ursuppe.experiments import combos_confirm

    assert cli_combos.DEFAULT_CONFIRM_TOP == combos_confirm.DEFAULT_TOP
    assert tuple(cli_combos.DEFAULT_PANEL_FIELDS.split(",")) == combos_confirm.DEFAULT_FIELDS
    assert tuple(cli_combos.DEFAULT_PANEL_HOLDERS.split(",")) == combos_confirm.DEFAULT_HOLDERS


def test_decks_1_is_no_decks_and_k_decks_split_the_games(tmp_path):
    """--decks 1 plays exactly the games of no --decks (deck 0 is the rules' own); --decks 2
    plays every arm over the same two decks in blocks and reports each deck's gain."""
    from sim.ursuppe.experiments import combos_confirm as C

    table = _fake_scan_table(["Suction 2", "Glutton"])
    scan = _scan_plan(tmp_path / "scan")

    def confirm(decks, out):
        config = C.ConfirmConfig(top=1, games=48, fields=("greedy",), holders=("greedy",), decks=decks)
        plan = C.plan_confirmation(scan, config)
        plan.scan = combos.ScanPlan(**{**plan.scan.__dict__, "out": out})
        return plan, C.run_confirmation(plan, table, threads=2)

    _, none = confirm(None, tmp_path / "none")
    _, one = confirm(1, tmp_path / "one")
    assert none.table.equals(one.table)
    a = np.load(tmp_path / "none" / "confirm" / "cell-00.npz")
    b = np.load(tmp_path / "one" / "confirm" / "cell-00.npz")
    assert all(np.array_equal(a[k], b[k]) for k in ("won", "position", "held"))
    plan, two = confirm(2, tmp_path / "two")
    assert len(plan.deck_rules) == 2 and sum(c for _, c in plan.blocks) == plan.games
    decks = pl.read_csv(tmp_path / "two" / "confirm-decks.csv")
    assert sorted(decks["deck"].unique().to_list()) == [0, 1]
    row = two.table.filter(pl.col("arm") == "Suction 2").row(0, named=True)
    assert row["decks"] == 2 and row["deck_gain_min"] <= row["gain"] <= row["deck_gain_max"]
    assert "Across the 2 decks" in two.markdown


# --------------------------------------------------------------------------------------------
# Issue 21 (points 3, 5, 6, 7, 9 and the plurals): soup combos run as a user runs it
# --------------------------------------------------------------------------------------------

# The command in a subprocess that says, after its own output, whether the engine was imported:
# a check that can fail must fail before the engine loads (issue 21.9).
ENGINE_PROBE = (
    "import sys\n"
    "from sim.cli.app import main\n"
    "sys.argv = ['soup', *sys.argv[1:]]\n"
    "try:\n"
    "    main()\n"
    "finally:\n"
    "    print('ENGINE LOADED' if 'sim.ursuppe.engine.round' in sys.modules else 'engine not loaded')\n"
)


def _soup_probe(*args: str) -> subprocess.CompletedProcess:
    return processes.run([sys.executable, "-c", ENGINE_PROBE, *args], cwd=ROOT, timeout=600)


def _one_line_error(done: subprocess.CompletedProcess, *needles: str) -> str:
    """The command stopped before the engine with one line ``soup: error: ...`` naming the
    needles, exit 2."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.startswith("soup: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr
    for needle in needles:
        assert needle in done.stderr, (needle, done.stderr)
    assert done.stdout.strip() == "engine not loaded", done.stdout
    return done.stderr


def test_interrupted_scan_reports_what_was_played(tmp_path, monkeypatch):
    """Issue 21.3: Ctrl-C after the baseline and one single of a 5-gene scan (16 arms) used to
    write "5 genes, -4 pairs" and "2 arms (baseline, 5 singles, -4 pairs)". Now every count of
    the report and the terminal is what was played, out of what was planned."""
    from typer.testing import CliRunner

    from sim.cli.app import app

    play_arm = combos.play_arm
    chunks = []

    def interrupted_arm(*args, **kw):  # the third chunk: Ctrl-C during the second single
        chunks.append(1)
        if len(chunks) == 3:
            raise KeyboardInterrupt
        return play_arm(*args, **kw)

    monkeypatch.setattr(combos, "play_arm", interrupted_arm)
    genes = ["Glutton", "Alarm", "Rebound", "Flexible", "Hard Crust"]
    out = tmp_path / "c"
    args = ["combos", *(x for g in genes for x in ("--gene", g)), "--games-per-arm", "24"]
    args += ["--observed-games", "0", "--threads", "1", "--out", str(out), "-q"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 130, done.output
    report = (out / "combos.md").read_text()
    for text in (report, done.output):
        assert "genes: chosen (5 genes, 10 pairs)" in text
        assert "2 of 16 arms played (baseline, 1 of 5 singles, 0 of 10 pairs); 48 games in all" in text
        assert "INTERRUPTED (Ctrl-C) after 2 of 16 arms" in text
        assert not re.search(r"-\d+ (pairs|genes|singles)", text) and "1 singles" not in text
    assert "No pair finished before the scan was interrupted" in report
    assert "no pair finished before the interrupt" in done.output and "top 0" not in done.output
    assert pl.read_csv(out / "combos.csv")["kind"].to_list() == ["single"]


def test_cli_counts_are_singular_for_one_and_its_own_out_is_marked(tmp_path):
    """The plurals (issue 21, smaller things): a 2-gene scan has "1 pair", a one-cell panel "1
    cell". The output directory is marked as combos' own (issue 21.7), and the same command
    again is accepted in it (it resumes and gives the same report)."""
    out = tmp_path / "c"
    args = ["combos", "--gene", "Glutton", "--gene", "Alarm", "--games-per-arm", "24"]
    args += ["--observed-games", "0", "--confirm-top", "1", "--confirm-games", "24", "--panel-fields"]
    args += ["greedy", "--panel-holders", "greedy", "--threads", "2", "--out", str(out), "-q"]
    done = _soup(*args)
    assert done.returncode == 0, done.stderr
    report = (out / "combos.md").read_text()
    assert "genes: chosen (2 genes, 1 pair)" in report
    assert "4 arms (baseline, 2 singles, 1 pair); 96 games in all" in report
    assert "## Top 1 pair by interaction" in report and "## Top 1 pair by pair gain" in report
    assert "with a pair gain of q < 0.05:" in report and "in each of 1 cell:" in report
    assert "top 1 pair by interaction" in done.stdout and "of 1 cell" in done.stdout
    for wrong in ("1 pairs", "1 cells", "1 singles", "1 arms"):
        assert wrong not in report + done.stdout, wrong
    assert (out / ".soup-output").read_text() == "soup combos\n"
    again = _soup(*args)
    assert again.returncode == 0, again.stderr
    assert "4 arms kept from an earlier run" in again.stdout
    assert (out / "combos.md").read_text() == report


@pytest.fixture(scope="module")
def observed_runs(tmp_path_factory):
    """soup simulate runs: the scan's rules at 4 players, and three that cannot answer its
    observational question (no extra genes; 3 players; another house rule)."""
    from sim import runner
    from sim.ursuppe.rules.book import load_rules
    from sim.ursuppe.simulation import UrsuppeRun

    root = tmp_path_factory.mktemp("observed")
    greedy = [load_strategy("greedy")]
    made = {}
    for name, book, players in (
        ("scan", combos.combo_book(), 4),
        ("base", load_rules(), 4),
        ("3p", combos.combo_book(), 3),
        ("house", combos.combo_book(overrides={"flags": {"extra_reveal_per_round": 2}}), 4),
    ):
        spec = UrsuppeRun(book, players, 9, greedy, seats=[0] * players, seating="rotate")
        runner.run(spec, root / name, 24, 24, 1, version="test")
        made[name] = root / name
    return made


@pytest.mark.parametrize(
    ("run", "needles"),
    [
        ("base", ["without the extra genes (flags.extra_genes = false)"]),
        ("3p", ["holds 3-player games and the scan plays 4 players"]),
        ("house", ["other rules", "flags.extra_reveal_per_round 2 (the scan: 3)"]),
        ("not-a-run", ["not a soup simulate run directory"]),
    ],
)
def test_observed_run_that_cannot_answer_is_refused(run, needles, observed_runs, tmp_path):
    """Issue 21.5: --observed RUN with a run without the extra genes, of another player count or
    under other rules used to be read and reported as "No pair was held that often". It is
    refused in one line, before the engine loads, and nothing is written."""
    path = observed_runs.get(run)
    if path is None:
        path = tmp_path / run
        path.mkdir()
    out = tmp_path / "c"
    args = ["combos", "--gene", "Glutton", "--gene", "Alarm", "--observed", str(path), "--out", str(out)]
    _one_line_error(_soup_probe(*args), "--observed: ", *needles)
    assert not out.exists()


def test_out_must_be_combos_own_directory(observed_runs, tmp_path):
    """Issue 21.7: --out naming a soup simulate run (or a directory inside one), another
    command's output or a directory of other files used to receive combos' files among its own,
    exit 0. Each is refused in one line before the engine loads, and left as it was."""
    run = observed_runs["scan"]
    before = sorted(p.name for p in run.iterdir())
    tuned = tmp_path / "tuned"
    tuned.mkdir()
    (tuned / ".soup-output").write_text("soup tune\n")
    (tuned / "tuned.toml").write_text("")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    base = ["combos", "--gene", "Glutton", "--gene", "Alarm", "--out"]
    _one_line_error(_soup_probe(*base, str(run)), f"--out: {run} is a soup run directory")
    _one_line_error(_soup_probe(*base, str(run / "sub")), f"is inside {run}")
    _one_line_error(_soup_probe(*base, str(tuned)), "holds the output of soup tune")
    _one_line_error(_soup_probe(*base, str(other)), "holds other files (notes.txt)")
    assert sorted(p.name for p in run.iterdir()) == before
    assert sorted(p.name for p in tuned.iterdir()) == [".soup-output", "tuned.toml"]
    assert [p.name for p in other.iterdir()] == ["notes.txt"]


@pytest.fixture
def read_only_disk(tmp_path):
    """A read-only disk for the test (processes.tmpfs: needs root)."""
    with processes.tmpfs(tmp_path / "disk", "size=1M,ro") as mount:
        yield mount


def test_read_only_out_is_refused_before_the_scan(read_only_disk):
    """Issue 21.9: a new --out on a read-only disk was found only when the scan wrote its files,
    after the whole scan (3-10 minutes with the defaults). It is refused before the engine."""
    for out in (read_only_disk / "combos", read_only_disk):
        done = _soup_probe("combos", "--gene", "Glutton", "--gene", "Alarm", "--out", str(out))
        _one_line_error(done, f"--out: {out} is not writable")


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--gene", "Glutton"], ["--gene: expected at least 2 different genes", "soup verdict --gene"]),
        (["--gene", "Glutton", "--gene", "glutton"], ["--gene: expected at least 2 different genes"]),
        (["--gene", "Suction 1", "--gene", "Suction 2"], ["cannot be held together", "no pair to scan"]),
        (["--genes", "some", "--gene", "Glutton", "--gene", "Alarm"], ["--genes: expected one of"]),
        (["--games-per-arm", "10000000000"], ["--games-per-arm: ", "GiB"]),
        (["--observed-games", "10000000000"], ["--observed-games: ", "GiB"]),
        (["--confirm-games", "100000000000"], ["--confirm-games: ", "GiB"]),
        (["--players", "3", "--gene", "Frugality", "--gene", "Alarm"], ["Frugality is not in play"]),
    ],
)
def test_checks_that_can_fail_come_before_the_engine(args, needles, tmp_path):
    """Issue 21.9: `--gene Glutton` alone failed after an empty progress bar, blaming "--genes
    chosen: fewer than 2 genes in play". Every such check now runs before the engine loads or a
    bar shows, names the option, and leaves nothing behind."""
    out = tmp_path / "x"
    _one_line_error(_soup_probe("combos", "--out", str(out), *args), *needles)
    assert not out.exists()


@pytest.mark.parametrize("pair", ["[]", '["Alarm"]', '["Alarm", "PhD", "Glutton"]'])
def test_start_pair_of_other_than_two_genes_is_an_error(pair, tmp_path):
    """Issue 21.6: a start "pair" of 0, 1 or 3 extra genes was accepted, played and printed as a
    pair. XM2 lays out a pair and XM8 lets the table choose which (docs/decisions.md): another
    number is a one-line error naming the file and key, in soup rules and in soup combos."""
    rules = tmp_path / "start.toml"
    rules.write_text(f"[flags]\nextra_genes = true\nextra_start_pair = {pair}\n")
    n = pair.count('"') // 2
    needles = [f"{rules}: flags.extra_start_pair: expected 2 different extra genes", f"got {n}"]
    out = tmp_path / "c"
    _one_line_error(_soup_probe("combos", "--rules", str(rules), "--out", str(out)), *needles)
    assert not out.exists()
    done = _soup("rules", str(rules))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and needles[0] in done.stderr


def test_confirmation_labels_carry_the_size_and_the_holding():
    """Issue 32.5: a gain significant with the same sign in every cell is not robust when a cell
    reads below half the panel's median (Suction 2 read +6 to +72 and was 'robust') or when the
    holder gives the gift back (held at the end in 0% of the games): each is named with its
    number."""
    n = 2_000
    rng = np.random.default_rng(2)
    base = (rng.random(n) < 0.25).astype(np.int8)
    big = np.maximum(base, (rng.random(n) < 0.6).astype(np.int8))
    small = np.maximum(base, (rng.random(n) < 0.12).astype(np.int8))
    held = np.ones((3, 2, n), np.int8)
    given_back = held.copy()
    given_back[2] = 0
    outcomes = [
        (np.stack([base, base, big]), held),
        (np.stack([base, base, big]), held),
        (np.stack([base, base, small]), held),
        (np.stack([base, base, big]), given_back),
    ]
    table, _ = combo_stats.confirm_table(
        [(), (0,), (SUCTION_2,)],
        ["baseline", "reference (null gene)", "top single"],
        ["a", "b", "c", "d"],
        ["field A", "field B", "field C", "field D"],
        outcomes,
        np.zeros(n, np.int64),
        list(combos.GENE_NAMES),
        [float("nan"), float("nan"), 0.5],
    )
    row = combo_stats.confirm_labels(table).row(0, named=True)
    assert (table.filter(pl.col("arm") == "Suction 2")["gain_holm"] < 0.05).all()  # the sign holds everywhere
    assert row["label"] == "conditional" and row["cells_agreeing"] == 2 and row["judged"] == "gain"
    assert "below half the panel's median" in row["label_reason"] and "field C" in row["label_reason"]
    assert "given back when field D" in row["label_reason"] and "held at the end in 0%" in row["label_reason"]
