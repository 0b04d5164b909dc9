"""Batch simulation to Parquet (issue 4): determinism across threads and chunk sizes, resume
after an interruption, the result schema, and the ``soup simulate`` command."""

import json
import os

import numpy as np
import polars as pl
import pytest

from sim import runner
from sim.game import CORE_COLUMNS
from sim.ursuppe.simulation import UrsuppeRun
from strategies.ursuppe.params import load_strategy
from tests import processes
from tests.test_cli import ROOT, soup, soup_exe


def _spec(rulebook, seating="rotate", pool=True, players=4):
    strategies = [load_strategy("greedy"), load_strategy("random")]
    if pool:
        return UrsuppeRun(rulebook, players, 5, strategies, pool=[0, 1], seating=seating)
    return UrsuppeRun(rulebook, 4, 5, strategies, seats=[0, 1, 0, 1], seating=seating)


def _content(out) -> pl.DataFrame:
    return runner.scan_chunks(runner.chunk_files(out)).collect().sort(["game", "player"])


@pytest.mark.parametrize("players", [4, 6])
def test_same_rows_for_any_threads_and_chunk_size(rulebook, tmp_path, players):
    runner.run(_spec(rulebook, players=players), tmp_path / "a", 900, 900, 1)
    runner.run(_spec(rulebook, players=players), tmp_path / "b", 900, 128, 2)
    a, b = _content(tmp_path / "a"), _content(tmp_path / "b")
    assert a.height == 900 * players
    assert a.equals(b)
    assert len(list((tmp_path / "b").glob("chunk-*.parquet"))) == 8


def test_interrupted_run_resumes_to_the_same_result(rulebook, tmp_path):
    runner.run(_spec(rulebook), tmp_path / "full", 700, 100, 2)

    def stop_after_three_chunks(done, total):
        if done >= 300:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runner.run(_spec(rulebook), tmp_path / "cut", 700, 100, 2, progress=stop_after_three_chunks)
    manifest = json.loads((tmp_path / "cut" / "manifest.json").read_text())
    assert manifest["status"] == "running" and len(manifest["chunks"]) == 3
    assert len(list((tmp_path / "cut").glob("chunk-*.parquet"))) == 3  # every file listed is complete
    assert not list((tmp_path / "cut").glob(".*tmp*"))
    summary = runner.run(_spec(rulebook), tmp_path / "cut", 700, 100, 1)  # the same spec resumes
    # 100 each, then 75 + 25: the last chunk split off short (ChunkLayout)
    assert summary.chunks_played == 5 and summary.games_played == 400
    assert _content(tmp_path / "full").equals(_content(tmp_path / "cut"))
    with pytest.raises(runner.RunError, match="seed"):
        other = _spec(rulebook)
        other.seed = 6
        runner.run(other, tmp_path / "cut", 700, 100, 1)


def test_result_schema(rulebook, tmp_path):
    runner.run(_spec(rulebook, pool=False), tmp_path / "r", 200, 200, 1)
    df = _content(tmp_path / "r")
    expected = {
        *CORE_COLUMNS,  # every game's (tests/test_conformance.py checks their types)
        "final_position",
        "rounds",
        "end_reason",
        "amoebas",
        "genes_held",
        "genes_bought",
        "first_bought",
        "bp",
        "defect_genes_lost",
        "defect_bp_paid",
        "deck",
        "variant",  # null: 3-6 players (the 2-player variants: tests/test_two_players.py)
        "dummy_position",
        "colour_positions",  # null but for double play (tests/test_double_play.py)
        "colour_amoebas",
    }
    assert set(df.columns) == expected
    per_game = df.group_by("game").agg(
        pl.col("won").sum(), pl.col("rank").sort(), pl.col("start_space").sort()
    )
    assert (per_game["won"] == 1).all()
    assert all(r == [1, 2, 3, 4] for r in per_game["rank"].to_list())
    assert all(s == [1, 2, 3, 4] for s in per_game["start_space"].to_list())
    assert df.filter(pl.col("player") % 2 == 0)["strategy"].unique().to_list() == ["greedy"]
    assert all(sorted(d) == list(range(11)) for d in df["deck"].to_list()[:20])
    assert df["rules_id"].unique().to_list() == [rulebook.rules_id]
    # first_bought agrees with the genes_bought mask and lies within the game's rounds
    for mask, first, rounds in df.select("genes_bought", "first_bought", "rounds").rows()[:400]:
        assert [i for i, r in enumerate(first) if r > 0] == [i for i in range(len(first)) if mask >> i & 1]
        assert all(0 <= r <= rounds for r in first)
    # rotate seating: every start space equally often per player over a multiple of 4! games
    counts = df.filter(pl.col("game") < 192).group_by(["player", "start_space"]).len()["len"]
    assert (counts == 48).all()


def test_pool_assignment_is_deterministic_and_mixes(rulebook):
    spec = _spec(rulebook)
    a = spec.assignment(np.arange(1000))
    b = spec.assignment(np.arange(500, 1000))
    assert np.array_equal(a[500:], b)
    assert 0.4 < a.mean() < 0.6


def test_simulate_command(tmp_path):
    """The command and its closing summary, which never imports scipy.stats (about a second a
    command, issue 36.3): Python's import log (PYTHONPROFILEIMPORTTIME) names every module loaded."""
    out = tmp_path / "run"
    args = [*"simulate --games 400 --players 3 --chunk-size 150 --quiet --out".split(), str(out)]
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1")
    r = processes.run([soup_exe(), *args], cwd=ROOT, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Win rate by strategy" in r.stdout and "95% CI" in r.stdout and "PLACEHOLDER" in r.stdout
    imported = {
        line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")
    }
    assert "polars" in imported and "analysis.intervals" in imported  # the log covers the summary
    assert not {m for m in imported if m == "scipy.stats" or m.startswith("scipy.stats.")}
    manifest = json.loads((out / "manifest.json").read_text())
    # 150, 150, then 63 + 37: the last chunk split off short (ChunkLayout)
    assert manifest["status"] == "complete" and len(manifest["chunks"]) == 4
    assert manifest["spec"]["players"] == 3 and "rules" in manifest["spec"]
    again = soup("simulate", "--games", "400", "--players", "3", "--out", str(out), "--quiet")
    assert again.returncode == 0 and "already complete" in again.stdout  # the same command: nothing to play
    r = soup("simulate", "--games", "400", "--players", "3", "--out", str(out), "--quiet", "--resume")
    assert r.returncode == 0 and "already complete" in r.stdout


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--strategies", "greedy,random"], "--strategies"),
        (["--seating", "sideways"], "--seating"),
        (["--pool", "nonesuch"], "nonesuch"),
    ],
)
def test_simulate_bad_arguments(tmp_path, args, needle):
    r = soup("simulate", "--games", "10", "--out", str(tmp_path / "x"), "--quiet", *args)
    assert r.returncode == 2 and needle in r.stderr and len(r.stderr.strip().splitlines()) == 1


# Ctrl-C during `soup simulate`: tests/test_trustworthy_runs.py (what is kept, the command that resumes).


def test_the_rows_kernel_gives_the_columns_numpy_gave():
    """engine.outcome_columns.player_columns (issue 36.3, session 9) against the NumPy it
    replaced, on random players: ranks (W1's furthest marker first; equal positions in player
    order, as a stable sort gives them: the NumPy before used argsort's default sort, whose order
    of equal keys is not defined, and no game checked ends with two), first_bought one byte an
    entry; an entry outside a byte is reported, not written."""
    from sim.ursuppe.engine.outcome_columns import player_columns

    rng = np.random.default_rng(3)
    G, P, n = 500, 5, 46
    scores = rng.integers(0, 8, (G, P)).astype(np.int16)  # few positions: many equal ones
    bought = rng.integers(0, 256, (G, P, 50)).astype(np.int16)
    rank, packed = np.empty((G, P), np.int8), np.empty((G * P, n), np.uint8)
    assert player_columns(scores, bought, n, rank, packed) == 0
    order = np.argsort(-scores.astype(np.int64), axis=1, kind="stable")
    expected_rank = np.empty((G, P), np.int8)
    np.put_along_axis(expected_rank, order, np.arange(1, P + 1, dtype=np.int8)[None, :].repeat(G, 0), axis=1)
    assert (rank == expected_rank).all()
    assert (packed == bought[:, :, :n].reshape(G * P, n)).all()
    bought[7, 2, 45] = 256
    assert player_columns(scores, bought, n, rank, packed) == 1
    bought[7, 2, 45] = -1
    assert player_columns(scores, bought, n, rank, packed) == 1
    bought[7, 2, 45] = 5  # past n_genes: not a column
    bought[7, 2, 46] = 999
    assert player_columns(scores, bought, n, rank, packed) == 0
