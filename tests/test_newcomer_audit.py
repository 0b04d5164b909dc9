"""The second newcomer audit (issue 21): no answer that misleads. Each test reproduces what a new
user met (an exit 0 with a wrong or meaningless answer, files written where they should not be,
a silent interrupt or first run) and runs the CLI as the user does: the installed ``soup`` in a
subprocess."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from sim import jit
from sim.ursuppe.rules.book import load_rules
from tests import processes
from tests.interrupting import soup_interrupted
from tests.test_cli import ROOT, soup, soup_exe
from tests.test_trustworthy_runs import _one_line_error


def _nothing_written(path: Path) -> None:
    assert not path.exists(), sorted(p.name for p in path.iterdir())


# --- 2: a gene that cannot be in play is a one-line error; --each covers the genes in play ------


@pytest.mark.parametrize(
    "args",
    [
        ["ablate", "--gene", "Social Gene"],  # an extra gene, the module off
        ["ablate", "--gene", "Intelligence", "--gene", "Glutton"],  # one of a set
        ["tune", "--params", "gene_value.Glutton"],
        ["tune", "--params", "default,gene_value.Social Gene"],
    ],
)
def test_a_gene_not_in_play_is_refused(tmp_path, args):
    out = tmp_path / "out"
    line = _one_line_error(
        soup(*args, "--games" if args[0] == "ablate" else "--budget", "100", "--out", str(out))
    )
    gene = "Social Gene" if "Social" in " ".join(args) else "Glutton"
    assert gene in line and "cannot be in play" in line and "flags.extra_genes" in line
    assert "genes in play at 4 players: Intelligence" in line
    _nothing_written(out)


def test_ablate_each_plans_only_the_genes_in_play():
    book = load_rules()
    in_play = book.genes_in_play(4)
    assert len(in_play) == 20 and "Social Gene" not in in_play  # the 26 extra genes are out
    extra = book.derive({"flags": {"extra_genes": True}})
    assert {"Social Gene", "Population Explosion"} <= set(extra.genes_in_play(4))


def test_ablate_each_runs_one_arm_per_gene_in_play(tmp_path):
    """Few games, but every arm: the summary has one row per gene in play and no nan."""
    out = tmp_path / "each"
    r = soup(
        "ablate", "--each", "--games", "24", "--chunk-size", "24", "--threads", "1", "-q", "--out", str(out)
    )
    assert r.returncode == 0, r.stderr
    arms = sorted(p.name for p in out.iterdir() if p.name.startswith("minus-"))
    assert len(arms) == len(load_rules().genes_in_play(4))
    assert not any("social" in a for a in arms)
    assert "nan" not in (out / "ablation-summary.md").read_text()


# --- 1: an empty or zero value given is never read as "the default" -----------------------------


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["simulate", "--strategies", ""], "--strategies"),
        (["compare", "--rules", "default", "--strategies", ","], "--strategies"),
        (["tune", "--against", ""], "--against"),
        (["tune", "--gene-value", "--genes", ","], "--genes"),
        (["tune", "--genes", "Tentacle"], "--genes"),  # only read with --gene-value: never ignored
        (["tune", "--design", "holding"], "--design"),
        (["tune", "--sigma", "0"], "--sigma"),
        (["simulate", "--backend", "ray", "--ray-address", ""], "--ray-address"),
    ],
)
def test_an_empty_value_is_an_error_not_the_default(tmp_path, args, option):
    out = tmp_path / "out"
    r = soup(*args, "--out", str(out))
    assert option in _one_line_error(r)
    _nothing_written(out)


# --- 7: a command that writes a directory refuses another command's ------------------------------


# The tests of a module fixture's run are one xdist group (pyproject's --dist loadgroup): one worker
# plays the run once, not each worker.
SIM_RUN = pytest.mark.xdist_group("newcomer-sim-run")
MIXED_RUNS = pytest.mark.xdist_group("newcomer-mixed-runs")


@pytest.fixture(scope="module")
def sim_run(tmp_path_factory) -> Path:
    """A small `soup simulate` run (4 players, 240 games in 2 chunks)."""
    out = tmp_path_factory.mktemp("sim") / "run"
    r = soup("simulate", "--games", "240", "--chunk-size", "120", "--threads", "1", "-q", "--out", str(out))
    assert r.returncode == 0, r.stderr
    return out


WRITERS = [
    ["tune", "--budget", "100"],
    ["tune", "--gene-value", "--genes", "Tentacle", "--budget", "100"],
    ["tournament", "--strategies", "greedy,random", "--games", "48"],
    [
        "compare",
        "--rules",
        "default",
        "--rules",
        str(ROOT / "tests/scenarios/../../sim/ursuppe/rules/default_rules.toml"),
    ],
    ["ablate", "--gene", "Tentacle", "--games", "24"],
    ["verdict", "--gene", "Tentacle", "--games", "24", "--decks", "1"],
    ["calibrate", "--gene", "Tentacle", "--games", "24"],
]


@SIM_RUN
@pytest.mark.parametrize("args", WRITERS, ids=lambda a: " ".join(a[:2]))
def test_out_naming_a_run_directory_is_refused(sim_run, args):
    before = sorted(p.name for p in sim_run.iterdir())
    for out in (sim_run, sim_run / "inside"):
        line = _one_line_error(soup(*args, "--out", str(out)))
        assert "is a soup run directory" in line or "inside" in line, line
        assert "choose a new or empty --out" in line
    assert sorted(p.name for p in sim_run.iterdir()) == before  # nothing written among its chunks


def test_out_holding_another_commands_output_is_refused(tmp_path):
    out = tmp_path / "t"
    args = ["--strategies", "greedy,random", "--games", "48", "--threads", "1", "-q", "--out", str(out)]
    assert soup("tournament", *args).returncode == 0
    assert (out / ".soup-output").read_text() == "soup tournament\n"
    again = soup("tournament", *args)  # the same command again: reuses its runs
    assert again.returncode == 0, again.stderr
    line = _one_line_error(soup("ablate", "--gene", "Tentacle", "--games", "24", "--out", str(out)))
    assert "holds the output of soup tournament, not of soup ablate" in line
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    line = _one_line_error(soup("tournament", *args[:-1], str(tmp_path / "other")))
    assert "holds other files (notes.txt)" in line


# --- 9: every argument is checked before the engine loads ----------------------------------------

_LOADED = """
import sys
import time
sys.argv = ["soup", *{args!r}]
from sim.cli import app as cli
try:
    cli.main()
except SystemExit as e:
    code = e.code
print(code, sorted(m for m in ("numba", "sim.ursuppe.engine.round", "scipy", "ray") if m in sys.modules))
"""


@pytest.mark.parametrize(
    "args",
    [
        ["tournament", "--games", "-5"],
        ["tournament", "--backend", "bogus"],
        ["tournament", "--strategies", "greedy,nope"],
        ["simulate", "--seating", "x"],
        ["simulate", "--backend", "local", "--ray-address", "10.0.0.1:6379"],
        ["compare", "--games", "1"],
        ["compare", "--rules", "nope.toml"],
        ["ablate", "--gene", "Nope"],
        ["ablate", "--each", "--players", "7"],
        ["tune", "--params", "nope"],
        ["tune", "--against", "greedy,greedy"],
        ["verdict", "--gene", "Nope"],
        ["calibrate", "--gene", "Tentacle", "--values", "x"],
    ],
    ids=" ".join,
)
def test_bad_arguments_are_refused_before_the_engine_loads(args):
    r = processes.run([sys.executable, "-c", _LOADED.format(args=args)], cwd=ROOT)
    assert r.stdout.split()[0] == "2", r.stdout + r.stderr
    assert r.stdout.strip().endswith("[]"), r.stdout  # no numba, no engine, no scipy, no Ray
    assert r.stderr.count("soup: error:") == 1 and "Traceback" not in r.stderr


# --- 4: a hand-edited manifest is refused by soup report ------------------------------------------


@SIM_RUN
def test_report_refuses_a_manifest_that_disagrees_with_its_chunks(sim_run, tmp_path):
    run = tmp_path / "edited"
    shutil.copytree(sim_run, run)
    doc = json.loads((run / "manifest.json").read_text())
    doc["spec"]["games"] = 120  # over 240 games of chunks: "240 of 120 games analysed"
    (run / "manifest.json").write_text(json.dumps(doc))
    line = _one_line_error(soup("report", str(run), "--out", str(tmp_path / "rep")))
    # 120 games would be chunks of 90 and 30 (the last split off short: ChunkLayout)
    assert "manifest.json" in line and "chunks.0.games is 120, expected 90" in line
    assert "does not agree with its chunks" in line
    _nothing_written(tmp_path / "rep")
    doc["spec"]["games"] = 240
    doc["chunks"]["1"]["first_game"] = 0  # the counts, not only the spec
    (run / "manifest.json").write_text(json.dumps(doc))
    line = _one_line_error(soup("report", str(run), "--out", str(tmp_path / "rep")))
    assert "chunks.1.first_game is 0, expected 120" in line


# --- 8: Ctrl-C says what the whole command kept, for every command --------------------------------


@SIM_RUN
def test_ctrl_c_in_report_says_nothing_was_written(sim_run, tmp_path, monkeypatch, capsys):
    """typer turns KeyboardInterrupt into a silent exit 130 before soup's handler runs: the
    command's own line, and main's line for a command that has none."""
    import analysis.ursuppe.report
    from sim.cli import app as cli
    from sim.cli import experiments as cli_experiments
    from sim.cli import support as cli_support

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(analysis.ursuppe.report, "build_report", interrupt)
    monkeypatch.setattr(cli_support, "INTERRUPT_REPORTED", False)
    out = tmp_path / "rep"
    monkeypatch.setattr(sys, "argv", ["soup", "report", str(sim_run), "--out", str(out)])
    with pytest.raises(SystemExit) as e:
        cli.main()
    assert e.value.code == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("soup: interrupted: no report was written")
    assert f"the same command writes it: soup report {sim_run} --out {out}" in err[0]
    _nothing_written(out)
    monkeypatch.setattr(cli_support, "INTERRUPT_REPORTED", False)
    monkeypatch.setattr(cli_experiments, "strategy_list", interrupt)  # where no handler of its own runs
    monkeypatch.setattr(sys, "argv", ["soup", "tournament", "--out", str(tmp_path / "t")])
    with pytest.raises(SystemExit) as e:
        cli.main()
    assert e.value.code == 130
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("soup: interrupted:") and "the same command starts again: soup tournament" in line


@pytest.mark.slow
def test_ctrl_c_in_a_tournament_says_what_the_whole_tournament_kept(tmp_path):
    out = tmp_path / "t"
    args = ["tournament", "--strategies", "greedy,random,breeder", "--games", "2400", "--chunk-size", "1000"]
    args += ["--threads", "1", "-q", "--no-plot", "--out", str(out)]
    p = soup_interrupted(args, ROOT, where="/01-")  # in the second pair, after two chunks
    stderr = p.stderr
    assert p.returncode == 130 and "Traceback" not in stderr, stderr
    (line,) = [x for x in stderr.splitlines() if x.startswith("soup: interrupted")]
    assert line.startswith("soup: interrupted: 1 of 3 pairs complete and ")
    assert f"of 2,400 games of pair 2 (greedy vs breeder) kept in {out};" in line
    assert f"the same command resumes: soup {' '.join(args)}" in line
    r = soup(*args)
    assert r.returncode == 0, r.stderr
    assert len(list(out.glob("0*-*/manifest.json"))) == 3


# --- 10: a first run's compile notice is the first thing it prints --------------------------------


def _first_run(tmp_path: Path, args: list[str], helpers: int) -> subprocess.CompletedProcess:
    """``soup ARGS`` where the user's cache is ``tmp_path/cache``; returns the finished run after
    checking its first line is the compile notice and that it says how long the compile took."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "SOUP_JIT_HELPERS": str(helpers)}
    env.pop("NUMBA_CACHE_DIR", None)
    r = processes.run([soup_exe(), *args], env=env, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr
    first = r.stderr.splitlines()[0]
    assert first.startswith("soup: compiling the engine for this machine (first run only;"), r.stderr
    assert "how long is not known" in first
    assert "soup: engine compiled in" in r.stderr
    code = "from sim import jit; print(jit.expected_compile_seconds())"
    seconds = processes.run([sys.executable, "-c", code], env=env, cwd=ROOT)
    assert float(seconds.stdout) > 0  # the next first run on this machine knows how long
    return r


@pytest.mark.slow
def test_a_first_run_prints_the_notice_first_and_compiles_on_two_cores(tmp_path):
    """An empty kernel cache (a fresh clone on a new machine): the notice comes before anything
    else, says it does not know how long, and the time it took follows. A helper process
    compiled part of the engine (sim.jit_sharing), and the games are those of the warm cache.
    Played by Chromosome's engine (115 kernels; its first compile less than half of Ursuppe's
    CPU, the test's whole cost): the notice, the helpers and the marker are the kit's, the same for every
    game with enough kernels to share (jit.SHARE_MIN_KERNELS). Ursuppe's notice on a first run:
    test_a_first_run_of_a_tournament_prints_the_notice_first."""
    args = ["simulate", "--game", "chromosome", "--games", "24", "--chunk-size", "24", "--threads", "1"]
    _first_run(tmp_path, [*args, "--out", str(tmp_path / "out")], helpers=1)
    cache = tmp_path / "cache/soup/numba"
    assert not list(cache.glob("ursuppe-*")), sorted(cache.iterdir())  # compiles the game it plays only
    (marker,) = cache.glob(f"chromosome-*/{jit._MARKER}")
    record = json.loads(marker.read_text())
    assert 0 < record["compiled_here"] < record["kernels"], record  # the helper compiled the rest
    assert record["compile_seconds"] > 0
    warm = soup(*args, "-q", "--out", str(tmp_path / "warm"))
    assert warm.returncode == 0, warm.stderr
    chunks = [sorted(p.read_bytes() for p in (tmp_path / d).glob("chunk-*")) for d in ("out", "warm")]
    assert chunks[0] and chunks[0] == chunks[1]


@pytest.mark.slow
@pytest.mark.skipif(jit.PLAIN_PYTHON, reason="nothing compiles in the plain-Python path")
def test_a_first_run_of_a_tournament_prints_the_notice_first(tmp_path):
    """The notice comes first in another command too. Cheaply: the engine's compiled kernels are
    in the cache but not marked complete, and the kit's are missing (compiled in a second)."""
    import sim.ursuppe.engine.round  # noqa: F401  (the engine in the suite's cache)

    directories = jit.cache_directories()
    if "ursuppe" not in directories:
        pytest.skip("no writable kernel cache")
    cache = tmp_path / "cache/soup/numba"
    copy = cache / directories["ursuppe"].name
    shutil.copytree(directories["ursuppe"], copy, copy_function=os.link)
    (copy / jit._MARKER).unlink(missing_ok=True)
    args = ["tournament", "--strategies", "greedy,random", "--games", "48", "--no-plot", "--threads", "1"]
    _first_run(tmp_path, [*args, "--out", str(tmp_path / "out")], helpers=1)
    record = json.loads((copy / jit._MARKER).read_text())  # marked complete again, by loads only:
    assert record["compiled_here"] == 0 and record["compile_seconds"] is None  # no compile time


# --- the smaller things a user sees ----------------------------------------------------------------


def test_next_hint_is_shell_quoted(tmp_path):
    out = tmp_path / "my runs" / "run 1"
    r = soup("simulate", "--games", "24", "--chunk-size", "24", "--threads", "1", "-q", "--out", str(out))
    assert r.returncode == 0, r.stderr
    hint = next(x for x in r.stdout.splitlines() if x.startswith("Next: "))
    assert hint.startswith(f"Next: soup report '{out}'")


def test_extra_genes_with_two_players_names_the_rules_file(tmp_path):
    house = tmp_path / "extra.toml"
    house.write_text("[flags]\nextra_genes = true\n")
    line = _one_line_error(soup("play", "--players", "2", "--variant", "dummy", "--rules", str(house)))
    assert f"{house}: flags.extra_genes" in line and "--variant dummy" in line


def _scenario(tmp_path: Path, edit) -> Path:
    doc = json.loads((ROOT / "tests/scenarios/XG-22_phd_gives_up_intelligence.json").read_text())
    edit(doc)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    return path


def test_scenario_mistakes_say_what_is_wrong(tmp_path):
    def held_and_in_deck(doc):
        doc["state"][1]["genes"] = ["Alarm"]
        doc["extra_deck"] = ["Alarm"]

    line = _one_line_error(soup("scenario", str(_scenario(tmp_path, held_and_in_deck))))
    assert "extra_deck[0]: Alarm is held by a player" in line
    line = _one_line_error(soup("scenario", str(_scenario(tmp_path, lambda d: d.pop("run")))))
    assert "run: missing" in line and "phase1" in line


def test_extends_naming_a_directory_says_so(tmp_path):
    (tmp_path / "s.toml").write_text('extends = "."\n')
    line = _one_line_error(soup("play", "--strategies", str(tmp_path / "s.toml")))
    assert "is a directory" in line and "no such file" not in line


def test_play_text_states_seed_seats_and_rules():
    r = soup("play", "--players", "3", "--seed", "42", "--strategies", "greedy,random,breeder")
    assert r.returncode == 0, r.stderr
    first, seats = r.stdout.splitlines()[:2]
    assert first.startswith("soup play: seed 42, 3 players, rules ")
    assert "P0 greedy (start space" in seats and "P1 random" in seats and "P2 breeder" in seats


def test_counts_agree_with_their_nouns():
    from sim.ursuppe.tools.trace import describe

    e = {"type": "score", "player": 0, "amoeba": None, "advance": 1, "amoebas": 1, "cards": 1, "from": 3}
    assert "(1 amoeba, 1 card)" in describe({**e, "to": 4})
    assert "(2 amoebas, 0 cards)" in describe({**e, "amoebas": 2, "cards": 0, "to": 4})


@SIM_RUN
def test_report_has_contents_whole_medians_and_a_word_for_tiny_shares(sim_run, tmp_path):
    from analysis.tables import fmt, share_cell

    r = soup("report", str(sim_run), "--out", str(tmp_path / "rep"))
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "rep" / "report.md").read_text()
    html = (tmp_path / "rep" / "report.html").read_text()
    contents = next(x for x in md.splitlines() if x.startswith("**Contents:**"))
    assert "[Seat advantage (S5)](#seat-advantage-s5)" in contents and 'id="seat-advantage-s5"' in html
    assert fmt(9.0, "median") == "9" and fmt(8.5, "median") == "8.5"
    assert share_cell(0.0002, 3) == "<0.001 (3 players)" and share_cell(0.0, 0) == "none"
    assert ".00 |" not in md.split("| median |")[1].split("\n\n")[0]  # the game-length table


@SIM_RUN
def test_full_disk_under_report_out_names_the_report(sim_run, tmp_path):
    """A 256 kB file system (tmpfs, needs root): the report's figures do not fit."""
    with processes.tmpfs(tmp_path / "disk", "size=256k") as mount:
        out = mount / "full2" / "rep"
        line = _one_line_error(soup("report", str(sim_run), "--out", str(out)), code=1)
        assert f"cannot write the report {out}" in line and "No space left on device" in line
        assert not out.exists()


# --- 11: soup report reads one chunk at a time, says what it does, and gives the same tables -------


def _same(streamed: pl.DataFrame, memory: pl.DataFrame, name: str) -> None:
    def text(df: pl.DataFrame) -> pl.DataFrame:
        return df.with_columns(
            pl.col(c).cast(pl.String) for c, t in df.schema.items() if t in (pl.Categorical,)
        )

    a, b = text(streamed), text(memory)
    assert a.columns == b.columns and a.height == b.height, name
    for c in a.columns:
        if a[c].dtype.is_numeric() and b[c].dtype.is_numeric():
            x, y = a[c].cast(pl.Float64).to_numpy(), b[c].cast(pl.Float64).to_numpy()
            assert (np.isnan(x) == np.isnan(y)).all(), (name, c)
            ok = ~np.isnan(x)
            assert np.allclose(x[ok], y[ok], rtol=1e-9, atol=1e-12), (name, c)
        else:
            assert a[c].cast(pl.String).to_list() == b[c].cast(pl.String).to_list(), (name, c)


@pytest.fixture(scope="module")
def mixed_runs(tmp_path_factory) -> list[Path]:
    """A 4-player run of 3 chunks and a 3-player run of another pool, 2 chunks."""
    base = tmp_path_factory.mktemp("mixed")
    runs = [base / "four", base / "three"]
    for out, extra in zip(
        runs,
        (["--games", "720"], ["--games", "480", "--players", "3", "--pool", "greedy,random"]),
        strict=True,
    ):
        r = soup("simulate", *extra, "--chunk-size", "240", "--threads", "1", "-q", "--out", str(out))
        assert r.returncode == 0, r.stderr
    return runs


@MIXED_RUNS
def test_streamed_tables_are_the_in_memory_tables(mixed_runs):
    from analysis import win_rates
    from analysis.ursuppe import deck_order, genes
    from analysis.ursuppe import report as R
    from analysis.ursuppe.streamed import analyse_runs

    manifests = [R._read_manifest(d) for d in mixed_runs]
    names = genes.run_gene_names(manifests)
    deck = manifests[0]["spec"]["rules"]["environment"]["deck"]
    streamed = analyse_runs(mixed_runs, manifests, names, deck=deck)
    rows = win_rates.load_results(*mixed_runs).collect()
    memory = R.analyse(rows, names)
    for field in memory.__dataclass_fields__:
        _same(getattr(streamed.analyses, field), getattr(memory, field), field)
    featured = deck_order.deck_features(rows, deck)
    for (feature, by), table in streamed.deck_effects.items():
        _same(table, deck_order.deck_effects(featured, feature, by), f"{feature} by {by}")
    for feature, table in streamed.deck_outcomes.items():
        _same(table, deck_order.deck_outcomes(featured, feature), feature)
    for among in ("winners", "all"):
        _same(
            genes.gene_sets_from_counts(streamed.gene_set_counts, names, 15, among),
            genes.frequent_gene_sets(rows, "held", 15, among, names),
            among,
        )
    assert streamed.counts == R.RunCounts.of(rows)


@MIXED_RUNS
def test_report_never_holds_every_row_and_shows_progress(mixed_runs, tmp_path, monkeypatch):
    from analysis import win_rates
    from analysis.ursuppe import report as R

    def every_row(*args, **kwargs):
        raise AssertionError("soup report loaded every row of the runs")

    monkeypatch.setattr(win_rates, "load_results", every_row)
    steps = []
    R.build_report(mixed_runs, tmp_path / "rep", progress=lambda step, done, total: steps.append(step))
    assert steps[0] == "reading 1/2" and "reading 2/2" in steps  # the deck's terciles, then the rest
    assert "synergy" in steps and steps[-1] == "writing"
    r = soup("report", *map(str, mixed_runs), "--out", str(tmp_path / "cli"))
    assert r.returncode == 0 and "reading the runs" in r.stderr and "sections" in r.stderr, r.stderr
    quiet = soup("report", *map(str, mixed_runs), "--out", str(tmp_path / "cli"), "-q")
    assert quiet.returncode == 0 and quiet.stderr == ""
