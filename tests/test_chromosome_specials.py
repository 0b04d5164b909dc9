"""Chromosome's special actions (spec §7, SP1-SP4; species_mode = "full"; engine/specials.py):
random games in the full mode finish with the invariants after every step and use every effect;
they are the same on 1 and 2 threads; the rules' species data reach the kernels as written; a
house rule may give a species another board. Each action's rule is a scenario file
(tests/scenarios/chromosome/AL*, FE*, CA*, PA*, W1_*)."""

import numpy as np
import pytest

from sim.chromosome.engine import batch
from sim.chromosome.engine.events import EV_SPECIAL
from sim.chromosome.engine.state import COST_FIELDS, SPECIAL_EFFECTS, rules_for
from sim.chromosome.rules.book import SPECIES, load_rules
from strategies.chromosome.presets import PRESETS

FULL = {"species_mode": "full"}


def _games(players, games, threads=1, seed=3, rules=None, log=False):
    ru = rules_for(rules or load_rules(overrides={"flags": FULL}), players)
    names = ("random", "builder", "aggressive", "cautious", "evolver")
    params = np.array([PRESETS[n] for n in names])
    strategies = (np.arange(games * players).reshape(games, players) % len(names)).astype(np.int16)
    b = batch.new_batch(ru, params, strategies, seed, np.arange(games), check_invariants=True, log_events=log)
    return batch.play(b, threads)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_SP1_SP2_full_mode_games_finish_with_the_invariants_and_use_every_effect(players):
    b = _games(players, 600, log=True)
    work = b.workspace
    assert (work.error[:, 0] == 0).all() and b.state.finished.all()
    used = set()
    for g in range(len(b.state.round)):
        ev = work.events[g, : work.n_events[g]]
        used |= {SPECIAL_EFFECTS[int(k)] for k in ev[ev[:, 0] == EV_SPECIAL, 4]}
    assert used == set(SPECIAL_EFFECTS)


def test_full_mode_games_are_the_same_on_1_and_2_threads():
    one, two = _games(4, 64, threads=1), _games(4, 64, threads=2)
    for name in ("owner", "size", "fate", "irradiation", "trophies", "special_used", "eliminated"):
        assert np.array_equal(getattr(one.state, name), getattr(two.state, name)), name


def test_SP1_the_species_boards_reach_the_kernels_as_written():
    book = load_rules(overrides={"flags": FULL})
    ru = rules_for(book, 3)
    for s, name in enumerate(SPECIES):
        actions = book.species_actions()[name]
        assert ru.special_count[s] == len(actions) == 4
        for k, a in enumerate(actions):
            assert SPECIAL_EFFECTS[ru.special_effect[s, k]] == a["effect"]
            assert list(ru.special_cost[s, k]) == [a["cost"].get(c, 0) for c in COST_FIELDS]
    assert ru.special_per_round[0, 0] == 1  # AL1 Supergen: once a round (PLACEHOLDER guard)
    plain = rules_for(load_rules(), 3)
    assert not plain.special_count.any()  # SP1: the plain mode has no special actions


def test_SP1_a_house_rule_gives_a_species_another_board():
    """Rules are data: Alum's board with Pars's Gigant only (an effect any species may use)."""
    board = [{"id": "AL1", "name": "Gigant", "cost": {"Y": 1}, "effect": "giant", "params": {"size": 2}}]
    book = load_rules(overrides={"flags": FULL, "species": {"Alum": {"actions": board}}})
    ru = rules_for(book, 2)
    assert ru.special_count[0] == 1 and SPECIAL_EFFECTS[ru.special_effect[0, 0]] == "giant"
    assert ru.special_param[0, 0] == 2
    b = _games(2, 100, rules=book)
    assert (b.workspace.error[:, 0] == 0).all() and b.state.finished.all()


def test_SP1_full_mode_reports_name_every_invented_part():
    used = load_rules(overrides={"flags": FULL}).placeholders(3)
    assert "species.Ferox.FE3.effect" in used and "species.Alum.AL1.per_round" in used
    assert not [u for u in load_rules().placeholders(3) if u.startswith("species.")]
