"""Tallies of what happened in a batch: decisions by kind (§9) and outcomes (§8, §18), declared once.

``Workspace.tally[b, i]`` counts event ``i`` over the games of block b (one writer per row, so
threads never share a counter); the batch total is the sum over blocks. The fuzz tests read them
to show that the random strategy reaches every decision and every outcome. The first N_KINDS
tallies are ``decision:<kind>`` (a decision with at least two legal options), one per row of
decision_kinds.DECISION_KINDS; then one per row of :data:`OUTCOMES` (name, what it counts).
"""

from sim.ursuppe.engine.decision_kinds import DECISION_KINDS, KIND_NAMES, N_KINDS
from sim.ursuppe.rules import gene_tables

DECISION = 0  # DECISION + kind: a decision with at least two legal options

OUTCOMES: tuple[tuple[str, str], ...] = (
    ("attack:success", "A6"),
    ("attack:escaped", "A3"),
    ("attack:defended", "A4"),
    ("attack:clung", "Holding"),
    *gene_tables.ESCAPE_TALLIES,  # A3 (sim/ursuppe/engine/genes/escape.py)
    *gene_tables.DEFENSE_TALLIES,  # A4 (sim/ursuppe/engine/genes/defense.py)
    *gene_tables.PERSISTENCE_TALLIES,  # A5 (sim/ursuppe/engine/genes/persistence.py)
    *gene_tables.ARMOR_TALLIES,  # R3 (sim/ursuppe/engine/genes/armor.py)
    *gene_tables.AGGRESSION_TALLIES,  # R4 (sim/ursuppe/engine/genes/aggression.py)
    *gene_tables.PARASITISM_TALLIES,  # F4 (sim/ursuppe/engine/genes/parasitism.py)
    *gene_tables.HOLDING_TALLIES,  # Holding (sim/ursuppe/engine/genes/holding.py)
    *gene_tables.TENTACLE_TALLIES,  # Tentacle (sim/ursuppe/engine/genes/tentacle.py)
    # The extra genes (docs/rules.md §18)
    ("market:reveal", "XM4"),
    ("market:discard", "XM5"),
    ("glutton:meal", "XG-02: a meal with the extra cube"),
    ("alarm:granted", "XG-03"),
    ("alarm:escape", "XG-03: an escape the Alarm granted"),
    ("cleanliness:moved", "XG-04: excreted cubes put on a neighbouring space"),
    ("hard_crust:paid", "XG-05"),
    ("hard_crust:refused", "XG-05: the attack failed for want of the extra BP"),
    ("fast_food:eat_first", "XG-07"),
    ("exchange:made", "XG-08"),
    ("mouthful:survived", "XG-09"),
    ("social:income", "XG-10: Phase-6 BP"),
    ("social:taken", "XG-10: taken from its holder"),
    ("camouflage:no_defence", "XG-11, XG-24: an attack the target could not answer"),
    ("suction:meal", "XG-12, XG-26: a meal with a neighbour's cube"),
    ("threat_display:protected", "XG-13: a target an attacker could not choose"),
    ("flexible:discount", "XG-14"),
    ("healing:dp_removed", "XG-15, XG-25"),
    ("healing2:dp_given", "XG-25"),
    *gene_tables.REBOUND_TALLIES,  # XG-16 (sim/ursuppe/engine/genes/rebound.py)
    ("bang:dp", "XG-17: an amoeba hit by a bang"),
    ("short_life:death", "XG-18: a death at the lowered threshold"),
    *gene_tables.TOXIC_EXCRETIONS_TALLIES,  # XG-19 (sim/ursuppe/engine/genes/toxic_excretions.py)
    ("explosion:placed", "XG-20"),
    ("energy:bp", "XG-21"),
    ("sensing:seen", "XG-06, XG-23"),
    *gene_tables.APPENDED_TALLIES,  # the gene modules' (docs/adding-a-gene.md)
)
TALLY_NAMES: tuple[str, ...] = tuple(f"decision:{k}" for k in KIND_NAMES) + tuple(n for n, _ in OUTCOMES)
N_TALLIES = len(TALLY_NAMES)
TALLY_INDEX: dict[str, int] = {name: i for i, name in enumerate(TALLY_NAMES)}
# The tallies only a game with the extra genes can reach (rule ids XM.., XG..): the base fuzz
# test leaves them out, the extra-gene fuzz test asks for every one.
EXTRA_TALLY_NAMES: frozenset[str] = frozenset(
    [f"decision:{k.name}" for k in DECISION_KINDS if k.rule.startswith("X")]
    + [n for n, rule in OUTCOMES if rule.startswith("X")]
)
(
    ATTACK_SUCCESS,
    ATTACK_ESCAPED,
    ATTACK_DEFENDED,
    ATTACK_CLUNG,
    _,  # a gene module's tally (escape.py): it names its index itself (TALLY_INDEX)
    _,  # the 2 tallies of a gene module (defense.py): it names their indices itself
    _,
    _,  # the 2 tallies of a gene module (persistence.py): it names their indices itself
    _,
    _,  # a gene module's tally (armor.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (aggression.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (parasitism.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (holding.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (tentacle.py): it names its index itself (TALLY_INDEX)
    MARKET_REVEAL,
    MARKET_DISCARD,
    GLUTTON_MEAL,
    ALARM_GRANTED,
    ALARM_ESCAPE,
    CLEANLINESS_MOVED,
    HARD_CRUST_PAID,
    HARD_CRUST_REFUSED,
    FAST_FOOD_EAT_FIRST,
    EXCHANGE_MADE,
    MOUTHFUL_SURVIVED,
    SOCIAL_INCOME,
    SOCIAL_TAKEN,
    CAMOUFLAGE_NO_DEFENCE,
    SUCTION_MEAL,
    THREAT_DISPLAY_PROTECTED,
    FLEXIBLE_DISCOUNT,
    HEALING_DP_REMOVED,
    HEALING2_DP_GIVEN,
    _,  # a gene module's tally (rebound.py): it names its index itself (TALLY_INDEX)
    BANG_DP,
    SHORT_LIFE_DEATH,
    _,  # the 2 tallies of a gene module (toxic_excretions.py): it names their indices itself
    _,
    EXPLOSION_PLACED,
    ENERGY_BP,
    SENSING_SEEN,
) = range(N_KINDS, N_TALLIES - len(gene_tables.APPENDED_TALLIES))
