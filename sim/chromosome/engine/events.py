"""The event log: what happened in a game, for ``soup play``, scenario output and debugging.

An event is one row of ``EVENT_WIDTH`` integers in ``Workspace.events[g]``:
``[type, round, player, a, b, c, d, e, f, h]``. Batch simulation does not log
(``Workspace.log_events`` is False), so the kernels pay one branch per event. The meaning of
``a``..``h`` per type is in its row of :data:`EVENT_KINDS` (sim/chromosome/tools/trace.py renders
them; scenario output uses them as keys). Rooms are room indices (the trace writes tile numbers),
-1 where there is none; ``player`` is -1 for an event of nobody's.
"""

from typing import NamedTuple

from sim.chromosome.engine.state import ERR_EVENT_OVERFLOW, EVENT_WIDTH
from sim.event_log import ROW_VALUES, append_event
from sim.jit import kernel


class EventKind(NamedTuple):
    """One event type: its name (the scenario output's ``type``), the names of its fields a..h,
    and which of them are rooms (written as tile numbers)."""

    name: str
    fields: tuple[str, ...]
    rooms: tuple[str, ...] = ()


_AT = ("from", "target")  # a combat's rooms
_RA = ("receiver", "absorbed")  # a fusion's rooms
EVENT_KINDS: tuple[EventKind, ...] = (
    # the round's frame (R1-R5): its clock and starting player, then a snapshot of the position
    EventKind("round", ("clock", "start_player")),
    EventKind("group", ("room", "size", "charged"), ("room",)),  # a snapshot: one of the player's groups
    EventKind("area", ("room", "strength"), ("room",)),  # a snapshot: an area (X1)
    # a snapshot: a player's genes (active, passive), fate (token exhausted?), irradiation, supply
    EventKind("player", ("active", "passive", "fate", "exhausted", "irradiation", "supply", "trophies")),
    EventKind("start_group", ("room", "size"), ("room",)),  # S7
    EventKind("turn", ()),  # T1: the player's turn begins
    EventKind("move", ("from", "to", "count"), ("from", "to")),  # M1
    EventKind("restore", ("fate",)),  # T1: 3 E for 1 fate
    EventKind("discard_black", ("count", "irradiation", "fate")),  # G4b (fate: K2, the fate as one)
    EventKind("pass", ()),  # A13
    EventKind("growth", ("room", "count", "size"), ("room",)),  # A2 (one group) and A3 (one a room)
    EventKind("evolution", ("colour", "energy", "random")),  # A5, A6 (colour -1: nothing)
    EventKind("spark", ("from", "target", "distance", "target_player"), ("from", "target")),  # A8
    EventKind("impulse", ("room", "cubes", "strength"), ("room",)),  # A11 (cubes > 0), A12 (cubes < 0)
    EventKind("charged", ("room", "why"), ("room",)),  # A11/A12 (why 0) or absorption X5 (why 1)
    EventKind("pay_genes", ("Y", "P", "R", "B", "fate_for")),  # K1, K2 (fate_for: colour, 4 '?', -1)
    EventKind("pay_energy", ("energy", "rooms", "tokens", "trophies", "lost")),  # K3-K5 (rooms: bit mask)
    EventKind("boost", ("red", "fate")),  # F2, F3
    EventKind("roll", ("purpose", "face", "opponent")),  # D1 (purpose: ROLL_*)
    EventKind("reroll", ("roller", "face")),  # D3: the player spends 1 fate, the new face
    # F7-F9: the totals, the result (+1 the attacker won, -1 the defender, 0 a tie), the tokens
    # the loser lost (a tie: the target's) and the attacker's on a tie
    EventKind(
        "combat",
        ("from", "target", "attack", "defence", "result", "lost", "attacker_lost"),
        ("from", "target"),
    ),
    EventKind("test", ("area", "threat", "face", "gain", "before"), ("area",)),  # X3 (before: the level)
    EventKind("over_seven", ("excess", "removed", "eliminated")),  # X4
    EventKind("remove", ("room",), ("room",)),  # Q16: one token removed by X4
    EventKind("eliminated", ()),  # E2
    EventKind("phase", ("phase",)),  # Phase III begins (phase 3): the resistance tests (X2)
    EventKind("decay", ("room", "strength"), ("room",)),  # X6
    EventKind("end", ("reason",)),  # E1, E3 (reason: END_*)
    # the event deck (event_deck.py, V2-V7): the card revealed (outcome: applied, cancelled by V4,
    # nothing: its tile is missing), then what it did
    EventKind("card", ("card", "kind", "outcome")),
    EventKind("room_removed", ("room", "tokens", "cubes"), ("room",)),  # V3, U9
    EventKind("irradiated", ("gain", "before")),  # irradiate_all (X4 follows)
    EventKind("area_placed", ("room", "cubes", "strength"), ("room",)),  # place_area
    EventKind("discharged", ("room",), ("room",)),  # discharge_all
    EventKind("fate", ("fate",)),  # fate_all: the player's fate now
    # the special actions (specials.py, §7): which (its index on the species board, its effect
    # and its target), then what it did beyond the events above (moves, growth, tests, combat)
    EventKind("special", ("action", "effect", "a", "b")),
    EventKind("takeover", ("room", "tokens", "from_player"), ("room",)),  # AL3
    EventKind(
        "fusion", ("receiver", "absorbed", "size", "charged", "absorbed_player"), ("receiver", "absorbed")
    ),
    EventKind("destroyed", ("room", "tokens"), ("room",)),  # FE4
    EventKind("wave", ("from", "to", "strength"), ("from", "to")),  # CA4
)
(
    EV_ROUND,
    EV_GROUP,
    EV_AREA,
    EV_PLAYER,
    EV_START_GROUP,
    EV_TURN,
    EV_MOVE,
    EV_RESTORE,
    EV_DISCARD_BLACK,
    EV_PASS,
    EV_GROWTH,
    EV_EVOLUTION,
    EV_SPARK,
    EV_IMPULSE,
    EV_CHARGED,
    EV_PAY_GENES,
    EV_PAY_ENERGY,
    EV_BOOST,
    EV_ROLL,
    EV_REROLL,
    EV_COMBAT,
    EV_TEST,
    EV_OVER_SEVEN,
    EV_REMOVE,
    EV_ELIMINATED,
    EV_PHASE,
    EV_DECAY,
    EV_END,
    EV_CARD,
    EV_ROOM_REMOVED,
    EV_IRRADIATED,
    EV_AREA_PLACED,
    EV_DISCHARGED,
    EV_FATE,
    EV_SPECIAL,
    EV_TAKEOVER,
    EV_FUSION,
    EV_DESTROYED,
    EV_WAVE,
) = range(len(EVENT_KINDS))
assert all(globals()["EV_" + k.name.upper()] == i for i, k in enumerate(EVENT_KINDS))
EVENT_INDEX: dict[str, int] = {kind.name: code for code, kind in enumerate(EVENT_KINDS)}
assert EVENT_WIDTH <= ROW_VALUES  # what append_event writes


@kernel
def _record(cs, cw, g, etype, player, a, b, c, d, e, f, h):
    append_event(
        cw.events, cw.n_events, cw.error, g, ERR_EVENT_OVERFLOW,
        etype, cs.round[g], player, a, b, c, d, e, f, h, 0, 0,
    )  # fmt: skip


@kernel
def log(cs, cw, g, etype, player, a, b, c, d, e, f, h):
    """Append one event to game g's log (no-op unless the workspace logs events).

    Kept tiny so that it inlines: batch simulation pays one branch per event, not a call."""
    if cw.log_events:
        _record(cs, cw, g, etype, player, a, b, c, d, e, f, h)


@kernel
def _pack_genes(cs, g, p, passive):
    """Player p's active (``passive`` 0) or passive genes by colour, 4 bits a colour (Y lowest)."""
    v = 0
    for c in range(4):
        v |= int(cs.passive_genes[g, p, c] if passive else cs.active_genes[g, p, c]) << (4 * c)
    return v


@kernel
def log_position(cs, cw, g):
    """The round's snapshot: every group, area and player (only when logging)."""
    if not cw.log_events:
        return
    R = cs.owner.shape[1]
    P = cs.supply.shape[1]
    for r in range(R):
        if cs.owner[g, r] >= 0:
            _record(cs, cw, g, EV_GROUP, cs.owner[g, r], r, cs.size[g, r], cs.charged[g, r], 0, 0, 0, 0)
    for r in range(R):
        if cs.cubes[g, r] > 0:
            _record(cs, cw, g, EV_AREA, -1, r, cs.cubes[g, r], 0, 0, 0, 0, 0)
    for p in range(P):
        trophies = 0
        for q in range(P):
            trophies += cs.trophies[g, p, q]
        _record(
            cs,
            cw,
            g,
            EV_PLAYER,
            p,
            _pack_genes(cs, g, p, 0),
            _pack_genes(cs, g, p, 1),
            cs.fate[g, p],
            cs.fate_exhausted[g, p],
            cs.irradiation[g, p],
            cs.supply[g, p],
            trophies,
        )
