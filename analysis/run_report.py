"""The report every game gets from its core result columns (sim.game.CORE_COLUMNS): win rates by
strategy, by start space (seat) and by player count, with 95% Wilson intervals against the fair
share, and what the runs were (their manifests' specs). A game adds its own sections in a report
of its own (Ursuppe: analysis/ursuppe/report.py)."""

import json
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from analysis.pages import built_beside, render_html
from analysis.tables import frame_markdown
from analysis.win_rates import win_rates_by_chunk
from sim.runner import chunk_files, read_manifest

GROUPINGS = (
    ("strategy", "Win rate by strategy"),
    ("start_space", "Win rate by start space (seat)"),
    ("players", "Win rate by player count"),
)
SHOWN = ("games", "wins", "win_rate", "ci_low", "ci_high", "fair_share")


def build_report(run_dirs: Sequence[str | Path], out: str | Path, title: str) -> Path:
    """Write ``out``/report.md and report.html for the runs (built beside ``out``, then renamed
    into place: an interrupted report leaves the old one or none)."""
    out = Path(out)
    files = [f for d in run_dirs for f in chunk_files(Path(d))]
    specs = [(read_manifest(Path(d)) or {}).get("spec", {}) for d in run_dirs]
    tables = win_rates_by_chunk(files, [[key] for key, _ in GROUPINGS])
    parts = [f"# {title}\n", "Runs: " + ", ".join(f"`{Path(d).name}`" for d in run_dirs) + "\n"]
    for spec in specs:
        shown = {k: v for k, v in spec.items() if k in ("game", "players", "seed", "strategies", "rules_id")}
        parts.append(f"- `{json.dumps(shown)}`")
    parts.append("")
    for (key, heading), table in zip(GROUPINGS, tables, strict=True):
        df = table.select(key, *SHOWN).with_columns(pl.col(key).cast(pl.String))
        parts += [f"## {heading}\n", frame_markdown(df)]
    markdown = "\n".join(parts)
    with built_beside(out) as tmp:
        (tmp / "report.md").write_text(markdown)
        (tmp / "report.html").write_text(render_html(markdown, title))
    return out
