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
    *gene_tables.GLUTTON_TALLIES,  # XG-02 (sim/ursuppe/engine/genes/glutton.py)
    *gene_tables.ALARM_TALLIES,  # XG-03 (sim/ursuppe/engine/genes/alarm.py)
    *gene_tables.CLEANLINESS_TALLIES,  # XG-04 (sim/ursuppe/engine/genes/cleanliness.py)
    *gene_tables.HARD_CRUST_TALLIES,  # XG-05 (sim/ursuppe/engine/genes/hard_crust.py)
    *gene_tables.FAST_FOOD_TALLIES,  # XG-07 (sim/ursuppe/engine/genes/fast_food.py)
    *gene_tables.HIGHLY_ADAPTABLE_TALLIES,  # XG-08 (sim/ursuppe/engine/genes/highly_adaptable.py)
    *gene_tables.MORE_THAN_A_MOUTHFUL_TALLIES,  # XG-09 (sim/ursuppe/engine/genes/more_than_a_mouthful.py)
    *gene_tables.SOCIAL_GENE_TALLIES,  # XG-10 (sim/ursuppe/engine/genes/social_gene.py)
    *gene_tables.CAMOUFLAGE_1_TALLIES,  # XG-11, XG-24 (sim/ursuppe/engine/genes/camouflage_1.py)
    *gene_tables.SUCTION_1_TALLIES,  # XG-12, XG-26 (sim/ursuppe/engine/genes/suction_1.py)
    *gene_tables.THREAT_DISPLAY_TALLIES,  # XG-13 (sim/ursuppe/engine/genes/threat_display.py)
    *gene_tables.FLEXIBLE_TALLIES,  # XG-14 (sim/ursuppe/engine/genes/flexible.py)
    *gene_tables.HEALING_1_TALLIES,  # XG-15, XG-25 (sim/ursuppe/engine/genes/healing_1.py)
    *gene_tables.HEALING_2_TALLIES,  # XG-25 (sim/ursuppe/engine/genes/healing_2.py)
    *gene_tables.REBOUND_TALLIES,  # XG-16 (sim/ursuppe/engine/genes/rebound.py)
    *gene_tables.GO_OUT_WITH_A_BANG_TALLIES,  # XG-17 (sim/ursuppe/engine/genes/go_out_with_a_bang.py)
    *gene_tables.SHORT_LIFE_SPAN_TALLIES,  # XG-18 (sim/ursuppe/engine/genes/short_life_span.py)
    *gene_tables.TOXIC_EXCRETIONS_TALLIES,  # XG-19 (sim/ursuppe/engine/genes/toxic_excretions.py)
    *gene_tables.POPULATION_EXPLOSION_TALLIES,  # XG-20 (engine/genes/population_explosion.py)
    *gene_tables.ENERGY_CONSERVATION_TALLIES,  # XG-21 (sim/ursuppe/engine/genes/energy_conservation.py)
    *gene_tables.MIGRATION_SENSING_TALLIES,  # XG-06 (sim/ursuppe/engine/genes/migration_sensing.py)
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
    _,  # a gene module's tally (glutton.py): it names its index itself (TALLY_INDEX)
    _,  # the 2 tallies of a gene module (alarm.py): it names their indices itself
    _,
    _,  # a gene module's tally (cleanliness.py): it names its index itself (TALLY_INDEX)
    _,  # the 2 tallies of a gene module (hard_crust.py): it names their indices itself
    _,
    _,  # a gene module's tally (fast_food.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (highly_adaptable.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (more_than_a_mouthful.py): it names its index itself (TALLY_INDEX)
    _,  # the 2 tallies of a gene module (social_gene.py): it names their indices itself
    _,
    _,  # a gene module's tally (camouflage_1.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (suction_1.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (threat_display.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (flexible.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (healing_1.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (healing_2.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (rebound.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (go_out_with_a_bang.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (short_life_span.py): it names its index itself (TALLY_INDEX)
    _,  # the 2 tallies of a gene module (toxic_excretions.py): it names their indices itself
    _,
    _,  # a gene module's tally (population_explosion.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (energy_conservation.py): it names its index itself (TALLY_INDEX)
    _,  # a gene module's tally (migration_sensing.py): it names its index itself (TALLY_INDEX)
) = range(N_KINDS, N_TALLIES - len(gene_tables.APPENDED_TALLIES))
