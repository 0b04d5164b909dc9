"""The game's frame (spec §2, §3, §5, §6): setup (S1-S7), the round's three phases (R1-R7) and
the two endings (E1, E3); :func:`play_game` plays one game of a batch to its end.

Phase I (from round 2): the clock (R2), the next event card (R3, flag events; event_deck.py;
the default is the variant without events, V1), renewal (R4). Phase II: turns clockwise from
the starting player (R5) until every player has passed (R6). Phase III: resistance tests
(X2-X4), absorption (X5), decay (X6).
"""

from sim.chromosome.engine import flags as FL
from sim.chromosome.engine.decision_kinds import AREA_FIRST, START_ROOM
from sim.chromosome.engine.decisions import decide, fail, set_option
from sim.chromosome.engine.dice import roll
from sim.chromosome.engine.event_deck import deal_deck, reveal
from sim.chromosome.engine.events import (
    EV_CHARGED,
    EV_DECAY,
    EV_END,
    EV_PHASE,
    EV_ROUND,
    EV_START_GROUP,
    EV_TEST,
    EV_TURN,
    log,
    log_position,
)
from sim.chromosome.engine.invariants import absorbed, broken
from sim.chromosome.engine.over_seven import irradiate
from sim.chromosome.engine.radiation import absorb, decay, irradiation_gain, left_uncharged, threat
from sim.chromosome.engine.rounds import next_start_player
from sim.chromosome.engine.state import (
    END_ELIMINATION,
    END_ROUNDS,
    ERR_INVARIANT,
    ERR_NO_END,
    N_GENE_CUBES,
    N_MAX_TURNS,
    N_RADIATION_CUBES,
    N_START_FATE,
    N_START_GROUP,
    N_TOKENS,
    NO_OWNER,
    ROLL_TEST,
    STREAM_SETUP,
)
from sim.chromosome.engine.turn import take_turn
from sim.jit import kernel
from sim.random_stream import below

LOWEST_TILE = 1
PHASE_SETUP, PHASE_ONE, PHASE_TWO, PHASE_THREE = range(4)
AT_GAME_END = -2  # error[g, 2] of an invariant found broken by the end-of-game check


@kernel
def fail_if_broken(cs, cr, cw, g, where):
    """Stop game g with the first broken invariant of I1-I10 (error[g, 2] = ``where``)."""
    if cw.error[g, 0] == 0:
        k = broken(cs, cr, g)
        if k != 0:
            fail(cw, g, ERR_INVARIANT, k, where, -1)


@kernel
def check(cs, cr, cw, g):
    """Debug mode (cw.check_invariants): the invariants of §12 after every step."""
    if cw.check_invariants:
        fail_if_broken(cs, cr, cw, g, 0)


@kernel
def setup(cs, cr, cw, g, b):
    """S2, S5-S7: supplies full, every player's 2 Y and 1 P, 4 fate, 12 tokens; seat 0 starts
    (S6: the batch seats the players); clockwise from it each puts a charged group of 2 on a
    free start room of its choice (Q1). Species are the batch's (S4)."""
    P = cs.supply.shape[1]
    R = cs.owner.shape[1]
    for c in range(4):
        cs.gene_supply[g, c] = cr.numbers[N_GENE_CUBES]
    cs.pool[g] = cr.numbers[N_RADIATION_CUBES]
    for r in range(R):
        cs.owner[g, r] = NO_OWNER
        cs.size[g, r] = 0
        cs.charged[g, r] = 0
        cs.cubes[g, r] = 0
        cs.removed[g, r] = 0
    for p in range(P):
        for c in range(4):
            cs.active_genes[g, p, c] = cr.start_genes[c]
            cs.passive_genes[g, p, c] = 0
            cs.gene_supply[g, c] -= cr.start_genes[c]
            for q in range(P):
                cs.trophies[g, p, q] = 0
        cs.fate[g, p] = cr.numbers[N_START_FATE]
        cs.fate_exhausted[g, p] = 0
        cs.irradiation[g, p] = 0
        cs.eliminated[g, p] = 0
        cs.passed[g, p] = 0
        cs.supply[g, p] = cr.numbers[N_TOKENS]
        for k in range(cs.special_used.shape[2]):
            cs.special_used[g, p, k] = 0
    cs.round[g] = 1
    cs.clock[g] = cr.rounds
    cs.start_player[g] = 0
    cs.finished[g] = False
    cs.end_reason[g] = 0
    cs.ending[g] = 0
    cs.no_attacks[g] = 0
    cs.sterility_plus[g] = 0
    cs.trophy_bonus[g] = 0
    for i in range(P):
        p = (cs.start_player[g] + i) % P
        n = 0
        for r in range(R):
            if cr.start[r] != 0 and cs.owner[g, r] == NO_OWNER:
                set_option(cw, b, n, r, 0, 0, 0, 0)
                n += 1
        r = cw.options[b, decide(cs, cr, cw, g, b, p, START_ROOM, n), 0]
        k = cr.numbers[N_START_GROUP]
        cs.owner[g, r] = p
        cs.size[g, r] = k
        cs.charged[g, r] = 1
        cs.supply[g, p] -= k
        log(cs, cw, g, EV_START_GROUP, p, r, k, 0, 0, 0, 0, 0)
    check(cs, cr, cw, g)


@kernel
def finish(cs, cw, g, reason):
    """E1, E3: the game ends (``reason``: END_*)."""
    cs.finished[g] = True
    cs.end_reason[g] = reason
    log(cs, cw, g, EV_END, -1, reason, 0, 0, 0, 0, 0, 0)


@kernel
def _finish_phase(cr):
    """E3, flag elimination_finish_phase: after an elimination the current phase is played to its
    end before the final turns (true), or the final turns come at once (false, the default)."""
    return cr.flag[FL.ELIMINATION_FINISH_PHASE] != 0


@kernel
def phase_one(cs, cr, cw, g, b):
    """R2-R4 (R1: not in round 1): the clock goes down (below 1: the game ends, E1); the next
    event card (flag events; an elimination by it ends the game, E3); passive genes return to
    active spaces, an exhausted fate token turns back."""
    if cs.clock[g] <= 1:
        finish(cs, cw, g, END_ROUNDS)
        return
    cs.clock[g] -= 1
    cs.round[g] += 1
    reveal(cs, cr, cw, g, b)  # R3
    if cs.ending[g] != 0 and not _finish_phase(cr):  # E3: in Phase I nobody takes a final turn
        finish(cs, cw, g, END_ELIMINATION)
        return
    P = cs.supply.shape[1]
    for p in range(P):
        for c in range(4):
            cs.active_genes[g, p, c] += cs.passive_genes[g, p, c]
            cs.passive_genes[g, p, c] = 0
        cs.fate_exhausted[g, p] = 0
        for k in range(cs.special_used.shape[2]):
            cs.special_used[g, p, k] = 0
    cs.start_player[g] = next_start_player(cs, cr, g)  # R5
    check(cs, cr, cw, g)
    if cs.ending[g] != 0:  # flag elimination_finish_phase: Phase I finished, then the end
        finish(cs, cw, g, END_ELIMINATION)


@kernel
def _final_turns(cs, cr, cw, g, b, active):
    """E3 (2): every player not eliminated who has not passed this round takes one more turn,
    clockwise from the player left of ``active``, the active player itself last (flag
    final_turn_includes_active; false: only the others); then the game ends (3)."""
    P = cs.supply.shape[1]
    include = cr.flag[FL.FINAL_TURN_INCLUDES_ACTIVE] == 0
    for i in range(1, P + 1):
        p = (active + i) % P
        if p == active and (active < 0 or not include):
            continue
        if cs.eliminated[g, p] == 0 and cs.passed[g, p] == 0 and cw.error[g, 0] == 0:
            log(cs, cw, g, EV_TURN, p, 0, 0, 0, 0, 0, 0, 0)
            take_turn(cs, cr, cw, g, b, p)
            check(cs, cr, cw, g)
    finish(cs, cw, g, END_ELIMINATION)


@kernel
def phase_two(cs, cr, cw, g, b):
    """R6, A14: turns clockwise from the starting player, skipping players who passed, until all
    have passed; an elimination ends the game after the final turns (E3; flag
    elimination_finish_phase: after the phase, when every player has passed, so with no final
    turn)."""
    P = cs.supply.shape[1]
    for p in range(P):
        cs.passed[g, p] = 1 if cs.eliminated[g, p] != 0 else 0
    cs.turns[g] = 0
    p = cs.start_player[g]
    log(cs, cw, g, EV_ROUND, -1, cs.clock[g], p, 0, 0, 0, 0, 0)
    log_position(cs, cw, g)
    while cw.error[g, 0] == 0:
        left = False
        for q in range(P):
            if cs.passed[g, q] == 0:
                left = True
        if not left:
            if cs.ending[g] != 0:  # flag elimination_finish_phase: the phase is over
                finish(cs, cw, g, END_ELIMINATION)
            return
        if cs.passed[g, p] == 0:
            cs.active[g] = p
            log(cs, cw, g, EV_TURN, p, 0, 0, 0, 0, 0, 0, 0)
            take_turn(cs, cr, cw, g, b, p)
            check(cs, cr, cw, g)
            cs.turns[g] += 1
            if cs.ending[g] != 0:
                if not _finish_phase(cr):
                    _final_turns(cs, cr, cw, g, b, p)
                    return
                for q in range(P):  # an eliminated player takes no further turn (E2)
                    if cs.eliminated[g, q] != 0:
                        cs.passed[g, q] = 1
            if cs.turns[g] > cr.numbers[N_MAX_TURNS]:
                fail(cw, g, ERR_NO_END, cs.round[g], 0, -1)  # R8: an engine guard
                return
        p = (p + 1) % P


@kernel
def _strongest_area(cs, cr, cw, g, b, done):
    """X2: the next area to test: the strongest not yet tested (``done`` a room mask); equal
    strengths: the starting player picks (Q15; flag area_tie_break = lowest_tile: the lowest
    tile number). -1 when none is left."""
    R = cs.owner.shape[1]
    best = 0
    for r in range(R):
        if not (done >> r) & 1 and cs.cubes[g, r] > best:
            best = cs.cubes[g, r]
    if best == 0:
        return -1
    n = 0
    low = -1
    for r in range(R):
        if not (done >> r) & 1 and cs.cubes[g, r] == best:
            set_option(cw, b, n, r, 0, 0, 0, 0)
            n += 1
            if low < 0 or cr.tile[r] < cr.tile[low]:
                low = r
    if cr.flag[FL.AREA_TIE_BREAK] == LOWEST_TILE:
        return low
    return cw.options[b, decide(cs, cr, cw, g, b, cs.start_player[g], AREA_FIRST, n), 0]


@kernel
def phase_three(cs, cr, cw, g, b):
    """X2-X6: each area, strongest first, tests every player with a group adjacent to it,
    clockwise from the starting player (X3, X4); then absorption (X5) and decay (X6). An
    elimination ends the game once the test in hand is resolved (E3 (1): the players the same
    area has still to test are not tested; flag elimination_finish_phase: after the whole
    phase)."""
    P = cs.supply.shape[1]
    done = 0
    log(cs, cw, g, EV_PHASE, -1, 3, 0, 0, 0, 0, 0, 0)
    while cw.error[g, 0] == 0:
        area = _strongest_area(cs, cr, cw, g, b, done)
        if area < 0:
            break
        done |= 1 << area
        strength = cs.cubes[g, area]
        for i in range(P):
            p = (cs.start_player[g] + i) % P
            if cs.eliminated[g, p] != 0:
                continue
            t = threat(cs, cr, g, p, area, strength)
            if t == strength:
                continue  # no group adjacent to it
            face = roll(cs, cr, cw, g, b, p, ROLL_TEST, -1)
            gain = irradiation_gain(cs, cr, g, p, t, face)
            log(cs, cw, g, EV_TEST, p, area, t, face, gain, cs.irradiation[g, p], 0, 0)
            irradiate(cs, cr, cw, g, b, p, gain, -1)
            check(cs, cr, cw, g)
            if cs.ending[g] != 0 and not _finish_phase(cr):  # E3 (1): once this test is resolved
                finish(cs, cw, g, END_ELIMINATION)
                return
    if cw.log_events:
        for r in range(cs.owner.shape[1]):
            if left_uncharged(cs, cr, g, r):
                log(cs, cw, g, EV_CHARGED, cs.owner[g, r], r, 1, 0, 0, 0, 0, 0)
    absorb(cs, cr, g)
    if cw.check_invariants and cw.error[g, 0] == 0 and absorbed(cs, cr, g) != 0:
        fail(cw, g, ERR_INVARIANT, 12, 0, -1)  # I12
    if cw.log_events:
        for r in range(cs.cubes.shape[1]):
            if cs.cubes[g, r] > 0:
                log(cs, cw, g, EV_DECAY, -1, r, cs.cubes[g, r] - 1, 0, 0, 0, 0, 0)
    decay(cs, g)
    check(cs, cr, cw, g)
    if cs.ending[g] != 0:  # flag elimination_finish_phase: Phase III finished, then the end
        finish(cs, cw, g, END_ELIMINATION)


@kernel
def play_game(cs, cr, cw, g, b):
    """Game g from setup to its end (E1, E3), or until an error stops it; then I1-I10 of its
    final position, in every run (§12)."""
    setup(cs, cr, cw, g, b)
    first = True
    while not cs.finished[g] and cw.error[g, 0] == 0:
        if not first:  # R1: no Phase I in round 1
            phase_one(cs, cr, cw, g, b)
            if cs.finished[g]:
                break
        first = False
        phase_two(cs, cr, cw, g, b)
        if cs.finished[g] or cw.error[g, 0] != 0:
            break
        phase_three(cs, cr, cw, g, b)
    # The end-of-game check, on in every run (not only in debug mode): I1-I10 once, a few hundred
    # reads against a game's many thousands, so that an impossible final position (a defect in
    # the engine or in rules that bypassed validation) is an error, never a result.
    fail_if_broken(cs, cr, cw, g, AT_GAME_END)


@kernel
def draw_species(cs, g):
    """S4: a uniform draw of distinct species for the players (the batch's, not a decision)."""
    P = cs.species.shape[1]
    taken = 0
    for p in range(P):
        k = below(cs.rng_key, cs.rng_ctr, g, STREAM_SETUP, 4 - p)
        for s in range(4):
            if not (taken >> s) & 1:
                if k == 0:
                    cs.species[g, p] = s
                    taken |= 1 << s
                    break
                k -= 1


@kernel
def play_block(cs, cr, cw, b, n_blocks, fixed_species):
    """Every game g of block b (g = b, b + n_blocks, ...) from setup to its end."""
    for g in range(b, cs.round.shape[0], n_blocks):
        if fixed_species == 0:
            draw_species(cs, g)
        deal_deck(cs, cr, g)
        play_game(cs, cr, cw, g, b)
