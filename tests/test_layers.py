"""The tree's layers (issue 22): no import cycles anywhere (imports inside functions count), the
game-agnostic kit and generic analysis never import a game, and no experiment imports the CLI."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sim", "strategies", "analysis")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = _modules()


def _imports(name: str) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                out.add(full if full in MODULES else node.module)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    # a module's own packages run before it anyway: importing them is no edge
    return {m for m in out if m in MODULES and m != name and not name.startswith(m + ".")}


GRAPH = {name: _imports(name) for name in MODULES}
GAMES = sorted(p.name for p in (ROOT / "sim").iterdir() if (p / "game.py").is_file())


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in GRAPH:
        if v not in index:
            visit(v)
    return found


def _game_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in GAMES else None


def test_no_import_cycles():
    assert _cycles() == []


def test_both_games_found():
    assert {"ursuppe", "pig", "chromosome"} <= set(GAMES)


def test_the_kit_and_generic_analysis_never_import_a_game():
    kit = [m for m in GRAPH if _game_of(m) is None and not m.startswith("sim.cli")]
    leaks = {m: sorted(d for d in GRAPH[m] if _game_of(d)) for m in kit}
    assert {m: d for m, d in leaks.items() if d} == {}


def test_a_game_never_imports_another():
    for m, deps in GRAPH.items():
        own = _game_of(m)
        if own:
            assert {_game_of(d) for d in deps} <= {own, None}, m


def test_nothing_below_the_cli_imports_it():
    below = [m for m in GRAPH if not m.startswith("sim.cli")]
    assert {
        m: sorted(d for d in GRAPH[m] if d.startswith("sim.cli"))
        for m in below
        if any(d.startswith("sim.cli") for d in GRAPH[m])
    } == {}


def test_numba_internals_stay_in_the_jit_adapter():
    """Every use of numba's internals (numba.core, numba.experimental, numba.extending: linking by
    reference, borrowed references, StructRef types) is in sim/jit.py, which checks numba's
    version (TESTED_NUMBA, pyproject's bound) and warns once when it falls back."""
    private = ("numba.core", "numba.experimental", "numba.extending")
    users = {
        name
        for name, path in MODULES.items()
        if any(f"from {p}" in path.read_text() or f"import {p}" in path.read_text() for p in private)
    }
    assert users == {"sim.jit"}
