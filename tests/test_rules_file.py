"""The rules loader: defaults, house rules, overrides, the numpy Rules, and one-line errors.

Rule ids (S3, K2, B1, R3, ...) refer to docs/rules.md; §7 is the gene table, §10 the flags.
"""

from pathlib import Path

import numpy as np
import pytest

from sim.ursuppe.engine.board import CHOICE, EAST, NORTH, SOUTH, STAY, WEST
from sim.ursuppe.engine.genes.armor import ARMOR
from sim.ursuppe.engine.genes.defense import DEFENSE
from sim.ursuppe.engine.genes.division_rate import DIVISION_RATE
from sim.ursuppe.engine.genes.escape import ESCAPE
from sim.ursuppe.engine.genes.persistence import PERSISTENCE
from sim.ursuppe.engine.genes.speed import SPEED
from sim.ursuppe.rules.book import (
    DEFAULT_RULES_PATH,
    FLAG_ROW,
    FLAG_ROWS,
    MODULE_SWITCHES,
    OVERRIDES_LABEL,
    RuleBook,
    Rules,
    RulesError,
    load_rules,
    played_data,
)
from sim.ursuppe.rules.genes import (
    ADVANCED_GENES,
    GENE_NAMES,
    N_BASE_GENES,
    N_GENES,
    NUMBER_ONLY_GENES,
    RAY_PROTECTION,
)

DTYPES = {
    "neighbours": np.int8,
    "neighbour_mask": np.int64,  # D3's adjacency as masks
    "compass": np.int8,
    "deck_ozone": np.int16,
    "deck_drift": np.int8,
    "amoeba_advance": np.int16,
    "gene_advance": np.int16,
    "standard_shape": np.int8,
    "substitution_shapes": np.int8,
    "meal_shapes": np.int8,
    "n_meal_shapes": np.int8,
    "parasite_shapes": np.int8,
    "n_parasite_shapes": np.int8,
    "glutton_shapes": np.int8,  # XG-02
    "n_glutton_shapes": np.int8,
    "glutton_parasite_shapes": np.int8,
    "n_glutton_parasite_shapes": np.int8,
    "meal_codes": np.int64,  # every arrangement of every shape set, packed (M4, F1-F4)
    "n_meal_codes": np.int16,
    "gene_price": np.int16,
    "gene_mp": np.int16,
    "gene_copies": np.int8,
    "gene_weight": np.int8,
    "gene_defect_payment": np.int16,
    "gene_lower": np.int8,
    "gene_blocks": np.int64,
    "priced_within": np.int64,  # the genes x BP buy (G1)
    "advanced_genes": np.int8,  # G4's mask looks at these only
    "side": np.int8,  # the colours of one player (double play, §17)
    "team": np.int8,
    "partner": np.int8,
    "inedible": np.int8,
    "extra_start": np.int8,
    "extra_deck": np.int8,
    "xflag": np.int16,
    "gift": np.int8,  # soup combos: genes given at setup (-1: none)
}


def write(tmp_path: Path, text: str, name: str = "house.toml") -> Path:
    """A small TOML file under tmp_path."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def shapes(rules: Rules) -> list[tuple[int, ...]]:
    """Substitution shapes as tuples."""
    return [tuple(int(x) for x in row) for row in rules.substitution_shapes]


@pytest.fixture(scope="module")
def book() -> RuleBook:
    return load_rules()


# --- the default rules --------------------------------------------------------------------


def test_default_loads(book: RuleBook) -> None:
    assert book.name == "ursuppe-base"
    assert book.sources == [str(DEFAULT_RULES_PATH)]
    assert book.placeholder_deck is True
    assert len(book.rules_id) == 12 and int(book.rules_id, 16) >= 0
    assert book.deck_description().startswith("11 cards (PLACEHOLDER deck): 6W 8E 9S 10W 10N 11- ")


@pytest.mark.parametrize("players", [3, 4])
def test_for_players_dtypes_shapes_and_scalars(book: RuleBook, players: int) -> None:
    rules = book.for_players(players)
    for field, dtype in DTYPES.items():
        array = getattr(rules, field)
        assert array.dtype == dtype, field
        assert array.flags.c_contiguous, field
    assert rules.neighbours.shape == (19, 4)
    assert rules.standard_shape.shape == (players - 1,)
    assert rules.substitution_shapes.shape[1] == players - 1
    assert rules.gene_lower.shape == (N_GENES, 2)
    for field, value in zip(Rules._fields, rules, strict=True):
        if field not in DTYPES:
            assert type(value) in (int, bool), field
    assert type(rules.first_round_flip) is bool and type(rules.finish_zone_start) is int


def test_s3_copies_20_with_3_players_and_30_with_4(book: RuleBook) -> None:
    """§7/S3: the gene deck has 20 cards with 3 players and 30 with 4."""
    assert int(book.for_players(3).gene_copies.sum()) == 20
    assert int(book.for_players(4).gene_copies.sum()) == 30


def test_k2_advance_tables(book: RuleBook) -> None:
    """K2: advance by amoebas on the board (0..7) and by weighted gene count."""
    rules = book.for_players(4)
    assert rules.amoeba_advance.tolist() == [0, 0, 0, 1, 2, 4, 5, 6]
    assert len(rules.amoeba_advance) == rules.amoebas_per_player + 1
    assert rules.gene_advance.tolist() == [0, 0, 0, 1, 2, 3, 4]


def test_e2_k2_ray_protection_and_advanced_weights(book: RuleBook) -> None:
    """E2: Ray Protection pays 4 against a deficit although its MP is -2; K2: it weighs 0, advanced 2."""
    rules = book.for_players(3)
    assert rules.gene_mp[RAY_PROTECTION] == -2
    assert rules.gene_defect_payment[RAY_PROTECTION] == 4
    assert rules.gene_weight[RAY_PROTECTION] == 0
    for gene in ADVANCED_GENES:
        assert rules.gene_weight[gene] == 2
    # the base genes (the extra genes' exceptions: tests/test_extra_genes.py)
    others = [g for g in range(N_BASE_GENES) if g not in ADVANCED_GENES and g != RAY_PROTECTION]
    assert all(rules.gene_weight[g] == 1 for g in others)
    # defect_payment defaults to mp when absent
    assert all(rules.gene_defect_payment[g] == rules.gene_mp[g] for g in others)


def test_g3_lower_genes(book: RuleBook) -> None:
    """G3: an advanced gene gives up its lower gene(s); -1 padded, in the listed order."""
    lower = book.for_players(4).gene_lower
    assert lower[PERSISTENCE].tolist() == [SPEED, -1]
    assert lower[ARMOR].tolist() == [DEFENSE, ESCAPE]
    assert all(lower[g].tolist() == [-1, -1] for g in range(N_GENES) if g not in ADVANCED_GENES)


def test_g4_genes_blocked_by_an_advanced_gene(book: RuleBook) -> None:
    """G4: holding an advanced gene blocks buying its lower gene(s): one bit mask per gene."""
    blocks = book.for_players(4).gene_blocks
    assert blocks[PERSISTENCE] == 1 << SPEED
    assert blocks[ARMOR] == (1 << DEFENSE) | (1 << ESCAPE)
    assert all(blocks[g] == 0 for g in range(N_GENES) if g not in ADVANCED_GENES)


def test_s6_setup_dp_and_tentacle_by_player_count(book: RuleBook) -> None:
    """S6: the first placed amoeba gets 0 DP with 3 players, 1 with 4; Tentacle carries 2 / 3 cubes."""
    three, four = book.for_players(3), book.for_players(4)
    assert (three.setup_first_dp, four.setup_first_dp) == (0, 1)
    assert (three.tentacle_cubes, four.tentacle_cubes) == (2, 3)


def test_m4_f2_feeding_shapes(book: RuleBook) -> None:
    """M4/F2: standard (2:1) and (1:1:1); substitution (4:0), and (2:2:0), (3:1:0) with 4 players."""
    three, four = book.for_players(3), book.for_players(4)
    assert three.standard_shape.tolist() == [2, 1]
    assert four.standard_shape.tolist() == [1, 1, 1]
    assert shapes(three) == [(4, 0)]
    assert shapes(four) == [(2, 2, 0), (3, 1, 0)]


def test_b1_neighbours_symmetric_with_26_edges(book: RuleBook) -> None:
    """B1: the board's neighbour table is symmetric and has 26 edges."""
    nb = book.for_players(3).neighbours
    opposite = {NORTH: SOUTH, SOUTH: NORTH, EAST: WEST, WEST: EAST}
    edges = set()
    for a in range(nb.shape[0]):
        for d in range(4):
            b = int(nb[a, d])
            if b >= 0:
                assert nb[b, opposite[d]] == a
                edges.add(frozenset((a, b)))
    assert len(edges) == 26


def test_b2_compass(book: RuleBook) -> None:
    """B2: faces 1..6 -> W, N, E, S, stay, choice; index 0 unused (= STAY)."""
    assert book.for_players(4).compass.tolist() == [STAY, WEST, NORTH, EAST, SOUTH, STAY, CHOICE]


def test_v1_deck_arrays(book: RuleBook) -> None:
    """V1: ozone and drift per card; no drift = 4."""
    rules = book.for_players(3)
    assert rules.deck_ozone.tolist()[:3] == [6, 8, 9]
    assert rules.deck_drift.tolist()[:6] == [WEST, EAST, SOUTH, WEST, NORTH, STAY]  # V5: (6,W) first


def test_for_players_builds_fresh_arrays(book: RuleBook) -> None:
    first = book.for_players(4)
    first.gene_price[0] = 99
    assert book.for_players(4).gene_price[0] == 2


def test_as_dict_is_a_deep_copy(book: RuleBook) -> None:
    data = book.as_dict()
    data["genes"]["Intelligence"]["price"] = 99
    assert book.data["genes"]["Intelligence"]["price"] == 2
    assert list(data["genes"]) == list(GENE_NAMES[: NUMBER_ONLY_GENES[0]])  # no number-only gene declared
    assert data["genes"]["Intelligence"]["weight"] == 1  # defaults filled in


# --- house rules and overrides ------------------------------------------------------------


def test_house_rule_changes_one_gene_price_only(tmp_path: Path, book: RuleBook) -> None:
    path = write(tmp_path, '[genes."Division Rate"]\nprice = 5\n')
    house = load_rules(path)
    assert house.sources == [str(DEFAULT_RULES_PATH), str(path)]
    for players in (3, 4):
        base, new = book.for_players(players), house.for_players(players)
        assert new.gene_price[DIVISION_RATE] == 5
        expected = base.gene_price.copy()
        expected[DIVISION_RATE] = 5
        assert np.array_equal(new.gene_price, expected)
        for field in Rules._fields:
            if field not in ("gene_price", "priced_within"):
                assert np.array_equal(getattr(new, field), getattr(base, field)), field
        for x, genes in enumerate(new.priced_within):  # G1: what x BP buy follows the prices
            assert genes == sum(1 << i for i, price in enumerate(new.gene_price) if price <= x)
    changed = house.as_dict()
    changed["genes"]["Division Rate"]["price"] = 6
    assert changed == book.data


def test_house_rule_alias_endurance(tmp_path: Path) -> None:
    """§7: "Endurance" is another name for Persistence."""
    house = load_rules(write(tmp_path, '[genes."Endurance"]\nprice = 7\n'))
    assert house.for_players(3).gene_price[PERSISTENCE] == 7


def test_house_rule_mp_change_moves_default_defect_payment(tmp_path: Path) -> None:
    house = load_rules(write(tmp_path, '[genes."Speed"]\nmp = 1\n'))
    assert house.for_players(3).gene_defect_payment[SPEED] == 1


@pytest.mark.parametrize(
    "text",
    ["substitution_3_1 = false\n", "[flags]\nsubstitution_3_1 = false\n"],
    ids=["top-level-shorthand", "flags-table"],
)
def test_f2_flag_drops_3_1_0(tmp_path: Path, text: str) -> None:
    """F2: with substitution_3_1 = false the (3:1:0) pattern is not allowed with 4 players."""
    house = load_rules(write(tmp_path, text))
    assert house.data["flags"]["substitution_3_1"] is False
    assert shapes(house.for_players(4)) == [(2, 2, 0)]
    assert shapes(house.for_players(3)) == [(4, 0)]


def test_f2_flag_with_no_shapes_left(tmp_path: Path) -> None:
    text = "substitution_3_1 = false\n[feeding.p4]\nsubstitution = [[3, 1, 0]]\n"
    rules = load_rules(write(tmp_path, text)).for_players(4)
    assert rules.substitution_shapes.shape == (0, 3)
    assert rules.substitution_shapes.dtype == np.int8


ISSUE_11_FLAGS = {
    "answers_once_per_round": False,
    "attack_only_when_starving": False,
    "armor_blocks_own_attacks": True,
    "clinging_after_first_step": False,
    "persistence_copies_4p": 1,
    "gene_meals_optional": False,
    "aggression_lost_fight_dp": True,  # R4 (issue 20)
    "persistence_after_clinging": False,  # A3 (issue 20)
}


def test_disputed_readings_are_flags_with_the_defaults_of_section_10(book: RuleBook) -> None:
    """§10: A1, A2-A4, Holding, §7 and M4's disputed readings, defaults first."""
    for name, default in ISSUE_11_FLAGS.items():
        assert book.data["flags"][name] == default and type(book.data["flags"][name]) is type(default)
        if name != "persistence_copies_4p":
            assert getattr(book.for_players(4), name) is default


@pytest.mark.parametrize("name", [n for n in ISSUE_11_FLAGS if n != "persistence_copies_4p"])
def test_disputed_reading_flags_at_top_level_or_in_flags(tmp_path: Path, name: str) -> None:
    other = not ISSUE_11_FLAGS[name]
    value = str(other).lower()
    for text in (f"{name} = {value}\n", f"[flags]\n{name} = {value}\n"):
        assert getattr(load_rules(write(tmp_path, text)).for_players(3), name) is other
    assert getattr(load_rules(overrides={name: other}).for_players(4), name) is other


def test_persistence_copies_4p_sets_the_4_player_copies(tmp_path: Path) -> None:
    """§7/§10: the flag and genes.Persistence.copies.4 are one number: the source that set one
    last wins, and both are written with it (one rules id whichever key was used)."""
    flag = load_rules(write(tmp_path, "persistence_copies_4p = 2\n"))
    assert flag.for_players(4).gene_copies[PERSISTENCE] == 2
    assert flag.for_players(3).gene_copies[PERSISTENCE] == 1
    assert flag.data["genes"]["Persistence"]["copies"] == {"3": 1, "4": 2, "5": 2, "6": 2}
    table = load_rules(write(tmp_path, '[genes."Endurance"]\ncopies = { 3 = 1, 4 = 2 }\n', "t.toml"))
    assert table.data["flags"]["persistence_copies_4p"] == 2
    assert table.rules_id == flag.rules_id
    # soup ablate's overrides come last: 0 copies win over a house rule's flag
    ablated = load_rules(
        write(tmp_path, "persistence_copies_4p = 2\n"),
        overrides={"genes": {"Persistence": {"copies": {"3": 0, "4": 0}}}},
    )
    assert ablated.for_players(4).gene_copies[PERSISTENCE] == 0
    assert ablated.data["flags"]["persistence_copies_4p"] == 0
    # a later file's flag wins over an earlier file's table
    later = load_rules(
        write(tmp_path, "[genes.Persistence]\ncopies = { 3 = 1, 4 = 3 }\n", "a.toml"),
        write(tmp_path, "persistence_copies_4p = 2\n", "b.toml"),
    )
    assert later.for_players(4).gene_copies[PERSISTENCE] == 2


def test_persistence_copies_4p_and_the_table_disagreeing_in_one_file(tmp_path: Path) -> None:
    text = "persistence_copies_4p = 2\n[genes.Persistence]\ncopies = { 3 = 1, 4 = 3 }\n"
    with pytest.raises(RulesError) as err:
        load_rules(write(tmp_path, text))
    assert str(err.value) == (
        f"{tmp_path / 'house.toml'}: flags.persistence_copies_4p: expected the same number as "
        "genes.Persistence.copies.4 (both set Persistence's 4-player copies), got 2 and 3"
    )


def test_arrays_are_replaced_whole(tmp_path: Path) -> None:
    deck = '[{ ozone = 9, drift = "none" }, { ozone = 7, drift = "W" }]'
    text = f"[environment]\nplaceholder = false\ndeck = {deck}\n"
    house = load_rules(write(tmp_path, text))
    assert house.for_players(3).deck_ozone.tolist() == [9, 7]
    assert house.deck_description() == "2 cards: 9- 7W"
    assert house.placeholder_deck is False


def test_files_merge_in_order_then_overrides(tmp_path: Path) -> None:
    first = write(tmp_path, "[economy]\nincome = 12\ndivision_cost = 7\n", "a.toml")
    second = write(tmp_path, "[economy]\nincome = 11\n", "b.toml")
    house = load_rules(first, None, second, overrides={"economy": {"division_cost": 8}})
    rules = house.for_players(3)
    assert (rules.income, rules.division_cost) == (11, 8)
    assert house.sources == [str(DEFAULT_RULES_PATH), str(first), str(second), OVERRIDES_LABEL]


def test_overrides_dict_shorthand_and_gene_field() -> None:
    """The form scenario files use."""
    house = load_rules(overrides={"substitution_3_1": False, "genes": {"Division Rate": {"price": 5}}})
    rules = house.for_players(4)
    assert rules.gene_price[DIVISION_RATE] == 5
    assert shapes(rules) == [(2, 2, 0)]
    assert house.sources[-1] == OVERRIDES_LABEL


def test_overrides_accept_int_player_keys() -> None:
    house = load_rules(overrides={"feeding": {"tentacle_cubes": {4: 4}}})
    assert (house.for_players(3).tentacle_cubes, house.for_players(4).tentacle_cubes) == (2, 4)


def test_rules_id_stable_and_content_based(tmp_path: Path, book: RuleBook) -> None:
    assert load_rules().rules_id == book.rules_id
    same = load_rules(
        overrides={"genes": {"Intelligence": {"price": 2}}, "flags": {"substitution_3_1": True}}
    )
    assert same.rules_id == book.rules_id
    changed = load_rules(write(tmp_path, '[genes."Intelligence"]\nprice = 3\n'))
    assert changed.rules_id != book.rules_id
    assert load_rules(overrides={"genes": {"Intelligence": {"price": 3}}}).rules_id == changed.rules_id
    assert load_rules(overrides={"first_round_flip": False}).rules_id != book.rules_id


def _another_value(name: str, default: object) -> object:
    """A valid value of flag ``name`` other than its ``default`` (book.FLAG_ROW says what it may be)."""
    row = FLAG_ROW[name]
    if row.kind == "extra_genes":  # XM2, XM8: the start pair and the excluded genes
        return ["Glutton", "Alarm"] if name == "extra_start_pair" else ["Healing 1"]
    flag = row.args[0] if row.kind == "extra_flag" else None
    if isinstance(default, bool):
        return not default
    if isinstance(default, int):
        lo, hi = row.args if flag is None else (flag.lo, flag.hi)
        return default + 1 if default < hi else default - 1
    if isinstance(default, str):
        choices = row.args[0] if flag is None else flag.choices
        return next(c for c in choices if c != default)
    return list(default)[:-1] if len(default) > 1 else [c for c in flag.choices if c not in default][:1]


# The game in which each group's flags are read (FlagRow.group): 5 players for the PX flags
_GAME_OF_GROUP = {
    "base": (4, None),
    "PX": (5, None),
    "XM": (4, None),
    "TD": (2, "dummy"),
    "TB": (2, "double2"),
}


def test_flag_rows_set_their_rules_fields(book: RuleBook) -> None:
    """§10, PX, TD, TB, XM1 (issue 35.5: a flag said once): a flag with a Rules field
    (FlagRow.field) sets that field in its group's games as it reads (a by_players flag at the
    game's count; with ``when``, whether the choice reads it), and another value changes it."""
    rows = [r for r in FLAG_ROWS if r.field]
    assert {r.group for r in rows} <= set(_GAME_OF_GROUP) and len(rows) >= 20
    for row in rows:
        players, variant = _GAME_OF_GROUP[row.group]
        default = book.data["flags"][row.name]
        if row.kind == "by_players":
            value = {**default, str(players): default[str(players)] - 1}
            expected = value[str(players)]
        else:
            value = _another_value(row.name, default)
            expected = value == row.when if row.when is not None else value
        rules = load_rules(overrides={"flags": {row.name: value}}).for_players(players, variant)
        before = getattr(book.for_players(players, variant), row.field)
        assert getattr(rules, row.field) == expected != before, row.name


def test_rules_id_reads_a_switched_off_modules_flags_at_their_defaults(book: RuleBook) -> None:
    """XM1, issue 31.11: with extra_genes false the extra genes' flags (XM2-XM8, XG-*) change no
    game, so they do not change the rules id (extra_start_pair alone gave the default's games
    another id); with extra_genes true each changes it. The default rules' id is what it was: its
    played data is its data (existing results directories are named by the id)."""
    assert played_data(book.data) == book.data
    on = load_rules(overrides={"flags": {"extra_genes": True}})
    switched = [
        r.name for r in FLAG_ROWS if r.group in MODULE_SWITCHES["extra_genes"] and r.name != "extra_genes"
    ]
    assert "extra_start_pair" in switched and len(switched) > 10
    for name in switched:
        value = _another_value(name, book.data["flags"][name])
        off = load_rules(overrides={"flags": {name: value}})
        assert off.data["flags"][name] == value and off.rules_id == book.rules_id, name
        assert load_rules(overrides={"flags": {"extra_genes": True, name: value}}).rules_id != on.rules_id, (
            name
        )


@pytest.mark.slow
def test_soup_rules_and_simulate_give_a_switched_off_module_the_default_id(tmp_path: Path) -> None:
    """Issue 31.11, as reported: a house-rules file setting the extra genes' start pair (and other
    XM/XG flags) with extra_genes false plays the default's games: `soup rules` shows the default
    id, and `soup simulate` writes the very same rows (rules_id included)."""
    import json

    import polars as pl

    from tests.test_cli import soup

    flags = 'extra_start_pair = ["Glutton", "Alarm"]\nextra_reveal_per_round = 1\nhard_crust_extra_bp = 3\n'
    house = write(tmp_path, f"[flags]\n{flags}")
    assert json.loads(soup("rules", str(house)).stdout)["rules_id"] == load_rules().rules_id
    rows = []
    for name, files in (("default", []), ("house", ["--rules", str(house)])):
        out = tmp_path / name
        args = ["simulate", "--games", "24", "--players", "5", "--threads", "1", "-q", "--out", str(out)]
        r = soup(*args, *files)
        assert r.returncode == 0, r.stderr
        rows.append(pl.read_parquet(sorted(out.glob("**/chunk-*.parquet"))))
    assert len(rows[0]) == 24 * 5 and rows[0].equals(rows[1])


# --- errors: one line, naming the file and the key ----------------------------------------


def error(*paths: Path, overrides: dict | None = None) -> str:
    """The one-line RulesError message of a bad load."""
    with pytest.raises(RulesError) as caught:
        load_rules(*paths, overrides=overrides)
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[flags]\nfinish_zone_strat = 41\n",
            "house.toml: flags.finish_zone_strat: unknown key (expected one of: first_round_flip, "
            "finish_zone_start, substitution_3_1, defense_and_escape_same_attack, holding_clings_to_own, "
            "defect_genes_may_overpay, answers_once_per_round, attack_only_when_starving, "
            "armor_blocks_own_attacks, clinging_after_first_step, persistence_copies_4p, "
            "gene_meals_optional, aggression_lost_fight_dp, persistence_after_clinging, deck_5_6, "
            "setup_dp_5_6, price_5_6, feeding_5_6_substitution, "
            "tentacle_capacity, amoebas_per_player, income_bp, amoeba_score_table_5_6, dummy_policy, "
            "dummy_feeding, dummy_placement, dummy_amoebas_per_round, dummy_scores, dummy_bp, "
            "dummy_le_from_pool, double1_partner_is_opponent, double2_eat_partner_colour, "
            "double2_partner_is_opponent, double2_colour_order, double2_start_bp, double2_income, "
            "double2_division_cost, double2_division_cost_division_rate, extra_genes, extra_start_pair,",
        ),
        (
            'name = "x"\n[boardd]\nspaces = 3\n',
            "house.toml: boardd: unknown key (expected one of: name, flags, board,",
        ),
        (
            '[genes."Division Rate"]\nprice = "six"\n',
            'house.toml: genes."Division Rate".price: expected an integer in 0..32767, got "six"',
        ),
        (
            '[genes."Division Rate"]\nprice = -1\n',
            'house.toml: genes."Division Rate".price: expected an integer in 0..32767, got -1',
        ),
        (
            '[genes."Division Rate"]\nprice = 2.5\n',
            'house.toml: genes."Division Rate".price: expected an integer in 0..32767, got 2.5',
        ),
        (
            "[economy]\nincome = true\n",
            "house.toml: economy.income: expected an integer in 0..100000, got true "
            "(kept as flags.income_bp)",
        ),
        (
            "first_round_flip = 1\n",
            "house.toml: flags.first_round_flip: expected a boolean (true or false), got 1",
        ),
        (
            "[life]\ndeath_dp = 0\n",
            "house.toml: life.death_dp: expected an integer in 1..50, got 0",
        ),
        (
            '[genes."Telepathy"]\nprice = 3\n',
            "house.toml: genes.Telepathy: unknown gene (expected one of: Intelligence, Movement I,",
        ),
        (
            '[genes."Speed"]\ncolour = "red"\n',
            "house.toml: genes.Speed.colour: unknown key (expected one of: price, mp, copies,",
        ),
        (
            '[genes."Speed"]\ngives_up = ["Armor"]\n',
            'house.toml: genes.Speed.gives_up[0]: expected a distinct non-advanced gene other than "Speed"',
        ),
        (
            '[genes."Speed"]\nmp = -1\n',
            "house.toml: genes.Speed.defect_payment: missing key (required when mp is negative; mp = -1)",
        ),
        (
            "[genes.Speed.copies]\n7 = 1\n",
            "house.toml: genes.Speed.copies.7: unknown key (expected one of: 3, 4, 5, 6)",
        ),
        (
            '[environment]\ndeck = [{ ozone = 9, drift = "NE" }, { ozone = 9, drift = "N" }]\n',
            'house.toml: environment.deck[0].drift: expected one of: N, E, S, W, none, got "NE"',
        ),
        (
            "[environment]\ndeck = []\n",
            "house.toml: environment.deck: expected 2..60 cards (V3: with first_round_flip = true round 1 "
            "already reveals the next card, so a game needs 2; 1 with first_round_flip = false), got 0",
        ),
        (
            '[board]\ncompass = ["W", "N", "E", "S", "stay", "up"]\n',
            'house.toml: board.compass[5]: expected one of: N, E, S, W, stay, choice, got "up"',
        ),
        (
            "[components]\namoebas_per_player = 7\n",
            "house.toml: flags.amoeba_score_table_5_6: expected an array of at least 8 entries "
            "(flags.amoebas_per_player + 1), got 7",
        ),
        (
            "[components]\namoebas_per_player = 8\n",
            "house.toml: components.amoebas_per_player: expected an integer in 1..7, got 8 "
            "(kept as flags.amoebas_per_player)",
        ),
        (
            "[components]\nsetup_first_dp = { 3 = -1 }\n",
            "house.toml: components.setup_first_dp.3: expected an integer in 0..5, got -1",
        ),
        (
            "[feeding.p4]\nstandard = [1, 2, 0]\n",
            "house.toml: feeding.p4.standard: expected counts largest first (non-increasing), got [1, 2, 0]",
        ),
        (
            "[feeding.p3]\nsubstitution = [[4, 0, 0]]\n",
            "house.toml: feeding.p3.substitution[0]: expected an array of length 2",
        ),
        (
            "[board]\nspaces = 20\n",
            "house.toml: board.neighbours: expected an array of length 20 (one row per space, "
            "board.spaces), got length 19",
        ),
        (
            "[flags]\nfinish_zone_start = 0\n",
            "house.toml: flags.finish_zone_start: expected an integer in 1..32767, got 0",
        ),
        (
            "board = 5\n",
            "house.toml: board: expected a table, got 5",
        ),
        (
            "substitution_3_1 = false\n[flags]\nsubstitution_3_1 = true\n",
            "house.toml: substitution_3_1: expected one value, got false at top level and true in [flags]",
        ),
    ],
    ids=lambda value: value.splitlines()[0][:40] if isinstance(value, str) else None,
)
def test_bad_house_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, expected: str) -> None:
    write(tmp_path, text)
    monkeypatch.chdir(tmp_path)
    assert error(Path("house.toml")).startswith(expected)


def test_asymmetric_neighbours(tmp_path: Path) -> None:
    """B1: if a's N is b then b's S must be a."""
    text = (
        "[board]\nspaces = 2\ncoordinates = [[0, 0], [0, 1]]\n"
        "neighbours = [[-1, -1, 1, -1], [-1, -1, -1, -1]]\n"
    )
    path = write(tmp_path, text)
    assert error(path) == (
        f"{path}: board.neighbours[0][2]: expected space 1's N neighbour to be 0 "
        "(neighbours must be symmetric), got -1"
    )


def test_neighbour_out_of_range(tmp_path: Path) -> None:
    rows = [[-1, -1, 2, -1]] * 19
    rows[3] = [-1, 40, -1, -1]
    path = write(tmp_path, f"[board]\nneighbours = {rows}\n")
    assert error(path) == f"{path}: board.neighbours[3][1]: expected an integer in -1..18, got 40"


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.toml"
    assert error(path) == f"{path}: cannot read the rules file: No such file or directory"


def test_toml_syntax_error_has_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, "[economy]\nincome = = 3\n")
    message = error(path)
    assert message.startswith(f"{path}: TOML syntax error: ")
    assert "line 2" in message and "column" in message


def test_alias_and_name_together_is_an_error() -> None:
    assert error(overrides={"genes": {"Endurance": {"price": 1}, "Persistence": {"price": 2}}}) == (
        '<overrides>: genes.Persistence: expected one entry, got both "Endurance" and "Persistence"'
    )


def test_bad_overrides_are_labelled() -> None:
    assert error(overrides={"economy": {"income": False}}) == (
        "<overrides>: economy.income: expected an integer in 0..100000, got false (kept as flags.income_bp)"
    )
    assert error(overrides={"genes": {"Division Rate": {"price": -3}}}) == (
        '<overrides>: genes."Division Rate".price: expected an integer in 0..32767, got -3'
    )
    assert error(overrides=["not", "a", "table"]).startswith("<overrides>: expected a table of rules")  # type: ignore[arg-type]


def test_error_blames_the_file_that_set_the_key(tmp_path: Path) -> None:
    bad = write(tmp_path, "[economy]\nincome = -1\n", "bad.toml")
    fine = write(tmp_path, "[economy]\ndivision_cost = 5\n", "fine.toml")
    assert error(bad, fine).startswith(f"{bad}: economy.income: ")


@pytest.mark.parametrize("players", [7, 1, True, 3.0, "4"])
def test_for_players_rejects_other_counts(book: RuleBook, players: object) -> None:
    """(2 players need a variant: tests/test_two_players.py.)"""
    expected = r"^players: expected one of 3, 4, 5, 6 \(components.player_counts\), got "
    with pytest.raises(RulesError, match=expected):
        book.for_players(players)  # type: ignore[arg-type]


def test_rules_error_is_a_value_error() -> None:
    assert issubclass(RulesError, ValueError)


def test_G4_advanced_genes_are_the_genes_above_a_lower_one(book: RuleBook, tmp_path: Path) -> None:
    """G4: players.blocked_by_advanced reads only Rules.advanced_genes, so the list must hold every
    gene with a lower gene that a game can hold (the base game's four; with the extra genes the
    extra ones above a lower gene too), and nothing else."""
    extra = load_rules(write(tmp_path, "[flags]\nextra_genes = true\n")).for_players(4)
    for rules in (book.for_players(4), extra):
        expected = [g for g in range(rules.n_genes) if rules.gene_lower[g, 0] >= 0]
        assert rules.advanced_genes.tolist() == expected
        assert all(rules.gene_blocks[g] != 0 for g in expected)
        assert not any(rules.gene_blocks[g] for g in range(rules.n_genes) if g not in expected)
    assert book.for_players(4).advanced_genes.tolist() == [16, 17, 18, 19]
