"""The event log: what happened in a game, for ``soup play``, scenario output and debugging.

An event is one row of ``EVENT_WIDTH`` integers in ``Workspace.events[g]``:
``[type, round, phase, player, amoeba, a, b, c, d, e, f, h]``. Batch simulation does not log
(``Workspace.log_events`` is False), so the kernels pay one branch per event. The meaning of
``a``..``h`` per type is in ``EVENT_FIELDS`` (used by trace.py to render events); amoeba numbers
are 1-based, -1 where there is none. Cube vectors are packed base 16 (colour c in bits 4c..4c+3).
"""

from sim.jit import kernel
from sim.ursuppe.state import ERR_EVENT_OVERFLOW

EV_SEATING = 0
EV_CARD = 1
EV_PLACE = 2
EV_DRIFT = 3
EV_ACTIVE = 4
EV_STAY = 5
EV_CARRY = 6
EV_CLING = 7
EV_EAT = 8
EV_EXCRETE = 9
EV_STARVE = 10
EV_ATTACK = 11
EV_RESPOND = 12
EV_FIGHT = 13
EV_ATTACK_RESULT = 14
EV_DEATH = 15
EV_DP = 16
EV_DEFECT = 17
EV_BUY = 18
EV_INCOME = 19
EV_SCORE = 20
EV_END = 21

# Field names of a..h per event type (trace.py renders them; scenario output uses them as keys).
EVENT_FIELDS: dict[int, tuple[str, ...]] = {
    EV_SEATING: ("start_space",),
    EV_CARD: ("card", "ozone", "drift", "position"),
    EV_PLACE: ("space", "dp", "cost", "how"),  # how: 0 setup, 1 free placement, 2 division
    EV_DRIFT: ("from", "to", "direction"),
    EV_ACTIVE: ("from", "to", "die1", "die2", "direction", "cost", "how"),  # how: 0 move, 1 second, 2 escape
    EV_STAY: ("space",),
    EV_CARRY: ("from", "to", "cubes"),
    EV_CLING: ("from", "to", "leader_player", "leader_amoeba"),
    EV_EAT: ("space", "cubes", "parasite_victim"),
    EV_EXCRETE: ("space", "count"),
    EV_STARVE: ("space", "dp"),
    EV_ATTACK: ("target_player", "target_amoeba", "space", "cost", "retry"),
    EV_RESPOND: ("attacker_player", "attacker_amoeba", "response"),
    EV_FIGHT: ("attacker_roll", "defender_roll", "defender_wins", "persistence"),
    EV_ATTACK_RESULT: ("target_player", "target_amoeba", "result"),  # result: ATTACK_* (attacks.py)
    EV_DEATH: ("space", "dp", "cubes", "how"),  # how: 0 natural, 1 violent (Phase 1), 2 aggression
    EV_DP: ("dp", "reason"),  # reason: 0 Armor instead of death (R3), 1 lost Defense fight (R4)
    EV_DEFECT: ("mutation_points", "ozone", "deficit", "genes_mask", "bp"),
    EV_BUY: ("gene", "price", "gave_up"),
    EV_INCOME: ("bp",),
    EV_SCORE: ("from", "to", "advance", "amoebas", "cards"),
    EV_END: ("winner", "reason"),
}

EVENT_NAMES: dict[int, str] = {
    EV_SEATING: "seating",
    EV_CARD: "card",
    EV_PLACE: "place",
    EV_DRIFT: "drift",
    EV_ACTIVE: "active_move",
    EV_STAY: "stay",
    EV_CARRY: "carry",
    EV_CLING: "cling",
    EV_EAT: "eat",
    EV_EXCRETE: "excrete",
    EV_STARVE: "starve",
    EV_ATTACK: "attack",
    EV_RESPOND: "respond",
    EV_FIGHT: "fight",
    EV_ATTACK_RESULT: "attack_result",
    EV_DEATH: "death",
    EV_DP: "damage",
    EV_DEFECT: "gene_defect",
    EV_BUY: "buy",
    EV_INCOME: "income",
    EV_SCORE: "score",
    EV_END: "end",
}


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
