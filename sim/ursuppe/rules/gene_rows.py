"""The rows a gene module declares (docs/adding-a-gene.md): plain data, no kernels.

A gene with code lives in one module of sim/ursuppe/engine/genes/, which declares one
:class:`Gene` row at module level: its flags, its decision kinds (with the scenario choice's
parse and render), its events, its tallies and its strategy knobs. The central tables
(genes.GENE_NAMES, extra_flags.EXTRA_FLAGS, decision_kinds.DECISION_KINDS and CHOICE_KEYS,
events.EVENT_KINDS, tally.OUTCOMES, the strategies' parameters) are built from these rows in the
order of the index ledger (rules/ledger.toml); since they sit below the gene modules (a gene's
kernels import them), they read the rows from the generated module sim/ursuppe/rules/gene_tables.py
(``python -m sim.ursuppe.tools.gene_tables`` writes it and appends to the ledger;
tests/test_adding_a_gene.py checks both are current).
"""

import json
from collections.abc import Callable
from typing import Any, NamedTuple


class ExtraFlag(NamedTuple):
    """One key of ``[flags]`` in a rules file (extra_flags.py): its rule id, its default and what
    it may be."""

    name: str  # the key in [flags]
    rule: str  # the rule id it completes
    default: bool | int | str | tuple[str, ...]
    choices: tuple[str, ...] = ()  # a string flag (or a list flag: a subset of them)
    lo: int = 0  # an integer flag's range
    hi: int = 0
    placeholder: bool = False  # PLACEHOLDER: no source has the value (reports name it)


class ChoiceError(ValueError):
    """A scenario choice's value a parse refuses in one of its parts: ``key`` (".give", ...) is
    appended to the choice's key in the scenario loader's message."""

    def __init__(self, message: str, key: str = ""):
        super().__init__(message)
        self.key = key


# A scenario choice's value -> the option row it forces (row[:width] filled in, the rest left 0);
# raises ValueError (or ChoiceError, naming the part) with the message the scenario loader shows.
Parse = Callable[[Any, list[int], int], list[int]]  # (value, row of zeros, players) -> row
# An option row -> the scenario choice object; a row whose layout depends on the colours in play
# (Tentacle's carry: one count a colour) takes the players too: (row, players) -> object.
Render = Callable[..., dict[str, Any]]


class Decision(NamedTuple):
    """One decision kind a gene asks (decision_kinds.DecisionKind, §9): its name (also the tally
    ``decision:<name>``), the rule, how many integers of an option row identify an option, the
    scenario choice key that forces it (a new key unless another row declares it), the option
    row's layout, and the scenario choice's parse and render."""

    name: str
    rule: str
    width: int
    choice_key: str
    row: str
    parse: Parse
    render: Render


class Knob(NamedTuple):
    """A strategy parameter a gene's policy valuation reads (strategies/ursuppe/params.py builds
    its Parameter from the row; a strategy file sets it by name): its default, its range, the
    decision kinds and rule ids it steers, and what it does. The valuation reads it from the
    strategy's vector at ``params.PARAMETER_INDEX[name]``."""

    name: str
    default: float
    low: float
    high: float
    decision: str
    doc: str
    switch: bool = False  # only 0 (off) or 1 (on)


class Gene(NamedTuple):
    """What a gene module declares: the gene's name (genes.GENE_NAMES) and rule id, then its rows
    in the central tables, in order. ``events``: (name, field names a..h); ``tallies``: (name,
    what it counts); ``knobs``: its strategy parameters; ``advanced``: an advanced gene (G3: never
    a lower gene given up, genes.ADVANCED_GENES); ``aliases``: other names a rules or strategy file
    may give it (genes.GENE_ALIASES). The module's kernel constants are the indices of these rows
    in the central tables, in this order (sim.ursuppe.engine.genes.indices)."""

    name: str
    rule: str
    flags: tuple[ExtraFlag, ...] = ()
    decisions: tuple[Decision, ...] = ()
    events: tuple[tuple[str, tuple[str, ...]], ...] = ()
    tallies: tuple[tuple[str, str], ...] = ()
    knobs: tuple[Knob, ...] = ()
    advanced: bool = False
    aliases: tuple[str, ...] = ()


def yes_no(key: str) -> tuple[Parse, Render]:
    """Parse and render of a yes/no choice (row[0] = 0 / 1): ``{key: true|false}``, nothing else."""

    def parse(value: Any, row: list[int], players: int) -> list[int]:
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, got {json.dumps(value)}")
        row[0] = int(value)
        return row

    def render(row: list[int]) -> dict[str, Any]:
        return {key: bool(row[0])}

    return parse, render


def two_way(key: str, words: tuple[str, str]) -> tuple[Parse, Render]:
    """Parse and render of a two-way choice (row[0] = 0 / 1): one of two words or a boolean;
    rendered as a boolean under ``key``."""

    def parse(value: Any, row: list[int], players: int) -> list[int]:
        if isinstance(value, bool):
            row[0] = int(value)
        elif value in words:
            row[0] = words.index(value)
        else:
            first, second = (json.dumps(w) for w in words)
            raise ValueError(f"expected {first} or {second}, got {json.dumps(value)}")
        return row

    def render(row: list[int]) -> dict[str, Any]:
        return {key: bool(row[0])}

    return parse, render
