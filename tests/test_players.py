"""5 and 6 players (docs/rules.md, "5-6 players", PX ids): the rules data per player count, the
placeholders a run uses, every preset playing 5 and 6 players to the end, and the command line.
The rule-by-rule checks are the PX*.json scenarios; the setup checks (PX1, PX4, PX7-PX11) are
tests/test_engine_batch.py::test_S1_S2_S3_S4_S5_setup_position."""

import json

import numpy as np
import pytest

from sim.ursuppe.engine import batch as B
from sim.ursuppe.rules.book import FLAG_NAMES, PX_FLAGS, RulesError, load_rules
from sim.ursuppe.rules.genes import GENE_INDEX
from strategies.ursuppe import preset_names
from strategies.ursuppe.params import load_strategy, parameter_table
from tests.test_cli import soup

SPEC_FLAGS = (  # the flags of the 5-6 player spec's §9, under its spelling
    "deck_5_6",
    "setup_dp_5_6",
    "price_5_6",
    "feeding_5_6_substitution",
    "tentacle_capacity",
    "amoebas_per_player",
    "income_bp",
    "amoeba_score_table_5_6",
)


def test_every_flag_of_the_5_6_spec_is_in_the_default_rules_with_its_default(rulebook):
    flags = rulebook.data["flags"]
    assert set(SPEC_FLAGS) <= set(FLAG_NAMES) and set(SPEC_FLAGS) == set(PX_FLAGS)
    assert flags["deck_5_6"] == "base30_plus_39" and flags["setup_dp_5_6"] == 1
    assert flags["price_5_6"] == {}
    assert flags["feeding_5_6_substitution"] == "skip_one_spread"
    assert flags["tentacle_capacity"] == {"3": 2, "4": 3, "5": 4, "6": 5}
    assert flags["amoebas_per_player"] == {"3": 7, "4": 7, "5": 6, "6": 6}
    assert flags["income_bp"] == {"3": 10, "4": 10, "5": 11, "6": 11}
    assert flags["amoeba_score_table_5_6"] == [0, 0, 1, 2, 4, 5, 6]
    assert rulebook.player_counts == (3, 4, 5, 6)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_values_by_player_count(rulebook, players):
    """C2/PX1, D1/PX16, K2/PX19, Tentacle/PX21, S6/PX10, S3/PX4, M4/PX12-PX13."""
    ru = rulebook.for_players(players)
    five_six = players >= 5
    assert ru.amoebas_per_player == (6 if five_six else 7)
    assert ru.income == (11 if five_six else 10)
    assert ru.tentacle_cubes == players - 1
    assert ru.setup_first_dp == (0 if players == 3 else 1)
    assert ru.amoeba_advance.tolist() == ([0, 0, 1, 2, 4, 5, 6] if five_six else [0, 0, 0, 1, 2, 4, 5, 6])
    assert int(ru.gene_copies.sum()) == {3: 20, 4: 30, 5: 69, 6: 69}[players]
    standard = {3: [2, 1], 4: [1, 1, 1], 5: [1, 1, 1, 1], 6: [1, 1, 1, 1, 0]}
    assert ru.standard_shape.tolist() == standard[players]
    assert ru.meal_shapes.shape[2] == players - 1


def test_PX3_PX5_PX6_PX24_what_the_expansion_leaves_alone(rulebook):
    """PX5: the same board, compass and 11-card environment deck with any player count; PX6: the
    same finish zone. PX3 (more BP/DP tokens: the bank is unlimited, C4) and PX24 (reference
    sheets) have no simulator effect: no rules data depends on them."""
    four, six = rulebook.for_players(4), rulebook.for_players(6)
    for field in ("neighbours", "compass", "deck_ozone", "deck_drift"):
        assert np.array_equal(getattr(four, field), getattr(six, field)), field
    assert four.finish_zone_start == six.finish_zone_start == 42
    assert four.start_bp == six.start_bp == 4  # PX11


def test_PX4_deck_5_6_only_39_uses_the_5_6_cards_alone():
    """PX4, §7: flag deck_5_6 = only_39 gives a 5-6 game the 39 cards marked for 5-6 players
    (5-6 column minus the 4-player column); 3-4 players keep the base cards."""
    book = load_rules(overrides={"deck_5_6": "only_39"})
    five = book.for_players(5)
    assert int(five.gene_copies.sum()) == 39
    assert five.gene_copies[GENE_INDEX["Intelligence"]] == 3 and five.gene_copies[GENE_INDEX["Holding"]] == 1
    assert int(book.for_players(4).gene_copies.sum()) == 30
    with pytest.raises(RulesError, match=r"genes.Speed.copies.5: expected at least the 4-player copies"):
        load_rules(overrides={"deck_5_6": "only_39", "genes": {"Speed": {"copies": {5: 1}}}})
    # a rules file for 5-6 players only still reads the 4-player copies it subtracts
    alone = load_rules(overrides={"deck_5_6": "only_39", "components": {"player_counts": [5, 6]}})
    assert int(alone.for_players(6).gene_copies.sum()) == 39 and alone.player_counts == (5, 6)


def test_PX22_price_5_6_only_with_5_6_players():
    book = load_rules(overrides={"price_5_6": {"Division Rate": 8, "Endurance": 1}})
    rate, persistence = GENE_INDEX["Division Rate"], GENE_INDEX["Persistence"]
    assert book.for_players(4).gene_price[rate] == 6 and book.for_players(6).gene_price[rate] == 8
    assert book.for_players(5).gene_price[persistence] == 1  # a gene alias names the gene
    with pytest.raises(RulesError, match=r"flags.price_5_6.Nope: unknown gene"):
        load_rules(overrides={"price_5_6": {"Nope": 3}})


def test_placeholders_name_the_guesses_a_run_uses():
    """PX10, PX22 (and the deck, §13): RuleBook.placeholders() lists the PLACEHOLDER values a game
    of a player count uses, until a rules file gives them a value of its own."""
    book = load_rules()
    assert book.placeholders() == ["environment.deck", "flags.setup_dp_5_6", "flags.price_5_6"]
    assert book.placeholders(4) == ["environment.deck"]
    assert book.placeholders(6) == ["environment.deck", "flags.setup_dp_5_6", "flags.price_5_6"]
    chosen = load_rules(overrides={"setup_dp_5_6": 0, "environment": {"placeholder": False}})
    assert chosen.placeholders(5) == ["flags.price_5_6"]


def test_player_counts_restrict_the_supported_counts():
    book = load_rules(overrides={"components": {"player_counts": [3, 4]}})
    assert book.player_counts == (3, 4)
    with pytest.raises(RulesError, match=r"^players: expected one of 3, 4 \(components.player_counts\)"):
        book.for_players(5)
    with pytest.raises(RulesError, match=r"components.player_counts\[0\]: expected an integer in 3..6"):
        load_rules(overrides={"components": {"player_counts": [2, 3]}})


@pytest.mark.parametrize("players", [5, 6])
@pytest.mark.parametrize("preset", preset_names())
def test_every_preset_plays_5_and_6_players_to_the_end(preset, players):
    """Every preset strategy, at every seat of a 5- or 6-player table against the default mix,
    plays games to the end with every invariant checked after every phase."""
    book = load_rules()
    names = [preset, "greedy", "breeder", "predator", "forager", "geneticist"]
    params = parameter_table([load_strategy(n) for n in names])
    seats = np.array([0, 1, 2, 3, 4, 5][:players])
    games = 60
    b = B.new_batch(book.for_players(players), params, seats, 5, np.arange(games), check_invariants=True)
    B.play(b, seating="rotate")
    assert B.first_error(b) is None, B.first_error(b)
    assert b.state.finished.all()
    assert (b.state.space >= 0).sum(axis=2).max() <= 6  # I2': at most 6 amoebas on the board


def test_soup_play_five_players():
    r = soup("play", "--players", "5", "--seed", "3", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["players"] == 5 and len(doc["final_positions"]) == 5
    text = soup("play", "--players", "6", "--seed", "3")
    assert text.returncode == 0 and "game over" in text.stdout and "(black)" in text.stdout


def test_soup_simulate_six_players(tmp_path):
    r = soup("simulate", "--players", "6", "--games", "300", "--out", str(tmp_path / "six"), "--quiet")
    assert r.returncode == 0, r.stderr
    manifest = json.loads((tmp_path / "six" / "manifest.json").read_text())
    assert manifest["spec"]["players"] == 6


def test_soup_players_outside_the_rules_is_one_line():
    r = soup("play", "--players", "7")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    expected = "--players: expected one of 3, 4, 5, 6 (the rules' components.player_counts), got 7"
    expected = f"soup: error: {expected}"
    assert r.stderr.strip() == expected, r.stderr


def test_report_on_5_and_6_player_runs_states_the_placeholders(tmp_path):
    """soup report reads 5- and 6-player runs (every section) and names the PLACEHOLDER rules
    they used (PX10 setup_dp_5_6, PX22 price_5_6), as it names the placeholder deck."""
    from analysis.ursuppe.report import build_report
    from sim import runner
    from sim.ursuppe.simulation import DEFAULT_POOL, UrsuppeRun

    book = load_rules()
    strategies = [load_strategy(n) for n in DEFAULT_POOL]
    runs = []
    for players in (5, 6):
        spec = UrsuppeRun(book, players, 3, strategies, pool=list(range(len(strategies))), seating="rotate")
        runner.run(spec, tmp_path / f"p{players}", 720, 720, 2)
        manifest = json.loads((tmp_path / f"p{players}" / "manifest.json").read_text())
        assert manifest["spec"]["placeholders"] == book.placeholders(players) == book.placeholders()
        runs.append(tmp_path / f"p{players}")
    md = (build_report(runs, tmp_path / "report") / "report.md").read_text()
    assert "placeholder rules with 6 players" in md and "`flags.setup_dp_5_6`, `flags.price_5_6`" in md
    assert "5 players: games last" in md and "6 players: games last" in md
