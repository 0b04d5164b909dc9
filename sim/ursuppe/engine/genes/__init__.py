"""The genes that live in one place (issue 22; docs/adding-a-gene.md): one module each, holding the
gene's rows (a rules.gene_rows.Gene named ``GENE``: flags, decision kinds with their scenario parse
and render, events, tallies), its hook kernels and its policy valuation.

The modules are found here by name (every module of this package); the central tables read their
rows from the generated sim/ursuppe/rules/gene_tables.py, and the index ledger
(sim/ursuppe/rules/ledger.toml) keeps their order. A module's kernel constants are its row's
indices in those tables (:func:`indices`), so the row is the one place that names them.
"""

import importlib
from types import ModuleType

from sim.ursuppe.engine import policy_port
from sim.ursuppe.engine.decision_kinds import KIND_INDEX
from sim.ursuppe.engine.events import EVENT_INDEX
from sim.ursuppe.engine.tally import TALLY_INDEX
from sim.ursuppe.rules.extra_flags import XFLAG_INDEX
from sim.ursuppe.rules.gene_rows import Gene
from sim.ursuppe.rules.genes import GENE_INDEX
from sim.ursuppe.rules.ledger import LEDGER


def indices(gene: Gene) -> tuple[int, ...]:
    """The indices of a gene module's row in the central tables, in the order the row declares
    them: the gene (genes.GENE_INDEX), its flags (extra_flags.XFLAG_INDEX), decision kinds
    (decision_kinds.KIND_INDEX), events (events.EVENT_INDEX), tallies (tally.TALLY_INDEX) and
    knobs (the strategy parameter's index). The module unpacks them into its kernels' constants,
    plain ints at import, which numba reads as compile-time globals:
    ``CAMOUFLAGE_1, XF_CAMOUFLAGE_ROLL_PER_ATTEMPT, EV_CAMOUFLAGE, CAMOUFLAGE_NO_DEFENCE = indices(GENE)``.
    """
    return (
        GENE_INDEX[gene.name],
        *(XFLAG_INDEX[flag.name] for flag in gene.flags),
        *(KIND_INDEX[decision.name] for decision in gene.decisions),
        *(EVENT_INDEX[name] for name, _ in gene.events),
        *(TALLY_INDEX[name] for name, _ in gene.tallies),
        # looked up only for a row with knobs: the port serves the strategies' parameters
        *(policy_port.PARAMETERS[knob.name].index for knob in gene.knobs),
    )


def gene_modules() -> tuple[ModuleType, ...]:
    """The gene modules, imported, in the order of their rows (for the tools: the scenario
    choices' parse and render)."""
    return tuple(importlib.import_module(f"{__name__}.{name}") for name in LEDGER["modules"])
