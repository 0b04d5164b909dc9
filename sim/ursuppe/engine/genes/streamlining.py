"""Streamlining (§8 Movement; M3, A3): every active move of the owner's amoebas, an escape
included, costs 0 BP. A gene without rows (no flag, decision, event or tally).

Its hook :func:`active_move_cost` is the price of an active move or escape for everyone: the
movement (movement.can_move_actively, active_movement), the attacks (attacks._response_options
and resolve_attack, for an escape) and the strategies (policy._value_moves) all ask it.
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.rules.gene_rows import Gene

GENE = Gene("Streamlining", "M3")

# The kernels' constant (a numba global): the gene.
(STREAMLINING,) = indices(GENE)


@kernel
@always_inline
def active_move_cost(st, ru, g, p, escape):
    """M3/A3: BP an active move or escape costs (0 with Streamlining). Movement, attacks and the
    strategies all ask here."""
    if has(st, g, p, STREAMLINING):
        return 0
    if escape:
        return ru.escape_cost
    return ru.active_move_cost
