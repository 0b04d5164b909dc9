"""Chromosome's game log for people and for JSON: events (engine/events.py) as dicts with names
and tile numbers instead of codes, and as one readable line each (``soup play --game chromosome``)."""

from collections.abc import Callable
from typing import Any

import numpy as np

from sim import event_log
from sim.chromosome.engine.events import EVENT_KINDS, EventKind
from sim.chromosome.engine.state import (
    END_ELIMINATION,
    END_ROUNDS,
    EVENT_CARD_KINDS,
    ROLL_ATTACK,
    ROLL_DEFENCE,
    ROLL_EVOLUTION,
    ROLL_TEST,
    SPECIAL_EFFECTS,
)
from sim.chromosome.rules.book import COLOURS
from sim.event_log import Head

ROLL_PURPOSES = {
    ROLL_ATTACK: "attack",
    ROLL_DEFENCE: "defence",
    ROLL_TEST: "resistance test",
    ROLL_EVOLUTION: "evolution",
}
CARD_OUTCOMES = (
    "applied",
    "cancelled: it would split the board (V4)",
    "nothing: its room is not on the board",
)
END_NAMES = {END_ROUNDS: "rounds", END_ELIMINATION: "elimination"}
FATE_FOR = {-1: None, len(COLOURS): "?"} | dict(enumerate(COLOURS))


def _colours(packed: int) -> dict[str, int]:
    """A gene vector packed 4 bits a colour (events.py) as {colour: n} without zeros."""
    return {c: (packed >> (4 * i)) & 15 for i, c in enumerate(COLOURS) if (packed >> (4 * i)) & 15}


def _convert(kind: EventKind, name: str, value: int, tiles: np.ndarray) -> Any:
    """One field of an event row as the log reads it: rooms as tile numbers, colours, flags."""
    if name in kind.rooms:
        return int(tiles[value]) if value >= 0 else None
    if name == "rooms":  # a room bit mask
        return [int(tiles[r]) for r in range(len(tiles)) if (value >> r) & 1]
    if name in ("active", "passive"):
        return _colours(value)
    if name == "colour":
        return COLOURS[value] if value >= 0 else None
    if name == "fate_for":
        return FATE_FOR[value]
    if name == "purpose":
        return ROLL_PURPOSES[value]
    if name == "reason":
        return END_NAMES.get(value, "none")
    if name in ("charged", "exhausted", "random", "eliminated") or (kind.name, name) == (
        "discard_black",
        "fate",
    ):
        return bool(value)
    if name in ("opponent", "target_player", "start_player", "roller") and value < 0:
        return None
    return value


def events_as_dicts(
    events: np.ndarray,
    tiles: np.ndarray,
    cards: list[str] | None = None,
    specials: list[list[str]] | None = None,
) -> list[dict[str, Any]]:
    """Event rows (``Workspace.events[g, :n]``) as JSON-ready dicts: ``type``, ``round``,
    ``player`` (absent for nobody's) and the kind's fields; rooms as tile numbers; an event
    card by its name in ``cards`` (the rules' deck) and its kind; a special action by its id and
    name in ``specials[player]`` (the player's species board) and its effect."""
    out = event_log.events_as_dicts(
        events, EVENT_KINDS, (Head("player"),), lambda kind, name, value: _convert(kind, name, value, tiles)
    )
    for d in out:
        if d["type"] == "charged":
            d["why"] = ("impulse", "absorption")[d["why"]]
        elif d["type"] == "special":
            d["name"] = specials[d["player"]][d["action"]] if specials else str(d["action"])
            d["effect"] = SPECIAL_EFFECTS[d["effect"]]
        elif d["type"] == "card":
            d["name"] = cards[d["card"]] if cards else str(d["card"])
            d["kind"] = EVENT_CARD_KINDS[d["kind"]]
            d["outcome"] = CARD_OUTCOMES[d["outcome"]]
    return out


def names(rules: Any, species: Any) -> tuple[list[str], list[list[str]]]:
    """The event cards' names (the rules' deck) and each player's special actions ("FE3 Fuzja")
    for events_as_dicts; ``species``: each player's species name."""
    cards = [c["name"] for c in rules.data["events"]["deck"]]
    boards = rules.species_actions()
    return cards, [[f"{a['id']} {a['name']}" for a in boards[str(s)]] for s in species]


def _genes(d: dict[str, int]) -> str:
    return " ".join(f"{c}{n}" for c, n in d.items()) or "none"


def _discard_black(e: dict[str, Any], p: str, who: list[str]) -> str:
    fate = " and the fate as a B gene" if e["fate"] else ""
    return f"  discards {e['count']} B gene(s){fate}: irradiation {e['irradiation']}"


def _evolution(e: dict[str, Any], p: str, who: list[str]) -> str:
    how = "random evolution" if e["random"] else "evolution"
    got = f"a {e['colour']} gene" if e["colour"] else "nothing (that colour's supply is empty)"
    return f"  {how} ({e['energy']} E): {got}"


def _impulse(e: dict[str, Any], p: str, who: list[str]) -> str:
    if e["cubes"] > 0:
        return f"  Impulse: {e['cubes']} cube(s) on room {e['room']} (area strength {e['strength']})"
    return f"  Impulse: draws from the area on {e['room']} (strength {e['strength']} after)"


def _pay_genes(e: dict[str, Any], p: str, who: list[str]) -> str:
    paid = {c: e[c] for c in COLOURS if e[c]}
    fate = f"1 fate for a {e['fate_for']} gene" if e["fate_for"] else ""
    return f"  pays {' and '.join(x for x in (_genes(paid) if paid else '', fate) if x)}"


def _pay_energy(e: dict[str, Any], p: str, who: list[str]) -> str:
    parts = []
    if e["rooms"]:
        parts.append(f"discharges {', '.join(map(str, e['rooms']))} ({e['tokens']} E)")
    if e["trophies"]:
        parts.append(f"returns {e['trophies']} trophy(ies)")
    lost = f", {e['lost']} E lost" if e["lost"] else ""
    return f"  pays {e['energy']} E: {' and '.join(parts) or 'the turn surplus'}{lost}"


def _boost(e: dict[str, Any], p: str, who: list[str]) -> str:
    if e["red"] + e["fate"] == 0:
        return f"  {p} does not boost"
    return f"  {p} boosts +{e['red'] + e['fate']} ({e['red']} R exhausted, {e['fate']} fate spent)"


def _combat(e: dict[str, Any], p: str, who: list[str]) -> str:
    result = {1: "the attacker wins", -1: "the defender wins", 0: "a tie"}[e["result"]]
    totals = f"{e['attack']} to {e['defence']}"
    both = f", the attacker {e['attacker_lost']}" if e["attacker_lost"] else ""
    return f"  combat {e['from']} vs {e['target']}: {totals}, {result} ({e['lost']} token(s) lost{both})"


def _room_removed(e: dict[str, Any], p: str, who: list[str]) -> str:
    lost = f"; {who[e['player']]}'s {e['tokens']} token(s) go back to its supply" if "player" in e else ""
    return f"  room {e['room']} is removed{lost}; {e['cubes']} cube(s) back to the pool"


def _fusion(e: dict[str, Any], p: str, who: list[str]) -> str:
    side = "charged" if e["charged"] else "discharged"
    absorbed = f"{who[e['absorbed_player']]}'s group on {e['absorbed']}"
    return f"  fusion: {absorbed} joins the group on {e['receiver']} ({e['size']}, {side})"


# One line-maker per event type, called with the event, its player's name (p) and every
# player's (who)
_LINES: dict[str, Callable[[dict[str, Any], str, list[str]], str]] = {
    "start_group": lambda e, p, who: f"{p} puts a charged group of {e['size']} on start room {e['room']}",
    "turn": lambda e, p, who: f"{p}'s turn",
    "move": lambda e, p, who: f"  move: {e['count']} token(s) {e['from']} -> {e['to']}",
    "restore": lambda e, p, who: f"  restores 1 fate for 3 energy (fate {e['fate']})",
    "discard_black": _discard_black,
    "pass": lambda e, p, who: "  passes",
    "growth": lambda e, p, who: (
        f"  growth: +{e['count']} token(s) on room {e['room']} (group of {e['size']})"
    ),
    "evolution": _evolution,
    "spark": lambda e, p, who: (
        f"  Spark from {e['from']} at {who[e['target_player']]}'s group on {e['target']} "
        f"(distance {e['distance']})"
    ),
    "impulse": _impulse,
    "charged": lambda e, p, who: f"  {p}'s group on {e['room']} is charged ({e['why']})",
    "pay_genes": _pay_genes,
    "pay_energy": _pay_energy,
    "boost": _boost,
    "roll": lambda e, p, who: f"  {p} rolls {e['face']} ({e['purpose']})",
    "reroll": lambda e, p, who: (
        f"  {p} spends 1 fate to reroll "
        + ("its own roll" if e["roller"] == e["player"] else f"{who[e['roller']]}'s roll")
        + f" -> {e['face']}"
    ),
    "combat": _combat,
    "test": lambda e, p, who: (
        f"  {p}: test by the area on {e['area']}: threat {e['threat']}, roll {e['face']} -> "
        f"+{e['gain']} irradiation (was {e['before']})"
    ),
    "over_seven": lambda e, p, who: (
        f"  {p} passes 7 by {e['excess']}: {e['removed']} token(s) removed"
        + (", eliminated" if e["eliminated"] else "")
    ),
    "remove": lambda e, p, who: f"  {p} removes a token from {e['room']}",
    "eliminated": lambda e, p, who: f"  {p} is eliminated",
    "decay": lambda e, p, who: f"  the area on {e['room']} decays to {e['strength']}",
    "card": lambda e, p, who: (
        f"Phase I of round {e['round']}: event card {e['name']!r} ({e['kind']}): {e['outcome']}"
    ),
    "room_removed": _room_removed,
    "irradiated": lambda e, p, who: f"  {p}: +{e['gain']} irradiation (was {e['before']})",
    "area_placed": lambda e, p, who: (
        f"  {e['cubes']} cube(s) on room {e['room']} (area strength {e['strength']})"
    ),
    "discharged": lambda e, p, who: f"  {p}'s group on {e['room']} is discharged",
    "fate": lambda e, p, who: f"  {p}'s fate: {e['fate']}",
    "special": lambda e, p, who: f"  special action {e['name']} ({e['effect']})",
    "takeover": lambda e, p, who: (
        f"  takes over {who[e['from_player']]}'s {e['tokens']} token(s) on {e['room']} (trophies)"
    ),
    "fusion": _fusion,
    "destroyed": lambda e, p, who: f"  destroys {e['tokens']} token(s) on {e['room']}",
    "wave": lambda e, p, who: f"  the area on {e['from']} (strength {e['strength']}) moves to {e['to']}",
    "phase": lambda e, p, who: "Phase III: resistance tests, absorption, decay",
    "end": lambda e, p, who: f"The game ends by {e['reason']}.",
}


def describe(e: dict[str, Any], who: list[str]) -> str:
    """One line for event ``e`` (an events_as_dicts entry); ``who[p]`` names player p."""
    p = who[e["player"]] if "player" in e else ""
    return event_log.describe(e, _LINES, lambda e: f"  {e['type']} {e}", p, who)


def position_lines(events: list[dict[str, Any]], who: list[str]) -> list[str]:
    """A round's snapshot (group, area and player events) as one line per player and one for
    the areas: "Alum: groups 5:2c 9:1 · genes active Y2 P1, passive none · fate 4 ..." """
    groups: dict[int, list[str]] = {}
    areas = []
    lines = []
    for e in events:
        if e["type"] == "group":
            groups.setdefault(e["player"], []).append(f"{e['room']}:{e['size']}{'c' if e['charged'] else ''}")
        elif e["type"] == "area":
            areas.append(f"{e['room']}:{e['strength']}")
    for e in events:
        if e["type"] == "player":
            fate = f"{e['fate']}{' (token exhausted)' if e['exhausted'] else ''}"
            lines.append(
                f"  {who[e['player']]}: groups {' '.join(groups.get(e['player'], [])) or 'none'} | "
                f"genes {_genes(e['active'])} active, {_genes(e['passive'])} passive | fate {fate} | "
                f"irradiation {e['irradiation']} | supply {e['supply']} | trophies {e['trophies']}"
            )
    lines.append(f"  areas: {' '.join(areas) or 'none'}")
    return lines


def as_text(events: list[dict[str, Any]], who: list[str]) -> list[str]:
    """The whole log, round by round: each round's position (groups with ``c`` = charged, genes,
    fate, irradiation), then every turn, combat roll and reroll, test and decay."""
    lines: list[str] = []
    snapshot: list[dict[str, Any]] = []
    for e in events:
        if e["type"] in ("group", "area", "player"):
            snapshot.append(e)
            continue
        if snapshot:
            lines += position_lines(snapshot, who)
            snapshot = []
        if e["type"] == "round":
            lines.append("")
            lines.append(f"Round {e['round']} (clock {e['clock']}): {who[e['start_player']]} starts")
            continue
        lines.append(describe(e, who))
    if snapshot:
        lines += position_lines(snapshot, who)
    return lines
