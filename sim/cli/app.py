"""The ``soup`` command: a thin typer layer over sim, strategies and analysis.

User mistakes (a bad rules file, scenario, strategy name or option) end with one line on stderr
naming the file, key or value, and exit code 2, never a traceback. A run that fails (a game the
engine cannot play, a disk that is full) ends with one line and exit code 1; Ctrl-C with one line
saying what was kept and how to resume, and exit code 130.

Importing this module loads no engine code (``soup --help`` answers at once): every command
imports what it needs when it runs.
"""

import shlex
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from sim.cli import report as cli_report
from sim.cli.bench import bench
from sim.cli.option_groups import Running, grouped
from sim.cli.support import (
    CPUS,
    DEFAULT_GAME,
    EXIT_GAME_FAILED,
    EXIT_INTERRUPTED,
    EXIT_USER_ERROR,
    GAMES_HELP,
    MAX_SEED,
    USER_ERRORS,
    GameName,
    Players,
    Rules,
    Threads,
    Variant,
    check_resources,
    fail,
    game_for,
    game_named,
    listen_for_compile,
    load_engine,
    os_error_line,
    print_rates,
    run_with_progress,
)
from sim.errors import BackendError, GameError
from sim.game import command_apps

app = typer.Typer(
    help="soup: Monte Carlo balance analysis for the board game Ursuppe (Primordial Soup).\n\n"
    "A typical session: `soup simulate` plays 100,000 games into results/, then "
    "`soup report RUN_DIR` writes the balance report (Markdown and HTML with figures). "
    "What does a house rule change? `soup compare --rules house.toml`. Is a gene too strong? "
    "`soup verdict --gene NAME` (and what should it cost? `soup calibrate --gene NAME`). What does "
    "removing a gene change? `soup ablate --gene NAME`. How strong is each strategy? `soup tournament`. "
    "What would a good player do? `soup tune` (and `soup tune --gene-value`, `soup compare --retune`). "
    "Which gene pairs are killer combinations? `soup combos`.\n\n"
    "Follow one game with `soup play`; check a rule on a pinned position with `soup scenario`; "
    "validate a house-rules file with `soup rules FILE`; measure speed with `soup bench`. "
    "Every command explains itself with --help.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help: paragraphs reflow to the terminal, long defaults wrap instead of being cut
    # off, flags show no type, and no rich rendering is loaded for --help.
    rich_markup_mode=None,
    context_settings={"max_content_width": 100},
)

# The presets are the game's (an unknown name is refused with the list): the help names none, as
# reading them would import every game before any help is shown.
PRESETS = "the game's presets"

StrategiesPerPlayer = Annotated[
    str | None,
    typer.Option(
        metavar="NAMES",
        help=f"One strategy per player, comma-separated (a,b,c,d): {PRESETS}; search or search-N (a "
        "search player, N rollouts a decision: docs/strategies.md); or .toml files.",
    ),
]
Pool = Annotated[
    str | None,
    typer.Option(
        metavar="NAMES",
        help="Strategies to draw from for every player of every game (used when --strategies is not "
        "given; default: the game's mix).",
    ),
]
Seating = Annotated[
    str,
    typer.Option(
        metavar="random|rotate",
        help="random: a random start-space permutation per game; rotate: every permutation "
        "equally often (3-4 players), a balanced Latin square of seats (5-6 players).",
    ),
]
RunSeed = Annotated[
    int,
    typer.Option(
        "--seed", "-s", min=0, max=MAX_SEED, help="Seed of the run: game i of seed s is always the same game."
    ),
]
RunDir = Annotated[
    Path | None,
    typer.Option(
        metavar="DIR",
        help="Run directory: new or empty, or holding this very run to resume it (default: "
        "results/{game}-{P}p-seed{S}-{games}).",
    ),
]
ChunkSize = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="Games per Parquet chunk (memory stays flat in the number of games; default: 5,000 per "
        "thread, 20,000 to 200,000); a last chunk of at least half that ends on a chunk of a "
        "quarter, so that the run's last write is short.",
    ),
]
Resume = Annotated[
    bool,
    typer.Option(
        "--resume",
        help="Only finish the interrupted run in --out (an error if there is none). Without it, the "
        "same command resumes a run too.",
    ),
]


@app.callback()
def _every_command(ctx: typer.Context) -> None:
    # A directory a command holds (sim.out_dirs.hold: its --out, issue 31.8) is given up when the
    # command ends, however it ends; not only when the process does (a notebook, CliRunner).
    from sim import out_dirs

    ctx.call_on_close(out_dirs.release_held)


@app.command()
def play(
    players: Players = 4,
    game: GameName = DEFAULT_GAME,
    variant: Variant = None,
    seed: Annotated[
        int, typer.Option("--seed", "-s", min=0, max=MAX_SEED, help="Random seed: same seed, same game.")
    ] = 1,
    rules: Annotated[
        Path | None,
        typer.Option("--rules", "-r", metavar="FILE", help="House-rules TOML file (overrides the defaults)."),
    ] = None,
    strategies: Annotated[
        str | None,
        typer.Option(
            metavar="NAMES",
            help=f"Comma-separated strategy per seat ({PRESETS}; or a .toml file). "
            "One name applies to every seat. Default: the game's own.",
        ),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print the game as JSON: seats (strategy, start space), deck, events."),
    ] = False,
) -> None:
    """Play one game and print it round by round: events, board, food, BP and scores.

    Same arguments, same output. Example: soup play --players 3 --seed 42
    """
    chosen = game_for(game, "play")
    book = chosen.load_rules([rules] if rules is not None else [])
    names = chosen.check_play(book, players, strategies or chosen.info.default_strategy, variant)
    load_engine(chosen)
    try:
        text = chosen.play_text(book, players, names, seed, variant=variant, as_json=as_json)
    except GameError as e:
        fail(str(e), EXIT_GAME_FAILED)
    typer.echo(text)


@app.command()
def scenario(
    file: Annotated[Path, typer.Argument(help="Scenario file (JSON, see docs/scenario-format.md).")],
    game: Annotated[
        str | None,
        typer.Option(
            "--game",
            metavar="NAME",
            help=f'{GAMES_HELP} Default: the game the file names ("game": NAME), else {DEFAULT_GAME}.',
        ),
    ] = None,
    no_invariants: Annotated[
        bool,
        typer.Option(
            "--no-invariants", help="Do not check the invariants (Ursuppe: §11) after every phase or turn."
        ),
    ] = False,
) -> None:
    """Run a scenario file (a pinned position, forced dice and choices) and print the result as JSON.

    Examples: soup scenario tests/scenarios/M1_drift.json;
    soup scenario tests/scenarios/pig/PG3_bust_loses_the_turn_total.json (the file names its game)"""
    import json

    from sim import game as games
    from sim.errors import UserError
    from sim.scenario_files import GAME_KEY, file_game, read_scenario_file

    if game is not None:
        game_named(game)  # an unknown --game first: it is the user's own word
    named = file_game(str(file), read_scenario_file(file, UserError), games.names(), UserError)
    if game is not None and named is not None and game != named:
        fail(f"{file}: {GAME_KEY}: the file is a {named} scenario, but --game {game} was given")
    chosen = game_for(game or named or DEFAULT_GAME, "scenario")
    loaded = chosen.load_scenario(file, check_invariants=not no_invariants)  # bad input: before compiling
    load_engine(chosen)
    try:
        result = chosen.run_scenario(loaded)
    except GameError as e:
        fail(str(e), EXIT_GAME_FAILED)
    typer.echo(json.dumps(result, indent=1))


@app.command()
@grouped
def simulate(
    *,
    players: Players = 4,
    game: GameName = DEFAULT_GAME,
    variant: Variant = None,
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="Number of games.")] = 100_000,
    strategies: StrategiesPerPlayer = None,
    pool: Pool = None,
    seating: Seating = "rotate",
    seed: RunSeed = 1,
    rules: Rules = None,
    out: RunDir = None,
    threads: Threads = CPUS,
    chunk_size: ChunkSize = None,
    resume: Resume = False,
    running: Running,
) -> None:
    """Simulate many games and write one Parquet row per player per game, plus a manifest.

    Prints win rates per strategy and per start space with 95% Wilson intervals. Interrupted
    (Ctrl-C, a crash)? The same command again resumes where it stopped, for any --out. Example:
    soup simulate --games 1000000 --pool greedy,breeder,predator --seating rotate
    """
    from sim.runner import default_chunk_size

    chosen = game_for(game, "simulate")
    check_resources(threads, games, players)
    running.check()
    if chunk_size is None:  # a Ray task plays its chunk on one CPU
        chunk_size = default_chunk_size(1 if running.backend == "ray" else threads)
    book = chosen.load_rules([rules] if rules is not None else [])
    spec = chosen.new_run(
        book, players, seed, strategies=strategies, pool=pool, seating=seating, variant=variant
    )
    if out is None:
        # The default directory is named by the run, so running the same command again finishes
        # or reuses it.
        out = Path("results") / f"{game}-{chosen.run_label(players, variant)}-seed{seed}-{games}"
    with running.open(threads) as engine:
        summary = run_with_progress(
            spec, out, games, chunk_size, threads, must_exist=resume, quiet=running.quiet, backend=engine
        )
    rate = summary.games_per_second
    if rate is None:
        played = "  [already complete]"
    elif summary.games_played < games:
        played = f"  [resumed: {summary.games_played:,} games played, {rate:,.0f} games/s]"
    else:
        played = f"  [{rate:,.0f} games/s]"
    who = f"{players} players" if variant is None else f"{players} players, variant {variant}"
    typer.echo(f"{games:,} games ({who}, seed {seed}, seating {seating}) in {out}{played}")
    typer.echo(chosen.rules_line(book))
    _print_run_rates(out)
    # Quoted for the shell: a path with spaces must paste as one argument (issue 21).
    report = shlex.join(["soup", "report", str(out)])
    typer.echo(f"Next: {report}   (the balance report: {chosen.info.report_summary})")


def _print_run_rates(out: Path) -> None:
    """soup simulate's tables: win rates by strategy, by seat and by both, with 95% intervals."""
    import polars as pl  # the analysis after the run: no option waits for scipy (issue 21.9)

    from analysis.win_rates import win_rates_by_chunk
    from sim.runner import chunk_files

    # The summary reads one chunk at a time: memory stays flat however many games the run has.
    # Every chunk was checked against its checksum when the run was opened, or written just now.
    by_strategy, by_seat, by_both = win_rates_by_chunk(
        chunk_files(out, verify=False), [["strategy"], ["start_space"], ["strategy", "start_space"]]
    )
    print_rates(by_strategy, "strategy", "Win rate by strategy")
    print_rates(by_seat, "start_space", "Win rate by start space (seat)")
    print_rates(
        by_both.with_columns(
            (pl.col("strategy").cast(pl.String) + " @" + pl.col("start_space").cast(pl.String)).alias(
                "strategy @ seat"
            )
        ),
        "strategy @ seat",
        "Win rate by strategy and start space",
    )


app.command()(bench)


@app.command("rules")
def rules_cmd(
    files: Annotated[
        list[Path] | None, typer.Argument(help="House-rules files to merge over the defaults.")
    ] = None,
    game: GameName = DEFAULT_GAME,
) -> None:
    """Validate rules files and print the merged rules (JSON) with their id (Ursuppe: and deck).

    Examples: soup rules my_house_rules.toml;  soup rules --game pig"""
    import json

    chosen = game_for(game, "rules")
    typer.echo(json.dumps(chosen.rules_document(chosen.load_rules(files or [])), indent=1))


from sim.cli.experiments import ablate, compare, skill, tournament  # noqa: E402 (commands of their own module)

app.command("compare")(compare)
app.command("ablate")(ablate)
app.command("tournament")(tournament)
app.command("skill")(skill)


app.command()(cli_report.report)

from sim.cli.tune import tune  # noqa: E402 (issue 13: soup tune, a module of its own)

app.command("tune")(tune)


def mount_game_commands(into: typer.Typer, apps: dict[str, str]) -> None:
    """Mount each game's own commands at the top level of ``into`` (``apps``: a game's name ->
    its typer app as ``module:attribute``, sim.game.command_apps). Two games giving one name, or
    a game giving a command of the kit's, is a registration error."""
    from importlib import import_module

    def name_of(command: Any) -> str:  # typer's: the function's name with dashes, unless named
        return command.name or command.callback.__name__.replace("_", "-")

    taken = {name_of(c): "soup" for c in into.registered_commands}
    for game, target in apps.items():
        module, _, attribute = target.partition(":")
        for command in getattr(import_module(module), attribute or "app").registered_commands:
            name = name_of(command)
            if name in taken:
                raise TypeError(f"game {game!r} ({target}): command {name!r} is {taken[name]}'s already")
            taken[name] = game
            into.registered_commands.append(command)


mount_game_commands(app, command_apps())


def main() -> None:
    """Console entry point. Every user mistake, including a bad option (``--players 5``, an
    unknown command), ends with one line ``soup: error: ...`` on stderr and exit code 2; a failed
    run with one line and exit code 1."""
    # typer re-exports click's BadParameter (from click, or from its own copy of click in newer
    # versions); its base class is the UsageError every bad option or command raises.
    usage_error = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
    from sim.cli import support as cli_support

    if len(sys.argv) == 1:  # bare `soup`: teach, as no_args_is_help does in standalone mode
        sys.argv.append("--help")
    if "--help" in sys.argv[1:]:
        cli_support.name_the_games_own(app)
    listen_for_compile()  # a first run's compile notice comes before anything else (issue 21.10)
    try:
        code = app(standalone_mode=False)
    except KeyboardInterrupt:  # between typer's handlers (an older typer lets it through)
        code = EXIT_INTERRUPTED
    except usage_error as e:
        where = f"{e.ctx.command_path}: " if e.ctx is not None else ""
        typer.echo(f"soup: error: {where}{e.format_message()} (see --help)", err=True)
        sys.exit(EXIT_USER_ERROR)
    except typer.Abort:
        typer.echo("soup: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except USER_ERRORS as e:  # every command lets a user error reach this line
        typer.echo(f"soup: error: {' '.join(str(e).split())}", err=True)
        sys.exit(EXIT_USER_ERROR)
    except (GameError, BackendError) as e:
        typer.echo(f"soup: error: {' '.join(str(e).split())}", err=True)
        sys.exit(EXIT_GAME_FAILED)
    except OSError as e:
        typer.echo(f"soup: error: {os_error_line(e)}", err=True)
        sys.exit(EXIT_GAME_FAILED)
    if code == EXIT_INTERRUPTED and not cli_support.INTERRUPT_REPORTED:
        # typer turns Ctrl-C into a silent exit 130 before a command's own handler can speak
        # (issue 21.8): every command writes atomically, so a command that said nothing kept
        # nothing half-written; say so, and how to run it again.
        typer.echo(
            f"soup: interrupted: nothing half-written was kept; the same command starts again: "
            f"{cli_support.command_line()}",
            err=True,
        )
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
