"""Chromosome's rule kernels on positions written by hand (compiled, as the engine runs them):
movement and sterility (M1-M7, W3), the starting player (R5, W8), resistance-test threats,
absorption and decay (X3, X5, X6, W5), the score and the winners (E4, E5, W10), and the
invariants of §12."""

import numpy as np
import pytest

from sim.chromosome.engine import invariants, population, radiation, rounds, scoring
from sim.chromosome.engine.state import allocate_state, by_reference, derive_supplies, rules_for
from sim.chromosome.rules.book import FLAGS, load_rules
from strategies.chromosome.presets import PRESETS
from tests import processes


def position(players: int, groups: dict[int, tuple[int, int, bool]], **flags):
    """One game: ``groups`` {tile: (player, size, charged)}; the rest at its start values."""
    rules = rules_for(load_rules(overrides={"flags": flags} if flags else None), players)
    st = allocate_state(1, rules)
    room = {int(t): i for i, t in enumerate(rules.tile)}
    for tile, (p, size, charged) in groups.items():
        st.owner[0, room[tile]], st.size[0, room[tile]], st.charged[0, room[tile]] = p, size, int(charged)
    st.round[0], st.clock[0] = 1, rules.rounds
    st.fate[0] = 4
    st.active_genes[0, :, 0], st.active_genes[0, :, 1] = 2, 1
    derive_supplies(st, rules)
    return st, rules, room


def test_M1_M3_M4_M6_W3_movement_and_sterility():
    st, ru, room = position(2, {17: (0, 3, True), 10: (0, 2, False), 9: (1, 2, True)})
    cs, cr = by_reference(st, ru)

    def may(p, a, b, k):
        return population.may_move(cs, cr, 0, p, room[a], room[b], k)

    assert may(0, 17, 8, 3) and may(0, 17, 8, 2)  # W3: 3 or 2 tokens 17 -> 8
    assert may(0, 17, 5, 1)  # one token may enter sterility 1 (splitting 17 over 8 and 5 is two moves)
    assert may(0, 17, 10, 1) and not may(0, 17, 10, 2)  # M4: 2 + 2 > 3
    assert may(1, 9, 14, 2) and not may(1, 9, 18, 2)  # l.227: sterility 2 yes, 3 no
    assert not may(1, 9, 17, 2)  # M2: another player's room
    population.move(cs, 0, 0, room[17], room[10], 1)
    assert (st.size[0, room[10]], st.charged[0, room[10]]) == (3, 0)  # M4: discharged part
    assert (st.size[0, room[17]], st.charged[0, room[17]]) == (2, 1)  # M5/M6: stays on 17
    assert not may(0, 10, 17, 2)  # M6: may not re-enter 17 with 2
    assert may(0, 10, 17, 3) is False  # 17 holds its own 2: 3 + 2 > 3 (M4)
    st.removed[0, room[8]] = 1
    assert not may(0, 17, 8, 2)  # M7


def test_M3_sterility_check_resulting():
    st, ru, room = position(2, {6: (0, 1, True), 8: (0, 1, True)}, sterility_check="resulting")
    st.owner[0, room[8]], st.size[0, room[8]] = 0, 1
    cs, cr = by_reference(st, ru)
    # 17 (sterility 3) is empty: 1 token never enters; with 'resulting' merging would count
    assert not population.may_move(cs, cr, 0, 0, room[6], room[17], 1)


def test_R5_W8_starting_player():
    groups = {5: (0, 3, True), 9: (0, 2, False), 11: (1, 3, False), 14: (2, 3, True)}
    st, ru, room = position(3, groups)
    cs, cr = by_reference(st, ru)
    st.start_player[0] = 0
    assert rounds.next_start_player(cs, cr, 0) == 1  # 5, 3, 3: first tied clockwise
    st.start_player[0] = 1
    assert rounds.next_start_player(cs, cr, 0) == 2  # the previous starter is reached last
    st2, ru2, _ = position(3, groups, start_tie_previous_last=False)
    cs2, cr2 = by_reference(st2, ru2)
    st2.start_player[0] = 1
    assert rounds.next_start_player(cs2, cr2, 0) == 1  # a tied previous starter keeps it


def test_X3_X5_X6_W5_tests_absorption_decay():
    groups = {5: (0, 1, False), 6: (0, 1, False), 18: (1, 3, False), 2: (1, 2, False), 12: (2, 1, False)}
    st, ru, room = position(3, groups)
    st.cubes[0, room[17]], st.cubes[0, room[12]] = 4, 2
    derive_supplies(st, ru)
    cs, cr = by_reference(st, ru)
    assert radiation.threat(cs, cr, 0, 0, room[17], 4) == 6
    assert radiation.threat(cs, cr, 0, 1, room[12], 2) == 4
    assert radiation.threat(cs, cr, 0, 2, room[12], 2) == 3
    assert radiation.irradiation_gain(cs, cr, 0, 1, 4, 3) == 1
    assert radiation.irradiation_gain(cs, cr, 0, 2, 3, 4) == 0
    st.active_genes[0, 1, 3] = 1  # G4a: an active B adds 1 to the roll
    assert radiation.irradiation_gain(cs, cr, 0, 1, 4, 3) == 0
    radiation.absorb(cs, cr, 0)
    charged = {t: int(st.charged[0, room[t]]) for t in groups}
    assert charged == {5: 1, 6: 1, 18: 0, 2: 1, 12: 1}
    pool = int(st.pool[0])
    radiation.decay(cs, 0)
    assert (st.cubes[0, room[17]], st.cubes[0, room[12]], st.pool[0]) == (3, 1, pool + 2)


def test_X5_flags_charge_size_limit_and_area_room():
    groups = {18: (1, 3, False), 12: (2, 1, False)}
    st, ru, room = position(3, groups, charge_size_limit=False, area_room_adjacent_for_charge=False)
    st.cubes[0, room[12]] = 2
    derive_supplies(st, ru)
    cs, cr = by_reference(st, ru)
    radiation.absorb(cs, cr, 0)
    assert st.charged[0, room[18]] == 1  # no size limit: 3 > 2 is charged
    assert st.charged[0, room[12]] == 0  # the area's own room does not count


def test_E4_E5_W10_score_and_shared_wins():
    st, ru, room = position(3, {5: (0, 3, True), 9: (0, 3, True), 11: (1, 3, True), 14: (2, 1, True)})
    st.trophies[0, 0, 1], st.trophies[0, 0, 2] = 1, 1
    st.fate[0] = [3, 4, 4]
    st.irradiation[0] = [4, 1, 0]
    derive_supplies(st, ru)
    cs, cr = by_reference(st, ru)
    assert scoring.score(cs, 0, 0) == 6 + 2 + 6 - 4 == 10
    assert scoring.score(cs, 0, 1) == 3 + 8 - 1 == 10
    mark = np.zeros(3, np.int8)
    assert scoring.winners(cs, 0, mark) == 2 and list(mark) == [1, 1, 0]  # both at 10 win
    st.eliminated[0, 1] = 1
    assert scoring.winners(cs, 0, mark) == 1 and list(mark) == [1, 0, 0]  # E5: eliminated lose


@pytest.mark.parametrize(
    "breaks, number",
    [
        (lambda st, room: st.supply.__setitem__((0, 0), 3), 1),
        (lambda st, room: st.size.__setitem__((0, room[5]), 4), 2),
        (lambda st, room: st.trophies.__setitem__((0, 1, 1), 1), 3),
        (lambda st, room: st.cubes.__setitem__((0, room[9]), 1), 4),
        (lambda st, room: st.passive_genes.__setitem__((0, 0, 3), 7), 5),
        (lambda st, room: st.gene_supply.__setitem__((0, 2), 3), 6),
        (lambda st, room: st.irradiation.__setitem__((0, 1), 8), 7),
        (lambda st, room: st.fate.__setitem__((0, 1), 5), 8),
        (lambda st, room: st.eliminated.__setitem__((0, 1), 1), 9),
        (lambda st, room: st.clock.__setitem__(0, 2), 10),
    ],
)
def test_I1_I10_invariants(breaks, number):
    st, ru, room = position(2, {5: (0, 2, True), 9: (1, 2, True)})
    cs, cr = by_reference(st, ru)
    assert invariants.broken(cs, cr, 0) == 0
    if number == 5:  # I5 by too many genes, supply adjusted so that I6 holds
        st.gene_supply[0, 3] -= 7
    breaks(st, room)
    assert invariants.broken(cs, cr, 0) == number


def _row(own_at_most=0.0, against_at_least=7.0):
    """A strategy row: the builder preset with these reroll thresholds."""
    from strategies.chromosome.presets import PRESETS

    return (0.0, own_at_most, against_at_least, *PRESETS["builder"][3:])


def _workspace(st, dice, tape, params=None):
    """A workspace with forced ``dice`` and ``tape`` [(kind, row)], one strategy row."""
    from sim.chromosome.engine.state import allocate_workspace

    params = _row() if params is None else params
    cw = allocate_workspace(1, 1, np.array([params]), tape_capacity=len(tape), dice_capacity=len(dice))
    cw.dice[0, : len(dice)] = dice
    cw.dice_len[0] = len(dice)
    for t, (kind, row) in enumerate(tape):
        cw.tape_kind[0, t] = kind
        cw.tape_value[0, t, : len(row)] = row
    cw.tape_len[0] = len(tape)
    return cw


def test_D1_D3_D4_W4_reroll_windows():
    from sim.chromosome.engine import dice
    from sim.chromosome.engine.decision_kinds import REROLL
    from sim.chromosome.engine.state import ROLL_ATTACK, ROLL_DEFENCE

    st, ru, room = position(2, {7: (0, 3, False), 9: (1, 2, True)})
    st.fate[0] = [1, 4]  # W4 after F2: Przemo spent 1 of his 2 fate on strength
    answers = [0, 1, 1, 0, 1, 0]  # Przemo no, Tomek yes | Przemo yes | Tomek no | Tomek yes | Tomek no
    work = _workspace(st, [4, 1, 2, 1, 4], [(REROLL, [a]) for a in answers])
    cs, cr, cw = by_reference(st, ru, work)
    assert dice.roll(cs, cr, cw, 0, 0, 0, ROLL_ATTACK, 1) == 2
    assert dice.roll(cs, cr, cw, 0, 0, 1, ROLL_DEFENCE, 0) == 4
    assert list(st.fate[0]) == [0, 2] and work.tape_pos[0] == len(answers) and work.error[0, 0] == 0


def test_D3_reroll_order_roller_last_and_running_out_of_dice():
    from sim.chromosome.engine import dice
    from sim.chromosome.engine.decision_kinds import REROLL
    from sim.chromosome.engine.state import ERR_MISSING_DIE, ROLL_TEST

    st, ru, room = position(
        3, {5: (0, 1, True), 9: (1, 1, True), 14: (2, 1, True)}, reroll_order="roller_last"
    )
    st.fate[0] = [1, 0, 1]
    # roller 0: asked are 2 (left of... the next clockwise, 1, has no fate), then 0 last
    work = _workspace(st, [3], [(REROLL, [0]), (REROLL, [1])])
    cs, cr, cw = by_reference(st, ru, work)
    dice.roll(cs, cr, cw, 0, 0, 0, ROLL_TEST, -1)
    assert list(st.fate[0]) == [0, 0, 1]  # the second asked (the roller, last) rerolled
    assert work.error[0, 0] == ERR_MISSING_DIE  # the reroll needed a second forced die


def test_D3_strategies_reroll_their_own_low_rolls():
    from sim.chromosome.engine import dice
    from sim.chromosome.engine.state import ROLL_TEST

    st, ru, room = position(2, {5: (0, 1, True), 9: (1, 1, True)})
    st.fate[0] = [2, 2]
    work = _workspace(st, [1, 1, 4], [], params=_row(2.0))  # reroll own faces <= 2
    cs, cr, cw = by_reference(st, ru, work)
    assert dice.roll(cs, cr, cw, 0, 0, 0, ROLL_TEST, -1) == 4
    assert list(st.fate[0]) == [0, 2]


def _payments(st, ru, p, energy):
    from sim.chromosome.engine import payments

    work = _workspace(st, [], [])
    cs, cr, cw = by_reference(st, ru, work)
    n = payments.energy_payments(cs, cr, cw, 0, 0, p, energy)
    tiles = ru.tile
    out = []
    for i in range(n):
        mask, packed = int(work.options[0, i, 0]), int(work.options[0, i, 1])
        rooms = sorted(int(tiles[r]) for r in range(len(tiles)) if (mask >> r) & 1)
        out.append((rooms, [(packed >> (4 * q)) & 15 for q in range(ru.players)]))
    return sorted(out)


def test_K3_K5_minimal_energy_payments():
    st, ru, room = position(2, {9: (0, 3, True), 5: (0, 1, True), 6: (0, 2, False), 14: (1, 2, True)})
    assert _payments(st, ru, 0, 1) == [([5], [0, 0]), ([9], [0, 0])]  # W1(a)/W4: any one group
    assert _payments(st, ru, 0, 3) == [([9], [0, 0])]  # 1 + 3 could drop the 1
    st.trophies[0, 0, 1] = 1
    st.supply[0, 1] -= 1
    assert _payments(st, ru, 0, 2) == [([], [0, 1]), ([9], [0, 0])]  # 1 + a trophy: the 1 is spare
    assert _payments(st, ru, 0, 6) == [([5, 9], [0, 1])]  # 3 + 1 + 2 = 6, nothing spare
    assert _payments(st, ru, 0, 7) == []  # K3: the discharged group 6 pays nothing


def test_K1_K2_K4_paying_genes_fate_and_energy():
    from sim.chromosome.engine import costs, payments
    from sim.chromosome.engine.decision_kinds import FATE_GENE, PAY_ENERGY

    st, ru, room = position(2, {9: (0, 3, True), 14: (1, 2, True)})
    st.active_genes[0, 0] = [0, 2, 0, 0]  # W1: P2 (and no Y)
    derive_supplies(st, ru)
    work = _workspace(st, [], [(FATE_GENE, [-1])])
    cs, cr, cw = by_reference(st, ru, work)
    assert costs.can_pay(cs, cr, 0, 0, 0, 2, 0, 0, 0, 1, True)  # Fusion: 2P + 1E
    assert costs.can_pay(cs, cr, 0, 0, 1, 2, 0, 0, 0, 1, True)  # the fate pays the Y (K2)
    assert not costs.can_pay(cs, cr, 0, 0, 1, 2, 0, 0, 0, 1, False)  # not in combat
    assert not costs.can_pay(cs, cr, 0, 0, 0, 2, 0, 0, 0, 4, True)  # 3 E at most
    payments.pay_genes(cs, cr, cw, 0, 0, 0, 0, 2, 0, 0, 0, True)
    payments.pay_energy(cs, cr, cw, 0, 0, 0, 1)
    assert list(st.passive_genes[0, 0]) == [0, 2, 0, 0] and st.charged[0, room[9]] == 0
    assert st.turn_energy[0] == 0 and st.fate[0, 0] == 4  # K4: 2 E lost; the fate declined
    # K2: the fate as the Y, once a round; K4 flag: the surplus kept for the turn
    st2, ru2, room2 = position(2, {9: (0, 3, True), 14: (1, 2, True)}, energy_surplus_scope="turn")
    work2 = _workspace(st2, [], [(FATE_GENE, [0]), (PAY_ENERGY, [1 << room2[9], 0])])
    cs2, cr2, cw2 = by_reference(st2, ru2, work2)
    st2.active_genes[0, 0] = [0, 1, 0, 0]
    derive_supplies(st2, ru2)
    payments.pay_genes(cs2, cr2, cw2, 0, 0, 0, 1, 1, 0, 0, 0, True)
    payments.pay_energy(cs2, cr2, cw2, 0, 0, 0, 1)
    assert (st2.fate[0, 0], st2.fate_exhausted[0, 0], st2.turn_energy[0]) == (3, 1, 2)
    assert not costs.fate_gene_free(cs2, 0, 0)


def _random_games(players, games, seed=3, threads=1, **flags):
    from sim.chromosome.engine import batch

    ru = rules_for(load_rules(overrides={"flags": flags} if flags else None), players)
    params = np.array([PRESETS["random"], PRESETS["builder"], PRESETS["aggressive"]])
    strategies = (np.arange(games * players).reshape(games, players) % 3).astype(np.int16)
    b = batch.new_batch(ru, params, strategies, seed, np.arange(games), check_invariants=True)
    return batch.play(b, threads)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_I1_I13_random_games_finish_with_the_invariants_after_every_step(players):
    from sim.chromosome.engine import batch

    b = _random_games(players, 300)
    assert (b.workspace.error[:, 0] == 0).all()
    assert b.state.finished.all()
    out = batch.outcomes(b)
    assert ((out["rounds"] >= 1) & (out["rounds"] <= b.rules.rounds)).all()  # E1: at most R(P) rounds
    assert not (out["won"] & out["eliminated"]).any()  # E5


def test_I5_broken_by_unvalidated_rules_is_caught_at_the_end_without_debug_invariants():
    """The end-of-game check runs in every game, not only in debug mode: rules that bypass
    validation with a gene limit below the start genes (I5: 3 held, at most 2) play on to the
    end, and every game ends with the error naming I5 at the game's end."""
    from sim.chromosome.engine import batch
    from sim.chromosome.engine.round import AT_GAME_END
    from sim.chromosome.engine.state import ERR_INVARIANT, N_MAX_GENES

    ru = rules_for(load_rules(), 3)
    ru.numbers[N_MAX_GENES] = 2
    strategies = np.zeros((8, 3), np.int16)
    b = batch.play(batch.new_batch(ru, np.array([PRESETS["builder"]]), strategies, 5, np.arange(8)))
    assert not b.workspace.check_invariants
    assert b.workspace.error[:, :3].tolist() == [[ERR_INVARIANT, 5, AT_GAME_END]] * 8
    sound = batch.play(
        batch.new_batch(
            rules_for(load_rules(), 3), np.array([PRESETS["builder"]]), strategies, 5, np.arange(8)
        )
    )
    assert (sound.workspace.error[:, 0] == 0).all()


FLAG_READINGS = [(f.name, v) for f in FLAGS for v in f.choices[1:]]
FLAG_RULE = {f.name: f.rule for f in FLAGS}


@pytest.mark.parametrize("flag, value", FLAG_READINGS, ids=[f"{f}={v}" for f, v in FLAG_READINGS])
def test_every_flag_reading_plays_random_games(flag, value):
    """Every reading of every flag; a special action's flag (§7) with the full species mode."""
    full = {"species_mode": "full"} if FLAG_RULE[flag][:2] in ("AL", "FE", "CA", "PA") else {}
    for players in (2, 3, 4):
        b = _random_games(players, 40, **{flag: value, **full})
        assert (b.workspace.error[:, 0] == 0).all() and b.state.finished.all()


def test_a_game_is_the_same_on_1_and_2_threads():
    one, two = _random_games(3, 64, threads=1), _random_games(3, 64, threads=2)
    for name in ("owner", "size", "fate", "irradiation", "trophies", "round", "eliminated"):
        assert np.array_equal(getattr(one.state, name), getattr(two.state, name)), name


_AGREEMENT = """
import hashlib, numpy as np
from sim.chromosome.rules.book import load_rules
from sim.chromosome.engine.state import rules_for
from sim.chromosome.engine import batch
from strategies.chromosome.presets import PRESETS
out = []
for P, flags in ((2, {}), (3, {}), (4, {}), (3, {"events": True}), (3, {"species_mode": "full"})):
    ru = rules_for(load_rules(overrides={"flags": flags} if flags else None), P)
    params = np.array([PRESETS["random"], PRESETS["builder"], PRESETS["aggressive"]])
    strategies = (np.arange(12 * P).reshape(12, P) % 3).astype(np.int16)
    b = batch.play(batch.new_batch(ru, params, strategies, 11, np.arange(12), check_invariants=True))
    o = batch.outcomes(b)
    out.append((o["score"].tolist(), o["won"].tolist(), b.workspace.error[:, 0].tolist()))
    out.append(b.state.round.tolist())
print(hashlib.sha256(str(out).encode()).hexdigest())
"""


@pytest.mark.slow
def test_the_plain_python_path_plays_the_same_games():
    import os
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent

    def run(**env):
        done = processes.run(
            [sys.executable, "-c", _AGREEMENT],
            cwd=root,
            env={**os.environ, **env},
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert run(NUMBA_DISABLE_JIT="1") == run(NUMBA_DISABLE_JIT="0")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_preset_beats_random_with_seats_rotated(players):
    """Issue 23.3: every non-random preset, at one seat (rotated over the games) against random
    players, wins more than the fair share (the 95% interval's lower end above 1/P)."""
    from sim.chromosome.engine import batch

    games = 600
    ru = rules_for(load_rules(), players)
    names = [n for n in PRESETS if n != "random"]
    params = np.array([PRESETS["random"]] + [PRESETS[n] for n in names])
    seat = np.arange(games) % players
    for k, name in enumerate(names, start=1):
        strategies = np.zeros((games, players), np.int16)
        strategies[np.arange(games), seat] = k
        out = batch.outcomes(batch.play(batch.new_batch(ru, params, strategies, 17, np.arange(games))))
        rate = out["won"][np.arange(games), seat].mean()
        low = rate - 1.96 * np.sqrt(rate * (1 - rate) / games)
        assert low > 1 / players, (name, players, rate)


def test_I12_after_absorption_every_group_an_area_charges_is_charged():
    groups = {5: (0, 1, False), 18: (1, 3, False)}
    st, ru, room = position(3, groups)
    st.cubes[0, room[17]] = 2
    derive_supplies(st, ru)
    cs, cr = by_reference(st, ru)
    assert invariants.absorbed(cs, cr, 0) == 12  # the group of 1 on 5 is next to an area of 2
    radiation.absorb(cs, cr, 0)
    assert invariants.absorbed(cs, cr, 0) == 0 and st.charged[0, room[18]] == 0  # 18 is not next to 17


def test_I13_a_passed_player_takes_no_turn():
    from sim.chromosome.engine import turn
    from sim.chromosome.engine.state import ERR_INVARIANT, allocate_workspace

    st, ru, room = position(2, {5: (0, 2, True), 9: (1, 2, True)})
    st.passed[0, 1] = 1
    work = allocate_workspace(1, 1, np.array([PRESETS["builder"]]), check_invariants=True)
    cs, cr, cw = by_reference(st, ru, work)
    turn.take_turn(cs, cr, cw, 0, 0, 1)
    assert list(work.error[0, :2]) == [ERR_INVARIANT, 13]


def test_A11_the_policy_values_an_impulse_by_the_cubes_the_engine_places():
    """With impulse_partial, an Impulse area made from a pool of one cube gets one (A11,
    radiation.cubes_placed): the policy values the charge of that area, not of a full one; a
    discharged own group of 2 next to it is charged by 2 cubes only."""
    from sim.chromosome.engine.decision_kinds import ACT_IMPULSE_PLACE
    from sim.chromosome.engine.state import N_IMPULSE_CUBES, allocate_workspace
    from strategies.chromosome import policy

    def value(pool: int) -> float:
        st, ru, room = position(2, {}, impulse_partial=True)
        cs, cr = by_reference(st, ru)
        area = room[17]
        near = next(r for r in range(len(ru.tile)) if r != area and radiation.near_area(cr, r, area))
        st.owner[0, near], st.size[0, near], st.charged[0, near] = 0, 2, 0
        derive_supplies(st, ru)
        st.pool[0] = pool
        prm = np.asarray(PRESETS["builder"], np.float64)
        wk = allocate_workspace(1, 1, prm[None, :])
        cs, cr, cw = by_reference(st, ru, wk)
        assert radiation.cubes_placed(cs, cr, 0, ru.numbers[N_IMPULSE_CUBES]) == min(pool, 2)
        wk.options[0, 0, :2] = ACT_IMPULSE_PLACE, area
        policy._value_action(cs, cr, cw, 0, 0, 0, 1, prm)
        return float(wk.scores[0, 0])

    full, short = value(5), value(1)
    assert full - short == pytest.approx(2 * PRESETS["builder"][policy.CHARGE_VALUE])
