"""Tables as text: number formats a reader can scan, Markdown tables, and writing tables to disk
atomically (a temporary file renamed into place, never a half-written result)."""

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from sim.runner import write_atomic


def fmt(value: Any, kind: str) -> str:
    """One cell. ``kind``: int (1,234), rate (0.123), signed (+0.012), pct (12.3%), p (0.012,
    3.4e-07, <1e-300), num (1.23), float (0.1234: differences and standard errors of rates,
    where 3 decimals hide the standard error), bool (yes / empty: a flag column reads at a
    glance), text. Missing values (None, NaN) print as an en dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if kind == "bool":
        return "yes" if value else ""
    if kind == "float":
        return f"{value:.4f}"
    if kind == "int":
        return f"{int(value):,}"
    if kind == "rate":
        return f"{value:.3f}"
    if kind == "signed":
        return f"{value:+.3f}"
    if kind == "pct":
        return f"{value:.1%}"
    if kind == "p":
        return "<1e-300" if value < 1e-300 else (f"{value:.3f}" if value >= 0.001 else f"{value:.1e}")
    if kind == "num":
        return f"{value:.2f}"
    return str(value)


def markdown_table(df: pl.DataFrame, columns: Sequence[tuple[str, str, str]]) -> str:
    """A Markdown table of ``df``. ``columns`` = (column, header, kind) with the kinds of
    :func:`fmt`; an interval is one cell from two columns, given as ``"low|high"`` with kind
    ``ci`` (rates) or ``sci`` (signed differences)."""
    header = "| " + " | ".join(h for _, h, _ in columns) + " |"
    align = "|" + "|".join(":--" if k == "text" else "--:" for _, _, k in columns) + "|"
    lines = [header, align]
    for row in df.iter_rows(named=True):
        cells = []
        for col, _, kind in columns:
            if kind in ("ci", "sci"):
                lo, hi = col.split("|")
                f = "signed" if kind == "sci" else "rate"
                cells.append(f"[{fmt(row[lo], f)}, {fmt(row[hi], f)}]")
            else:
                cells.append(fmt(row[col], kind))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


P_COLUMNS = ("p_value", "p_holm", "q_bh")


def column_kind(name: str, dtype: pl.DataType) -> str:
    """The :func:`fmt` kind a column of this name and type gets by default: p-values (the
    ``P_COLUMNS`` and any ``... p_holm``) as p, flags as bool, integers with separators, other
    floats to 4 decimals, everything else as text."""
    if name in P_COLUMNS or name.endswith("p_holm"):
        return "p"
    if dtype == pl.Boolean:
        return "bool"
    if dtype.is_integer():
        return "int"
    if dtype.is_float():
        return "float"
    return "text"


def frame_markdown(df: pl.DataFrame, kinds: dict[str, str] | None = None) -> str:
    """Every column of ``df`` as a Markdown table, headed by the column names, each column in
    the kind :func:`column_kind` infers unless ``kinds`` names another; for tables whose columns
    vary with the data (one per strategy, one per opponent), where listing them is not possible."""
    kinds = kinds or {}
    columns = [(c, c, kinds.get(c) or column_kind(c, df.schema[c])) for c in df.columns]
    return markdown_table(df, columns) + "\n"


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and rename it into place."""
    write_atomic(Path(path), lambda tmp: tmp.write_text(text))


def write_csv_atomic(path: Path, df: pl.DataFrame) -> None:
    """``df`` as CSV, written atomically."""
    write_text_atomic(path, df.write_csv())
