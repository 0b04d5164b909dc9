"""The event log: what happened in a game, for ``soup play``, scenario output and debugging.

An event is one row of ``EVENT_WIDTH`` integers in ``Workspace.events[g]``:
``[type, round, phase, player, amoeba, a, b, c, d, e, f, h]``. Batch simulation does not log
(``Workspace.log_events`` is False), so the kernels pay one branch per event. The meaning of
``a``..``h`` per type is in its row of ``EVENT_KINDS`` (used by trace.py to render events); amoeba numbers
are 1-based, -1 where there is none. Cube vectors are packed base 16 (colour c in bits 4c..4c+3).
"""

from typing import NamedTuple

from sim.event_log import ROW_VALUES, append_event
from sim.jit import kernel
from sim.ursuppe.engine.state import ERR_EVENT_OVERFLOW, EVENT_WIDTH
from sim.ursuppe.rules import gene_tables
from sim.ursuppe.rules.ledger import in_ledger_order


class EventKind(NamedTuple):
    """One event type: its name (the scenario output's ``type``) and the names of its fields
    a..h (trace.py renders them; scenario output uses them as keys)."""

    name: str
    fields: tuple[str, ...]


# The events the core rules log; a gene module's come from its row (gene_tables.EVENTS). All of
# them in the ledger's order (rules/ledger.toml): an event's type is its line there.
_CORE_EVENTS: tuple[EventKind, ...] = (
    EventKind("seating", ("start_space",)),
    EventKind("card", ("card", "ozone", "drift", "position")),
    EventKind("place", ("space", "dp", "cost", "how")),  # how: 0 setup, 1 free placement, 2 division, 3 XG-20
    EventKind("drift", ("from", "to", "direction")),
    # how: 0 move, 1 second, 2 escape
    EventKind("active_move", ("from", "to", "die1", "die2", "direction", "cost", "how")),
    EventKind("stay", ("space",)),
    # suction: cubes taken from neighbouring spaces (XG-12, XG-26), packed as decision_kinds.pack_suction
    EventKind("eat", ("space", "cubes", "parasite_victim", "suction")),
    EventKind("excrete", ("space", "count")),
    EventKind("starve", ("space", "dp")),
    EventKind("attack", ("target_player", "target_amoeba", "space", "cost", "retry")),
    EventKind("respond", ("attacker_player", "attacker_amoeba", "response")),
    EventKind("attack_result", ("target_player", "target_amoeba", "result")),  # result: ATTACK_* (attacks.py)
    EventKind("death", ("space", "dp", "cubes", "how")),  # how: 0 natural, 1 violent (Phase 1), 2 aggression
    EventKind("gene_defect", ("mutation_points", "ozone", "deficit", "genes_low", "genes_high", "bp")),
    EventKind("buy", ("gene", "price", "gave_up")),
    EventKind("income", ("bp",)),
    EventKind("score", ("from", "to", "advance", "amoebas", "cards")),
    EventKind("end", ("winner", "reason")),
    # The extra genes' market (docs/rules.md §18)
    EventKind("reveal", ("gene",)),  # XM4: an extra-deck card face up into the pool
    EventKind("discard", ("gene",)),  # XM5 flag extra_unbought_discarded
    EventKind("gift", ("gene",)),  # soup combos: a gene given at setup, paid for by nobody
)
EVENT_KINDS: tuple[EventKind, ...] = in_ledger_order(
    "events", (*_CORE_EVENTS, *(EventKind(*row) for row in gene_tables.EVENTS)), lambda kind: kind.name
)
EVENT_INDEX: dict[str, int] = {kind.name: code for code, kind in enumerate(EVENT_KINDS)}
EVENT_NAMES: dict[int, str] = {code: kind.name for code, kind in enumerate(EVENT_KINDS)}
EVENT_FIELDS: dict[int, tuple[str, ...]] = {code: kind.fields for code, kind in enumerate(EVENT_KINDS)}
# The kernels log plain module integers (numba globals); a gene module names its events' itself.
EV_SEATING = EVENT_INDEX["seating"]
EV_CARD = EVENT_INDEX["card"]
EV_PLACE = EVENT_INDEX["place"]
EV_DRIFT = EVENT_INDEX["drift"]
EV_ACTIVE = EVENT_INDEX["active_move"]
EV_STAY = EVENT_INDEX["stay"]
EV_EAT = EVENT_INDEX["eat"]
EV_EXCRETE = EVENT_INDEX["excrete"]
EV_STARVE = EVENT_INDEX["starve"]
EV_ATTACK = EVENT_INDEX["attack"]
EV_RESPOND = EVENT_INDEX["respond"]
EV_ATTACK_RESULT = EVENT_INDEX["attack_result"]
EV_DEATH = EVENT_INDEX["death"]
EV_DEFECT = EVENT_INDEX["gene_defect"]
EV_BUY = EVENT_INDEX["buy"]
EV_INCOME = EVENT_INDEX["income"]
EV_SCORE = EVENT_INDEX["score"]
EV_END = EVENT_INDEX["end"]
EV_REVEAL = EVENT_INDEX["reveal"]
EV_DISCARD = EVENT_INDEX["discard"]
EV_GIFT = EVENT_INDEX["gift"]
assert EVENT_WIDTH <= ROW_VALUES  # what append_event writes


@kernel
def _record(st, wk, g, etype, phase, player, amoeba, a, b, c, d, e, f, h):
    append_event(
        wk.events, wk.n_events, wk.error, g, ERR_EVENT_OVERFLOW,
        etype, st.round[g], phase, player, amoeba, a, b, c, d, e, f, h,
    )  # fmt: skip


@kernel
def log(st, wk, g, etype, phase, player, amoeba, a, b, c, d, e, f, h):
    """Append one event to game g's log (no-op unless the workspace logs events).

    Kept tiny so that it inlines: batch simulation pays one branch per event, not a call."""
    if wk.log_events:
        _record(st, wk, g, etype, phase, player, amoeba, a, b, c, d, e, f, h)
