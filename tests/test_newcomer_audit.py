"""The second newcomer audit (issue 21): no answer that misleads. Each test reproduces what a new
user met (an exit 0 with a wrong or meaningless answer, files written where they should not be,
a silent interrupt or first run) and runs the CLI as the user does: the installed ``soup`` in a
subprocess."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim.ursuppe.rules import load_rules
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
