"""What every ``soup`` command shares: one-line user errors, building a run from the command's
strategy options, running it with a progress bar, and printing rate tables."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import typer

from sim.runner import RunError, RunSummary
from sim.ursuppe.rules import RuleBook, RulesError
from sim.ursuppe.scenario import ScenarioError
from strategies.params import StrategyError, load_strategy

# Exceptions that mean "the user gave bad input": one line on stderr, exit 2, no traceback.
USER_ERRORS = (RulesError, ScenarioError, StrategyError, RunError)


def fail(message: str) -> NoReturn:
    """End the command with ``soup: error: <message>`` on stderr and exit code 2."""
    typer.echo(f"soup: error: {message}", err=True)
    raise typer.Exit(2)


def strategy_list(names: str, option: str) -> list[str]:
    """Comma-separated strategy names or .toml files; an empty list is a user error."""
    out = [n.strip() for n in names.split(",") if n.strip()]
    if not out:
        fail(f"{option}: expected comma-separated strategy names or .toml files")
    return out


def build_run(
    book: RuleBook, players: int, seed: int, strategies: str | None, pool: str, seating: str
) -> Any:
    """An Ursuppe run from the command-line options: ``strategies`` (one per player) wins over
    ``pool`` (every player of every game drawn from it). Raises a user error on bad input."""
    from sim.ursuppe.simulation import UrsuppeRun

    if seating not in ("random", "rotate"):
        fail(f"--seating: expected random or rotate, got {seating!r}")
    names = strategy_list(strategies, "--strategies") if strategies else strategy_list(pool, "--pool")
    distinct = list(dict.fromkeys(names))
    loaded = [load_strategy(n) for n in distinct]
    if strategies:
        if len(names) != players:
            fail(f"--strategies: expected {players} names (one per player), got {len(names)}")
        return UrsuppeRun(
            book, players, seed, loaded, seats=[distinct.index(n) for n in names], seating=seating
        )
    return UrsuppeRun(book, players, seed, loaded, pool=list(range(len(distinct))), seating=seating)


@contextmanager
def progress_bar(total: int, description: str, quiet: bool) -> Iterator[Any]:
    """A progress bar with ETA on stderr; yields ``update(done, total)``."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,}/{task.total:,} games"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=quiet,
    ) as bar:
        task = bar.add_task(description, total=total)
        yield lambda done, _total: bar.update(task, completed=done)


def run_with_progress(
    spec: Any,
    out: Path,
    games: int,
    chunk_size: int,
    threads: int,
    *,
    resume: bool,
    quiet: bool,
    description: str = "simulating",
) -> RunSummary:
    """Run (or resume) ``spec`` into ``out`` with the chunked runner, showing a progress bar."""
    from sim import __version__, runner

    with progress_bar(games, description, quiet) as update:
        return runner.run(
            spec, out, games, chunk_size, threads, resume=resume, version=__version__, progress=update
        )


def print_rates(df: Any, key: str, title: str) -> None:
    """A win-rate table (analysis.win_rates' columns) with 95% intervals, on stdout."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for col in (key, "n", "wins", "win rate", "95% CI", "fair", "rounds"):
        table.add_column(col, justify="right" if col != key else "left")
    for r in df.iter_rows(named=True):
        table.add_row(
            str(r[key]),
            f"{r['games']:,}",
            f"{r['wins']:,}",
            f"{r['win_rate']:.3f}",
            f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]",
            f"{r['fair_share']:.3f}",
            f"{r['mean_rounds']:.2f}",
        )
    Console().print(table)
