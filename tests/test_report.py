"""soup report on real runs: a 3-player and a 4-player run of the default mix make one report
with every section, figure and table; bad input gets one line and exit code 2."""

import sys

import polars as pl
import pytest

from analysis.ursuppe.report import ReportError, build_report
from sim import runner
from sim.ursuppe.rules.book import load_rules
from sim.ursuppe.simulation import DEFAULT_POOL, UrsuppeRun
from strategies.ursuppe.params import load_strategy
from tests import processes

# One xdist worker runs this module (pyproject's --dist loadgroup): its module fixtures (two runs
# played, a report built) are made once, not once on each worker.
pytestmark = pytest.mark.xdist_group("report-runs")

GAMES = 1200


def _run(out, players, rules=None, games=GAMES):
    book = rules or load_rules()
    strategies = [load_strategy(n) for n in DEFAULT_POOL]
    spec = UrsuppeRun(book, players, 3, strategies, pool=list(range(len(strategies))), seating="rotate")
    runner.run(spec, out, games, 600, 2)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    return [_run(root / "p3", 3), _run(root / "p4", 4)]


@pytest.fixture(scope="module")
def report_dir(runs, tmp_path_factory):
    return build_report(runs, tmp_path_factory.mktemp("rep") / "report")


def test_report_has_every_section_figure_and_table(report_dir):
    md = (report_dir / "report.md").read_text()
    for heading in (
        "## What was run",
        "## Headlines",
        "## Win rates by strategy",
        "## Seat advantage (S5)",
        "### Strategy and start space",
        "## Game length and how games end (W1)",
        "### Held at the end",
        "### Ever bought",
        "### Purchases: how often and when",
        "### Pairs: synergy",
        "### Gene sets of winners and of all players",
        "## Environment-deck order",
    ):
        assert heading in md, heading
    assert "placeholder environment deck" in md  # the deck warning (spec §13)
    assert "11 cards (PLACEHOLDER deck)" in md
    assert f"{2 * GAMES:,} games" in md and "| 3 | 1,200 of 1,200 | 3 |" in md  # games, seeds per run
    assert "3 players: games last" in md and "4 players: games last" in md
    for name in (
        "seat_bias",
        "gene_forest_held",
        "gene_synergy_3p",
        "gene_synergy_4p",
        "game_length",
        "deck_first_drift_by_start_space_4p",
    ):
        png = report_dir / "figures" / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        assert f"figures/{name}.png" in md
    html = (report_dir / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "<table>" in html and 'src="figures/seat_bias.png"' in html


def test_report_tables_add_up(report_dir):
    by_strategy = pl.read_csv(report_dir / "tables" / "win_rate_by_strategy.csv")
    assert by_strategy["wins"].sum() == 2 * GAMES  # one winner per game
    assert by_strategy["games"].sum() == GAMES * 3 + GAMES * 4
    seats = pl.read_csv(report_dir / "tables" / "seat_advantage.csv")
    assert seats.group_by("players").agg(pl.col("wins").sum()).sort("players")["wins"].to_list() == [
        GAMES,
        GAMES,
    ]
    genes = pl.read_csv(report_dir / "tables" / "gene_effects_held.csv")
    assert genes.height == 2 * 20  # every gene at each player count


def test_report_replaces_an_old_report_atomically(runs, tmp_path):
    out = tmp_path / "r"
    build_report(runs[:1], out)
    (out / "stale.txt").write_text("old")
    build_report(runs[:1], out)
    assert not (out / "stale.txt").exists() and (out / "report.md").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["r"]  # no temporary directory left behind


def test_report_never_destroys_what_is_not_a_report(runs, tmp_path):
    keep = tmp_path / "mine"
    keep.mkdir()
    (keep / "notes.txt").write_text("mine")
    with pytest.raises(ReportError, match="not a soup report"):
        build_report(runs[:1], keep)
    assert (keep / "notes.txt").read_text() == "mine"
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(ReportError, match="is a file"):
        build_report(runs[:1], afile)
    with pytest.raises(ReportError, match="would replace the run directory"):
        build_report(runs[:1], runs[0])
    with pytest.raises(ReportError, match="would replace the run directory"):
        build_report(runs[:1], runs[0].parent)  # a directory holding the run
    assert (runs[0] / "manifest.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "mine"]


def test_tiny_and_incomplete_runs_are_reported_with_warnings(tmp_path):
    import json

    tiny = _run(tmp_path / "tiny", 4, games=30)
    manifest = json.loads((tiny / "manifest.json").read_text())
    manifest["status"] = "running"
    (tiny / "manifest.json").write_text(json.dumps(manifest))
    md = (build_report([tiny], tmp_path / "rep") / "report.md").read_text()
    assert "**Small sample:** 30 games with 4 players" in md
    assert "**Run still marked running:** `tiny` has all 30 games" in md
    assert "is clearly strongest" in md or "is not testable" in md


def test_runs_of_the_same_games_or_of_different_designs_are_refused(runs, tmp_path):
    same = _run(tmp_path / "again", 3, games=50)  # seed 3, like runs[0]: the same games
    with pytest.raises(ReportError, match="the same 3-player games"):
        build_report([runs[0], same], tmp_path / "x")
    book = load_rules()
    other = UrsuppeRun(
        book, 3, 9, [load_strategy("greedy"), load_strategy("breeder")], pool=[0, 1], seating="rotate"
    )
    runner.run(other, tmp_path / "other", 50, 50, 1)
    with pytest.raises(ReportError, match="different strategies"):
        build_report([runs[0], tmp_path / "other"], tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_out_given_as_a_symlink_or_as_dot(runs, tmp_path, monkeypatch):
    real = build_report(runs[:1], tmp_path / "real")
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(ReportError, match="symbolic link"):
        build_report(runs[:1], tmp_path / "link")
    empty = tmp_path / "here"
    empty.mkdir()
    monkeypatch.chdir(empty)
    build_report(runs[:1], ".")
    assert (empty / "report.md").exists()


def test_bad_run_directories_are_refused(runs, tmp_path):
    with pytest.raises(ReportError, match="twice"):
        build_report([runs[0], runs[0]], tmp_path / "x")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "manifest.json").write_text("[1, 2]")
    with pytest.raises(ReportError, match="expected an object with a 'spec'"):
        build_report([bad], tmp_path / "y")
    (bad / "manifest.json").write_text('{"spec": {"game": "chromosome"}}')
    with pytest.raises(ReportError, match="expected 'ursuppe'"):
        build_report([bad], tmp_path / "y")
    import json

    spec = json.loads((runs[0] / "manifest.json").read_text())
    spec["spec"]["games"] = "thirty"
    (bad / "manifest.json").write_text(json.dumps(spec))
    with pytest.raises(ReportError, match="spec.games: expected an integer"):
        build_report([bad], tmp_path / "y")
    spec["spec"]["games"] = 30
    del spec["spec"]["rules"]["environment"]["deck"][2]["drift"]
    (bad / "manifest.json").write_text(json.dumps(spec))
    with pytest.raises(ReportError, match=r"deck\[2\]"):
        build_report([bad], tmp_path / "y")
    afile = tmp_path / "f.txt"
    afile.write_text("")
    with pytest.raises(ReportError, match="not a directory"):
        build_report([afile], tmp_path / "y")
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_runs_with_different_rules_are_refused(runs, tmp_path):
    house = _run(tmp_path / "house", 4, load_rules(overrides={"economy": {"income": 8}}), games=100)
    with pytest.raises(ReportError, match="different rules"):
        build_report([runs[1], house], tmp_path / "x")


def _soup(*args):
    return processes.run([sys.executable, "-m", "sim.cli.app", *args])


def test_cli_report(runs, tmp_path):
    done = _soup("report", str(runs[1]), "--out", str(tmp_path / "cli"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "cli" / "report.html").exists()


@pytest.mark.parametrize("bad", ["missing-dir", "empty-dir"])
def test_cli_report_bad_input_is_one_line(bad, tmp_path):
    target = tmp_path / bad
    if bad == "empty-dir":
        target.mkdir()
    done = _soup("report", str(target), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert (
        done.stderr.count("\n") == 1
        and done.stderr.startswith("soup: error: ")
        and str(target) in done.stderr
    )
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_report_text_and_csvs_are_clean(report_dir):
    """No doubled parentheses, no -0.000, no "1 games"; CSV floats without float noise."""
    import re

    md = (report_dir / "report.md").read_text()
    headlines = md.split("## Headlines")[1].split("## ")[0]
    assert "))" not in headlines and "((" not in headlines
    assert "-0.000" not in md and "+0.000" not in md and "-0.0%" not in md
    assert not re.search(r"\b1 (games|runs|cards|pairs|cells|rows)\b", md)
    for path in (report_dir / "tables").glob("*.csv"):
        for cell in re.findall(r"(?<![\w.])-?\d+\.\d+(?:e-?\d+)?", path.read_text()):
            digits = cell.split("e")[0].lstrip("-").replace(".", "").strip("0")
            assert len(digits) <= 6, (path.name, cell)
        assert not re.search(r"(^|,)-0\.0(,|$)", path.read_text(), re.M), path.name


def test_report_covers_5_and_6_players_beside_4(tmp_path):
    """PX (5-6 players): every player-count section and per-count figure lists 4, 5 and 6 players,
    the seat table has 6 seats at 6 players, the runs table names the seating design (S5) and the
    5-6 placeholders (setup DP PX10, prices) are named per count."""
    runs = [_run(tmp_path / f"p{p}", p, games=120) for p in (4, 5, 6)]
    rep = build_report(runs, tmp_path / "rep")
    md = (rep / "report.md").read_text()
    for p in (4, 5, 6):
        assert f"{p} players: games last" in md, p  # headlines, per count
        assert f"**Small sample:** 120 games with {p} players" in md
        for figure in ("gene_synergy", "gene_purchase_timing", "deck_first_drift_by_start_space"):
            name = f"{figure}_{p}p"
            assert f"figures/{name}.png" in md and (rep / "figures" / f"{name}.png").exists(), name
    assert "rotate (all 24 permutations)" in md
    assert "rotate (balanced Latin square, 10 games a block)" in md
    assert "rotate (balanced Latin square, 6 games a block)" in md
    for p in (5, 6):
        warning = f"**Warning: placeholder rules with {p} players:** `flags.setup_dp_5_6`, `flags.price_5_6`"
        assert warning in md
    assert "placeholder rules with 4 players" not in md
    seats = pl.read_csv(rep / "tables" / "seat_advantage.csv")
    assert seats.group_by("players").len().sort("players").rows() == [(4, 4), (5, 5), (6, 6)]
    assert seats.group_by("players").agg(pl.col("wins").sum())["wins"].to_list() == [120] * 3  # one winner
    for table in ("win_rate_by_strategy", "game_length"):
        assert sorted(pl.read_csv(rep / "tables" / f"{table}.csv")["players"].unique()) == [4, 5, 6], table
