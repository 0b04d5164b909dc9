"""Chromosome's scenario files (spec §13; the contract of docs/scenario-format.md): a position,
forced dice and choices, how far to run, and the position after the run.

Position keys: ``players``, ``rules`` (overrides; a flag may sit at its top), ``round``,
``clock`` (default R(P) - round + 1, I10), ``start_player``, ``active_player``, ``areas``
{tile: strength}, ``state`` (one entry per seat: ``species``, ``fate``, ``fate_token``
("active"/"exhausted"), ``irradiation``, ``genes`` {"active": {colour: n}, "passive": {...}},
``groups`` {tile: {"size", "charged"}}, ``trophies`` {species: n}, ``passed``, ``eliminated``).
Supplies are derived (I1, I4, I6); an explicit ``supplies`` that breaks them is an error. How it
plays: ``dice``, ``choices`` (§13's kinds), ``strategies``, ``seed``, ``run`` ("setup", "turn",
"phase1", "phase2", "phase3", "round", "game"). Every bad value is one line naming the file and
the key; nothing runs.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sim.chromosome.engine import decision_kinds as K
from sim.chromosome.engine.state import (
    ERR_ILLEGAL_CHOICE,
    ERR_INVARIANT,
    ERR_MISSING_DIE,
    ERR_NO_END,
    ERR_TOO_MANY_OPTIONS,
    ERR_WRONG_CHOICE_KIND,
    allocate_state,
    allocate_workspace,
    by_reference,
    derive_supplies,
    rules_for,
)
from sim.chromosome.rules.book import COLOURS, SPECIES, ChromosomeRules, RulesError, load_rules
from sim.errors import GameError, UserError
from sim.scenario_files import GAME_KEY, check_game, check_keys, read_scenario_file
from strategies.chromosome.presets import preset_row

RUNS = ("setup", "turn", "phase1", "phase2", "phase3", "round", "game")
POSITION_KEYS = (
    "players",
    "round",
    "clock",
    "phase",
    "start_player",
    "active_player",
    "areas",
    "state",
    "removed",
    "deck",
    "round_effects",
)
# round_effects: the current round's event-card effects (V5), by name: the State's array and bounds
ROUND_EFFECTS = {"no_attacks": (1,), "sterility_plus": (1,), "trophy_bonus": (1, 99)}
PHASES = ("phase1", "phase2", "phase3")  # the position's next phase (default phase2)
HOW_KEYS = ("rules", "layout", "dice", "choices", "strategies", "seed", "run")
_MAIN = ("pass", "growth", "evolution", "spark", "impulse", "none")  # the main actions' names
SEAT_KEYS = (
    "species",
    "fate",
    "fate_token",
    "irradiation",
    "genes",
    "groups",
    "trophies",
    "passed",
    "eliminated",
)
DEFAULT_STRATEGY = "builder"
# The test suite's expectations (tests/test_chromosome_scenarios.py reads them)
TEST_KEYS = ("rules", "description", "expect", "expect_error", "expect_load_error")
# Every key a scenario file may hold at its top level: any other is an error naming it
TOP_KEYS = (*POSITION_KEYS, *HOW_KEYS, "supplies", GAME_KEY, "test")


class ScenarioError(UserError):
    """A scenario that cannot be run; the message is one line naming the file and key."""


@dataclass
class Scenario:
    label: str
    rules: ChromosomeRules
    players: int
    data: dict[str, Any]
    state: Any
    engine_rules: Any
    workspace: Any
    run: str
    strategies: list[str]
    tape_origin: list[int] = field(default_factory=list)
    phase: str = "phase2"  # the position's next phase


def _err(label: str, key: str, message: str) -> ScenarioError:
    return ScenarioError(f"{label}: {key}: {message}")


def _int(label: str, key: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _err(label, key, f"expected an integer {low} to {high}, got {json.dumps(value)}")
    return value


def _bool(label: str, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _err(label, key, f"expected true or false, got {json.dumps(value)}")
    return value


def _room(label: str, key: str, tile: Any, rooms: dict[int, int]) -> int:
    t = int(tile) if isinstance(tile, str) and tile.isdigit() else tile
    if isinstance(t, bool) or not isinstance(t, int) or t not in rooms:
        raise _err(label, key, f"expected a room (tile number) of this layout, got {json.dumps(tile)}")
    return rooms[t]


def _colour(label: str, key: str, value: Any) -> int:
    if value not in COLOURS:
        raise _err(label, key, f"expected a gene colour {', '.join(COLOURS)}, got {json.dumps(value)}")
    return COLOURS.index(value)


def _colours(label: str, key: str, value: Any) -> list[int]:
    if not isinstance(value, dict):
        raise _err(label, key, f"expected {{colour: count}}, got {json.dumps(value)}")
    out = [0, 0, 0, 0]
    for c, n in value.items():
        out[_colour(label, f"{key}.{c}", c)] = _int(label, f"{key}.{c}", n, 0, 99)
    return out


def _document(source: Path | dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The scenario's label (its path) and its JSON object, every key of it known (issue 31.4)."""
    if isinstance(source, dict):
        label, data = "<scenario>", source
    else:
        label, data = str(source), read_scenario_file(source, ScenarioError)
    check_keys(label, "", data, TOP_KEYS, ScenarioError)
    check_game(label, data, "chromosome", ScenarioError)  # sim.chromosome.game's name
    test = data.get("test", {})
    if not isinstance(test, dict):
        raise _err(label, "test", "expected an object of the test suite's expectations")
    check_keys(label, "test", test, TEST_KEYS, ScenarioError)
    return label, data


def _seat(label, key, entry, st, ru, rooms, p, species_of):
    if not isinstance(entry, dict):
        raise _err(label, key, f"expected an object with {', '.join(SEAT_KEYS)}")
    check_keys(label, key, entry, SEAT_KEYS, ScenarioError)
    st.fate[0, p] = _int(label, f"{key}.fate", entry.get("fate", int(ru.numbers[6])), 0, 99)
    token = entry.get("fate_token", "active")
    if token not in ("active", "exhausted"):
        raise _err(label, f"{key}.fate_token", f'expected "active" or "exhausted", got {json.dumps(token)}')
    st.fate_exhausted[0, p] = token == "exhausted"
    st.irradiation[0, p] = _int(label, f"{key}.irradiation", entry.get("irradiation", 0), 0, 99)
    genes = entry.get("genes", {"active": {"Y": 2, "P": 1}})
    if not isinstance(genes, dict) or set(genes) - {"active", "passive"}:
        raise _err(label, f"{key}.genes", 'expected {"active": {colour: n}, "passive": {colour: n}}')
    st.active_genes[0, p] = _colours(label, f"{key}.genes.active", genes.get("active", {}))
    st.passive_genes[0, p] = _colours(label, f"{key}.genes.passive", genes.get("passive", {}))
    groups = entry.get("groups", {})
    if not isinstance(groups, dict):
        raise _err(label, f"{key}.groups", 'expected {tile: {"size": n, "charged": bool}}')
    for tile, gr in groups.items():
        gk = f"{key}.groups.{tile}"
        r = _room(label, gk, tile, rooms)
        if not isinstance(gr, dict) or set(gr) - {"size", "charged"} or "size" not in gr:
            raise _err(label, gk, 'expected {"size": 1..3, "charged": bool}')
        if st.owner[0, r] >= 0:
            raise _err(label, gk, f"room {tile} already holds a group (I2)")
        st.owner[0, r] = p
        st.size[0, r] = _int(label, f"{gk}.size", gr["size"], 1, 3)
        st.charged[0, r] = _bool(label, f"{gk}.charged", gr.get("charged", True))
    trophies = entry.get("trophies", {})
    if not isinstance(trophies, dict):
        raise _err(label, f"{key}.trophies", "expected {species: n}")
    for sp, n in trophies.items():
        if sp not in species_of:
            raise _err(label, f"{key}.trophies.{sp}", f"no seat plays {json.dumps(sp)}")
        if species_of[sp] == p:
            raise _err(label, f"{key}.trophies.{sp}", "a player holds trophies of other species only (I3)")
        st.trophies[0, p, species_of[sp]] = _int(label, f"{key}.trophies.{sp}", n, 0, 60)
    st.passed[0, p] = _bool(label, f"{key}.passed", entry.get("passed", False))
    st.eliminated[0, p] = _bool(label, f"{key}.eliminated", entry.get("eliminated", False))


# Q17: a special action's scenario choice {"action": "<id>", ...}: its keys by effect, each a
# room (tile), a colour, or hotbed's split {tile: tokens} (specials.py's option rows, in order)
SPECIAL_KEYS: dict[str, tuple[tuple[str, str], ...]] = {
    "supergen": (("gene", "colour"),),
    "exchange": (("give", "colour"), ("take", "colour")),
    "takeover": (("target", "room"),),
    "gain_passive_gene": (("gene", "colour"),),
    "bond_attack": (("from", "room"), ("target", "room")),
    "domination_attack": (("from", "room"), ("target", "room")),
    "fusion": (("receiver", "room"), ("absorbed", "room")),
    "destroy": (("target", "room"),),
    "concentration": (("room", "room"),),
    "irradiate_all": (),
    "charge_adjacent": (),
    "wave": (("from", "room"), ("to", "room")),
    "teleport": (("from", "room"), ("to", "room")),
    "hotbed": (("from", "room"), ("split", "split")),
    "giant": (("room", "room"),),
    "extra_move": (),
}


def _special_row(
    label: str, key: str, choice: dict, book: ChromosomeRules, ru: Any, rooms: dict
) -> list[int]:
    """The ACTION row of a special action's choice (K.ACT_SPECIAL, its index on its species'
    board, its target)."""
    boards = book.species_actions()
    found = [
        (k, a) for actions in boards.values() for k, a in enumerate(actions) if a["id"] == choice["action"]
    ]
    if not found:
        raise _err(
            label, f"{key}.action", f"unknown action {json.dumps(choice['action'])} (species_mode = full?)"
        )
    k, a = found[0]
    names = SPECIAL_KEYS[a["effect"]]
    extra = set(choice) - {"action"} - {n for n, _ in names}
    if extra:
        raise _err(
            label,
            f"{key}.{sorted(extra)[0]}",
            f"{a['id']} takes {', '.join(n for n, _ in names) or 'nothing'}",
        )
    row = [K.ACT_SPECIAL, k]
    for name, what in names:
        value = choice.get(name)
        if what == "room":
            row.append(_room(label, f"{key}.{name}", value, rooms))
        elif what == "colour":
            row.append(_colour(label, f"{key}.{name}", value))
        else:  # hotbed: tokens per neighbour slot of the group's room, 2 bits each
            src = row[2]
            if not isinstance(value, dict) or not value:
                raise _err(label, f"{key}.split", "expected {tile: tokens} of the rooms next to the group")
            packed = 0
            slots = [int(x) for x in ru.neighbours[src, : ru.degree[src]]]
            for t, n in value.items():
                r = _room(label, f"{key}.split.{t}", t, rooms)
                if r not in slots:
                    raise _err(label, f"{key}.split.{t}", "expected a room next to the group")
                packed |= _int(label, f"{key}.split.{t}", n, 1, 3) << (2 * slots.index(r))
            row.append(packed)
    return row


# The keys of each main action's choice (docs/scenario-format.md); growth and impulse have two
# forms each, told apart by a key. Special actions check theirs against SPECIAL_KEYS.
_ACTION_KEYS = {
    "pass": ("action",),
    "none": ("action",),
    "evolution": ("action", "gene"),
    "spark": ("action", "from", "target"),
}


def _action_keys(act: Any, choice: dict) -> tuple[str, ...] | None:
    """The keys a main action's choice may hold; None for a special action (or an unknown one)."""
    if act == "growth":
        return ("action", "rooms") if "rooms" in choice else ("action", "n", "group")
    if act == "impulse":
        return ("action", "place") if "place" in choice else ("action", "draw")
    return _ACTION_KEYS.get(act) if isinstance(act, str) else None


def _tape(label: str, choices: Any, rooms: dict[int, int], species_of: dict[str, int], P: int, book, ru):
    """The forced choices as (kind, row) entries and each entry's choice index."""
    if not isinstance(choices, list):
        raise _err(label, "choices", "expected a list of choices")
    tape: list[tuple[int, list[int]]] = []
    origin: list[int] = []
    for k, choice in enumerate(choices):
        key = f"choices[{k}]"
        if not isinstance(choice, dict) or len(choice) == 0:
            raise _err(label, key, "expected an object with one choice kind")
        if "action" in choice:
            entries = _action_entries(label, key, choice, rooms, book, ru)
        else:
            if len(choice) != 1:
                raise _err(label, key, "expected one choice kind per entry")
            ((name, v),) = choice.items()
            entries = _choice_entries(label, key, name, v, rooms, species_of)
        tape += entries
        origin += [k] * len(entries)
    return tape, origin


def _action_entries(
    label: str, key: str, choice: dict, rooms: dict[int, int], book: ChromosomeRules, ru: Any
) -> list[tuple[int, list[int]]]:
    """An action choice's tape entries: its ACTION row (and growth's GROWTH_ROOM rows)."""
    act = choice["action"]
    allowed = _action_keys(act, choice)
    if allowed:  # a misspelt key of a main action is named, never ignored (issue 31.4)
        check_keys(label, key, choice, allowed, ScenarioError)
    if act == "pass":
        return [(K.ACTION, [K.ACT_PASS])]
    if act == "growth" and "rooms" in choice:
        tiles = choice["rooms"]
        if not isinstance(tiles, list) or not tiles:
            raise _err(label, f"{key}.rooms", "expected a list of rooms")
        return [(K.ACTION, [K.ACT_GROWTH_ROOMS, len(tiles)])] + [
            (K.GROWTH_ROOM, [_room(label, f"{key}.rooms[{i}]", t, rooms)]) for i, t in enumerate(tiles)
        ]
    if act == "growth":
        n = _int(label, f"{key}.n", choice.get("n"), 1, 3)
        return [(K.ACTION, [K.ACT_GROWTH_GROUP, n, _room(label, f"{key}.group", choice.get("group"), rooms)])]
    if act == "evolution":
        gene = choice.get("gene")
        if gene == "random":
            return [(K.ACTION, [K.ACT_EVOLUTION_RANDOM])]
        return [(K.ACTION, [K.ACT_EVOLUTION, _colour(label, f"{key}.gene", gene)])]
    if act == "spark":
        a = _room(label, f"{key}.from", choice.get("from"), rooms)
        return [(K.ACTION, [K.ACT_SPARK, a, _room(label, f"{key}.target", choice.get("target"), rooms)])]
    if act == "impulse" and "place" in choice:
        return [(K.ACTION, [K.ACT_IMPULSE_PLACE, _room(label, f"{key}.place", choice["place"], rooms)])]
    if act == "impulse" and "draw" in choice:
        return [(K.ACTION, [K.ACT_IMPULSE_DRAW, _room(label, f"{key}.draw", choice["draw"], rooms)])]
    if act == "none":  # AL1: Supergen's extra action declined
        return [(K.ACTION, [K.ACT_NONE])]
    if act not in _MAIN:  # a special action by its id (Q17)
        return [(K.ACTION, _special_row(label, key, choice, book, ru, rooms))]
    raise _err(label, f"{key}.action", f"unknown action {json.dumps(act)} (or its keys)")


def _choice_entries(
    label: str, key: str, name: str, v: Any, rooms: dict[int, int], species_of: dict[str, int]
) -> list[tuple[int, list[int]]]:
    """The tape entries of a choice of kind ``name`` (any but an action) with value ``v``."""
    if name == "start_room":
        return [(K.START_ROOM, [_room(label, f"{key}.start_room", v, rooms)])]
    if name == "step":
        if v not in K.STEP_NAMES:
            raise _err(
                label, f"{key}.step", f"expected one of {', '.join(K.STEP_NAMES)}, got {json.dumps(v)}"
            )
        return [(K.STEP, [K.STEP_NAMES.index(v)])]
    if name == "move":
        if not isinstance(v, dict) or set(v) != {"from", "to", "count"}:
            raise _err(label, f"{key}.move", 'expected {"from": t, "to": t, "count": k}')
        src = _room(label, f"{key}.move.from", v["from"], rooms)
        dst = _room(label, f"{key}.move.to", v["to"], rooms)
        return [(K.MOVE, [src, dst, _int(label, f"{key}.move.count", v["count"], 1, 3)])]
    if name == "discard_black":
        if isinstance(v, dict):  # {"genes": n, "fate": true}: K2, the fate as one more B gene
            fate = _bool(label, f"{key}.discard_black.fate", v.get("fate", False))
            n = _int(label, f"{key}.discard_black.genes", v.get("genes", 0), 0 if fate else 1, 99)
            return [(K.DISCARD_BLACK, [n, int(fate)])]
        return [(K.DISCARD_BLACK, [_int(label, f"{key}.discard_black", v, 1, 99), 0])]
    if name == "pay_energy":
        return [(K.PAY_ENERGY, _energy_payment(label, f"{key}.pay_energy", v, rooms, species_of))]
    if name == "fate_gene":
        return [
            (K.FATE_GENE, [-1 if v is None else 4 if v == "any" else _colour(label, f"{key}.fate_gene", v)])
        ]
    if name == "any_gene":
        return [(K.ANY_GENE, [_colour(label, f"{key}.any_gene", v)])]
    if name == "boost":
        if not isinstance(v, dict) or set(v) - {"red", "fate"}:
            raise _err(label, f"{key}.boost", 'expected {"red": n, "fate": n}')
        red = _int(label, f"{key}.boost.red", v.get("red", 0), 0, 99)
        return [(K.BOOST, [red, _int(label, f"{key}.boost.fate", v.get("fate", 0), 0, 99)])]
    if name == "reroll":
        return [(K.REROLL, [int(_bool(label, f"{key}.reroll", v))])]
    if name == "area_first":
        return [(K.AREA_FIRST, [_room(label, f"{key}.area_first", v, rooms)])]
    if name == "remove":
        if not isinstance(v, dict):
            raise _err(label, f"{key}.remove", "expected {tile: n}")
        return [
            (K.REMOVE, [_room(label, f"{key}.remove.{t}", t, rooms)])
            for t, n in v.items()
            for _ in range(_int(label, f"{key}.remove.{t}", n, 1, 3))
        ]
    raise _err(label, f"{key}.{name}", "unknown choice kind")


def _energy_payment(
    label: str, key: str, v: Any, rooms: dict[int, int], species_of: dict[str, int]
) -> list[int]:
    """A pay_energy choice's row: the groups discharged (a bit a room) and the trophies given up
    (4 bits a species' seat)."""
    if not isinstance(v, dict) or set(v) - {"groups", "trophies"}:
        raise _err(label, key, 'expected {"groups": [t, ...], "trophies": {species: n}}')
    mask = 0
    for i, t in enumerate(v.get("groups", [])):
        mask |= 1 << _room(label, f"{key}.groups[{i}]", t, rooms)
    packed = 0
    for sp, n in v.get("trophies", {}).items():
        if sp not in species_of:
            raise _err(label, f"{key}.trophies.{sp}", f"no seat plays {json.dumps(sp)}")
        packed |= _int(label, f"{key}.trophies.{sp}", n, 0, 15) << (4 * species_of[sp])
    return [mask, packed]


def _events_position(label: str, data: dict[str, Any], book: ChromosomeRules, st: Any, ru: Any) -> None:
    """V2-V5: the removed rooms (empty), the cards left to reveal in their order (names of the
    rules' deck; default: the whole deck in its listed order) and this round's card effects."""
    rooms = {int(t): i for i, t in enumerate(ru.tile)}
    removed = data.get("removed", [])
    if not isinstance(removed, list):
        raise _err(label, "removed", "expected a list of tiles")
    for i, t in enumerate(removed):
        r = _room(label, f"removed[{i}]", t, rooms)
        if st.owner[0, r] >= 0 or st.cubes[0, r] > 0:
            raise _err(
                label, f"removed[{i}]", f"room {t} holds a group or an area; a removed room is empty (V3)"
            )
        st.removed[0, r] = 1
    left = {r for r in rooms.values() if not st.removed[0, r]}
    reached, todo = set(), [min(left)] if left else []
    while todo:
        r = todo.pop()
        if r not in reached:
            reached.add(r)
            todo += [int(x) for x in ru.neighbours[r, : ru.degree[r]] if int(x) in left]
    if reached != left:
        raise _err(label, "removed", "the rooms left are split in two parts; the board never is (V4)")
    names = [c["name"] for c in book.data["events"]["deck"]] if book.flags["events"] else []
    deck = data.get("deck", names)
    if not isinstance(deck, list) or (deck and not names):
        raise _err(label, "deck", "expected a list of the rules' event cards by name (flag events = true)")
    for i, name in enumerate(deck):
        if name not in names or deck.index(name) != i:
            raise _err(label, f"deck[{i}]", f"expected a card of the rules' deck, each once; got {name!r}")
        st.deck[0, i] = names.index(name)
    st.deck_len[0] = len(deck)
    effects = data.get("round_effects", {})
    if not isinstance(effects, dict):
        raise _err(label, "round_effects", f"expected {{{', '.join(ROUND_EFFECTS)}}}")
    for key, value in effects.items():
        if key not in ROUND_EFFECTS:
            raise _err(label, f"round_effects.{key}", f"unknown; expected one of {', '.join(ROUND_EFFECTS)}")
        bounds = ROUND_EFFECTS[key]
        getattr(st, key)[0] = _int(label, f"round_effects.{key}", value, 0, bounds[-1])


def load_scenario(source: Path | dict[str, Any], *, check_invariants: bool = True) -> Scenario:
    """Validate a scenario (a path or a dict) and build its one-game position."""
    label, data = _document(source)
    book = _rulebook(label, data)
    P = _int(label, "players", data.get("players"), 2, 4)
    if P not in book.player_counts:
        raise _err(label, "players", f"expected one of {book.player_counts} (player_counts), got {P}")
    ru = rules_for(book, P)
    rooms = {int(t): i for i, t in enumerate(ru.tile)}
    st = allocate_state(1, ru)
    rnd = _int(label, "round", data.get("round", 1), 1, ru.rounds)
    st.round[0] = rnd
    st.clock[0] = _int(label, "clock", data.get("clock", ru.rounds - rnd + 1), 1, 99)
    st.start_player[0] = _int(label, "start_player", data.get("start_player", 0), 0, P - 1)
    st.active[0] = _int(label, "active_player", data.get("active_player", int(st.start_player[0])), 0, P - 1)
    species_of = _seats(label, data, st, ru, rooms, P)
    areas = data.get("areas", {})
    if not isinstance(areas, dict):
        raise _err(label, "areas", "expected {tile: strength}")
    for t, n in areas.items():
        st.cubes[0, _room(label, f"areas.{t}", t, rooms)] = _int(label, f"areas.{t}", n, 1, 99)
    _events_position(label, data, book, st, ru)
    _check_supplies(label, data, st, ru, P)
    names = data.get("strategies", [DEFAULT_STRATEGY] * P)
    if not isinstance(names, list) or len(names) != P:
        raise _err(label, "strategies", f"expected a list of {P} strategy names")
    for i, n in enumerate(names):
        try:
            preset_row(n)
        except UserError as e:
            raise ScenarioError(f"{label}: strategies[{i}]: {e}") from None
    tape, origin = _tape(label, data.get("choices", []), rooms, species_of, P, book, ru)
    dice = _forced_dice(label, data, ru)
    seed = _int(label, "seed", data.get("seed", 0), 0, 2**63 - 1)
    run, phase = _run_and_phase(label, data, rnd)
    work = _workspace(st, names, seed, tape, dice, check_invariants)
    return Scenario(label, book, P, data, st, ru, work, run, names, origin, phase)


def _rulebook(label: str, data: dict[str, Any]) -> ChromosomeRules:
    """The scenario's rules: the defaults with its ``rules`` overrides and its ``layout`` (L1)."""
    overrides = data.get("rules", {})
    if not isinstance(overrides, dict):
        raise _err(label, "rules", "expected an object of rules overrides")
    layout = data.get("layout", "default")
    if layout != "default":  # L1: the rooms of this player count's layout, as a rules file gives them
        if not isinstance(layout, list):
            raise _err(label, "layout", 'expected "default" or a list of rooms [tile, q, r] (L1)')
        P = _int(label, "players", data.get("players"), 2, 4)
        layouts = {**overrides.get("layouts", {}), str(P): {"rooms": layout}}
        overrides = {**overrides, "layouts": layouts}
    try:
        return load_rules(overrides=overrides or None)
    except RulesError as e:
        raise ScenarioError(f"{label}: rules: {e}") from None


def _seats(
    label: str, data: dict[str, Any], st: Any, ru: Any, rooms: dict[int, int], P: int
) -> dict[str, int]:
    """The ``state`` entries into ``st``, one a seat, each species once; returns each species' seat."""
    seats = data.get("state", [{} for _ in range(P)])
    if not isinstance(seats, list) or len(seats) != P:
        raise _err(label, "state", f"expected a list of {P} seat entries")
    species = [e.get("species", SPECIES[p]) if isinstance(e, dict) else None for p, e in enumerate(seats)]
    for p, sp in enumerate(species):
        if sp not in SPECIES or species.index(sp) != p:
            raise _err(label, f"state[{p}].species", f"expected a species of {', '.join(SPECIES)}, each once")
    species_of = {sp: p for p, sp in enumerate(species)}
    st.species[0] = [SPECIES.index(sp) for sp in species]
    for p, entry in enumerate(seats):
        _seat(label, f"state[{p}]", entry, st, ru, rooms, p, species_of)
    return species_of


def _check_supplies(label: str, data: dict[str, Any], st: Any, ru: Any, P: int) -> None:
    """I1, I4, I6: the supplies derived from the position, none below zero, and an explicit
    ``supplies`` equal to them."""
    derive_supplies(st, ru)
    for p in range(P):
        if st.supply[0, p] < 0:
            raise _err(label, f"state[{p}]", f"{-st.supply[0, p]} tokens more than the species has (I1)")
    for c in range(4):
        if st.gene_supply[0, c] < 0:
            raise _err(label, "state", f"{COLOURS[c]} genes held beyond the {ru.numbers[1]} there are (I6)")
    if st.pool[0] < 0:
        raise _err(label, "areas", f"more radiation cubes than the {ru.numbers[2]} there are (I4)")
    supplies = data.get("supplies")
    if supplies is None:
        return
    expected = {
        "tokens": [int(x) for x in st.supply[0]],
        "genes": dict(zip(COLOURS, (int(x) for x in st.gene_supply[0]), strict=True)),
        "cubes": int(st.pool[0]),
    }
    for k2, v in supplies.items() if isinstance(supplies, dict) else [("", None)]:
        if k2 not in expected or v != expected[k2]:
            raise _err(
                label,
                f"supplies.{k2}",
                f"does not add up: the position gives {json.dumps(expected.get(k2))} (I1, I4, I6)",
            )


def _forced_dice(label: str, data: dict[str, Any], ru: Any) -> list[int] | None:
    """The ``dice`` list (each a face of the rules' die), or None."""
    dice = data.get("dice")
    if dice is not None and (
        not isinstance(dice, list) or any(not isinstance(d, int) or isinstance(d, bool) for d in dice)
    ):
        raise _err(label, "dice", "expected a list of die faces")
    sides = int(ru.numbers[13])
    for i, d in enumerate(dice or []):
        _int(label, f"dice[{i}]", d, 1, sides)
    return dice


def _run_and_phase(label: str, data: dict[str, Any], rnd: int) -> tuple[str, str]:
    """How far to run and the position's next phase (R1: no Phase I in round 1)."""
    run = data.get("run")
    if run not in RUNS:
        raise _err(label, "run", f"expected one of {', '.join(RUNS)}, got {json.dumps(run)}")
    phase = data.get("phase", "phase2")
    if phase not in PHASES:
        raise _err(
            label, "phase", f"expected the next phase, one of {', '.join(PHASES)}, got {json.dumps(phase)}"
        )
    if (run == "phase1" or (phase == "phase1" and run in ("round", "game"))) and rnd < 2:
        raise _err(label, "run", "Phase I needs round 2 or later (R1: no Phase I in round 1)")
    return run, phase


def _workspace(
    st: Any,
    names: list[str],
    seed: int,
    tape: list[tuple[int, list[int]]],
    dice: list[int] | None,
    check_invariants: bool,
) -> Any:
    """The game's strategies and random streams into ``st``, and its workspace holding the forced
    choices and dice."""
    unique = list(dict.fromkeys(names))
    params = np.array([preset_row(n) for n in unique], dtype=np.float64)
    st.strategy[0] = [unique.index(n) for n in names]
    from sim.random_stream import seed_streams

    key, ctr = seed_streams(seed, np.array([0]), st.rng_key.shape[1])
    st.rng_key[:], st.rng_ctr[:] = key, ctr
    work = allocate_workspace(1, 1, params, check_invariants=check_invariants, tape_capacity=len(tape),
                              dice_capacity=len(dice) if dice is not None else 0,
                              log_events=True)  # fmt: skip
    for t, (kind, row) in enumerate(tape):
        work.tape_kind[0, t] = kind
        work.tape_value[0, t, : len(row)] = row
    work.tape_len[0] = len(tape)
    if dice is not None:
        work.dice[0, : len(dice)] = dice
        work.dice_len[0] = len(dice)
    return work


def scenario_document(sc: Scenario) -> dict[str, Any]:
    """The scenario's position and how it plays, as a document load_scenario reads back."""
    doc = {k: sc.data[k] for k in HOW_KEYS if k in sc.data}
    return {**doc, **position_document(sc)}


def position_document(sc: Scenario) -> dict[str, Any]:
    """The position's keys (§13) from the state."""
    st, ru = sc.state, sc.engine_rules
    P = sc.players
    tiles = [int(t) for t in ru.tile]
    species = [SPECIES[int(s)] for s in st.species[0]]
    seats = []
    for p in range(P):
        seats.append(
            {
                "species": species[p],
                "fate": int(st.fate[0, p]),
                "fate_token": "exhausted" if st.fate_exhausted[0, p] else "active",
                "irradiation": int(st.irradiation[0, p]),
                "genes": {
                    "active": {
                        c: int(st.active_genes[0, p, i])
                        for i, c in enumerate(COLOURS)
                        if st.active_genes[0, p, i]
                    },
                    "passive": {
                        c: int(st.passive_genes[0, p, i])
                        for i, c in enumerate(COLOURS)
                        if st.passive_genes[0, p, i]
                    },
                },
                "groups": {
                    str(tiles[r]): {"size": int(st.size[0, r]), "charged": bool(st.charged[0, r])}
                    for r in range(len(tiles))
                    if st.owner[0, r] == p
                },
                "trophies": {species[q]: int(st.trophies[0, p, q]) for q in range(P) if st.trophies[0, p, q]},
                "passed": bool(st.passed[0, p]),
                "eliminated": bool(st.eliminated[0, p]),
            }
        )
    return {
        "players": P,
        "round": int(st.round[0]),
        "clock": int(st.clock[0]),
        "phase": sc.phase,
        "start_player": int(st.start_player[0]),
        "active_player": int(st.active[0]),
        "areas": {str(tiles[r]): int(st.cubes[0, r]) for r in range(len(tiles)) if st.cubes[0, r]},
        "state": seats,
        "removed": [tiles[r] for r in range(len(tiles)) if st.removed[0, r]],
        "deck": [
            sc.rules.data["events"]["deck"][int(st.deck[0, i])]["name"]
            for i in range(int(st.deck_pos[0]), int(st.deck_len[0]))
        ],
        "round_effects": {k: int(getattr(st, k)[0]) for k in ROUND_EFFECTS if getattr(st, k)[0]},
    }


_ERRORS = {
    ERR_WRONG_CHOICE_KIND: "the forced choice is of another kind than the decision at hand",
    ERR_ILLEGAL_CHOICE: "the forced choice is not legal here",
    ERR_MISSING_DIE: "the forced dice ran out",
    ERR_INVARIANT: "an invariant broke",
    ERR_TOO_MANY_OPTIONS: "too many options",
    ERR_NO_END: "a round never ended",
}


def run_scenario(sc: Scenario) -> dict[str, Any]:
    """Play the scenario as far as ``run`` says; the position after it, and the outcome."""
    from sim.chromosome.engine import round as rnd
    from sim.chromosome.engine import turn
    from sim.chromosome.engine.batch import Batch, outcomes
    from sim.chromosome.tools.trace import events_as_dicts, names

    st, ru, work = sc.state, sc.engine_rules, sc.workspace
    cs, cr, cw = by_reference(st, ru, work)

    def ok() -> bool:
        return not st.finished[0] and work.error[0, 0] == 0

    def phase_one() -> None:  # Phase I of the position's round: it moves the clock into it (R2)
        st.round[0] -= 1
        st.clock[0] += 1
        rnd.phase_one(cs, cr, cw, 0, 0)

    if sc.run == "setup":
        rnd.setup(cs, cr, cw, 0, 0)
    elif sc.run == "turn":
        turn.take_turn(cs, cr, cw, 0, 0, int(st.active[0]))
    elif sc.run in PHASES:
        (phase_one if sc.run == "phase1" else lambda: None)()
        if sc.run == "phase2":
            rnd.phase_two(cs, cr, cw, 0, 0)
        elif sc.run == "phase3":
            rnd.phase_three(cs, cr, cw, 0, 0)
    else:  # "round" or "game": from the position's next phase
        start = PHASES.index(sc.phase)
        while ok():
            if start <= 0:
                if sc.run == "game" and start < 0:
                    rnd.phase_one(cs, cr, cw, 0, 0)
                else:
                    phase_one()
            if start <= 1 and ok():
                rnd.phase_two(cs, cr, cw, 0, 0)
            if ok():
                rnd.phase_three(cs, cr, cw, 0, 0)
            if sc.run == "round":
                break
            start = -1  # the next rounds from their Phase I
    code = int(work.error[0, 0])
    if code:
        t = int(work.error[0, 1])
        where = (
            f"choices[{sc.tape_origin[t]}]: "
            if code in (ERR_WRONG_CHOICE_KIND, ERR_ILLEGAL_CHOICE) and t < len(sc.tape_origin)
            else ""
        )
        raise GameError(f"{sc.label}: {where}{_ERRORS.get(code, 'engine error')} ({work.error[0].tolist()})")
    result = position_document(sc)
    species = [SPECIES[int(s)] for s in st.species[0]]
    result["events"] = events_as_dicts(work.events[0, : work.n_events[0]], ru.tile, *names(sc.rules, species))
    result["finished"] = bool(st.finished[0])
    if st.finished[0]:
        out = outcomes(Batch(st, ru, work, 1, True))
        result["scores"] = [int(x) for x in out["score"][0]]
        result["winners"] = [p for p in range(sc.players) if out["won"][0, p]]
    used = int(work.tape_pos[0])
    if used < int(work.tape_len[0]):
        result["unused_choices"] = sorted(set(sc.tape_origin[used:]))
    return result
