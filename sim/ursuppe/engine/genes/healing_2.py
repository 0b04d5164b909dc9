"""Healing 2 (XG-25, an advanced gene over Healing 1): its owner's heal (``healing2_cost``, 4 BP)
gives the DP removed to another amoeba on the same space (any colour with the flag
healing2_target_any_colour, the default), which dies at once when it reaches its threshold. It
heals where the flag healing2_phase says: Phase 4 (the default, a PLACEHOLDER), Phase 5 before the
deaths, or at any of its owner's turns (Phases 1, 3 and 4; docs/decisions.md); with the flag
healing2_includes_healing1 Healing 1's plain heal too.

The healing itself is Healing 1's module (genes/healing_1.py: the decision kind, event and tally
the two share), which asks this one :func:`healing2_now` (also the phases: is it a heal turn?) and
calls :func:`healing2_give` for the receiver (the tally ``healing2:dp_given``). This module
imports no other gene module, so healing_1.py may import it.
"""

from sim.jit import kernel
from sim.ursuppe.engine.attacks import die
from sim.ursuppe.engine.deaths import DEATH_NATURAL
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import death_threshold
from sim.ursuppe.rules.gene_rows import ExtraFlag, Gene

PHASES = ("phase4", "any_own_turn", "phase5_before_deaths")  # flag healing2_phase
HEALING2_PHASE4, HEALING2_ANY_OWN_TURN, HEALING2_PHASE5 = range(len(PHASES))

GENE = Gene(
    "Healing 2",
    "XG-25",
    advanced=True,
    flags=(
        ExtraFlag("healing2_phase", "XG-25", "phase4", PHASES, placeholder=True),
        ExtraFlag("healing2_includes_healing1", "XG-25", False),
        ExtraFlag("healing2_target_any_colour", "XG-25", True),
        ExtraFlag("healing2_cost", "XG-25", 4, lo=0, hi=100),
    ),
    tallies=(("healing2:dp_given", "XG-25"),),
)

# The kernels' constants (numba globals): the gene, its flags and tally.
(
    HEALING_2,
    XF_HEALING2_PHASE,
    XF_HEALING2_INCLUDES_HEALING1,
    XF_HEALING2_TARGET_ANY_COLOUR,
    XF_HEALING2_COST,
    HEALING2_DP_GIVEN,
) = indices(GENE)


@kernel
def healing2_now(ru, phase):
    """XG-25: may Healing 2 heal at its owner's turn in ``phase``? Flag healing2_phase: Phase 4
    (as Healing 1), Phase 5 before the deaths, or any own turn: the owner's turn in Phase 1
    (before its amoebas move), Phase 3 (before it buys) and Phase 4 (before it divides)."""
    setting = ru.xflag[XF_HEALING2_PHASE]
    if setting == HEALING2_ANY_OWN_TURN:
        return phase == 1 or phase == 3 or phase == 4
    if setting == HEALING2_PHASE5:
        return phase == 5
    return phase == 4


@kernel
def healing2_give(st, ru, wk, g, b, q, t, phase):
    """XG-25, the heal's hook (genes/healing_1.py): the DP removed goes to amoeba (q, t), which
    dies at once when it reaches its threshold (X1's cubes)."""
    st.dp[g, q, t] += 1
    wk.tally[b, HEALING2_DP_GIVEN] += 1
    if st.dp[g, q, t] >= death_threshold(st, ru, g, q):
        # XG-17: a death like any other (Go Out With a Bang)
        die(st, ru, wk, g, b, q, t, ru.natural_death_cubes, DEATH_NATURAL, phase)
