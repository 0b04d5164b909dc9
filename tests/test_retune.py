"""soup compare/ablate --retune (issue 13, point 2): every arm's strategies re-tuned under the
arm's own rules before the paired comparison. End to end through the CLI with tiny budgets: the
tables and the tuned files per arm, determinism, a planted truth (a house rule that makes
Division Rate harmful drives its re-tuned value down), ablate, and bad input in one line."""

import tomllib

import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli.app import app

# The slow tier (README: pytest -m "not slow" is the fast one); CI runs both. One xdist worker runs
# this module (pyproject's --dist loadgroup): its module fixture (a retuned comparison) is made once,
# not once on each worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("retune-compared")]

# A house rule that makes Division Rate harmful: a new amoeba costs 40 BP with it (6 without).
HARMFUL_DIVISION_RATE = "[economy]\ndivision_cost_division_rate = 40\n"


def retuned(budget, params, games_per_candidate, out):
    """The --retune options, on 2 threads into ``out``, quiet."""
    tune = [
        "--retune-budget",
        budget,
        "--retune-params",
        params,
        "--retune-games-per-candidate",
        games_per_candidate,
    ]
    return ["--retune", *tune, "--threads", "2", "--out", out, "-q"]


def cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def harmful(tmp_path):
    """The house-rules file that makes Division Rate harmful."""
    house = tmp_path / "harmful.toml"
    house.write_text(HARMFUL_DIVISION_RATE)
    return house


def compare_args(tmp_path, out):
    """soup compare of the default rules and the harmful ones, re-tuned tiny but robust: one
    parameter, population 4 (+ start and incumbent), 240 games a candidate, 5 generations per
    strategy and arm."""
    tiny = retuned(7200, "gene_value.Division Rate", 240, out)
    return ["compare", "--rules", harmful(tmp_path), "--games", "240", "--pool", "breeder,greedy", *tiny]


def compare(tmp_path, out_name):
    out = tmp_path / out_name
    r = cli(*compare_args(tmp_path, out))
    assert r.exit_code == 0, r.output
    return out, r


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    return compare(tmp_path_factory.mktemp("retune"), "out")


def gene_value(path, gene="Division Rate"):
    return tomllib.loads(path.read_text())["gene_value"][gene]


def test_compare_retune_writes_the_table_and_tuned_strategies_per_arm(compared):
    out, r = compared
    for arm in ("a", "b"):
        for name in ("breeder", "greedy"):
            path = out / "retune" / arm / f"{name}.toml"
            assert path.is_file()
            data = tomllib.loads(path.read_text())
            assert data["name"] == f"{name}-retuned" and data["extends"] == name
    table = pl.read_csv(out / "comparison.csv")
    assert set(table.filter(pl.col("family") == "win rate by strategy")["group"]) == {
        "breeder-retuned",
        "greedy-retuned",
    }
    md = (out / "comparison.md").read_text()
    assert "## Re-tuned parameters" in md and str(out / "retune" / "b" / "breeder.toml") in md
    assert "gene_value.Division Rate" in (out / "retune-changes.csv").read_text()
    assert "Re-tuned parameters" in r.output


def test_a_harmful_gene_is_valued_lower_by_the_arm_that_tuned_under_it(compared):
    """Planted truth: under B Division Rate makes amoebas cost 40 BP; breeder (which values it
    most, 10) re-tuned under B values it far lower than breeder re-tuned under A, and B's bots
    stop buying it."""
    out, _ = compared
    a, b = (gene_value(out / "retune" / arm / "breeder.toml") for arm in ("a", "b"))
    assert b < a - 5, (a, b)
    assert b < 0
    gene = pl.read_csv(out / "comparison.csv").filter(
        (pl.col("family") == "gene purchase rate") & (pl.col("group") == "Division Rate")
    )
    assert gene["b"][0] < 0.05 < gene["a"][0]


def test_compare_retune_is_deterministic_and_resumes(compared, tmp_path):
    out, _ = compared
    again, _ = compare(tmp_path, "again")
    for name in ("comparison.csv", "retune-changes.csv"):
        assert (again / name).read_text() == (out / name).read_text()
    for arm in ("a", "b"):
        for name in ("breeder", "greedy"):
            rel = f"retune/{arm}/{name}.toml"
            assert (again / rel).read_text() == (out / rel).read_text()
    # The same command on the finished output reuses the tunings and runs: the same table.
    before = (again / "comparison.csv").read_text()
    _, r = compare(tmp_path, "again")
    assert (again / "comparison.csv").read_text() == before


def test_ablate_gene_retune_runs(tmp_path):
    out = tmp_path / "abl"
    r = cli(
        "ablate",
        "--gene",
        "Division Rate",
        "--games",
        "48",
        "--pool",
        "greedy",
        *retuned(288, "gene_value.Intelligence", 24, out),
    )
    assert r.exit_code == 0, r.output
    for arm in ("baseline", "minus-division-rate"):
        assert (out / "retune" / arm / "greedy.toml").is_file()
    assert (out / "ablation.csv").is_file() and (out / "retune-changes.csv").is_file()
    assert "without Division Rate tuned strategies" in (out / "ablation.md").read_text()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--retune-budget", "10"], "--retune-budget: 10 games is too small"),
        (["--retune-games-per-candidate", "25"], "--retune-games-per-candidate: expected a multiple"),
        (["--retune-params", "gene_value.Nonsense"], "unknown gene"),
    ],
)
def test_bad_retune_input_is_one_line_and_exit_2(tmp_path, args, message):
    """Checked before anything is played or written; the --retune-* options need --retune."""
    out = tmp_path / "bad"
    r = cli("compare", "--rules", harmful(tmp_path), "--games", "10", "--out", out, "--retune", *args, "-q")
    assert r.exit_code == 2, r.output
    assert r.output.count("\n") == 1 and message in r.output, r.output
    assert not out.exists()


def test_ctrl_c_while_retuning_keeps_the_generations_and_the_same_command_continues(
    compared, tmp_path, monkeypatch
):
    """Ctrl-C after a few tuning generations: exit 130 with the command that continues; the
    continued run gives the tables of an uninterrupted one."""
    from sim.experiments import tuning as T  # the checkpointed loop every tuning runs on

    save = T.write_checkpoint
    calls = []

    def interrupting(out, state):
        save(out, state)
        calls.append(out)
        if len(calls) == 7:  # in the second tuning of arm A
            raise KeyboardInterrupt

    monkeypatch.setattr(T, "write_checkpoint", interrupting)
    out = tmp_path / "cut"
    args = compare_args(tmp_path, out)
    r = cli(*args)
    assert r.exit_code == 130 and "the same command continues" in r.output, r.output
    assert not (out / "comparison.csv").exists()
    monkeypatch.setattr(T, "write_checkpoint", save)
    r = cli(*args)
    assert r.exit_code == 0, r.output
    done, _ = compared
    assert (out / "comparison.csv").read_text() == (done / "comparison.csv").read_text()


def test_retune_options_need_retune(tmp_path):
    r = cli("ablate", "--gene", "Tentacle", "--retune-budget", "1000", "--out", tmp_path / "x", "-q")
    assert r.exit_code == 2 and r.output.count("\n") == 1 and "only with --retune" in r.output, r.output


def test_ablate_each_retune_lists_the_moves_per_arm(tmp_path):
    out = tmp_path / "each"
    r = cli(
        "ablate",
        "--each",
        "--games",
        "24",
        "--pool",
        "greedy,breeder",
        *retuned(400, "gene_value.Intelligence,division_base", 24, out),
    )
    assert r.exit_code == 0, r.output
    changes = pl.read_csv(out / "retune-changes.csv")
    assert {"strategy", "arm", "parameter", "baseline", "value", "diff", "moved"} <= set(changes.columns)
    assert changes.height > 0 and (changes["moved"] > 0).all()
    assert (out / "ablation-summary.md").is_file()
    assert (out / "retune" / "minus-tentacle" / "greedy.toml").is_file()


def test_the_clis_default_retune_budget_is_retunes():
    """sim.cli.experiments keeps its own copy (importing retune would load the engine for --help)."""
    from sim.cli.experiments import RETUNE_BUDGET
    from sim.ursuppe.experiments.retune import DEFAULT_BUDGET

    assert RETUNE_BUDGET == DEFAULT_BUDGET
