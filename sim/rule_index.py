"""A game's rule index: rule id -> the functions whose docstrings cite it -> the scenario files
whose ``test.rules`` list it, as one Markdown table (each game's ``tools/rule_index.py`` says
where its code and scenarios are and how its docstrings cite rules)."""

import ast
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path


def functions_citing(
    root: Path, folders: Sequence[Path], cites: Callable[[str], Iterable[str]]
) -> dict[str, set[str]]:
    """Rule -> the functions ("module.function", modules named from ``root``) whose docstring
    ``cites`` finds it in."""
    found: dict[str, set[str]] = defaultdict(set)
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            module = ".".join(path.relative_to(root).with_suffix("").parts)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef):
                    for rule in set(cites(ast.get_docstring(node) or "")):
                        found[rule].add(f"{module}.{node.name}")
    return found


def scenarios_listing(folder: Path) -> dict[str, set[str]]:
    """Rule -> the scenario files of ``folder`` whose ``test.rules`` list it (flags left out)."""
    tested: dict[str, set[str]] = defaultdict(set)
    for path in sorted(folder.glob("*.json")):
        for rule in json.loads(path.read_text(encoding="utf-8"))["test"]["rules"]:
            if not rule.startswith("flag:"):
                tested[rule].add(path.name)
    return tested


def table(rules: Sequence[str], code: dict[str, set[str]], tests: dict[str, set[str]]) -> list[str]:
    """The Markdown table's lines: a row a rule, its functions and (at most 6) scenario files."""
    lines = ["| rule | implemented in | scenarios |", "|---|---|---|"]
    for rule in rules:
        functions = ", ".join(f"`{f}`" for f in sorted(code.get(rule, ()))) or "—"
        files = sorted(tests.get(rule, ()))
        more = f" (+{len(files) - 6} more)" if len(files) > 6 else ""
        shown = ", ".join(f"`{f}`" for f in files[:6]) + more
        lines.append(f"| {rule} | {functions} | {shown or '—'} |")
    return lines
