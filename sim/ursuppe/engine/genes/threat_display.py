"""Threat Display (XG-13; "Thread Display" in the seed, its name in results): an owner's amoeba can
be attacked only by enemy amoebas whose number is at most its own; by its own colour (and a double
play partner's) as the flag threat_display_own_attackers says (forbidden, the number rule,
anyone).

Its hook :func:`threat_display_protects` is asked for each target an attacker could choose, in
attacks.py ``target_options`` (A1, Persistence's retry) and phases/phase5_deaths.py (R1); a
target it protects counts in the tally ``threat_display:protected``.
"""

from sim.jit import kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has, same_side
from sim.ursuppe.rules.gene_rows import ExtraFlag, Gene

OWN_ATTACKERS = ("forbidden", "number_rule", "unrestricted")  # flag threat_display_own_attackers
THREAT_FORBIDDEN, THREAT_NUMBER_RULE, THREAT_UNRESTRICTED = range(len(OWN_ATTACKERS))

GENE = Gene(
    "Thread Display",
    "XG-13",
    aliases=("Threat Display",),  # the probable English name ("Thread" is the seed's)
    flags=(ExtraFlag("threat_display_own_attackers", "XG-13", "forbidden", OWN_ATTACKERS),),
    tallies=(("threat_display:protected", "XG-13: a target an attacker could not choose"),),
)

# The kernels' constants (numba globals): the gene, its flag and tally.
THREAT_DISPLAY, XF_THREAT_DISPLAY_OWN_ATTACKERS, THREAT_DISPLAY_PROTECTED = indices(GENE)


@kernel
def threat_display_allows(st, ru, g, p, a, q, t):
    """XG-13: may amoeba (p, a) attack (q, t)? An owner with Thread Display can be attacked only
    by enemy amoebas whose number is at most the target's; its own colour (and a double play
    partner's) as the flag threat_display_own_attackers says (forbidden, number rule, anyone)."""
    if not ru.extra_genes or not has(st, g, q, THREAT_DISPLAY):
        return True
    if same_side(ru, p, q):
        mode = ru.xflag[XF_THREAT_DISPLAY_OWN_ATTACKERS]
        if mode == THREAT_FORBIDDEN:
            return False
        if mode == THREAT_UNRESTRICTED:
            return True
    return a <= t


@kernel
def threat_display_protects(st, ru, wk, g, b, p, a, q, t):
    """XG-13, the target list's hook: True (and the tally) if (q, t)'s Thread Display keeps amoeba
    (p, a) from choosing it (threat_display_allows)."""
    if threat_display_allows(st, ru, g, p, a, q, t):
        return False
    wk.tally[b, THREAT_DISPLAY_PROTECTED] += 1
    return True
