"""Migration Sensing (XG-06): at the start of Phase 1 the owner looks at the next environment card
(the one the coming Phase 2 reveals) and keeps it secret. Environmental Sensing (XG-23) looks
right after Phase 2 reveals a card (genes/environmental_sensing.py), and has this Phase-1 look
too only with its flag environmental_sensing_includes_migration.

A look is :func:`sense_next_card`: ``State.seen_card[g, p]`` is the deck position seen, read by
p's own strategy only (strategies/ursuppe/policy.py ``sensed_ozone``: the state field is shared,
so that reading stays with the policy); Phase 2 forgets it once the card is face up. The phase-1
look is :func:`migration_sensing_look` (phases/phase1_movement_feeding.py ``phase1``). The event
``sense`` and the tally ``sensing:seen`` are the two genes' rows, declared here.
"""

from sim.jit import kernel
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.rules.extra_flags import XFLAG_INDEX
from sim.ursuppe.rules.gene_rows import Gene
from sim.ursuppe.rules.genes import GENE_INDEX

GENE = Gene(
    "Migration Sensing",
    "XG-06",
    events=(("sense", ("position", "ozone")),),  # XG-06, XG-23: the next card (deck position), seen privately
    tallies=(("sensing:seen", "XG-06, XG-23"),),
)

# The kernels' constants (numba globals): the gene, the gene that may include it (XG-23) and its
# flag, the event and the tally.
MIGRATION_SENSING, EV_SENSE, SENSING_SEEN = indices(GENE)
# XG-23 includes XG-06 with its flag (genes/environmental_sensing.py imports this module, so
# they are named here)
_INCLUDED_IN = GENE_INDEX["Environmental Sensing"]
_XF_INCLUDES = XFLAG_INDEX["environmental_sensing_includes_migration"]


@kernel
def sense_next_card(st, wk, g, b, p, phase):
    """XG-06, XG-23: player p looks at the next environment card (the one after the current
    card, which the coming Phase 2 reveals) and keeps it secret: ``State.seen_card[g, p]`` is its
    deck position, read by p's own strategy only (strategies/ursuppe/policy.py). Nothing to see at the
    deck's end."""
    nxt = st.deck_pos[g] + 1
    if nxt >= st.n_cards[g] or st.seen_card[g, p] == nxt:
        return
    st.seen_card[g, p] = nxt
    wk.tally[b, SENSING_SEEN] += 1
    log(st, wk, g, EV_SENSE, phase, p, -1, nxt, st.card_ozone[g, nxt], 0, 0, 0, 0, 0)


@kernel
def migration_sensing_look(st, ru, wk, g, b, phase):
    """XG-06, the start of Phase 1's hook: each owner looks at the next card (sense_next_card), in
    seat order; so does each owner of Environmental Sensing (XG-23) with the flag
    environmental_sensing_includes_migration."""
    if not ru.extra_genes:
        return
    included = ru.xflag[_XF_INCLUDES] != 0
    for p in range(st.seat.shape[1]):
        if has(st, g, p, MIGRATION_SENSING) or (included and has(st, g, p, _INCLUDED_IN)):
            sense_next_card(st, wk, g, b, p, phase)
