"""The game log for people and for JSON: events as dicts, one-line descriptions, a board picture."""

from collections.abc import Callable
from typing import Any

import numpy as np

from sim import event_log
from sim.event_log import Head, plural
from sim.ursuppe.engine.attacks import ATTACK_RESULT_NAMES
from sim.ursuppe.engine.board import DIRECTION_NAMES
from sim.ursuppe.engine.deaths import DEATH_HOW
from sim.ursuppe.engine.decision_kinds import RESPONSE_NAMES, unpack_suction
from sim.ursuppe.engine.events import EVENT_KINDS
from sim.ursuppe.engine.gene_sets import WORD_BITS, gene_names
from sim.ursuppe.engine.genes.aggression import DP_REASON
from sim.ursuppe.engine.movement import MOVE_HOW
from sim.ursuppe.engine.phases.phase4_division import PLACE_HOW
from sim.ursuppe.engine.state import END_FINISH_ZONE
from sim.ursuppe.rules.genes import GENE_NAMES, N_GENES

COLOUR_NAMES = ("red", "blue", "green", "yellow", "white", "black")
COLOUR_LETTERS = "RBGYWK"


def _unpack(packed: int, players: int) -> list[int]:
    return [(packed >> (4 * c)) & 15 for c in range(players)]


def _convert(etype: str, name: str, value: int, players: int) -> Any:
    if name == "cubes" and etype in ("eat", "carry"):  # a packed vector; a death's "cubes" is per colour
        return _unpack(value, players)
    if name in ("direction", "drift"):
        text = DIRECTION_NAMES[value]
        return "none" if (text == "stay" and name == "drift") else text
    if name in ("gene", "gave_up", "gave", "took"):
        return GENE_NAMES[value] if value >= 0 else None
    if name in ("genes_low", "genes_high"):
        return value
    if name == "response":
        return list(RESPONSE_NAMES[value])
    if name == "result":
        return ATTACK_RESULT_NAMES[value]
    if name == "suction":  # XG-12, XG-26: the cubes taken from neighbouring spaces
        return [{"space": space, "colour": colour} for space, colour in unpack_suction(value)]
    if name in ("die1", "die2", "parasite_victim"):
        return None if value < 0 else value
    if name == "how":
        table = {"place": PLACE_HOW, "active_move": MOVE_HOW, "death": DEATH_HOW}[etype]
        return table[value]
    if name == "reason":
        return (
            DP_REASON[value]
            if etype == "damage"
            else ("finish_zone" if value == END_FINISH_ZONE else "last_card")
        )
    if name in ("defender_wins", "persistence", "retry", "defence_allowed", "paid"):
        return bool(value)
    return value


# An event row's columns between its round and its fields (engine/events.py)
_HEAD = (Head("phase", optional=False), Head("player"), Head("amoeba"))


def events_as_dicts(events: np.ndarray, players: int) -> list[dict[str, Any]]:
    """Event rows (events.py) as JSON-ready dicts with names instead of codes."""
    out = event_log.events_as_dicts(
        events, EVENT_KINDS, _HEAD, lambda kind, name, value: _convert(kind.name, name, value, players)
    )
    for d in out:
        if "genes_low" in d:  # a 64-bit gene set in two words (gene_sets.py): one list of names
            d["genes_mask"] = gene_names(d.pop("genes_low") | d.pop("genes_high") << WORD_BITS)
            d["bp"] = d.pop("bp")
    return out


def _who(e: dict[str, Any]) -> str:
    p = e.get("player")
    a = e.get("amoeba")
    if p is None:
        return ""
    return f"P{p}" + (f" amoeba {a}" if a is not None else "")


def _moved(e: dict[str, Any]) -> str:
    """``from -> to``, or ``stays on from`` when the move ends where it began (an obstacle, B1)."""
    return f"stays on {e['from']}" if e["from"] == e["to"] else f"{e['from']} -> {e['to']}"


def _placed(e: dict[str, Any], w: str) -> str:
    cost = f" for {e['cost']} BP" if e["cost"] else ""
    return f"{w} placed on space {e['space']} ({e['how']}{cost}, {e['dp']} DP)"


def _active_move(e: dict[str, Any], w: str) -> str:
    dice = [d for d in (e["die1"], e["die2"]) if d is not None]
    rolled = f"rolled {'/'.join(map(str, dice))}, " if dice else ""
    return f"{w} {e['how'].replace('_', ' ')} ({rolled}{e['direction']}, {e['cost']} BP): {_moved(e)}"


def _eats(e: dict[str, Any], w: str) -> str:
    par = f", P{e['parasite_victim']} pays 1 BP (Parasitism)" if e["parasite_victim"] is not None else ""
    sucked = "".join(f", 1 of colour {c['colour']} from {c['space']} (Suction)" for c in e.get("suction", []))
    return f"{w} eats {e['cubes']} on {e['space']}{sucked}{par}"


def _fight(e: dict[str, Any], w: str) -> str:
    who = "defender" if e["defender_wins"] else "attacker"
    return f"  Defense fight: attacker {e['attacker_roll']} vs defender {e['defender_roll']}: {who} wins"


def _camouflage(e: dict[str, Any], w: str) -> str:
    roll = f"rolls {e['roll']}" if e["roll"] else "Camouflage 2"
    return f"{w} {roll}: the target {'may' if e['defence_allowed'] else 'may not'} answer (Camouflage)"


def _gene_defect(e: dict[str, Any], w: str) -> str:
    paid = ", ".join(e["genes_mask"] + ([f"{e['bp']} BP"] if e["bp"] else []))
    why = f"MP {e['mutation_points']} > ozone {e['ozone']}"
    return f"{w} gene defect: {why}: pays {e['deficit']} with {paid}"


def _heal(e: dict[str, Any], w: str) -> str:
    to = (
        f", the DP goes to P{e['receiver_player']} amoeba {e['receiver_amoeba']}"
        if e["receiver_player"] >= 0
        else ""
    )
    return f"{w} healed for {e['cost']} BP: now {e['dp']} DP{to}"


# One line-maker per event type, called with the event and who it is about (_who)
_LINES: dict[str, Callable[[dict[str, Any], str], str]] = {
    "seating": lambda e, w: f"{w} starts on score space {e['start_space']}",
    "card": lambda e, w: f"environment card: ozone {e['ozone']}, drift {e['drift']}",
    "place": _placed,
    "drift": lambda e, w: f"{w} drifts {e['direction']}: {_moved(e)}",
    "active_move": _active_move,
    "stay": lambda e, w: f"{w} stays on {e['space']} (Holding)",
    "carry": lambda e, w: f"{w} carries {e['cubes']} from {e['from']} to {e['to']} (Tentacle)",
    "cling": lambda e, w: (
        f"{w} clings to P{e['leader_player']} amoeba {e['leader_amoeba']}: {_moved(e)} (Holding)"
    ),
    "eat": _eats,
    "excrete": lambda e, w: f"{w} excretes {e['count']} on {e['space']}",
    "starve": lambda e, w: f"{w} starves on {e['space']} (now {e['dp']} DP)",
    "attack": lambda e, w: (
        f"{w} attacks P{e['target_player']} amoeba {e['target_amoeba']} on {e['space']}"
        + (" again (Persistence)" if e["retry"] else "")
    ),
    "respond": lambda e, w: f"{w} answers: {' then '.join(e['response']) or 'no answer'}",
    "fight": _fight,
    "attack_result": lambda e, w: (
        f"{w} attack on P{e['target_player']} amoeba {e['target_amoeba']}: {e['result']}"
    ),
    "death": lambda e, w: (
        f"{w} dies on {e['space']} ({e['how']}, {plural(e['cubes'], 'cube')} of each colour placed)"
    ),
    "damage": lambda e, w: f"{w} takes damage: now {e['dp']} DP ({e['reason'].replace('_', ' ')})",
    "alarm": lambda e, w: f"{w} was eaten: P{e['player']}'s amoebas have Escape (Alarm)",
    "camouflage": _camouflage,
    "hard_crust": lambda e, w: (
        f"{w} {'pays ' + str(e['bp']) + ' BP more' if e['paid'] else 'does not pay'} (Hard Crust)"
    ),
    "mouthful": lambda e, w: f"{w} is not eaten: now {e['dp']} DP (More Than a Mouthful)",
    "bang": lambda e, w: f"{w} goes out with a bang on {e['space']}: {plural(e['hit'], 'amoeba')} +1 DP",
    "gene_defect": _gene_defect,
    "buy": lambda e, w: (
        f"{w} buys {e['gene']} for {e['price']} BP" + (f", gives up {e['gave_up']}" if e["gave_up"] else "")
    ),
    "income": lambda e, w: f"{w} receives {e['bp']} BP",
    "score": lambda e, w: (
        f"{w} scores {e['advance']} ({plural(e['amoebas'], 'amoeba')}, {plural(e['cards'], 'card')}): "
        f"{e['from']} -> {e['to']}"
    ),
    "end": lambda e, w: f"game over ({e['reason'].replace('_', ' ')}): P{e['winner']} wins",
    # The economy genes (XG-08, XG-10, XG-15/XG-25, XG-20)
    "take": lambda e, w: f"{w} takes {e['gene']} from P{e['holder']} for {e['price']} BP",
    "exchange": lambda e, w: f"{w} exchanges {e['gave']} for {e['took']} ({e['cost']} BP, Highly Adaptable)",
    "heal": _heal,
    "explosion": lambda e, w: (
        f"{w} Population Explosion: returns {e['bp_returned']} BP, "
        f"places {plural(e['placed'], 'amoeba')} free"
    ),
    "gene_income": lambda e, w: f"{w} receives {e['bp']} BP ({e['gene']})",
}


def describe(e: dict[str, Any]) -> str:
    """One line a person can follow."""
    return event_log.describe(e, _LINES, str, _who(e))


def board_text(state, g: int, rules, coordinates: list[list[int]]) -> str:
    """The board (amoebas and food per space, laid out by the rules file's ``board.coordinates``),
    then BP, score, genes and DP per player."""
    P = rules.players
    grid: dict[tuple[int, int], int] = {}
    for s, (x, y) in enumerate(coordinates[: rules.n_spaces]):
        grid[(x, y)] = s
    width = 15
    letters = "/".join(COLOUR_LETTERS[:P])
    lines = [f"board: [space] amoebas (colour letter + number); below: food cubes {letters}"]
    for y in range(5):
        cells = []
        cells2 = []
        for x in range(5):
            s = grid.get((x, y))
            if s is None:
                label = "island" if (x, y) == (2, 2) else ""
                cells.append(label.center(width))
                cells2.append("".center(width))
                continue
            who = " ".join(
                f"{COLOUR_LETTERS[p]}{a + 1}"
                for p in range(P)
                for a in range(rules.amoebas_per_player)
                if state.space[g, p, a] == s
            )
            cells.append(f"[{s:2}] {who}".ljust(width)[:width])
            cells2.append(" " + "/".join(str(int(state.food[g, s, c])) for c in range(P)).ljust(width - 1))
        lines.append(" ".join(cells).rstrip())
        lines.append(" ".join(cells2).rstrip())
    lines.append(f"supply {letters}: " + "/".join(str(int(x)) for x in state.supply[g]))
    for p in range(P):
        genes = ", ".join(GENE_NAMES[i] for i in range(N_GENES) if state.genes[g, p, i])
        dps = " ".join(
            f"{a + 1}:{int(state.dp[g, p, a])}DP"
            for a in range(rules.amoebas_per_player)
            if state.space[g, p, a] >= 0 and state.dp[g, p, a] > 0
        )
        lines.append(
            f"P{p} {COLOUR_LETTERS[p]} ({COLOUR_NAMES[p]}{', dummy' if p == rules.dummy else ''}): "
            f"score {int(state.score[g, p]):2}  "
            f"BP {int(state.bp[g, p]):2}  genes [{genes}]" + (f"  damaged {dps}" if dps else "")
        )
    return "\n".join(lines)
