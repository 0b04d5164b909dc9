"""The on-disk compile cache is keyed by the files the kernels depend on, and only by those: editing
a Python-side module keeps the compiled engine, editing a kernel module or one it imports does not.
Every edit is made in a temporary copy of the tree."""

import shutil
from pathlib import Path

import pytest

from sim import jit

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def tree(tmp_path):
    """A copy of the kernel packages (sources and data files, no caches)."""
    for package in jit._KERNEL_PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def _append(path: Path, text: str = "\n# edited\n") -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_copy_hashes_like_the_tree(tree):
    assert jit._kernel_source_hash(tree) == jit._kernel_source_hash(ROOT)


@pytest.mark.parametrize(
    "path",
    [
        "sim/jit.py",  # the kernel decorator and the by-reference models
        "sim/ursuppe/game.py",  # kernels
        "sim/ursuppe/phases/phase1_movement_feeding.py",  # kernels, in a subpackage
        "strategies/policy.py",  # kernels in the other package
        "sim/ursuppe/genes.py",  # constants a kernel module imports
        "sim/ursuppe/rules.py",  # the Rules NamedTuple (field types), imported by state.py
        "sim/ursuppe/meal_shapes.py",  # imported by rules.py only: transitively
        "strategies/params.py",  # parameter columns, imported by policy.py
        "sim/ursuppe/default_rules.toml",  # the rules the field types are read from
        "sim/ursuppe/__init__.py",  # a package run by every import below it
    ],
)
def test_kernel_dependencies_change_the_hash(tree, path):
    before = jit._kernel_source_hash(tree)
    _append(tree / path)
    assert jit._kernel_source_hash(tree) != before


@pytest.mark.parametrize(
    "path",
    [
        "sim/runner.py",
        "sim/threads.py",
        "sim/cli.py",
        "sim/ursuppe/simulation.py",
        "sim/ursuppe/batch.py",
        "sim/ursuppe/bench.py",
        "sim/ursuppe/scenario.py",
        "sim/ursuppe/trace.py",
        "sim/ursuppe/play.py",
    ],
)
def test_python_side_modules_keep_the_hash(tree, path):
    assert (tree / path).exists()
    before = jit._kernel_source_hash(tree)
    _append(tree / path)
    assert jit._kernel_source_hash(tree) == before


def test_a_module_becomes_a_dependency_once_a_kernel_module_imports_it(tree):
    before = jit._kernel_source_hash(tree)
    _append(tree / "sim/runner.py")
    assert jit._kernel_source_hash(tree) == before
    _append(tree / "sim/ursuppe/board.py", "\nfrom sim import runner  # noqa\n")
    with_import = jit._kernel_source_hash(tree)
    assert with_import != before
    _append(tree / "sim/runner.py")
    assert jit._kernel_source_hash(tree) != with_import


def test_relative_and_function_level_imports_are_followed(tree):
    _append(tree / "sim/ursuppe/board.py", "\ndef _later():\n    from . import trace  # noqa\n")
    before = jit._kernel_source_hash(tree)
    _append(tree / "sim/ursuppe/trace.py")
    assert jit._kernel_source_hash(tree) != before


def test_a_new_kernel_module_is_found(tree):
    (tree / "sim/ursuppe/extra.py").write_text(
        "from sim.jit import kernel\nfrom sim.ursuppe import scenario\n"
    )
    before = jit._kernel_source_hash(tree)
    _append(tree / "sim/ursuppe/scenario.py")
    assert jit._kernel_source_hash(tree) != before
