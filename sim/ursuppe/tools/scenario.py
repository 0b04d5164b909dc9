"""Scenario files (docs/scenario-format.md): a position, forced dice and choices, a run, a result.

``load_scenario`` validates a scenario (a JSON file or a dict) and builds a one-game batch:
the position in the State arrays, the dice and choices on the workspace's tapes. ``run_scenario``
runs the requested part of a round with the real engine and returns the resulting position, the
event log and the unused choices as a JSON-ready dict. Every problem with the input is a
:class:`ScenarioError` whose one-line message names the key.

Additions to the contract (documented in docs/scenario-format.md): state entries may omit
``score`` (default: start space p+1), ``bp`` (default: the start BP) and ``amoebas``; an amoeba's
``dp`` defaults to 0; ``{"buy": ["Armor"]}`` without the gene given up takes the first legal one;
the output also has ``pool`` (gene copies left) and ``rules_id``.
"""

import inspect
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from sim.errors import UserError
from sim.scenario_files import GAME_KEY, check_game, check_keys, read_scenario_file
from sim.ursuppe.engine import batch as batch_mod
from sim.ursuppe.engine.board import DIRECTION_CODE, DIRECTION_NAMES
from sim.ursuppe.engine.decision_kinds import (
    CHOICE_KEYS,
    CK_ATTACK,
    CK_BUY,
    CK_BUY_END,
    CK_COLOUR,
    CK_DIRECTION,
    CK_DIVIDE,
    CK_EAT,
    CK_MOVE,
    CK_PAY,
    CK_PLACE,
    CK_RESPOND,
    EAT_SUCTION_SLOT,
    EAT_VICTIM_SLOT,
    KIND_CHOICE_KEY,
    KIND_NAMES,
    RESPONSE_NAMES,
    pack_suction,
    unpack_suction,
)
from sim.ursuppe.engine.decisions import WILDCARD
from sim.ursuppe.engine.gene_sets import WORD_BITS, gene_names, words
from sim.ursuppe.engine.genes import gene_modules
from sim.ursuppe.engine.state import (
    ERR_EVENT_OVERFLOW,
    ERR_ILLEGAL_CHOICE,
    ERR_INVARIANT,
    ERR_MISSING_DIE,
    ERR_NO_END,
    ERR_TOO_MANY_OPTIONS,
    ERR_WRONG_CHOICE_KIND,
    NO_CARD,
    OPTION_WIDTH,
    PF_ALARM,
    recount_derived,
)
from sim.ursuppe.rules.book import (
    MAX_BP_AMOUNT,
    MAX_PLAYERS,
    MIN_PLAYERS,
    VARIANT_COLOURS,
    VARIANT_PLAYER_OF,
    RuleBook,
    RulesError,
    check_variant,
    load_rules,
)
from sim.ursuppe.rules.genes import GENE_NAMES, N_BASE_GENES, N_GENES, gene_index
from sim.ursuppe.tools.trace import events_as_dicts
from strategies.ursuppe.params import StrategyError, load_strategy, parameter_table

RUNS = ("setup", "phase1", "phase2", "phase3", "phase4", "phase5", "phase6", "round", "game")
MOVES = {"drift": 0, "active": 1, "stay": 2}
# The keys of a scenario document that say how to play the position (the others describe it).
HOW_KEYS = ("rules", "choices", "dice", "strategies", "seed", "run")
POSITION_KEYS = ("players", "variant", "round", "current_card", "deck", "food", "supply", "state")
EXTRA_POSITION_KEYS = ("extra_deck", "toxic")
# The test suite's expectations (tests/test_scenarios.py reads them; a misspelt one would check nothing)
TEST_KEYS = ("rules", "description", "expect", "expect_events", "absent_events", "expect_error")
# Every key a scenario file may hold at its top level, and in a player's entry of "state": any
# other is an error naming it (issue 31.4: "dise" for "dice" played random dice).
TOP_KEYS = (*POSITION_KEYS, *EXTRA_POSITION_KEYS, *HOW_KEYS, GAME_KEY, "test")
PLAYER_KEYS = ("score", "bp", "genes", "amoebas", "alarm")


class ScenarioError(UserError):
    """A scenario that cannot be run; the message is one line naming the key."""


@dataclass
class Scenario:
    """A validated scenario, ready to run."""

    source: str
    rulebook: RuleBook
    batch: batch_mod.Batch
    run: str
    choices: list[dict[str, Any]]
    tape_origin: list[int] = field(default_factory=list)  # tape entry -> index in choices
    variant: str | None = None  # a 2-player variant (players 2): state lists every colour, the dummy last
    data: dict[str, Any] = field(default_factory=dict)  # the document it was loaded from


def _err(label: str, key: str, message: str) -> ScenarioError:
    return ScenarioError(f"{label}: {key}: {message}")


def _keys(label: str, key: str, value: dict[str, Any], allowed: tuple[str, ...]) -> None:
    check_keys(label, key, value, allowed, ScenarioError)


def _object(
    label: str, key: str, value: Any, required: tuple[str, ...], optional: tuple[str, ...], shape: str
) -> dict[str, Any]:
    """``value`` as an object with the ``required`` keys and perhaps the ``optional`` ones; any
    other key is named (issue 31.4), as is a missing one."""
    if not isinstance(value, dict):
        raise _err(label, key, f"expected {shape}, got {json.dumps(value)}")
    _keys(label, key, value, required + optional)
    missing = [k for k in required if k not in value]
    if missing:
        raise _err(label, f"{key}.{missing[0]}", f"missing (expected {shape})")
    return value


def _int(label: str, key: str, value: Any, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _err(label, key, f"expected an integer, got {json.dumps(value)}")
    if value < low or (high is not None and value > high):
        bounds = f">= {low}" if high is None else f"in {low}..{high}"
        raise _err(label, key, f"expected an integer {bounds}, got {value}")
    return value


def _card(label: str, key: str, value: Any) -> tuple[int, int]:
    _object(label, key, value, ("ozone", "drift"), (), '{"ozone": n, "drift": "N|E|S|W|none"}')
    ozone = _int(label, f"{key}.ozone", value["ozone"], 0, 32767)
    drift = value["drift"]
    if drift not in ("N", "E", "S", "W", "none"):
        raise _err(
            label, f"{key}.drift", f'expected one of "N", "E", "S", "W", "none", got {json.dumps(drift)}'
        )
    return ozone, DIRECTION_CODE[drift]


def _gene(label: str, key: str, name: Any) -> int:
    if not isinstance(name, str):
        raise _err(label, key, f"expected a gene name, got {json.dumps(name)}")
    try:
        return gene_index(name)
    except KeyError:
        raise _err(
            label, key, f"unknown gene {json.dumps(name)} (expected one of: {', '.join(GENE_NAMES)})"
        ) from None


def _cubes(label: str, key: str, value: Any, players: int, high: int = 15) -> list[int]:
    if not isinstance(value, list) or len(value) != players:
        raise _err(label, key, f"expected a list of {players} cube counts, got {json.dumps(value)}")
    return [_int(label, f"{key}[{i}]", v, 0, high) for i, v in enumerate(value)]


def _suction(label: str, key: str, value: Any) -> int:
    """XG-12, XG-26: the cubes an eat choice takes from neighbouring spaces, packed (decision_kinds)."""
    if not isinstance(value, list) or len(value) > 2:
        raise _err(
            label, key, f'expected a list of at most 2 {{"space": s, "colour": c}}, got {json.dumps(value)}'
        )
    cubes = []
    for i, cube in enumerate(value):
        _object(label, f"{key}[{i}]", cube, ("space", "colour"), (), '{"space": s, "colour": c}')
        cubes.append(
            (
                _int(label, f"{key}[{i}].space", cube["space"], 0, 126),
                _int(label, f"{key}[{i}].colour", cube["colour"], 0, 7),
            )
        )
    return pack_suction(sorted(cubes))  # the engine lists a pair in ascending (space, colour) order


def _amoeba_or_none(label: str, key: str, v: Any, players: int) -> tuple[int, int]:
    """``null`` or ``{"player": p, "number": n}`` (an attack's target) as
    (player, number), (-1, -1) for null."""
    if v is None:
        return -1, -1
    _object(label, key, v, ("player", "number"), (), 'null or {"player": p, "number": n}')
    return (
        _int(label, f"{key}.player", v["player"], 0, players - 1),
        _int(label, f"{key}.number", v["number"], 1, 7),
    )


# The extra genes' choice keys (docs/rules.md §18, docs/scenarios.md): each a gene module's (below).
_EXTRA_CHOICES: dict = {}


def _gene_choice(ck: int, parse):
    """A gene module's scenario choice (rules.gene_rows.Decision.parse: a ValueError is the message)."""

    def parsed(label: str, key: str, v: Any, row: list[int], players: int) -> tuple[int, list[int]]:
        try:
            return ck, parse(v, row, players)
        except ValueError as exc:
            raise _err(label, key + getattr(exc, "key", ""), str(exc)) from None

    return parsed


def _gene_render(render):
    """A gene module's render as ``(row, players) -> choice``: rules.gene_rows.Decision.render
    takes the row, or the row and the players where its layout depends on the colours in play."""
    if len(inspect.signature(render).parameters) >= 2:
        return render
    return lambda row, players: render(row)


# The gene modules' decisions (sim/ursuppe/engine/genes/): their choice keys' parse, their render
_GENE_RENDER = {}
for _module in gene_modules():
    for _d in _module.GENE.decisions:
        _EXTRA_CHOICES.setdefault(_d.choice_key, _gene_choice(CHOICE_KEYS.index(_d.choice_key), _d.parse))
        _GENE_RENDER[_d.name] = _gene_render(_d.render)


def _parse_choice(label: str, k: int, choice: Any, players: int) -> list[tuple[int, list[int]]]:
    """One scenario choice as tape entries (choice key, option row)."""
    key = f"choices[{k}]"
    kind = _choice_kind(label, key, choice)
    v = choice[kind]
    row = [0] * OPTION_WIDTH
    if kind == "move":
        if v not in MOVES:
            raise _err(label, f"{key}.move", f'expected "drift", "active" or "stay", got {json.dumps(v)}')
        row[0] = MOVES[v]
        return [(CK_MOVE, row)]
    if kind == "direction":
        if v not in ("N", "E", "S", "W", "stay"):
            raise _err(
                label, f"{key}.direction", f'expected "N", "E", "S", "W" or "stay", got {json.dumps(v)}'
            )
        row[0] = DIRECTION_CODE[v]
        return [(CK_DIRECTION, row)]
    if kind == "eat":
        row[:players] = _cubes(label, f"{key}.eat", v, players)
        row[EAT_SUCTION_SLOT] = _suction(label, f"{key}.suction", choice.get("suction", []))
        victim = choice.get("parasite")
        row[EAT_VICTIM_SLOT] = (
            -1 if victim is None else _int(label, f"{key}.parasite", victim, 0, players - 1)
        )
        return [(CK_EAT, row)]
    if kind == "attack":
        row[0], row[1] = _amoeba_or_none(label, f"{key}.attack", v, players)
        return [(CK_ATTACK, row)]
    if kind == "respond":
        answers = tuple(v) if isinstance(v, list) else None
        if answers not in RESPONSE_NAMES:
            raise _err(
                label,
                f"{key}.respond",
                '"expected [], ["escape"], ["defense"], ["escape", "defense"] '
                f'or ["defense", "escape"], got {json.dumps(v)}',
            )
        row[0] = RESPONSE_NAMES.index(answers)
        return [(CK_RESPOND, row)]
    if kind == "pay":
        return [(CK_PAY, _pay_row(label, f"{key}.pay", v))]
    if kind == "buy":
        return _buy_entries(label, f"{key}.buy", v)
    if kind == "place":
        _object(label, f"{key}.place", v, ("space", "number"), (), '{"space": s, "number": n}')
        row[0] = _int(label, f"{key}.place.space", v["space"], 0, 127)
        row[1] = _int(label, f"{key}.place.number", v["number"], 1, 7)
        return [(CK_PLACE, row)]
    if kind == "colour":
        row[0] = _int(label, f"{key}.colour", v, 0, players - 1)
        return [(CK_COLOUR, row)]
    if kind in _EXTRA_CHOICES:
        return [_EXTRA_CHOICES[kind](label, f"{key}.{kind}", v, row, players)]
    # divide
    if v != "stop":
        raise _err(label, f"{key}.divide", f'expected "stop", got {json.dumps(v)}')
    row[0], row[1] = -1, -1
    return [(CK_DIVIDE, row)]


def _choice_kind(label: str, key: str, choice: Any) -> str:
    """The one choice key of a scenario choice (CHOICE_KEYS); any other key is an error."""
    if not isinstance(choice, dict) or not choice:
        raise _err(label, key, f"expected an object with one choice key, got {json.dumps(choice)}")
    kinds = [c for c in choice if c in set(CHOICE_KEYS)]
    if len(kinds) == 1:  # a misspelt key beside the choice is named, not ignored (issue 31.4)
        _keys(label, key, choice, (kinds[0], "parasite", "suction") if kinds[0] == "eat" else (kinds[0],))
    if not kinds:
        _keys(label, key, choice, tuple(sorted(set(CHOICE_KEYS))))
    if len(kinds) != 1:
        raise _err(
            label,
            key,
            f"expected exactly one of {', '.join(sorted(set(CHOICE_KEYS)))}; got {json.dumps(choice)}",
        )
    return kinds[0]


def _pay_row(label: str, key: str, v: Any) -> list[int]:
    """A gene defect's payment ``{"genes": [...], "bp": n}`` as its option row (the genes as a
    two-word mask)."""
    _object(label, key, v, (), ("genes", "bp"), '{"genes": [...], "bp": n}')
    genes = v.get("genes", [])
    if not isinstance(genes, list):
        raise _err(label, f"{key}.genes", f"expected a list of gene names, got {json.dumps(genes)}")
    mask = 0
    for i, name in enumerate(genes):
        mask |= 1 << _gene(label, f"{key}.genes[{i}]", name)
    row = [0] * OPTION_WIDTH
    row[0], row[1] = words(mask)
    row[2] = _int(label, f"{key}.bp", v.get("bp", 0), 0)
    return row


def _buy_entries(label: str, key: str, v: Any) -> list[tuple[int, list[int]]]:
    """A list of genes bought in order (``"Gene:Lower"`` names a lower gene given up,
    ``"Gene:holder"`` takes it from its holder) as buy entries, then the end of buying."""
    if not isinstance(v, list):
        raise _err(label, key, f"expected a list of gene names, got {json.dumps(v)}")
    entries = []
    for i, item in enumerate(v):
        if not isinstance(item, str):
            raise _err(label, f"{key}[{i}]", f"expected a gene name, got {json.dumps(item)}")
        name, _, gave = item.partition(":")
        r = [0] * OPTION_WIDTH
        r[0] = _gene(label, f"{key}[{i}]", name)
        if gave == "holder":  # XG-10: the Social Gene taken from the player holding it
            r[1], r[2] = -1, 1
        else:
            r[1] = _gene(label, f"{key}[{i}]", gave) if gave else WILDCARD
        entries.append((CK_BUY, r))
    end = [0] * OPTION_WIDTH
    end[0], end[1] = -1, -1
    entries.append((CK_BUY_END, end))
    return entries


def _extra_deck(label: str, data: dict[str, Any], rules: Any, held: np.ndarray) -> list[int]:
    """XM3: the face-down extra deck, top first (key "extra_deck"; default: the rules' deck cards
    not held by a player, in table order)."""
    if "extra_deck" not in data:
        left = held.copy()
        out = []
        for gid in rules.extra_deck:
            if left[gid] > 0:
                left[gid] -= 1
            else:
                out.append(int(gid))
        return out
    if not rules.extra_genes:
        raise _err(label, "extra_deck", "the extra deck needs flags.extra_genes = true (XM1)")
    value = data["extra_deck"]
    if not isinstance(value, list) or len(value) > rules.extra_deck.shape[0]:
        raise _err(
            label,
            "extra_deck",
            f"expected a list of at most {rules.extra_deck.shape[0]} gene names, top first",
        )
    allowed = [int(g) for g in rules.extra_deck]
    out = []
    for i, name in enumerate(value):
        gid = _gene(label, f"extra_deck[{i}]", name)
        if out.count(gid) >= allowed.count(gid) - int(held[gid]) and out.count(gid) < allowed.count(gid):
            # a card a player holds is not in the face-down deck too (issue 21: the message named XM3)
            raise _err(
                label,
                f"extra_deck[{i}]",
                f"{GENE_NAMES[gid]} is held by a player (genes), so its card is not in the extra deck; "
                "list it in one place only",
            )
        if out.count(gid) >= allowed.count(gid):
            raise _err(
                label,
                f"extra_deck[{i}]",
                f"{GENE_NAMES[gid]} is not a card of this game's extra deck (XM3, XM8)",
            )
        out.append(gid)
    return out


def _toxic(label: str, data: dict[str, Any], spaces: int) -> np.ndarray:
    """XG-19: DP tokens lying on spaces (key "toxic": {"space": tokens})."""
    tokens = np.zeros(spaces, dtype=np.int16)
    value = data.get("toxic", {})
    if not isinstance(value, dict):
        raise _err(label, "toxic", f'expected an object {{"space": tokens}}, got {json.dumps(value)}')
    for key, n in value.items():
        if not key.isdigit() or not 0 <= int(key) < spaces:
            raise _err(label, f"toxic.{key}", f"expected a space index 0..{spaces - 1}")
        tokens[int(key)] = _int(label, f"toxic.{key}", n, 0, 1000)
    return tokens


def _document(source: str | Path | dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The scenario's label (its path) and its JSON object, every key of it known (issue 31.4)."""
    if isinstance(source, dict):
        label, data = "<scenario>", source
    else:
        label, data = str(source), read_scenario_file(source, ScenarioError)
    _keys(label, "", data, TOP_KEYS)
    check_game(label, data, "ursuppe", ScenarioError)  # sim.ursuppe.game's name
    if "test" in data:
        _object(label, "test", data["test"], (), TEST_KEYS, "an object of the test suite's expectations")
    return label, data


def _rules(label: str, data: dict[str, Any]) -> tuple[RuleBook, Any, int, str | None]:
    """The rule book (defaults with the scenario's overrides), its rules for the table, the number
    of colours and the 2-player variant (TD1: a variant plays as its colours' count, the dummy a
    third, last colour)."""
    variant = data.get("variant")
    if data.get("players") == 2 or variant is not None:
        try:
            check_variant(data.get("players"), variant)
        except RulesError as e:
            raise ScenarioError(f"{label}: {e}") from None
        P = VARIANT_COLOURS[variant]
    elif "players" in data:
        P = _int(label, "players", data.get("players"), MIN_PLAYERS, MAX_PLAYERS)
    else:
        raise _err(label, "players", f"missing (expected {MIN_PLAYERS} to {MAX_PLAYERS})")
    overrides = data.get("rules", {})
    if not isinstance(overrides, dict):
        raise _err(label, "rules", f"expected an object of rules overrides, got {json.dumps(overrides)}")
    try:
        rulebook = load_rules(overrides=overrides)
    except RulesError as e:
        raise ScenarioError(f"{label}: rules: {e}") from None
    if P not in rulebook.player_counts:
        counts = ", ".join(map(str, rulebook.player_counts))
        raise _err(label, "players", f"expected one of {counts} (components.player_counts), got {P}")
    rules = rulebook.for_players(2, variant) if variant is not None else rulebook.for_players(P)
    return rulebook, rules, P, variant


def _cards(label: str, data: dict[str, Any], default_cards: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The environment: the current card, then the remaining deck (default: the rest of the rules'
    deck)."""
    current = (
        _card(label, "current_card", data["current_card"]) if "current_card" in data else default_cards[0]
    )
    if "deck" in data:
        if not isinstance(data["deck"], list):
            raise _err(label, "deck", f"expected a list of cards, got {json.dumps(data['deck'])}")
        rest = [_card(label, f"deck[{i}]", c) for i, c in enumerate(data["deck"])]
    else:
        rest = list(default_cards)
        if current in rest:
            rest.remove(current)
    cards = [current, *rest]
    if len(cards) > 127:
        raise _err(label, "deck", "at most 126 cards")
    return cards


def _food_and_supply(label: str, data: dict[str, Any], rules: Any, P: int) -> tuple[np.ndarray, list[int]]:
    """The cubes on every space and in the supply; every colour's cubes add up (C3, I1)."""
    S = rules.n_spaces
    food = np.full((S, P), rules.cubes_per_space, dtype=np.int64)
    food_in = data.get("food", {})
    if not isinstance(food_in, dict):
        raise _err(
            label, "food", f'expected an object {{"space": [cubes per colour]}}, got {json.dumps(food_in)}'
        )
    for key, value in food_in.items():
        if not key.isdigit() or not 0 <= int(key) < S:
            raise _err(label, f"food.{key}", f"expected a space index 0..{S - 1}")
        food[int(key)] = _cubes(label, f"food.{key}", value, P, rules.cubes_per_colour)
    on_board = food.sum(axis=0)
    for c in range(P):
        if on_board[c] > rules.cubes_per_colour:
            raise _err(
                label,
                "food",
                f"{on_board[c]} cubes of colour {c} on the board, more than the "
                f"{rules.cubes_per_colour} there are (I1)",
            )
    if "supply" not in data:
        return food, [int(rules.cubes_per_colour - on_board[c]) for c in range(P)]
    raw = data["supply"]
    if not isinstance(raw, list) or len(raw) != P:
        raise _err(label, "supply", f"expected a list of {P} cube counts, got {json.dumps(raw)}")
    supply = [_int(label, f"supply[{i}]", v, 0) for i, v in enumerate(raw)]
    for c in range(P):
        if on_board[c] + supply[c] != rules.cubes_per_colour:
            raise _err(
                label,
                f"supply[{c}]",
                f"board ({on_board[c]}) + supply ({supply[c]}) must be "
                f"{rules.cubes_per_colour} for colour {c} (I1)",
            )
    return food, supply


class _Play(NamedTuple):
    """How a scenario plays (its keys of HOW_KEYS but the rules)."""

    strategies: list[Any]
    choices: list[Any]  # as written
    tape: list[tuple[int, list[int]]]  # the choices as (choice key, option row) entries
    origin: list[int]  # tape entry -> index in choices
    dice: list[int] | None
    seed: int
    run: str


def _how(label: str, data: dict[str, Any], P: int) -> _Play:
    """How the scenario plays: the strategies, the forced choices, the forced dice, the seed and
    how far it runs."""
    strategies_in = data.get("strategies", ["greedy"] * P)
    if not isinstance(strategies_in, list) or len(strategies_in) != P:
        raise _err(label, "strategies", f"expected a list of {P} strategy names")
    try:
        strategies = [load_strategy(s) for s in strategies_in]
    except StrategyError as e:
        raise ScenarioError(f"{label}: strategies: {e}") from None
    choices = data.get("choices", [])
    if not isinstance(choices, list):
        raise _err(label, "choices", "expected a list of choices")
    tape: list[tuple[int, list[int]]] = []
    origin: list[int] = []
    for k, choice in enumerate(choices):
        for entry in _parse_choice(label, k, choice, P):
            tape.append(entry)
            origin.append(k)
    dice = data.get("dice")
    if dice is not None:
        if not isinstance(dice, list):
            raise _err(label, "dice", "expected a list of die results 1..6")
        dice = [_int(label, f"dice[{i}]", d, 1, 6) for i, d in enumerate(dice)]
    seed = _int(label, "seed", data.get("seed", 0), 0, 2**63 - 1)
    if "run" not in data:  # not a default: a scenario without it failed later, on a choice (issue 21)
        raise _err(label, "run", f"missing: say how far to play, one of {', '.join(RUNS)}")
    run = data["run"]
    if run not in RUNS:
        raise _err(label, "run", f"expected one of {', '.join(RUNS)}, got {json.dumps(run)}")
    return _Play(strategies, choices, tape, origin, dice, seed, run)


def _genes(label: str, key: str, entry: dict[str, Any], st: Any, p: int, rules: Any, rnd: int) -> list[int]:
    """Player p's genes (a name, or {"name", "since_round"}) into the state; the genes it holds."""
    genes = entry.get("genes", [])
    if not isinstance(genes, list):
        raise _err(label, f"{key}.genes", 'expected a list of gene names or {"name", "since_round"}')
    held = []
    for i, item in enumerate(genes):
        gk = f"{key}.genes[{i}]"
        if isinstance(item, dict):
            _object(label, gk, item, ("name",), ("since_round",), '{"name": gene, "since_round": n}')
            gid = _gene(label, f"{gk}.name", item["name"])
            since = _int(label, f"{gk}.since_round", item.get("since_round", rnd - 1), 0, rnd)
        else:
            gid = _gene(label, gk, item)
            since = rnd - 1  # a plain name: held since before this round
        if st.genes[0, p, gid]:
            raise _err(label, gk, f"{GENE_NAMES[gid]} twice: a player holds at most one copy (G2, I5)")
        st.genes[0, p, gid] = 1
        st.gene_since[0, p, gid] = since
        held.append(gid)
    for gid in range(N_GENES):
        lower = [x for x in rules.gene_lower[gid] if x >= 0]
        if st.genes[0, p, gid] and len(lower) == 1 and st.genes[0, p, lower[0]]:
            raise _err(
                label,
                f"{key}.genes",
                f"{GENE_NAMES[gid]} with {GENE_NAMES[lower[0]]}: an advanced gene replaces its lower gene "
                "(G3, I5)",
            )
    return held


def _amoebas(label: str, key: str, entry: dict[str, Any], st: Any, p: int, rules: Any) -> None:
    """Player p's amoebas ({"number", "space", "dp"}) into the state (I2: numbers distinct)."""
    A, S = rules.amoebas_per_player, rules.n_spaces
    amoebas = entry.get("amoebas", [])
    if not isinstance(amoebas, list) or len(amoebas) > A:
        raise _err(label, f"{key}.amoebas", f"expected a list of at most {A} amoebas")
    for i, am in enumerate(amoebas):
        ak = f"{key}.amoebas[{i}]"
        _object(label, ak, am, ("number", "space"), ("dp",), '{"number": n, "space": s, "dp": d}')
        n = _int(label, f"{ak}.number", am["number"], 1, A)
        if st.space[0, p, n - 1] >= 0:
            raise _err(label, f"{ak}.number", f"amoeba number {n} is used twice (I2)")
        st.space[0, p, n - 1] = _int(label, f"{ak}.space", am["space"], 0, S - 1)
        st.dp[0, p, n - 1] = _int(label, f"{ak}.dp", am.get("dp", 0), 0, 127)


def _players(label: str, entries: list[Any], st: Any, rules: Any, rnd: int) -> np.ndarray:
    """Every colour's entry of "state" (score, bp, genes, amoebas, alarm) into the state; the
    number of players holding each gene."""
    held_total = np.zeros(N_GENES, dtype=np.int64)
    scores: list[int] = []
    for p, entry in enumerate(entries):
        key = f"state[{p}]"
        if not isinstance(entry, dict):
            raise _err(label, key, "expected an object with score, bp, genes, amoebas")
        _keys(label, key, entry, PLAYER_KEYS)
        if "alarm" in entry:  # XG-03: Alarm has granted Escape this round
            if not isinstance(entry["alarm"], bool):
                raise _err(label, f"{key}.alarm", f"expected true or false, got {json.dumps(entry['alarm'])}")
            st.player_flags[0, p] = PF_ALARM if entry["alarm"] else 0
        first = int(rules.partner[p])
        if 0 <= first < p:  # TB3: a double play II player's second colour shares its first's
            shared = sorted(set(entry) & {"score", "bp", "genes"})
            if shared:
                raise _err(
                    label,
                    f"{key}.{shared[0]}",
                    f"colour {p} shares the marker, BP and genes of colour {first} (double play II, "
                    f"TB3): give them in state[{first}] only",
                )
            entry = {**entries[first], "amoebas": entry.get("amoebas", [])}
            held_total -= st.genes[0, first].astype(np.int64)  # counted once, for colour `first`
            scores.remove(int(st.score[0, first]))
        score = _int(label, f"{key}.score", entry.get("score", p + 1), 0, 32767)
        if score in scores:
            raise _err(
                label,
                f"{key}.score",
                f"{score} is another player's position too; positions are distinct (I6)",
            )
        scores.append(score)
        st.score[0, p] = score
        st.seat[0, p] = p + 1
        # BP stays within the rules' bound, so that a scenario's income cannot overflow int32.
        st.bp[0, p] = _int(label, f"{key}.bp", entry.get("bp", rules.start_bp), 0, MAX_BP_AMOUNT)
        for gid in _genes(label, key, entry, st, p, rules, rnd):
            held_total[gid] += 1
        _amoebas(label, key, entry, st, p, rules)
    return held_total


def _gene_supply(
    label: str, data: dict[str, Any], st: Any, rules: Any, P: int, held_total: np.ndarray
) -> None:
    """The genes' pool and the extra deck's face-down cards: no more copies than the game has (I4)."""
    copies = rules.gene_copies.astype(np.int64)
    face_down = _extra_deck(label, data, rules, held_total)
    for gid in range(N_GENES):
        if held_total[gid] + face_down.count(gid) > copies[gid]:
            hint = (
                " (the extra genes need flags.extra_genes = true)"
                if not rules.extra_genes and gid >= N_BASE_GENES
                else ""
            )
            raise _err(
                label,
                "state",
                f"{held_total[gid]} player{' holds' if held_total[gid] == 1 else 's hold'} "
                f"{GENE_NAMES[gid]}, but the {P}-player "
                f"game has {copies[gid]} cop{'y' if copies[gid] == 1 else 'ies'} (I4){hint}",
            )
    st.pool[0] = copies - held_total
    for gid in face_down:
        st.pool[0, gid] -= 1
    st.extra_deck[0, :] = NO_CARD
    st.extra_top[0] = st.extra_deck.shape[1] - len(face_down)  # the deck's cards fill its last slots
    st.extra_deck[0, st.extra_top[0] :] = face_down


def load_scenario(source: str | Path | dict[str, Any], *, check_invariants: bool = True) -> Scenario:
    """Validate a scenario file (path) or dict and build its one-game batch: the position
    (players, round, cards, food, supply, state, extra deck, toxic tokens) and how it plays
    (strategies, forced choices and dice, seed, run); docs/scenario-format.md."""
    label, data = _document(source)
    rulebook, rules, P, variant = _rules(label, data)
    limit = len(rules.deck_ozone) - (1 if rules.first_round_flip else 0)
    rnd = _int(label, "round", data.get("round", 1), 1, limit)
    default_cards = [(int(o), int(d)) for o, d in zip(rules.deck_ozone, rules.deck_drift, strict=True)]
    cards = _cards(label, data, default_cards)
    food, supply = _food_and_supply(label, data, rules, P)
    entries = data.get("state", [{} for _ in range(P)])
    if not isinstance(entries, list) or len(entries) != P:
        raise _err(label, "state", f"expected a list of {P} player entries (in colour order)")
    how = _how(label, data, P)

    b = batch_mod.new_batch(
        rules,
        parameter_table(how.strategies),
        np.arange(P),
        how.seed,
        np.array([0]),
        check_invariants=check_invariants,
        log_events=True,
        n_cards=len(cards),
        tape_capacity=len(how.tape),
        dice_capacity=len(how.dice) if how.dice is not None else 0,
    )
    st, wk = b.state, b.workspace
    st.round[0] = rnd
    st.n_cards[0] = len(cards)
    st.deck_pos[0] = 0
    unused = list(range(len(default_cards)))
    for i, (ozone, drift) in enumerate(cards):
        st.card_ozone[0, i] = ozone
        st.card_drift[0, i] = drift
        match = next((j for j in unused if default_cards[j] == (ozone, drift)), -1)
        if match >= 0:
            unused.remove(match)
        st.card_index[0, i] = match
    st.food[0] = food
    st.supply[0] = supply
    held_total = _players(label, entries, st, rules, rnd)
    _gene_supply(label, data, st, rules, P, held_total)
    st.toxic[0] = _toxic(label, data, rules.n_spaces)
    recount_derived(st)
    wk.score_seen[0, :] = st.score[0]

    for t, (ck, row) in enumerate(how.tape):
        wk.tape_kind[0, t] = ck
        wk.tape_value[0, t] = row
    wk.tape_len[0] = len(how.tape)
    if how.dice is not None:
        wk.dice[0, : len(how.dice)] = how.dice
        wk.dice_len[0] = len(how.dice)
    return Scenario(label, rulebook, b, how.run, how.choices, how.origin, variant, data)


def _option_as_choice(kind: int, row: np.ndarray, players: int) -> dict[str, Any]:
    """An option row rendered as the scenario choice that selects it."""
    key = CHOICE_KEYS[KIND_CHOICE_KEY[kind]]
    name = KIND_NAMES[kind]
    if name in _GENE_RENDER:
        return _GENE_RENDER[name](list(row), players)
    if name == "move":
        return {"move": ("drift", "active", "stay")[row[0]]}
    if name == "direction":
        return {"direction": DIRECTION_NAMES[row[0]]}
    if name == "eat":
        victim = int(row[EAT_VICTIM_SLOT])
        out = {"eat": [int(x) for x in row[:players]], "parasite": None if victim < 0 else victim}
        if row[EAT_SUCTION_SLOT]:
            out["suction"] = [
                {"space": s, "colour": c} for s, c in unpack_suction(int(row[EAT_SUCTION_SLOT]))
            ]
        return out
    if name == "attack":
        return {"attack": None if row[0] < 0 else {"player": int(row[0]), "number": int(row[1])}}
    if name == "respond":
        return {"respond": list(RESPONSE_NAMES[row[0]])}
    if name == "pay":
        return {"pay": {"genes": gene_names(int(row[0]) | int(row[1]) << WORD_BITS), "bp": int(row[2])}}
    if name == "buy":
        if row[0] < 0:
            return {"buy": []}
        gene = GENE_NAMES[row[0]] + (f":{GENE_NAMES[row[1]]}" if row[1] >= 0 else "")
        if row[2] == 1:
            gene += ":holder"  # XG-10
        return {"buy": [gene]}
    if name == "colour":
        return {"colour": int(row[0])}
    if row[0] < 0:
        return {"divide": "stop"}
    return {key: {"space": int(row[0]), "number": int(row[1])}}


def _raise_engine_error(sc: Scenario) -> None:
    wk = sc.batch.workspace
    code, a, b, c = (int(x) for x in wk.error[0])
    P = sc.batch.rules.players
    if code in (ERR_WRONG_CHOICE_KIND, ERR_ILLEGAL_CHOICE):
        k = sc.tape_origin[a]
        kind = KIND_NAMES[b]
        legal = [_option_as_choice(b, wk.error_options[0, i], P) for i in range(int(wk.n_error_options[0]))]
        shown = json.dumps(sc.choices[k])
        if code == ERR_WRONG_CHOICE_KIND:
            raise ScenarioError(
                f"{sc.source}: choices[{k}]: {shown} is not a {CHOICE_KEYS[KIND_CHOICE_KEY[b]]!r} "
                f"choice, which player {c}'s decision ({kind}) needs here; legal: {json.dumps(legal)}"
            )
        raise ScenarioError(
            f"{sc.source}: choices[{k}]: {shown} is not legal for player {c}'s decision "
            f"({kind}) here; legal: {json.dumps(legal)}"
        )
    if code == ERR_MISSING_DIE:
        raise ScenarioError(
            f"{sc.source}: dice: ran out: roll {a + 1} was needed but only {a} dice are given"
        )
    if code == ERR_INVARIANT:
        raise ScenarioError(f"{sc.source}: invariant I{a} failed after phase {b} (detail {c})")
    if code == ERR_TOO_MANY_OPTIONS:
        raise ScenarioError(f"{sc.source}: a decision had more legal options than the engine can hold")
    if code == ERR_EVENT_OVERFLOW:
        raise ScenarioError(f"{sc.source}: the event log is full")
    if code == ERR_NO_END:
        raise ScenarioError(f"{sc.source}: the game did not end by the last card")
    raise ScenarioError(f"{sc.source}: engine error {code}")


def run_scenario(sc: Scenario) -> dict[str, Any]:
    """Run the scenario's ``run`` and return the output document (scenario-format.md)."""
    b = sc.batch
    if sc.run == "setup" or sc.run.startswith("phase"):
        batch_mod.advance_phase(b, 0 if sc.run == "setup" else int(sc.run[5:]))
    else:
        batch_mod.play_rounds(b, rounds=1 if sc.run == "round" else None)
    if b.workspace.error[0, 0] != 0:
        _raise_engine_error(sc)
    return position_document(sc)


def scenario_document(sc: Scenario) -> dict[str, Any]:
    """The scenario as a document :func:`load_scenario` reads back: its position (as the engine
    holds it, before the run) and how to play it (python-chess's positions as text)."""
    position = position_document(sc)
    doc = {key: position[key] for key in POSITION_KEYS if key in position}
    doc.update({key: position[key] for key in EXTRA_POSITION_KEYS if key in position})
    doc.update({key: sc.data[key] for key in HOW_KEYS if key in sc.data})
    if sc.variant == "double2":  # TB3: a player's second colour gives only its amoebas
        owners = VARIANT_PLAYER_OF[sc.variant]
        doc["state"] = [
            entry if owners.index(owners[c]) == c else {"amoebas": entry["amoebas"]}
            for c, entry in enumerate(doc["state"])
        ]
    return doc


def position_document(sc: Scenario) -> dict[str, Any]:
    """The output document: the position after the run, the events and the unused choices."""
    b = sc.batch
    st, wk, rules = b.state, b.workspace, b.rules
    P = rules.players
    pos = int(st.deck_pos[0])
    n = int(st.n_cards[0])

    def card(i: int) -> dict[str, Any]:
        return {
            "ozone": int(st.card_ozone[0, i]),
            "drift": DIRECTION_NAMES[st.card_drift[0, i]].replace("stay", "none"),
        }

    state = []
    for p in range(P):
        genes = [
            {"name": GENE_NAMES[i], "since_round": int(st.gene_since[0, p, i])}
            for i in range(N_GENES)
            if st.genes[0, p, i]
        ]
        amoebas = [
            {"number": a + 1, "space": int(st.space[0, p, a]), "dp": int(st.dp[0, p, a])}
            for a in range(rules.amoebas_per_player)
            if st.space[0, p, a] >= 0
        ]
        state.append(
            {"score": int(st.score[0, p]), "bp": int(st.bp[0, p]), "genes": genes, "amoebas": amoebas}
        )
        if st.player_flags[0, p] & PF_ALARM:
            state[-1]["alarm"] = True
    used = int(wk.tape_pos[0])
    first_unused = sc.tape_origin[used] if used < len(sc.tape_origin) else len(sc.choices)
    if used > 0 and used < len(sc.tape_origin) and sc.tape_origin[used] == sc.tape_origin[used - 1]:
        first_unused += 1  # a buy list that was partly used counts as used
    doc: dict[str, Any] = {
        "players": P if sc.variant is None else 2,
        "round": int(st.round[0]),
        "current_card": card(pos),
        "deck": [card(i) for i in range(pos + 1, n)],
        "food": {str(s): [int(x) for x in st.food[0, s]] for s in range(rules.n_spaces)},
        "supply": [int(x) for x in st.supply[0]],
        "pool": {GENE_NAMES[i]: int(st.pool[0, i]) for i in range(rules.n_genes)},
        "state": state,
        "events": events_as_dicts(wk.events[0, : wk.n_events[0]], P),
        "unused_choices": sc.choices[first_unused:],
        "finished": bool(st.finished[0]),
        "rules_id": sc.rulebook.rules_id,
    }
    if sc.variant is not None:
        doc["variant"] = sc.variant
    if rules.extra_genes:  # §18: the face-down deck (top first) and the Toxic Excretions tokens
        doc["extra_deck"] = [GENE_NAMES[g] for g in st.extra_deck[0, st.extra_top[0] :] if g >= 0]
        doc["toxic"] = {str(s): int(t) for s, t in enumerate(st.toxic[0]) if t}
    if st.finished[0]:
        doc["winner"] = int(st.winner[0])
        doc["final_positions"] = [int(x) for x in st.score[0]]
    return doc
