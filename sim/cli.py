"""The ``soup`` command: a thin typer layer over sim, strategies and analysis.

User mistakes (a bad rules file, scenario or strategy name) end with one line on stderr naming
the file, key or value, and exit code 2, never a traceback.
"""

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from sim.ursuppe.rules import RulesError, load_rules
from sim.ursuppe.scenario import ScenarioError
from strategies.params import StrategyError, load_strategy, preset_names

app = typer.Typer(
    help="soup: Monte Carlo balance analysis for the board game Ursuppe (Primordial Soup).\n\n"
    "Play one game and follow it (soup play), check a rule on a pinned position (soup scenario).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

USER_ERRORS = (RulesError, ScenarioError, StrategyError)


def _fail(message: str) -> None:
    typer.echo(f"soup: error: {message}", err=True)
    raise typer.Exit(2)


@app.command()
def play(
    players: Annotated[int, typer.Option("--players", "-p", min=3, max=4, help="3 or 4 players.")] = 4,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Random seed: same seed, same game.")] = 1,
    rules: Annotated[
        Path | None, typer.Option("--rules", "-r", help="House-rules TOML file (overrides the defaults).")
    ] = None,
    strategies: Annotated[
        str,
        typer.Option(
            help="Comma-separated strategy per seat (presets: "
            + ", ".join(preset_names())
            + "; or a .toml file). "
            "One name applies to every seat."
        ),
    ] = "greedy",
    as_json: Annotated[bool, typer.Option("--json", help="Print the game as JSON instead of text.")] = False,
) -> None:
    """Play one game and print it round by round: events, board, food, BP and scores.

    Same arguments, same output. Example: soup play --players 3 --seed 42
    """
    from sim.ursuppe.play import play_game

    try:
        book = load_rules(rules)
        names = strategies.split(",")
        if len(names) == 1:
            names = names * players
        if len(names) != players:
            _fail(f"--strategies: expected 1 or {players} names, got {len(names)}")
        game = play_game(book, players, seed, [load_strategy(n.strip()) for n in names])
    except USER_ERRORS as e:
        _fail(str(e))
    if as_json:
        typer.echo(json.dumps(game.as_json(), indent=1))
    else:
        typer.echo(game.as_text())


@app.command()
def scenario(
    file: Annotated[Path, typer.Argument(help="Scenario file (JSON, see docs/scenario-format.md).")],
    no_invariants: Annotated[
        bool, typer.Option("--no-invariants", help="Do not check the invariants of §11 after every phase.")
    ] = False,
) -> None:
    """Run a scenario file (a pinned position, forced dice and choices) and print the result as JSON."""
    from sim.ursuppe.scenario import load_scenario, run_scenario

    try:
        result = run_scenario(load_scenario(file, check_invariants=not no_invariants))
    except USER_ERRORS as e:
        _fail(str(e))
    typer.echo(json.dumps(result, indent=1))


@app.command("rules")
def rules_cmd(
    files: Annotated[
        list[Path] | None, typer.Argument(help="House-rules files to merge over the defaults.")
    ] = None,
) -> None:
    """Validate rules files and print the merged rules (JSON) with their id and deck."""
    try:
        book = load_rules(*(files or []))
    except RulesError as e:
        _fail(str(e))
    typer.echo(
        json.dumps({"rules_id": book.rules_id, "deck": book.deck_description(), "rules": book.data}, indent=1)
    )


def main() -> None:
    """Console entry point."""
    try:
        app()
    except USER_ERRORS as e:  # raised outside a command's own handling
        typer.echo(f"soup: error: {e}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
