"""Environmental Sensing (XG-23, an advanced gene): right after Phase 2 reveals a card the owner
looks at the next one and keeps it secret. The spec gives it only that look; with the flag
environmental_sensing_includes_migration (false by default, as Healing 2's includes_healing1) it
also has Migration Sensing's (XG-06) look at the start of Phase 1 (genes/migration_sensing.py
``migration_sensing_look``, which reads the flag).

The look is Migration Sensing's :func:`sense_next_card` (the event ``sense`` and the tally
``sensing:seen`` are the two genes' rows, declared there); its hook
:func:`environmental_sensing_look` is called by phases/phase2_environment.py ``phase2`` for each
player, after the card is revealed. The policy reads what was seen from the shared state field
(State.seen_card; strategies/ursuppe/policy.py ``sensed_ozone``), never the gene.
"""

from sim.jit import kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.genes.migration_sensing import sense_next_card
from sim.ursuppe.engine.players import has
from sim.ursuppe.rules.gene_rows import ExtraFlag, Gene

GENE = Gene(  # its event and tally are Migration Sensing's (XG-06)
    "Environmental Sensing",
    "XG-23",
    advanced=True,
    flags=(ExtraFlag("environmental_sensing_includes_migration", "XG-23", False),),
)

# The kernels' constant (a numba global): the gene; its flag is read by Migration Sensing's
# look (genes/migration_sensing.py, which this module imports).
ENVIRONMENTAL_SENSING, _ = indices(GENE)


@kernel
def environmental_sensing_look(st, wk, g, b, p, phase):
    """XG-23, Phase 2's hook (extra genes on): a new card was revealed; with Environmental
    Sensing player p looks at the next one (sense_next_card)."""
    if has(st, g, p, ENVIRONMENTAL_SENSING):
        sense_next_card(st, wk, g, b, p, phase)
