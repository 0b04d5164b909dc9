"""Alarm (XG-03): once one of its owner's amoebas was eaten in Phase 1, its amoebas have Escape for
the rest of Phase 1 (flag alarm_duration: or of the round, Phase 5's Aggression included); not
for an owner of Escape, and an eater of the own colour raises it as the flag
alarm_trigger_own_colour says.

The granted Escape is the player flag PF_ALARM (state.py: the state struct is shared; the
scenario format's ``"alarm"`` key and the policy's answer count read it). The hooks:
:func:`alarm_raised` (phases/phase1_movement_feeding.py ``attack``, after a kill; the event
``alarm``, the tally ``alarm:granted``), :func:`alarm_escape` (attacks.py ``_response_options``:
may the target escape by Alarm?), :func:`alarm_escape_taken` (attacks.resolve_attack: the tally
``alarm:escape``) and :func:`alarm_end_of_phase1` (phase1's end, flag alarm_duration).
"""

from sim.jit import kernel
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.genes.escape import holds_escape
from sim.ursuppe.engine.players import has, same_side
from sim.ursuppe.engine.state import PF_ALARM
from sim.ursuppe.rules.gene_rows import ExtraFlag, Gene

DURATIONS = ("rest_of_phase1", "rest_of_round")  # flag alarm_duration
ALARM_REST_OF_PHASE1, ALARM_REST_OF_ROUND = range(len(DURATIONS))

GENE = Gene(
    "Alarm",
    "XG-03",
    flags=(
        ExtraFlag("alarm_duration", "XG-03", "rest_of_phase1", DURATIONS),
        ExtraFlag("alarm_trigger_own_colour", "XG-03", True),
    ),
    events=(("alarm", ()),),  # XG-03: the owner's amoebas have Escape
    tallies=(
        ("alarm:granted", "XG-03"),
        ("alarm:escape", "XG-03: an escape the Alarm granted"),
    ),
)

# The kernels' constants (numba globals): the gene, its flags, event and tallies.
ALARM, XF_ALARM_DURATION, XF_ALARM_TRIGGER_OWN_COLOUR, EV_ALARM, ALARM_GRANTED, ALARM_ESCAPE = indices(GENE)


@kernel
def alarm_raised(st, ru, wk, g, b, p, q, t, phase):
    """XG-03: player q's amoeba was eaten: from now on its amoebas have Escape (not if q holds
    Escape; an own-colour eater as the flag alarm_trigger_own_colour says)."""
    if not ru.extra_genes or not has(st, g, q, ALARM) or holds_escape(st, g, q):
        return
    if st.player_flags[g, q] & PF_ALARM:
        return
    if same_side(ru, p, q) and ru.xflag[XF_ALARM_TRIGGER_OWN_COLOUR] == 0:
        return
    st.player_flags[g, q] |= PF_ALARM
    r = ru.partner[q]
    if r >= 0:
        st.player_flags[g, r] |= PF_ALARM  # TB3: one player, both colours
    wk.tally[b, ALARM_GRANTED] += 1
    log(st, wk, g, EV_ALARM, phase, q, t + 1, 0, 0, 0, 0, 0, 0, 0)


@kernel
def alarm_escape(st, ru, g, q, phase):
    """XG-03: player q's amoebas have Escape by Alarm now (granted this round after one of its
    amoebas was eaten in Phase 1; in Phase 5 too with the flag alarm_duration rest_of_round)."""
    if not ru.extra_genes or (st.player_flags[g, q] & PF_ALARM) == 0 or not has(st, g, q, ALARM):
        return False
    return phase == 1 or ru.xflag[XF_ALARM_DURATION] == ALARM_REST_OF_ROUND


@kernel
def alarm_escape_taken(st, wk, g, b, q):
    """XG-03, an escape's hook (A3): player q escaped without Escape, so by its Alarm (tally)."""
    if not holds_escape(st, g, q):
        wk.tally[b, ALARM_ESCAPE] += 1


@kernel
def alarm_end_of_phase1(st, ru, g):
    """XG-03 (flag alarm_duration = rest_of_phase1): Alarm's Escape ends with Phase 1."""
    if ru.extra_genes and ru.xflag[XF_ALARM_DURATION] == ALARM_REST_OF_PHASE1:
        for p in range(st.seat.shape[1]):
            st.player_flags[g, p] &= ~PF_ALARM
