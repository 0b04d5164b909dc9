"""Chromosome's own report (issue 23.4): ``soup report`` on Chromosome runs writes its sections
(species, seat, strategy, player count, shared wins, endings, the end state, rules and
placeholders), and every number agrees with what polars computes from the runs' Parquet rows."""

import json
import math
import shutil
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from analysis import win_rates
from analysis.chromosome import outcomes, report
from analysis.intervals import cluster_contrast, cluster_wilson
from analysis.pages import MARKER
from sim.cli.app import app
from sim.runner import chunk_files

# One xdist worker runs this module (pyproject's --dist loadgroup): its module fixtures (two runs
# played, a report built) are made once, not once on each worker.
pytestmark = pytest.mark.xdist_group("chromosome-report-runs")

GAMES = 300
CHUNK = 120  # four chunks a run (120, 120, 30, 30: the last split off short): the report adds them up


def soup(*args: object, code: int = 0):
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "160"})
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    return result


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    """A 2- and a 3-player run of the default rules and pool (three chunks each)."""
    root = tmp_path_factory.mktemp("chromosome-runs")
    out = []
    for players in (2, 3):
        run = root / f"r{players}"
        soup("simulate", "--game", "chromosome", "--players", players, "--games", GAMES,
             "--chunk-size", CHUNK, "--threads", 1, "--seed", 5, "--out", run, "-q")  # fmt: skip
        out.append(run)
    return out


@pytest.fixture(scope="module")
def built(runs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("chromosome-report") / "report"
    soup("report", *runs, "--out", out, "-q")
    return out


@pytest.fixture(scope="module")
def rows(runs) -> pl.DataFrame:
    return win_rates.load_results(*runs).collect()


def _csv(built: Path, name: str) -> pl.DataFrame:
    return pl.read_csv(built / "tables" / f"{name}.csv")


SECTIONS = (
    "## Headlines",
    "## Rules and placeholders",
    "## Win rate by species",
    "## Win rate by start seat",
    "## Win rate by strategy",
    "## Win rate by player count",
    "## Shared wins and games without a winner",
    "## How games end and how long they last",
    "## The end: irradiation, trophies, tokens and fate",
)


def test_the_report_has_its_sections_and_figures(built):
    md = (built / "report.md").read_text()
    positions = [md.index(s) for s in SECTIONS]
    assert positions == sorted(positions)  # in reading order
    assert "How shared wins count" in md
    assert "## Gene colours held" in md  # the engine writes genes_Y .. genes_B
    assert "## Event order" not in md  # events off: no event_order column
    for name in ("win_rate_by_species", "win_rate_by_seat", "game_length", "end_state"):
        png = built / "figures" / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"](figures/{name}.png)" in md
    html = (built / "report.html").read_text()
    assert '<h2 id="win-rate-by-species">' in html and "<table>" in html
    assert (built / MARKER).exists()
    assert not list(built.parent.glob(".report.tmp-*"))  # built beside, renamed into place


def test_species_seat_and_strategy_wins_match_the_rows(built, rows):
    for key, table in (("species", "win_rate_by_species"), ("start_space", "win_rate_by_seat"),
                       ("strategy", "win_rate_by_strategy")):  # fmt: skip
        want = (
            rows.group_by("players", key)
            .agg(pl.len().alias("games"), pl.col("won").sum().alias("wins"))
            .sort("players", key)
        )
        got = _csv(built, table).sort("players", key)
        assert got.select("players", key, "games", "wins").to_dicts() == want.with_columns(
            pl.col("players").cast(pl.Int64), pl.col("wins").cast(pl.Int64), pl.col("games").cast(pl.Int64),
            *([pl.col(key).cast(pl.Int64)] if key == "start_space" else []),
        ).to_dicts()  # fmt: skip
        assert np.allclose(got["win_rate"], got["wins"] / got["games"])
        assert (got["ci_low"] <= got["win_rate"]).all() and (got["win_rate"] <= got["ci_high"]).all()
        assert np.allclose(got["fair_share"], 1 / got["players"])
    # the par: every player of the player count; a shared win counts for each of its winners
    par = rows.group_by("players").agg(pl.col("won").mean()).sort("players")
    species = _csv(built, "win_rate_by_species")
    for players, rate in par.iter_rows():
        assert np.allclose(species.filter(pl.col("players") == players)["par"], rate)
    # the win share splits a shared win: it sums to 1 over the players of a game with a winner
    share = (
        rows.with_columns(pl.col("won").cast(pl.Int64).sum().over("players", "game").alias("k"))
        .with_columns(pl.when(pl.col("won")).then(1 / pl.col("k")).otherwise(0.0).alias("s"))
        .group_by("players", "species")
        .agg(pl.col("s").mean())
        .sort("players", "species")
    )
    assert np.allclose(species.sort("players", "species")["win_share"], share["s"], atol=1e-6)


def test_the_test_against_the_fair_share_is_the_generic_one(rows):
    """The cluster-robust score test against 1/P from the moments equals analysis.win_rates'."""
    mine = outcomes.win_table(rows, ["species"])
    generic = win_rates.win_rates(rows, ["players", "species"])
    assert np.allclose(mine["p_fair"], generic["p_value"], equal_nan=True)
    assert np.allclose(mine["ci_low"], generic["ci_low"]) and np.allclose(mine["ci_high"], generic["ci_high"])


def test_shared_wins_and_endings_match_the_rows(built, rows):
    games = rows.group_by("players", "game").agg(
        pl.col("won").sum().alias("winners"), pl.col("end_reason").first(), pl.col("rounds").first()
    )
    shared = _csv(built, "shared_wins").sort("players")
    for p in (2, 3):
        g = games.filter(pl.col("players") == p)
        row = shared.filter(pl.col("players") == p).row(0, named=True)
        assert row["games"] == GAMES == len(g)
        assert row["shared"] == (g["winners"] >= 2).sum()
        assert row["no_winner"] == (g["winners"] == 0).sum()
        assert math.isclose(row["mean_winners"], g["winners"].mean(), rel_tol=1e-5)
        ends = _csv(built, "end_reasons").filter(pl.col("players") == p)
        want = g.group_by("end_reason").len()
        assert dict(ends.select("end_reason", "games").iter_rows()) == dict(want.iter_rows())
        summary = _csv(built, "game_length_summary").filter(pl.col("players") == p).row(0, named=True)
        assert math.isclose(summary["mean_rounds"], g["rounds"].cast(pl.Float64).mean(), rel_tol=1e-5)
        assert summary["median"] == g["rounds"].median()
    md = (built / "report.md").read_text()
    assert "| 3 | 300 |" in md  # the shared-wins table names every game


def test_end_state_means_and_intervals_are_cluster_robust(built, rows):
    table = _csv(built, "end_state_by_species")
    for (players, species), part in rows.group_by("players", "species"):
        row = table.filter((pl.col("players") == players) & (pl.col("species") == species)).row(0, named=True)
        cluster = part["game"].to_numpy()
        for column in outcomes.END_STATE:
            y = part[column].cast(pl.Float64).to_numpy()
            c = cluster_contrast(y, np.zeros(len(y), np.int64), np.array([1.0]), cluster)
            assert math.isclose(row[column], y.mean(), rel_tol=1e-5)
            assert math.isclose(row[f"{column}_low"], c["ci_low"], rel_tol=1e-4, abs_tol=1e-6)
        lo, hi, _ = cluster_wilson(part["eliminated"].cast(pl.Float64).to_numpy(), cluster)
        assert math.isclose(row["eliminated_low"], lo, abs_tol=1e-5)
        assert math.isclose(row["eliminated_high"], hi, abs_tol=1e-5)
    dist = _csv(built, "end_state_distributions").filter(pl.col("measure") == "irradiation")
    want = rows.group_by("players", "irradiation").len().sort("players", "irradiation")
    assert dist.sort("players", "value")["count"].to_list() == want["len"].to_list()


def test_chunk_by_chunk_equals_all_rows_at_once(runs, rows):
    """The report reads one chunk at a time; its tables equal those of every row at once."""
    chunks = [
        pl.read_parquet(f).with_columns(pl.lit(i, pl.Int16).alias("run"))
        for i, d in enumerate(runs)
        for f in chunk_files(d)
    ]
    assert len(chunks) == 8
    streamed = report.analyse(iter(chunks))
    whole = report.analyse(iter([rows]))

    def same(a: pl.DataFrame, b: pl.DataFrame) -> bool:
        """Equal, the floats up to their summation order (chunk sums against one sum)."""
        floats = pl.col(pl.Float64)
        return a.select(pl.exclude(pl.Float64)).equals(b.select(pl.exclude(pl.Float64))) and np.allclose(
            a.select(floats).to_numpy(), b.select(floats).to_numpy(), equal_nan=True
        )

    for by in report.BY:
        assert same(streamed.wins[by], whole.wins[by])
    for by in report.END_BY:
        assert same(streamed.end_state[by], whole.end_state[by])
    assert same(streamed.shared, whole.shared) and same(streamed.length_summary, whole.length_summary)


def test_rules_and_placeholders_name_the_manifests(built, runs):
    md = (built / "report.md").read_text()
    listed = _csv(built, "placeholders")
    for run in runs:
        spec = json.loads((run / "manifest.json").read_text())["spec"]
        assert spec["placeholders"], "the default rules use placeholders (layouts, tiles, die)"
        mine = listed.filter(pl.col("players") == spec["players"])["placeholder"].to_list()
        assert mine == spec["placeholders"]
        for key in spec["placeholders"]:
            assert f"`{key}`" in md  # in the warning at the top
        assert f"Layout, {spec['players']} players: the default layout" in md
    rules = json.loads((runs[0] / "manifest.json").read_text())["spec"]
    assert f"Rules id: `{rules['rules_id']}`" in md
    assert "Species mode (SP1): **plain**" in md and "Events (V1): **off**" in md
    assert "Die (D1): **d4**" in md and "§14 flags not at their default: none" in md


def test_gene_colours_and_event_order_appear_once_the_results_have_them(rows, tmp_path, runs):
    """The sections the engine cannot feed yet: they appear by themselves once the columns exist
    (genes_Y, genes_P, genes_R, genes_B: int8; event_order: list<int8>)."""
    rng = np.random.default_rng(3)
    game_orders = {g: rng.permutation(12).astype(np.int8).tolist() for g in rows["game"].unique().to_list()}
    more = rows.with_columns(
        *(pl.Series(c, rng.integers(0, 4, len(rows)).astype(np.int8)) for c in outcomes.GENE_COLUMNS),
        pl.Series("event_order", [game_orders[g] for g in rows["game"]], dtype=pl.List(pl.Int8)),
    )
    manifests = [json.loads((r / "manifest.json").read_text()) for r in runs]
    for m in manifests:
        m["spec"]["rules"]["flags"]["events"] = True
    deck = manifests[0]["spec"]["rules"]["events"]["deck"]
    tables = report.analyse(iter([more]), [c["name"] for c in deck])
    page = report.Page(tmp_path / "r")
    report.write(page, tables, manifests, runs)
    md = page.markdown()
    assert "## Gene colours held" in md and "## Event order" in md
    genes = pl.read_csv(tmp_path / "r" / "tables" / "genes_held_by_species.csv")
    want = (
        more.group_by("players", "species")
        .agg(pl.col("genes_R").cast(pl.Float64).mean())
        .sort("players", "species")
    )
    assert np.allclose(genes.sort("players", "species")["genes_R"], want["genes_R"])
    cards = pl.read_csv(tmp_path / "r" / "tables" / "event_cards.csv")
    # a card at position k of the order is revealed in round k + 2 if the game got that far (V2)
    first = more.group_by("players", "game").agg(pl.col("event_order").first(), pl.col("rounds").first())
    revealed = first.explode("event_order").with_columns(
        pl.int_range(pl.len()).over("players", "game").alias("k")
    )
    revealed = revealed.filter(pl.col("k") < pl.col("rounds") - 1)
    assert cards["games"].sum() == len(revealed)
    assert set(cards["name"]) <= {c["name"] for c in deck}
    first_species = pl.read_csv(tmp_path / "r" / "tables" / "event_first_species.csv")
    assert first_species["games"].sum() == len(more)  # every game of these runs reaches round 2
    # without the columns: no such sections, and events on with no order says so
    plain = report.analyse(iter([rows.drop(outcomes.GENE_COLUMNS)]))
    page = report.Page(tmp_path / "s")
    report.write(page, plain, manifests, runs)
    md = page.markdown()
    assert "## Gene colours held" not in md and "no `event_order` column" in md


def refused(monkeypatch, capsys, *args: object) -> str:
    """``soup ARGS`` as the console runs it (sim.cli.app.main): exit 2 and one line; the line."""
    from sim.cli import app as cli

    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["soup", *(str(a) for a in args)])
    with pytest.raises(SystemExit) as e:
        cli.main()
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1, err
    return err[0]


def test_refusals_are_one_line(runs, tmp_path, monkeypatch, capsys):
    house = tmp_path / "d6.toml"
    house.write_text("[flags]\ndie_sides = 6\n")
    other = tmp_path / "d6"
    soup(
        "simulate",
        "--game",
        "chromosome",
        "--players",
        2,
        "--games",
        20,
        "--rules",
        house,
        "--out",
        other,
        "-q",
    )
    line = refused(monkeypatch, capsys, "report", runs[0], other, "--out", tmp_path / "x")
    assert "different rules" in line and not (tmp_path / "x").exists()
    line = refused(monkeypatch, capsys, "report", runs[0], "--out", tmp_path / "x", "--equilibrium", tmp_path)
    assert "--equilibrium" in line
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    line = refused(monkeypatch, capsys, "report", runs[0], "--out", tmp_path / "mine")
    assert "not a soup report" in line and (tmp_path / "mine" / "notes.txt").exists()
    assert "twice" in refused(monkeypatch, capsys, "report", runs[0], runs[0], "--out", tmp_path / "x")
    assert "would replace the run directory" in refused(
        monkeypatch, capsys, "report", runs[0], "--out", runs[0]
    )
    # a report of the d6 run alone names its die and flag; a second one replaces the first
    out = tmp_path / "d6-report"
    soup("report", other, "--out", out, "-q")
    soup("report", other, "--out", out, "-q")
    md = (out / "report.md").read_text()
    assert "Die (D1): **d6**" in md and "`die_sides = 6`" in md and "Small sample" in md
    assert "5 → Y, 6 → P" in md


def test_a_manifest_that_disagrees_with_its_chunks_is_refused(runs, tmp_path, monkeypatch, capsys):
    """Issue 35.4: the manifest-vs-chunks check is every game's (analysis.report_runs), not only
    Ursuppe's: a spec.games edited below the games of the chunks is one line, nothing written."""
    run = tmp_path / "edited"
    shutil.copytree(runs[0], run)
    doc = json.loads((run / "manifest.json").read_text())
    doc["spec"]["games"] = CHUNK  # over GAMES games of chunks
    (run / "manifest.json").write_text(json.dumps(doc))
    line = refused(monkeypatch, capsys, "report", run, "--out", tmp_path / "x")
    # the first chunk already disagrees: 120 games would be chunks of 90 and 30 (ChunkLayout)
    assert "manifest.json" in line and "chunks.0.games is 120, expected 90" in line
    assert "does not agree with its chunks" in line
    assert not (tmp_path / "x").exists()


def test_an_interrupted_report_leaves_the_old_one(runs, tmp_path, monkeypatch):
    out = tmp_path / "report"
    report.build_report(runs[:1], out)
    before = (out / "report.md").read_text()

    def broken(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "section_end_state", broken)
    with pytest.raises(KeyboardInterrupt):
        report.build_report(runs, out)
    assert (out / "report.md").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]  # no temporary left beside it


def test_the_manifest_names_the_conditions_of_its_figures(runs):
    """Issue 23.4: a run's manifest names its layout, tile table, species mode, die and events."""
    for run in runs:
        spec = json.loads((run / "manifest.json").read_text())["spec"]
        assert spec["layout"]["source"] == "default" and len(spec["layout"]["tiles"]) in (15, 19)
        assert spec["tile_table"] == "default" and spec["species_mode"] == "plain"
        assert spec["die"] == {"sides": 4, "fate_values": spec["rules"]["die"]["fate_values"][:4]}
        assert spec["events"] is None
