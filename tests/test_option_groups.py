"""Option groups (sim/cli/option_groups.py, issue 35.5): a run of options several commands take
alike, declared once as a dataclass, is spelled out in a command's signature where the command
names it: the options, their help and their order in --help are those of the written-out
command, and the command gets the group's values as one object."""

from dataclasses import dataclass
from typing import Annotated

import pytest
import typer
from typer.testing import CliRunner

from sim.cli.option_groups import changed, grouped, spelled_out

First = Annotated[int, typer.Option(help="The first option.")]
Left = Annotated[int, typer.Option(min=0, help="The group's first.")]
Right = Annotated[str | None, typer.Option("--right", "-r", metavar="NAME", help="The group's second.")]
Last = Annotated[bool, typer.Option("--last/--no-last", help="The last option.")]


@dataclass(frozen=True)
class Pair:
    left: Left = 1
    right: Right = None


def _help(command) -> str:
    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    app.command("c")(command)
    app.command("other")(lambda: None)  # two commands: `c` is a subcommand, as soup's are
    return CliRunner().invoke(app, ["c", "--help"], env={"COLUMNS": "100"}).output


def test_a_group_is_spelled_out_in_place_with_the_help_of_the_written_out_command():
    @grouped
    def c(*, first: First = 0, pair: Pair, last: Last = False) -> None:
        """A command."""

    def written_out(first: First = 0, left: Left = 1, right: Right = None, last: Last = False) -> None:
        """A command."""

    c.__name__ = written_out.__name__ = "c"
    assert "--left" in _help(c) and _help(c) == _help(written_out)


def test_a_command_gets_the_groups_values_as_one_object():
    seen = {}

    @grouped
    def c(*, first: First = 0, pair: Pair, last: Last = False) -> None:
        seen.update(first=first, pair=pair, last=last)

    app = typer.Typer(add_completion=False)
    app.command("c")(c)
    app.command("other")(lambda: None)
    result = CliRunner().invoke(app, ["c", "--left", "3", "-r", "x", "--last"])
    assert result.exit_code == 0, result.output
    assert seen == {"first": 0, "pair": Pair(3, "x"), "last": True}
    assert CliRunner().invoke(app, ["c"]).exit_code == 0 and seen["pair"] == Pair()


def test_an_option_two_places_declare_is_an_error_when_the_command_is_declared():
    with pytest.raises(TypeError, match="left"):

        @grouped
        def c(*, left: Left = 0, pair: Pair) -> None:
            pass


def test_the_options_given_are_named_as_on_the_command_line():
    """What `--retune-budget: only with --retune` is built from (soup compare, soup ablate)."""
    assert changed(Pair()) == []
    assert changed(Pair(left=2, right="x")) == ["--left", "--right"]
    assert spelled_out({"first": 0, "pair": Pair(2)}) == {"first": 0, "left": 2, "right": None}
