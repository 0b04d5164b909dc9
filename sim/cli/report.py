"""``soup report``: the balance report of one or more runs (Markdown, HTML, figures, CSV tables)."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.support import EXIT_GAME_FAILED, EXIT_INTERRUPTED, command_line, fail, report_interrupt

RunDirs = Annotated[
    list[Path],
    typer.Argument(help="Run directories made by soup simulate (several: e.g. a 3- and a 4-player run)."),
]
ReportDir = Annotated[
    Path | None,
    typer.Option("--out", "-o", help="Report directory (default: the first run directory/report)."),
]


def report(
    results: RunDirs,
    out: ReportDir = None,
    top_sets: Annotated[int, typer.Option(min=1, help="Winners' gene sets to list.")] = 15,
    equilibrium: Annotated[
        Path | None,
        typer.Option(
            "--equilibrium",
            help="A soup tournament directory: also weigh the seat and gene tables by its equilibrium mix.",
        ),
    ] = None,
    strong: Annotated[
        list[Path] | None,
        typer.Option(
            "--strong",
            help="A run of the same rules with search players (soup simulate --strategies search-...): "
            "its strategy, seat and gene tables beside the scripted field's, and the findings that change "
            "with the players' strength (Ursuppe). Repeat for several runs.",
        ),
    ] = None,
    skill: Annotated[
        Path | None,
        typer.Option(
            "--skill",
            help="A soup skill directory: the ladder's table and figure, and the strongest rung named "
            "in the strategy section.",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
) -> None:
    """Write a balance report: win rates by strategy, seat and player count, seat advantage, game
    length, gene effects (forest plots), gene-pair synergy, winners' gene sets, purchase timing and
    environment-deck effects, with 95% intervals and multiple-testing corrections.

    Example: soup simulate --games 100000 && soup report results/ursuppe-4p-seed1-100000

    With --equilibrium TOURNAMENT_DIR (a soup tournament of the run's strategies) the report adds
    "At equilibrium": the seat and gene tables with each player row weighted by its strategy's
    weight in the tournament's equilibrium mix over its share of the run.

    With --strong RUN (a soup simulate run with search players, e.g. --strategies
    search-64,breeder,breeder,breeder) the report adds "Under strong play": its tables beside the
    scripted field's and the findings whose reading changes; with --skill DIR (a soup skill
    directory) it shows the skill ladder and names its strongest rung.
    """
    from analysis.report_runs import ReportError  # every game's (a UserError naming the run)
    from sim import game as games
    from sim.runner import read_manifest

    target = out if out is not None else results[0] / "report"
    manifest = read_manifest(results[0]) if results[0].is_dir() else None
    try:
        game = games.game_of_spec((manifest or {}).get("spec", {}), str(results[0] / "manifest.json"))
    except games.UnknownGameError as e:
        fail(str(e))
    try:
        with _progress(quiet) as progress:
            path = game.build_report(
                results,
                target,
                top_sets=top_sets,
                equilibrium=equilibrium,
                progress=progress,
                strong=strong or [],
                skill=skill,
            )
    except ReportError as e:
        fail(str(e))
    except KeyboardInterrupt:
        # The report is built beside its destination and renamed into place: nothing was kept.
        report_interrupt(
            f"interrupted: no report was written ({target} is as it was); the same command writes it: "
            f"{command_line()}"
        )
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except OSError as e:  # a full disk: name the report's path, not "results" (issue 21)
        # (the file named by the error is in the hidden directory the report is built in)
        fail(f"cannot write the report {target}: {e.strerror or e.__class__.__name__}", EXIT_GAME_FAILED)
    typer.echo(f"report: {path / 'report.md'} and {path / 'report.html'}")


@contextmanager
def _progress(quiet: bool) -> Iterator[Callable[[str, int, int], None]]:
    """What the report is doing, on stderr (issue 21.11: 70 s with nothing on the screen): a bar
    of the games read (the runs' chunks, read one at a time; ``pass 2/2`` when they are read
    twice, each pass counting the runs' games once, issue 31.11), then the section being
    written; fitted to the terminal's width (sim.cli.progress). Shown from the first step on: a
    check that fails before it prints its one line alone."""
    from sim.cli.progress import make_progress

    bar = make_progress(lambda task: task.fields["unit"], quiet)
    tasks: dict[str, int] = {}

    def update(step: str, done: int, total: int) -> None:
        if not tasks:
            bar.start()
        if step.startswith("reading"):
            passes = step.removeprefix("reading").strip()  # "", or "K/N": the K-th of N passes
            k, n = map(int, passes.split("/")) if passes else (1, 1)
            if "reading" not in tasks:
                tasks["reading"] = bar.add_task("reading the runs", total=n * total, unit="")
            unit = (f"pass {k}/{n}: " if n > 1 else "") + f"{done:,}/{total:,} games read"
            bar.update(tasks["reading"], completed=(k - 1) * total + done, unit=unit)
            return
        if "writing" not in tasks:
            tasks["writing"] = bar.add_task("writing", total=total, unit="")
        what = f"writing: {step}" if done < total else "writing the files"
        bar.update(tasks["writing"], completed=done, description=what, unit=f"{done}/{total} sections")

    try:
        yield update
    finally:
        if tasks:
            bar.stop()
