"""The genes that live in one place (issue 22; docs/adding-a-gene.md): one module each, holding the
gene's rows (a rules.gene_rows.Gene named ``GENE``: flags, decision kinds with their scenario parse
and render, events, tallies), its hook kernels and its policy valuation.

The modules are found here by name (every module of this package); the central tables read their
rows from the generated sim/ursuppe/rules/gene_tables.py, and the index ledger
(sim/ursuppe/rules/ledger.toml) keeps their order.
"""

import importlib
from types import ModuleType

from sim.ursuppe.rules.ledger import LEDGER


def gene_modules() -> tuple[ModuleType, ...]:
    """The gene modules, imported, in the order of their rows (for the tools: the scenario
    choices' parse and render)."""
    return tuple(importlib.import_module(f"{__name__}.{name}") for name in LEDGER["modules"])
