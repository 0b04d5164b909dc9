"""§14: the rules flags the kernels read, each by its index into Rules.flag (rules.book.FLAGS
order), named once: a kernel reads ``cr.flag[FL.GROWTH_ADJACENCY]`` (numba freezes the index into
its machine code); a flag's readings are named beside the kernels that read it."""

from sim.chromosome.engine.state import F

AREA_ROOM_ADJACENT_FOR_CHARGE = F["area_room_adjacent_for_charge"]
AREA_TIE_BREAK = F["area_tie_break"]
CHARGE_SIZE_LIMIT = F["charge_size_limit"]
DESTROY_TROPHY = F["destroy_trophy"]
ELIMINATION_FINISH_PHASE = F["elimination_finish_phase"]
ENERGY_SURPLUS_SCOPE = F["energy_surplus_scope"]
EVOLUTION_EMPTY_COLOUR = F["evolution_empty_colour"]
FALA_TEST = F["fala_test"]
FATE_GENE_ANY_PURPOSE = F["fate_gene_any_purpose"]
FATE_STRENGTH_TIMING = F["fate_strength_timing"]
FINAL_TURN_INCLUDES_ACTIVE = F["final_turn_includes_active"]
FUSION_TROPHIES = F["fusion_trophies"]
GROWTH_ADJACENCY = F["growth_adjacency"]
IMPULSE_PARTIAL = F["impulse_partial"]
PLUS1_COUNTS_PASSIVE = F["plus1_counts_passive"]
REROLL_ORDER = F["reroll_order"]
SPARK_PATH = F["spark_path"]
START_COUNT = F["start_count"]
START_TIE_PREVIOUS_LAST = F["start_tie_previous_last"]
STERILITY_CHECK = F["sterility_check"]
SUPERGEN_CHAIN_SELF = F["supergen_chain_self"]
TAKEOVER_TARGET = F["takeover_target"]
