"""Chromosome's rules file (spec §1, §2, §7-§10, §14): the defaults (``default_rules.toml``) with
house-rules files merged on top, validated key by key, and the arrays the engine reads.

Every error is one line naming the file that set the value and the dotted key (a
:class:`RulesError`, a UserError: exit 2 on the command line). Numbers and flags are rows
(:data:`NUMBERS`, :data:`FLAGS`) from which the checks, the messages and the docs' tables come;
the structured data (tiles, layouts, the die, species actions, events) has a checker each.
"""

import copy
import json
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

from sim.chromosome.rules.board import Board, LayoutError, build_board, connected
from sim.errors import UserError
from sim.rules_files import MergedRules, player_counts_ok, read_rules_file

DEFAULT_RULES_PATH = Path(__file__).resolve().parent / "default_rules.toml"
COLOURS = ("Y", "P", "R", "B")  # §0: action, telepathy, combat, build genes
SPECIES = ("Alum", "Ferox", "Cadum", "Pars")  # C3
MAX_PLAYERS = 4


class RulesError(UserError):
    """A rules file or key that cannot be used (one line naming the file and key)."""


class NumberRow(NamedTuple):
    """An integer of the rules: its dotted key, rule id, bounds, and whether no source has it."""

    key: str
    rule: str
    low: int
    high: int
    placeholder: bool = False


class FlagRow(NamedTuple):
    """A §14 flag: its name, rule id and its readings (the default first in the file); a bool flag
    has ``choices`` (False, True), an integer flag ``choices`` of the allowed values."""

    name: str
    rule: str
    choices: tuple[Any, ...]
    placeholder: bool = False


NUMBERS: tuple[NumberRow, ...] = (
    NumberRow("components.tokens_per_species", "C2", 3, 60),
    NumberRow("components.gene_cubes_per_colour", "C7", 1, 99, placeholder=True),  # U5
    NumberRow("components.radiation_cubes", "C6", 0, 99),
    NumberRow("components.max_genes", "A4", 3, 32),
    NumberRow("components.irradiation_max", "X4", 1, 99),
    NumberRow("components.max_turns_per_round", "R8", 10, 10_000),
    NumberRow("setup.start_fate", "S5", 0, 99),
    NumberRow("setup.start_group", "S7", 1, 3),
    NumberRow("costs.fate_restore_energy", "T1", 0, 99),
    NumberRow("costs.trophy_energy", "K3", 1, 99),
    NumberRow("costs.black_discard_irradiation", "G4", 0, 99),
    NumberRow("costs.evolution_random_energy", "A6", 0, 99),
    NumberRow("costs.impulse_cubes", "A11", 1, 99),
    NumberRow("genes.red_strength", "F2", 0, 9),  # F2, F3: strength each R gene exhausted adds
    NumberRow("genes.black_test", "G4", 0, 9),  # G4a: what each active B adds to a test's roll
)

FLAGS: tuple[FlagRow, ...] = (
    FlagRow("species_mode", "SP1", ("plain", "full")),
    FlagRow("events", "V1", (False, True)),
    FlagRow("die_sides", "D1", (4, 6)),
    FlagRow("fate_max", "U4", (4, 7, 0), placeholder=True),  # 0: unbounded
    FlagRow("fate_strength_timing", "F11", ("before_rolls", "after_rolls")),
    FlagRow("reroll_order", "D3", ("roller_first", "roller_last")),
    FlagRow("area_tie_break", "X2", ("starter_chooses", "lowest_tile")),
    FlagRow("charge_size_limit", "X5", (True, False)),
    FlagRow("area_room_adjacent_for_charge", "X5", (True, False)),
    FlagRow("start_count", "R5", ("tokens", "groups", "charged_tokens")),
    FlagRow("start_tie_previous_last", "R5", (True, False)),
    FlagRow("sterility_check", "M3", ("moving", "resulting")),
    FlagRow("energy_surplus_scope", "K4", ("payment", "turn")),
    FlagRow("fate_gene_any_purpose", "K2", (True, False)),
    FlagRow("growth_adjacency", "A3", ("before_action", "chain", "one_group")),
    FlagRow("impulse_partial", "A11", (False, True)),
    FlagRow("evolution_empty_colour", "A6", ("nothing", "reroll")),
    FlagRow("plus1_counts_passive", "A5", (True, False)),
    FlagRow("spark_path", "A8", ("any_rooms", "empty_rooms_only")),
    FlagRow("final_turn_includes_active", "E3", (True, False)),
    FlagRow("elimination_finish_phase", "E3", (False, True)),
    FlagRow("fala_test", "CA4", ("normal", "strength_only")),
    FlagRow("supergen_chain_self", "AL1", (False, True)),
    FlagRow("takeover_target", "AL3", ("single_token_group", "whole_group")),
    FlagRow("fusion_trophies", "FE3", (False, True)),
    FlagRow("destroy_trophy", "FE4", (False, True)),
)
FLAG_INDEX = {f.name: i for i, f in enumerate(FLAGS)}

# SP1 (species_mode = "full"): the special actions' effects the engine implements, each with the
# integer parameters it takes (name: (low, high, default)). A species action names one by `effect`.
EFFECT_KINDS: dict[str, dict[str, tuple[int, int, int]]] = {
    "supergen": {},  # AL1
    "exchange": {},  # AL2
    "takeover": {},  # AL3
    "gain_passive_gene": {},  # AL4
    "bond_attack": {},  # FE1
    "domination_attack": {},  # FE2
    "fusion": {},  # FE3
    "destroy": {"tokens": (1, 3, 1)},  # FE4
    "concentration": {"cubes": (1, 99, 3)},  # CA1
    "irradiate_all": {"amount": (1, 99, 1)},  # CA2
    "charge_adjacent": {},  # CA3
    "wave": {},  # CA4
    "teleport": {},  # PA1
    "hotbed": {},  # PA2
    "giant": {"size": (1, 3, 3)},  # PA3
    "extra_move": {},  # PA4
}
COST_KEYS = (*COLOURS, "any", "E", "E_per_room")  # genes by colour, any colour, energy
ACTION_KEYS = ("id", "name", "cost", "effect", "params", "per_round", "placeholder")

# V5: the event cards' kinds and the integer parameters each takes (name: (low, high)).
EVENT_KINDS: dict[str, dict[str, tuple[int, int]]] = {
    "remove_room": {"tile": (1, 99)},
    "irradiate_all": {"n": (1, 99)},
    "place_area": {"tile": (1, 99), "cubes": (1, 99)},
    "decay_all": {"n": (1, 99)},
    "discharge_all": {},
    "fate_all": {"n": (1, 99)},
    "round_no_attacks": {},
    "round_sterility_plus1": {},
    "round_trophy_energy": {"n": (1, 99)},
}

TOP_KEYS = ("player_counts", "components", "rounds", "setup", "costs", "genes", "die", "flags", "tiles",
            "layouts", "species", "events")  # fmt: skip
SECTION_KEYS: dict[str, tuple[str, ...]] = {
    "components": tuple(r.key.split(".")[1] for r in NUMBERS if r.key.startswith("components.")),
    "setup": ("start_genes", *(r.key.split(".")[1] for r in NUMBERS if r.key.startswith("setup."))),
    "costs": ("evolution_energy", *(r.key.split(".")[1] for r in NUMBERS if r.key.startswith("costs."))),
    "genes": tuple(r.key.split(".")[1] for r in NUMBERS if r.key.startswith("genes.")),
    "die": ("fate_values",),
    "flags": tuple(f.name for f in FLAGS),
    "events": ("deck",),
}


def _read(path: Path) -> dict[str, Any]:
    return read_rules_file(path, RulesError)


@cache
def _default_text() -> str:
    return DEFAULT_RULES_PATH.read_text(encoding="utf-8")


def default_data() -> dict[str, Any]:
    """The default rules as data (a fresh copy)."""
    return tomllib.loads(_default_text())


def _merge(
    into: dict[str, Any], layer: dict[str, Any], label: str, origin: dict[str, str], path: str
) -> None:
    """Merge ``layer`` into ``into`` key by key (a table merges, anything else replaces), noting in
    ``origin`` which file set each key. Unknown keys are refused here, naming the file."""
    for key, value in layer.items():
        dotted = f"{path}{key}"
        known = _known_keys(path, into)
        if known is not None and key not in known:
            raise RulesError(f"{label}: unknown key {dotted!r}; expected one of {', '.join(known)}")
        if isinstance(value, dict) and isinstance(into.get(key), dict) and _merges(dotted):
            _merge(into[key], value, label, origin, dotted + ".")
        else:
            into[key] = copy.deepcopy(value)
            origin[dotted] = label


def _merges(dotted: str) -> bool:
    """Tables a layer merges into key by key; a layout or a species is replaced whole."""
    return dotted.count(".") == 0 or dotted in ("tiles", "rounds") or dotted.startswith("tiles.")


def _known_keys(path: str, into: dict[str, Any]) -> tuple[str, ...] | None:
    """The keys a table may hold (None: any key, checked by its own checker)."""
    if path == "":
        return TOP_KEYS
    section = path[:-1]
    return SECTION_KEYS.get(section)


def _where(origin: dict[str, str], key: str) -> str:
    """The file that set ``key`` (or the table above it)."""
    while key:
        if key in origin:
            return origin[key]
        key = key[: max(key.rfind("."), key.rfind("["), 0)]  # the table or list above
    return str(DEFAULT_RULES_PATH)


@dataclass(frozen=True)
class ChromosomeRules(MergedRules):
    """The merged rules (sim.rules_files.MergedRules: the data, the files it came from), and the
    boards by player count."""

    game: ClassVar[str] = "chromosome"
    boards: dict[int, Board] = field(repr=False)

    @property
    def flags(self) -> dict[str, Any]:
        return self.data["flags"]

    def rounds(self, players: int) -> int:
        """S2: the clock R(P)."""
        return int(self.data["rounds"][str(players)])

    def board(self, players: int) -> Board:
        return self.boards[players]

    def species_actions(self) -> dict[str, list[dict[str, Any]]]:
        """SP1: each species' special actions (empty lists in the plain mode)."""
        full = self.flags["species_mode"] == "full"
        return {s: (self.data["species"][s]["actions"] if full else []) for s in SPECIES}

    def placeholders(self, players: int | None = None) -> list[str]:
        """The PLACEHOLDER data (§15) a game of ``players`` (None: any count) uses: every one still
        at its default, and only where the game reads it (species data in the full mode, the event
        deck with events on)."""
        default = default_data()
        counts = self.player_counts if players is None else (players,)
        used = [r.key for r in NUMBERS if r.placeholder and _get(self.data, r.key) == _get(default, r.key)]
        used += [
            f"flags.{f.name}"
            for f in FLAGS
            if f.placeholder and self.flags[f.name] == default["flags"][f.name]
        ]
        if self.data["tiles"] == default["tiles"]:
            used.append("tiles")
        used += [
            f"layouts.{p}"
            for p in counts
            if self.data["layouts"].get(str(p)) == default["layouts"].get(str(p))
        ]
        sides = self.flags["die_sides"]
        if self.data["die"]["fate_values"][:sides] == default["die"]["fate_values"][:sides]:
            used.append("die.fate_values")
        if self.flags["species_mode"] == "full":
            for s in SPECIES:
                for a in self.data["species"][s]["actions"]:
                    used += [f"species.{s}.{a['id']}.{part}" for part in a.get("placeholder", [])]
        if self.flags["events"]:
            if self.data["events"]["deck"] == default["events"]["deck"]:
                used.append("events.deck")
            used.append("events.removed_room_tokens")  # U9: back to their supplies
        return used


def _get(data: dict[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        data = data[part]
    return data


def load_rules(*files: str | Path, overrides: dict[str, Any] | None = None) -> ChromosomeRules:
    """The default rules, each house-rules file on top in order, then ``overrides`` (a scenario's)."""
    data = default_data()
    origin: dict[str, str] = {}
    layers = [(str(f), _read(Path(f))) for f in files] + ([("overrides", overrides)] if overrides else [])
    for label, layer in layers:
        if not isinstance(layer, dict):
            raise RulesError(f"{label}: expected a table of rules keys")
        # A flag may sit at the top (scenarios); "events" is also the deck's table.
        flags = {k: v for k, v in layer.items() if k in FLAG_INDEX and not isinstance(v, dict)}
        rest = {k: v for k, v in layer.items() if k not in flags}
        _merge(
            data, rest | ({"flags": {**rest.get("flags", {}), **flags}} if flags else {}), label, origin, ""
        )
    boards = _validate(data, origin)
    return ChromosomeRules(data, (str(DEFAULT_RULES_PATH), *(str(f) for f in files)), boards)


def _int(origin: dict[str, str], key: str, value: Any, low: int, high: int, rule: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        what = f" ({rule})" if rule else ""
        raise RulesError(
            f"{_where(origin, key)}: {key}{what}: expected an integer {low} to {high}, got {value!r}"
        )
    return value


def _fail(origin: dict[str, str], key: str, message: str) -> RulesError:
    return RulesError(f"{_where(origin, key)}: {key}: {message}")


def _validate(data: dict[str, Any], origin: dict[str, str]) -> dict[int, Board]:
    """Every key of the merged rules; the boards of every player count (L3)."""
    counts = data["player_counts"]
    if not player_counts_ok(counts, MAX_PLAYERS):
        raise _fail(
            origin, "player_counts", f"expected a list of player counts 2 to {MAX_PLAYERS}, got {counts!r}"
        )
    for row in NUMBERS:
        _int(origin, row.key, _get(data, row.key), row.low, row.high, row.rule)
    for f in FLAGS:
        v = data["flags"][f.name]
        if type(v) is not type(f.choices[0]) or v not in f.choices:
            shown = ", ".join(json.dumps(c) for c in f.choices)
            raise _fail(origin, f"flags.{f.name}", f"({f.rule}) expected one of {shown}, got {json.dumps(v)}")
    for p in counts:
        if str(p) not in data["rounds"]:
            raise _fail(origin, "rounds", f"no clock R({p}) for {p} players (S2)")
    for key, value in data["rounds"].items():
        _int(origin, f"rounds.{key}", value, 1, 99, "S2")
    _genes(data, origin, "setup.start_genes", data["setup"]["start_genes"], "S5")
    _genes(
        data, origin, "costs.evolution_energy", data["costs"]["evolution_energy"], "G1", colours=("R", "B")
    )
    fate = data["die"]["fate_values"]
    sides = data["flags"]["die_sides"]
    if not isinstance(fate, list) or len(fate) < sides or any(c not in COLOURS for c in fate):
        raise _fail(
            origin,
            "die.fate_values",
            f"(D2) expected a list of at least {sides} colours of {', '.join(COLOURS)}, got {fate!r}",
        )
    tiles = _tiles(data, origin)
    boards = {p: _board(data, origin, tiles, p) for p in counts}
    _species(data, origin)
    _events(data, origin, tiles, boards)
    return boards


def _genes(data, origin, key: str, value: Any, rule: str, colours: tuple[str, ...] = COLOURS) -> None:
    if not isinstance(value, dict) or set(value) - set(colours):
        raise _fail(origin, key, f"({rule}) expected a table of {', '.join(colours)} counts, got {value!r}")
    for c, n in value.items():
        _int(origin, f"{key}.{c}", n, 0, data["components"]["max_genes"], rule)
    if key == "setup.start_genes" and sum(value.values()) > data["components"]["max_genes"]:
        raise _fail(origin, key, f"(S5) {sum(value.values())} genes, more than components.max_genes")


def _tiles(data: dict[str, Any], origin: dict[str, str]) -> dict[int, tuple[int, bool, bool]]:
    """L5: tile number -> (sterility, start, red)."""
    out = {}
    for key, row in data["tiles"].items():
        where = f"tiles.{key}"
        if not key.isdigit() or not 1 <= int(key) <= 99:
            raise _fail(origin, where, "expected a tile number 1 to 99")
        if not isinstance(row, dict) or set(row) - {"sterility", "start", "red"} or "sterility" not in row:
            raise _fail(origin, where, "(L5) expected { sterility = 1..3, start = bool, red = bool }")
        sterility = _int(origin, f"{where}.sterility", row["sterility"], 1, 3, "L5")
        flags = [row.get(k, False) for k in ("start", "red")]
        if any(not isinstance(f, bool) for f in flags):
            raise _fail(origin, where, "(L5) start and red are true or false")
        out[int(key)] = (sterility, *flags)
    return out


def _board(data: dict[str, Any], origin: dict[str, str], tiles: dict[int, Any], players: int) -> Board:
    """L1, L3: the layout of ``players``."""
    key = f"layouts.{players}"
    layout = data["layouts"].get(str(players))
    if not isinstance(layout, dict) or "rooms" not in layout or set(layout) - {"rooms", "adjacency"}:
        raise _fail(
            origin, key, "(L1) expected { rooms = [[tile, q, r], ...], adjacency = [[tile, tile], ...] }"
        )
    rooms = layout["rooms"]
    if not isinstance(rooms, list) or not all(
        isinstance(r, list) and len(r) == 3 and all(isinstance(x, int) and not isinstance(x, bool) for x in r)
        for r in rooms
    ):
        raise _fail(origin, f"{key}.rooms", "(L1) expected a list of [tile, q, r] integers")
    adjacency = layout.get("adjacency")
    if adjacency is not None and not (
        isinstance(adjacency, list) and all(isinstance(e, list) and len(e) == 2 for e in adjacency)
    ):
        raise _fail(origin, f"{key}.adjacency", "(L1) expected a list of [tile, tile] pairs")
    try:
        return build_board(
            [tuple(r) for r in rooms], tiles, players, [tuple(e) for e in adjacency] if adjacency else None
        )
    except LayoutError as e:
        raise RulesError(f"{_where(origin, key)}: {key}.{e}") from None


def _species(data: dict[str, Any], origin: dict[str, str]) -> None:
    """§7: every species' special actions; an unknown effect kind is refused (SP1)."""
    species = data["species"]
    if set(species) != set(SPECIES):
        raise _fail(
            origin,
            "species",
            f"(C3) expected the four species {', '.join(SPECIES)}, got {', '.join(species)}",
        )
    ids: dict[str, str] = {}
    for s in SPECIES:
        table = species[s]
        if not isinstance(table, dict) or set(table) != {"actions"} or not isinstance(table["actions"], list):
            raise _fail(origin, f"species.{s}", "expected { actions = [ ... ] }")
        for i, a in enumerate(table["actions"]):
            where = f"species.{s}.actions[{i}]"
            if (
                not isinstance(a, dict)
                or set(a) - set(ACTION_KEYS)
                or not {"id", "name", "cost", "effect"} <= set(a)
            ):
                raise _fail(origin, where, f"expected a table with {', '.join(ACTION_KEYS)}")
            if a["id"] in ids:
                raise _fail(origin, f"{where}.id", f"{a['id']!r} is also {ids[a['id']]}'s")
            ids[a["id"]] = s
            if a["effect"] not in EFFECT_KINDS:
                raise _fail(
                    origin,
                    f"{where}.effect",
                    f"unknown effect kind {a['effect']!r}; expected one of {', '.join(EFFECT_KINDS)}",
                )
            cost = a["cost"]
            if not isinstance(cost, dict) or set(cost) - set(COST_KEYS):
                raise _fail(
                    origin, f"{where}.cost", f"expected a table of {', '.join(COST_KEYS)}, got {cost!r}"
                )
            for k, n in cost.items():
                _int(origin, f"{where}.cost.{k}", n, 0, 99, "SP2")
            params = a.get("params", {})
            allowed = EFFECT_KINDS[a["effect"]]
            if not isinstance(params, dict) or set(params) - set(allowed):
                shown = ", ".join(allowed) or "none"
                raise _fail(
                    origin,
                    f"{where}.params",
                    f"effect {a['effect']} takes the params {shown}, got {params!r}",
                )
            for k, n in params.items():
                _int(origin, f"{where}.params.{k}", n, allowed[k][0], allowed[k][1])
            _int(origin, f"{where}.per_round", a.get("per_round", 0), 0, 99, "SP2")  # 0: no limit
            marks = a.get("placeholder", [])
            if not isinstance(marks, list) or not all(isinstance(m, str) for m in marks):
                raise _fail(origin, f"{where}.placeholder", "expected a list of the invented parts' names")


def _events(
    data: dict[str, Any], origin: dict[str, str], tiles: dict[int, Any], boards: dict[int, Board]
) -> None:
    """V5: the event cards; a card that alone would split a layout's board is refused (V4)."""
    deck = data["events"]["deck"]
    if not isinstance(deck, list):
        raise _fail(origin, "events.deck", "(V5) expected a list of cards { name, kind, ... }")
    for i, card in enumerate(deck):
        where = f"events.deck[{i}]"
        if not isinstance(card, dict) or "kind" not in card or "name" not in card:
            raise _fail(origin, where, "(V5) expected { name = ..., kind = ..., params }")
        kind = card["kind"]
        if kind not in EVENT_KINDS:
            raise _fail(
                origin,
                f"{where}.kind",
                f"unknown event kind {kind!r}; expected one of {', '.join(EVENT_KINDS)}",
            )
        params = {k: v for k, v in card.items() if k not in ("name", "kind")}
        if set(params) != set(EVENT_KINDS[kind]):
            raise _fail(origin, where, f"(V5) {kind} takes {', '.join(EVENT_KINDS[kind]) or 'no parameters'}")
        for k, (low, high) in EVENT_KINDS[kind].items():
            _int(origin, f"{where}.{k}", params[k], low, high, "V5")
        if "tile" in params and params["tile"] not in tiles:
            raise _fail(origin, f"{where}.tile", f"tile {params['tile']} is not in [tiles]")
        if kind == "remove_room":
            for p, board in boards.items():
                if params["tile"] not in board.tile:
                    continue  # V4: removing a missing tile does nothing
                removed = board.tile == params["tile"]
                if not connected(board.neighbours, board.degree, removed):
                    raise _fail(
                        origin,
                        f"{where}.tile",
                        f"removing tile {params['tile']} splits the {p}-player board (V4)",
                    )
