"""Armor (§8 A1, R3; advanced, gives up Defense or Escape): its owner's amoebas cannot be attacked
in Phase 1 (A1; the base flag armor_blocks_own_attacks: not even by the owner's own, a rules-book
flag); in Phase 5 an Aggression attack on them succeeds but the target does not die: it takes
DP instead (the rules' aggression_armor_dp; it can die in a later Phase 5).

Its row: the tally ``armor:dp``. Its hooks: :func:`armor_protects` (attacks.target_options, the
Phase-1 targets) and :func:`armor_takes_dp` (genes/aggression._attack_once, R3; the damage
event it logs there is shared with R4 and XG-05). The strategies read :data:`ARMOR` for a
target's value and for which lower gene to give up (policy._target_value, policy._value_buy).
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.rules.gene_rows import Gene

GENE = Gene(
    "Armor", "R3", tallies=(("armor:dp", "R3: an armored target took DP instead of dying"),), advanced=True
)

# The kernels' constants (numba globals): the gene and its tally.
ARMOR, ARMOR_DP = indices(GENE)


@kernel
@always_inline
def armor_protects(st, ru, g, q, own):
    """A1: does Armor keep player q's amoebas from being a Phase-1 target? Against another
    player's attacks; against q's ``own`` ones too with the flag armor_blocks_own_attacks."""
    return has(st, g, q, ARMOR) and (not own or ru.armor_blocks_own_attacks)


@kernel
def armor_takes_dp(st, ru, wk, g, b, q, t):
    """R3: an Aggression attack on (q, t) succeeded: with Armor the target does not die but takes
    DP (True; the caller logs the damage), else False (it dies)."""
    if not has(st, g, q, ARMOR):
        return False
    st.dp[g, q, t] += ru.aggression_armor_dp
    wk.tally[b, ARMOR_DP] += 1
    return True
