"""Population Explosion (XG-20): in Phase 4 its owner gets no income; all its BP return to the bank;
then it places free amoebas until it has as many on the board as the leading player (highest
marker) - or that many more (flag pop_explosion_mode = add_leader_count) - by D3's spaces, with
numbers of its choice (D4), as far as its supply lasts; every round while held, or only in the
round it was acquired (flag pop_explosion_each_round = false).

Its hooks, in phases/phase4_division.py: :func:`explodes` (instead of the income?),
:func:`explosion_begin` (the BP to the bank, how many amoebas to reach), :func:`explosion_placed`
(the tally ``explosion:placed``) and :func:`explosion_end` (the event ``explosion``). The
placements themselves stay the phase's (``population_explosion``: D3's spaces and D4's numbers,
as a division's), and so does their decision kind ``place_explosion`` (decision_kinds.py): its
choice key is the core ``place`` and the policy values it with every placement
(``_value_placements``) after decisions.decide_placement has expanded the rows, which a hook
cannot do before decide.
"""

from sim.jit import kernel
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import add_bp, amoebas_on_board, share_with_partner
from sim.ursuppe.rules.gene_rows import ExtraFlag, Gene

MODES = ("top_up", "add_leader_count")  # flag pop_explosion_mode
POP_TOP_UP, POP_ADD_LEADER_COUNT = range(len(MODES))

GENE = Gene(
    "Population Explosion",
    "XG-20",
    flags=(
        ExtraFlag("pop_explosion_mode", "XG-20", "top_up", MODES),
        ExtraFlag("pop_explosion_each_round", "XG-20", True),
    ),
    events=(("explosion", ("placed", "bp_returned")),),  # XG-20
    tallies=(("explosion:placed", "XG-20"),),
)

# The kernels' constants (numba globals): the gene, its flags, event and tally.
(
    POP_EXPLOSION,
    XF_POP_EXPLOSION_MODE,
    XF_POP_EXPLOSION_EACH_ROUND,
    EV_EXPLOSION,
    EXPLOSION_PLACED,
) = indices(GENE)


@kernel
def explodes(st, ru, g, p):
    """XG-20: does Population Explosion act in player p's Phase 4 this round? Every round while
    held, or (flag pop_explosion_each_round = false) only in the round it was acquired."""
    if not ru.extra_genes or st.genes[g, p, POP_EXPLOSION] == 0:
        return False
    return ru.xflag[XF_POP_EXPLOSION_EACH_ROUND] != 0 or st.gene_since[g, p, POP_EXPLOSION] == st.round[g]


@kernel
def explosion_begin(st, ru, g, p):
    """XG-20: all of p's BP return to the bank; then (the BP returned, p's amoebas on the board,
    the number to reach): the leading player's (highest marker), or that many more (flag
    pop_explosion_mode = add_leader_count). The leader itself places nothing but still loses its
    BP."""
    returned = st.bp[g, p]
    add_bp(st, ru, g, p, -returned)
    share_with_partner(st, ru, g, p)
    leader = 0
    for q in range(st.score.shape[1]):
        if st.score[g, q] > st.score[g, leader]:
            leader = q
    own = amoebas_on_board(st, g, p)
    target = 0
    if leader != p:
        target = amoebas_on_board(st, g, leader)
        if ru.xflag[XF_POP_EXPLOSION_MODE] == POP_ADD_LEADER_COUNT:
            target += own
    return returned, own, target


@kernel
def explosion_placed(wk, b):
    """XG-20: one free amoeba placed (the tally)."""
    wk.tally[b, EXPLOSION_PLACED] += 1


@kernel
def explosion_end(st, wk, g, p, placed, returned, phase):
    """XG-20: the explosion's event (amoebas placed, BP returned)."""
    log(st, wk, g, EV_EXPLOSION, phase, p, -1, placed, returned, 0, 0, 0, 0, 0)
