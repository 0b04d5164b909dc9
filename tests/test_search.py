"""The search player (issue 33, strategies/search.py): determinized flat Monte Carlo over the
decision points of any registered game."""

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from sim import game as games
from sim.errors import UserError
from sim.game import ReplayBase
from sim.ursuppe.engine import batch as B
from sim.ursuppe.engine.state import ERR_DECISION_POINT
from strategies.search import (
    SearchSpec,
    choose,
    halving_plan,
    is_search,
    load_search,
    play_game,
    reward,
)


def _run(g, players, strategies, seed=5):
    return g.new_run(g.load_rules(), players, seed, strategies=",".join(strategies))


def test_halving_plan_spends_the_budget_and_tries_every_option():
    assert halving_plan(2, 64) == [32]
    assert halving_plan(4, 64) == [8, 16]
    assert halving_plan(23, 4) == [1] * 5  # below one rollout per option: every option once
    for n in range(2, 40):
        plan = halving_plan(n, 256)
        alive, spent = n, 0
        for share in plan:
            spent += share * alive
            alive = (alive + 1) // 2
        assert spent <= max(256, n * len(plan))


def test_search_names_and_files(tmp_path):
    assert is_search("search") and is_search("search-16") and not is_search("breeder")
    assert load_search("search-16") == SearchSpec("search-16", 16)
    good = tmp_path / "deep.toml"
    good.write_text('kind = "search"\nbudget = 8\nrollout = "greedy"\nobjective = "score"\n')
    assert is_search(good) and load_search(good) == SearchSpec("deep", 8, "greedy", "score")
    bad = tmp_path / "bad.toml"
    bad.write_text('kind = "search"\nobjective = "fun"\n')
    with pytest.raises(UserError, match=r"bad.toml: objective: expected one of win, score, got 'fun'"):
        load_search(bad)
    bad.write_text('kind = "search"\nbudget = 0\n')
    with pytest.raises(UserError, match="budget: expected an integer >= 1"):
        load_search(bad)


@pytest.mark.parametrize("name", ["ursuppe", "pig"])
def test_search_with_one_rollout_per_option_is_reproducible(name):
    """Issue 33: search with a budget of one rollout per option and a fixed seed plays the same
    game twice (the fork keys come from the seed, the game and the decision)."""
    g = games.get(name)
    P = g.info.player_counts[0]
    rollout = "breeder" if name == "ursuppe" else g.info.default_strategy
    run = _run(g, P, [rollout] * P)
    spec = {0: SearchSpec(budget=1, rollout=rollout)}
    first = play_game(g.replay(run, 2, seats=[0]), spec, 9, 2)
    again = play_game(g.replay(run, 2, seats=[0]), spec, 9, 2)
    assert first[0] == again[0] and np.array_equal(first[1][0], again[1][0])
    assert first[0], "the search seat made no decision"


class _TrueFuture(ReplayBase):
    """An Ursuppe replay whose true game deals the cards after deck position ``pos`` in reverse
    order (the hidden future changed, the past kept): what the search must not see."""

    def __init__(self, replay, pos):
        self.replay, self.pos = replay, pos

    def _batch(self, tapes, stop, forks):
        b = self.replay.batch(tapes, stop, forks)
        B.setup(b, seating=self.replay.run.seating)
        st = b.state
        for a in (st.card_index, st.card_ozone, st.card_drift):
            a[:, self.pos + 1 : st.n_cards[0]] = a[:, self.pos + 1 : st.n_cards[0]][:, ::-1].copy()
        return B.play_rounds(b)

    def point(self, choices):
        raise NotImplementedError  # not needed: the test asks only for rollouts

    def rollouts(self, tapes, forks=None):
        b = self._batch(list(tapes), False, forks)
        won = np.zeros(b.state.score.shape, bool)
        won[np.arange(len(tapes)), b.state.winner] = True
        return b.state.score.astype(np.float64), won


def test_V2_no_peeking_the_search_choice_ignores_the_true_hidden_future():
    """Issue 33, no peeking: a search decision mid-game is the same when the true order of the
    cards not yet revealed is another (and that order does change the true game's outcome)."""
    g = games.get("ursuppe")
    run = _run(g, 4, ["breeder", "greedy", "breeder", "predator"], seed=11)
    replay = g.replay(run, 5, seats=[0])
    tape = []
    for _ in range(25):
        point = replay.point(tape)
        tape.append(point.choice(0))
    while len((point := replay.point(tape)).options) < 3:
        tape.append(point.choice(0))
    b = replay._play([tape], stop=True, forks=None)
    assert b.workspace.error[0, 0] == ERR_DECISION_POINT
    pos = int(b.state.deck_pos[0])
    truth = _TrueFuture(replay, pos)
    assert not np.array_equal(replay.outcomes(tape)[0], truth.outcomes(tape)[0])
    spec = SearchSpec(budget=24, rollout="breeder")
    assert choose(replay, tape, point, spec, 3, 5) == choose(truth, tape, point, spec, 3, 5)


@pytest.mark.parametrize("name", ["ursuppe", "pig"])  # Chromosome's: test_conformance's search seat
def test_search_plays_a_chunks_games_on_threads_with_the_same_tapes(name):
    """A run's search games are searched on its threads, one game a thread: the tapes (so the
    rows) are the same on 1 and 3 threads, and each game searched is reported once, in the
    calling thread (the progress bar counts games within a chunk)."""
    import threading

    g = games.get(name)
    P, n = 3, 5
    rollout = "breeder" if name == "ursuppe" else g.info.default_strategy
    run = _run(g, P, ["search-2"] + [rollout] * (P - 1))
    one = run.play_chunk(10, n, 1)
    called: list[str] = []
    three = run.play_chunk(10, n, 3, on_game=lambda: called.append(threading.current_thread().name))
    assert one.equals(three)
    assert called == [threading.current_thread().name] * n
    assert run.reports_games and not _run(g, P, [rollout] * P).reports_games


def test_the_progress_of_a_search_run_counts_games_within_a_chunk(tmp_path):
    """Issue 33: a run with a search seat reports each game as its search ends, not each chunk;
    a run without one still reports chunks."""
    from sim import runner

    g = games.get("pig")
    seen: list[int] = []
    runner.run(
        _run(g, 2, ["search-2", "steady"]), tmp_path / "s", 6, 3, 2, progress=lambda d, t: seen.append(d)
    )
    assert seen == sorted(seen) and sorted(set(seen)) == [0, 1, 2, 3, 4, 5, 6]
    seen.clear()
    runner.run(
        _run(g, 2, ["steady", "steady"]), tmp_path / "p", 6, 3, 2, progress=lambda d, t: seen.append(d)
    )
    assert seen == [0, 3, 6]


@pytest.mark.parametrize("variant", ["dummy", "double1", "double2"])
def test_TD1_TA2_TB3_search_plays_the_2_player_variants(variant):
    """A search player plays Ursuppe's 2-player variants: every colour of its player is its seat
    (TA2, TB3: a player decides for both its colours), never the dummy's (TD2: here the dummy's
    colour holds the search player's strategy row, 0); the same tapes on 1 and 2 threads."""
    from sim.ursuppe.rules.book import VARIANT_PLAYER_OF

    g = games.get("ursuppe")
    run = g.new_run(g.load_rules(), 2, 3, strategies="search-2,breeder", variant=variant)
    rows = np.array([0, 1], np.int64)
    tapes, masks = run.search_tapes(rows, run.colour_rows(rows))
    mine = sum(1 << c for c, q in enumerate(VARIANT_PLAYER_OF[variant]) if q == 0)
    assert masks.tolist() == [mine, mine] and all(tapes)
    assert run.search_tapes(rows, run.colour_rows(rows), threads=2)[0] == tapes


def test_reward_counts_a_player_once_over_its_colours():
    """The win objective in a double play (TA4): a column per colour, each holding its player's
    result; a win is one player's, the margin is over the rival player (not the seat's partner
    colour), and the dummy (-1, TD8) is nobody's rival."""
    scores = np.array([[20.0, 20.0, 15.0, 15.0]])
    won = np.array([[True, True, False, False]])
    assert reward(scores, won, 1, "win", (0, 0, 1, 1))[0] == pytest.approx(1 + 5e-4)
    assert reward(scores, won, 2, "win", (0, 0, 1, 1))[0] == pytest.approx(-5e-4)
    three = np.array([[10.0, 12.0, 30.0]])
    assert reward(three, np.array([[False, True, False]]), 1, "win", (0, 1, -1))[0] == pytest.approx(1 + 2e-4)
    assert reward(three[:, :2], np.array([[False, True]]), 1, "win")[0] == pytest.approx(1 + 2e-4)


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_search_beats_random_at_every_player_count(players):
    """Issue 33: a search seat (player 0, rollouts by its breeder) against random players wins
    three of four games or more (its fair share is one in ``players``)."""
    g = games.get("ursuppe")
    run = _run(g, players, ["breeder"] + ["random"] * (players - 1))
    wins = 0.0
    for i in range(4):
        _, (_, won) = play_game(g.replay(run, i, seats=[0]), {0: SearchSpec(budget=8)}, 1, i)
        wins += won[0, 0]
    assert wins >= 3


@pytest.mark.slow
def test_simulate_with_a_search_seat(tmp_path):
    """Issue 33: `soup simulate --strategies search-2,...` plays a search seat (its rows named by
    the preset, the manifest naming its budget and rollout policy), the same rows on a resumed or
    threaded run; a bad search file is one line naming the key."""
    from tests.processes import run

    def soup(*args):
        return run(["soup", *args], timeout=600)

    common = ["simulate", "--games", "6", "--strategies", "search-2,breeder,greedy,breeder", "--quiet"]
    r = soup(*common, "--out", str(tmp_path / "a"), "--chunk-size", "3")
    assert r.returncode == 0, r.stderr
    assert "search-2" in r.stdout
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["spec"]["search"]["search-2"] == {
        "name": "search-2",
        "budget": 2,
        "rollout": "breeder",
        "objective": "win",
    }
    r = soup(*common, "--out", str(tmp_path / "b"), "--threads", "2")
    assert r.returncode == 0, r.stderr
    rows = [pq.read_table(sorted((tmp_path / d).rglob("*.parquet"))).sort_by("game") for d in "ab"]
    assert (
        rows[0]
        .select(["game", "player", "won", "final_position"])
        .equals(rows[1].select(["game", "player", "won", "final_position"]))
    )
    bad = tmp_path / "bad.toml"
    bad.write_text('kind = "search"\nbudget = "lots"\n')
    r = soup("simulate", "--games", "2", "--strategies", f"{bad},breeder,breeder,breeder", "--quiet")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "bad.toml: budget: expected an integer >= 1" in r.stderr


@pytest.mark.slow
def test_TA2_simulate_a_search_player_in_double_play(tmp_path):
    """`soup simulate --players 2 --variant double1` takes a search player (it was refused): its
    rows are named by it, the same on 1 and 2 threads."""
    from tests.processes import run

    common = ["soup", "simulate", "--players", "2", "--variant", "double1", "--games", "2", "--quiet"]
    for t in ("1", "2"):
        r = run([*common, "--strategies", "search-2,breeder", "--threads", t, "--out", str(tmp_path / t)])
        assert r.returncode == 0, r.stderr
    rows = [pq.read_table(sorted((tmp_path / t).rglob("*.parquet"))) for t in "12"]
    assert rows[0].equals(rows[1]) and "search-2" in rows[0].column("strategy").to_pylist()


def test_bench_search_reports_the_cost_per_decision():
    """`soup bench --search`'s figures (strategies.search.bench), on Pig's small games."""
    from strategies.search import bench, bench_text

    doc = bench(games.get("pig"), 2, budgets=(2, 4), games=2)
    assert [row["budget"] for row in doc["budgets"]] == [2, 4]
    assert all(row["ms_per_decision"] > 0 and row["decisions_per_game"] > 0 for row in doc["budgets"])
    assert doc["rollout_over_plain"] > 0
    assert "search-4:" in bench_text(doc) and "ms a decision" in bench_text(doc)


def test_skill_ladder_pairs_its_rungs_and_reads_the_curve(tmp_path):
    """Issue 33, `soup skill`'s ladder (sim.experiments.skill) on Pig's small games: every rung
    plays the same games at player 0 against the field; the skill depth is the strongest rung's
    win rate minus random's, and the curve compares each search budget with the next."""
    from sim.experiments.skill import default_rungs, ladder, skill_curve, skill_depth

    g = games.get("pig")
    names = default_rungs(g, (2, 4))
    assert names[0] == g.info.random_strategy and names[-2:] == ["search-2", "search-4"]
    rungs = ladder(g, g.load_rules(), 2, names, "steady", 1, 30, tmp_path)
    assert [r.strategy for r in rungs] == names and all(r.games == 30 for r in rungs)
    assert all(r.low <= r.rate <= r.high for r in rungs)
    depth, best = skill_depth(rungs, g.info.random_strategy)
    assert depth == pytest.approx(max(r.rate for r in rungs) - rungs[0].rate) and best in names
    curve = skill_curve(rungs)
    assert [(g.base, g.better) for g in curve] == [("search-2", "search-4")]
    # paired: the gain is the difference of the rates, its interval the per-game differences'
    assert curve[0].estimate == pytest.approx(rungs[-1].rate - rungs[-2].rate)
    assert curve[0].low <= curve[0].estimate <= curve[0].high


def test_paired_gain_is_narrower_than_independent_intervals_and_pools_across_seeds():
    """Issue 33.5: a rung read against the field's own strategy on the same games. Shares that
    move together (the same games' luck) give a paired interval far narrower than the two
    Wilson intervals; a rung identical to its base reads exactly 0; ladders of two seeds pool
    game by game."""
    from sim.experiments.skill import over_field, paired_gain, pooled, rung

    rng = np.random.default_rng(5)
    luck = (rng.random(400) < 0.3).astype(float)
    better = luck.copy()
    better[rng.choice(np.flatnonzero(luck == 0), 40, replace=False)] = 1.0  # wins 40 more games
    a, b = rung("search-8", better), rung("breeder", luck)
    g = paired_gain(a, b)
    assert g.estimate == pytest.approx(0.1) and g.significant
    assert (g.high - g.low) < 0.5 * ((a.high - a.low) + (b.high - b.low))
    same = paired_gain(rung("breeder-again", luck), b)
    assert same.estimate == 0 and not same.significant
    assert [x.better for x in over_field([b, a], "breeder")] == ["search-8"]
    assert over_field([a], "breeder") == []
    both = pooled([[b, a], [b, a]])
    assert [r.games for r in both] == [800, 800] and both[1].rate == pytest.approx(a.rate)
    with pytest.raises(ValueError):
        paired_gain(a, rung("short", luck[:10]))


@pytest.mark.slow
def test_soup_skill_command(tmp_path):
    """`soup skill` prints the ladder, the skill depth and the curve, and draws skill.png."""
    from tests.processes import run

    r = run(
        [
            "soup",
            "skill",
            "--game",
            "pig",
            "--players",
            "2",
            "--games",
            "20",
            "--budgets",
            "2,4",
            "--threads",
            "1",
            "--out",
            str(tmp_path / "s"),
        ],
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    assert "skill depth:" in r.stdout and "search-2 -> search-4" in r.stdout
    assert (tmp_path / "s" / "skill.png").stat().st_size > 0
    bad = run(["soup", "skill", "--game", "pig", "--players", "2", "--budgets", "2,x"], timeout=120)
    assert bad.returncode != 0 and "--budgets: expected positive integers" in bad.stderr


@pytest.mark.slow
def test_tournament_with_a_search_player(tmp_path):
    """Issue 33: a search player takes part in `soup tournament` like a preset (its seats' rows
    named by it, the pair's winner in the matrix)."""
    from tests.processes import run

    r = run(
        [
            "soup",
            "tournament",
            "--strategies",
            "search-2,breeder",
            "--games",
            "10",
            "--players",  # 12 games, the 3-player seating block (at 4 players: 48, 11 s of search)
            "3",
            "--threads",
            "1",
            "--out",
            str(tmp_path / "t"),
            "-q",
        ],
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    matrix = (tmp_path / "t" / "tournament-matrix.csv").read_text()
    assert "search-2" in matrix and "breeder" in matrix
