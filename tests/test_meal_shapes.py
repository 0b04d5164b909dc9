"""The meal-shape tables of the rules (M4, F1-F4), built at load time (sim/ursuppe/rules/meal_shapes.py).

The feeding kernels once built these sets in their scratch row at every feeding. The order of the
shapes is the order of the EAT options (ties, random choices), so the tables must hold exactly
what that procedure built: a transliteration of it below is the reference, for every gene
combination, both player counts and house rules that take every path (no Frugality, no (3:1:0),
several cubes fewer, a full set). Rule ids refer to docs/rules.md.
"""

from math import factorial

import numpy as np
import pytest

from sim.ursuppe.engine.state import MAX_OPTIONS
from sim.ursuppe.rules.book import PLAYER_COUNTS, Rules, RulesError, load_rules, meal_option_bound
from sim.ursuppe.rules.meal_shapes import (
    CODE_BITS,
    CODE_MAX,
    MAX_SHAPES,
    MEAL_TABLE,
    N_SHAPE_SETS,
    ONE_MORE_PARASITE_TABLE,
    ONE_MORE_TABLE,
    PARASITE_TABLE,
    WITH_FRUGALITY,
    WITH_SUBSTITUTION,
)

HOUSE_RULES = {
    "default": {},
    "no-frugality-no-3-1": {"substitution_3_1": False, "feeding": {"frugality_fewer": 0}},
    "two-fewer": {"feeding": {"frugality_fewer": 2, "parasitism_fewer": 2}},
    "no-parasitism": {"feeding": {"parasitism_fewer": 0}},
    "full-sets": {
        "feeding": {
            "p3": {"substitution": [[6, 0], [3, 3]]},  # a set of exactly 12 shapes, the engine's maximum
            "p4": {"substitution": [[6, 0, 0], [3, 3, 0]]},
            "frugality_fewer": 3,
            "parasitism_fewer": 3,
        }
    },
}

# --- the reference: the scratch-row procedure of the old feeding kernels, transliterated ----------


def _next_permutation(row: np.ndarray, start: int, k: int) -> bool:
    """The feeding kernels' walk until issue 24: rearrange row[start:start+k] into the next
    lexicographic permutation; False (the row unchanged) after the last."""
    i = k - 2
    while i >= 0 and row[start + i] >= row[start + i + 1]:
        i -= 1
    if i < 0:
        return False
    j = k - 1
    while row[start + j] <= row[start + i]:
        j -= 1
    row[start + i], row[start + j] = row[start + j], row[start + i]
    row[start + i + 1 : start + k] = row[start + i + 1 : start + k][::-1].copy()
    return True


_STRIDE = 8
_NORMAL = 0
_PARASITE = MAX_SHAPES * _STRIDE
_TMP = 2 * MAX_SHAPES * _STRIDE


def _old_add_shape(row: np.ndarray, base: int, count: int, k: int) -> int:
    row[_TMP : _TMP + k] = sorted(row[_TMP : _TMP + k])
    if row[_TMP : _TMP + k].sum() <= 0:
        return count
    for s in range(count):
        if np.array_equal(row[base + s * _STRIDE : base + s * _STRIDE + k], row[_TMP : _TMP + k]):
            return count
    if count >= MAX_SHAPES:
        return count
    row[base + count * _STRIDE : base + count * _STRIDE + k] = row[_TMP : _TMP + k]
    return count + 1


def _old_add_reduced(row: np.ndarray, src: int, n_src: int, dst: int, n_dst: int, k: int, fewer: int) -> int:
    lo, hi, cur_base = 0, n_src, src
    for _ in range(fewer):
        start = n_dst
        for s in range(lo, hi):
            for j in range(k):
                if row[cur_base + s * _STRIDE + j] > 0:
                    row[_TMP : _TMP + k] = row[cur_base + s * _STRIDE : cur_base + s * _STRIDE + k]
                    row[_TMP + j] -= 1
                    n_dst = _old_add_shape(row, dst, n_dst, k)
        cur_base, lo, hi = dst, start, n_dst
    return n_dst


def _read(row: np.ndarray, base: int, n: int, k: int) -> list[tuple[int, ...]]:
    return [tuple(int(x) for x in row[base + s * _STRIDE : base + s * _STRIDE + k]) for s in range(n)]


def _old_sets(rules: Rules, c: int) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
    """(normal, parasite) shapes as _build_shapes and meal_options built them for gene set ``c``."""
    k = rules.players - 1
    row = np.zeros(_TMP + _STRIDE, np.int32)
    row[_TMP : _TMP + k] = rules.standard_shape
    n = _old_add_shape(row, _NORMAL, 0, k)
    if c & WITH_SUBSTITUTION:
        for shape in rules.substitution_shapes:
            row[_TMP : _TMP + k] = shape
            n = _old_add_shape(row, _NORMAL, n, k)
    if c & WITH_FRUGALITY and rules.frugality_fewer > 0:
        n = _old_add_reduced(row, _NORMAL, n, _NORMAL, n, k, rules.frugality_fewer)
    normal = _read(row, _NORMAL, n, k)
    # meal_options walked every normal shape through all its arrangements (_add_arrangements)
    # before it built the parasite set from them
    for s in range(n):
        while _next_permutation(row, _NORMAL + s * _STRIDE, k):
            pass
    n_par = 0
    if rules.parasitism_fewer > 0:
        n_par = _old_add_reduced(row, _NORMAL, n, _PARASITE, 0, k, rules.parasitism_fewer)
    return normal, _read(row, _PARASITE, n_par, k)


# --- the tables ----------------------------------------------------------------------------------


def _shapes(table: np.ndarray, sizes: np.ndarray, c: int) -> list[tuple[int, ...]]:
    return [tuple(int(x) for x in row) for row in table[c, : sizes[c]]]


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("house", list(HOUSE_RULES))
def test_M4_F1_F2_F4_tables_equal_the_per_feeding_procedure(house: str, players: int) -> None:
    """M4, F1-F4: every shape set, in order, is what the kernels built at each feeding."""
    rules = load_rules(overrides=HOUSE_RULES[house]).for_players(players)
    for name, table in (("meal_shapes", rules.meal_shapes), ("parasite_shapes", rules.parasite_shapes)):
        assert table.dtype == np.int8 and table.shape == (N_SHAPE_SETS, MAX_SHAPES, players - 1), name
    for c in range(N_SHAPE_SETS):
        normal, parasite = _old_sets(rules, c)
        assert _shapes(rules.meal_shapes, rules.n_meal_shapes, c) == normal, c
        assert _shapes(rules.parasite_shapes, rules.n_parasite_shapes, c) == parasite, c
        assert not rules.meal_shapes[c, rules.n_meal_shapes[c] :].any()
        assert not rules.parasite_shapes[c, rules.n_parasite_shapes[c] :].any()


def test_house_rules_take_every_path() -> None:
    """F1, F4: the variants above reach a full set and sets without Parasitism shapes."""
    for players in PLAYER_COUNTS:
        full = load_rules(overrides=HOUSE_RULES["full-sets"]).for_players(players)
        assert full.n_meal_shapes[WITH_SUBSTITUTION | WITH_FRUGALITY] == MAX_SHAPES
    plain = load_rules(overrides=HOUSE_RULES["no-parasitism"]).for_players(4)
    assert not plain.n_parasite_shapes.any()


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_F1_without_frugality_fewer_sets_equal_the_sets_without_frugality(players: int) -> None:
    """F1 with frugality_fewer = 0, F2 with substitution_3_1 = false: Frugality adds no shape."""
    rules = load_rules(overrides=HOUSE_RULES["no-frugality-no-3-1"]).for_players(players)
    for c in (0, WITH_SUBSTITUTION):
        assert _shapes(rules.meal_shapes, rules.n_meal_shapes, c | WITH_FRUGALITY) == _shapes(
            rules.meal_shapes, rules.n_meal_shapes, c
        )
    if players == 4:
        assert _shapes(rules.meal_shapes, rules.n_meal_shapes, WITH_SUBSTITUTION) == [(1, 1, 1), (0, 2, 2)]


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_M4_set_0_is_the_standard_shape_alone(players: int) -> None:
    """M4 (and A1, which reads set 0): without Substitution and Frugality only the standard pattern."""
    rules = load_rules().for_players(players)
    assert rules.n_meal_shapes[0] == 1
    assert rules.meal_shapes[0, 0].tolist() == sorted(rules.standard_shape.tolist())


def test_F3_both_genes_in_option_order() -> None:
    """F3: with both genes, 4 players (1:1:1) (2:2:0) (3:1:0) (1:1:0) (2:1:0) (3:0:0) and 3 players
    (2:1) (4:0) (1:1) (2:0) (3:0), each sorted ascending, in the order of the EAT options."""
    both = WITH_SUBSTITUTION | WITH_FRUGALITY
    four, three = load_rules().for_players(4), load_rules().for_players(3)
    assert _shapes(four.meal_shapes, four.n_meal_shapes, both) == [
        (1, 1, 1),
        (0, 2, 2),
        (0, 1, 3),
        (0, 1, 1),
        (0, 1, 2),
        (0, 0, 3),
    ]
    # Frugality reads the ascending (1, 2): one fewer of the first count before the second
    assert _shapes(three.meal_shapes, three.n_meal_shapes, both) == [(1, 2), (0, 4), (0, 2), (1, 1), (0, 3)]


def test_F4_parasite_set_reads_the_last_arrangements() -> None:
    """F4 with 3 players: the standard (2:1) one cube fewer, read as (2, 1) (the last arrangement
    the kernel's walk leaves), gives (1:1) before (2:0); read ascending it would be the reverse."""
    three = load_rules().for_players(3)
    assert _shapes(three.parasite_shapes, three.n_parasite_shapes, 0) == [(1, 1), (0, 2)]


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_M4_F4_meal_options_never_overflow(players: int) -> None:
    """M4, F4, PX12-PX13: every arrangement of every shape, for a meal without and with each
    possible victim, fits in one decision, so a feeding always walks every normal shape to its
    last arrangement before it reads the parasite set (what the tables assume). With 3-4 players
    any rules fit; with 5-6 players (shapes over 4-5 foreign colours) the rules loader checks the
    bound (meal_option_bound) and the default rules keep it."""
    if players <= 4:
        assert MAX_SHAPES * factorial(players - 1) * players <= MAX_OPTIONS
    book = load_rules()
    feeding = book.data["feeding"]
    rules = book.for_players(players)
    subs = [[int(x) for x in row] for row in rules.substitution_shapes]
    bound = meal_option_bound(
        feeding[f"p{players}"]["standard"],
        subs,
        feeding["frugality_fewer"],
        feeding["parasitism_fewer"],
        players,
    )
    assert bound <= MAX_OPTIONS


def test_PX13_meal_option_bound_refuses_house_rules_that_overflow() -> None:
    """PX13, §5: a house rule whose 6-player meals would not fit the option buffer is refused on
    load (one line naming the key); restricted to 3-4 players it loads."""
    rule = {
        "feeding": {
            "p6": {"substitution": [[3, 1, 1, 0, 0], [2, 2, 1, 0, 0], [2, 1, 1, 1, 0]]},
            "frugality_fewer": 3,
            "parasitism_fewer": 3,
        }
    }
    with pytest.raises(RulesError, match=r"^<overrides>: feeding.p(5|6): expected at most "):
        load_rules(overrides=rule)
    load_rules(overrides={**rule, "components": {"player_counts": [3, 4]}})


# --- Glutton (XG-02) -----------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_XG02_glutton_sets_are_every_shape_with_one_cube_more(players: int) -> None:
    """XG-02: Glutton's set c is set c's shapes each with one foreign cube more in any place (the
    modifiers of F1-F4 add), sorted ascending, no duplicates; its parasite set those with
    Parasitism's cubes fewer; set 0 starts with the standard pattern plus one."""
    rules = load_rules().for_players(players)
    k = players - 1
    for c in range(N_SHAPE_SETS):
        normal = _shapes(rules.meal_shapes, rules.n_meal_shapes, c)
        glutton = _shapes(rules.glutton_shapes, rules.n_glutton_shapes, c)
        expected = set()
        for shape in normal:
            for j in range(k):
                bigger = list(shape)
                bigger[j] += 1
                expected.add(tuple(sorted(bigger)))
        assert set(glutton) == expected and len(glutton) == len(expected), c
        assert all(list(s) == sorted(s) for s in glutton)
        parasite = _shapes(rules.glutton_parasite_shapes, rules.n_glutton_parasite_shapes, c)
        assert parasite and all(sum(s) <= max(map(sum, glutton)) - rules.parasitism_fewer for s in parasite)
    if players == 4:
        assert _shapes(rules.glutton_shapes, rules.n_glutton_shapes, 0) == [(1, 1, 2)]
        # Frugality's (1:1:0) plus Glutton's cube is the standard (1:1:1) again
        assert (1, 1, 1) in _shapes(rules.glutton_shapes, rules.n_glutton_shapes, WITH_FRUGALITY)


# --- the arrangement codes the feeding kernels read (issue 24) -----------------------------------


def _walk(shape: np.ndarray) -> list[tuple[int, ...]]:
    """Every arrangement of ``shape`` as the kernels' walk visited them at every feeding."""
    row = np.array(shape, np.int32)
    found = [tuple(int(x) for x in row)]
    while _next_permutation(row, 0, len(row)):
        found.append(tuple(int(x) for x in row))
    return found


def _unpack(code: int, k: int) -> tuple[int, ...]:
    return tuple((int(code) >> (CODE_BITS * j)) & CODE_MAX for j in range(k))


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("house", list(HOUSE_RULES))
def test_M4_F4_XG02_codes_list_the_walk_of_every_shape(house: str, players: int) -> None:
    """M4, F1-F4, XG-02: each code table set is every arrangement of every shape of its set, in
    the order the kernels' walk listed them (the EAT options' order)."""
    rules = load_rules(overrides=HOUSE_RULES[house]).for_players(players)
    k = players - 1
    tables = {
        MEAL_TABLE: (rules.meal_shapes, rules.n_meal_shapes),
        PARASITE_TABLE: (rules.parasite_shapes, rules.n_parasite_shapes),
        ONE_MORE_TABLE: (rules.glutton_shapes, rules.n_glutton_shapes),
        ONE_MORE_PARASITE_TABLE: (rules.glutton_parasite_shapes, rules.n_glutton_parasite_shapes),
    }
    for t, (table, sizes) in tables.items():
        for c in range(N_SHAPE_SETS):
            walked = [a for s in range(sizes[c]) for a in _walk(table[c, s])]
            n = rules.n_meal_codes[t, c]
            assert [_unpack(code, k) for code in rules.meal_codes[t, c, :n]] == walked, (t, c)


def test_M4_TB1_codes_of_the_inedible_reading() -> None:
    """TB1 (flag double2_eat_partner_colour false): the codes are the 3-player shapes' with a 0
    for the partner's column, as the shape tables."""
    rules = load_rules(overrides={"flags": {"double2_eat_partner_colour": False}}).for_players(2, "double2")
    n = rules.n_meal_codes[MEAL_TABLE, 0]
    assert [_unpack(code, 3) for code in rules.meal_codes[MEAL_TABLE, 0, :n]] == _walk(
        rules.meal_shapes[0, 0]
    )
