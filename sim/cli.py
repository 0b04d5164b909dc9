"""The ``soup`` command: a thin typer layer over sim, strategies and analysis.

User mistakes (a bad rules file, scenario or strategy name) end with one line on stderr naming
the file, key or value, and exit code 2, never a traceback.
"""

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from sim import cli_report
from sim.cli_support import USER_ERRORS, build_run, fail, print_rates, run_with_progress
from sim.ursuppe.rules import RulesError, load_rules
from sim.ursuppe.simulation import DEFAULT_POOL as SIMULATION_POOL
from strategies.params import StrategyError, load_strategy, preset_names

app = typer.Typer(
    help="soup: Monte Carlo balance analysis for the board game Ursuppe (Primordial Soup).\n\n"
    "A typical session: `soup simulate` plays 100,000 games into results/, then "
    "`soup report RUN_DIR` writes the balance report (Markdown and HTML with figures). "
    "What does a house rule change? `soup compare --rules house.toml`. What does a gene cause? "
    "`soup ablate --gene NAME`. How strong is each strategy? `soup tournament`.\n\n"
    "Follow one game with `soup play`; check a rule on a pinned position with `soup scenario`; "
    "measure speed with `soup bench`. Every command explains itself with --help.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Markdown: docstring paragraphs reflow to the terminal's width; blank lines separate them.
    rich_markup_mode="markdown",
)

DEFAULT_POOL = ",".join(SIMULATION_POOL)


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
            fail(f"--strategies: expected 1 or {players} names, got {len(names)}")
        game = play_game(book, players, seed, [load_strategy(n.strip()) for n in names])
    except USER_ERRORS as e:
        fail(str(e))
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
        fail(str(e))
    typer.echo(json.dumps(result, indent=1))


@app.command()
def simulate(
    players: Annotated[int, typer.Option("--players", "-p", min=3, max=4, help="3 or 4 players.")] = 4,
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="Number of games.")] = 100_000,
    strategies: Annotated[
        str | None,
        typer.Option(
            help="One strategy per player, comma-separated (a,b,c,d). Presets: "
            + ", ".join(preset_names())
            + "; or .toml files."
        ),
    ] = None,
    pool: Annotated[
        str,
        typer.Option(
            help="Strategies to draw from for every player of every game (used when --strategies is not "
            "given)."
        ),
    ] = DEFAULT_POOL,
    seating: Annotated[
        str,
        typer.Option(
            help="random: a random start-space permutation per game; rotate: every permutation equally often."
        ),
    ] = "rotate",
    seed: Annotated[
        int,
        typer.Option(
            "--seed", "-s", min=0, help="Seed of the run: game i of seed s is always the same game."
        ),
    ] = 1,
    rules: Annotated[Path | None, typer.Option("--rules", "-r", help="House-rules TOML file.")] = None,
    out: Annotated[
        Path | None, typer.Option(help="Run directory (default: results/ursuppe-{P}p-seed{S}-{games}).")
    ] = None,
    threads: Annotated[int, typer.Option(min=1, help="Threads (default: all cores).")] = os.cpu_count() or 1,
    chunk_size: Annotated[
        int, typer.Option(min=1, help="Games per Parquet chunk (memory stays flat in the number of games).")
    ] = 20_000,
    resume: Annotated[
        bool, typer.Option(help="Finish an interrupted run in --out (same arguments).")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Simulate many games and write one Parquet row per player per game, plus a manifest.

    Prints win rates per strategy and per start space with 95% Wilson intervals. Example:
    soup simulate --games 1000000 --pool greedy,breeder,predator --seating rotate
    """
    import polars as pl

    from analysis.win_rates import load_results, win_rates

    try:
        book = load_rules(rules)
        spec = build_run(book, players, seed, strategies, pool, seating)
        if out is None:
            # The default directory is named by the run, so running the same command again finishes
            # or reuses it (an interrupted default run resumes by itself).
            out = Path("results") / f"ursuppe-{players}p-seed{seed}-{games}"
            resume = True
        summary = run_with_progress(spec, out, games, chunk_size, threads, resume=resume, quiet=quiet)
    except USER_ERRORS as e:
        fail(str(e))
    rows = load_results(out)
    rate = summary.games / summary.seconds if summary.chunks_played and summary.seconds > 0 else float("nan")
    typer.echo(
        f"{games:,} games ({players} players, seed {seed}, seating {seating}) in {out}"
        + (f"  [{rate:,.0f} games/s]" if rate == rate else "  [already complete]")
    )
    typer.echo(f"rules {book.rules_id}; deck: {book.deck_description()}")
    print_rates(win_rates(rows, ["strategy"]), "strategy", "Win rate by strategy")
    print_rates(win_rates(rows, ["start_space"]), "start_space", "Win rate by start space (seat)")
    print_rates(
        win_rates(rows, ["strategy", "start_space"]).with_columns(
            (pl.col("strategy").cast(pl.String) + " @" + pl.col("start_space").cast(pl.String)).alias(
                "strategy @ seat"
            )
        ),
        "strategy @ seat",
        "Win rate by strategy and start space",
    )
    typer.echo(f"Next: soup report {out}   (the balance report: genes, seats, deck order, figures)")


@app.command()
def bench(
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    games: Annotated[int, typer.Option(min=100, help="Games per speed measurement.")] = 20_000,
    plain_games: Annotated[int, typer.Option(min=1, help="Games on the plain-Python path.")] = 100,
    rss_games: Annotated[
        int, typer.Option(min=100, help="Games of the smaller memory run (the larger is 4x).")
    ] = 20_000,
    cold: Annotated[
        bool, typer.Option(help="Measure the cold start (compiles into an empty cache: about half a minute).")
    ] = True,
    mix: Annotated[
        str,
        typer.Option(help="Strategies to draw every player from, comma-separated (default: simulate's mix)."),
    ] = "",
    repeats: Annotated[
        int,
        typer.Option(
            min=1, help="Runs per games/s figure, taken in turns; the best is reported (all are in the JSON)."
        ),
    ] = 3,
) -> None:
    """Measure games/s (3 and 4 players, 1 and 2 threads), the speed-up over the plain-Python path
    in the same run, peak memory and cold/warm start times, on the default strategy mix.

    Each games/s figure is the best of `--repeats` runs: another process on the machine only
    ever slows a run down. Run it on an otherwise idle machine."""
    from sim.ursuppe.bench import as_text
    from sim.ursuppe.bench import bench as run_bench

    try:
        for name in filter(None, mix.split(",")):
            load_strategy(name)
    except StrategyError as e:
        fail(str(e))
    doc = run_bench(
        games=games, plain_games=plain_games, rss_games=rss_games, cold=cold, mix=mix, repeats=repeats
    )
    typer.echo(json.dumps(doc, indent=1) if as_json else as_text(doc))


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
        fail(str(e))
    typer.echo(
        json.dumps({"rules_id": book.rules_id, "deck": book.deck_description(), "rules": book.data}, indent=1)
    )


from sim.cli_experiments import ablate, compare, tournament  # noqa: E402 (commands of their own module)

app.command("compare")(compare)
app.command("ablate")(ablate)
app.command("tournament")(tournament)


app.command()(cli_report.report)


def main() -> None:
    """Console entry point. Every user mistake, including a bad option (``--players 5``, an
    unknown command), ends with one line ``soup: error: ...`` on stderr and exit code 2."""
    # typer re-exports click's BadParameter (from click, or from its own copy of click in newer
    # versions); its base class is the UsageError every bad option or command raises.
    usage_error = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
    if len(sys.argv) == 1:  # bare `soup`: teach, as no_args_is_help does in standalone mode
        sys.argv.append("--help")
    try:
        code = app(standalone_mode=False)
    except usage_error as e:
        where = f"{e.ctx.command_path}: " if e.ctx is not None else ""
        typer.echo(f"soup: error: {where}{e.format_message()} (see --help)", err=True)
        sys.exit(2)
    except typer.Abort:
        typer.echo("soup: interrupted", err=True)
        sys.exit(130)
    except USER_ERRORS as e:  # raised outside a command's own handling
        typer.echo(f"soup: error: {e}", err=True)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
