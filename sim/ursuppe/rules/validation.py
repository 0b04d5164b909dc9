"""Validating the rules: read, merge and check the rules files into normalised data.

Every failure is a :class:`RulesError` with a one-line message naming the file (or
``<overrides>``), the dotted key, what is expected and what was found.
"""

import json
import math
import numbers
import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from sim.errors import UserError
from sim.ursuppe.rules.genes import (
    ADDED_GENES,
    ADVANCED_GENES,
    EXTRA_GENES,
    GENE_ALIASES,
    GENE_INDEX,
    GENE_NAMES,
    N_BASE_GENES,
    NUMBER_ONLY_GENES,
)
from sim.ursuppe.rules.meal_shapes import (
    MAX_SHAPES,
    WITH_FRUGALITY,
    WITH_SUBSTITUTION,
    normal_sets,
    parasite_shapes,
)
from sim.ursuppe.rules.schema import (
    BOARD_KEYS,
    COMPASS_VALUES,
    COMPONENT_RANGES,
    DIRECTION_LETTERS,
    DRIFT_VALUES,
    ECONOMY_RANGES,
    EXTRA_START_GENES,
    FAMILY_KEYS,
    FEEDING_KEYS,
    FEEDING_RANGES,
    FIVE_SIX,
    FLAG_NAMES,
    FLAG_ROWS,
    GENE_KEYS,
    INT16_MAX,
    INT16_MIN,
    LIFE_RANGES,
    MAX_ADVANCE,
    MAX_COPIES,
    MAX_DECK_CARDS,
    MAX_DEFECT_PAYMENT,
    MAX_MP,
    MAX_OPTIONS,
    MAX_OZONE,
    MAX_PATTERN_CUBES,
    MAX_PLAYERS,
    MAX_PRICE,
    MAX_SPACES,
    MAX_WEIGHT,
    MIN_DECK_CARDS,
    MIN_PLAYERS,
    MOVED_KEYS,
    NUMBER_ONLY_EFFECT,
    NUMBER_ONLY_KEYS,
    PERSISTENCE,
    PLAYER_COUNTS,
    PLAYER_KEYS,
    SECTIONS,
    SETUP_FIRST_DP_MAX,
    SUBSTITUTION_3_1_SHAPE,
    VARIANTS,
    FlagRow,
)

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")

KeyPath = tuple[str | int, ...]  # a dotted key: table keys (str) and array indices (int)


class RulesError(UserError):
    """Bad rules input. The message is one line: file (or ``<overrides>``), dotted key, expected, found."""


def _dotted(path: KeyPath) -> str:
    """``("genes", "Division Rate", "price")`` -> ``genes."Division Rate".price``; indices as ``[i]``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            segment = part if _BARE_KEY.fullmatch(part) else json.dumps(part, ensure_ascii=False)
            out += f".{segment}" if out else segment
    return out


def show(value: Any) -> str:
    """A short, one-line, TOML-like rendering of a found value for an error message."""
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, numbers.Number):
        return str(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        text = json.dumps(value, ensure_ascii=False, default=str)
        return text if len(text) <= 60 else text[:57] + "..."
    return f"{value} (a {type(value).__name__})"


def _message(label: str, path: KeyPath, text: str) -> str:
    """The one-line error message ``label: dotted.key: text``."""
    where = f"{label}: {_dotted(path)}: " if path else f"{label}: "
    return " ".join((where + text).splitlines())


def read_toml(path: Path, label: str) -> dict[str, Any]:
    """Parse one rules file; every failure (missing file, bad encoding, bad TOML) is a RulesError."""
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise RulesError(f"{label}: cannot read the rules file: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise RulesError(f"{label}: not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(_message(label, (), f"TOML syntax error: {exc}")) from None


def _copy_layer(value: Any, label: str, path: KeyPath) -> Any:
    """Deep copy of one layer with every table key a string (``{3: 0}`` from Python -> ``{"3": 0}``)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if isinstance(key, int) and not isinstance(key, bool):
                key = str(key)
            if not isinstance(key, str):
                raise RulesError(_message(label, path, f"expected string table keys, got key {show(key)}"))
            out[key] = _copy_layer(item, label, (*path, key))
        return out
    if isinstance(value, list | tuple):
        return [_copy_layer(item, label, (*path, i)) for i, item in enumerate(value)]
    return value


def prepare_layer(raw: Any, label: str, moved: dict[str, tuple[str, str]] | None = None) -> dict[str, Any]:
    """Copy one layer, move top-level flag shorthand into ``[flags]`` and resolve gene aliases.
    Keys moved to a flag (MOVED_KEYS) are recorded in ``moved`` (flag -> the key as written)."""
    if not isinstance(raw, dict):
        raise RulesError(_message(label, (), f"expected a table of rules, got {show(raw)}"))
    layer: dict[str, Any] = _copy_layer(raw, label, ())
    shorthand = {name: layer.pop(name) for name in FLAG_NAMES if name in layer}
    if shorthand:
        flags = layer.setdefault("flags", {})
        if not isinstance(flags, dict):
            raise RulesError(_message(label, ("flags",), f"expected a table, got {show(flags)}"))
        for name, value in shorthand.items():
            if name in flags and (flags[name] != value or type(flags[name]) is not type(value)):
                raise RulesError(
                    _message(
                        label,
                        (name,),
                        f"expected one value, got {show(value)} at top "
                        f"level and {show(flags[name])} in [flags]",
                    )
                )
            flags[name] = value
    for (section, key), flag in MOVED_KEYS.items():
        table = layer.get(section)
        if isinstance(table, dict) and key in table:
            flags = layer.setdefault("flags", {})
            if not isinstance(flags, dict):
                raise RulesError(_message(label, ("flags",), f"expected a table, got {show(flags)}"))
            if flag in flags:
                text = f"expected one value, got {section}.{key} and flags.{flag} (the same rule)"
                raise RulesError(_message(label, (section, key), text))
            flags[flag] = table.pop(key)
            if moved is not None:
                moved[flag] = (section, key)
    genes = layer.get("genes")
    if isinstance(genes, dict):
        renamed: dict[str, Any] = {}
        given_as: dict[str, str] = {}
        for name, entry in genes.items():
            canonical = GENE_ALIASES.get(name, name)
            if canonical in renamed:
                text = (
                    f"expected one entry, got both {json.dumps(given_as[canonical])} and {json.dumps(name)}"
                )
                raise RulesError(_message(label, ("genes", canonical), text))
            renamed[canonical] = entry
            given_as[canonical] = name
        layer["genes"] = renamed
    return layer


def merge(
    base: dict[str, Any],
    layer: dict[str, Any],
    path: tuple[str, ...],
    index: int,
    origin: dict[tuple[str, ...], int],
) -> None:
    """Deep-merge ``layer`` into ``base``: tables key by key, anything else (arrays too) replaced whole.

    ``origin`` records, per dotted key, the index of the source that last set it.
    """
    for key, value in layer.items():
        here = (*path, key)
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merge(base[key], value, here, index, origin)
            continue
        base[key] = value
        for stale in [k for k in origin if len(k) > len(here) and k[: len(here)] == here]:
            del origin[stale]
        origin[here] = index


class Checker:
    """Validates the merged rules and builds the normalised ``data`` dict; errors name their source."""

    def __init__(
        self,
        sources: list[str],
        origin: dict[tuple[str, ...], int],
        moved: dict[int, dict[str, tuple[str, str]]] | None = None,
    ) -> None:
        self.sources = sources
        self.origin = origin
        self.moved = moved or {}  # source index -> {flag: (section, key)} of the keys moved to flags

    # -- error reporting ---------------------------------------------------------------------

    def _source(self, path: KeyPath) -> int:
        """Index of the source that set ``path`` (or the nearest enclosing table)."""
        for n in range(len(path), 0, -1):
            prefix = path[:n]
            if all(isinstance(part, str) for part in prefix) and prefix in self.origin:
                return self.origin[prefix]  # type: ignore[index]
        return 0

    def fail(self, path: KeyPath, text: str, also: Sequence[KeyPath] = ()) -> NoReturn:
        """Raise a RulesError at ``path``, blaming the latest source among ``path`` and ``also``."""
        index = max(self._source(p) for p in (path, *also))
        old = self.moved.get(index, {}).get(str(path[1])) if len(path) >= 2 and path[0] == "flags" else None
        if old is not None:  # name the key as the file wrote it (MOVED_KEYS)
            path, text = (*old, *path[2:]), f"{text} (kept as flags.{path[1]})"
        raise RulesError(_message(self.sources[index], path, text))

    def bad(self, path: KeyPath, expected: str, value: Any, also: Sequence[KeyPath] = ()) -> NoReturn:
        """Raise ``expected <expected>, got <value>``."""
        self.fail(path, f"expected {expected}, got {show(value)}", also)

    # -- typed readers -----------------------------------------------------------------------

    def table(
        self, value: Any, path: KeyPath, keys: Sequence[str], optional: Sequence[str] = (), what: str = "key"
    ) -> dict[str, Any]:
        """A table holding only ``keys`` (all required except ``optional``)."""
        if not isinstance(value, dict):
            self.bad(path, "a table", value)
        for key in value:
            if key not in keys:
                self.fail((*path, key), f"unknown {what} (expected one of: {', '.join(keys)})")
        for key in keys:
            if key not in value and key not in optional:
                self.fail((*path, key), f"missing {what} (required in {_dotted(path) or 'the top level'})")
        return value

    def integer(self, value: Any, path: KeyPath, lo: int = 0, hi: int | None = None) -> int:
        """An integer in ``lo..hi`` (booleans are not integers here)."""
        expected = f"an integer >= {lo}" if hi is None else f"an integer in {lo}..{hi}"
        if (
            isinstance(value, bool)
            or not isinstance(value, numbers.Integral)
            or value < lo
            or (hi is not None and value > hi)
        ):
            self.bad(path, expected, value)
        return int(value)

    def boolean(self, value: Any, path: KeyPath) -> bool:
        """A boolean (integers 0/1 are not booleans here)."""
        if not isinstance(value, bool | np.bool_):
            self.bad(path, "a boolean (true or false)", value)
        return bool(value)

    def string(self, value: Any, path: KeyPath, choices: Sequence[str] | None = None) -> str:
        """A string, optionally one of ``choices``."""
        if choices is not None and value not in choices:
            self.bad(path, f"one of: {', '.join(choices)}", value)
        if not isinstance(value, str):
            self.bad(path, "a string", value)
        return value

    def array(
        self,
        value: Any,
        path: KeyPath,
        length: int | None = None,
        min_len: int = 0,
        max_len: int | None = None,
        why: str = "",
        also: Sequence[KeyPath] = (),
    ) -> list[Any]:
        """An array, optionally of an exact length or within length bounds."""
        if not isinstance(value, list):
            self.bad(path, "an array", value)
        n = len(value)
        if length is not None and n != length:
            self.fail(path, f"expected an array of length {length}{why}, got length {n}", also)
        if n < min_len:
            self.fail(path, f"expected an array of at least {min_len} entries{why}, got {n}", also)
        if max_len is not None and n > max_len:
            self.fail(path, f"expected an array of at most {max_len} entries{why}, got {n}", also)
        return value

    def integers(self, value: Any, path: KeyPath, lo: int, hi: int | None, **array_args: Any) -> list[int]:
        """An array of integers in ``lo..hi``."""
        items = self.array(value, path, **array_args)
        return [self.integer(item, (*path, i), lo, hi) for i, item in enumerate(items)]

    def by_players(
        self, value: Any, path: KeyPath, hi: int | dict[str, int], counts: Sequence[int], lo: int = 0
    ) -> dict[str, int]:
        """A table ``{ 3 = n, 4 = m, ... }`` of integers in ``lo..hi`` (``hi`` may be by player
        count) with a key for each of ``counts`` (other engine counts may be present), or one
        integer for every count. Returns the entries of ``counts`` only."""
        keys = [str(p) for p in counts]
        top = {k: hi[k] if isinstance(hi, dict) else hi for k in keys}
        if not isinstance(value, dict):
            return {k: self.integer(value, path, lo, top[k]) for k in keys}
        others = tuple(k for k in PLAYER_KEYS if k not in keys)
        table = self.table(value, path, PLAYER_KEYS, optional=others)
        return {key: self.integer(table[key], (*path, key), lo, top[key]) for key in keys}

    def shape(self, value: Any, path: KeyPath, length: int) -> list[int]:
        """A feeding shape: ``length`` cube counts, non-increasing, non-negative, summing to >= 1."""
        why = f" (one count per foreign colour with {length + 1} players)"
        counts = self.integers(value, path, 0, MAX_PATTERN_CUBES, length=length, why=why)
        if any(a < b for a, b in zip(counts, counts[1:], strict=False)):
            self.bad(path, "counts largest first (non-increasing)", counts)
        if sum(counts) < 1:
            self.bad(path, "at least one cube in total", counts)
        return counts

    # -- the sections ------------------------------------------------------------------------

    def rules(self, merged: dict[str, Any]) -> dict[str, Any]:
        """Validate the whole merged rules; return the normalised data (defaults filled in)."""
        self.table(merged, (), (*SECTIONS, *FLAG_NAMES), optional=FLAG_NAMES)
        components = self.components(merged["components"])
        self.counts = components["player_counts"]
        flags = self.flags(merged["flags"])
        # PX4: the 5-6 cards alone (deck_5_6 = only_39) are the 5-6 copies minus the 4-player ones
        only_39 = flags["deck_5_6"] == "only_39" and bool(set(FIVE_SIX) & set(self.counts))
        self.copy_counts = sorted(set(self.counts) | ({4} if only_39 else set()))
        data = {
            "name": self.string(merged["name"], ("name",)),
            "flags": flags,
            "board": self.board(merged["board"]),
            "environment": self.environment(merged["environment"], flags["first_round_flip"]),
            "score": self.score(merged["score"], flags),
            "components": components,
            "economy": self.scalars(merged["economy"], ("economy",), ECONOMY_RANGES),
            "life": self.scalars(merged["life"], ("life",), LIFE_RANGES),
            "feeding": self.feeding(merged["feeding"]),
            "genes": self.genes(merged["genes"]),
        }
        self.persistence_copies(flags, data["genes"])
        self.price_5_6(flags["price_5_6"])
        self.deck_5_6(data["genes"], flags["deck_5_6"])
        self.meal_shape_counts(data["feeding"], flags)
        self.extra_market(flags)
        return data

    def price_5_6(self, value: Any) -> None:
        """PX22: ``{ "Gene" = price }`` for the genes whose 5-6 player price differs (aliases resolved)."""
        path: KeyPath = ("flags", "price_5_6")
        for name in list(value):
            canonical = GENE_ALIASES.get(name, name)
            if canonical not in GENE_INDEX:
                self.fail((*path, name), "unknown gene (expected a base-game gene name)")
            value[canonical] = self.integer(value.pop(name), (*path, name), 0, MAX_PRICE)

    def deck_5_6(self, genes: dict[str, Any], deck: str) -> None:
        """PX4, §7: with ``only_39`` a 5-6 game holds the 5-6 cards alone (5-6 copies - 4p copies)."""
        if deck != "only_39":
            return
        for name in GENE_NAMES[:N_BASE_GENES]:  # the base cards only (PX4)
            copies = genes[name]["copies"]
            for key in (str(p) for p in FIVE_SIX if p in self.counts):
                if copies[key] < copies["4"]:
                    self.fail(
                        ("genes", name, "copies", key),
                        f"expected at least the 4-player copies ({copies['4']}) with flag deck_5_6 = "
                        f'"only_39" (the 5-6 cards are the difference), got {copies[key]}',
                        also=(("flags", "deck_5_6"),),
                    )

    def scalars(self, value: Any, path: KeyPath, ranges: dict[str, tuple[int, int]]) -> dict[str, int]:
        """A table of integer scalars, each in its range (lo, hi)."""
        table = self.table(value, path, tuple(ranges))
        return {key: self.integer(table[key], (*path, key), lo, hi) for key, (lo, hi) in ranges.items()}

    def flags(self, value: Any) -> dict[str, Any]:
        """§10 flags."""
        path: KeyPath = ("flags",)
        table = self.table(value, path, FLAG_NAMES)
        out: dict[str, Any] = {}
        for row in FLAG_ROWS:
            out[row.name] = self.flag(row, table[row.name], (*path, row.name))
        return out

    def flag(self, row: FlagRow, item: Any, here: KeyPath) -> Any:
        """One flag's value, validated as its row says."""
        if row.kind == "bool":
            return self.boolean(item, here)
        if row.kind == "int":
            return self.integer(item, here, *row.args)
        if row.kind == "choice":
            return self.string(item, here, row.args[0])
        if row.kind == "prices":
            if not isinstance(item, dict):
                self.bad(here, "a table of gene prices", item)
            return dict(item)
        if row.kind == "by_players":
            return self.by_players(item, here, row.args[0], self.counts, lo=row.args[1])
        if row.kind == "ints":
            return self.integers(item, here, *row.args, min_len=1)
        if row.kind == "extra_genes":
            return self.extra_gene_names(item, here)
        return self.extra_flag(row.args[0], item, here)

    def extra_gene_names(self, value: Any, path: KeyPath) -> list[str]:
        """XM2, XM8: distinct extra-gene names (the table's spelling or a known alias)."""
        names = self.array(value, path, max_len=len(EXTRA_GENES), why=" (extra-gene names)")
        out: list[str] = []
        for i, name in enumerate(names):
            name = GENE_ALIASES.get(name, name) if isinstance(name, str) else name
            if not isinstance(name, str) or GENE_INDEX.get(name, -1) < N_BASE_GENES or name in out:
                self.bad((*path, i), "the name of an extra gene, each once (docs/rules.md §18)", name)
            out.append(name)
        return out

    def extra_flag(self, flag: Any, value: Any, path: KeyPath) -> Any:
        """§18: one flag of extra_flags.EXTRA_FLAGS, validated from its row."""
        if isinstance(flag.default, bool):
            return self.boolean(value, path)
        if isinstance(flag.default, int):
            return self.integer(value, path, flag.lo, flag.hi)
        if isinstance(flag.default, tuple):
            items = self.array(value, path, max_len=len(flag.choices))
            picked = [self.string(v, (*path, i), flag.choices) for i, v in enumerate(items)]
            if len(set(picked)) != len(picked):
                self.bad(path, f"distinct values of: {', '.join(flag.choices)}", value)
            return picked
        return self.string(value, path, flag.choices)

    def extra_market(self, flags: dict[str, Any]) -> None:
        """XM2, XM8: the start pair leaves out the excluded genes, and is a pair. The spec lays
        out "a pair of extra genes" (XM2) and lets players "start with other genes" (XM8): other
        genes, not another number of them (docs/decisions.md, issue 21.6). 0, 1 or 3 genes were
        accepted, played and reported as a "pair"; they are an error, as a table would see them."""
        start = flags["extra_start_pair"]
        both = set(start) & set(flags["extra_excluded"])
        if both:
            self.fail(
                ("flags", "extra_start_pair"),
                f"expected no excluded gene in the start pair, got {json.dumps(sorted(both))} in both",
                also=(("flags", "extra_excluded"),),
            )
        if len(start) != EXTRA_START_GENES:
            self.fail(
                ("flags", "extra_start_pair"),
                f"expected {EXTRA_START_GENES} different extra genes (XM2: the start pair, face up from"
                f" round 1; XM8 lets the table choose which two), got {len(start)}: {json.dumps(start)}",
            )

    def persistence_copies(self, flags: dict[str, Any], genes: dict[str, Any]) -> None:
        """§7/§10: the flag persistence_copies_4p and genes.Persistence.copies.4 are one number.
        The source that set one of them last wins (a house rule's flag over the default copies, an
        ablation's copies over a house rule's flag); one source setting both differently is an
        error. Both are then written with the winner, so the rules id does not depend on which
        key was used."""
        flag_path: KeyPath = ("flags", "persistence_copies_4p")
        copies_path: KeyPath = ("genes", PERSISTENCE, "copies", "4")
        flag, copies = flags["persistence_copies_4p"], genes[PERSISTENCE]["copies"]["4"]
        if flag == copies:
            return
        flag_source, copies_source = self._source(flag_path), self._source(copies_path)
        if flag_source == copies_source:
            self.fail(
                flag_path,
                f"expected the same number as {_dotted(copies_path)} (both set Persistence's "
                f"4-player copies), got {flag} and {copies}",
            )
        if flag_source > copies_source:
            genes[PERSISTENCE]["copies"]["4"] = flag
        else:
            flags["persistence_copies_4p"] = copies

    def board(self, value: Any) -> dict[str, Any]:
        """§2, B1-B2: neighbour table (shape, range, symmetry), coordinates, compass."""
        path: KeyPath = ("board",)
        table = self.table(value, path, BOARD_KEYS)
        spaces_path = (*path, "spaces")
        n = self.integer(table["spaces"], spaces_path, 1, MAX_SPACES)
        why = " (one row per space, board.spaces)"

        nb_path = (*path, "neighbours")
        rows = self.array(table["neighbours"], nb_path, length=n, why=why, also=(spaces_path,))
        neighbours = [
            self.integers(row, (*nb_path, a), -1, n - 1, length=4, why=" ([N, E, S, W])")
            for a, row in enumerate(rows)
        ]
        for a, row in enumerate(neighbours):
            for d, b in enumerate(row):
                if b == a:
                    self.bad((*nb_path, a, d), "another space or -1 (a space cannot neighbour itself)", b)
                back = (d + 2) % 4
                if b >= 0 and neighbours[b][back] != a:
                    self.fail(
                        (*nb_path, a, d),
                        f"expected space {b}'s {DIRECTION_LETTERS[back]} neighbour to be {a} "
                        f"(neighbours must be symmetric), got {neighbours[b][back]}",
                    )

        co_path = (*path, "coordinates")
        co_rows = self.array(table["coordinates"], co_path, length=n, why=why, also=(spaces_path,))
        coordinates = [
            self.integers(row, (*co_path, i), INT16_MIN, INT16_MAX, length=2, why=" ([x, y])")
            for i, row in enumerate(co_rows)
        ]

        cp_path = (*path, "compass")
        faces = self.array(table["compass"], cp_path, length=6, why=" (die faces 1..6)")
        compass = [self.string(face, (*cp_path, i), COMPASS_VALUES) for i, face in enumerate(faces)]
        return {"spaces": n, "neighbours": neighbours, "coordinates": coordinates, "compass": compass}

    def environment(self, value: Any, first_round_flip: bool) -> dict[str, Any]:
        """§3, V1-V6: the deck of environment cards (no rule on how many no-drift cards), of a
        length the engine can play (MIN_DECK_CARDS, MAX_DECK_CARDS), and the bounds of the
        plausible decks (V6, :meth:`family`)."""
        path: KeyPath = ("environment",)
        table = self.table(value, path, ("placeholder", "deck", "family"))
        deck_path = (*path, "deck")
        cards = self.array(table["deck"], deck_path)
        lo = MIN_DECK_CARDS[first_round_flip]
        if not lo <= len(cards) <= MAX_DECK_CARDS:
            if len(cards) > MAX_DECK_CARDS:
                why = "a game's totals over its rounds, one a card, must fit the state"
            elif first_round_flip:
                why = (
                    "V3: with first_round_flip = true round 1 already reveals the next card, "
                    "so a game needs 2; 1 with first_round_flip = false"
                )
            else:
                why = "V2: the current card of round 1"
            self.fail(
                deck_path,
                f"expected {lo}..{MAX_DECK_CARDS} cards ({why}), got {len(cards)}",
                also=(("flags", "first_round_flip"),),
            )
        deck = [self.card(card, (*deck_path, i)) for i, card in enumerate(cards)]
        return {
            "placeholder": self.boolean(table["placeholder"], (*path, "placeholder")),
            "deck": deck,
            "family": self.family(table["family"], (*path, "family"), first_round_flip),
        }

    def card(self, value: Any, path: KeyPath) -> dict[str, Any]:
        """V1: one environment card, ``{ ozone = n, drift = "N"|"E"|"S"|"W"|"none" }``."""
        card = self.table(value, path, ("ozone", "drift"))
        return {
            "ozone": self.integer(card["ozone"], (*path, "ozone"), 0, MAX_OZONE),
            "drift": self.string(card["drift"], (*path, "drift"), DRIFT_VALUES),
        }

    def family(self, value: Any, path: KeyPath, first_round_flip: bool) -> dict[str, Any]:
        """V6: the plausible decks' bounds (sim/ursuppe/experiments/deck_family.py draws the decks): a member
        has ``cards`` cards, the ``fixed`` ones (V5's known card) and the others with ozone in
        ``ozone_low..ozone_high``, ``without_drift`` of those without drift (V1), the rest drifting
        so that each of N, E, S, W is the drift of at least ``min_per_direction`` cards, the fixed
        ones counted. The bounds must admit a member: a family no deck satisfies is an error here,
        not an endless draw later."""
        table = self.table(value, path, FAMILY_KEYS)
        cards = self.integer(
            table["cards"], (*path, "cards"), MIN_DECK_CARDS[first_round_flip], MAX_DECK_CARDS
        )
        fixed_path = (*path, "fixed")
        fixed = [
            self.card(card, (*fixed_path, i))
            for i, card in enumerate(
                self.array(table["fixed"], fixed_path, max_len=cards, why=" (at most family.cards)")
            )
        ]
        low = self.integer(table["ozone_low"], (*path, "ozone_low"), 0, MAX_OZONE)
        high = self.integer(table["ozone_high"], (*path, "ozone_high"), low, MAX_OZONE)
        drawn = cards - len(fixed)
        without = self.integer(table["without_drift"], (*path, "without_drift"), 0, drawn)
        least = self.integer(table["min_per_direction"], (*path, "min_per_direction"), 0, cards)
        # Each direction short of min_per_direction among the fixed cards takes drawn drifting cards.
        short = sum(max(0, least - sum(c["drift"] == d for c in fixed)) for d in DIRECTION_LETTERS)
        if short > drawn - without:
            self.fail(
                (*path, "min_per_direction"),
                f"expected a bound the drawn cards can meet: each of N, E, S, W on {least} cards needs "
                f"{short} drifting cards beside the fixed ones, but cards - fixed - without_drift leaves "
                f"{drawn - without}",
                also=((*path, "cards"), fixed_path, (*path, "without_drift")),
            )
        return {
            "placeholder": self.boolean(table["placeholder"], (*path, "placeholder")),
            "cards": cards,
            "fixed": fixed,
            "ozone_low": low,
            "ozone_high": high,
            "without_drift": without,
            "min_per_direction": least,
        }

    def score(self, value: Any, flags: dict[str, Any]) -> dict[str, Any]:
        """§4, K2 advance tables: score.amoeba_advance for 3-4 players, flag
        amoeba_score_table_5_6 for 5-6 (PX19), each an entry for every amoeba count its player
        counts can have on the board (0..amoebas_per_player; entries beyond are not used)."""
        path: KeyPath = ("score",)
        table = self.table(value, path, ("amoeba_advance", "gene_advance"))
        why = " (flags.amoebas_per_player + 1)"
        amoebas_per_player = flags["amoebas_per_player"]
        base = [amoebas_per_player[str(p)] for p in self.counts if p not in FIVE_SIX]
        amoeba = self.integers(
            table["amoeba_advance"],
            (*path, "amoeba_advance"),
            0,
            MAX_ADVANCE,
            min_len=max(base, default=0) + 1,
            why=why,
            also=(("flags", "amoebas_per_player"),),
        )
        five_six = [amoebas_per_player[str(p)] for p in self.counts if p in FIVE_SIX]
        self.array(
            flags["amoeba_score_table_5_6"],
            ("flags", "amoeba_score_table_5_6"),
            min_len=max(five_six, default=0) + 1,
            why=why,
            also=(("flags", "amoebas_per_player"),),
        )
        gene = self.integers(table["gene_advance"], (*path, "gene_advance"), 0, MAX_ADVANCE, min_len=1)
        return {"amoeba_advance": amoeba, "gene_advance": gene}

    def components(self, value: Any) -> dict[str, Any]:
        """§1, §5 component counts; the player counts the rules support (PX: 5-6 players)."""
        path: KeyPath = ("components",)
        table = self.table(value, path, (*COMPONENT_RANGES, "player_counts", "setup_first_dp"))
        counts_path = (*path, "player_counts")
        counts = self.integers(table["player_counts"], counts_path, MIN_PLAYERS, MAX_PLAYERS, min_len=1)
        if counts != sorted(set(counts)):
            self.bad(counts_path, "distinct player counts in ascending order", counts)
        out: dict[str, Any] = {"player_counts": counts}
        for key, (lo, hi) in COMPONENT_RANGES.items():
            out[key] = self.integer(table[key], (*path, key), lo, hi)
        # S6 for 3-4 players; with 5-6 the flag setup_dp_5_6 (PX10) gives the first amoeba's DP.
        out["setup_first_dp"] = self.by_players(
            table["setup_first_dp"],
            (*path, "setup_first_dp"),
            SETUP_FIRST_DP_MAX,
            [p for p in counts if p not in FIVE_SIX],
        )
        return out

    def feeding(self, value: Any) -> dict[str, Any]:
        """M4, F1-F4: standard and substitution shapes per player count (PX12, PX13, §5), and
        feeding numbers."""
        path: KeyPath = ("feeding",)
        optional = tuple(f"p{p}" for p in PLAYER_COUNTS if p not in self.counts)
        table = self.table(value, path, (*FEEDING_KEYS, *FEEDING_RANGES), optional=optional)
        out: dict[str, Any] = {}
        for players in self.counts:
            key = f"p{players}"
            p_path = (*path, key)
            shapes = self.table(table[key], p_path, ("standard", "substitution"))
            sub_path = (*p_path, "substitution")
            out[key] = {
                "standard": self.shape(shapes["standard"], (*p_path, "standard"), players - 1),
                "substitution": [
                    self.shape(s, (*sub_path, i), players - 1)
                    for i, s in enumerate(self.array(shapes["substitution"], sub_path))
                ],
            }
        for key, (lo, hi) in FEEDING_RANGES.items():
            out[key] = self.integer(table[key], (*path, key), lo, hi)
        return out

    def genes(self, value: Any) -> dict[str, Any]:
        """§7: every base-game gene, in gene-index order, with weight/defect_payment/gives_up
        filled (and every gene module's gene after the number-only slots, genes.ADDED_GENES: its
        data row is required like any other); then the number-only genes the files declare
        (``effect = "none"``), in the order they were declared, each in the next slot of
        genes.NUMBER_ONLY_GENES."""
        path: KeyPath = ("genes",)
        if not isinstance(value, dict):
            self.bad(path, "a table", value)
        known = GENE_NAMES[: NUMBER_ONLY_GENES[0]] + tuple(GENE_NAMES[i] for i in ADDED_GENES)
        declared = [name for name in value if name not in known]
        for name in declared:
            entry = value[name]
            if not (isinstance(entry, dict) and "effect" in entry):
                self.fail(
                    (*path, name),
                    "unknown gene (expected one of: " + ", ".join(known) + "; or a number-only gene "
                    f'marked effect = "{NUMBER_ONLY_EFFECT}")',
                )
            taken = {n.lower() for n in (*known, *GENE_ALIASES)}
            if name.strip().lower() in taken:
                self.fail((*path, name), "a number-only gene needs a name of its own, not a gene's")
        if len(declared) > len(NUMBER_ONLY_GENES):
            self.fail(
                (*path, declared[len(NUMBER_ONLY_GENES)]),
                f"expected at most {len(NUMBER_ONLY_GENES)} number-only genes (the engine's slots, "
                "genes.NUMBER_ONLY_GENES), got " + str(len(declared)),
            )
        table = self.table({k: v for k, v in value.items() if k in known}, path, known, what="gene")
        out: dict[str, Any] = {}
        for name in known:
            g_path = (*path, name)
            gene = self.table(table[name], g_path, GENE_KEYS, optional=GENE_KEYS[3:])
            mp = self.integer(gene["mp"], (*g_path, "mp"), -MAX_MP, MAX_MP)
            if "defect_payment" in gene:
                defect = self.integer(
                    gene["defect_payment"], (*g_path, "defect_payment"), 0, MAX_DEFECT_PAYMENT
                )
            elif mp < 0:
                self.fail(
                    (*g_path, "defect_payment"),
                    f"missing key (required when mp is negative; mp = {mp})",
                    also=((*g_path, "mp"),),
                )
            else:
                defect = mp
            out[name] = {
                "price": self.integer(gene["price"], (*g_path, "price"), 0, MAX_PRICE),
                "mp": mp,
                "copies": self.by_players(gene["copies"], (*g_path, "copies"), MAX_COPIES, self.copy_counts),
                "weight": self.integer(gene.get("weight", 1), (*g_path, "weight"), 0, MAX_WEIGHT),
                "defect_payment": defect,
                "gives_up": self.gives_up(gene.get("gives_up", []), (*g_path, "gives_up"), name),
            }
        for name in declared:
            g_path = (*path, name)
            gene = self.table(value[name], g_path, NUMBER_ONLY_KEYS, optional=NUMBER_ONLY_KEYS[4:])
            self.string(gene["effect"], (*g_path, "effect"), (NUMBER_ONLY_EFFECT,))
            mp = self.integer(gene["mp"], (*g_path, "mp"), -MAX_MP, MAX_MP)
            out[name] = {
                "effect": NUMBER_ONLY_EFFECT,
                "price": self.integer(gene["price"], (*g_path, "price"), 0, MAX_PRICE),
                "mp": mp,
                "copies": self.by_players(gene["copies"], (*g_path, "copies"), MAX_COPIES, self.copy_counts),
                "weight": self.integer(gene.get("weight", 1), (*g_path, "weight"), 0, MAX_WEIGHT),
                "defect_payment": self.integer(
                    gene.get("defect_payment", max(mp, 0)), (*g_path, "defect_payment"), 0, MAX_DEFECT_PAYMENT
                ),
                "gives_up": [],
            }
        return out

    def meal_shape_counts(self, feeding: dict[str, Any], flags: dict[str, Any]) -> None:
        """M4, F1-F4: every shape set of every player count fits the engine's MAX_SHAPES (the
        tables of meal_shapes.py keep the first MAX_SHAPES shapes and would drop the rest)."""
        for players in self.counts:
            key = f"p{players}"
            standard, shapes = feeding[key]["standard"], substitution_shapes(feeding, flags, players)
            fewer = (feeding["frugality_fewer"], feeding["parasitism_fewer"])
            counts = shape_set_sizes(standard, shapes, *fewer)
            worst = max(counts, key=counts.get)  # type: ignore[arg-type]
            if counts[worst] > MAX_SHAPES:
                self.fail(
                    ("feeding", key),
                    f"expected at most {MAX_SHAPES} meal shapes for one set of feeding genes "
                    f"(the engine's MAX_SHAPES), got {counts[worst]} {worst} "
                    "(fewer substitution shapes, or a smaller frugality_fewer or parasitism_fewer)",
                    also=(("feeding", "frugality_fewer"), ("feeding", "parasitism_fewer")),
                )
            options = meal_option_bound(standard, shapes, *fewer, players)
            if options > MAX_OPTIONS:
                self.fail(
                    ("feeding", key),
                    f"expected at most {MAX_OPTIONS} meal options in one decision (the engine's option "
                    f"buffer), got up to {options} with {players} players (fewer or smaller substitution "
                    "shapes, or a smaller frugality_fewer or parasitism_fewer)",
                    also=(("feeding", "frugality_fewer"), ("feeding", "parasitism_fewer")),
                )

    def gives_up(self, value: Any, path: KeyPath, owner: str) -> list[str]:
        """G3: at most two distinct, existing, non-advanced lower genes (aliases resolved)."""
        names = self.array(value, path, max_len=2, why=" (lower genes given up)")
        out: list[str] = []
        for i, name in enumerate(names):
            name = GENE_ALIASES.get(name, name) if isinstance(name, str) else name
            if not isinstance(name, str) or name not in GENE_INDEX:
                self.bad((*path, i), "the name of a base-game gene", name)
            if GENE_INDEX[name] in ADVANCED_GENES or name == owner or name in out:
                self.bad((*path, i), f"a distinct non-advanced gene other than {json.dumps(owner)}", name)
            out.append(name)
        return out


def substitution_shapes(feeding: dict[str, Any], flags: dict[str, Any], players: int) -> list[list[int]]:
    """F2 with P players, the flags applied: substitution_3_1 drops [3, 1, 0] (4 players);
    feeding_5_6_substitution (§5) keeps, with 5-6 players, every shape (skip_one_spread), those
    with no colour above 2 (two_each) or none (disabled)."""
    shapes = feeding[f"p{players}"]["substitution"]
    if not flags["substitution_3_1"]:
        shapes = [s for s in shapes if s != SUBSTITUTION_3_1_SHAPE]
    if players in FIVE_SIX:
        reading = flags["feeding_5_6_substitution"]
        if reading == "two_each":
            shapes = [s for s in shapes if max(s) <= 2]
        elif reading == "disabled":
            shapes = []
    return shapes


def meal_option_bound(
    standard: list[int],
    substitution: list[list[int]],
    frugality_fewer: int,
    parasitism_fewer: int,
    players: int,
) -> int:
    """M4, F1-F4: the most EAT options one feeding can list with P players: every distinct
    arrangement of every normal shape, plus every arrangement of every parasite shape with each
    of the P - 1 possible victims, over the worst combination of Substitution and Frugality. The
    feeding kernel needs them all in the option buffer (it walks every normal shape to its last
    arrangement before it reads the parasite set); with 5-6 players shapes have up to 5! / k!
    arrangements, so this is a bound the rules must keep (always true with 3-4 players)."""

    def arrangements(shape: Sequence[int]) -> int:
        n = math.factorial(len(shape))
        for count in set(shape):
            n //= math.factorial(list(shape).count(count))
        return n

    worst = 0
    for normal in normal_sets(standard, substitution, frugality_fewer):
        parasite = parasite_shapes(normal, parasitism_fewer)
        total = sum(map(arrangements, normal)) + (players - 1) * sum(map(arrangements, parasite))
        worst = max(worst, total)
    return worst


def shape_set_sizes(
    standard: list[int], substitution: list[list[int]], frugality_fewer: int, parasitism_fewer: int
) -> dict[str, int]:
    """The size of every shape set of meal_shapes.py built without its MAX_SHAPES cap (the same
    builder, uncapped), so a set that fits has the size the tables give it, and one that does
    not is found before its shapes are dropped (tests/test_rules_bounds.py compares them)."""
    sizes: dict[str, int] = {}
    sets = normal_sets(standard, substitution, frugality_fewer, limit=None)
    for with_substitution in (False, True):
        for with_frugality in (False, True):
            normal = sets[WITH_SUBSTITUTION * with_substitution + WITH_FRUGALITY * with_frugality]
            parasite = parasite_shapes(normal, parasitism_fewer, limit=None)
            genes = (("Substitution", with_substitution), ("Frugality", with_frugality))
            held = " and ".join(name for name, on in genes if on)
            sizes[f"with {held}" if held else "without feeding genes"] = len(normal)
            sizes[f"with Parasitism{' and ' + held if held else ''}"] = len(parasite)
    return sizes


def check_variant(players: int, variant: str | None) -> None:
    """2 players need a variant of VARIANTS, and a variant needs 2 players (one-line RulesError)."""
    names = ", ".join(VARIANTS)
    if players == 2 and variant is None:
        raise RulesError(f"players: 2 players need a variant (--variant {names}; ursuppe-2-players spec)")
    if variant is not None and variant not in VARIANTS:
        raise RulesError(f"variant: expected one of {names}, got {show(variant)}")
    if variant is not None and players != 2:
        raise RulesError(f"variant: {variant} is a 2-player variant, but players is {show(players)}")
