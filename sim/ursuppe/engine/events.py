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
    EventKind("take", ("gene", "holder", "price")),  # XG-10: the Social Gene taken from its holder
    EventKind("exchange", ("gave", "took", "cost")),  # XG-08
    EventKind("heal", ("dp", "cost", "receiver_player", "receiver_amoeba")),  # XG-15, XG-25
    *(EventKind(*row) for row in gene_tables.TOXIC_EXCRETIONS_EVENTS),  # XG-19 (genes/toxic_excretions.py)
    EventKind("bang", ("space", "hit")),  # XG-17: amoebas that took +1 DP
    EventKind("alarm", ()),  # XG-03: the owner's amoebas have Escape
    EventKind("camouflage", ("roll", "defence_allowed")),  # XG-11, XG-24
    EventKind("hard_crust", ("paid", "bp")),  # XG-05
    EventKind("mouthful", ("dp",)),  # XG-09: the target took DP instead of being eaten
    *(EventKind(*row) for row in gene_tables.REBOUND_EVENTS),  # XG-16 (engine/genes/rebound.py)
    EventKind("gene_income", ("gene", "bp")),  # XG-10, XG-21: BP a gene gave
    EventKind("explosion", ("placed", "bp_returned")),  # XG-20
    EventKind("sense", ("position", "ozone")),  # XG-06, XG-23: the next card (deck position), seen privately
    EventKind("order", ("eat_first",)),  # XG-07
    EventKind("clean", ("from", "to")),  # XG-04
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
    EV_TAKE,
    EV_EXCHANGE,
    EV_HEAL,
    _,  # the 2 events of a gene module (toxic_excretions.py): it names their indices itself
    _,
    EV_BANG,
    EV_ALARM,
    EV_CAMOUFLAGE,
    EV_HARD_CRUST,
    EV_MOUTHFUL,
    _,  # a gene module's event (rebound.py): it names its index itself (EVENT_INDEX)
    EV_GENE_INCOME,
    EV_EXPLOSION,
    EV_SENSE,
    EV_ORDER,
    EV_CLEAN,
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
