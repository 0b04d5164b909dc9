"""Bounds of the rules data (rules.py, "Bounds"): every number of a rules file has a range in
which no game can overflow its state, and a value outside it is a one-line RulesError naming
the file, the key and the range. The deck must be one the engine can play (V1-V4, W1, I9).

Rule ids refer to docs/rules.md.
"""

import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.ursuppe.engine import batch as B
from sim.ursuppe.engine.genes.division_rate import DIVISION_RATE
from sim.ursuppe.engine.state import MAX_OPTIONS, allocate_state
from sim.ursuppe.rules import schema as R
from sim.ursuppe.rules import validation as V
from sim.ursuppe.rules.book import RulesError, load_rules
from sim.ursuppe.rules.genes import N_GENES
from sim.ursuppe.rules.meal_shapes import MAX_SHAPES, WITH_FRUGALITY, WITH_SUBSTITUTION
from strategies.ursuppe.params import load_strategy, parameter_table
from tests import processes

ROOT = Path(__file__).resolve().parent.parent

# (dotted key as the error names it, TOML text with {v} for the value, lo, hi): every integer key
# of default_rules.toml, with its range.
GENE = 'genes."Division Rate"'
KEYS = [
    ("flags.amoebas_per_player", "[flags]\namoebas_per_player = {v}\n", 1, 7),
    ("flags.amoebas_per_player.5", "[flags]\namoebas_per_player = {{ 5 = {v} }}\n", 1, 7),
    ("flags.setup_dp_5_6", "[flags]\nsetup_dp_5_6 = {v}\n", 0, 5),
    ("flags.income_bp.6", "[flags]\nincome_bp = {{ 6 = {v} }}\n", 0, 100000),
    ("flags.tentacle_capacity.5", "[flags]\ntentacle_capacity = {{ 5 = {v} }}\n", 0, 7),
    ("flags.tentacle_capacity.6", "[flags]\ntentacle_capacity = {{ 6 = {v} }}\n", 0, 6),
    ("flags.amoeba_score_table_5_6[6]", "amoeba_score_table_5_6 = [0, 0, 1, 2, 4, 5, {v}]\n", 0, 250),
    ("flags.price_5_6.Intelligence", "[flags.price_5_6]\nIntelligence = {v}\n", 0, 32767),
    ("components.cubes_per_colour", "[components]\ncubes_per_colour = {v}\n", 0, 32767),
    ("components.cubes_per_space", "[components]\ncubes_per_space = {v}\n", 0, 32767),
    ("components.start_bp", "[components]\nstart_bp = {v}\n", 0, 100000),
    ("components.setup_first_dp.3", "[components]\nsetup_first_dp = {{ 3 = {v} }}\n", 0, 5),
    ("components.setup_first_dp.4", "[components]\nsetup_first_dp = {{ 4 = {v} }}\n", 0, 5),
    ("flags.income_bp", "[flags]\nincome_bp = {v}\n", 0, 100000),
    *(
        (f"economy.{key}", f"[economy]\n{key} = {{v}}\n", 0, 100000)
        for key in R.ECONOMY_RANGES  # every cost of [economy]
    ),
    ("life.excretion", "[life]\nexcretion = {v}\n", 0, 32767),
    ("life.starvation_dp", "[life]\nstarvation_dp = {v}\n", 0, 5),
    ("life.death_dp", "[life]\ndeath_dp = {v}\n", 1, 50),
    ("life.death_dp_life_expectancy", "[life]\ndeath_dp_life_expectancy = {v}\n", 1, 50),
    ("life.natural_death_cubes", "[life]\nnatural_death_cubes = {v}\n", 0, 32767),
    ("life.violent_death_cubes", "[life]\nviolent_death_cubes = {v}\n", 0, 32767),
    ("life.aggression_death_cubes", "[life]\naggression_death_cubes = {v}\n", 0, 32767),
    ("life.aggression_armor_dp", "[life]\naggression_armor_dp = {v}\n", 0, 5),
    ("life.lost_defense_dp", "[life]\nlost_defense_dp = {v}\n", 0, 5),
    ("feeding.p3.standard[0]", "[feeding.p3]\nstandard = [{v}, 0]\n", 0, 15),
    ("feeding.p4.standard[0]", "[feeding.p4]\nstandard = [{v}, 0, 0]\n", 0, 15),
    ("feeding.p3.substitution[0][0]", "[feeding.p3]\nsubstitution = [[{v}, 0]]\n", 0, 15),
    ("feeding.p4.substitution[0][0]", "[feeding.p4]\nsubstitution = [[{v}, 0, 0]]\n", 0, 15),
    ("feeding.p5.standard[0]", "[feeding.p5]\nstandard = [{v}, 0, 0, 0]\n", 0, 15),
    ("feeding.p6.standard[0]", "[feeding.p6]\nstandard = [{v}, 0, 0, 0, 0]\n", 0, 15),
    ("flags.tentacle_capacity.3", "[flags]\ntentacle_capacity = {{ 3 = {v} }}\n", 0, 15),
    ("flags.tentacle_capacity.4", "[flags]\ntentacle_capacity = {{ 4 = {v} }}\n", 0, 10),
    ("feeding.frugality_fewer", "[feeding]\nfrugality_fewer = {v}\n", 0, 45),
    ("feeding.parasitism_fewer", "[feeding]\nparasitism_fewer = {v}\n", 0, 45),
    ("feeding.parasitism_victim_pays", "[feeding]\nparasitism_victim_pays = {v}\n", 0, 100000),
    ("score.amoeba_advance[7]", "[score]\namoeba_advance = [0, 0, 0, 1, 2, 4, 5, {v}]\n", 0, 250),
    ("score.gene_advance[1]", "[score]\ngene_advance = [0, {v}]\n", 0, 250),
    (f"{GENE}.price", f"[{GENE}]\nprice = {{v}}\n", 0, 32767),
    (f"{GENE}.mp", f"[{GENE}]\nmp = {{v}}\ndefect_payment = 4\n", -25, 25),
    (f"{GENE}.copies.3", f"[{GENE}]\ncopies = {{{{ 3 = {{v}} }}}}\n", 0, 127),
    (f"{GENE}.copies.4", f"[{GENE}]\ncopies = {{{{ 4 = {{v}} }}}}\n", 0, 127),
    (f"{GENE}.weight", f"[{GENE}]\nweight = {{v}}\n", 0, 127),
    (f"{GENE}.defect_payment", f"[{GENE}]\ndefect_payment = {{v}}\n", 0, 32767),
    ("environment.deck[0].ozone", '[environment]\ndeck = [{{ ozone = {v}, drift = "N" }}] * 0\n', 0, 32767),
    ("flags.finish_zone_start", "[flags]\nfinish_zone_start = {v}\n", 1, 32767),
    ("board.spaces", "[board]\nspaces = {v}\n", 1, 127),
    ("board.coordinates[0][0]", "[board]\ncoordinates = [[{v}, 0]] * 0\n", -32768, 32767),
]
# TOML has no array repetition: "[x] * 0" above stands for the default deck / coordinates with
# the first entry replaced.
_DEFAULT_DECK = load_rules().data["environment"]["deck"]
_DEFAULT_COORDINATES = load_rules().data["board"]["coordinates"]


def _toml(template: str, value: int) -> str:
    text = template.format(v=value)
    if "deck = [" in text:
        cards = [f'{{ ozone = {c["ozone"]}, drift = "{c["drift"]}" }}' for c in _DEFAULT_DECK]
        cards[0] = f'{{ ozone = {value}, drift = "N" }}'
        return f"[environment]\ndeck = [{', '.join(cards)}]\n"
    if "coordinates = [" in text:
        rows = [list(xy) for xy in _DEFAULT_COORDINATES]
        rows[0][0] = value
        return f"[board]\ncoordinates = {rows}\n"
    return text


def _write(tmp_path: Path, text: str, name: str = "house.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _error(path: Path) -> str:
    with pytest.raises(RulesError) as caught:
        load_rules(path)
    message = str(caught.value)
    assert "\n" not in message
    return message


def _ids(case: tuple) -> str:
    return case[0]


# --- the bounds derive from the state's dtypes ---------------------------------------------------


def test_bounds_fit_the_state_dtypes() -> None:
    """The worst game at the bounds fits every field it adds up in (allocate_state's dtypes):
    BP (C4, D1), scores (K1-K3, I6), DP (C4, X1, I7), BP paid for defects (E2), cubes (C3, I1),
    the deck and round counters (V1-V4, I9), amoeba spaces (C1-C2), the gene pool (S3, I4)."""
    rules = load_rules().for_players(4)
    st = allocate_state(1, rules)
    top = {name: np.iinfo(getattr(st, name).dtype).max for name in st._fields if name != "finished"}
    P = R.MAX_PLAYERS  # PX: 6 players, the most DP steps a round (R3 from 5 others) and leapfrogs
    assert R.MAX_BP_AMOUNT + R.MAX_ROUNDS * R.MAX_BP_AMOUNT <= top["bp"]
    assert P + R.MAX_ROUNDS * (2 * R.MAX_ADVANCE + P - 1) <= top["score"]
    assert (R.MAX_DEATH_DP - 1) + (2 + 2 * (P - 1) + 2) * R.MAX_DP_STEP <= top["dp"]
    assert R.MAX_ROUNDS * N_GENES * R.MAX_MP <= top["defect_bp_paid"]
    assert R.MAX_ROUNDS * N_GENES <= top["defect_genes_lost"]
    assert R.MAX_CUBES <= min(top["food"], top["supply"])
    assert R.MAX_DECK_CARDS <= min(top["n_cards"], top["deck_pos"], top["card_index"])
    assert R.MAX_ROUNDS <= min(top["round"], top["gene_since"], top["first_bought"])
    assert R.MAX_OZONE <= top["card_ozone"]
    assert R.MAX_SPACES - 1 <= top["space"] and R.MAX_COPIES <= top["pool"]
    assert P * R.MAX_AMOEBAS <= top["occupancy"]
    for field, bound in (
        ("gene_price", R.MAX_PRICE),
        ("gene_mp", R.MAX_MP),
        ("gene_copies", R.MAX_COPIES),
        ("gene_weight", R.MAX_WEIGHT),
        ("gene_defect_payment", R.MAX_DEFECT_PAYMENT),
        ("deck_ozone", R.MAX_OZONE),
        ("amoeba_advance", R.MAX_ADVANCE),
        ("gene_advance", R.MAX_ADVANCE),
        ("meal_shapes", R.MAX_PATTERN_CUBES),
    ):
        assert bound <= np.iinfo(getattr(rules, field).dtype).max, field
    assert R.MAX_OPTIONS == MAX_OPTIONS
    for players in R.PLAYER_COUNTS:  # Tentacle: every carry vector fits the option buffer and 4 bits a colour
        t = R.MAX_TENTACLE_CUBES[str(players)]
        assert math.comb(t + players, players) <= MAX_OPTIONS and t <= 15
        assert t == 15 or math.comb(t + 1 + players, players) > MAX_OPTIONS
    assert R.MAX_SPACES * R.MAX_AMOEBAS <= MAX_OPTIONS  # S6, D2-D4: every space with every number


# --- every key: out of range is a one-line error, the range itself loads ------------------------


@pytest.mark.parametrize("case", KEYS, ids=_ids)
def test_out_of_range_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case) -> None:
    key, template, lo, hi = case
    monkeypatch.chdir(tmp_path)
    for value in (lo - 1, hi + 1, 99999999999999999):
        _write(tmp_path, _toml(template, value))
        assert _error(Path("house.toml")) == (
            f"house.toml: {key}: expected an integer in {lo}..{hi}, got {value}"
        ), value


@pytest.mark.parametrize("case", KEYS, ids=_ids)
def test_the_range_ends_load(tmp_path: Path, case) -> None:
    key, template, lo, hi = case
    for value in (lo, hi):
        if key == "flags.amoebas_per_player" and value == lo:
            text = "[components]\namoebas_per_player = 1\n[score]\namoeba_advance = [0, 1]\n"
        elif key.startswith("flags.amoebas_per_player") and value == hi:  # PX19's table then needs 8 entries
            seven = "[components]\namoebas_per_player = 7\n"
            more = "amoebas_per_player = { 5 = 7 }\n" if key.endswith(".5") else seven
            text = "[flags]\namoeba_score_table_5_6 = [0, 0, 1, 2, 4, 5, 6, 7]\n" + more
        elif key == "board.spaces":
            continue  # the board's arrays must match its size (test_rules_file)
        elif key.startswith("feeding.p") and value == 0:
            continue  # a shape needs a cube (test_rules_file)
        else:
            text = _toml(template, value)
        load_rules(_write(tmp_path, text))


def test_income_overflow_from_the_issue(tmp_path: Path) -> None:
    """D1: the income that overflowed BP to -1,899,626,602 in `soup simulate` is refused."""
    path = _write(tmp_path, "[economy]\nincome = 99999999999999999\n")
    assert _error(path) == (  # named as the file wrote it; the rules keep it as a 5-6 player flag
        f"{path}: economy.income: expected an integer in 0..100000, got 99999999999999999 "
        "(kept as flags.income_bp)"
    )


def test_error_blames_the_file_that_set_the_key(tmp_path: Path) -> None:
    bad = _write(tmp_path, "[life]\nstarvation_dp = 8\n", "bad.toml")
    fine = _write(tmp_path, "[economy]\nincome = 11\n", "fine.toml")
    with pytest.raises(RulesError, match=f"^{bad}: life.starvation_dp: expected an integer in 0..5, got 8$"):
        load_rules(bad, fine)


# --- the deck: only decks the engine can play (V1-V4, W1, I9) -----------------------------------

ONE_CARD = '[environment]\ndeck = [{ ozone = 6, drift = "N" }]\n'
TWO_CARDS = '[environment]\ndeck = [{ ozone = 6, drift = "N" }, { ozone = 9, drift = "none" }]\n'


def test_V3_I9_one_card_deck_is_refused_with_first_round_flip(tmp_path: Path) -> None:
    """V3: with first_round_flip round 1 reveals the second card, so a 1-card deck has none to
    reveal: the engine ended such games after round 1 with I9 broken (rounds <= cards - 1 = 0)."""
    path = _write(tmp_path, ONE_CARD)
    assert _error(path) == (
        f"{path}: environment.deck: expected 2..60 cards (V3: with first_round_flip = true round 1 "
        "already reveals the next card, so a game needs 2; 1 with first_round_flip = false), got 1"
    )
    cards = ", ".join(['{ ozone = 9, drift = "S" }'] * 61)
    too_long = f"[environment]\ndeck = [{cards}]\n"
    assert _error(_write(tmp_path, too_long)).startswith(f"{path}: environment.deck: expected 2..60 cards (")


def test_V4_deck_length_error_blames_the_flag_file_when_it_set_the_flag(tmp_path: Path) -> None:
    """V4: a 1-card deck is fine without first_round_flip; the file that turns the flag back on is named."""
    deck = _write(tmp_path, "first_round_flip = false\n" + ONE_CARD, "deck.toml")
    load_rules(deck)
    flag = _write(tmp_path, "first_round_flip = true\n", "flag.toml")
    with pytest.raises(RulesError, match=f"^{flag}: environment.deck: expected 2..60 cards"):
        load_rules(deck, flag)


@pytest.mark.parametrize(
    ("text", "rounds"),
    [
        ("first_round_flip = false\n" + ONE_CARD, 1),
        (TWO_CARDS, 1),
        ("first_round_flip = false\n" + TWO_CARDS, 2),
    ],
)
def test_V3_V4_W1_shortest_decks_play_with_every_invariant(tmp_path: Path, text: str, rounds: int) -> None:
    """V3/V4, W1: the shortest decks validation accepts end in the round that reveals the last
    card, with every invariant (I9 included) checked after every phase."""
    book = load_rules(_write(tmp_path, text + "\n[flags]\nfinish_zone_start = 32767\n"))
    for players in R.PLAYER_COUNTS:
        b = _play(book, players, games=40)
        assert (b.state.round == rounds).all()


# --- extreme house rules play to the end (the bounds are playable, not only safe) ----------------

PARAMS = parameter_table([load_strategy("random"), load_strategy("greedy")])


def _play(book, players: int, games: int = 24, seed: int = 3) -> B.Batch:
    rules = book.for_players(players)
    seats = np.arange(players) % 2
    b = B.new_batch(rules, PARAMS, seats, seed, np.arange(games), check_invariants=True)
    B.play(b)
    assert B.first_error(b) is None, B.first_error(b)
    assert b.state.finished.all()
    return b


_LONG_DECK = [{"ozone": 32767, "drift": "NESW"[i % 4]} for i in range(60)]
EXTREMES = {
    # Every BP amount, score entry and DP step at its maximum, the longest deck, a finish zone no
    # marker reaches: the longest and richest games the bounds allow.
    "max": {
        "first_round_flip": False,
        "finish_zone_start": 32767,
        "environment": {"deck": _LONG_DECK},
        "components": {"start_bp": 100000, "setup_first_dp": {3: 5, 4: 5}},
        "flags": {"setup_dp_5_6": 5, "amoeba_score_table_5_6": [250] * 7, "price_5_6": {"Speed": 32767}},
        "economy": {"income": 100000},
        "score": {"amoeba_advance": [250] * 8, "gene_advance": [250]},
        "life": {
            "starvation_dp": 5,
            "death_dp": 50,
            "death_dp_life_expectancy": 50,
            "aggression_armor_dp": 5,
            "lost_defense_dp": 5,
        },
        "feeding": {"tentacle_cubes": R.MAX_TENTACLE_CUBES, "parasitism_victim_pays": 100000},
        "genes": {
            "Speed": {"copies": dict.fromkeys(R.PLAYER_COUNTS, 127), "weight": 127, "price": 32767, "mp": 25}
        },
    },
    # Every cube count at its maximum: one colour's cubes may pile up on one space (C3, I1).
    "max-cubes": {
        "components": {"cubes_per_colour": 32767, "cubes_per_space": 32767},
        "life": dict.fromkeys(
            ("excretion", "natural_death_cubes", "violent_death_cubes", "aggression_death_cubes"), 32767
        ),
    },
    # Costs at their maximum: nobody can pay anything but the income.
    "max-costs": {
        "economy": {key: 100000 for key in ("division_cost", "division_cost_division_rate", "attack_cost")}
        | {"active_move_cost": 100000, "escape_cost": 100000, "defense_cost": 100000},
    },
    # Every number at its minimum: no food, no income, free everything, death at 1 DP.
    "min": {
        "components": {
            "cubes_per_colour": 0,
            "cubes_per_space": 0,
            "start_bp": 0,
            "setup_first_dp": {3: 0, 4: 0},
        },
        "flags": {"setup_dp_5_6": 0, "amoeba_score_table_5_6": [0] * 7},
        "economy": dict.fromkeys(
            ("income", "division_cost", "division_cost_division_rate", "active_move_cost"), 0
        )
        | dict.fromkeys(("attack_cost", "escape_cost", "defense_cost"), 0),
        "life": {"death_dp": 1, "death_dp_life_expectancy": 1, "excretion": 0, "starvation_dp": 0},
        "score": {"amoeba_advance": [0] * 8, "gene_advance": [0]},
        "feeding": {"tentacle_cubes": 0, "frugality_fewer": 0, "parasitism_fewer": 0},
        "environment": {"deck": [{"ozone": 0, "drift": "NESW"[i % 4]} for i in range(11)]},
    },
}


@pytest.mark.parametrize("name", list(EXTREMES))
@pytest.mark.parametrize("players", R.PLAYER_COUNTS)
def test_extreme_house_rules_play_with_every_invariant(name: str, players: int) -> None:
    """C3-C4, D1, K1-K3, X1, E2: games at the ends of the ranges play to the end with every
    invariant checked after every phase, and their totals fit (I3, I6)."""
    b = _play(load_rules(overrides=EXTREMES[name]), players, games=12 if name == "max" else 24)
    st = b.state
    assert (st.bp >= 0).all() and (st.score >= 1).all() and (st.dp >= 0).all()
    if name == "max":
        assert (st.round == 60).all()  # V4: one round per card without the first-round flip
        # the income piled up without wrapping (with 5-6 players the 69 cards leave more to buy)
        assert st.bp.max() > (60 * 100000 - 10 * 32767 if players <= 4 else 60 * 100000 // 2)


# --- point 4: house rules at the edges, decided one by one --------------------------------------


@pytest.mark.parametrize(
    "overrides",
    [
        {"genes": {"Division Rate": {"copies": {4: 99, 3: 99}}}},
        {"components": {"cubes_per_colour": 0}},
        {"components": {"cubes_per_colour": 3, "cubes_per_space": 2}},
        {"genes": {"Division Rate": {"copies": {3: 0, 4: 0}}}},
        {"life": {"death_dp": 1}},
        {"life": {"death_dp": 3, "death_dp_life_expectancy": 1}},
        {"finish_zone_start": 1},
        {"board": {"spaces": 1, "neighbours": [[-1, -1, -1, -1]], "coordinates": [[0, 0]]}},
        {"genes": {name: {"price": 0} for name in load_rules().data["genes"]}},
    ],
    ids=[
        "copies-99",
        "no-cubes",
        "food-shortage",
        "no-copies",
        "death-at-1",
        "life-expectancy-shortens",
        "finish-zone-at-1",
        "one-space",
        "free-genes",
    ],
)
def test_S3_C3_X1_edge_house_rules_play_with_every_invariant(overrides: dict) -> None:
    """S3/I4: copies beyond the P a game can hold stay in the pool; C3: with no or few cubes the
    food shortage rule places what there is (everyone starves); X1: death at 1 DP, or a Life
    Expectancy that shortens life; K1/W1: a finish zone the markers start in ends the game after
    round 1; C1/S6: a one-space board (one amoeba placed at setup); G1: free genes. All are
    legitimate house rules and play to the end with every invariant on."""
    for players in R.PLAYER_COUNTS:
        b = _play(load_rules(overrides=overrides), players)
        copies = b.rules.gene_copies[DIVISION_RATE]
        held = b.state.genes[:, :, DIVISION_RATE].sum(axis=1)
        assert (b.state.pool[:, DIVISION_RATE] + held == copies).all()  # I4


# --- meal shapes (M4, F1-F4): no set the engine would cut short ---------------------------------

SHAPE_RULES = [
    {},
    {"substitution_3_1": False},
    {"feeding": {"frugality_fewer": 2, "parasitism_fewer": 2}},
    {"feeding": {"frugality_fewer": 0, "parasitism_fewer": 3}},
    {
        "feeding": {
            "p3": {"substitution": [[6, 0], [3, 3]]},
            "p4": {"substitution": [[6, 0, 0], [3, 3, 0]]},
            "frugality_fewer": 3,
            "parasitism_fewer": 3,
        }
    },
]


@pytest.mark.parametrize("overrides", SHAPE_RULES)
def test_M4_F1_F4_shape_set_sizes_match_the_tables(overrides: dict) -> None:
    """M4, F1-F4: the uncapped count validation uses is the size of every table that fits."""
    book = load_rules(overrides=overrides)
    feeding = book.data["feeding"]
    for players in (3, 4):
        rules = book.for_players(players)
        subs = [[int(x) for x in row] for row in rules.substitution_shapes]
        sizes = V.shape_set_sizes(
            feeding[f"p{players}"]["standard"], subs, feeding["frugality_fewer"], feeding["parasitism_fewer"]
        )
        assert sorted(sizes.values()) == sorted(
            [int(x) for x in rules.n_meal_shapes] + [int(x) for x in rules.n_parasite_shapes]
        )
        assert max(sizes.values()) <= MAX_SHAPES
        both = WITH_SUBSTITUTION | WITH_FRUGALITY
        assert sizes["with Substitution and Frugality"] == rules.n_meal_shapes[both]


def test_M4_F1_shape_sets_over_the_engine_limit_are_refused(tmp_path: Path) -> None:
    """F1/F3: a house rule whose shapes outnumber MAX_SHAPES would lose shapes without a word."""
    path = _write(tmp_path, "[feeding]\nfrugality_fewer = 3\n[feeding.p4]\nstandard = [5, 5, 5]\n")
    assert _error(path) == (
        f"{path}: feeding.p4: expected at most {MAX_SHAPES} meal shapes for one set of feeding genes "
        "(the engine's MAX_SHAPES), got 15 with Parasitism and Substitution and Frugality "
        "(fewer substitution shapes, or a smaller frugality_fewer or parasitism_fewer)"
    )


# --- the command line, as a user runs it --------------------------------------------------------


def _soup(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    exe = shutil.which("soup") or str(Path(sys.executable).parent / "soup")
    env = dict(os.environ)
    return processes.run([exe, *args], cwd=cwd, env=env, timeout=300)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[economy]\nincome = 99999999999999999\n",
            "house.toml: economy.income: expected an integer in 0..100000, got 99999999999999999",
        ),
        (ONE_CARD, "house.toml: environment.deck: expected 2..60 cards (V3: "),
        (
            '[genes."Division Rate"]\ncopies = { 4 = 128 }\n',
            'genes."Division Rate".copies.4: expected an integer in 0..127',
        ),
        (
            "[score]\ngene_advance = [0, 0, 0, 1, 2, 3, 400]\n",
            "score.gene_advance[6]: expected an integer in 0..250, got 400",
        ),
    ],
    ids=["income", "one-card-deck", "copies", "gene-advance"],
)
def test_cli_soup_rules_refuses_with_one_line(tmp_path: Path, text: str, expected: str) -> None:
    """`soup rules FILE` as a user runs it: exit 2, one line on stderr naming file, key and range."""
    _write(tmp_path, text)
    r = _soup("rules", "house.toml", cwd=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], r.stderr


def test_default_rules_comment_names_the_rules_command() -> None:
    """The default rules file names the command that exists (`soup rules FILE`), not a `--show`."""
    text = R.DEFAULT_RULES_PATH.read_text(encoding="utf-8")
    assert "--show" not in text and "`soup rules FILE` validates a house-rules file" in text
