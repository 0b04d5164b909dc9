"""``soup report``: the balance report of one or more runs (Markdown, HTML, figures, CSV tables)."""

from pathlib import Path
from typing import Annotated

import typer

from sim.cli_support import fail


def report(
    results: Annotated[
        list[Path],
        typer.Argument(help="Run directories made by soup simulate (several: e.g. a 3- and a 4-player run)."),
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Report directory (default: the first run directory/report)."),
    ] = None,
    top_sets: Annotated[int, typer.Option(min=1, help="Winners' gene sets to list.")] = 15,
) -> None:
    """Write a balance report: win rates by strategy, seat and player count, seat advantage, game
    length, gene effects (forest plots), gene-pair synergy, winners' gene sets, purchase timing and
    environment-deck effects, with 95% intervals and multiple-testing corrections.

    Example: soup simulate --games 100000 && soup report results/ursuppe-4p-seed1-100000
    """
    from analysis.report import ReportError, build_report

    target = out if out is not None else results[0] / "report"
    try:
        path = build_report(results, target, top_sets=top_sets)
    except ReportError as e:
        fail(str(e))
    typer.echo(f"report: {path / 'report.md'} and {path / 'report.html'}")
