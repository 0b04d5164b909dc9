"""The event log: what happened in a game, for ``soup play``, scenario output and debugging.

An event is one row of ``EVENT_WIDTH`` integers in ``Workspace.events[g]``:
``[type, round, phase, player, amoeba, a, b, c, d, e, f, h]``. Batch simulation does not log
(``Workspace.log_events`` is False), so the kernels pay one branch per event. The meaning of
``a``..``h`` per type is in its row of ``EVENT_KINDS`` (used by trace.py to render events); amoeba numbers
are 1-based, -1 where there is none. Cube vectors are packed base 16 (colour c in bits 4c..4c+3).
"""

from typing import NamedTuple

from sim.jit import kernel
from sim.ursuppe.engine.state import ERR_EVENT_OVERFLOW
from sim.ursuppe.rules import gene_tables


class EventKind(NamedTuple):
    """One event type: its name (the scenario output's ``type``) and the names of its fields
    a..h (trace.py renders them; scenario output uses them as keys)."""

    name: str
    fields: tuple[str, ...]


EVENT_KINDS: tuple[EventKind, ...] = (
    EventKind("seating", ("start_space",)),
    EventKind("card", ("card", "ozone", "drift", "position")),
    EventKind("place", ("space", "dp", "cost", "how")),  # how: 0 setup, 1 free placement, 2 division, 3 XG-20
    EventKind("drift", ("from", "to", "direction")),
    # how: 0 move, 1 second, 2 escape
    EventKind("active_move", ("from", "to", "die1", "die2", "direction", "cost", "how")),
    EventKind("stay", ("space",)),
    *(EventKind(*row) for row in gene_tables.TENTACLE_EVENTS),  # Tentacle (genes/tentacle.py)
    *(EventKind(*row) for row in gene_tables.HOLDING_EVENTS),  # Holding (genes/holding.py)
    # suction: cubes taken from neighbouring spaces (XG-12, XG-26), packed as decision_kinds.pack_suction
    EventKind("eat", ("space", "cubes", "parasite_victim", "suction")),
    EventKind("excrete", ("space", "count")),
    EventKind("starve", ("space", "dp")),
    EventKind("attack", ("target_player", "target_amoeba", "space", "cost", "retry")),
    EventKind("respond", ("attacker_player", "attacker_amoeba", "response")),
    *(EventKind(*row) for row in gene_tables.DEFENSE_EVENTS),  # A4 (genes/defense.py)
    EventKind("attack_result", ("target_player", "target_amoeba", "result")),  # result: ATTACK_* (attacks.py)
    EventKind("death", ("space", "dp", "cubes", "how")),  # how: 0 natural, 1 violent (Phase 1), 2 aggression
    *(EventKind(*row) for row in gene_tables.AGGRESSION_EVENTS),  # R3-R4 (genes/aggression.py)
    EventKind("gene_defect", ("mutation_points", "ozone", "deficit", "genes_low", "genes_high", "bp")),
    EventKind("buy", ("gene", "price", "gave_up")),
    EventKind("income", ("bp",)),
    EventKind("score", ("from", "to", "advance", "amoebas", "cards")),
    EventKind("end", ("winner", "reason")),
    # The extra genes (docs/rules.md §18)
    EventKind("reveal", ("gene",)),  # XM4: an extra-deck card face up into the pool
    EventKind("discard", ("gene",)),  # XM5 flag extra_unbought_discarded
    EventKind("gift", ("gene",)),  # soup combos: a gene given at setup, paid for by nobody
    *(EventKind(*row) for row in gene_tables.SOCIAL_GENE_EVENTS),  # XG-10 (genes/social_gene.py)
    *(EventKind(*row) for row in gene_tables.HIGHLY_ADAPTABLE_EVENTS),  # XG-08 (genes/highly_adaptable.py)
    *(EventKind(*row) for row in gene_tables.HEALING_1_EVENTS),  # XG-15, XG-25 (genes/healing_1.py)
    *(EventKind(*row) for row in gene_tables.TOXIC_EXCRETIONS_EVENTS),  # XG-19 (genes/toxic_excretions.py)
    *(EventKind(*row) for row in gene_tables.GO_OUT_WITH_A_BANG_EVENTS),  # XG-17 (genes/)
    *(EventKind(*row) for row in gene_tables.ALARM_EVENTS),  # XG-03 (genes/alarm.py)
    *(EventKind(*row) for row in gene_tables.CAMOUFLAGE_1_EVENTS),  # XG-11, XG-24 (genes/camouflage_1.py)
    *(EventKind(*row) for row in gene_tables.HARD_CRUST_EVENTS),  # XG-05 (genes/hard_crust.py)
    *(EventKind(*row) for row in gene_tables.MORE_THAN_A_MOUTHFUL_EVENTS),  # XG-09 (genes/)
    *(EventKind(*row) for row in gene_tables.REBOUND_EVENTS),  # XG-16 (engine/genes/rebound.py)
    *(EventKind(*row) for row in gene_tables.ENERGY_CONSERVATION_EVENTS),  # XG-21 (and XG-10)
    *(EventKind(*row) for row in gene_tables.POPULATION_EXPLOSION_EVENTS),  # XG-20 (genes/)
    *(EventKind(*row) for row in gene_tables.MIGRATION_SENSING_EVENTS),  # XG-06 (genes/migration_sensing.py)
    *(EventKind(*row) for row in gene_tables.FAST_FOOD_EVENTS),  # XG-07 (genes/fast_food.py)
    *(EventKind(*row) for row in gene_tables.CLEANLINESS_EVENTS),  # XG-04 (genes/cleanliness.py)
    *(EventKind(*row) for row in gene_tables.APPENDED_EVENTS),  # the gene modules' (docs/adding-a-gene.md)
)
# The kernels log plain module integers (numba globals), one a row, in the rows' order.
(
    EV_SEATING,
    EV_CARD,
    EV_PLACE,
    EV_DRIFT,
    EV_ACTIVE,
    EV_STAY,
    _,  # a gene module's event (tentacle.py): it names its index itself (EVENT_INDEX)
    _,  # a gene module's event (holding.py): it names its index itself (EVENT_INDEX)
    EV_EAT,
    EV_EXCRETE,
    EV_STARVE,
    EV_ATTACK,
    EV_RESPOND,
    _,  # a gene module's event (defense.py): it names its index itself (EVENT_INDEX)
    EV_ATTACK_RESULT,
    EV_DEATH,
    _,  # a gene module's event (aggression.py): it names its index itself (EVENT_INDEX)
    EV_DEFECT,
    EV_BUY,
    EV_INCOME,
    EV_SCORE,
    EV_END,
    EV_REVEAL,
    EV_DISCARD,
    EV_GIFT,
    _,  # a gene module's event (social_gene.py): it names its index itself (EVENT_INDEX)
    _,  # a gene module's event (highly_adaptable.py): it names its index itself (EVENT_INDEX)
    _,  # a gene module's event (healing_1.py): it names its index itself (EVENT_INDEX)
    _,  # the 2 events of a gene module (toxic_excretions.py): it names their indices itself
    _,
    _,  # a gene module's event (go_out_with_a_bang.py): it names its index itself (EVENT_INDEX)
    _,  # a gene module's event (alarm.py): it names its index itself (EVENT_INDEX)
    _,  # a gene module's event (camouflage_1.py): it names its index itself (EVENT_INDEX)
    _,  # a gene module's event (hard_crust.py): it names its index itself (EVENT_INDEX)
    _,  # a gene module's event (more_than_a_mouthful.py): it names its index itself (EVENT_INDEX)
    _,  # a gene module's event (rebound.py): it names its index itself (EVENT_INDEX)
    _,  # a gene module's event (energy_conservation.py): it names its index itself (EVENT_INDEX)
    _,  # a gene module's event (population_explosion.py): it names its index itself (EVENT_INDEX)
    _,  # a gene module's event (migration_sensing.py): it names its index itself (EVENT_INDEX)
    _,  # a gene module's event (fast_food.py): it names its index itself (EVENT_INDEX)
    _,  # a gene module's event (cleanliness.py): it names its index itself (EVENT_INDEX)
) = range(len(EVENT_KINDS) - len(gene_tables.APPENDED_EVENTS))
_GENE_MODULE_EVENTS = {
    row[0] for n in dir(gene_tables) if n.endswith("_EVENTS") for row in getattr(gene_tables, n)
}
assert all(
    globals()["EV_" + k.name.upper()] == i
    for i, k in enumerate(EVENT_KINDS)
    if k.name not in ("active_move", "gene_defect", "attack_result", *_GENE_MODULE_EVENTS)
)
EVENT_INDEX: dict[str, int] = {kind.name: code for code, kind in enumerate(EVENT_KINDS)}
EVENT_NAMES: dict[int, str] = {code: kind.name for code, kind in enumerate(EVENT_KINDS)}
EVENT_FIELDS: dict[int, tuple[str, ...]] = {code: kind.fields for code, kind in enumerate(EVENT_KINDS)}


@kernel
def _record(st, wk, g, etype, phase, player, amoeba, a, b, c, d, e, f, h):
    i = wk.n_events[g]
    if i >= wk.events.shape[1]:
        wk.error[g, 0] = ERR_EVENT_OVERFLOW
        return
    row = wk.events[g, i]
    row[0] = etype
    row[1] = st.round[g]
    row[2] = phase
    row[3] = player
    row[4] = amoeba
    row[5] = a
    row[6] = b
    row[7] = c
    row[8] = d
    row[9] = e
    row[10] = f
    row[11] = h
    wk.n_events[g] = i + 1


@kernel
def log(st, wk, g, etype, phase, player, amoeba, a, b, c, d, e, f, h):
    """Append one event to game g's log (no-op unless the workspace logs events).

    Kept tiny so that it inlines: batch simulation pays one branch per event, not a call."""
    if wk.log_events:
        _record(st, wk, g, etype, phase, player, amoeba, a, b, c, d, e, f, h)
