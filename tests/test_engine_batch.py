"""Batch-level rules tests (setup S1-S5, deck V1-V4, flags) and determinism.

Rules that concern a whole fresh game are checked on batches of games rather than scenario
files; the test names cite the rule ids.
"""

import itertools

import numpy as np
import pytest

from sim.ursuppe.engine import batch as B
from sim.ursuppe.engine.state import END_FINISH_ZONE, END_LAST_CARD
from sim.ursuppe.rules.book import load_rules
from sim.ursuppe.rules.genes import GENE_INDEX
from sim.ursuppe.rules.seating import rotate_block
from tests.conftest import outcome_digest


def _play(
    rulebook,
    params,
    players,
    games=200,
    seed=11,
    seats=None,
    threads=1,
    n_blocks=64,
    seating="random",
    indices=None,
    check=True,
):
    ru = rulebook.for_players(players)
    seats = np.zeros(players, np.int16) if seats is None else np.asarray(seats)
    idx = np.arange(games) if indices is None else np.asarray(indices)
    b = B.new_batch(ru, params, seats, seed, idx, check_invariants=check, n_blocks=n_blocks)
    B.play(b, seating=seating, threads=threads)
    assert B.first_error(b) is None, B.first_error(b)
    return b


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_S1_S2_S3_S4_S5_setup_position(rulebook, params, players):
    """S1: 4 BP, 7 amoebas in supply, markers on 1..P; S2: 2 cubes of every colour per space;
    S3: the gene pool for the player count; S4/V2: a shuffled deck; S5: seating a permutation;
    S6 placements follow (two amoebas each, on distinct spaces: I8). With 5-6 players
    (PXcase:setup-6p): PX1 6 amoebas each, PX4 69 gene cards, PX7 markers on 1..5 or 1..6, PX8
    2 cubes of each of the 5-6 colours a space (38 a colour on the board, 17 in the supply),
    PX9 12 amoebas on 12 spaces, PX10 1 DP on each first amoeba (flag setup_dp_5_6), PX11 4 BP."""
    ru = rulebook.for_players(players)
    b = B.new_batch(ru, params, np.zeros(players), 5, np.arange(300), check_invariants=True)
    B.setup(b)
    st = b.state
    assert B.first_error(b) is None
    assert (st.bp == 4).all()
    for g in range(300):
        assert sorted(st.seat[g]) == list(range(1, players + 1))
        assert np.array_equal(st.score[g], st.seat[g])
        assert sorted(st.card_index[g]) == list(range(11))
    assert ((st.space >= 0).sum(axis=2) == 2).all()
    assert st.space.shape[2] == (7 if players <= 4 else 6)
    assert (np.sort(st.dp.sum(axis=2), axis=1) == (0 if players == 3 else 1)).all()  # S6, PX10
    assert (st.occupancy[:, players, 1:] <= 1).all()  # I8: no space with two amoebas
    assert (st.food == 2).all()  # the S6 placements do not move food
    assert (st.food.sum(axis=1) == 38).all() and (st.supply == 55 - 38).all()
    assert (st.pool.astype(int).sum(axis=1) == {3: 20, 4: 30, 5: 69, 6: 69}[players]).all()
    assert st.pool[0, GENE_INDEX["Frugality"]] == {3: 0, 4: 1, 5: 3, 6: 3}[players]
    # S5: random seating puts every player on every start space about equally often.
    first = np.bincount(st.seat[:, 0], minlength=players + 1)[1:]
    assert first.min() > 300 / players * 0.6
    # V2: different games get different deck orders.
    assert len({tuple(r) for r in st.card_index}) > 250


def test_S5_rotate_seating_covers_every_permutation_equally(rulebook, params):
    ru = rulebook.for_players(3)
    b = B.new_batch(ru, params, np.zeros(3), 5, np.arange(60))
    B.setup(b, seating="rotate")
    perms = [tuple(r) for r in b.state.seat]
    counts = {p: perms.count(p) for p in itertools.permutations([1, 2, 3])}
    assert set(counts.values()) == {10}


@pytest.mark.parametrize("players", [5, 6])
def test_S5_rotate_seating_at_5_and_6_players_is_a_balanced_latin_square(rulebook, params, players):
    """S5 (PX: 5-6 players): rotate's block is a Williams square (2P games for odd P, P for even),
    not the P! permutations: within one block, from any multiple of it, every player sits on every
    start space equally often and every ordered pair of players on neighbouring spaces equally
    often."""
    block = rotate_block(players)
    assert block == (10 if players == 5 else 6)
    ru = rulebook.for_players(players)
    start = 7 * block  # game indices, not batch rows, choose the row of the design
    b = B.new_batch(ru, params, np.zeros(players), 5, np.arange(start, start + 3 * block))
    B.setup(b, seating="rotate")
    seat = b.state.seat.astype(int)
    assert sorted(seat[0]) == list(range(1, players + 1))
    for k in range(3):
        part = seat[k * block : (k + 1) * block]
        assert np.array_equal(part, seat[:block])  # the design repeats block after block
        for p in range(players):
            assert np.bincount(part[:, p], minlength=players + 1)[1:].tolist() == [block // players] * players
        pairs = {}
        for row in part:
            by_space = np.argsort(row)  # player on start space 1, 2, ...
            for a, c in itertools.pairwise(by_space):
                pairs[a, c] = pairs.get((a, c), 0) + 1
        assert len(pairs) == players * (players - 1) and len(set(pairs.values())) == 1, pairs


def test_S5_rotate_seating_at_3_and_4_players_is_unchanged(rulebook, params):
    """S5: the 3-4 player rotate design stays every permutation in Lehmer order (old runs replay)."""
    assert (rotate_block(3), rotate_block(4)) == (6, 24)
    b = B.new_batch(rulebook.for_players(4), params, np.zeros(4), 5, np.arange(24))
    B.setup(b, seating="rotate")
    assert [tuple(r) for r in b.state.seat] == list(itertools.permutations([1, 2, 3, 4]))


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_V4_W1_games_end_by_finish_zone_or_after_round_10(rulebook, params, players):
    """V4, W1 (PX6, PX20 with 5-6 players: the same finish zone, end conditions and winner)."""
    b = _play(rulebook, params, players, seats=[1] * players)
    st = b.state
    assert st.finished.all()
    assert (st.round <= 10).all()
    last = st.end_reason == END_LAST_CARD
    assert (st.round[last] == 10).all()
    zone = st.end_reason == END_FINISH_ZONE
    assert (st.score[zone].max(axis=1) >= 42).all()
    assert np.array_equal(st.winner, st.score.argmax(axis=1))


def test_V4_first_round_flip_false_allows_eleven_rounds(params):
    book = load_rules(overrides={"flags": {"first_round_flip": False, "finish_zone_start": 500}})
    b = _play(book, params, 4, games=20)
    assert (b.state.round == 11).all() and (b.state.end_reason == END_LAST_CARD).all()


def test_K1_finish_zone_flag_41(params):
    book = load_rules(overrides={"finish_zone_start": 41})
    b = _play(book, params, 4, seats=[1, 1, 1, 1])
    zone = b.state.end_reason == END_FINISH_ZONE
    assert zone.any() and (b.state.score[zone].max(axis=1) >= 41).all()
    assert (b.state.score[zone].max(axis=1) == 41).any()


@pytest.mark.parametrize("players", [4, 6])
def test_results_do_not_depend_on_threads_blocks_or_batching(rulebook, params, players):
    """§0 determinism: same (rules, strategies, seating, seed, game index) -> same game (6 players
    too: their larger option lists and scratch rows stay per block)."""
    seats = [0, 1] * (players // 2)
    ref = outcome_digest(_play(rulebook, params, players, games=300, seats=seats).state)
    two = _play(rulebook, params, players, games=300, seats=seats, threads=2, n_blocks=7)
    part = _play(rulebook, params, players, games=100, seats=seats, indices=np.arange(200, 300), n_blocks=3)
    two, part = outcome_digest(two.state), outcome_digest(part.state)
    assert np.array_equal(ref, two)
    assert np.array_equal(ref[200:], part)
    other_seed = outcome_digest(_play(rulebook, params, players, games=300, seats=seats, seed=12).state)
    assert not np.array_equal(ref, other_seed)


def test_greedy_beats_random(rulebook, params):
    b = _play(rulebook, params, 4, games=400, seats=[0, 1, 0, 1], check=False)
    wins = np.bincount(b.state.winner, minlength=4)
    assert wins[1] + wins[3] > 0.7 * 400, wins


def test_I10_derived_counts_follow_every_change_and_a_wrong_count_is_caught(rulebook, params):
    """The engine's I10: the counts the kernels keep beside the position (State.occupancy:
    amoebas per space; State.food_capped: cubes per space, at most 2 of a colour) equal a
    recount after whole games (moves, clinging, deaths, divisions, meals, excretion, Tentacle),
    and the invariant check stops a game whose counts are wrong."""
    from sim.ursuppe.engine.state import ERR_INVARIANT, recount_derived

    b = _play(rulebook, params, 4, games=300, seed=3)
    kept = b.state.occupancy.copy(), b.state.food_capped.copy()
    recount_derived(b.state)
    assert np.array_equal(kept[0], b.state.occupancy)
    assert np.array_equal(kept[1], b.state.food_capped)
    assert (kept[0][:, :, 0] == 0).all()  # the "no space" slot
    assert (kept[0][:, 4, 1:] == kept[0][:, :4, 1:].sum(axis=1)).all()

    ru = rulebook.for_players(4)
    c = B.new_batch(ru, params, np.zeros(4), 3, np.arange(4), check_invariants=True)
    B.setup(c)
    assert B.first_error(c) is None
    c.state.occupancy[2, 1, 5] += 1  # one amoeba too many counted in game 2
    c.state.food_capped[3, 7] -= 1  # one cube too few in game 3
    B.advance_phase(c, 2)
    for g in (2, 3):
        assert c.workspace.error[g, 0] == ERR_INVARIANT and c.workspace.error[g, 1] == 10
    assert (c.workspace.error[:2, 0] == 0).all()
