"""A game's own commands through the registry (issue 35.1): soup mounts each game's typer app
(entry point group ``soup.commands``) at its top level, the default game is registry data
(``soup.default_game``), and the kit's command line names no game. In process: no subprocess."""

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from sim import game as games
from sim.cli import app as cli_app
from sim.cli import support
from sim.errors import UserError

# A tiny game's command module: this test module itself is the ``module:app`` a game would name.
app = typer.Typer()


@app.command("hello")
def hello(times: int = 1) -> None:
    """Say hello (a test game's own command)."""
    typer.echo(" ".join(["hello"] * times))


# Another game's apps giving a name already taken: the kit's (rules) or the tiny game's (hello).
rules_again, hello_again = typer.Typer(), typer.Typer()
rules_again.command("rules")(hello)
hello_again.command("hello")(hello)


def _kit_app() -> typer.Typer:
    """An app with one kit command, as sim.cli.app builds soup's before mounting the games'."""
    kit = typer.Typer()

    @kit.command("rules")
    def rules() -> None:
        typer.echo("kit rules")

    return kit


def test_a_game_contributes_a_command_that_runs_at_the_top_level():
    kit = _kit_app()
    cli_app.mount_game_commands(kit, {"tiny": f"{__name__}:app"})
    result = CliRunner().invoke(kit, ["hello", "--times", "2"])
    assert result.exit_code == 0 and result.output == "hello hello\n"
    assert CliRunner().invoke(kit, ["rules"]).output == "kit rules\n"  # the kit's own still there


@pytest.mark.parametrize("taken", ["rules", "hello"])
def test_a_command_name_given_twice_is_a_registration_error(taken):
    """A game's command may not shadow the kit's or another game's."""
    apps = {"tiny": f"{__name__}:app", "other": f"{__name__}:{taken}_again"}
    owner = "soup" if taken == "rules" else "tiny"
    with pytest.raises(TypeError, match=f"game 'other' .*: command '{taken}' is {owner}'s already"):
        cli_app.mount_game_commands(_kit_app(), apps)


def test_ursuppe_contributes_its_gene_experiments_and_the_others_nothing():
    """Pig and Chromosome give no command module; Ursuppe gives combos, verdict and calibrate,
    which soup lists after the kit's commands."""
    assert games.command_apps() == {"ursuppe": "sim.ursuppe.cli:app"}
    names = [c.name for c in cli_app.app.registered_commands]
    assert names[-3:] == ["combos", "verdict", "calibrate"]
    mounted = {c.name: c.callback.__module__ for c in cli_app.app.registered_commands}
    assert {mounted[n] for n in ("combos", "verdict", "calibrate")} <= {
        "sim.ursuppe.cli.combos",
        "sim.ursuppe.cli.verdict",
    }
    assert not any(m.startswith("sim.ursuppe") for n, m in mounted.items() if n not in names[-3:])


def test_the_default_game_is_registry_data():
    """``--game``'s default is the one entry of soup.default_game, not a name in sim/cli."""
    assert games.default_name() == support.DEFAULT_GAME == "ursuppe"
    assert all(name in support.GAMES_HELP for name in games.names())
    cli = Path(support.__file__).parent
    assert not [p.name for p in cli.glob("*.py") if '"ursuppe"' in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("name", [n for n in games.names() if games.supports(games.get(n), "restrictions")])
def test_restrictions_name_a_bad_action_in_one_line(name):
    """The "restrictions" capability (soup verdict --action): a bad action is a UserError, and
    the game says in words which actions it can deny."""
    g = games.get(name)
    assert g.restriction_help()
    with pytest.raises(UserError, match="--action"):
        g.restriction(g.load_rules(), "no-such-action")


def test_only_games_with_figures_of_their_own_declare_bench():
    """Ursuppe's soup bench figures are its "bench" capability; Pig and Chromosome get the kit's
    games/s path (sim.bench_games) by not declaring it."""
    assert [n for n in games.names() if games.supports(games.get(n), "bench")] == ["ursuppe"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "args, line",
    [
        (["verdict", "--game", "pig", "--gene", "Tentacle"], "soup verdict is an experiment of ursuppe only"),
        (["verdict", "--game", "pig", "--action", "x"], "restricted play of an action is Chromosome's"),
        (["verdict", "--game", "chromosome"], "--game chromosome: give --action NAME (growth,"),
        (["bench", "--game", "pig", "--threads", "1"], "the scaling table is Ursuppe's"),
    ],
)
def test_a_games_command_or_capability_is_refused_to_another_game_in_one_line(args, line):
    """As a user runs it: the mounted verdict refuses Pig (no gene, no action to deny) and asks
    Chromosome for its action; bench's scaling table is the "bench" capability's."""
    from tests.test_tuning import soup

    r = soup(*args)
    assert r.returncode == 2 and line in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
