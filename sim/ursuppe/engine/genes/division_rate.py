"""Division Rate (§8 "Others", D3): the owner's new amoebas cost 4 BP instead of 6 (the rules'
division_cost_division_rate; TB7: 4 and 3 in double play II). A gene without rows (no flag,
decision, event or tally).

Its hook :func:`division_rate_cost` picks the price by the gene in players.division_cost, which
Phase 4 (phases/phase4_division.divide) and the strategies (policy._value_placements) ask, and
which keeps XG-18's prices (Short Life Span's flags, with and without Division Rate). This module
reads the gene array itself (not players.has): players.py imports it, so it must not import
players.py back.
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.rules.gene_rows import Gene

GENE = Gene("Division Rate", "D3")

# The kernels' constant (a numba global): the gene.
(DIVISION_RATE,) = indices(GENE)


@kernel
@always_inline
def division_rate_cost(st, g, p, cost, with_division_rate):
    """D3: the BP a new amoeba of player p costs: ``with_division_rate`` if p holds Division
    Rate, else ``cost``."""
    if st.genes[g, p, DIVISION_RATE] != 0:
        return with_division_rate
    return cost
