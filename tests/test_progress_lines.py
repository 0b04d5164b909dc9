"""Progress when stderr is no terminal (issue 32.7): redirected to a file, the bar appeared once,
at the end. Now each task prints plain lines: its first, one every SOUP_PROGRESS_EVERY seconds,
and the one that finishes it, each fitted to the width like the bar (sim.cli.progress)."""

import io
import os

import pytest
from rich.console import Console

from sim.cli.progress import games_count, make_progress
from tests import processes
from tests.test_cli import ROOT, soup_exe


def _lines(every: str, steps: list[int], total: int, monkeypatch) -> list[str]:
    monkeypatch.setenv("SOUP_PROGRESS_EVERY", every)
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=False)
    with make_progress(games_count, quiet=False, console=console) as bar:
        task = bar.add_task("simulating", total=total)
        for done in steps:
            bar.update(task, completed=done)
    return out.getvalue().splitlines()


def test_a_redirected_bar_prints_each_step_when_due(monkeypatch):
    lines = _lines("0", [0, 250, 500, 1000], 1000, monkeypatch)
    assert [line.split(" games")[0] for line in lines] == [
        "simulating: 0/1,000",
        "simulating: 250/1,000",
        "simulating: 500/1,000",
        "simulating: 1,000/1,000",
    ]
    assert all(len(line) <= 80 for line in lines)


def test_a_redirected_bar_is_quiet_between_its_periods(monkeypatch):
    # a long period: the first line and the finishing one only
    lines = _lines("3600", [0, 100, 200, 1000], 1000, monkeypatch)
    assert len(lines) == 2 and lines[0].startswith("simulating: 0/1,000")
    assert lines[1].startswith("simulating: 1,000/1,000 games")


def test_an_unfinished_task_says_where_it_stopped(monkeypatch):
    lines = _lines("3600", [0, 400], 1000, monkeypatch)
    assert len(lines) == 2 and lines[1].startswith("simulating: 400/1,000 games")


def test_quiet_prints_nothing(monkeypatch):
    out = io.StringIO()
    with make_progress(games_count, quiet=True, console=Console(file=out, force_terminal=False)) as bar:
        bar.update(bar.add_task("simulating", total=10), completed=10)
    assert out.getvalue() == ""


@pytest.mark.slow
def test_soup_simulate_redirected_prints_progress_lines_as_it_goes(tmp_path):
    env = {**os.environ, "SOUP_PROGRESS_EVERY": "0"}
    args = [
        "simulate",
        "--games",
        "300",
        "--chunk-size",
        "100",
        "--threads",
        "1",
        "--out",
        str(tmp_path / "r"),
    ]
    done = processes.run([soup_exe(), *args], cwd=ROOT, env=env)  # stderr goes to a file
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("simulating: ")]
    assert len(lines) >= 3, done.stderr  # it started, went on, finished: not one line at the end
    assert lines[-1].startswith("simulating: 300/300 games")
