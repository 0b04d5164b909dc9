"""Tables as text: number formats a reader can scan, Markdown tables, and writing tables to disk
atomically (a temporary file renamed into place, never a half-written result)."""

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim.runner import write_atomic


def fmt(value: Any, kind: str) -> str:
    """One cell. ``kind``: int (1,234), rate (0.123), signed (+0.012), points (+1.2: a rate
    difference in points of win rate), pct (12.3%), p (0.012, 3.4e-07, <1e-300), num (1.23),
    float (0.1234: differences and standard errors of rates, where 3 decimals hide the standard
    error), bool (yes / empty: a flag column reads at a glance), median (of whole numbers: 7 or
    7.5), text. Missing values (None,
    NaN) print as an en dash. A value that rounds to zero prints without a sign (0.000, not
    -0.000 or +0.000): a sign would claim a direction the printed number does not have."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if kind == "bool":
        return "yes" if value else ""
    if kind == "int":
        return f"{int(value):,}"
    if kind == "p":
        return "<1e-300" if value < 1e-300 else (f"{value:.3f}" if value >= 0.001 else f"{value:.1e}")
    if kind == "median":  # of whole numbers (rounds): 7 or 7.5, never "7.00" (issue 21)
        return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"
    spec = {"float": ".4f", "rate": ".3f", "signed": "+.3f", "pct": ".1%", "num": ".2f"}.get(kind)
    if kind == "points":
        return _unsigned_zero(f"{value * 100:+.1f}")
    if spec is None:
        return str(value)
    return _unsigned_zero(format(value, spec))


def _unsigned_zero(text: str) -> str:
    """``text`` without its sign when every digit is 0 ("-0.000" -> "0.000")."""
    if text[:1] in ("+", "-") and not any(c in "123456789" for c in text):
        return text[1:]
    return text


def plural(n: int, noun: str, plural_form: str | None = None) -> str:
    """A count with its noun, singular for one: "1 card", "2 cards", "1,200 games". Irregular
    plurals are given: ``plural(2, "strategy", "strategies")``."""
    word = noun if n == 1 else (plural_form or noun + "s")
    return f"{n:,} {word}"


CSV_DIGITS = 6  # significant digits of a float in a CSV the report writes


def round_floats(df: pl.DataFrame, digits: int = CSV_DIGITS) -> pl.DataFrame:
    """``df`` with every float column rounded to ``digits`` significant digits, and -0.0 as 0.0:
    the CSVs of the report are read by people and spreadsheets, and 0.025570000000000002 (float
    noise) or -0.0 says nothing the rounded value does not. Significant digits, not decimals,
    so that p-values of 1e-50 survive. Each value becomes the double nearest to its rounded
    decimal, which prints as that decimal; nulls, NaN and infinities are kept."""
    columns = []
    for name, dtype in df.schema.items():
        if not dtype.is_float():
            continue
        values = df[name].cast(pl.Float64).to_numpy()
        rounded = np.char.mod(f"%.{digits}g", values).astype(np.float64)
        rounded[rounded == 0] = 0.0  # -0.0 too
        columns.append(
            pl.when(pl.col(name).is_null()).then(None).otherwise(pl.Series(rounded)).cast(dtype).alias(name)
        )
    return df.with_columns(columns) if columns else df


def share_cell(share: float | None, count: int | None) -> str:
    """A share of players (rate) that would print as 0.000 although some players are in it reads
    as "nobody" beside a wide interval; it prints as "<0.001 (n players)" instead, and an empty
    group as "none" (issue 21)."""
    if count is not None and count == 0:
        return "none"
    if share is not None and count is not None and 0 < share < 0.0005:
        return f"<0.001 ({plural(int(count), 'player')})"
    return fmt(share, "rate")


def markdown_table(df: pl.DataFrame, columns: Sequence[tuple[str, str, str]]) -> str:
    """A Markdown table of ``df``. ``columns`` = (column, header, kind) with the kinds of
    :func:`fmt`; an interval is one cell from two columns, given as ``"low|high"`` with kind
    ``ci`` (rates) or ``sci`` (signed differences), and a share with its count as ``"share|count"``
    with kind ``share`` (:func:`share_cell`)."""
    header = "| " + " | ".join(h for _, h, _ in columns) + " |"
    align = "|" + "|".join(":--" if k == "text" else "--:" for _, _, k in columns) + "|"
    lines = [header, align]
    for row in df.iter_rows(named=True):
        cells = []
        for col, _, kind in columns:
            if kind == "share":  # "share|count": a share too small to print shows its count
                share, count = (row[c] for c in col.split("|"))
                cells.append(share_cell(share, count))
            elif kind in ("ci", "sci"):
                lo, hi = col.split("|")
                f = "signed" if kind == "sci" else "rate"
                cells.append(f"[{fmt(row[lo], f)}, {fmt(row[hi], f)}]")
            else:
                cells.append(fmt(row[col], kind))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


class Col:
    """Columns as every report's tables show them (markdown_table columns; the analyses name their
    table columns alike): the player count, games, player-games (a player's games), a rate's 95%
    interval, a difference's 95% interval and the Holm-adjusted p of a table's family; and the
    tables of that shape in more than one report."""

    PLAYERS = ("players", "players", "int")
    GAMES = ("games", "games", "int")
    PLAYER_GAMES = ("games", "player-games", "int")
    CI95 = ("ci_low|ci_high", "95% CI", "ci")
    DIFF_CI95 = ("diff_low|diff_high", "95% CI", "sci")
    P_HOLM = ("p_holm", "p (Holm)", "p")
    # How the games of each player count ended (analysis.win_rates.end_reasons): shares, intervals.
    END_REASONS = [PLAYERS, ("end_reason", "game ended by", "text"), GAMES, ("share", "share", "rate"), CI95]
    # A cell's win rate against the other games of its player count (a deck or event card's
    # games): the difference with its interval and Holm's p over the table.
    VS_OTHER_GAMES = [
        ("win_rate", "win rate", "rate"),
        CI95,
        ("difference", "vs other games", "signed"),
        DIFF_CI95,
        P_HOLM,
    ]


# A win rate (analysis.win_rates.win_rates and a game's own win tables): wins, the rate with its
# 95% interval, the fair share 1/P.
WIN_RATE_COLUMNS = [
    ("wins", "wins", "int"),
    ("win_rate", "win rate", "rate"),
    Col.CI95,
    ("fair_share", "fair share", "rate"),
]

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
    """``df`` as CSV (floats through :func:`round_floats`: no float noise, no -0.0), written atomically."""
    write_text_atomic(path, round_floats(df).write_csv())
