"""Camouflage 2 (XG-24, an advanced gene over Camouflage 1): the targets of its owner's attacks can
never answer them (no roll; Armor is no answer and still protects).

What Camouflage does is Camouflage 1's (genes/camouflage_1.py: ``camouflage`` takes the answers
away without a roll for this gene, and the event ``camouflage`` and tally
``camouflage:no_defence``, declared there, count both genes). The policy's valuation of an attack
target (a shared decision, strategies/ursuppe/policy.py ``_target_value``) reads whether the
attacker holds it: a target's answers do not count then. This module calls no decision and
imports no other gene module, so both may import its constant.
"""

from sim.ursuppe.engine.genes import indices
from sim.ursuppe.rules.gene_rows import Gene

GENE = Gene("Camouflage 2", "XG-24", advanced=True)  # its rows are Camouflage 1's (XG-11)

(CAMOUFLAGE_2,) = indices(GENE)
