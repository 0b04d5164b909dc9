"""What every ``soup`` command shares: one-line errors and warnings, building a run from the
command's strategy options, running it with a progress bar, and printing rate tables.

This module imports no engine code at import time: ``soup --help`` and the commands that play
no games (``soup rules``, ``soup report``) must not pay for loading the compiled engine. Commands
that play games call :func:`load_engine` first, which says so on the first run (when the kernels
are compiled for this machine) before it loads them.
"""

import os
import shlex
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from sim.errors import BackendError, GameError, UserError

# Exceptions that mean "the user gave bad input": one line on stderr, exit 2, no traceback.
USER_ERRORS = (UserError,)
EXIT_USER_ERROR = 2
EXIT_GAME_FAILED = 1
EXIT_INTERRUPTED = 130
# Beyond this many games a run takes hours and many GB: say so before starting (not an error).
MANY_GAMES = 100_000_000
MAX_GAMES = 10**12  # game indices and their random-stream counters stay far inside 64 bits
MAX_SEED = 2**63 - 1  # seeds are unsigned 64-bit in the streams, signed 64-bit in the results
# Four-player games a core plays per second, rounded down from the measured 14,000-20,000
# (docs/decisions.md): a run's duration is promised no shorter than it will be.
GAMES_PER_CORE_SECOND = 10_000
CPUS = os.cpu_count() or 1  # --threads' default


def fail(message: str, code: int = EXIT_USER_ERROR) -> NoReturn:
    """End the command with ``soup: error: <message>`` on stderr and exit ``code`` (2: the user's
    input; 1: a run that failed)."""
    typer.echo(f"soup: error: {' '.join(message.split())}", err=True)
    raise typer.Exit(code)


def warn(message: str) -> None:
    typer.echo(f"soup: warning: {message}", err=True)


def os_error_line(e: OSError, path: Path | None = None) -> str:
    """One line for an OS error while writing results (read-only or full disk, name too long)."""
    where = e.filename or path or "results"
    return f"cannot write {where}: {e.strerror or e.__class__.__name__}"


def check_resources(threads: int, games: int, players: int = 4) -> None:
    """Warn (not fail) for a thread count above the machine's cores and for very large runs (how
    much disk and time, in the unit that fits); refuse a number of games the engine cannot index.
    Whether the results fit on the disk is the run's own check (sim.runner.open_run)."""
    from sim.out_dirs import size_text
    from sim.runner import needed_bytes

    if games > MAX_GAMES:
        fail(f"--games: expected at most {MAX_GAMES:,}, got {games:,}")
    check_threads(threads)
    if games > MANY_GAMES:
        from sim.cli.progress import duration_text

        busy = min(threads, CPUS)
        took = duration_text(games / (GAMES_PER_CORE_SECOND * busy))
        warn(
            f"--games {games:,} writes about {size_text(needed_bytes(games, players))} of results and plays "
            f"for about {took} on {plural(busy, 'core')} (~{GAMES_PER_CORE_SECOND:,} games/s each); "
            "Ctrl-C keeps what is done and the same command resumes"
        )


def check_threads(threads: int) -> None:
    """Warn (not fail) for a thread count above the machine's cores."""
    if threads > CPUS:
        warn(f"--threads {threads} is more than the {CPUS} cores of this machine: extra threads only wait")


def command_line() -> str:
    """The command as the user typed it (to repeat it, e.g. to resume)."""
    return shlex.join(["soup", *sys.argv[1:]])


def compile_notice_text(expected: float | None, game: str | None) -> str:
    """The notice before a first-run compile of ``game``'s engine. How long it takes is what this
    machine took last time for that game, or said to be unknown: a figure from another machine is
    a promise this one may not keep (issue 21.10), and so is another game's (issue 31.10)."""
    whose = f"{game}'s" if game else "its"
    how_long = (
        f"about {expected:.0f} s, as {whose} last compile on this machine"
        if expected
        else f"how long is not known: no compile of {whose} engine was recorded on this machine yet"
    )
    return f"soup: compiling the engine for this machine (first run only; {how_long}; cached afterwards)..."


def compile_notice(expected: float | None, game: str | None = None) -> None:
    """Print the notice (sim.compile_notice calls it just before the first kernel compiles)."""
    typer.echo(compile_notice_text(expected, game), err=True)


def expect_compile_of(game: Any) -> None:
    """Tell sim.jit which game's engine this command loads (a sim.game.Game), so that a first
    run's notice quotes that game's last compile (cheap: imports no engine code)."""
    from sim import compile_notice as hook

    hook.game, hook.kernel_packages = game.info.name, game.info.kernel_packages


def listen_for_compile() -> None:
    """Have sim.jit call :func:`compile_notice` before it compiles the first kernel of a first
    run, whichever import gets there first (cheap: imports no engine code)."""
    from sim import compile_notice as hook

    if hook.callback is None:
        hook.callback = compile_notice


def load_engine(game: Any = None) -> None:
    """Import the compiled engine of ``game`` (a sim.game.Game; default Ursuppe); on a first run
    the notice comes first (see :func:`listen_for_compile`) and the time it took after (the
    kernels are then cached)."""
    from sim import compile_notice as hook
    from sim import game as games

    listen_for_compile()
    game = game or games.get(DEFAULT_GAME)
    expect_compile_of(game)
    game.load_engine()

    global _COMPILE_REPORTED
    if hook.announced_at is not None and not _COMPILE_REPORTED:
        _COMPILE_REPORTED = True
        typer.echo(f"soup: engine compiled in {time.perf_counter() - hook.announced_at:.0f} s", err=True)


_COMPILE_REPORTED = False


def _games_help() -> tuple[str, str]:
    """The default game and --game's help, from the registry (its entry points: no game is
    imported, sim.game)."""
    from sim import game as games

    default = games.default_name()
    others = ", ".join(n for n in games.names() if n != default)
    return default, f"The game: {default}, or another registered game ({others})."


DEFAULT_GAME, GAMES_HELP = _games_help()
GameName = Annotated[str, typer.Option("--game", metavar="NAME", help=GAMES_HELP)]


def game_named(name: str) -> Any:
    """The registered game ``name`` (sim.game), or a one-line error naming the known games."""
    from sim import game as games

    try:
        game = games.get(name)
    except games.UnknownGameError as e:
        fail(str(e))
    expect_compile_of(game)  # a command may import the engine before load_engine (its scenario)
    return game


def game_for(name: str, command: str) -> Any:
    """The registered game ``name`` for ``command``: one of the game's own (GameInfo.own_commands:
    Ursuppe's gene experiments) or a kit command whose capability the game declares
    (sim.game.CAPABILITIES); else a one-line error saying which games run it."""
    from sim import game as games

    chosen = game_named(name)
    needs = [c for c in games.CAPABILITIES.values() if command in c.commands]

    def runs(g: Any) -> bool:
        own = command in g.info.own_commands
        return own or bool(needs) and all(games.supports(g, c.name) for c in needs)

    if runs(chosen):
        return chosen
    having = ", ".join(n for n in games.names() if runs(games.get(n))) or "no game"
    if needs:
        fail(f"--game {name}: soup {command} needs {' and '.join(c.meaning for c in needs)} ({having} only)")
    fail(
        f"--game {name}: soup {command} is an experiment of {having} only; {name} runs the game-agnostic "
        "commands (simulate, play, bench, compare, tournament, tune, scenario, rules, report)"
    )


def declaring(capability: str, joiner: str = ", ") -> tuple[str, str]:
    """The registered games that declare ``capability`` (sim.game.CAPABILITIES), for an error
    line: their --game names and their titles' names ('ursuppe', 'Ursuppe'), joined by ``joiner``."""
    from sim import game as games

    having = [g for g in map(games.get, games.names()) if games.supports(g, capability)]
    names = joiner.join(g.info.name for g in having) or "none"
    return names, joiner.join(g.info.title.split(" (")[0] for g in having) or "no game"


PLAYERS_HELP = (
    "Players: one of the rules' player counts (components.player_counts; 3 to 6 by default), or 2 "
    "with --variant."
)

# Options several commands take alike (the kit's and a game's own), declared once.
Players = Annotated[int, typer.Option("--players", "-p", help=PLAYERS_HELP)]
Rules = Annotated[Path | None, typer.Option("--rules", "-r", metavar="FILE", help="House-rules TOML file.")]
Threads = Annotated[int, typer.Option(min=1, help="Threads (default: all cores).")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


Variant = Annotated[
    str | None,
    typer.Option(
        "--variant",
        metavar="NAME",
        help=(
            "2-player variant (with --players 2): dummy (a third, automatic colour; docs/rules.md "
            "§16), double1 (two seats of a 4-player game each, the worse counts) or double2 (two "
            "colours, one marker, one gene set each; §17)."
        ),
    ),
]


def out_dir(default: str) -> Any:
    """The --out option of a command writing one directory, ``default`` where it is not given."""
    return Annotated[Path | None, typer.Option(metavar="DIR", help=f"Output directory (default {default}).")]


BACKEND_HELP = (
    "Where the games are played: local (this process, --threads threads) or ray (each chunk a Ray "
    "task of one CPU; needs pip install 'soup[ray]'). Same results either way; a run started on one "
    "resumes on the other."
)
RAY_ADDRESS_HELP = (
    "Ray cluster to run on (with --backend ray), e.g. 10.0.0.5:6379 or auto; default: start a local "
    "Ray instance of --threads CPUs."
)


BackendName = Annotated[str, typer.Option("--backend", metavar="local|ray", help=BACKEND_HELP)]
RayAddress = Annotated[str | None, typer.Option("--ray-address", metavar="ADDRESS", help=RAY_ADDRESS_HELP)]


def check_backend(name: str, address: str | None) -> None:
    """--backend and --ray-address, checked without starting anything (a user error)."""
    if name not in ("local", "ray"):  # sim.backends.BACKENDS (not imported: it is cheap, this is cheaper)
        fail(f"--backend: expected one of local, ray, got {name!r}")
    if name == "local" and address is not None:
        fail("--ray-address: only with --backend ray")
    if address is not None and not address.strip():
        fail("--ray-address: expected HOST:PORT or auto, got ''")


class _LazyBackend:
    """A backend made when the first chunk is to be played (sim.backends.make_backend): every
    check of a command (its options, its --out, every arm's run) comes before Ray starts or the
    engine loads (issue 21.9), and a command that plays nothing starts nothing."""

    def __init__(self, name: str, threads: int, address: str | None) -> None:
        check_backend(name, address)
        self.name, self.threads, self.address = name, threads, address
        self.backend: Any = None

    def start(self) -> None:
        """Make the backend (start or reach Ray): a BackendError here is the command's one line
        (nothing was played, nothing written)."""
        if self.backend is None:
            from sim.backends import make_backend

            self.backend = make_backend(self.name, self.threads, self.address)

    def play(
        self,
        adapter: Any,
        work: list[Any],
        on_game: Callable[[], None] | None = None,
        background: Executor | None = None,
    ) -> Iterator[Any]:
        self.start()
        return self.backend.play(adapter, work, on_game=on_game, background=background)

    def close(self) -> None:
        if self.backend is not None:
            self.backend.close()


@contextmanager
def open_backend(name: str, threads: int, address: str | None) -> Iterator[Any]:
    """The backend ``name`` for the command (sim.backends), started when the first chunk is
    played and released when the command ends: a local Ray instance started here is stopped.
    Ray is imported only for ``--backend ray``; the name and address are checked at once."""
    backend = _LazyBackend(name, threads, address)
    try:
        yield backend
    finally:
        backend.close()


@contextmanager
def progress_bar(
    total: int, description: str, quiet: bool, done: int = 0, count: Callable[[Any], str] | None = None
) -> Iterator[Any]:
    """A progress bar with ETA on stderr, fitted to the terminal's width (sim.cli.progress);
    yields ``update(done, total)``. ``count(task)``: its count text (default: games)."""
    from sim.cli.progress import games_count, make_progress

    with make_progress(count or games_count, quiet) as bar:
        task = bar.add_task(description, total=total, completed=done)
        # the total may change as the work goes (combos' confirmation is sized after its scan)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def run_with_progress(
    spec: Any,
    out: Path,
    games: int,
    chunk_size: int,
    threads: int,
    *,
    quiet: bool,
    must_exist: bool = False,
    description: str = "simulating",
    backend: Any = None,
    kept_text: Callable[[int], str] | None = None,
) -> Any:
    """Run ``spec`` into ``out`` with the chunked runner (or resume it: ``out`` holds this run),
    showing a progress bar, on ``backend`` (sim.backends; default: this process's threads).
    Every check comes before the bar (no empty bar before an error);
    a chunk found damaged is reported in one line and played again.

    Errors end the command in one line: a user error (exit 2), a game that failed (exit 1, the
    chunk's games are not written), an OS error while writing (exit 1). Ctrl-C says what was
    kept and which command resumes (exit 130): what the whole command kept, ``kept_text(games
    kept in this run)``, where this run is one arm of an experiment. Returns the runner's
    RunSummary."""
    from sim import __version__, runner

    opened = runner.open_run(spec, out, games, chunk_size, must_exist=must_exist, version=__version__)
    try:
        return _play_opened(opened, threads, quiet, description, backend, kept_text)
    finally:  # the directory's lock is given up however this ends (issue 31.8; play gives it up too)
        opened.release()


def _play_opened(
    opened: Any,
    threads: int,
    quiet: bool,
    description: str,
    backend: Any,
    kept_text: Callable[[int], str] | None,
) -> Any:
    """:func:`run_with_progress` once the run is open (a sim.runner.OpenedRun)."""
    from sim import game as registry
    from sim import runner

    out, games = opened.out, opened.games
    for notice in opened.notices:
        warn(notice)
    if not opened.todo:
        return runner.play(opened, threads)  # marks it complete; nothing to show
    # the run's own game: a Pig or Chromosome run neither loads nor compiles Ursuppe's engine
    load_engine(registry.game_of_spec(opened.manifest["spec"], str(out / "manifest.json")))
    if hasattr(backend, "start"):  # Ray started or reached before the bar; its failure is one line
        backend.start()

    def kept_games() -> int:
        """Games of the chunks the manifest lists (a chunk being written when the run stopped is
        finished and listed before play returns)."""
        return sum(int(e.get("games", 0)) for e in opened.manifest["chunks"].values())

    try:
        with progress_bar(games, description, quiet, done=opened.games_done) as update:
            return runner.play(opened, threads, update, backend)
    except KeyboardInterrupt:
        kept = kept_games()
        if kept_text is not None:
            interrupted(kept_text(kept), "resumes")
        if opened.fresh and kept == 0:
            report_interrupt(f"interrupted before the first chunk was complete; nothing was kept in {out}")
        else:
            report_interrupt(
                f"interrupted: {kept:,} of {games:,} games are kept in {out}; the same command "
                f"resumes: {command_line()}"
            )
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except (GameError, BackendError) as e:
        kept = kept_games()
        what = f"{kept:,} games of completed chunks are kept in {out}" if kept else "nothing was kept"
        fail(f"{e}; the run stopped before writing that chunk ({what})", EXIT_GAME_FAILED)
    except OSError as e:
        fail(os_error_line(e, out), EXIT_GAME_FAILED)


INTERRUPT_REPORTED = False  # set once a command has said what Ctrl-C kept (see sim.cli.app.main)


def report_interrupt(line: str) -> None:
    """Print ``soup: <line>`` for a Ctrl-C, once: sim.cli.app.main prints a line of its own for a
    command that printed none (typer turns Ctrl-C into a silent exit 130, issue 21.8)."""
    global INTERRUPT_REPORTED
    INTERRUPT_REPORTED = True
    typer.echo(f"soup: {line}", err=True)


def interrupted(kept: str, verb: str = "continues") -> NoReturn:
    """Ctrl-C in a long job that checkpoints as it goes (tuning, re-tuning, an experiment's
    arms): one line saying what the whole command ``kept`` and the command that continues it,
    exit 130."""
    report_interrupt(f"interrupted: {kept}; the same command {verb}: {command_line()}")
    raise typer.Exit(EXIT_INTERRUPTED)


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 card``, ``2 cards``, ``1,000 games`` (issue 21: "1 cards", "1 pairs")."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


@contextmanager
def long_job(out: Path, kept: Callable[[], str]) -> Iterator[None]:
    """The one-line endings of a checkpointing job writing into ``out``: Ctrl-C says what is
    kept (``kept()``, read when it happens) and how to continue; a game that cannot be played and
    an OS error while writing end it with one line, exit 1."""
    try:
        yield
    except KeyboardInterrupt:
        interrupted(kept())
    except (GameError, BackendError) as e:
        fail(str(e), EXIT_GAME_FAILED)
    except OSError as e:
        fail(os_error_line(e, out), EXIT_GAME_FAILED)


def keyed_table(
    title: str, columns: Sequence[str], keys: Sequence[str] = ("strategy",), head: Any = None
) -> Any:
    """A rich table with ``columns``: the ``keys`` (what a row is) left-aligned, the figures
    right-aligned; ``head``: its box (default: the experiments' simple head rule)."""
    from rich import box
    from rich.table import Table

    t = Table(title=title, box=head or box.SIMPLE_HEAD)
    for col in columns:
        t.add_column(col, justify="left" if col in keys else "right")
    return t


def rows_table(title: str, rows: Any, key: str, cells: dict[str, str], head: Any = None) -> Any:
    """A :func:`keyed_table` of ``rows`` (a polars frame): the ``key`` column, then a column for
    each of ``cells``, its header and its text (a ``str.format`` of the row's fields)."""
    t = keyed_table(title, (key, *cells), (key,), head)
    for r in rows.iter_rows(named=True):
        t.add_row(str(r[key]), *(cell.format(**r) for cell in cells.values()))
    return t


def print_rates(df: Any, key: str, title: str) -> None:
    """A win-rate table (analysis.win_rates' columns) with 95% intervals, on stdout."""
    import math

    from rich import box
    from rich.console import Console

    cells = {
        "n": "{games:,}",
        "wins": "{wins:,}",
        "win rate": "{win_rate:.3f}",
        "95% CI": "[{ci_low:.3f}, {ci_high:.3f}]",
        "fair": "{fair_share:.3f}",
    }
    # a game without rounds (sim.game's core columns have none) shows no column of NaN
    if any(not math.isnan(x) for x in df["mean_rounds"]):
        cells["rounds"] = "{mean_rounds:.2f}"
    Console().print(rows_table(title, df, key, cells, box.HEAVY_HEAD))


# What an option's help says when its default or choices are the game's: at --help only, each
# game's are named after it (reading them imports every game, ~0.14 s: not on a command's path).
GAMES_OWN = {"the game's mix": "mix", "the game's presets": "presets"}


def name_the_games_own(app: typer.Typer) -> None:
    """Append every registered game's mix and presets to the help of the options of ``app``'s
    commands that say "the game's mix" or "the game's presets" (called by ``soup`` when --help
    is asked for, before the help is built)."""
    import inspect
    from typing import get_args

    from sim.game import get, names

    games = [get(n) for n in names()]
    said = {
        "mix": "; ".join(f"{g.info.name}: {g.info.default_pool}" for g in games),
        "presets": "; ".join(f"{g.info.name}: {', '.join(g.strategy_names())}" for g in games),
    }
    for command in app.registered_commands:
        for parameter in inspect.signature(command.callback).parameters.values():
            for info in get_args(parameter.annotation)[1:]:
                help_text = getattr(info, "help", None) or ""
                for phrase, key in GAMES_OWN.items():
                    if phrase in help_text and said[key] not in help_text:
                        help_text = help_text.replace(phrase, f"{phrase} ({said[key]})", 1)
                if help_text:
                    info.help = help_text
