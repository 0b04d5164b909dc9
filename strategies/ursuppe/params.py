"""The strategy parameter schema, presets and strategy files.

A strategy is a vector of floats; policy.py reads it by the indices below. Every decision of
spec §9 (sim/ursuppe/engine/decision_kinds.py) is steered by some of these parameters; docs/strategies.md
has the table; a gene module declares its own knobs on its row (gene_rows.Knob), and they follow
these. A strategy file is a TOML file naming any subset of the parameters (the rest keep their
defaults, or the values of the preset named by ``extends``), with per-gene values in a
``[gene_value]`` table keyed by gene name (``other`` sets every gene not named)::

    name = "my-breeder"
    description = "Amoebas first, Division Rate early."
    extends = "greedy"
    bp_reserve = 2
    [gene_value]
    "Division Rate" = 9
"""

import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.errors import UserError
from sim.ursuppe.rules import gene_tables
from sim.ursuppe.rules.genes import GENE_NAMES, N_GENES, gene_index
from sim.ursuppe.rules.ledger import in_ledger_order
from strategies.ursuppe import PRESETS_DIR, preset_names  # noqa: F401 (re-exported)


@dataclass(frozen=True)
class Parameter:
    name: str
    index: int
    default: float
    low: float
    high: float
    doc: str
    decision: str = ""  # the decision kinds / rule ids of §9 it steers
    switch: bool = False  # only 0 (off) or 1 (on)


# (name, default, low, high, decisions steered, doc). The defaults reproduce the original
# "greedy" heuristics exactly; a parameter listed in _SWITCHES only takes 0 or 1.
_SCALARS: tuple[tuple[str, float, float, float, str, str], ...] = (
    (
        "randomness",
        0.0,
        0.0,
        1.0,
        "all",
        "probability of choosing uniformly among the legal options at a decision (1 = the random strategy)",
    ),
    (
        "random_ties",
        0.0,
        0.0,
        1.0,
        "all",
        "1: break ties between equally valued options at random; 0: take the first (deterministic, "
        "but it favours some colours, e.g. which foreign colour a 3-player meal takes twice)",
    ),
    # --- how a space is valued (placements, moves, directions)
    (
        "food_weight",
        1.0,
        -10.0,
        10.0,
        "place_setup, place_free, divide, place_explosion, move, direction, fast_food, rebound "
        "(S6, D2, D3, XG-20, M1, B2, XG-07, XG-16)",
        "weight of a space's food: foreign cubes there, at most 2 per colour counted",
    ),
    (
        "crowding_penalty",
        0.5,
        -10.0,
        10.0,
        "place_setup, place_free, divide, place_explosion, move, direction, fast_food, rebound "
        "(S6, D2, D3, XG-20, M1, B2, XG-07, XG-16)",
        "subtracted per other amoeba (any colour) on a space",
    ),
    (
        "prey_bonus",
        0.0,
        -10.0,
        10.0,
        "place_setup, place_free, divide, place_explosion, move, direction, fast_food, rebound "
        "(S6, D2, D3, XG-20, M1, B2, XG-07, XG-16)",
        "added per amoeba of another player on a space while the player holds Struggle for "
        "Survival, Aggression or Parasitism (a hunting ground)",
    ),
    (
        "spread_weight",
        0.0,
        -10.0,
        10.0,
        "place_setup, place_free, divide, place_explosion (S6, D2, D3, XG-20)",
        "added per own amoeba on the spaces next to a placement (positive: cluster, negative: spread out)",
    ),
    # --- movement (M1-M3, Movement I/II, Speed, Holding)
    (
        "active_moves",
        1.0,
        0.0,
        1.0,
        "move (M1)",
        "1: move actively when it is worth its BP; 0: never move actively (drift, or stay with Holding)",
    ),
    (
        "active_move_margin",
        0.5,
        -10.0,
        10.0,
        "move (M1)",
        "how much better the expected value of an active move must be than drifting to pay for it",
    ),
    (
        "move_lookahead",
        0.0,
        0.0,
        1.0,
        "move (M1)",
        "0: an active move is valued at the mean of the four neighbouring spaces; 1: at its expected "
        "value given the die (5 stays, 6 chooses) and Movement I (best of two dice) or II (free choice)",
    ),
    (
        "stay_margin",
        0.0,
        -10.0,
        10.0,
        "move (M1, Holding)",
        "subtracted from the value of Holding's stay (the current space) when choosing among "
        "drift, active and stay",
    ),
    (
        "second_move_threshold",
        3.0,
        0.0,
        100.0,
        "second_move (Speed, Persistence)",
        "make Speed's free second move when the food value of the space reached is below this "
        "(0 never, 100 always)",
    ),
    # --- extra genes in Phase 1 (XG-04 Cleanliness, XG-07 Fast Food, XG-16 Rebound)
    (
        "suction_weight",
        0.5,
        -10.0,
        10.0,
        "eat (XG-12, XG-26 Suction)",
        "value per cube a meal takes from a neighbouring space instead of the own space, times how "
        "much more taking food hurts there: (other players' amoebas - own other amoebas) on the "
        "neighbour minus the same on the own space (0: no preference; ties keep the own space)",
    ),
    (
        "clean_opponent_weight",
        1.0,
        -10.0,
        10.0,
        "cleanliness (XG-04)",
        "subtracted per other player's amoeba on the space Cleanliness puts the excreted cubes on "
        "(own-colour cubes are food only for the others); ties keep the own space",
    ),
    # --- Tentacle
    (
        "carry_foreign",
        1.0,
        -10.0,
        10.0,
        "carry (Tentacle)",
        "value per cube of a foreign colour carried along",
    ),
    (
        "carry_own",
        0.0,
        -10.0,
        10.0,
        "carry (Tentacle)",
        "value per cube of the player's own colour carried along",
    ),
    (
        "carry_need",
        0.0,
        -10.0,
        10.0,
        "carry (Tentacle)",
        "value per unit the carried cubes raise the destination's food value (colours it lacks)",
    ),
    ("carry_max", 6.0, 0.0, 6.0, "carry (Tentacle)", "carry at most this many cubes"),
    # --- Holding
    (
        "cling_threshold",
        100.0,
        0.0,
        100.0,
        "cling (Holding)",
        "clinging propensity: cling when the food value of the amoeba's space is below this "
        "(0 never, 100 always)",
    ),
    # --- feeding (M4, F1-F4)
    (
        "eat_cube_cost",
        1.0,
        -10.0,
        10.0,
        "eat (M4, F1-F3)",
        "subtracted per cube eaten (positive: the smallest meal, leaving food on the space)",
    ),
    (
        "parasite_bonus",
        0.5,
        -10.0,
        10.0,
        "eat (F4)",
        "value of a parasitic meal (its victim pays 1 BP); negative: avoid parasitizing",
    ),
    (
        "victim_score_weight",
        0.0,
        -1.0,
        1.0,
        "eat (F4)",
        "added per score-track space of the parasitized player (positive: parasitize the leader)",
    ),
    (
        "eat_leader_colour",
        0.0,
        -10.0,
        10.0,
        "eat (M4, F1-F3)",
        "value per cube eaten of the colour of the leading opponent (ahead on the score track)",
    ),
    # --- attacks (A1-A6, R1-R4) and answers
    (
        "attack_propensity",
        1.0,
        0.0,
        1.0,
        "attack (A1)",
        "probability of attacking instead of starving when there is a target (1 always, 0 never)",
    ),
    (
        "target_score_weight",
        0.01,
        -1.0,
        1.0,
        "attack, aggress (A1, A5, R1)",
        "added to a target's value per score-track space of its owner (positive: hit the leader)",
    ),
    (
        "attack_own",
        0.0,
        0.0,
        1.0,
        "attack (A1)",
        "1: attack an amoeba of the player's own colour when there is no other target; 0: never",
    ),
    (
        "defended_penalty",
        0.0,
        0.0,
        10.0,
        "attack, aggress (A1, A5, R1)",
        "subtracted from a target whose owner can answer (holds Escape or Defense and has BP); "
        "a target's value starts at 1 + target_score_weight x its owner's score, one at 0 or "
        "less is never attacked",
    ),
    (
        "retry_propensity",
        1.0,
        0.0,
        1.0,
        "attack (A5, Persistence's retry)",
        "probability of using Persistence's free second attempt after a failed attack",
    ),
    (
        "aggress_propensity",
        1.0,
        0.0,
        1.0,
        "aggress (R1)",
        "probability of making Aggression's Phase-5 attack when there is a target",
    ),
    (
        "armor_target_penalty",
        0.0,
        0.0,
        10.0,
        "aggress (R1, R3), attack (A5 in Phase 5)",
        "subtracted from a target whose owner has Armor (in Phase 5 it only takes 1 DP)",
    ),
    (
        "answer_propensity",
        1.0,
        0.0,
        1.0,
        "respond (A2-A4)",
        "probability of answering an attack with Escape and/or Defense when possible",
    ),
    (
        "answer_escape_first",
        0.0,
        0.0,
        1.0,
        "respond (A2)",
        "1: Escape before Defense; 0: Defense before Escape (when both are held)",
    ),
    (
        "answer_both",
        1.0,
        0.0,
        1.0,
        "respond (A2)",
        "1: answer with both Escape and Defense when both can be paid; 0: with one at most",
    ),
    # --- gene defects (E2), purchases (G1-G4), division (D2-D4)
    (
        "defect_gene_weight",
        2.0,
        0.0,
        100.0,
        "pay (E2)",
        "a returned gene costs this many BP per (price + gene_value) when choosing a defect payment",
    ),
    (
        "bp_reserve",
        2.0,
        0.0,
        50.0,
        "buy (G1)",
        "BP kept back when buying genes (a purchase must leave at least this many)",
    ),
    (
        "mp_limit",
        100.0,
        -10.0,
        100.0,
        "buy (G1)",
        "do not buy a gene that lifts the player's mutation points above this (Ray Protection "
        "is always allowed)",
    ),
    (
        "save_for_value",
        100.0,
        -100.0,
        100.0,
        "buy (G1), divide (D3)",
        "gene priorities: while a gene valued above this is in the pool and within reach, the player "
        "saves its price (no division and no lesser gene below it); 100: never saves",
    ),
    (
        "give_up_weight",
        0.0,
        0.0,
        10.0,
        "buy (G3, Armor's choice)",
        "an advanced gene's value minus this times the value of the lower gene it takes; Armor "
        "always gives up the less valuable of Defense and Escape",
    ),
    # --- extra genes in attacks (XG-05 Hard Crust)
    (
        "hard_crust_max_bp",
        3.0,
        0.0,
        100.0,
        "hard_crust (XG-05), attack, aggress (A1, R1)",
        "the most extra BP paid to go on with an attack on a Hard Crust amoeba; a Hard Crust target "
        "is never chosen when the attacker could not pay that much (the attack would fail)",
    ),
    (
        "mouthful_target_penalty",
        0.5,
        0.0,
        10.0,
        "attack (A1, XG-09)",
        "subtracted from a target whose owner has More Than a Mouthful and would survive the attack "
        "with 1 DP (no kill, no cubes)",
    ),
    (
        "max_amoebas",
        7.0,
        0.0,
        7.0,
        "divide (D3)",
        "stop buying amoebas at this many on the board",
    ),
    (
        "division_reserve",
        0.0,
        0.0,
        50.0,
        "divide (D3)",
        "BP kept back when buying amoebas (a new amoeba must leave at least this many)",
    ),
    (
        "division_base",
        1.0,
        -10.0,
        10.0,
        "divide (D3)",
        "value of a new amoeba beyond its space's value (a space valued below -division_base stops division)",
    ),
    # --- extra genes in Phases 3-4 (XG-08 exchange, XG-15/XG-25 healing, XG-20 placements)
    (
        "exchange_margin",
        0.0,
        0.0,  # not below 0: two genes of equal value would be exchanged back and forth for ever
        10.0,
        "exchange (XG-08)",
        "Highly Adaptable: exchange a held gene for a pool gene when the taken gene's value minus its "
        "BP cost beats the given gene's value by more than this (and bp_reserve is kept)",
    ),
    (
        "heal_within",
        1.0,
        0.0,
        5.0,
        "heal (XG-15, XG-25)",
        "heal an amoeba whose DP are within this many of its death threshold (1: one that dies at "
        "its next DP; 0: never heal); Healing 2 gives the DP to an opponent's amoeba, one that then "
        "dies first, never to its own",
    ),
    (
        "heal_reserve",
        0.0,
        0.0,
        50.0,
        "heal (XG-15, XG-25)",
        "BP kept back when healing (a heal must leave at least this many)",
    ),
    (
        "hungry_colour_first",
        1.0,
        0.0,
        1.0,
        "colour (TB4)",
        "double play II: 1 moves first the colour whose amoebas lack more food where they stand; "
        "0 the other one",
    ),
)
_SWITCHES = frozenset(
    {
        "random_ties",
        "active_moves",
        "move_lookahead",
        "attack_own",
        "answer_escape_first",
        "answer_both",
        "hungry_colour_first",
    }
)

PARAMETERS: dict[str, Parameter] = {}
for _i, (_name, _default, _low, _high, _decision, _doc) in enumerate(_SCALARS):
    PARAMETERS[_name] = Parameter(_name, _i, _default, _low, _high, _doc, _decision, _name in _SWITCHES)
# Then the gene modules' knobs (a Knob on a gene's row, docs/adding-a-gene.md), in the order of the
# index ledger (sim/ursuppe/rules/ledger.toml); a gene's valuation reads its knob at
# PARAMETERS[name].index (through the engine's policy port).
for _knob in in_ledger_order("knobs", gene_tables.KNOBS, lambda knob: knob.name):
    if _knob.name in PARAMETERS:
        raise ValueError(f"{_knob.name}: a gene module's knob (gene_tables.KNOBS) has a parameter's name")
    PARAMETERS[_knob.name] = Parameter(
        _knob.name,
        len(PARAMETERS),
        _knob.default,
        _knob.low,
        _knob.high,
        _knob.doc,
        _knob.decision,
        _knob.switch,
    )
GENE_KNOBS: frozenset[str] = frozenset(knob.name for knob in gene_tables.KNOBS)

GENE_VALUE_BASE = len(PARAMETERS)  # gene_value[i] at index GENE_VALUE_BASE + i
N_PARAMS = GENE_VALUE_BASE + N_GENES
GENE_VALUE_LOW = -100.0
GENE_VALUE_HIGH = 100.0
# A gene valued above GENE_VALUE_HIGH (no strategy file can) is *forced*: bought first whenever
# affordable but never saved for (policy._saving). Only gene value's labelled "cost of a forced
# purchase" design pins it (sim/ursuppe/experiments/gene_value.py, docs/verdicts.md).
FORCED_GENE_VALUE = 1000.0
DEFAULT_GENE_VALUE = 1.0
GENE_VALUE_DOC = (
    "buy (G1-G4), pay (E2): how much the player wants each gene; genes are bought best first "
    "while affordable, a value of 0 or less is never bought"
)

# Index constants for the policy kernels.
RANDOMNESS = PARAMETERS["randomness"].index
RANDOM_TIES = PARAMETERS["random_ties"].index
FOOD_WEIGHT = PARAMETERS["food_weight"].index
CROWDING_PENALTY = PARAMETERS["crowding_penalty"].index
PREY_BONUS = PARAMETERS["prey_bonus"].index
HARD_CRUST_MAX_BP = PARAMETERS["hard_crust_max_bp"].index
MOUTHFUL_TARGET_PENALTY = PARAMETERS["mouthful_target_penalty"].index
SPREAD_WEIGHT = PARAMETERS["spread_weight"].index
ACTIVE_MOVES = PARAMETERS["active_moves"].index
ACTIVE_MOVE_MARGIN = PARAMETERS["active_move_margin"].index
MOVE_LOOKAHEAD = PARAMETERS["move_lookahead"].index
STAY_MARGIN = PARAMETERS["stay_margin"].index
SECOND_MOVE_THRESHOLD = PARAMETERS["second_move_threshold"].index
HUNGRY_COLOUR_FIRST = PARAMETERS["hungry_colour_first"].index
EXCHANGE_MARGIN = PARAMETERS["exchange_margin"].index
HEAL_WITHIN = PARAMETERS["heal_within"].index
HEAL_RESERVE = PARAMETERS["heal_reserve"].index
CARRY_FOREIGN = PARAMETERS["carry_foreign"].index
CARRY_OWN = PARAMETERS["carry_own"].index
CARRY_NEED = PARAMETERS["carry_need"].index
CARRY_MAX = PARAMETERS["carry_max"].index
CLING_THRESHOLD = PARAMETERS["cling_threshold"].index
EAT_CUBE_COST = PARAMETERS["eat_cube_cost"].index
PARASITE_BONUS = PARAMETERS["parasite_bonus"].index
VICTIM_SCORE_WEIGHT = PARAMETERS["victim_score_weight"].index
EAT_LEADER_COLOUR = PARAMETERS["eat_leader_colour"].index
SUCTION_WEIGHT = PARAMETERS["suction_weight"].index
CLEAN_OPPONENT_WEIGHT = PARAMETERS["clean_opponent_weight"].index
ATTACK_PROPENSITY = PARAMETERS["attack_propensity"].index
TARGET_SCORE_WEIGHT = PARAMETERS["target_score_weight"].index
ATTACK_OWN = PARAMETERS["attack_own"].index
DEFENDED_PENALTY = PARAMETERS["defended_penalty"].index
RETRY_PROPENSITY = PARAMETERS["retry_propensity"].index
AGGRESS_PROPENSITY = PARAMETERS["aggress_propensity"].index
ARMOR_TARGET_PENALTY = PARAMETERS["armor_target_penalty"].index
ANSWER_PROPENSITY = PARAMETERS["answer_propensity"].index
ANSWER_ESCAPE_FIRST = PARAMETERS["answer_escape_first"].index
ANSWER_BOTH = PARAMETERS["answer_both"].index
DEFECT_GENE_WEIGHT = PARAMETERS["defect_gene_weight"].index
BP_RESERVE = PARAMETERS["bp_reserve"].index
MP_LIMIT = PARAMETERS["mp_limit"].index
SAVE_FOR_VALUE = PARAMETERS["save_for_value"].index
GIVE_UP_WEIGHT = PARAMETERS["give_up_weight"].index
MAX_AMOEBAS = PARAMETERS["max_amoebas"].index
DIVISION_RESERVE = PARAMETERS["division_reserve"].index
DIVISION_BASE = PARAMETERS["division_base"].index

_META_KEYS = ("name", "description", "extends", "gene_value")
_OTHER_GENES = "other"  # [gene_value] key for every gene the table does not name


class StrategyError(UserError):
    """A bad strategy name or strategy file; the message is one line naming the key."""


@dataclass(frozen=True)
class Strategy:
    name: str
    description: str
    vector: np.ndarray  # float64 [N_PARAMS]
    source: str

    def value(self, key: str) -> float:
        """A parameter's value by name (``gene_value.Speed`` for a gene's value)."""
        if key.startswith("gene_value."):
            return float(self.vector[GENE_VALUE_BASE + gene_index(key.removeprefix("gene_value."))])
        return float(self.vector[PARAMETERS[key].index])


def default_vector() -> np.ndarray:
    v = np.zeros(N_PARAMS, dtype=np.float64)
    for p in PARAMETERS.values():
        v[p.index] = p.default
    v[GENE_VALUE_BASE:] = DEFAULT_GENE_VALUE
    return v


def _number(label: str, key: str, value: object, low: float, high: float, switch: bool = False) -> float:
    if switch:
        if isinstance(value, bool):
            return float(value)
        if isinstance(value, int | float) and float(value) in (0.0, 1.0):
            return float(value)
        raise StrategyError(f"{label}: {key}: expected 0 or 1 (or false/true), got {value!r}")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise StrategyError(f"{label}: {key}: expected a number in [{low:g}, {high:g}], got {value!r}")
    if not low <= float(value) <= high:  # also rejects nan
        raise StrategyError(f"{label}: {key}: expected a number in [{low:g}, {high:g}], got {value!r}")
    return float(value)


def _gene_values(label: str, value: object, v: np.ndarray) -> None:
    if not isinstance(value, dict):
        raise StrategyError(f"{label}: gene_value: expected a table of gene name = number")
    if _OTHER_GENES in value:
        x = _number(label, f"gene_value.{_OTHER_GENES}", value[_OTHER_GENES], GENE_VALUE_LOW, GENE_VALUE_HIGH)
        v[GENE_VALUE_BASE:] = x
    for gene, x in value.items():
        if gene == _OTHER_GENES:
            continue
        try:
            i = gene_index(gene)
        except KeyError:
            raise StrategyError(
                f"{label}: gene_value.{gene!r}: unknown gene "
                f"(expected one of: {', '.join(GENE_NAMES)}, or {_OTHER_GENES})"
            ) from None
        v[GENE_VALUE_BASE + i] = _number(label, f"gene_value.{gene!r}", x, GENE_VALUE_LOW, GENE_VALUE_HIGH)


def strategy_from_dict(
    data: dict, label: str, default_name: str, base_dir: Path | None = None, _chain: tuple[str, ...] = ()
) -> Strategy:
    """Validate a strategy table (from a TOML file) into a :class:`Strategy`.

    ``extends`` names a preset (or a strategy file, relative to ``base_dir``) whose values are
    the starting point instead of the defaults."""
    name = data.get("name", default_name)
    description = data.get("description", "")
    if not isinstance(name, str) or not name:
        raise StrategyError(f"{label}: name: expected a non-empty string, got {name!r}")
    if not isinstance(description, str):
        raise StrategyError(f"{label}: description: expected a string, got {description!r}")
    v = default_vector()
    if "extends" in data:
        base = data["extends"]
        if not isinstance(base, str) or not base:
            raise StrategyError(f"{label}: extends: expected a preset name or a strategy file, got {base!r}")
        if (base.endswith(".toml") or "/" in base) and base_dir is not None and not Path(base).is_absolute():
            base = str(base_dir / base)
        if _resolve(base) in _chain:
            raise StrategyError(f"{label}: extends: {base!r}: a cycle of extends")
        try:
            v = _load(base, _chain).vector.copy()
        except StrategyError as e:
            if "a cycle of extends" in str(e):
                raise
            raise StrategyError(f"{label}: extends: {e}") from None
    for key, value in data.items():
        if key in ("name", "description", "extends"):
            continue
        if key == "gene_value":
            _gene_values(label, value, v)
            continue
        if key not in PARAMETERS:
            raise StrategyError(
                f"{label}: {key}: unknown parameter (expected one of: {', '.join(_META_KEYS)}, "
                f"{', '.join(PARAMETERS)})"
            )
        p = PARAMETERS[key]
        v[p.index] = _number(label, key, value, p.low, p.high, p.switch)
    return Strategy(name=name, description=description, vector=v, source=label)


def _is_file_spec(spec: str | Path) -> bool:
    return isinstance(spec, Path) or spec.endswith(".toml") or Path(spec).exists()


def _resolve(spec: str | Path) -> str:
    """The file a strategy spec names, as a key for finding cycles of ``extends``."""
    path = Path(spec) if _is_file_spec(spec) else PRESETS_DIR / f"{spec}.toml"
    return str(path.resolve())


def _load(spec: str | Path, chain: tuple[str, ...]) -> Strategy:
    path = Path(spec)
    if _is_file_spec(spec):
        label = str(path)
        if path.is_dir():  # "no such file" would send the user looking for a file that is there
            raise StrategyError(f"{label}: is a directory, expected a strategy .toml file or a preset name")
        if not path.is_file():
            raise StrategyError(f"{label}: cannot read the strategy file: no such file")
    else:
        path = PRESETS_DIR / f"{spec}.toml"
        label = spec
        if not path.is_file():
            raise StrategyError(
                f"strategy {spec!r}: unknown preset (expected one of: {', '.join(preset_names())}, "
                "or a path to a .toml file)"
            )
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise StrategyError(f"{label}: not valid TOML: {e}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise StrategyError(f"{label}: cannot read the strategy file: {e}") from None
    return strategy_from_dict(data, label, path.stem, path.parent, (*chain, _resolve(spec)))


def load_strategy(spec: str | Path) -> Strategy:
    """A preset by name (``greedy``) or a strategy file by path (``my.toml``, or any Path)."""
    return _load(spec, ())


def saved_for(params: np.ndarray) -> np.ndarray:
    """Per row of a parameter table, the genes the strategy saves BP for (policy._saving), as an
    int64 mask: valued above its ``save_for_value`` and not forced (at most GENE_VALUE_HIGH). A
    table too narrow to hold gene values (a placeholder) saves for nothing."""
    masks = np.zeros(params.shape[0], np.int64)
    if params.shape[1] < GENE_VALUE_BASE + N_GENES:
        return masks
    for row, prm in enumerate(params):
        value = prm[GENE_VALUE_BASE : GENE_VALUE_BASE + N_GENES]
        saved = (value > prm[SAVE_FOR_VALUE]) & (value <= GENE_VALUE_HIGH)
        masks[row] = sum(1 << i for i in np.flatnonzero(saved))
    return masks


def parameter_table(strategies: list[Strategy]) -> np.ndarray:
    """The ``params`` array the kernels read: one row per strategy."""
    return np.ascontiguousarray(np.stack([s.vector for s in strategies]), dtype=np.float64)
