"""Defense (§8 A2, A4): the owner may answer an attack on its amoeba with a fight: 1 BP; the
attacker rolls a die, then the target; ties are re-rolled the same way; higher wins. A won fight
ends the attack (in Phase 5 the attacker then takes DP, R4). With Persistence a lost fight is
fought once more, free (A5).

Its rows: the event ``fight`` and the tallies ``fight:defender_won`` and ``fight:defender_lost``.
Its hooks are called where an attack is answered (attacks.py): :func:`may_defend` (the answers on
offer, _response_options) and :func:`defend` (the fight, resolve_attack). The answer decision
(``respond``, A2) is shared with Escape and stays with the attacks, as do the attack results
(attacks.ATTACK_DEFENDED, tally attack:defended); the strategies' answer test reads
:data:`DEFENSE` (policy._can_answer, valuing the shared attack decisions).
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.dice import roll_die
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.genes.persistence import persistence_refights
from sim.ursuppe.engine.players import add_bp, has
from sim.ursuppe.engine.state import AF_DEFENDED
from sim.ursuppe.rules.gene_rows import Gene

GENE = Gene(
    "Defense",
    "A4",
    events=(("fight", ("attacker_roll", "defender_roll", "defender_wins", "persistence")),),
    tallies=(("fight:defender_won", "A4"), ("fight:defender_lost", "A4")),
)

# The kernels' constants (numba globals): the gene, its event and tallies.
DEFENSE, EV_FIGHT, FIGHT_DEFENDER_WON, FIGHT_DEFENDER_LOST = indices(GENE)


@kernel
@always_inline
def may_defend(st, ru, g, q):
    """A4: may player q answer an attack with Defense (it holds the gene and can pay)?"""
    return has(st, g, q, DEFENSE) and st.bp[g, q] >= ru.defense_cost


@kernel
def _fight(st, ru, wk, g, b, q, t, phase, persistence):
    """A4: attacker rolls, then the target; ties are re-rolled; True if the target wins."""
    while True:
        ra = roll_die(st, wk, g)
        rd = roll_die(st, wk, g)
        if ra != rd or wk.error[g, 0] != 0:
            break
    log(st, wk, g, EV_FIGHT, phase, q, t + 1, ra, rd, 1 if rd > ra else 0, persistence, 0, 0, 0)
    wk.tally[b, FIGHT_DEFENDER_WON if rd > ra else FIGHT_DEFENDER_LOST] += 1
    return rd > ra


@kernel
def defend(st, ru, wk, g, b, q, t, phase):
    """A4: amoeba (q, t) answers with Defense (the caller has checked the BP): it pays, the answer
    is noted (flag answers_once_per_round), and it fights; A5: with Persistence a lost fight is
    fought once more, free. True if the target won (the attack fails)."""
    add_bp(st, ru, g, q, -ru.defense_cost)
    st.amoeba_flags[g, q, t] |= AF_DEFENDED
    if _fight(st, ru, wk, g, b, q, t, phase, 0):
        return True
    if persistence_refights(st, wk, g, b, q):
        return _fight(st, ru, wk, g, b, q, t, phase, 1)
    return False
