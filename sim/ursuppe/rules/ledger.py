"""The index ledger (rules/ledger.toml; docs/adding-a-gene.md): the order of the rows of every
central table, as data.

A central table (genes.GENE_NAMES, extra_flags.EXTRA_FLAGS, decision_kinds.CHOICE_KEYS and
DECISION_KINDS, events.EVENT_KINDS, tally.OUTCOMES, the strategies' gene knobs) is its module's
own core rows and the gene modules' rows (the generated gene_tables.py), put in the order of the
ledger's list of that name: a row's index is its line in the list. Lines are only ever appended
(``python -m sim.ursuppe.tools.gene_tables`` appends a new gene module's rows; a new core row is
appended by hand), so an index results, tallies, scenario tapes and rules files hold never moves,
and no central module names a gene or counts its rows.
"""

import tomllib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

PATH = Path(__file__).with_name("ledger.toml")
# The ledger's lists: the gene modules (the order their rows were appended), then one per table.
TABLES = ("modules", "genes", "flags", "choice_keys", "decisions", "events", "tallies", "knobs")

T = TypeVar("T")


class LedgerError(ValueError):
    """The ledger and the rows disagree (a stale gene_tables.py or ledger, a core row not appended)."""


def load(path: Path = PATH) -> dict[str, tuple[str, ...]]:
    """The ledger's lists by name, checked to be lists of names."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    for table in TABLES:
        names = data.get(table)
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise LedgerError(f"{path}: {table}: expected a list of names")
    unknown = sorted(set(data) - set(TABLES))
    if unknown:
        raise LedgerError(f"{path}: {unknown[0]}: unknown list (expected one of: {', '.join(TABLES)})")
    return {table: tuple(data[table]) for table in TABLES}


LEDGER = load()


def in_ledger_order(table: str, rows: Iterable[T], name: Callable[[T], str]) -> tuple[T, ...]:
    """``rows`` (a module's core rows and the gene modules' rows of one table) in the order of the
    ledger's list ``table``. A name listed twice takes that many rows (choice key "buy"). A row the
    ledger lacks, or a line no row fills, is a one-line error naming it."""
    pending: dict[str, list[T]] = {}
    for row in rows:
        pending.setdefault(name(row), []).append(row)
    ordered = []
    for line, n in enumerate(LEDGER[table]):
        if not pending.get(n):
            raise LedgerError(
                f"{PATH}: {table}[{line}]: {n!r} has no row (a core row of its table's module or a "
                "gene module's, sim/ursuppe/rules/gene_tables.py)"
            )
        ordered.append(pending[n].pop(0))
    left = [n for n, rs in pending.items() if rs]
    if left and left[0] in LEDGER[table]:
        raise LedgerError(
            f"{PATH}: {table}: {left[0]!r} is declared by more rows than it has lines (a name twice)"
        )
    if left:
        raise LedgerError(
            f"{PATH}: {table}: {left[0]!r} is not in the ledger (a gene module's row: run python -m "
            "sim.ursuppe.tools.gene_tables; a core row: append it to the list by hand)"
        )
    return tuple(ordered)
