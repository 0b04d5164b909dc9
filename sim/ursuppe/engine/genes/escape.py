"""Escape (§8 A2-A3): the owner may answer an attack on its amoeba with an escape: 1 BP (0 with
Streamlining), the target makes an active move (with Movement I/II, Speed, Tentacle, and
Holding's clinging). If it ends on another space the attack fails; if it stays (a 5, an
obstacle, Movement II's stay) the attack goes on. Phase 5's attacks too (R2).

Its row: the tally ``escape:stayed``. Its hooks are called where an attack is answered
(attacks.py): :func:`holds_escape` (the answers on offer, _response_options; XG-03's Alarm
grants an Escape to an owner without it, phases/phase1_movement_feeding._alarm and the tally
alarm:escape) and :func:`escape` (the escape itself, resolve_attack). The answer decision
(``respond``, A2) is shared with Defense and stays with the attacks, as do the attack results
(attacks.ATTACK_ESCAPED, tally attack:escaped); the strategies' answer test reads
:data:`ESCAPE` (policy._can_answer, valuing the shared attack decisions).
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.movement import active_movement
from sim.ursuppe.engine.players import has
from sim.ursuppe.engine.state import AF_ESCAPED
from sim.ursuppe.rules.gene_rows import Gene

GENE = Gene(
    "Escape",
    "A3",
    tallies=(("escape:stayed", "A3: an escape that did not leave the space: the attack went on"),),
)

# The kernels' constants (numba globals): the gene and its tally.
ESCAPE, ESCAPE_STAYED = indices(GENE)


@kernel
@always_inline
def holds_escape(st, g, q):
    """A3: does player q hold Escape (rather than Alarm's granted one, XG-03)?"""
    return has(st, g, q, ESCAPE)


@kernel
def escape(st, ru, wk, g, b, q, t, phase):
    """A3: amoeba (q, t) escapes (the caller has checked the BP): an answer given (flag
    answers_once_per_round), then its active move, paid at the escape's price. True if it left
    its space (the attack failed, or ended with the attacker clinging); else the attack goes on."""
    space = st.space[g, q, t]
    st.amoeba_flags[g, q, t] |= AF_ESCAPED
    active_movement(st, ru, wk, g, b, q, t, True, phase)
    if st.space[g, q, t] != space:
        return True
    wk.tally[b, ESCAPE_STAYED] += 1
    return False
