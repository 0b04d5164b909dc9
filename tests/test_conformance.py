"""The conformance suite: every registered game (sim.game) passes it by registering (Pgx's
``api_test``, OpenSpiel's ``games_sim_test``). Determinism across threads and chunk sizes, resume
after an interrupt, random strategies that finish every game, the core result columns, and for
each capability a game declares (sim.game.CAPABILITIES) its checks: the scenario round trip, the
invariants after every phase in debug mode, the decision points."""

import sys
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim import game as games
from sim import runner
from sim.errors import UserError
from sim.game import CORE_COLUMNS

GAMES = games.names()


def declaring(capability: str) -> list[str]:
    """The registered games that declare ``capability``: its checks run for those only."""
    return [n for n in GAMES if games.supports(games.get(n), capability)]


SMALL = 240  # games per run: enough for every seat and strategy, quick on two cores


def _players(g) -> int:
    return g.info.player_counts[0]


def _rows(out) -> pa.Table:
    return pa.concat_tables([pq.read_table(f) for f in runner.chunk_files(out)]).sort_by(
        [("game", "ascending"), ("player", "ascending")]
    )


def _run(g, seed=3, strategies=None):
    rules = g.load_rules()
    return g.new_run(rules, _players(g), seed, strategies=strategies)


def _play(adapter, out, games_, chunk, threads):
    opened = runner.open_run(adapter, out, games_, chunk)
    runner.play(opened, threads)
    return _rows(out)


def test_every_game_is_registered():
    assert {"ursuppe", "pig", "chromosome"} <= set(GAMES)


@pytest.mark.parametrize("name", GAMES)
def test_a_game_gives_every_capability_it_declares(name):
    """Issue 35.4: capabilities are declared, not probed: each declared one's methods are there."""
    g = games.get(name)
    assert games.capability_problem(g) is None
    assert set(games.REQUIRED_CAPABILITIES) <= set(g.info.capabilities)
    for capability in g.info.capabilities:
        for method in games.CAPABILITIES[capability].methods:
            assert callable(getattr(g, method)), (capability, method)


class _Without:
    """A registered game's object declaring one capability fewer (a game without it)."""

    def __init__(self, g, capability: str) -> None:
        kept = tuple(c for c in g.info.capabilities if c != capability)
        self.info = replace(g.info, name=f"{g.info.name}-without-{capability}", capabilities=kept)
        self._game = g

    def __getattr__(self, name):
        return getattr(self._game, name)


def test_a_game_missing_a_declared_capabilitys_method_is_not_registered():
    class Broken(_Without):
        def __init__(self) -> None:
            super().__init__(games.get("pig"), "none")
            self.info = replace(self.info, name="broken", capabilities=(*self.info.capabilities, "ablation"))

    with pytest.raises(TypeError, match="declares 'ablation' but does not give ablation"):
        games.register(Broken())
    assert "broken" not in games.names()
    with pytest.raises(TypeError, match="required capabilities"):
        games.register(_Without(games.get("pig"), "runs"))


def test_a_command_whose_capability_a_game_lacks_is_refused_in_one_line(monkeypatch, capsys):
    """soup tune with a game that does not declare "tuning": one line naming what it needs and the
    games that have it, exit 2, before anything runs."""
    from sim.cli import app as cli

    lacking = _Without(games.get("pig"), "tuning")
    monkeypatch.setitem(games._REGISTERED, lacking.info.name, lacking)
    monkeypatch.setattr(sys, "argv", ["soup", "tune", "--game", lacking.info.name, "--strategy", "cautious"])
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        cli.main()
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1, err
    assert "soup tune needs strategies CMA-ES can tune" in err[0] and "pig" in err[0], err[0]


@pytest.mark.parametrize("name", GAMES)
def test_determinism_across_threads_and_chunk_sizes(name, tmp_path):
    g = games.get(name)
    one = _play(_run(g), tmp_path / "a", SMALL, SMALL, 1)
    two = _play(_run(g), tmp_path / "b", SMALL, 70, 2)
    assert one.equals(two)


@pytest.mark.parametrize("name", GAMES)
def test_resume_after_an_interrupt_gives_the_same_rows(name, tmp_path):
    """A deterministic interrupt: the run stops after its first chunk (the second chunk's play
    raises), then the same spec resumes and plays only what is missing."""
    g = games.get(name)
    whole = _play(_run(g), tmp_path / "whole", SMALL, 80, 1)

    adapter = _run(g)
    calls = {"n": 0}
    method = "play_games" if adapter.splits_rows else "play_chunk"  # what the runner calls
    real = getattr(adapter, method)

    def stop_after_one(first, count, threads, **given):
        calls["n"] += 1
        if calls["n"] > 1:
            raise KeyboardInterrupt
        return real(first, count, threads, **given)

    object.__setattr__(adapter, method, stop_after_one)
    with pytest.raises(KeyboardInterrupt):
        runner.play(runner.open_run(adapter, tmp_path / "resumed", SMALL, 80), 1)
    left = runner.open_run(_run(g), tmp_path / "resumed", SMALL, 80).todo
    assert left == [1, 2, 3]  # 80 + 80 + 60 + 20: the last chunk split off short (ChunkLayout)
    assert _play(_run(g), tmp_path / "resumed", SMALL, 80, 1).equals(whole)


@pytest.mark.parametrize("name", GAMES)
def test_random_strategies_finish_every_game(name, tmp_path):
    g = games.get(name)
    P = _players(g)
    rows = _play(_run(g, strategies=",".join([g.info.random_strategy] * P)), tmp_path / "r", SMALL, SMALL, 2)
    assert rows.num_rows == SMALL * P
    won = rows.column("won").to_pylist()
    per_game = [sum(won[i : i + P]) for i in range(0, len(won), P)]
    if not g.info.may_end_without_winner:
        assert min(per_game) >= 1  # every game ended with a winner (shared wins allowed)
    rank = rows.column("rank").to_pylist()
    assert all((r == 1) == w for r, w in zip(rank, won, strict=True))  # rank 1: the winners


@pytest.mark.parametrize("name", GAMES)
def test_the_core_result_columns(name, tmp_path):
    g = games.get(name)
    rows = _play(_run(g), tmp_path / "s", 60, 60, 1)
    for column, arrow_type in CORE_COLUMNS.items():
        assert column in rows.column_names, column
        kind = rows.schema.field(column).type
        kind = kind.value_type if pa.types.is_dictionary(kind) else kind  # a string may be encoded
        assert str(kind) == arrow_type, column
    manifest = runner.read_manifest(tmp_path / "s") if hasattr(runner, "read_manifest") else None
    spec = manifest["spec"] if manifest else _run(g).spec()
    assert games.game_of_spec(spec, "manifest") is g


@pytest.mark.parametrize("name", declaring("scenarios"))
def test_scenario_round_trip(name):
    """A scenario's position, written back as a scenario document, loads as the same position and
    plays to the same outcome."""
    g = games.get(name)
    files = g.scenario_files()
    assert files, f"{name}: no scenario files"
    loaded = 0
    for path in files[:: max(1, len(files) // 12)]:
        try:
            scenario = g.load_scenario(path)
        except UserError:
            continue  # a bad-input scenario: the game's own scenario tests check its message
        document = g.scenario_document(scenario)
        again = g.load_scenario(document)
        assert g.scenario_document(again) == document, path.name
        loaded += 1
    assert loaded > 0


@pytest.mark.parametrize("name", GAMES)
def test_invariants_after_every_phase_in_debug_mode(name):
    g = games.get(name)
    P = _players(g)
    strategies = [g.info.random_strategy] * P
    assert g.play_checked(g.load_rules(), P, strategies, seed=5, games=30) == 30


# --- decision points (issue 33: sim.game.Replay) ----------------------------------------------


def _walk(replay, rng, choose=None) -> tuple[list, list]:
    """Walk a replayed game from decision point to decision point to its end: the tape of choices
    (a random option each, or ``choose(point)``) and the points met."""
    tape, points = [], []
    while (point := replay.point(tape)) is not None:
        points.append(point)
        i = int(rng.integers(len(point.options))) if choose is None else choose(point)
        tape.append(point.choice(i))
        assert len(tape) < 5000, "a walk that does not end"
    return tape, points


@pytest.mark.parametrize("name", declaring("decision_points"))
def test_decision_points_without_choices_replay_the_runs_games(name, tmp_path):
    """Issue 33: a game replayed through the decision protocol with no choice forced is the game
    the batch engine plays in a run (the same winners, player by player)."""
    g = games.get(name)
    rows = _play(_run(g), tmp_path / "r", 6, 6, 1)
    P = _players(g)
    won = rows.column("won").to_pylist()
    for i in range(6):
        _, replayed = g.replay(_run(g), i).outcomes([])
        assert replayed[0].tolist() == won[i * P : (i + 1) * P], i


@pytest.mark.parametrize("name", declaring("decision_points"))
def test_decision_points_walk_a_game_to_its_end(name):
    """Issue 33: every decision point names a player and at least two legal options (a single
    option is taken without asking); any listed option is accepted and the walk reaches the end;
    the same choices give the same game, and a prefix of them stops at the same point again."""
    g = games.get(name)
    replay = g.replay(_run(g), 2)
    tape, points = _walk(replay, np.random.default_rng(1))
    assert points, "a game without a decision"
    for k, point in enumerate(points):
        assert point.index == k and 0 <= point.player < replay.players
        assert len(point.options) >= 2
    first = replay.outcomes(tape)
    again = replay.outcomes(tape)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    k = len(points) // 2
    middle = replay.point(tape[:k])
    assert middle.player == points[k].player and middle.kind == points[k].kind
    assert np.array_equal(middle.options, points[k].options)


@pytest.mark.parametrize("name", declaring("decision_points"))
def test_decision_points_of_one_seat(name):
    """Issue 33: a replay of one seat stops only at that seat's decisions (the others' strategies
    decide as in the run)."""
    g = games.get(name)
    replay = g.replay(_run(g), 4, seats=[1])
    _, points = _walk(replay, np.random.default_rng(2))
    assert points and {p.player for p in points} == {1}


@pytest.mark.parametrize("name", declaring("decision_points"))
def test_a_fork_redraws_the_future_reproducibly(name):
    """Issue 33, no peeking: forks of a game at a decision point play on with fresh randomness (the
    futures differ between fork keys), and the same fork key gives the same future."""
    g = games.get(name)
    replay = g.replay(_run(g), 3, seats=[0])
    tape, points = _walk(replay, np.random.default_rng(3))
    cut = tape[: len(tape) // 3 + 1]
    forks = list(range(100, 116))
    scores, won = replay.outcomes(cut, forks=forks)
    assert scores.shape == (16, replay.players) and won.shape == scores.shape
    assert len({tuple(row) for row in scores}) > 1, "every fork played the same future"
    again, _ = replay.outcomes(cut, forks=forks)
    assert np.array_equal(scores, again)
    assert np.array_equal(replay.outcomes(cut, forks=forks[3:5])[0], scores[3:5])


@pytest.mark.parametrize("name", declaring("decision_points"))
def test_a_search_seat_in_a_run(name, tmp_path):
    """Issue 33: `search-2` sits at a table like any strategy (its rows named by it, its budget in
    the spec), and its games are the same on any threads and chunk sizes."""
    g = games.get(name)
    P = _players(g)
    default = g.info.default_strategy
    names = ",".join(["search-2"] + [default] * (P - 1))
    # Two games (a search game costs its rollouts): one chunk on 1 thread, two chunks on 2.
    one = _play(_run(g, strategies=names), tmp_path / "a", 2, 2, 1)
    two = _play(_run(g, strategies=names), tmp_path / "b", 2, 1, 2)
    assert one.equals(two)
    assert "search-2" in one.column("strategy").to_pylist()
    assert _run(g, strategies=names).spec()["search"]["search-2"]["budget"] == 2


@pytest.mark.parametrize("name", declaring("decision_points"))
def test_decision_point_defaults_are_the_strategys_choices(name):
    """Issue 33: a decision point's ``default`` is what the seat's strategy takes there: walking
    the defaults of the game's default strategy (one that draws no random numbers) replays the
    run's game exactly."""
    g = games.get(name)
    P = _players(g)
    run = _run(g, strategies=",".join([g.info.default_strategy] * P))
    for i in range(3):
        replay = g.replay(run, i, seats=[0])
        tape, points = _walk(replay, None, choose=lambda point: point.default)
        assert points and all(0 <= p.default < len(p.options) for p in points)
        assert np.array_equal(replay.outcomes(tape)[0], replay.outcomes([])[0])
