"""The conformance suite: every registered game (sim.game) passes it by registering (Pgx's
``api_test``, OpenSpiel's ``games_sim_test``). Determinism across threads and chunk sizes, resume
after an interrupt, random strategies that finish every game, the core result columns, the
scenario round trip and the invariants after every phase in debug mode."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim import game as games
from sim import runner
from sim.errors import UserError
from sim.game import CORE_COLUMNS

GAMES = games.names()
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
    method = "play_games" if hasattr(adapter, "play_games") else "play_chunk"  # what the runner calls
    real = getattr(adapter, method)

    def stop_after_one(first, count, threads):
        calls["n"] += 1
        if calls["n"] > 1:
            raise KeyboardInterrupt
        return real(first, count, threads)

    object.__setattr__(adapter, method, stop_after_one)
    with pytest.raises(KeyboardInterrupt):
        runner.play(runner.open_run(adapter, tmp_path / "resumed", SMALL, 80), 1)
    assert len(runner.open_run(_run(g), tmp_path / "resumed", SMALL, 80).todo) == 2
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


@pytest.mark.parametrize("name", GAMES)
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
