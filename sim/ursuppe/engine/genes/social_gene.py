"""Social Gene (XG-10): effect A, in Phase 6 its owner receives 1 BP for each opponent whose marker
is ``social_gene_gap`` (6) or more spaces ahead of its own, at the moment flag social_gene_timing
names; effect B, the last player may take it from its holder in Phase 3 for
``social_gene_steal_price`` BP (paid to the holder or to nobody, flag
social_gene_steal_payment_to).

Its hooks: :func:`social_gene_holder` and the income at each moment
(:func:`social_income_before_advance`, :func:`social_income_after_advance`,
:func:`social_income_end_of_phase`) in phases/phase6_scoring.py ``phase6``;
:func:`social_gene_takeable` and :func:`social_gene_taken` in phases/phase3_genes.py
(``purchase_options``, ``buy``). The income is logged as the event ``gene_income``, which it
shares with Energy Conservation (XG-21, genes/energy_conservation.py, the first of the two to
have a module), a taking as the event ``take``. What stays central is every gene's price and
source (players.gene_cost, gene_source: G1, G2, G4, read by the market, the exchange and the
policy), which name this gene and its taking price by GENE_INDEX and XFLAG_INDEX: players.py is
below this module, which imports it.
"""

import numpy as np

from sim.jit import kernel
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.gene_sets import set_gene
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.genes.energy_conservation import EV_GENE_INCOME
from sim.ursuppe.engine.players import add_bp, gene_holder, share_with_partner
from sim.ursuppe.rules.gene_rows import ExtraFlag, Gene

TIMINGS = ("end_of_phase6", "at_owner_turn_before_advance", "at_owner_turn_after_advance")
SOCIAL_END_OF_PHASE6, SOCIAL_BEFORE_ADVANCE, SOCIAL_AFTER_ADVANCE = range(len(TIMINGS))
PAYMENT_TO = ("holder", "nobody")
STEAL_TO_HOLDER = PAYMENT_TO.index("holder")

GENE = Gene(
    "Social Gene",
    "XG-10",
    flags=(
        ExtraFlag("social_gene_timing", "XG-10", "end_of_phase6", TIMINGS, placeholder=True),
        ExtraFlag("social_gene_steal_payment_to", "XG-10", "holder", PAYMENT_TO, placeholder=True),
        ExtraFlag("social_gene_steal_price", "XG-10", 2, lo=0, hi=100),
        ExtraFlag("social_gene_gap", "XG-10", 6, lo=1, hi=1000),
    ),
    events=(("take", ("gene", "holder", "price")),),  # XG-10: the Social Gene taken from its holder
    tallies=(
        ("social:income", "XG-10: Phase-6 BP"),
        ("social:taken", "XG-10: taken from its holder"),
    ),
)

# The kernels' constants (numba globals): the gene, its flags, event and tallies.
(
    SOCIAL_GENE,
    XF_SOCIAL_GENE_TIMING,
    XF_SOCIAL_GENE_STEAL_PAYMENT_TO,
    _,  # the steal price: players.gene_cost reads it (this module imports players)
    XF_SOCIAL_GENE_GAP,
    EV_TAKE,
    SOCIAL_INCOME,
    SOCIAL_TAKEN,
) = indices(GENE)


@kernel
def social_gene_holder(st, ru, g):
    """XG-10, Phase 6's hook: the player holding the Social Gene, -1 if none (or no extra genes)."""
    return gene_holder(st, g, SOCIAL_GENE) if ru.extra_genes else -1


@kernel
def _income(st, ru, wk, g, b, p, phase):
    """XG-10 effect A: the Social Gene's owner p receives 1 BP for each opponent whose marker is
    ``social_gene_gap`` (6) or more spaces ahead of its own (the plain difference of positions)."""
    gap = ru.xflag[XF_SOCIAL_GENE_GAP]
    bp = 0
    for q in range(st.score.shape[1]):
        if q != p and st.score[g, q] - st.score[g, p] >= gap:
            bp += 1
    if bp > 0:
        add_bp(st, ru, g, p, bp)
        share_with_partner(st, ru, g, p)
        wk.tally[b, SOCIAL_INCOME] += bp
        log(st, wk, g, EV_GENE_INCOME, phase, p, -1, SOCIAL_GENE, bp, 0, 0, 0, 0, 0)


@kernel
def social_income_before_advance(st, ru, wk, g, b, p, social, phase):
    """XG-10 (flag social_gene_timing = at_owner_turn_before_advance): at its owner's Phase-6 turn
    (``social``, the holder), before its marker advances."""
    if p == social and ru.xflag[XF_SOCIAL_GENE_TIMING] == SOCIAL_BEFORE_ADVANCE:
        _income(st, ru, wk, g, b, p, phase)


@kernel
def social_income_after_advance(st, ru, wk, g, b, p, social, phase):
    """XG-10 (flag social_gene_timing = at_owner_turn_after_advance): after its marker advanced."""
    if p == social and ru.xflag[XF_SOCIAL_GENE_TIMING] == SOCIAL_AFTER_ADVANCE:
        _income(st, ru, wk, g, b, p, phase)


@kernel
def social_income_end_of_phase(st, ru, wk, g, b, social, phase):
    """XG-10 (flag social_gene_timing = end_of_phase6, PLACEHOLDER): after every marker, before W1."""
    if social >= 0 and ru.xflag[XF_SOCIAL_GENE_TIMING] == SOCIAL_END_OF_PHASE6:
        _income(st, ru, wk, g, b, social, phase)


@kernel
def social_gene_takeable(ru):
    """XG-10 effect B, the purchase list's hook (G2): the genes that may be listed with no card in
    the pool, as a mask: the Social Gene, taken from its holder (players.gene_source says whether)."""
    if not ru.extra_genes:
        return np.int64(0)
    return np.int64(1) << SOCIAL_GENE


@kernel
def social_gene_taken(st, ru, wk, g, b, p, holder, gene, cost, phase):
    """XG-10 effect B, the purchase's hook: player p took the Social Gene (``gene``) from
    ``holder`` for ``cost`` BP; the holder gives the card up and gets the BP (flag
    social_gene_steal_payment_to). Logged as the event take."""
    set_gene(st, g, holder, gene, 0)
    if ru.xflag[XF_SOCIAL_GENE_STEAL_PAYMENT_TO] == STEAL_TO_HOLDER:
        add_bp(st, ru, g, holder, cost)
    share_with_partner(st, ru, g, holder)
    wk.tally[b, SOCIAL_TAKEN] += 1
    log(st, wk, g, EV_TAKE, phase, p, -1, gene, holder, cost, 0, 0, 0, 0)
