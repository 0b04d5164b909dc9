"""Spores (§8 "Others", D3): the owner's new amoebas may be placed on any space without one of
its amoebas, not only next to one. A gene without rows (no flag, decision, event or tally).

Its hook :func:`spores_anywhere` is read where Phase 4 lists the division spaces
(phases/phase4_division.py: ``divide``, and ``population_explosion`` for XG-20's free amoebas,
which are placed by D3's spaces too).
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.rules.gene_rows import Gene

GENE = Gene("Spores", "D3")

# The kernels' constant (a numba global): the gene.
(SPORES,) = indices(GENE)


@kernel
@always_inline
def spores_anywhere(st, g, p):
    """D3 with Spores: may player p's new amoebas go on any space (not only next to its own)?"""
    return has(st, g, p, SPORES)
