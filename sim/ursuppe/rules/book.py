"""Rules as data: load the rules TOML into a :class:`RuleBook` and build the kernels' Rules.

The default rules file (``default_rules.toml`` beside this module) holds every number and flag
of the spec. A house-rules file overrides any subset. The rules are said in three places:
schema.py (:class:`Rules`, the TOML's keys, the bounds and the flag rows), validation.py (reading,
merging and checking the files, one-line errors) and here: building each player count's Rules
from the checked data, the flags by their rows (FlagRow.field). This module is the public face:
the names of the other two that callers use are imported from here.
"""

import copy
import functools
import hashlib
import json
import numbers
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sim.ursuppe.rules.directions import DIRECTION_CODE, STAY
from sim.ursuppe.rules.extra_flags import EXTRA_FLAGS, encode
from sim.ursuppe.rules.genes import (
    ADDED_GENES,
    EXTRA_GENES,
    GENE_ALIASES,
    GENE_INDEX,
    GENE_NAMES,
    N_BASE_GENES,
    N_EXTRA_END,
    N_GENES,
    NUMBER_ONLY_GENES,
)
from sim.ursuppe.rules.meal_shapes import code_tables, glutton_tables, shape_tables
from sim.ursuppe.rules.schema import (
    COMPONENT_RANGES,
    DEFAULT_RULES_PATH,
    DOUBLE2_PLACEHOLDERS,
    EXTRA_PLACEHOLDERS,
    FEEDING_RANGES,
    FIVE_SIX,
    FLAG_NAMES,
    FLAG_ROW,
    FLAG_ROWS,
    GIFT_KEPT,
    GIFT_NO_EXCHANGE,
    GIFT_ORDINARY,
    MASK_SPACES,
    MAX_BP_AMOUNT,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MODULE_SWITCHES,
    NO_GIFT,
    NUMBER_ONLY_EFFECT,
    OVERRIDES_LABEL,
    PLACEHOLDERS,
    PLAYER_COUNTS,
    PX_FLAGS,
    TA_FLAGS,
    TB_FLAGS,
    TD_FLAGS,
    VARIANT_COLOURS,
    VARIANT_PLAYER_OF,
    VARIANTS,
    X_FLAGS,
    Rules,
    count_label,
)
from sim.ursuppe.rules.validation import (
    Checker,
    RulesError,
    check_variant,
    meal_option_bound,
    merge,
    prepare_layer,
    read_toml,
    show,
    substitution_shapes,
)

# The names callers import from here (the public face of schema.py and validation.py)
__all__ = [
    "DEFAULT_RULES_PATH",
    "FLAG_NAMES",
    "FLAG_ROW",
    "FLAG_ROWS",
    "GIFT_KEPT",
    "GIFT_NO_EXCHANGE",
    "GIFT_ORDINARY",
    "MASK_SPACES",
    "MAX_BP_AMOUNT",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MODULE_SWITCHES",
    "NO_GIFT",
    "NUMBER_ONLY_EFFECT",
    "OVERRIDES_LABEL",
    "PLAYER_COUNTS",
    "PX_FLAGS",
    "TA_FLAGS",
    "TB_FLAGS",
    "TD_FLAGS",
    "VARIANTS",
    "VARIANT_COLOURS",
    "VARIANT_PLAYER_OF",
    "X_FLAGS",
    "RuleBook",
    "Rules",
    "RulesError",
    "check_variant",
    "count_label",
    "load_rules",
    "meal_option_bound",
    "played_data",
    "rules_id",
]

@functools.cache
def _default_layer() -> dict[str, Any]:
    """The default rules file as read (read once a process; never changed: every layer is copied
    before it is merged, validation.prepare_layer)."""
    return read_toml(DEFAULT_RULES_PATH, str(DEFAULT_RULES_PATH))


def played_data(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (normalised rules) with the flags of every module that is off at their defaults:
    what the games depend on, and so what the rules id hashes. The default rules are unchanged."""
    flags = data["flags"]
    inert = [
        row.name
        for switch, groups in MODULE_SWITCHES.items()
        if not flags[switch]
        for row in FLAG_ROWS
        if row.group in groups and row.name != switch
    ]
    default = _default_layer()["flags"]  # the file's values: loading the defaults would ask their id
    return {**data, "flags": {**flags, **{name: default[name] for name in inert}}}


def rules_id(data: dict[str, Any]) -> str:
    """First 12 hex digits of the sha256 of the canonical JSON of what in ``data`` changes a game
    (:func:`played_data`): a stable content id, the same for rules that play the same games."""
    canonical = json.dumps(played_data(data), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


class RuleBook:
    """The validated, merged rules for every player count (plain Python; not for numba).

    Build one with :func:`load_rules`. ``data`` is normalised: every optional gene field is
    filled in (``weight`` 1, ``defect_payment`` = ``mp``, ``gives_up`` []), genes are in
    gene-index order and table keys for player counts are strings ("3" .. "6"), one for each
    of ``player_counts``.
    """

    def __init__(self, data: dict[str, Any], sources: Sequence[str]) -> None:
        self.data: dict[str, Any] = data
        self.sources: list[str] = list(sources)
        self.name: str = data["name"]
        self.rules_id: str = rules_id(data)
        self.placeholder_deck: bool = data["environment"]["placeholder"]
        self.player_counts: tuple[int, ...] = tuple(data["components"]["player_counts"])
        self.files: list[str] = []  # the house-rules files and overrides load_rules merged (derive)
        self.overrides: dict[str, Any] = {}
        # The number-only genes the files declare, in slot order (genes.NUMBER_ONLY_GENES)
        self.number_only: tuple[str, ...] = tuple(
            n for n, g in data["genes"].items() if g.get("effect") == NUMBER_ONLY_EFFECT
        )
        first = NUMBER_ONLY_GENES[0]
        # The name of every gene index: GENE_NAMES with the declared number-only genes in their slots
        self.gene_names: tuple[str, ...] = (
            GENE_NAMES[:first] + self.number_only + GENE_NAMES[first + len(self.number_only) :]
        )

    def gene_index(self, name: str) -> int:
        """A gene's index by its name (aliases, any case, number-only genes by their declared
        name); KeyError if these rules have no such gene."""
        name = GENE_ALIASES.get(name, name)
        lookup = {n.lower(): i for i, n in enumerate(self.gene_names)}
        lookup.update({a.lower(): GENE_INDEX[r] for a, r in GENE_ALIASES.items()})
        return lookup[name.strip().lower()]

    def genes_in_play(self, players: int, variant: str | None = None) -> list[str]:
        """The genes with at least one copy at this player count (S3, XM1-XM3): the only ones a
        strategy can buy. An experiment on any other gene (removing it, tuning its value) would
        play both arms alike and report zeros, so the commands refuse it (issue 21.2)."""
        copies = self.for_players(players, variant).gene_copies
        return [g for i, g in enumerate(self.gene_names) if copies[i] > 0]

    def not_in_play(self, gene: str, players: int, variant: str | None = None) -> str:
        """Why ``gene`` is not in play (for a one-line error): an extra gene without the module,
        a number-only slot the rules do not declare, or no copies at this player count."""
        i = GENE_INDEX.get(gene, -1)
        who = f"{players} players" + (f" (--variant {variant})" if variant else "")
        in_play = ", ".join(self.genes_in_play(players, variant))
        if i in EXTRA_GENES and not self.data["flags"]["extra_genes"]:
            why = "is an extra gene and these rules do not play them (flags.extra_genes = false)"
        elif i in EXTRA_GENES:
            why = "is not in these rules' extra-gene market (flags.extra_excluded or extra_start_pair)"
        else:
            why = f"has no copies at {who}"
        return f"{gene} {why}, so it cannot be in play (genes in play at {who}: {in_play})"

    def placeholders(
        self, players: int | None = None, variant: str | None = None, decks: int = 1
    ) -> list[str]:
        """The PLACEHOLDER values (PLACEHOLDERS) a game of ``players`` (None: any supported count)
        uses: those still at their default. The deck is one while ``environment.placeholder`` is
        true; ``flags.price_5_6`` while a gene has no 5-6 price of its own. A 2-player ``variant``
        plays as its colours' count and adds its own (TD: the dummy's flags at their default).
        ``decks`` > 1: the run is played over that many plausible decks (V6), so the deck family
        is one while ``environment.family.placeholder`` is true."""
        if variant is not None:
            players = VARIANT_COLOURS[variant]
        counts = self.player_counts if players is None else (players,)
        default = _default_data()
        flags = self.data["flags"]
        used = {
            "environment.deck": self.placeholder_deck,
            "flags.setup_dp_5_6": flags["setup_dp_5_6"] == default["flags"]["setup_dp_5_6"],
            "flags.price_5_6": len(flags["price_5_6"]) < N_BASE_GENES,
        }
        family = decks > 1 and self.data["environment"]["family"]["placeholder"]
        names = [n for n, affects in PLACEHOLDERS.items() if used.get(n) and set(affects) & set(counts)]
        names += ["environment.family"] if family else []
        own = {"dummy": TD_FLAGS, "double2": DOUBLE2_PLACEHOLDERS}.get(variant, ())
        names += [f"flags.{f}" for f in own if flags[f] == default["flags"][f]]
        if flags["extra_genes"]:
            glutton = self.data["genes"]["Glutton"]["defect_payment"]
            if glutton == default["genes"]["Glutton"]["defect_payment"]:
                names.append("genes.Glutton.defect_payment")
            names += [
                n
                for n in EXTRA_PLACEHOLDERS
                if n.startswith("flags.") and flags[n[6:]] == default["flags"][n[6:]]
            ]
        return names

    def __repr__(self) -> str:
        return f"RuleBook(name={self.name!r}, rules_id={self.rules_id!r}, sources={self.sources!r})"

    def derive(self, overrides: dict[str, Any]) -> "RuleBook":
        """These rules with one more layer of ``overrides`` on top (the same files, the overrides
        this book was loaded with, then these): a reference gene, a deck, a toggled flag."""
        merged: dict[str, Any] = copy.deepcopy(self.overrides)
        merge(merged, copy.deepcopy(overrides), (), 0, {})
        return load_rules(*self.files, overrides=merged)

    def as_dict(self) -> dict[str, Any]:
        """A deep copy of the merged, validated rules."""
        return copy.deepcopy(self.data)

    def deck_description(self) -> str:
        """E.g. ``11 cards (PLACEHOLDER deck): 6W 8E 9S ... 11- ...`` (``-`` = no drift)."""
        deck = self.data["environment"]["deck"]
        cards = " ".join(f"{c['ozone']}{'-' if c['drift'] == 'none' else c['drift']}" for c in deck)
        note = " (PLACEHOLDER deck)" if self.placeholder_deck else ""
        return f"{len(deck)} card{'s' if len(deck) != 1 else ''}{note}: {cards}"

    def for_players(self, players: int, variant: str | None = None) -> Rules:
        """The numpy :class:`Rules` for one of the rules' player counts (the flags applied:
        substitution_3_1, and with 5-6 players every flag of PX §9), or for 2 players with a
        ``variant`` (VARIANTS): the dummy variant is a 3-player game whose last colour is the
        dummy (TD1), with the TD flags applied."""
        check_variant(players, variant)
        if variant is not None and self.data["flags"]["extra_genes"]:
            where = ", ".join(str(s) for s in self.sources[1:]) or "the rules"  # the file that set it
            raise RulesError(
                f"{where}: flags.extra_genes: the extra genes are played with 3-6 players (XM1), "
                f"not with a 2-player variant (--variant {variant})"
            )
        if variant in ("double1", "double2"):
            return self._double_play(variant)
        if variant is not None:
            return self._dummy(variant)
        return self._count(self._checked_count(players))

    def _checked_count(self, players: Any) -> int:
        """``players`` as one of components.player_counts, or a one-line RulesError."""
        expected = f"one of {', '.join(map(str, self.player_counts))} (components.player_counts)"
        integral = isinstance(players, numbers.Integral) and not isinstance(players, bool)
        if not integral or players not in self.player_counts:
            raise RulesError(f"players: expected {expected}, got {show(players)}")
        return int(players)

    def _count(self, players: int) -> Rules:
        """The Rules of a game of ``players`` colours, every colour a player of its own. The
        scalars of [economy], [life], [feeding] and [components] and the flags with a Rules
        field (FlagRow.field) set their fields by name; the rest is built here."""
        d = self.data
        key = str(players)
        flags, comp, feed = d["flags"], d["components"], d["feeding"]
        five_six = players in FIVE_SIX
        amoeba_advance = flags["amoeba_score_table_5_6"] if five_six else d["score"]["amoeba_advance"]
        return Rules(
            players=players,
            **self._board(),
            amoeba_advance=_array(amoeba_advance[: flags["amoebas_per_player"][key] + 1], np.int16),
            gene_advance=_array(d["score"]["gene_advance"], np.int16),
            setup_first_dp=flags["setup_dp_5_6"] if five_six else comp["setup_first_dp"][key],
            **{name: comp[name] for name in COMPONENT_RANGES},
            **d["economy"],
            **d["life"],
            **{name: feed[name] for name in FEEDING_RANGES},
            **flag_fields(flags, ("base", "PX", "XM"), players),
            **self._feeding(players),
            **self._genes(players),
            **_one_player_a_colour(players),
            xflag=_array([encode(f, flags[f.name]) for f in EXTRA_FLAGS], np.int16),
            gift=_array(NO_GIFT, np.int8),
            gift_to=-1,
            gift_keep=GIFT_ORDINARY,
            gift_bp=0,
        )

    def _board(self) -> dict[str, Any]:
        """Rules' board and deck fields (B1, V1)."""
        board, deck = self.data["board"], self.data["environment"]["deck"]
        return {
            "n_spaces": board["spaces"],
            "neighbours": _array(board["neighbours"], np.int8).reshape(board["spaces"], 4),
            "neighbour_mask": _neighbour_masks(board["neighbours"]),
            "compass": _array([STAY] + [DIRECTION_CODE[face] for face in board["compass"]], np.int8),
            "deck_ozone": _array([c["ozone"] for c in deck], np.int16),
            "deck_drift": _array([DIRECTION_CODE[c["drift"]] for c in deck], np.int8),
        }

    def _feeding(self, players: int) -> dict[str, Any]:
        """Rules' meal shape fields with ``players`` (M4, F1-F4, XG-02; flags substitution_3_1 and
        feeding_5_6_substitution applied)."""
        feed = self.data["feeding"]
        standard = feed[f"p{players}"]["standard"]
        shapes = substitution_shapes(feed, self.data["flags"], players)
        fewer = (feed["frugality_fewer"], feed["parasitism_fewer"])
        meal, n_meal, parasite, n_parasite = shape_tables(standard, shapes, *fewer)
        g_meal, g_n_meal, g_parasite, g_n_parasite = glutton_tables(standard, shapes, *fewer)
        return {
            "standard_shape": _array(standard, np.int8),
            "substitution_shapes": _array(shapes, np.int8).reshape(len(shapes), players - 1),
            "meal_shapes": meal,
            "n_meal_shapes": n_meal,
            "parasite_shapes": parasite,
            "n_parasite_shapes": n_parasite,
            "glutton_shapes": g_meal,
            "n_glutton_shapes": g_n_meal,
            "glutton_parasite_shapes": g_parasite,
            "n_glutton_parasite_shapes": g_n_parasite,
            **_codes(meal, n_meal, parasite, n_parasite, g_meal, g_n_meal, g_parasite, g_n_parasite),
        }

    def _genes(self, players: int) -> dict[str, Any]:
        """Rules' gene fields with ``players``: prices (G1, PX22), copies (S3, I4, PX4), the lower
        genes (G3, G4) and the extra genes' market (XM1-XM3, XM8)."""
        key = str(players)
        flags = self.data["flags"]
        absent = {"price": 0, "mp": 0, "copies": {key: 0}, "weight": 0, "defect_payment": 0, "gives_up": []}
        genes = [self.data["genes"].get(name, absent) for name in self.gene_names]
        five_six = players in FIVE_SIX
        prices = [
            flags["price_5_6"].get(name, g["price"]) if five_six else g["price"]
            for name, g in zip(self.gene_names, genes, strict=True)
        ]
        copies = [g["copies"][key] for g in genes]
        if five_six and flags["deck_5_6"] == "only_39":
            copies = [
                c - g["copies"]["4"] if i < N_BASE_GENES else c
                for i, (c, g) in enumerate(zip(copies, genes, strict=True))
            ]
        extra = flags["extra_genes"]
        start, deck = self._extra_market(copies)
        gene_lower = np.full((N_GENES, 2), -1, dtype=np.int8)
        for i, gene in enumerate(genes):
            for j, lower in enumerate(gene["gives_up"]):
                gene_lower[i, j] = GENE_INDEX[lower]
        return {
            "gene_price": _array(prices, np.int16),
            "gene_mp": _array([g["mp"] for g in genes], np.int16),
            "gene_copies": _array(copies, np.int8),
            "gene_weight": _array([g["weight"] for g in genes], np.int8),
            "gene_defect_payment": _array([g["defect_payment"] for g in genes], np.int16),
            "gene_lower": gene_lower,
            "gene_blocks": _array([sum(1 << int(x) for x in row if x >= 0) for row in gene_lower], np.int64),
            "priced_within": _priced_within(prices),
            "advanced_genes": _array(
                [i for i in range(N_GENES if extra else N_BASE_GENES) if gene_lower[i, 0] >= 0], np.int8
            ),
            # a number-only gene in play widens the loops to every slot (the extra genes' copies
            # stay 0 without the module, so none is ever held); so do the gene modules' genes that
            # come after the slots (genes.ADDED_GENES: extra genes too)
            "n_genes": N_GENES
            if self.number_only or (extra and ADDED_GENES)
            else N_EXTRA_END
            if extra
            else N_BASE_GENES,
            "extra_start": _array(start, np.int8),
            "extra_deck": _array(deck, np.int8),
        }

    def _extra_market(self, copies: list[int]) -> tuple[list[int], list[int]]:
        """XM1-XM3, XM8: the extra genes' start pair (in the pool from round 1) and face-down deck
        (revealed in Phase 3). Excluded ones, and all of them without the module, are not in play:
        their ``copies`` are set to 0 here."""
        flags = self.data["flags"]
        extra = flags["extra_genes"]
        start = [GENE_INDEX[n] for n in flags["extra_start_pair"]] if extra else []
        out = set(flags["extra_excluded"])
        deck = [i for i in EXTRA_GENES if extra and i not in start and GENE_NAMES[i] not in out]
        for i in EXTRA_GENES:
            if i not in start and i not in deck:
                copies[i] = 0
        if extra and flags["extra_deck_mixed_with_base"]:
            # XM3's literal reading: the base genes' cards are shuffled into the face-down deck too
            deck = [i for i in range(N_BASE_GENES) for _ in range(copies[i])] + deck
        return start, deck

    def _dummy(self, variant: str) -> Rules:
        """The dummy variant (TD1-TD9): a 3-player game whose last colour is the dummy, with the
        TD flags' fields (FlagRow.field) and TD4's Life Expectancy card."""
        rules = self.for_players(VARIANT_COLOURS[variant])
        flags = self.data["flags"]
        copies = rules.gene_copies.copy()
        if flags["dummy_le_from_pool"]:  # TD4: the dummy's Life Expectancy is the pool's card
            copies[GENE_INDEX["Life Expectancy"]] = max(0, int(copies[GENE_INDEX["Life Expectancy"]]) - 1)
        return rules._replace(
            dummy=rules.players - 1, gene_copies=copies, **flag_fields(flags, ("TD",), rules.players)
        )

    def _double_play(self, variant: str) -> Rules:
        """Double play I (TA1: a 4-player game, a player's two colours two complete seats) or II
        (TB1-TB10: a 4-player game whose two colours of a player share one BP stock, gene set and
        score marker; no setup DP, TB7's division costs, TB3's start BP and income)."""
        rules = self.for_players(VARIANT_COLOURS[variant])
        flags = self.data["flags"]
        player_of = np.array(VARIANT_PLAYER_OF[variant], dtype=np.int8)
        rules = rules._replace(team=player_of)
        if variant == "double1":
            return rules._replace(side=rules.side if flags["double1_partner_is_opponent"] else player_of)
        partner = np.array([1, 0, 3, 2], dtype=np.int8)
        if not flags["double2_eat_partner_colour"]:
            # TB1's other reading: the partner's cubes count as one's own, so a meal is the
            # 3-player pattern over the two opponent colours (a 0 for the partner's column).
            feed = self.data["feeding"]
            standard = [*feed["p3"]["standard"], 0]
            shapes = [[*shape, 0] for shape in substitution_shapes(feed, flags, 3)]
            meal, n_meal, parasite, n_parasite = shape_tables(
                standard, shapes, feed["frugality_fewer"], feed["parasitism_fewer"]
            )
            rules = rules._replace(
                inedible=partner.copy(),
                standard_shape=np.array(standard, dtype=np.int8),
                substitution_shapes=np.array(shapes, dtype=np.int8).reshape(len(shapes), 3),
                meal_shapes=meal,
                n_meal_shapes=n_meal,
                parasite_shapes=parasite,
                n_parasite_shapes=n_parasite,
                **_codes(
                    meal,
                    n_meal,
                    parasite,
                    n_parasite,
                    rules.glutton_shapes,
                    rules.n_glutton_shapes,
                    rules.glutton_parasite_shapes,
                    rules.n_glutton_parasite_shapes,
                ),
            )
        return rules._replace(
            side=np.arange(4, dtype=np.int8) if flags["double2_partner_is_opponent"] else player_of,
            partner=partner,
            setup_first_dp=0,  # TB2: the starting amoebas are "without" damage points
            **flag_fields(flags, ("TB",), rules.players),  # TB3, TB4, TB7
        )


def _priced_within(prices: list[int]) -> np.ndarray:
    """Rules.priced_within: for x BP up to the highest price, the genes priced at most x (G1)."""
    top = max([0, *prices])
    return np.array(
        [sum(1 << i for i, price in enumerate(prices) if price <= x) for x in range(top + 1)], np.int64
    )


def _neighbour_masks(neighbours: list[list[int]]) -> np.ndarray:
    """Rules.neighbour_mask: each space's neighbours as a bit mask (B1), on a board of at most
    MASK_SPACES spaces; zeros on a bigger one."""
    masks = np.zeros(len(neighbours), np.int64)
    if len(neighbours) <= MASK_SPACES:
        for s, row in enumerate(neighbours):
            masks[s] = sum(1 << t for t in set(row) if t >= 0)
    return masks


def _codes(*tables: np.ndarray) -> dict[str, np.ndarray]:
    """Rules.meal_codes and n_meal_codes of the shape tables (shapes, sizes, ...) in the order of
    meal_shapes.*_TABLE: meal, parasite, Glutton's, Glutton's parasite (M4, F1-F4, XG-02)."""
    codes, counts = code_tables(list(zip(tables[::2], tables[1::2], strict=True)))
    return {"meal_codes": codes, "n_meal_codes": counts}


_DEFAULT_DATA: list[dict[str, Any]] = []


def _default_data() -> dict[str, Any]:
    """The default rules' normalised data (loaded once): what a placeholder's default is."""
    if not _DEFAULT_DATA:
        _DEFAULT_DATA.append(load_rules().data)
    return _DEFAULT_DATA[0]


def load_rules(*paths: str | Path | None, overrides: dict[str, Any] | None = None) -> RuleBook:
    """Load the default rules, deep-merge each house-rules file in order, then ``overrides``.

    Tables merge key by key (genes per gene and per field); arrays are replaced whole. In a
    house-rules file or ``overrides`` the §10 flags may also be given at top level as
    shorthand for ``flags.<name>``. ``None`` paths are skipped. Any bad input -> RulesError.
    """
    layers: list[tuple[str, Any]] = [(str(DEFAULT_RULES_PATH), _default_layer())]
    for path in paths:
        if path is not None:
            layers.append((str(path), read_toml(Path(path), str(path))))
    if overrides is not None:
        layers.append((OVERRIDES_LABEL, overrides))

    merged: dict[str, Any] = {}
    origin: dict[tuple[str, ...], int] = {}
    sources: list[str] = []
    moved: dict[int, dict[str, tuple[str, str]]] = {}
    for index, (label, raw) in enumerate(layers):
        merge(merged, prepare_layer(raw, label, moved.setdefault(index, {})), (), index, origin)
        sources.append(label)
    book = RuleBook(Checker(sources, origin, moved).rules(merged), sources)
    book.files = [str(p) for p in paths if p is not None]
    book.overrides = copy.deepcopy(overrides) if overrides else {}
    return book


def flag_fields(flags: dict[str, Any], groups: Sequence[str], players: int) -> dict[str, Any]:
    """The Rules fields the flags of ``groups`` set as they read (FlagRow.field): a by_players
    flag its value at ``players``, a choice with ``when`` whether it reads that choice."""
    out: dict[str, Any] = {}
    for row in FLAG_ROWS:
        if row.field and row.group in groups:
            value = flags[row.name]
            if row.kind == "by_players":
                value = value[str(players)]
            elif row.when is not None:
                value = value == row.when
            out[row.field] = value
    return out


def _one_player_a_colour(players: int) -> dict[str, Any]:
    """Rules' variant fields of a game in which each colour is a player of its own: no dummy
    (TD1), each colour its own side and team, no partner or inedible colour (TA, TB)."""
    return {
        "dummy": -1,
        "dummy_scores": False,
        "dummy_income": False,
        "dummy_amoebas": 0,
        "side": _array(range(players), np.int8),
        "team": _array(range(players), np.int8),
        "partner": _array([-1] * players, np.int8),
        "colour_choice": False,
        "inedible": _array([-1] * players, np.int8),
    }


def _array(values: Any, dtype: type) -> np.ndarray:
    return np.ascontiguousarray(np.array(values, dtype=dtype))
