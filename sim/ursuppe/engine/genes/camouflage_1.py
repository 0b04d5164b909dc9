"""Camouflage 1 (XG-11): before its owner's amoeba attacks, the owner rolls a die; 4-6 takes every
answer away from the target (Escape, Defense, Alarm's Escape; Armor is no answer and still
protects). With the flag camouflage_roll_per_attempt (the default) Persistence's retry rolls
again. Camouflage 2 (XG-24, genes/camouflage_2.py) takes the answers away without a roll.

Its hooks: :func:`camouflage` (the roll, before an attack: phases/phase1_movement_feeding.py
``attack``, phases/phase5_deaths.py) and :func:`camouflage_retry` (before Persistence's retry,
the flag), logged as the event ``camouflage``; :func:`camouflage_no_defence` counts an attack
the target could not answer in the tally ``camouflage:no_defence`` (attacks.resolve_attack). The
event and the tally are the two genes' rows, declared here.
"""

from sim.jit import kernel
from sim.ursuppe.engine.dice import roll_die
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.genes.camouflage_2 import CAMOUFLAGE_2
from sim.ursuppe.engine.players import has
from sim.ursuppe.rules.gene_rows import ExtraFlag, Gene

GENE = Gene(
    "Camouflage 1",
    "XG-11",
    flags=(ExtraFlag("camouflage_roll_per_attempt", "XG-11", True),),
    events=(("camouflage", ("roll", "defence_allowed")),),  # XG-11, XG-24
    tallies=(("camouflage:no_defence", "XG-11, XG-24: an attack the target could not answer"),),
)

# The kernels' constants (numba globals): the gene, its flag, the event and tally it shares with
# Camouflage 2.
CAMOUFLAGE_1, XF_CAMOUFLAGE_ROLL_PER_ATTEMPT, EV_CAMOUFLAGE, CAMOUFLAGE_NO_DEFENCE = indices(GENE)


@kernel
def camouflage(st, ru, wk, g, p, a, phase):
    """XG-11, XG-24: may the target of amoeba (p, a)'s attack not answer it? Camouflage 2: never
    (no roll); Camouflage 1: the attacker's owner rolls a die, 4-6 takes every answer away
    (Escape, Defense, Alarm's Escape); Armor is no answer and still protects."""
    if not ru.extra_genes:
        return False
    if has(st, g, p, CAMOUFLAGE_2):
        log(st, wk, g, EV_CAMOUFLAGE, phase, p, a + 1, 0, 0, 0, 0, 0, 0, 0)
        return True
    if has(st, g, p, CAMOUFLAGE_1):
        roll = roll_die(st, wk, g)
        log(st, wk, g, EV_CAMOUFLAGE, phase, p, a + 1, roll, 1 if roll <= 3 else 0, 0, 0, 0, 0, 0)
        return roll >= 4
    return False


@kernel
def camouflage_retry(st, ru, wk, g, p, a, denied, phase):
    """XG-11 (flag camouflage_roll_per_attempt), before Persistence's retry (A5): a new roll
    (camouflage), else the first attempt's ``denied`` stands."""
    if ru.xflag[XF_CAMOUFLAGE_ROLL_PER_ATTEMPT] != 0:
        return camouflage(st, ru, wk, g, p, a, phase)
    return denied


@kernel
def camouflage_no_defence(wk, b):
    """XG-11, XG-24: an attack Camouflage left the target no answer to (attacks.resolve_attack)."""
    wk.tally[b, CAMOUFLAGE_NO_DEFENCE] += 1
