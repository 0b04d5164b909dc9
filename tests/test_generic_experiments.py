"""The game-agnostic experiments (sim/experiments) with every registered game: arms on common
random numbers, paired comparison, round robin and equilibrium, CMA-ES tuning, and the backend
they are played on. The fast tier plays them on Pig, the cheapest game (issue 35: the fast tier
runs the generic stack); the other games' cases are slow tier."""

from dataclasses import replace

import numpy as np
import pytest

from sim import game as games
from sim.backends import LocalBackend
from sim.errors import UserError
from sim.experiments.arms import Arm, play_arm
from sim.experiments.compare import compare, paired_win_rates
from sim.experiments.tournament import round_robin
from sim.experiments.tune_flow import GameTuning, TuneRequest, tuning_job
from sim.experiments.tuning import TuneSetup, tune

# Pig in the fast tier; every other game in the slow tier (tests/conftest.py).
GAMES = [name if name == "pig" else pytest.param(name, marks=pytest.mark.slow) for name in games.names()]


def _setup(name):
    g = games.get(name)
    return g, g.load_rules(), g.info.player_counts[0]


@pytest.mark.parametrize("name", GAMES)
def test_an_arm_against_itself_reads_zero_everywhere(name, tmp_path):
    """The reference arm: the same rules twice on common random numbers differ by exactly 0."""
    g, rules, P = _setup(name)
    table = compare(g, Arm("a", rules), Arm("b", rules), P, 5, 120, tmp_path)
    assert (table["difference"] == 0).all() and (table["low"] == 0).all() and (table["high"] == 0).all()


@pytest.mark.parametrize("name", GAMES)
def test_arms_share_their_random_numbers_and_any_backend_plays_the_same_rows(name, tmp_path):
    g, rules, P = _setup(name)
    one = play_arm(g, Arm("x", rules), P, 9, 100, tmp_path / "one", threads=1)
    two = play_arm(g, Arm("x", rules), P, 9, 100, tmp_path / "two", backend=LocalBackend(2), chunk_size=30)
    assert one.equals(two)
    assert paired_win_rates(one, two, "start_space")["difference"].abs().max() == 0


def test_a_stronger_strategy_reads_positive_in_pig(tmp_path):
    """Pig: player 0 holding at 30 instead of 10 against a steady player wins clearly more."""
    g = games.get("pig")
    rules = g.load_rules()
    a, b = Arm("cautious", rules, strategies="cautious,steady"), Arm("bold", rules, strategies="bold,steady")
    table = compare(g, a, b, 2, 3, 2000, tmp_path, by="player")
    assert table.filter(table["player"] == 0)["low"][0] > 0  # the interval excludes no effect


@pytest.mark.parametrize("name", GAMES)
def test_round_robin_and_its_equilibrium(name, tmp_path):
    g, rules, P = _setup(name)
    strategies = [g.info.random_strategy, g.info.default_strategy]
    w, eq = round_robin(g, rules, strategies, P, 3, 200, tmp_path)
    assert np.allclose(w + w.T, 1.0)
    assert w[1, 0] > 0.5  # the default strategy beats random
    assert eq.mix[g.info.default_strategy] > 0.99


def test_tuning_pig_moves_a_timid_threshold_up(tmp_path):
    g = games.get("pig")
    tuned = tune(TuneSetup(g, g.load_rules(), "cautious", "steady", 2, 1, generations=4, games=400), tmp_path)
    assert tuned.vector[0] > 10  # cautious holds at 10; the best reply to steady holds later
    assert int(tuned.spec) == round(tuned.vector[0])


@pytest.mark.slow
def test_tuning_ursuppe_runs_on_the_protocol(tmp_path):
    g = games.get("ursuppe")
    setup = TuneSetup(g, g.load_rules(), "greedy", "greedy", 3, 1, generations=1, games=60, population=4)
    tuned = tune(setup, tmp_path)
    assert tuned.spec.endswith(".toml") and 0 <= tuned.win_rate <= 1
    assert len(tuned.history) == 1


def _request(**kw) -> TuneRequest:
    base = {"strategy": "cautious", "players": 2, "seed": 1, "games_per_candidate": 100, "eval_games": 24_000}
    return TuneRequest(**(base | kw))


@pytest.mark.parametrize(
    ("given", "option"),
    [
        ({"self_play": True}, "--self-play"),
        ({"variant": "dummy"}, "--variant"),
        ({"pool": "steady"}, "--pool"),
        ({"params": "genes"}, "--params"),
        ({"sigma": 0.1}, "--sigma"),
        ({"gene_value": True}, "--gene-value"),
    ],
)
def test_a_game_without_its_own_tuning_is_refused_its_options(given, option):
    """Issue 35.1: an option of a game's own soup tune (the declared "tuning_plan" capability) given
    with a game without one is one line naming the games that have it, before anything is built."""
    having = [n for n in games.names() if games.supports(games.get(n), "tuning_plan")]
    assert having and not games.supports(games.get("pig"), "tuning_plan")
    with pytest.raises(UserError, match=f"^{option}: only with --game {', '.join(having)} "):
        tuning_job(games.get("pig"), _request(**given))


def test_pig_tunes_on_the_flow_every_game_runs(tmp_path):
    """soup tune's job over the game protocol (Pig): its budget in whole generations, the games it
    announces are the games it reports, and its outputs (tuned.txt, the strategy its runs accept)."""
    out = tmp_path / "tune"
    with pytest.raises(UserError, match="less than one generation"):
        tuning_job(games.get("pig"), _request(budget=399, out=out))
    job = tuning_job(games.get("pig"), _request(budget=800, against="steady", out=out))
    assert isinstance(job, GameTuning) and job.out == out and job.total == (2 * 4 + 2) * 100
    job.check()
    out.mkdir()  # the command line's claim of --out (sim.out_dirs.claim) makes it
    seen = []
    job.play(1, lambda done, total: seen.append((done, total)))
    # from the games kept (none), then after every candidate (a generation's end is told twice)
    assert seen[0] == (0, job.total) and seen[-1] == (job.total, job.total)
    assert sorted({done for done, _ in seen}) == [k * 100 for k in range(2 * 4 + 2 + 1)]
    said: list[str] = []
    job.finish(1, said.append, said.append)
    assert int((out / "tuned.txt").read_text()) == int(job.tuned.spec)
    assert "| tuned |" in (out / "report.md").read_text() and said[-1].startswith("Wrote ")


def _pig_tune(out, seed=1, after_generation=None):
    g = games.get("pig")
    return tune(
        TuneSetup(g, g.load_rules(), "cautious", "steady", 2, seed, 4, 100),
        out,
        after_generation=after_generation,
    )


def test_an_interrupted_tune_resumes_to_what_a_whole_one_gives(tmp_path):
    """Issue 35.1: every game's tune runs on the checkpointed loop (Pig here): interrupted after a
    generation, its checkpoint keeps that generation, and the same call resumes to the whole run's
    vector, history and win rates, bit for bit."""
    whole = _pig_tune(tmp_path / "whole")

    def stop(state):
        if state.generation == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _pig_tune(tmp_path / "cut", after_generation=stop)
    job = tuning_job(
        games.get("pig"), _request(budget=1600, against="steady", out=tmp_path / "cut", resume=True)
    )
    job.check()  # the kept checkpoint is this tuning's: --resume continues it
    assert job.kept() == f"2 of 4 generations are kept in {tmp_path / 'cut'}"
    resumed = _pig_tune(tmp_path / "cut")
    assert resumed.vector.tobytes() == whole.vector.tobytes() and resumed.spec == whole.spec
    assert resumed.history == whole.history and len(whole.history) == 4
    assert (resumed.win_rate, resumed.start_win_rate) == (whole.win_rate, whole.start_win_rate)


def test_another_tunings_checkpoint_is_refused_in_one_line(tmp_path):
    """Issue 35.1: a checkpoint in --out of another tuning (here another seed) is one line, before
    anything plays, as Ursuppe's; --resume without a checkpoint is one line too."""
    out = tmp_path / "tune"
    _pig_tune(out)
    with pytest.raises(UserError, match=f"^{out}: holds another tuning [^\\n]*use another --out$"):
        _pig_tune(out, seed=2)
    with pytest.raises(UserError, match="^.*holds another tuning"):
        tuning_job(games.get("pig"), _request(budget=1600, against="steady", out=out, seed=2)).check()
    fresh = tuning_job(
        games.get("pig"), _request(budget=1600, against="steady", out=tmp_path / "no", resume=True)
    )
    with pytest.raises(UserError, match="^--resume: .* holds no tuning to continue$"):
        fresh.check()


def test_a_game_declaring_its_own_tuning_plan_gives_the_job():
    """Issue 35.1: the flow asks a game for its own job only where the game declares "tuning_plan"
    (declared, not probed): the same object undeclared runs the game-agnostic job."""
    pig = games.get("pig")

    class Own:
        def __init__(self, capabilities: tuple[str, ...]) -> None:
            self.info = replace(pig.info, capabilities=capabilities)

        def __getattr__(self, name):
            return getattr(pig, name)

        def tuning_plan(self, request):
            return ("own", request)

    request = _request(self_play=True)
    assert tuning_job(Own((*pig.info.capabilities, "tuning_plan")), request) == ("own", request)
    assert isinstance(tuning_job(Own(pig.info.capabilities), _request(budget=800)), GameTuning)


# --- The paired stack (sim.experiments.paired) that soup compare, ablate and tournament run for every game
# (issue 35.1), in process on Pig: the fast tier runs it.


def _pig_player():
    from sim.experiments.arms import arm_player

    return arm_player(threads=1, chunk_size=40)


def test_the_paired_stack_compares_pig_on_common_random_numbers(tmp_path):
    """soup compare's stack on a game without paired metrics: the win rates by each column the
    game pairs by (GameInfo.paired_by), the same rules twice reading exactly 0, the table written."""
    from sim.experiments import paired

    g = games.get("pig")
    house = tmp_path / "house.toml"
    house.write_text("target = 40\n")
    result = paired.compare(g, [str(house)], paired.Setup(2, 80, 3), tmp_path / "c", _pig_player())
    assert isinstance(result, paired.WinRates) and tuple(result.tables) == g.info.paired_by
    assert result.lines[0].startswith("A: default (") and "B: " + str(house) in result.lines[0]
    assert (tmp_path / "c" / "comparison.md").read_text().startswith("# soup compare --game pig")
    same = paired.compare(g, ["default", "default"], paired.Setup(2, 80, 3), tmp_path / "s", _pig_player())
    assert all((t["difference"] == 0).all() for t in same.tables.values())
    # the same arguments again reuse the complete runs (resume), with the same tables
    again = paired.compare(g, [str(house)], paired.Setup(2, 80, 3), tmp_path / "c", _pig_player())
    assert all(again.tables[k].equals(result.tables[k]) for k in result.tables)


def test_the_paired_stack_plays_a_round_robin_of_pig(tmp_path):
    from sim.experiments import paired

    g = games.get("pig")
    result = paired.tournament(
        g, "random,steady", paired.Setup(2, 60, 3), None, None, tmp_path / "t", _pig_player()
    )
    assert isinstance(result, paired.RoundRobin) and result.names == ["random", "steady"]
    assert np.allclose(result.matrix + result.matrix.T, 1.0) and result.matrix[1, 0] > 0.5
    assert paired.field(g, None) == g.strategy_names()  # Pig names no field of its own: every preset


@pytest.mark.parametrize(
    "option, call, said",
    [
        ("--decks", "compare", "--decks: only with --game ursuppe (pig gives no deck plans)"),
        ("--retune", "compare", "--retune: only with --game ursuppe (pig gives no retune)"),
        ("--anchor", "tournament", "--anchor: only with --game ursuppe (pig gives no paired metrics)"),
    ],
)
def test_an_option_without_its_capability_is_refused_naming_the_games_that_have_it(
    option, call, said, tmp_path
):
    """An option a game lacks the capability for (sim.game.CAPABILITIES) is refused in one line
    naming the games that declare it, before anything is written."""
    from sim.errors import UserError
    from sim.experiments import paired

    g = games.get("pig")
    out = tmp_path / "x"
    with pytest.raises(UserError) as e:
        if call == "compare":
            retune, decks = (object(), 1) if option == "--retune" else (None, 2)
            paired.compare(g, ["default"], paired.Setup(2, 80, 3), out, None, retune=retune, decks=decks)
        else:
            paired.tournament(g, None, paired.Setup(2, 60, 3), None, "steady", out, None)
    assert str(e.value) == said and not out.exists()
    with pytest.raises(UserError, match="--each: an experiment of ursuppe's gene deck"):
        paired.ablate(games.get("chromosome"), [], True, None, paired.Setup(3, 10, 1), out, None)


def test_the_command_line_names_no_game():
    """sim/cli/experiments.py reaches every game through the protocol (issue 35.1): no import of a
    game's package, no fork on the game's name."""
    import ast
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "sim" / "cli" / "experiments.py"
    tree = ast.parse(path.read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    named = [m for m in imported if any(part in games.names() for part in m.split("."))]
    assert not named
    assert "DEFAULT_GAME:" not in path.read_text() and "only_with_ursuppe" not in path.read_text()


def test_bad_input_of_the_paired_stack_leaves_nothing_behind(tmp_path):
    """Every arm's run is built (and checked) before --out is claimed: a player count, variant or
    strategy the game refuses is one UserError and no directory."""
    from sim.errors import UserError
    from sim.experiments import paired

    g = games.get("pig")
    for call in (
        lambda out: paired.compare(g, ["default"], paired.Setup(7, 80, 3), out, None),
        lambda out: paired.compare(
            g, ["default"], paired.Setup(2, 80, 3, strategies="steady,nobody"), out, None
        ),
        lambda out: paired.tournament(
            g, None, paired.Setup(2, 60, 3, variant="dummy"), None, None, out, None
        ),
    ):
        with pytest.raises(UserError):
            call(tmp_path / "x")
        assert not (tmp_path / "x").exists()
