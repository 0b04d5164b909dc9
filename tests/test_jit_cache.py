"""The on-disk compile cache is keyed by the files the kernels depend on, and only by those: editing
a Python-side module keeps the compiled engine, editing a kernel module or one it imports does not.
Every edit is made in a temporary copy of the tree."""

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from sim import jit, jit_sharing
from tests import processes

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
        "sim/ursuppe/engine/round.py",  # kernels
        "sim/ursuppe/engine/phases/phase1_movement_feeding.py",  # kernels, in a subpackage
        "strategies/ursuppe/policy.py",  # kernels in the other package
        "sim/ursuppe/rules/genes.py",  # constants a kernel module imports
        "sim/ursuppe/rules/book.py",  # the Rules NamedTuple (field types), imported by state.py
        "sim/ursuppe/rules/meal_shapes.py",  # imported by rules.py only: transitively
        "strategies/ursuppe/params.py",  # parameter columns, imported by policy.py
        "sim/ursuppe/rules/default_rules.toml",  # the rules the field types are read from
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
        "sim/cli/app.py",
        "sim/ursuppe/simulation.py",
        "sim/ursuppe/engine/batch.py",
        "sim/ursuppe/tools/bench.py",
        "sim/ursuppe/tools/scenario.py",
        "sim/ursuppe/tools/trace.py",
        "sim/ursuppe/tools/play.py",
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
    _append(tree / "sim/ursuppe/engine/board.py", "\nfrom sim import runner  # noqa\n")
    with_import = jit._kernel_source_hash(tree)
    assert with_import != before
    _append(tree / "sim/runner.py")
    assert jit._kernel_source_hash(tree) != with_import


def test_relative_and_function_level_imports_are_followed(tree):
    _append(tree / "sim/ursuppe/engine/board.py", "\ndef _later():\n    from ..tools import trace  # noqa\n")
    before = jit._kernel_source_hash(tree)
    _append(tree / "sim/ursuppe/tools/trace.py")
    assert jit._kernel_source_hash(tree) != before


def test_a_new_kernel_module_is_found(tree):
    (tree / "sim/ursuppe/engine/extra.py").write_text(
        "from sim.jit import kernel\nfrom sim.ursuppe.tools import scenario\n\n\n"
        "@kernel\ndef f(x):\n    return x\n"
    )
    before = jit._kernel_source_hash(tree)
    _append(tree / "sim/ursuppe/tools/scenario.py")
    assert jit._kernel_source_hash(tree) != before
    assert ("sim.ursuppe.engine.extra", "f") in jit._scan(tree)[1]


def test_a_python_side_module_that_imports_jit_is_no_kernel_module(tree):
    """The command line imports sim.jit (engine_compiled) without defining kernels."""
    _append(tree / "sim/runner.py", "\nfrom sim import jit  # noqa\n")
    before = jit._kernel_source_hash(tree)
    _append(tree / "sim/runner.py")
    assert jit._kernel_source_hash(tree) == before


def test_parenthesised_imports_are_read():
    text = (
        "from sim.ursuppe.engine import (  # (a comment)\n    board,\n    tally as t,  # the tallies\n)\n"
        "import sim.ursuppe.engine.dice as d, os\n"
    )
    modules = jit._module_files(ROOT)
    found = jit._imported_modules(text, "sim.x", False, modules)
    assert found == {
        "sim",
        "sim.ursuppe",
        "sim.ursuppe.engine",
        "sim.ursuppe.engine.board",
        "sim.ursuppe.engine.tally",
        "sim.ursuppe.engine.dice",
    }


# engine_compiled: whether importing the engine will load it rather than compile it


def _python(code: str, **env) -> str:
    result = processes.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, **env},
        check=True,
    )
    return result.stdout.strip()


def test_each_game_has_its_own_cache_key(tree):
    """Editing one game changes its cache key only (issue 22.3): the kit's and the other game's
    stay, so they are not compiled again."""
    keys = {ns: jit._kernel_source_hash(tree, ns) for ns in ("ursuppe", "pig", jit.KIT)}
    _append(tree / "sim/pig/engine.py")
    assert jit._kernel_source_hash(tree, "pig") != keys["pig"]
    assert jit._kernel_source_hash(tree, "ursuppe") == keys["ursuppe"]
    assert jit._kernel_source_hash(tree, jit.KIT) == keys[jit.KIT]
    _append(tree / "sim/random_stream.py")  # the kit: every game's kernels call it
    assert jit._kernel_source_hash(tree, "ursuppe") != keys["ursuppe"]
    assert jit._kernel_source_hash(tree, "pig") != keys["pig"]


def test_namespaces():
    assert jit.namespace_of("sim.ursuppe.engine.state") == "ursuppe"
    assert jit.namespace_of("strategies.pig.policy") == "pig"
    assert jit.namespace_of("sim.random_stream") == jit.KIT
    assert set(jit.namespaces()) == {"ursuppe", "pig", "chromosome", jit.KIT}


def test_every_kernel_is_found_by_the_scan():
    """The completion mark needs the scan's kernels to be exactly those the engine compiles."""
    code = (
        "import sim.ursuppe.engine.round, sim.pig.engine; "
        "import sim.chromosome.engine.invariants, sim.chromosome.engine.rounds; "
        "import sim.chromosome.engine.radiation, sim.chromosome.engine.scoring, sim.chromosome.engine.batch; "
        "from sim import jit; "
        "print(sorted(jit._SEEN_KERNELS))"
    )
    seen = _python(code, NUMBA_DISABLE_JIT="1")
    assert seen == str(sorted(jit._scan(ROOT)[1]))


def test_engine_compiled_is_false_with_an_empty_cache(tmp_path):
    assert (
        _python("from sim import jit; print(jit.engine_compiled())", NUMBA_CACHE_DIR=str(tmp_path)) == "False"
    )


def test_engine_compiled_is_true_in_the_plain_python_path(tmp_path):
    code = "from sim import jit; print(jit.engine_compiled())"
    assert _python(code, NUMBA_DISABLE_JIT="1", NUMBA_CACHE_DIR=str(tmp_path)) == "True"


@pytest.mark.skipif(jit.PLAIN_PYTHON, reason="nothing compiles in the plain-Python path")
@pytest.mark.slow  # fresh processes loading or compiling the engine
def test_engine_compiled_once_the_engine_is_in_the_cache():
    import sim.ursuppe.engine.round  # noqa: F401  (compiles or loads every kernel)

    assert jit.engine_compiled(("ursuppe", jit.KIT))
    # a new process finds the engine compiled before importing it, and then compiles nothing
    code = (
        "from sim import jit; before = jit.engine_compiled(('ursuppe', jit.KIT)); "
        "import sim.ursuppe.engine.round; "
        "print(before, jit._COMPILED_KERNELS, len(jit._SEEN_KERNELS))"
    )
    expected = jit.expected_kernels("ursuppe") | jit.expected_kernels(jit.KIT)
    assert _python(code) == f"True 0 {len(expected)}"


def test_expected_compile_seconds(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert jit.expected_compile_seconds() is None  # never compiled here: not known (issue 21.10)
    (tmp_path / "ursuppe-0123456789abcdef").mkdir()
    (tmp_path / "ursuppe-0123456789abcdef" / jit._MARKER).write_text('{"compile_seconds": 12.5}')
    assert jit.expected_compile_seconds() == 12.5
    (tmp_path / "pig-0123456789abcdef").mkdir()  # a small game compiled since
    (tmp_path / "pig-0123456789abcdef" / jit._MARKER).write_text('{"compile_seconds": 0.9}')
    assert jit.expected_compile_seconds("ursuppe") == 12.5  # its own last compile
    assert jit.expected_compile_seconds() == 0.9  # the last of any
    assert jit.expected_compile_seconds("chromosome") is None  # never compiled: not another's (31.10)
    assert jit.compile_expectation(["ursuppe", "pig"]) == 13.4
    assert jit.compile_expectation(["chromosome", "pig"]) is None


def _marker(cache: Path, directory: str, seconds: float) -> None:
    (cache / directory).mkdir()
    (cache / directory / jit._MARKER).write_text(f'{{"compile_seconds": {seconds}}}')


@pytest.mark.skipif(jit.PLAIN_PYTHON, reason="nothing compiles in the plain-Python path")
@pytest.mark.parametrize(
    "game, kit_cached, heard",
    [
        ("chromosome", True, (None, "chromosome")),  # issue 31.10: it quoted Ursuppe's 63 s
        ("ursuppe", True, (63.0, "ursuppe")),
        ("ursuppe", False, (64.5, "ursuppe")),  # the kit compiles too: its last compile adds
    ],
)
def test_the_compile_notice_quotes_the_games_own_last_compile(tmp_path, monkeypatch, game, kit_cached, heard):
    """Issue 31.10: the notice before a first compile quotes the last compile of the game the
    command loads (and of the kit, if it compiles too), or says it does not know; the first kernel
    to compile may be the kit's (sim.random_stream), whose own second or two says nothing."""
    from sim import compile_notice

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    _marker(tmp_path, "ursuppe-0123456789abcdef", 63.0)  # an earlier version of Ursuppe's sources
    _marker(tmp_path, "kit-0123456789abcdef", 1.5)
    if kit_cached:
        _marker(tmp_path, f"kit-{jit._kernel_source_hash(jit._ROOT, jit.KIT)}", 1.5)
    calls = []
    monkeypatch.setattr(compile_notice, "callback", lambda seconds, name: calls.append((seconds, name)))
    monkeypatch.setattr(compile_notice, "announced_at", None)
    monkeypatch.setattr(compile_notice, "game", game)
    monkeypatch.setattr(compile_notice, "kernel_packages", (f"sim.{game}", f"strategies.{game}"))
    monkeypatch.setattr(jit, "_ANNOUNCED", set())
    jit._maybe_announce(jit.KIT)
    assert calls == [heard]


# Cached constructors of the by-reference tuples (sim.jit.reference_proxy; issue 31)


@pytest.mark.skipif(jit.PLAIN_PYTHON, reason="no references in the plain-Python path")
def test_constructors_live_in_their_namespace_cache_directory():
    """Each proxy's constructor is a module generated into the game's cache directory (pruned with
    it), imported under the name the cached machine code finds the proxy class by."""
    from sim.ursuppe.engine import state

    directory = jit.cache_directories().get("ursuppe")
    if directory is None:
        pytest.skip("no writable kernel cache")
    for proxy in (state._StateRef, state._RulesRef, state._WorkspaceRef):
        module = sys.modules[proxy.__module__]
        assert getattr(module, proxy.__qualname__) is proxy
        path = Path(module.__file__)
        assert path.parent == directory / jit._CONSTRUCTORS and path.is_file()
        assert "def construct(" in path.read_text(encoding="utf-8")


def test_a_generated_module_keeps_its_stamp(tmp_path):
    """numba's cache index checks the source file (its mtime and size before numba 0.68): every
    process writes the same file with the same mtime, and leaves it alone once it is there."""
    path = tmp_path / "constructors" / "m.py"
    jit._write_once(path, b"def construct(a):\n    return a\n")
    first = path.stat()
    jit._write_once(path, b"def construct(a):\n    return a\n")
    again = path.stat()
    assert (again.st_ino, again.st_mtime_ns) == (first.st_ino, first.st_mtime_ns)  # not rewritten
    path.unlink()
    jit._write_once(path, b"def construct(a):\n    return a\n")  # another process, later
    assert path.stat().st_mtime == first.st_mtime
    jit._write_once(path, b"def construct(b):\n    return b\n")  # other text, same size
    assert path.stat().st_mtime != first.st_mtime and path.read_bytes().startswith(b"def construct(b)")


# Callees linked by reference: each kernel's machine code is compiled once, and calls name its
# callees' symbols, which must therefore be the same in every process.

_SYMBOLS = """
{prelude}
import sim.random_stream as r
kernels = (r.mix64, r.next_u64, r.below)
print(sorted(c.fndesc.mangled_name for k in kernels for c in k.overloads.values()))
"""


@pytest.mark.skipif(jit.PLAIN_PYTHON, reason="nothing compiles in the plain-Python path")
@pytest.mark.slow  # fresh processes loading or compiling the engine
def test_kernel_symbols_are_the_same_in_every_process(tmp_path):
    first = _python(_SYMBOLS.format(prelude=""), NUMBA_CACHE_DIR=str(tmp_path / "a"))
    # another process that compiled other functions first (numba numbers symbols per process)
    prelude = "import numba; numba.njit('int64(int64)')(lambda x: x + 1)"
    second = _python(_SYMBOLS.format(prelude=prelude), NUMBA_CACHE_DIR=str(tmp_path / "b"))
    assert first == second
    assert "mix64" in first


@pytest.mark.skipif(jit.PLAIN_PYTHON, reason="nothing compiles in the plain-Python path")
@pytest.mark.slow  # fresh processes loading or compiling the engine
def test_callees_are_linked_by_reference(tmp_path):
    """No kernel's machine code holds a copy of another kernel (only what LLVM inlined)."""
    code = (
        "import gc; from numba.core.registry import CPUDispatcher; from sim import jit; "
        "import sim.ursuppe.engine.dice; assert jit._BY_REFERENCE and jit._KERNEL_SYMBOLS; "
        "kernels = [d for d in gc.get_objects() if isinstance(d, CPUDispatcher)]; "
        "libraries = [c.library for d in kernels for c in d.overloads.values()]; "
        "own = {l: {f.name for f in l._final_module.functions if f.name in jit._KERNEL_SYMBOLS "
        "and not f.is_declaration} for l in libraries}; "
        "print(len(libraries), max(len(names) for names in own.values()), "
        "sum(len(names) for names in own.values()) == len(jit._KERNEL_SYMBOLS))"
    )
    count, most, each_once = _python(code, NUMBA_CACHE_DIR=str(tmp_path)).split()
    assert int(count) >= 7  # the random streams, the dice, the board
    assert most == "1" and each_once == "True"  # each kernel defined in its own library only


_GAMES = """
import hashlib
import numpy as np
from sim import jit
from sim.ursuppe.engine import batch
from sim.ursuppe.tools.bench import default_run
from strategies.ursuppe.params import parameter_table

run = default_run(4, 7)
games = np.arange(40)
rules = run.rulebook.for_players(4)
b = batch.new_batch(rules, parameter_table(run.strategies), run.assignment(games), 7, games)
batch.play(b, seating="rotate", threads=1)
outcome = b.state.score.tobytes() + b.state.winner.tobytes() + b.state.genes.tobytes()
print(jit._COMPILED_KERNELS, hashlib.sha256(outcome).hexdigest())
"""
# kernels called from many others (their cache files are removed to make a partial cache)
_CALLEES = {"players.has", "players.put_amoeba", "decisions.decide", "random_stream.below", "policy.choose"}


@pytest.mark.skipif(jit.PLAIN_PYTHON, reason="nothing compiles in the plain-Python path")
@pytest.mark.slow  # fresh processes loading or compiling the engine
def test_a_partial_cache_plays_the_same_games(tmp_path):
    """Kernels loaded from the cache call kernels compiled again in this process, and the other way
    round: the same games as with the whole cache."""
    import sim.ursuppe.engine.round  # noqa: F401  (the whole engine in the cache)

    directories = jit.cache_directories()
    if not {"ursuppe", jit.KIT} <= set(directories):
        pytest.skip("no writable kernel cache")
    for directory in directories.values():
        shutil.copytree(directory, tmp_path / directory.name)
    compiled, whole = _python(_GAMES, NUMBA_CACHE_DIR=str(tmp_path)).split()
    assert compiled == "0"
    removed = [p for p in tmp_path.rglob("*.nb*") if p.name.split("-")[0] in _CALLEES]
    assert removed
    for path in removed:
        path.unlink()
    compiled, partial = _python(_GAMES, NUMBA_CACHE_DIR=str(tmp_path)).split()
    assert int(compiled) > 0
    assert partial == whole


# A first compile on several cores (sim.jit_sharing): helpers import the kernel modules in other
# orders, each module after those it depends on (tests/test_newcomer_audit.py plays the games of
# such a compile against the warm cache's).


@pytest.mark.parametrize("namespace", ["ursuppe", "chromosome"])
def test_helpers_import_each_kernel_module_after_those_it_depends_on(namespace):
    modules, depends = jit._kernel_module_graph(namespace)
    assert set(modules) == {module for module, _ in jit.expected_kernels(namespace)}
    orders = [modules, *(jit_sharing.helper_order(modules, depends, index) for index in (1, 2, 3))]
    for order in orders:
        assert sorted(order) == sorted(modules)
        for i, module in enumerate(order):
            assert depends[module] <= set(order[:i]), module
    assert orders[1][0] != orders[0][0]  # helper 1 starts elsewhere


def test_helper_count(monkeypatch):
    monkeypatch.setenv(jit_sharing.HELPERS_ENV, "0")
    assert jit_sharing.helper_count() == 0
    monkeypatch.setenv(jit_sharing.HELPERS_ENV, "2")
    assert jit_sharing.helper_count() == 2
    monkeypatch.delenv(jit_sharing.HELPERS_ENV)
    assert 0 <= jit_sharing.helper_count() <= jit_sharing.MAX_HELPERS


@pytest.mark.slow
@pytest.mark.skipif(jit.PLAIN_PYTHON, reason="nothing compiles in the plain-Python path")
def test_a_first_compile_of_another_game_does_not_promise_ursuppes_time(tmp_path):
    """Issue 31.10, as a user meets it: on a machine that compiled Ursuppe in 63 s, a first Pig
    run (the smallest game: a few seconds) says it does not know how long Pig takes; once Pig was
    compiled here, a first run of Pig's next sources quotes Pig's own time."""
    from tests.test_cli import soup_exe

    numba_dir = tmp_path / "cache" / "soup" / "numba"
    numba_dir.mkdir(parents=True)
    _marker(numba_dir, "ursuppe-0123456789abcdef", 63.0)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "SOUP_JIT_HELPERS": "0"}
    env.pop("NUMBA_CACHE_DIR", None)
    pig = ROOT / "tests" / "scenarios" / "pig" / "PG3_bust_loses_the_turn_total.json"

    def first_line() -> str:
        r = processes.run([soup_exe(), "scenario", str(pig)], env=env, cwd=ROOT)
        assert r.returncode == 0, r.stderr
        return r.stderr.splitlines()[0]

    line = first_line()
    assert line.startswith("soup: compiling the engine for this machine (first run only;"), line
    assert "no compile of pig's engine was recorded" in line and "63" not in line
    (compiled,) = numba_dir.glob(f"pig-*/{jit._MARKER}")
    took = json.loads(compiled.read_text())["compile_seconds"]
    compiled.parent.rename(numba_dir / "pig-0123456789abcdef")  # as if Pig's sources changed since
    assert f"about {took:.0f} s, as pig's last compile on this machine" in first_line()
