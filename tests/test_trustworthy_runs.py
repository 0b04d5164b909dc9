"""Trustworthy runs (issue 10): no silent wrong results, damaged files found, one-line errors,
flat memory, a command line that talks. Each test reproduces a fault a user met and runs the CLI
as the user does (the installed ``soup`` in a subprocess) wherever it can."""

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest

from sim import runner
from sim.errors import GameError
from tests import processes
from tests.interrupting import soup_interrupted
from tests.test_cli import ROOT, soup


def _one_line_error(r: subprocess.CompletedProcess, code: int = 2) -> str:
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    lines = [line for line in r.stderr.splitlines() if line.startswith("soup: error:")]
    assert len(lines) == 1, r.stderr
    return lines[0]


def _rows(out: Path) -> pl.DataFrame:
    rows = runner.scan_chunks(runner.chunk_files(out)).collect()
    return rows.sort([c for c in ("game", "player") if c in rows.columns])


# --- the game-agnostic runner, with a tiny fake game -------------------------------------------


class CoinGame(runner.RunAdapter):
    """A fake game: game i's 'winner' is a hash of (seed, i). Game ``bad`` cannot be played."""

    def __init__(self, seed: int = 1, bad: int | None = None) -> None:
        self.seed, self.bad = seed, bad

    def spec(self) -> dict:
        return {"game": "coin", "seed": self.seed}

    def play_chunk(self, first: int, count: int, threads: int) -> pa.Table:
        games = list(range(first, first + count))
        if self.bad is not None and self.bad in games:
            raise GameError(f"game {self.bad}: the coin stood on its edge")
        return pa.table({"game": games, "won": [(g * 2654435761 + self.seed) % 3 == 0 for g in games]})


def test_fake_game_failure_stops_the_run_and_keeps_the_completed_chunks(tmp_path):
    with pytest.raises(GameError, match="game 25"):
        runner.run(CoinGame(bad=25), tmp_path / "run", 40, 10, 1)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert sorted(manifest["chunks"]) == ["0", "1"] and manifest["status"] == "running"
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [
        "chunk-000000.parquet",
        "chunk-000001.parquet",
        "manifest.json",
    ]  # the failed chunk was never written, not even in part


def test_fake_game_failure_in_the_first_chunk_leaves_nothing(tmp_path):
    with pytest.raises(GameError):
        runner.run(CoinGame(bad=3), tmp_path / "run", 40, 10, 1)
    assert not (tmp_path / "run").exists()  # no directory holding only a manifest


def test_the_manifest_is_the_indented_json_of_its_document_with_the_spec_written_once(tmp_path):
    """The writer keeps the spec's text for the whole run (runner.json_text, issue 36.3): the file
    is still exactly ``json.dumps(manifest, indent=1)``."""
    out = tmp_path / "run"
    texts = []  # the manifest after each chunk is listed (written with the spec's kept text)

    def read(done: int, total: int) -> None:
        texts.append((out / "manifest.json").read_text())

    runner.run(CoinGame(), out, 40, 10, 1, progress=read)
    read(40, 40)
    assert len(texts) >= 5 and all(t == json.dumps(json.loads(t), indent=1) + "\n" for t in texts)
    doc = {"spec": {"a": [1, {"b": "x\ny"}], "c": {}}, "chunks": {"0": {"file": "f"}}, "status": "running"}
    spec = json.dumps(doc["spec"], indent=1)
    assert runner.json_text(doc, {"spec": spec}) == runner.json_text(doc) == json.dumps(doc, indent=1) + "\n"
    assert runner.json_text(doc, {"spec": "0"}) == json.dumps({**doc, "spec": 0}, indent=1) + "\n"


def test_manifest_records_size_and_checksum_and_resume_replays_a_damaged_chunk(tmp_path):
    out = tmp_path / "run"
    runner.run(CoinGame(), out, 40, 10, 1)
    clean = _rows(out)
    entry = json.loads((out / "manifest.json").read_text())["chunks"]["2"]
    assert entry["bytes"] == (out / entry["file"]).stat().st_size and len(entry["sha256"]) == 64
    data = (out / entry["file"]).read_bytes()
    (out / entry["file"]).write_bytes(data[: len(data) // 2])  # truncated
    with pytest.raises(runner.RunError, match="chunk-000002.parquet: damaged chunk file"):
        runner.chunk_files(out)
    opened = runner.open_run(CoinGame(), out, 40, 10)
    assert opened.todo == [2] and "chunk-000002.parquet" in opened.notices[0]
    summary = runner.play(opened, 1)
    assert summary.games_played == 10 and summary.chunks_played == 1
    assert _rows(out).equals(clean)


def test_same_spec_resumes_without_flag_and_other_content_is_refused(tmp_path):
    out = tmp_path / "run"
    runner.run(CoinGame(), out, 40, 10, 1)
    assert runner.run(CoinGame(), out, 40, 10, 1).games_played == 0  # complete: nothing to play
    with pytest.raises(runner.RunError, match="holds a different run .*seed"):
        runner.run(CoinGame(seed=2), out, 40, 10, 1)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(runner.RunError, match="holds other files"):
        runner.run(CoinGame(), other, 40, 10, 1)
    with pytest.raises(runner.RunError, match="no run to resume"):
        runner.run(CoinGame(), tmp_path / "new", 40, 10, 1, must_exist=True)


# --- soup simulate as a user runs it -----------------------------------------------------------


def _simulate(out: Path, *extra: str, games: int = 600, chunk: int = 200) -> subprocess.CompletedProcess:
    return soup(
        "simulate", "--games", str(games), "--chunk-size", str(chunk), "--out", str(out), "-q", *extra
    )


def test_engine_error_in_any_game_stops_simulate_with_one_line_naming_it(tmp_path):
    """A game that records an engine error (here: made to fail a check in game 450) stops the
    run with one line naming the game; its chunk is not written; the earlier chunks stay valid."""
    script = (
        "import sys; import numpy as np; from sim.ursuppe.engine import batch, state; play = batch.play\n"
        "def failing(b, **kw):\n"
        "    play(b, **kw); hit = np.flatnonzero(b.state.game_index == 450)\n"
        "    if len(hit): b.workspace.error[hit[0]] = [state.ERR_INVARIANT, 9, 2, 0]\n"
        "    return b\n"
        "batch.play = failing\n"
        "from sim.cli.app import main; sys.argv[0] = 'soup'; main()\n"
    )
    out = tmp_path / "run"
    args = ["simulate", "--games", "600", "--chunk-size", "200", "--out", str(out), "-q"]
    r = processes.run([sys.executable, "-c", script, *args], cwd=ROOT)
    line = _one_line_error(r, code=1)
    assert "game 450: invariant I9 failed after Phase 2" in line and "400 games" in line
    assert sorted(p.name for p in out.glob("chunk-*")) == ["chunk-000000.parquet", "chunk-000001.parquet"]
    assert "rows" not in r.stdout  # no summary of a failed run


def test_truncated_and_empty_chunks_are_found_replayed_and_named_by_report(tmp_path):
    clean = tmp_path / "clean"
    assert _simulate(clean).returncode == 0
    out = tmp_path / "run"
    assert _simulate(out).returncode == 0
    first, second = sorted(out.glob("chunk-*.parquet"))[:2]
    first.write_bytes(first.read_bytes()[:100])
    second.write_bytes(b"")
    r = soup("report", str(out), "--out", str(tmp_path / "report"))
    line = _one_line_error(r)
    assert f"{first}: damaged chunk file" in line
    r = _simulate(out)  # the same command: resumes, re-playing the damaged chunks
    assert r.returncode == 0, r.stderr
    assert f"{first}: 100 bytes, expected" in r.stderr and f"{second}: 0 bytes" in r.stderr
    assert "[resumed: 400 games played" in r.stdout
    assert _rows(out).equals(_rows(clean))


def test_out_holding_other_files_or_naming_a_file_is_refused(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("precious")
    line = _one_line_error(_simulate(mine))
    assert "holds other files (thesis.tex)" in line
    assert sorted(p.name for p in mine.iterdir()) == ["thesis.tex"]
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    assert "is a file, not a directory" in _one_line_error(_simulate(a_file))
    assert "is a file" in _one_line_error(_simulate(a_file / "sub"))


def test_os_error_is_one_line_and_leaves_no_directory(tmp_path):
    out = tmp_path / ("x" * 300) / "run"  # a name too long for the file system
    line = _one_line_error(_simulate(out), code=1)
    assert "cannot write" in line and "File name too long" in line
    assert list(tmp_path.iterdir()) == []
    r = soup("report", str(ROOT / "tests"), "--out", str(out))
    _one_line_error(r)


@pytest.fixture
def tiny_disk(tmp_path):
    """A 1 MB file system for the test: a full disk, then a read-only one (processes.tmpfs: needs
    root)."""
    with processes.tmpfs(tmp_path / "disk", "size=1M") as mount:
        yield mount


def test_full_and_read_only_disks_are_one_line_and_leave_nothing(tmp_path, tiny_disk):
    """A run larger than the free space and a read-only disk are refused before any game
    (issue 31.7, 31.11: they used to be found when the first chunk was written). A disk that
    fills up all the same (the size is an estimate): tests/test_newcomer_audit.py
    (test_full_disk_under_report_out_names_the_report)."""
    run = tmp_path / "run"
    assert _simulate(run, games=300, chunk=300).returncode == 0
    line = _one_line_error(_simulate(tiny_disk / "run", games=20000, chunk=20000))
    assert "--games 20,000: needs about 1.6 MB of disk in" in line and "free" in line
    assert list(tiny_disk.iterdir()) == []  # no directory holding only a manifest
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_disk)], check=True)
    line = _one_line_error(_simulate(tiny_disk / "run"))
    assert "is not writable" in line and "Read-only file system" in line
    line = _one_line_error(soup("report", str(run), "--out", str(tiny_disk / "report")))
    assert "is not writable" in line and "Read-only file system" in line


def test_seed_beyond_64_bits_is_an_option_error(tmp_path):
    line = _one_line_error(_simulate(tmp_path / "run", "--seed", str(2**63)))
    assert "--seed" in line
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_ctrl_c_says_what_was_kept_and_the_same_command_resumes(tmp_path):
    out = tmp_path / "run"
    # 6 chunks: the interruption comes after the second (tests/interrupting.py), not by chance
    args = ["simulate", "--games", "6000", "--chunk-size", "1000", "--threads", "1"]
    args += ["--out", str(out), "-q"]
    p = soup_interrupted(args, ROOT)
    stderr = p.stderr
    assert p.returncode == 130, stderr
    assert "Traceback" not in stderr
    line = next(x for x in stderr.splitlines() if x.startswith("soup: interrupted"))
    assert "games are kept in" in line and f"the same command resumes: soup {' '.join(args)}" in line
    kept = len(json.loads((out / "manifest.json").read_text())["chunks"])
    r = soup(*args)  # the very same command finishes the run
    assert r.returncode == 0, r.stderr
    assert kept < 6 and f"[resumed: {6000 - 1000 * kept:,} games played" in r.stdout
    clean = tmp_path / "clean"
    assert soup(*args[:-3], "--chunk-size", "5000", "--out", str(clean), "-q").returncode == 0
    assert _rows(out).equals(_rows(clean))


def test_summary_reads_one_chunk_at_a_time_and_equals_the_full_table(tmp_path):
    from analysis.win_rates import load_results, win_rates, win_rates_by_chunk

    out = tmp_path / "run"
    r = _simulate(out, games=900, chunk=200)
    assert r.returncode == 0, r.stderr
    groupings = [["strategy"], ["start_space"], ["strategy", "start_space"]]
    streamed = win_rates_by_chunk(runner.chunk_files(out), groupings)
    for by, table in zip(groupings, streamed, strict=True):
        full = win_rates(load_results(out), by)
        assert table.columns == full.columns
        assert table.select(by + ["games", "wins"]).equals(full.select(by + ["games", "wins"]))
        for col in ("win_rate", "ci_low", "ci_high", "mean_rounds", "se", "p_value"):
            assert (table[col] - full[col]).abs().max() < 1e-12, col


# --- the command line talks --------------------------------------------------------------------


@pytest.mark.parametrize("module", ["sim.cli.app", "sim.ursuppe.rules.book"])
def test_help_and_rules_do_not_load_the_engine(module):
    """`soup --help` imports sim.cli.app only; `soup rules` adds the rules loader: neither may load
    numba or the compiled kernels (seconds on a cold machine)."""
    heavy = "('numba', 'sim.ursuppe.engine.round', 'polars')"
    code = f"import sys, {module}; print(sorted(m for m in {heavy} if m in sys.modules))"
    r = processes.run([sys.executable, "-c", code], cwd=ROOT)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


def test_first_run_says_it_compiles(capsys):
    """The notice itself; that it is the first thing a first run prints, with an empty cache:
    tests/test_newcomer_audit.py (test_a_first_run_prints_the_notice_first)."""
    from sim.cli import support as cli_support

    cli_support.compile_notice(None, "chromosome")
    cli_support.compile_notice(31.6, "ursuppe")
    first, second = capsys.readouterr().err.splitlines()
    assert "compiling the engine for this machine (first run only" in first and "not known" in first
    assert "no compile of chromosome's engine was recorded" in first  # per game (issue 31.10)
    assert "about 32 s, as ursuppe's last compile on this machine" in second


def test_help_shows_no_type_noise_and_whole_defaults():
    r = soup("simulate", "--help")
    assert r.returncode == 0
    assert "<bool>" not in r.stdout and "…" not in r.stdout
    assert "greedy,breeder,geneticist,predator,forager" in " ".join(r.stdout.split())


def test_warnings_for_threads_above_cores_and_huge_runs(tmp_path):
    threads = str(4 * (os.cpu_count() or 1))
    r = soup("simulate", "--threads", threads, "--games", "200000000", "--rules", "nope.toml")
    assert "soup: warning: --threads" in r.stderr and "more than the" in r.stderr
    assert "soup: warning: --games 200,000,000 writes about" in r.stderr
    _one_line_error(r)  # the missing rules file, after the warnings, before any game
    assert "--games" in _one_line_error(soup("simulate", "--games", str(10**13)))


# soup compare of two identical rule sets: tests/test_paired.py (test_compare_of_the_same_rules_...)


def test_play_json_names_each_seat_and_the_deck():
    r = soup("play", "--players", "3", "--seed", "3", "--strategies", "greedy,random,breeder", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [s["strategy"] for s in doc["seats"]] == ["greedy", "random", "breeder"]
    assert sorted(s["start_space"] for s in doc["seats"]) == [1, 2, 3]
    assert "PLACEHOLDER" in doc["deck"] and sorted(doc["deck_order"]) == list(range(len(doc["deck_order"])))


def test_a_move_into_an_obstacle_reads_stays():
    """B1: a move into an obstacle keeps the amoeba where it is; the log says so."""
    from sim.ursuppe.tools.trace import describe

    e = {
        "type": "active_move",
        "player": 0,
        "amoeba": 3,
        "how": "active_move",
        "die1": 2,
        "die2": None,
        "direction": "E",
        "cost": 1,
        "from": 14,
        "to": 14,
    }
    text = describe(e)
    assert "stays on 14" in text and "14 -> 14" not in text
