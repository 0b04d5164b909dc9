"""Energy Conservation (XG-21): the owner gains 1 BP for each drift of its amoebas in Phase 1 (with
the flag energy_conservation_requires_move only when the drift left the space).

Its hook :func:`energy_conservation_drift` is called by phases/phase1_movement_feeding.py
``move_amoeba`` after a drift. The event ``gene_income`` (the BP a gene gave: this one's, and the
Social Gene's in Phase 6, XG-10) is declared here, the first of the two genes to have a module.
"""

from sim.jit import kernel
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import add_bp, has
from sim.ursuppe.rules.gene_rows import ExtraFlag, Gene

GENE = Gene(
    "Energy Conservation",
    "XG-21",
    flags=(ExtraFlag("energy_conservation_requires_move", "XG-21", False),),
    events=(("gene_income", ("gene", "bp")),),  # XG-10, XG-21: BP a gene gave
    tallies=(("energy:bp", "XG-21"),),
)

# The kernels' constants (numba globals): the gene, its flag, the event (shared with XG-10) and
# the tally.
ENERGY_CONSERVATION, XF_ENERGY_CONSERVATION_REQUIRES_MOVE, EV_GENE_INCOME, ENERGY_BP = indices(GENE)


@kernel
def energy_conservation_drift(st, ru, wk, g, b, p, start, end, phase):
    """XG-21, the drift's hook (M2): the owner of Energy Conservation gains 1 BP for a drift of its
    amoeba from ``start`` to ``end`` (with the flag energy_conservation_requires_move only when
    the drift left its space)."""
    if not (ru.extra_genes and has(st, g, p, ENERGY_CONSERVATION)):
        return
    if ru.xflag[XF_ENERGY_CONSERVATION_REQUIRES_MOVE] and end == start:
        return
    add_bp(st, ru, g, p, 1)
    wk.tally[b, ENERGY_BP] += 1
    log(st, wk, g, EV_GENE_INCOME, phase, p, -1, ENERGY_CONSERVATION, 1, 0, 0, 0, 0, 0)
