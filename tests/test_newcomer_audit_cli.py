"""The third newcomer audit (issue 31), the command line's points 6-9 and 11: what ``soup`` says
when it is interrupted, checks made before the work rather than after it, one run per
directory, no option ignored with exit 0, honest sizes and times, progress bars that fit 80
columns. Each runs ``soup`` as a user does (a subprocess; a real SIGINT for Ctrl-C)."""

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim import out_dirs
from tests import processes
from tests.interrupting import at_progress_args, soup_interrupted_at
from tests.test_cli import ROOT, soup, soup_exe
from tests.test_trustworthy_runs import _one_line_error

pytestmark = pytest.mark.slow

_LOADED = """
import sys
sys.argv = ["soup", *sys.argv[1:]]
from sim.cli import app as cli
try:
    cli.main()
except SystemExit as e:
    code = e.code
print(code, sorted(m for m in ("numba", "sim.ursuppe.engine.round", "ray") if m in sys.modules))
"""


def _before_the_engine(*args: str, cwd: Path = ROOT) -> str:
    """``soup ARGS`` ended with one error line, exit 2, and loaded no engine; the line."""
    r = processes.run([sys.executable, "-c", _LOADED, *args], cwd=cwd)
    assert r.stdout.split() == ["2", "[]"], r.stdout + r.stderr
    return _one_line_error(subprocess.CompletedProcess(args, 2, r.stdout, r.stderr))


# --- 6: soup combos interrupted says one true thing, and what its games are made of ----------

COMBOS = ["combos", "--gene", "Glutton", "--gene", "Alarm", "--games-per-arm", "24", "--observed-games", "48"]
COMBOS += ["--no-confirm", "--threads", "1", "-q"]


def test_combos_ctrl_c_says_once_that_the_same_command_resumes_from_the_finished_arms(tmp_path):
    """Issue 31.6: Ctrl-C printed "holds 2 finished arms of 4; the same command resumes" and then
    "nothing half-written was kept; the same command starts again". One line now, and it is
    true: the same command plays only the arms left. Its closing count says what it is made of
    (it counted the observational games as if they were the scan's)."""
    args = [*COMBOS, "--out", str(tmp_path / "c")]
    # the baseline arm plays 48 games (extended for the observational view), each single 24:
    # at 72 games the baseline and one single are finished
    done = soup_interrupted_at(args, ROOT, at=72)
    assert done.returncode == 130, done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("soup: interrupted")]
    assert len(said) == 1, done.stderr
    assert "holds 2 finished arms of 4; the same command resumes from them: soup combos" in said[0]
    assert "half-written" not in done.stderr and "starts again" not in done.stderr
    again = soup(*args)
    assert again.returncode == 0, again.stderr
    assert "(2 arms kept from an earlier run)" in again.stdout
    within = "96 scan games + 24 observational games (the baseline arm extended to 48 normal games)"
    assert f"{within} = 120 games in all" in again.stdout
    assert f"{within} = 120 games in all" in (tmp_path / "c" / "combos.md").read_text()


# --- 7: an --out that cannot be written is refused before the engine loads --------------------

OUT_COMMANDS = [
    ["simulate"],
    ["simulate", "--game", "pig"],
    ["compare", "--rules", "default", "--rules", "sim/ursuppe/rules/default_rules.toml"],
    ["compare", "--game", "pig", "--rules", "sim/pig/rules.toml"],
    ["ablate", "--gene", "Tentacle"],
    ["ablate", "--game", "chromosome", "--gene", "R"],
    ["tournament"],
    ["tournament", "--game", "pig"],
    ["tune"],
    ["tune", "--gene-value"],
    ["verdict", "--gene", "Tentacle"],
    ["calibrate", "--gene", "Tentacle"],
    ["combos"],
]


@pytest.mark.parametrize("args", OUT_COMMANDS, ids=" ".join)
def test_an_unwritable_out_is_refused_before_the_engine_loads(args):
    """Issue 31.7: `soup combos --out /proc/x` played its whole scan (42 s) before it failed, and
    every other command loaded the engine first (5-18 s): os.access says root may write /proc.
    One check (sim.out_dirs.check_writable: a file is created and removed) serves them all."""
    line = _before_the_engine(*args, "--out", "/proc/x")
    assert "--out: /proc/x is not writable (no file can be created in /proc:" in line, line


def test_report_refuses_an_unwritable_out_before_reading_the_runs(tmp_path):
    run = tmp_path / "run"
    assert soup("simulate", "--games", "120", "--threads", "1", "-q", "--out", str(run)).returncode == 0
    line = _one_line_error(soup("report", str(run), "--out", "/proc/x"))
    assert "--out: /proc/x is not writable" in line
    assert sorted(p.name for p in run.iterdir()) == ["chunk-000000.parquet", "manifest.json"]


# --- 8: one run per directory at a time --------------------------------------------------------


def _paused(args: list[str], at: int, marker: Path) -> subprocess.Popen:
    """``soup ARGS`` stopped once its progress reaches ``at`` games (holding what it holds),
    returned when it got there."""
    p = subprocess.Popen(
        at_progress_args(args, at, "pause", marker),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    while not marker.exists():
        assert p.poll() is None, p.communicate()
        assert time.monotonic() < deadline, "the command never reached its pause"
        time.sleep(0.1)
    return p


def _end(p: subprocess.Popen, how: int) -> tuple[int, str]:
    os.kill(p.pid, how)
    _, err = p.communicate(timeout=120)
    return p.returncode, err


def test_a_second_simulate_on_the_same_out_stops_at_once_naming_the_first(tmp_path):
    """Issue 31.8: two identical `soup simulate` on one --out both played every game and both
    claimed them. The first holds the directory's lock; the second ends at once in one line
    naming it (pid, since when, its command). The lock goes with the first, however it ends: a
    Ctrl-C, or kill -9 (the OS releases it; the file left behind is taken over)."""
    out = tmp_path / "run"
    args = ["simulate", "--games", "600", "--chunk-size", "100", "--threads", "1", "-q", "--out", str(out)]
    first = _paused(args, 100, tmp_path / "first")
    try:
        before = (out / "manifest.json").read_text()
        line = _before_the_engine(*args)
        assert f"--out: {out} is in use by another soup process (pid {first.pid} on " in line, line
        assert ", since 20" in line and f": soup {' '.join(args)})" in line, line
        assert (out / "manifest.json").read_text() == before  # the second wrote nothing
    finally:
        code, err = _end(first, signal.SIGINT)
    assert code == 130 and "interrupted: 100 of 600 games are kept in" in err, err
    assert not (out / out_dirs.LOCK).exists()
    resumed = soup(*args)
    assert resumed.returncode == 0 and "[resumed: 500 games played" in resumed.stdout, resumed.stderr

    crashed = tmp_path / "crashed"
    args[-1] = str(crashed)
    killed = _paused(args, 100, tmp_path / "killed")
    code, _ = _end(killed, signal.SIGKILL)
    assert code == -signal.SIGKILL and (crashed / out_dirs.LOCK).exists()  # a stale file, no lock
    after = soup(*args)
    assert after.returncode == 0 and "[resumed: 500 games played" in after.stdout, after.stderr
    assert not (crashed / out_dirs.LOCK).exists()


def test_a_second_combos_on_the_same_out_stops_before_the_engine(tmp_path):
    """Issue 31.8 for a command writing a directory of its own (sim.out_dirs.hold; soup tune,
    verdict, calibrate, compare, ablate and tournament hold theirs from out_dirs.claim on)."""
    args = [*COMBOS, "--out", str(tmp_path / "c")]
    first = _paused(args, 48, tmp_path / "first")
    try:
        line = _before_the_engine(*args)
        assert f"is in use by another soup process (pid {first.pid} on " in line, line
    finally:
        code, err = _end(first, signal.SIGINT)
    assert code == 130, err
    assert not (tmp_path / "c" / out_dirs.LOCK).exists()


# --- 9: no option is ignored with exit 0 -------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["bench", "--players", "5"], "--players: only with --profile"),
        (["bench", "--game", "chromosome", "--players", "5"], "--players: only with --profile"),
        (["bench", "--game", "chromosome", "--profile", "--players", "5"], "--players 5: chromosome is"),
        (["bench", "--extra-genes"], "--extra-genes: only with --profile"),
        (["bench", "--game", "pig", "--mix", "greedy"], "--mix: only with --game ursuppe"),
        (["bench", "--profile", "--compare", "main"], "--compare: not with --profile"),
        (["simulate", "--pool", ""], "--pool: expected comma-separated strategy names"),
        (["simulate", "--game", "pig", "--pool", " , "], "--pool: expected comma-separated strategy names"),
    ],
    ids=lambda a: " ".join(a) if isinstance(a, list) else "",
)
def test_an_option_that_would_be_ignored_is_refused(tmp_path, args, needle):
    """Issue 31.9: `soup bench --players 5` measured its usual player counts, `--game chromosome
    --players 5` (2-4 players) too, and `soup simulate --pool ''` drew from the default pool
    (while `--strategies ''` was refused): all exit 0."""
    out = ["--out", str(tmp_path / "out")] if args[0] == "simulate" else []
    line = _before_the_engine(*args, *out)
    assert needle in line, line
    assert not (tmp_path / "out").exists()


# --- 11: honest sizes and times, a disk that is too small, bars that fit 80 columns -------------


def test_a_run_too_large_for_the_disk_is_refused_and_its_time_said_in_years(tmp_path):
    """Issue 31.11: `--games 1000000000000` warned that it "plays for hours" (years) and writes
    120,000 GB (with 78 GB free), then started. The warning scales its unit; the run is refused
    in one line when its estimated size does not fit the free space of --out's disk."""
    out = tmp_path / "run"
    args = ["simulate", "--games", str(10**12), "--threads", "1", "--out", str(out)]
    r = processes.run([sys.executable, "-c", _LOADED, *args], cwd=ROOT)
    assert r.stdout.split() == ["2", "[]"], r.stdout + r.stderr
    assert re.search(r"writes about 80 TB of results and plays for about 3.2 years on 1 core", r.stderr)
    line = _one_line_error(subprocess.CompletedProcess([], 2, "", r.stderr))
    assert f"--games 1,000,000,000,000: needs about 80 TB of disk in {out}, and its disk has" in line
    assert "free; play fewer games or choose another --out" in line
    assert not out.exists()


_TIMES = r"\d+:\d\d:\d\d ETA (\d+:\d\d:\d\d|[\d.,]+ (days|years)|-:--:--)$"


def _bar_lines(width: int, description: str, total: int, done: int, seconds: float) -> list[str]:
    from rich.console import Console
    from rich.progress import ProgressSample

    from sim.cli.progress import games_count, make_progress

    text = io.StringIO()
    console = Console(file=text, width=width, color_system=None)
    bar = make_progress(games_count, False, console)
    bar.add_task(description, total=total)
    task = bar.tasks[0]
    now = time.monotonic()
    task.start_time = now - seconds
    task.completed = done
    task._progress.extend([ProgressSample(now - seconds, 0), ProgressSample(now, done)])
    console.print(bar.make_tasks_table(bar.tasks))
    return text.getvalue().splitlines()


@pytest.mark.parametrize(
    ("description", "total", "done", "seconds"),
    [
        ("simulating", 10**12, 1_234_567, 123),  # years to go
        ("simulating", 10**12, 123_456_789, 3 * 3600),
        ("reading the runs (2 passes)", 2_000_000, 1_000_000, 30),  # rich cut this one: "0:00:…"
        ("348 arms + panel", 3_980_000, 1_000_000, 300),
        ("minus-Division Rate, minus-Intelligence, minus-Glutton", 20_000, 3_000, 3),
    ],
)
def test_a_progress_line_fits_80_columns_with_its_times_whole(description, total, done, seconds):
    """Issue 31.11: at 80 columns the elapsed time and the ETA were cut. The count and the times
    are never cut; the bar and the description give way (sim.cli.progress)."""
    (line,) = _bar_lines(80, description, total, done, seconds)
    assert len(line) <= 80 and re.search(_TIMES, line), line
    assert description[:10] in line


def test_bars_of_simulate_and_report_fit_80_columns_and_report_counts_games(tmp_path):
    """Issue 31.11, as a user sees it with COLUMNS=80; and `soup report` of a 1M-game run
    counted 2,000,000 games read (it reads the runs twice): each pass counts the run's games."""
    env = {**os.environ, "COLUMNS": "80"}
    run = tmp_path / "run"
    args = ["simulate", "--games", "300", "--chunk-size", "100", "--threads", "1", "--out", str(run)]
    sim = processes.run([soup_exe(), *args], cwd=ROOT, env=env)
    assert sim.returncode == 0, sim.stderr
    report = processes.run([soup_exe(), "report", str(run)], cwd=ROOT, env=env)
    assert report.returncode == 0, report.stderr
    for done in (sim, report):
        bars = [line for line in done.stderr.splitlines() if " ETA " in line]
        assert bars and all(len(line) <= 80 and re.search(_TIMES, line) for line in bars), done.stderr
    assert "300/300 games " in sim.stderr
    assert "reading the runs" in report.stderr and "pass 2/2: 300/300 games read" in report.stderr
    assert "600" not in report.stderr


def test_the_lock_file_names_its_holder(tmp_path):
    """What a second command reads (issue 31.8): pid, host, start and command, as JSON."""
    lock = out_dirs.DirLock(tmp_path / "new" / "run")
    lock.acquire()
    doc = json.loads((tmp_path / "new" / "run" / out_dirs.LOCK).read_text())
    assert doc["pid"] == os.getpid() and set(doc) == {"pid", "host", "started", "command"}
    lock.release()
    assert list(tmp_path.iterdir()) == []  # the directories it made, gone with it


# --- 13: "every option is checked before the engine loads" (README), for every game -----------

BAD_OPTIONS = [
    ["simulate", "--strategies", "nosuch,greedy,greedy,greedy"],
    ["simulate", "--players", "9"],
    ["simulate", "--seating", "nosuch"],
    ["simulate", "--rules", "/nonexistent.toml"],
    ["simulate", "--game", "chromosome", "--players", "7"],
    ["simulate", "--game", "pig", "--players", "99"],
    ["play", "--strategies", "nosuch"],
    ["play", "--game", "chromosome", "--players", "1"],
    ["compare", "--rules", "/nonexistent.toml"],
    ["verdict", "--gene", "Nosuch"],
    ["calibrate", "--gene", "Nosuch"],
    ["ablate", "--gene", "Nosuch"],
    ["tune", "--strategy", "nosuch"],
    ["combos", "--holder", "nosuch"],
]


@pytest.mark.parametrize("args", BAD_OPTIONS, ids=" ".join)
def test_a_bad_option_is_refused_before_the_engine_loads(args, tmp_path):
    """Issue 31.13: the README promises that every option is checked before the engine loads;
    `--game chromosome --players 7` imported and compiled Chromosome's engine first."""
    out = [] if args[0] == "play" else ["--out", str(tmp_path / "out")]
    line = _before_the_engine(*args, *out)
    assert "No such option" not in line and "(see --help)" not in line  # refused by soup, not by typer
    assert not (tmp_path / "out").exists()
