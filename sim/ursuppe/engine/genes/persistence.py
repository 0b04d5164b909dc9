"""Persistence (§8 A5, R4; advanced, gives up Speed; also called Endurance): after a failed attack
the attacker may make one free second attempt (its owner picks a target on its current space;
the target may answer again); after a lost Defense fight the defender fights once more for free
(automatic). Persistence includes Speed's ability (genes/speed.py). The base flags
persistence_after_clinging (a retry also after clinging to the escaping target, A3) and
persistence_copies_4p (its copies, rules data) stay in the rules book.

Its rows: the tallies ``persistence:refight`` and ``persistence:retry``. Its hooks:
:func:`persistence_refights` (genes/defense.defend: the second fight), :func:`persistence_retries`
(after an attack in Phase 1 and Phase 5: phases/phase1_movement_feeding.attack,
genes/aggression.aggression) and :func:`persistence_retried` (attacks.retry_target, when a
retry target was picked). The retry's target decision is the attack decision (``attack``, A1 and
A5), shared with Struggle for Survival, and stays with the attacks.
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.rules.gene_rows import Gene

GENE = Gene(
    "Persistence",
    "A5",
    aliases=("Endurance",),  # another translation (§7)
    advanced=True,
    tallies=(
        ("persistence:refight", "A5: a lost Defense fight fought again"),
        ("persistence:retry", "A5: the attacker's free second attempt"),
    ),
)

# The kernels' constants (numba globals): the gene and its tallies.
PERSISTENCE, PERSISTENCE_REFIGHT, PERSISTENCE_RETRY = indices(GENE)


@kernel
def persistence_refights(st, wk, g, b, q):
    """A5: player q's amoeba lost a Defense fight: with Persistence it fights once more (True)."""
    if not has(st, g, q, PERSISTENCE):
        return False
    wk.tally[b, PERSISTENCE_REFIGHT] += 1
    return True


@kernel
@always_inline
def persistence_retries(st, ru, g, p, failed, clung):
    """A5: may player p's attacker make its free second attempt? After a ``failed`` attack (the
    target escaped or won a Defense fight), or after it ``clung`` to the escaping target with the
    flag persistence_after_clinging (A3: on the new space), if p holds Persistence."""
    return (failed or (clung and ru.persistence_after_clinging)) and has(st, g, p, PERSISTENCE)


@kernel
def persistence_retried(wk, b):
    """A5: a retry's target was picked (the attacker did not decline its second attempt)."""
    wk.tally[b, PERSISTENCE_RETRY] += 1
