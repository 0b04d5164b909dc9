"""Policy kernels: how a strategy's parameter row picks one of the legal options.

``choose`` is called by the engine's ``decide`` (sim/ursuppe/engine/decisions.py) with the legal
options already in ``wk.options[b, :n]`` (layouts in sim/ursuppe/engine/decision_kinds.py). With
probability ``randomness`` the choice is uniform over the options (drawn from the game's own
strategy stream); otherwise every option gets a value from the heuristics below and the first
best one is taken. The propensities (attack, retry, Aggression, answer, between 0 and 1) draw
from the same stream only when they are strictly between 0 and 1, so a strategy whose
parameters are all 0/1 or larger chooses deterministically.

The heuristics are deliberately simple and readable, one kernel per decision kind: a space is
worth its food minus its crowding (plus prey for a hunter), BP above the reserve may be spent,
genes are bought by their ``gene_value``, attacks go to other players' amoebas, the leader's
first. Every weight is a parameter (strategies/ursuppe/params.py, docs/strategies.md); with the
parameters' defaults the heuristics are the original greedy ones.
"""

import numpy as np

from sim.jit import always_inline, kernel
from sim.random_stream import below, next_u64
from sim.ursuppe.engine.board import CHOICE, STAY, step
from sim.ursuppe.engine.decision_kinds import (
    ATTACK,
    BUY,
    COLOUR,
    DIRECTION,
    DIVIDE,
    EAT,
    EAT_SUCTION_SLOT,
    EAT_VICTIM_SLOT,
    KIND_INDEX,
    MOVE,
    MOVE_ACTIVE,
    MOVE_DRIFT,
    MOVE_STAY,
    PAY,
    PLACE_EXPLOSION,
    PLACE_FREE,
    PLACE_SETUP,
    RESP_ESCAPE,
    RESP_NONE,
    RESPOND,
    RESPONSE_ANSWERS,
    SUCTION_BITS,
)
from sim.ursuppe.engine.food import FOOD_CAP
from sim.ursuppe.engine.gene_sets import join_words, lowest
from sim.ursuppe.engine.genes.armor import ARMOR
from sim.ursuppe.engine.genes.camouflage_2 import CAMOUFLAGE_2
from sim.ursuppe.engine.genes.defense import DEFENSE
from sim.ursuppe.engine.genes.more_than_a_mouthful import mouthful_deters
from sim.ursuppe.engine.genes.movement_i import MOVEMENT_I
from sim.ursuppe.engine.genes.movement_ii import MOVEMENT_II
from sim.ursuppe.engine.genes.parasitism import PARASITISM
from sim.ursuppe.engine.genes.streamlining import active_move_cost
from sim.ursuppe.engine.genes.struggle_for_survival import STRUGGLE
from sim.ursuppe.engine.players import (
    amoebas_on_board,
    blocked_by_advanced,
    division_cost,
    gene_cost,
    mutation_points,
    sources,
    within_reach,
)
from sim.ursuppe.engine.state import AF_ATTACKED, PF_AGGRESSED, PF_ALARM, STREAM_STRATEGY
from sim.ursuppe.rules.extra_flags import XFLAG_INDEX
from sim.ursuppe.rules.genes import (
    GENE_INDEX,
)
from strategies.ursuppe.params import (
    ACTIVE_MOVE_MARGIN,
    ACTIVE_MOVES,
    AGGRESS_PROPENSITY,
    ANSWER_BOTH,
    ANSWER_ESCAPE_FIRST,
    ANSWER_PROPENSITY,
    ARMOR_TARGET_PENALTY,
    ATTACK_OWN,
    ATTACK_PROPENSITY,
    BP_RESERVE,
    CROWDING_PENALTY,
    DEFECT_GENE_WEIGHT,
    DEFENDED_PENALTY,
    DIVISION_BASE,
    DIVISION_RESERVE,
    EAT_CUBE_COST,
    EAT_LEADER_COLOUR,
    FOOD_WEIGHT,
    GENE_VALUE_BASE,
    GIVE_UP_WEIGHT,
    HARD_CRUST_MAX_BP,
    HUNGRY_COLOUR_FIRST,
    MAX_AMOEBAS,
    MOUTHFUL_TARGET_PENALTY,
    MOVE_LOOKAHEAD,
    MP_LIMIT,
    PARASITE_BONUS,
    PREY_BONUS,
    RANDOM_TIES,
    RANDOMNESS,
    RETRY_PROPENSITY,
    SAVE_FOR_VALUE,
    SPREAD_WEIGHT,
    STAY_MARGIN,
    SUCTION_WEIGHT,
    TARGET_SCORE_WEIGHT,
    VICTIM_SCORE_WEIGHT,
)

# XG-05: an attack target's valuation (a shared decision) reads Hard Crust and its extra BP. The
# gene's module (sim/ursuppe/engine/genes/hard_crust.py) calls decide, which calls this module, so
# they are named here.
_HARD_CRUST = GENE_INDEX["Hard Crust"]
_XF_HARD_CRUST_EXTRA_BP = XFLAG_INDEX["hard_crust_extra_bp"]
# Genes read here by index, not from their modules: those modules sit above this one (they call
# decide, or move amoebas, which decide's callers do), so importing them would be a cycle.
ESCAPE = GENE_INDEX["Escape"]  # sim/ursuppe/engine/genes/escape.py (its escape moves the amoeba)
AGGRESSION = GENE_INDEX["Aggression"]  # sim/ursuppe/engine/genes/aggression.py
# Aggression's decision kind: the policy values it itself (its propensity draw comes after
# choose's own, and may decline at once: no hook can score it first).
AGGRESS = KIND_INDEX["aggress"]

_INV_2_53 = 1.0 / 9007199254740992.0
NEVER = -1.0e9  # the value of an option the strategy rules out (another one is always better)
FACE_SLOT = 8  # Workspace.scores[b, 8:13]: values of the four directions and of staying (MOVE)


@kernel
def _uniform01(st, g):
    return np.float64(next_u64(st.rng_key, st.rng_ctr, g, STREAM_STRATEGY) >> np.uint64(11)) * _INV_2_53


@kernel
def _willing(st, g, prm, k):
    """A propensity ``prm[k]``: 1 (or more) always, 0 never, in between a draw."""
    if prm[k] >= 1.0:
        return True
    if prm[k] <= 0.0:
        return False
    return _uniform01(st, g) < prm[k]


@kernel
def food_value(st, g, p, space):
    """How well ``space`` could feed player p's amoeba: foreign cubes there, up to FOOD_CAP (2)
    per colour: the state's capped sum over all colours, the own colour taken off."""
    return float(st.food_capped[g, space] - min(st.food[g, space, p], FOOD_CAP))


@kernel
@always_inline
def _worth(prm, capped, own, crowd, prey, hunter):
    """space_value from its counts: the space's ``capped`` food (food_capped) of which ``own``
    cubes are the player's colour, ``crowd`` amoebas besides the one valuing it, ``prey`` of
    other players."""
    v = prm[FOOD_WEIGHT] * float(capped - min(own, FOOD_CAP)) - prm[CROWDING_PENALTY] * crowd
    if hunter != 0:
        v += prm[PREY_BONUS] * prey
    return v


@kernel
@always_inline
def _dest_value(prm, occ_all, occ_own, capped_row, food_rows, p, space, here, hunter):
    """space_value of ``space`` for player p's amoeba standing on ``here`` (-1: a new one), from
    the game's rows read once by the caller (occupancy of everyone and of p, capped food, food)."""
    slot = int(space) + 1
    everyone = int(occ_all[slot])
    crowd = everyone - 1 if here >= 0 and space == here else everyone
    prey = everyone - int(occ_own[slot])
    return _worth(prm, int(capped_row[space]), int(food_rows[space, p]), crowd, prey, hunter)


@kernel
def space_value(st, wk, g, b, p, space, prm, skip_a, hunter):
    """A space for player p's amoeba ``skip_a`` (-1: a new one): food, crowding (amoebas there
    other than this one), prey (other players' amoebas there). The amoebas per space are read
    from the state's ``occupancy`` counts."""
    P = st.space.shape[1]
    here = st.space[g, p, skip_a] if skip_a >= 0 else -1
    return _dest_value(
        prm, st.occupancy[g, P], st.occupancy[g, p], st.food_capped[g], st.food[g], p, space, here, hunter
    )


@kernel
def _own_neighbours(st, neighbours, g, p, space):
    """Amoebas of player p on the spaces next to ``space`` (a missing neighbour, -1, reads the
    always-empty slot 0 of ``occupancy``)."""
    n = 0
    for d in range(4):
        n += st.occupancy[g, p, int(neighbours[space, d]) + 1]
    return n


@kernel
def is_hunter(st, g, p):
    """Holds a gene that profits from other players' amoebas nearby (attack or parasitism)."""
    return st.genes[g, p, STRUGGLE] != 0 or st.genes[g, p, AGGRESSION] != 0 or st.genes[g, p, PARASITISM] != 0


@kernel
def leading_opponent(st, ru, g, p):
    """The opponent furthest ahead on the score track (a double play's other colour of the same
    player is no opponent: rules.team)."""
    best = -1
    for q in range(st.score.shape[1]):
        if ru.team[q] != ru.team[p] and (best < 0 or st.score[g, q] > st.score[g, best]):
            best = q
    return best


@kernel
@always_inline
def _can_answer(st, g, q):
    """Player q could answer an attack (holds Escape or Defense, or has Alarm's Escape (XG-03),
    and has BP)."""
    alarm = (st.player_flags[g, q] & PF_ALARM) != 0
    answers = st.genes[g, q, ESCAPE] != 0 or st.genes[g, q, DEFENSE] != 0 or alarm
    return answers and st.bp[g, q] > 0


@kernel
def _saving(st, ru, wk, g, p, prm):
    """BP saved for the most valuable gene above ``save_for_value`` that the player could buy
    (the engine's players.within_reach: in the pool, not held, not blocked by an advanced gene
    it holds, its lower gene held; the Social Gene's last player), at what it would pay
    (players.gene_cost)."""
    best = -1
    blocked = blocked_by_advanced(st, ru, g, p)
    # in gene order, as a loop over every gene; only those valued above save_for_value (a forced
    # gene, params.FORCED_GENE_VALUE, is bought when affordable, never saved for: params.saved_for)
    candidates = sources(st, ru, g, p, blocked) & wk.saved_for[st.strategy[g, p]]
    while candidates != 0:
        gene = lowest(candidates)
        candidates &= candidates - 1
        if not within_reach(st, ru, g, p, gene, blocked):
            continue
        if best < 0 or prm[GENE_VALUE_BASE + gene] > prm[GENE_VALUE_BASE + best]:
            best = gene
    return gene_cost(st, ru, g, p, best) if best >= 0 else 0


@kernel
def sensed_ozone(st, g, p):
    """XG-06, XG-23: the ozone of the card the coming Phase 2 reveals (the next card after the
    current one), if player p has seen it; -1 if not. It reads p's own private knowledge only
    (State.seen_card[g, p]): a strategy calls it for the deciding player, never another."""
    s = st.seen_card[g, p]
    if s >= 0 and s == st.deck_pos[g] + 1:
        return int(st.card_ozone[g, s])
    return -1


@kernel
def _sensed_deficit(st, ru, g, p):
    """E2 foreseen (XG-06, XG-23): the deficit player p's genes will have at the coming gene-defect
    check on the card it has seen (0: none, or not seen)."""
    ozone = sensed_ozone(st, g, p)
    if ozone < 0:
        return 0
    return max(mutation_points(st, ru, g, p) - ozone, 0)


# --- one kernel per decision kind: write the value of option i into wk.scores[b, i] -------------


@kernel
@always_inline
def _placement_value(st, ru, wk, g, b, p, kind, space, prm, hunter):
    """S6, D2, D3: the value of ``space`` for a new amoeba of player p (D4's number aside)."""
    v = space_value(st, wk, g, b, p, space, prm, -1, hunter)
    if kind == DIVIDE:
        v = prm[DIVISION_BASE] + v
    if prm[SPREAD_WEIGHT] != 0.0:
        v += prm[SPREAD_WEIGHT] * _own_neighbours(st, ru.neighbours, g, p, space)
    return v


@kernel
def _division_wanted(st, ru, wk, g, p, prm):
    """D3: does the strategy want another amoeba at all (fewer than ``max_amoebas`` on the board,
    and the BP left once it is paid above its reserve and what it saves for a gene)?"""
    if amoebas_on_board(st, g, p) >= prm[MAX_AMOEBAS]:
        return False
    left = st.bp[g, p] - division_cost(st, ru, g, p)  # D3, XG-18
    # the reserve is the larger of the two: the cheap one first, the saving (a walk over the
    # genes) only when the BP left clear it
    return left >= prm[DIVISION_RESERVE] and left >= float(_saving(st, ru, wk, g, p, prm))


@kernel
def _value_placements(st, ru, wk, g, b, p, kind, n, prm):
    """S6, D2, D3-D4: (space, number) rows; DIVIDE's (-1, -1) = stop."""
    opts = wk.options[b]
    val = wk.scores[b]
    hunter = 1 if is_hunter(st, g, p) else 0
    ok = True
    if kind == DIVIDE:
        ok = _division_wanted(st, ru, wk, g, p, prm)
    last = -1  # the options come grouped by space: value each space once
    v = 0.0
    for i in range(n):
        o = opts[i]
        if o[0] < 0:
            val[i] = 0.0
            continue
        if kind == DIVIDE and not ok:
            val[i] = -1.0
            continue
        if o[0] != last:
            last = o[0]
            v = _placement_value(st, ru, wk, g, b, p, kind, last, prm, hunter)
        val[i] = v - 0.001 * o[1]  # D4: the lowest free number


@kernel
@always_inline
def _faces_valued(prm):
    """Does _active_value value the five destinations one by one (``move_lookahead``)?"""
    return prm[MOVE_LOOKAHEAD] >= 0.5


@kernel
@always_inline
def _active_ruled_out(st, ru, g, p, prm):
    """M3 (XG-06): the strategy makes no active move: it makes none at all, or the move would
    leave fewer BP than a gene defect it has seen coming will cost."""
    keep = _sensed_deficit(st, ru, g, p) if ru.extra_genes else 0
    return prm[ACTIVE_MOVES] < 0.5 or st.bp[g, p] - active_move_cost(st, ru, g, p, False) < keep


@kernel
@always_inline
def _active_value(st, ru, wk, g, b, p, here, hunter, prm, occ_all, occ_own, capped_row, food_rows):
    """M1: the expected value of an active move's destination (before its margin); the
    destinations valued by space_value's arithmetic over the game's rows the caller read. With
    ``move_lookahead`` the five destinations' values are left in wk.scores[b, FACE_SLOT:] (the
    drift's and the stay's are two of them: choose_move reads them there)."""
    val = wk.scores[b]
    neighbours = ru.neighbours
    if not _faces_valued(prm):
        best = 0.0
        for d in range(4):
            s = step(neighbours, here, d)
            best += _dest_value(prm, occ_all, occ_own, capped_row, food_rows, p, s, here, hunter)
        return best / 4.0
    # The destinations' values: the four directions and staying.
    for d in range(5):
        s = step(neighbours, here, d)
        val[FACE_SLOT + d] = _dest_value(prm, occ_all, occ_own, capped_row, food_rows, p, s, here, hunter)
    top = val[FACE_SLOT]
    for d in range(1, 4):
        top = max(top, val[FACE_SLOT + d])
    if st.genes[g, p, MOVEMENT_II] != 0:
        return max(top, val[FACE_SLOT + STAY])
    # A die face's value: its direction, the best of the four on a 6 (B2).
    total = 0.0
    for f1 in range(1, 7):
        c1 = ru.compass[f1]
        v1 = top if c1 == CHOICE else val[FACE_SLOT + min(c1, STAY)]
        if st.genes[g, p, MOVEMENT_I] == 0:
            total += v1 * 6.0
            continue
        for f2 in range(1, 7):
            c2 = ru.compass[f2]
            v2 = top if c2 == CHOICE else val[FACE_SLOT + min(c2, STAY)]
            total += max(v1, v2)
    return total / 36.0


@kernel
@always_inline
def _move_value(st, ru, wk, g, b, p, a, move, here, hunter, prm, faces, ruled_out):
    """M1: the value of ``move`` (MOVE_DRIFT, MOVE_ACTIVE or MOVE_STAY with Holding) for player
    p's amoeba a on ``here``. ``faces``: the active move's valuation of this decision has left
    the five destinations' values in wk.scores[b, FACE_SLOT:] (_active_value), so the drift's
    and the stay's are read there (the same values: a step into an obstacle, or in no
    direction, stays on ``here``, B1). ``ruled_out``: _active_ruled_out of this decision, asked
    once by the caller."""
    if here < 0:
        return 0.0
    if faces and move != MOVE_ACTIVE:
        direction = STAY if move == MOVE_STAY else min(st.card_drift[g, st.deck_pos[g]], STAY)
        v = wk.scores[b, FACE_SLOT + direction]
        return v if move == MOVE_DRIFT else v - prm[STAY_MARGIN]
    # space_value(..., amoeba a) from the game's rows, read once
    P = st.space.shape[1]
    occ_all = st.occupancy[g, P]
    occ_own = st.occupancy[g, p]
    capped_row = st.food_capped[g]
    food_rows = st.food[g]
    if move == MOVE_DRIFT:
        dest = step(ru.neighbours, here, st.card_drift[g, st.deck_pos[g]])
        return _dest_value(prm, occ_all, occ_own, capped_row, food_rows, p, dest, here, hunter)
    if move == MOVE_ACTIVE:
        if ruled_out:
            return NEVER
        value = _active_value(st, ru, wk, g, b, p, here, hunter, prm, occ_all, occ_own, capped_row, food_rows)
        return value - prm[ACTIVE_MOVE_MARGIN]
    stay = _dest_value(prm, occ_all, occ_own, capped_row, food_rows, p, here, here, hunter)
    return stay - prm[STAY_MARGIN]


@kernel
def _value_moves(st, ru, wk, g, b, p, a, n, prm):
    """M1: 0 drift / 1 active / 2 stay (Holding)."""
    opts = wk.options[b]
    val = wk.scores[b]
    here = st.space[g, p, a] if a >= 0 else -1
    hunter = 1 if is_hunter(st, g, p) else 0
    for i in range(n):
        move = opts[i, 0]
        ruled_out = move == MOVE_ACTIVE and _active_ruled_out(st, ru, g, p, prm)  # one active row at most
        val[i] = _move_value(st, ru, wk, g, b, p, a, move, here, hunter, prm, False, ruled_out)


@kernel
def _food_pressure(st, ru, g, p, space, self_here):
    """How much taking a cube from ``space`` hurts others rather than player p: other players'
    amoebas there minus p's own (``self_here``: the eating amoeba, not counted)."""
    slot = int(space) + 1
    P = st.space.shape[1]
    own = 0
    for q in range(P):
        if ru.team[q] == ru.team[p]:
            own += st.occupancy[g, q, slot]
    return float(st.occupancy[g, P, slot] - own) - float(own - self_here)


@kernel
@always_inline
def meal_value(st, g, prm, cubes, victim, leader, led):
    """M4, F4: the value of a meal of ``cubes`` cubes (> 0), ``led`` of them of the ``leader``'s colour
    (leading_opponent; -1: none), parasitizing ``victim`` (-1: none); Suction's pressure aside.
    The engine streams the meals through it (feeding.eat_or_starve) as _value_eat values them."""
    v = -(prm[EAT_CUBE_COST] * cubes)
    v += (prm[PARASITE_BONUS] + prm[VICTIM_SCORE_WEIGHT] * st.score[g, victim]) if victim >= 0 else 0.0
    if leader >= 0:
        v += prm[EAT_LEADER_COLOUR] * led
    return v


@kernel
def _value_eat(st, ru, wk, g, b, p, a, n, prm):
    """M4, F1-F4: cubes per colour eaten, and the parasitized player (-1 none); Glutton's extra
    cube is one more of some colour (XG-02); Suction's cubes (XG-12, XG-26) count like the others
    and are worth ``suction_weight`` per cube by where they are taken from (_food_pressure)."""
    opts = wk.options[b]
    val = wk.scores[b]
    leader = leading_opponent(st, ru, g, p)
    here = st.space[g, p, a] if a >= 0 else -1
    # what taking a cube from the own space would press (Suction's cubes only, XG-12: extra genes)
    own = _food_pressure(st, ru, g, p, here, 1) if ru.extra_genes and here >= 0 else 0.0
    for i in range(n):
        o = opts[i]
        cubes = 0
        for c in range(st.supply.shape[1]):
            cubes += o[c]
        suction = o[EAT_SUCTION_SLOT]
        pressure = 0.0
        led = 0
        while suction != 0:
            cube = (suction & ((1 << SUCTION_BITS) - 1)) - 1
            suction >>= SUCTION_BITS
            cubes += 1
            if cube % 8 == leader:
                led += 1
            if here >= 0:
                pressure += _food_pressure(st, ru, g, p, cube // 8, 0) - own
        if cubes == 0:  # declining gene patterns (flag gene_meals_optional) starves: never chosen
            val[i] = NEVER
            continue
        v = meal_value(st, g, prm, cubes, o[EAT_VICTIM_SLOT], leader, (o[leader] + led) if leader >= 0 else 0)
        if pressure != 0.0:
            v += prm[SUCTION_WEIGHT] * pressure
        val[i] = v


@kernel
@always_inline
def _target_value(st, ru, g, p, q, prm, bp_left, phase1):
    """An attack target of player q: the leader first; less if it can answer or has Armor.
    Extra genes: no answer against Camouflage 2 (XG-24); a Hard Crust target (XG-05) only if
    ``bp_left`` (the attacker's BP once the attack is paid) covers the extra BP it would be
    willing to pay; a Mouthful target (XG-09) that would only take 1 DP is worth less."""
    v = max(1.0 + prm[TARGET_SCORE_WEIGHT] * st.score[g, q], 0.01)
    if _can_answer(st, g, q) and st.genes[g, p, CAMOUFLAGE_2] == 0:
        v -= prm[DEFENDED_PENALTY]
    if st.genes[g, q, ARMOR] != 0:
        v -= prm[ARMOR_TARGET_PENALTY]
    if ru.extra_genes:
        if st.genes[g, q, _HARD_CRUST] != 0:
            extra = ru.xflag[_XF_HARD_CRUST_EXTRA_BP]
            if extra > bp_left or extra > prm[HARD_CRUST_MAX_BP]:
                return -1.0
        if phase1 and mouthful_deters(st, ru, g, p, q):
            v -= prm[MOUTHFUL_TARGET_PENALTY]
    return v if v > 0.0 else -1.0  # never below 'none', not even by a random tie-break


@kernel
def _value_attack(st, ru, wk, g, b, p, a, n, prm):
    """A1, A5: (target player, number); (-1, -1) = none. Returns False to take 'none' at once."""
    opts = wk.options[b]
    val = wk.scores[b]
    retry = (st.amoeba_flags[g, p, a] & AF_ATTACKED) != 0 or (st.player_flags[g, p] & PF_AGGRESSED) != 0
    phase5 = (st.player_flags[g, p] & PF_AGGRESSED) != 0  # Aggression's retry (A5 in Phase 5)
    if not _willing(st, g, prm, RETRY_PROPENSITY if retry else ATTACK_PROPENSITY):
        return False
    foreign = False
    for i in range(n):
        if opts[i, 0] >= 0 and ru.team[opts[i, 0]] != ru.team[p]:
            foreign = True
    for i in range(n):
        q = opts[i, 0]
        if q < 0:
            val[i] = 0.0
        elif ru.team[q] == ru.team[p]:  # its own (a double play: its other colour's too)
            val[i] = 0.5 if (prm[ATTACK_OWN] >= 0.5 and not foreign) else -1.0
        else:
            bp_left = st.bp[g, p] - (0 if retry else ru.attack_cost)
            val[i] = _target_value(st, ru, g, p, q, prm, bp_left, not phase5)
    return True


@kernel
def _value_aggress(st, ru, wk, g, b, p, n, prm):
    """R1: (own number, target player, target number); all -1 = none."""
    opts = wk.options[b]
    val = wk.scores[b]
    if not _willing(st, g, prm, AGGRESS_PROPENSITY):
        return False
    for i in range(n):
        if opts[i, 0] < 0:
            val[i] = 0.0
        elif ru.team[opts[i, 1]] == ru.team[p]:  # double play I: its own other seat
            val[i] = -1.0
        else:
            val[i] = _target_value(st, ru, g, p, opts[i, 1], prm, st.bp[g, p] - ru.attack_cost, False)
    return True


@kernel
def _hunger(st, g, c):
    """TB4: how badly colour c needs to move (and eat) before the others: the food its amoebas
    lack where they stand (double play II's first colour is the hungrier one)."""
    lack = 0.0
    for a in range(st.space.shape[2]):
        s = st.space[g, c, a]
        if s >= 0:
            lack += max(3.0 - food_value(st, g, c, s), 0.0)
    return lack


@kernel
def _value_respond(st, wk, g, b, p, n, prm):
    """A2-A4: RESP_* codes. Returns False to take 'none' at once."""
    opts = wk.options[b]
    val = wk.scores[b]
    if not _willing(st, g, prm, ANSWER_PROPENSITY):
        return False
    escape_first = prm[ANSWER_ESCAPE_FIRST] >= 0.5
    both = prm[ANSWER_BOTH] >= 0.5
    for i in range(n):
        first = RESPONSE_ANSWERS[opts[i, 0], 0]  # the engine's answers of the code, in order
        preferred = (first == RESP_ESCAPE) == escape_first
        # rank: the preferred pair, the other pair, the preferred single, the other single
        rank = 0
        if first == RESP_NONE:
            rank = 0
        elif RESPONSE_ANSWERS[opts[i, 0], 1] != RESP_NONE:
            rank = (4 if preferred else 3) if both else -10
        else:
            rank = 2 if preferred else 1
        val[i] = 0.0 if rank == 0 else 1.0 + 0.1 * rank
    return True


@kernel
def pay_value(st, ru, wk, g, p, mask, bp):
    """E2: player p's value of the payment (returned genes ``mask``, ``bp`` BP). Phase 2 streams
    the payments through it without listing them (phase2_environment.choose_payment)."""
    prm = wk.params[st.strategy[g, p]]
    lost = 0.0
    rest = mask & ((np.int64(1) << ru.n_genes) - 1)
    while rest != 0:  # the genes returned, ascending (the sum in gene order)
        gene = lowest(rest)
        rest &= rest - 1
        lost += ru.gene_price[gene] + prm[GENE_VALUE_BASE + gene]
    return -(bp + prm[DEFECT_GENE_WEIGHT] * lost)


@kernel
def _value_pay(st, ru, wk, g, b, p, n):
    """E2: (gene mask low word, high word, BP)."""
    opts = wk.options[b]
    val = wk.scores[b]
    for i in range(n):
        val[i] = pay_value(
            st, ru, wk, g, p, join_words(np.int64(opts[i, 0]), np.int64(opts[i, 1])), opts[i, 2]
        )


@kernel
def _value_buy(st, ru, wk, g, b, p, n, prm):
    """G1-G4: (gene, gene given up or -1, taken from its holder: XG-10); (-1, -1) = stop. The
    price is the engine's (players.gene_cost: Flexible, XG-14; the Social Gene's taking price)."""
    opts = wk.options[b]
    val = wk.scores[b]
    mp = mutation_points(st, ru, g, p)  # E2
    saving = max(prm[BP_RESERVE], float(_saving(st, ru, wk, g, p, prm)))
    # XG-23: the ozone of the next gene-defect check, if the player has seen that card
    ozone = sensed_ozone(st, g, p) if ru.extra_genes else -1
    for i in range(n):
        gene = opts[i, 0]
        lower = opts[i, 1]
        if gene < 0:
            val[i] = 0.0
            continue
        wanted = prm[GENE_VALUE_BASE + gene] > prm[SAVE_FOR_VALUE]
        cost = gene_cost(st, ru, g, p, gene) if ru.extra_genes else ru.gene_price[gene]
        if st.bp[g, p] - cost < (prm[BP_RESERVE] if wanted else saving):
            val[i] = -1.0
            continue
        mp_after = mp + ru.gene_mp[gene] - (ru.gene_mp[lower] if lower >= 0 else 0)
        if mp_after > prm[MP_LIMIT] and mp_after > mp:
            val[i] = -1.0
            continue
        if ozone >= 0 and mp_after > ozone and mp_after > mp:
            val[i] = -1.0  # a sure gene defect at the next check: the card was seen (XG-23)
            continue
        v = prm[GENE_VALUE_BASE + gene]
        if lower >= 0:
            v -= prm[GIVE_UP_WEIGHT] * prm[GENE_VALUE_BASE + lower]
            if gene == ARMOR:  # Defense or Escape: give up the less valuable one
                v -= 1e-9 * prm[GENE_VALUE_BASE + lower]
        val[i] = v if v > 0.0 else -1.0  # a gene valued at 0 or less is never bought


# --- the extra genes' decisions (docs/rules.md §18) ------------------------------------------------


@kernel
def _value_extra_gene_choice(st, ru, wk, g, b, p, a, kind, n, prm):
    """The extra genes' decisions (§18), apart from choose so that its code stays as small as
    in the base game. The kinds of a gene module (sim/ursuppe/engine/genes/) are not here: its
    hook sets their scores with the module's own ``value`` kernel before it calls decide, and
    they are left as they are (this module cannot import a gene module: it calls decide)."""
    if kind == PLACE_EXPLOSION:
        _value_placements(st, ru, wk, g, b, p, PLACE_FREE, n, prm)


@kernel
def needs_every_option(st, wk, g, p):
    """Does player p's strategy need a decision's options listed in full? Only when it draws
    uniformly among them (``randomness``): its values never prefer an equal option listed later
    (decisions.decide_placement relies on this)."""
    return wk.params[st.strategy[g, p], RANDOMNESS] > 0.0


@kernel
@always_inline
def draw_uniform(st, wk, g, p, n):
    """choose's first step: with probability ``randomness`` player p's strategy draws one of the
    ``n`` options uniformly: its index, else -1. (A decision that is not listed, E2's payments,
    takes the same steps in the same order as choose, so its random draws are choose's.)"""
    r = wk.params[st.strategy[g, p], RANDOMNESS]
    if r > 0.0 and (r >= 1.0 or _uniform01(st, g) < r):
        return below(st.rng_key, st.rng_ctr, g, STREAM_STRATEGY, n)
    return -1


@kernel
@always_inline
def break_tie(st, wk, g, p, ties):
    """choose's last step: which of ``ties`` equally valued best options player p takes (0: the
    first listed; with ``random_ties``, a draw)."""
    if ties > 1 and wk.params[st.strategy[g, p], RANDOM_TIES] >= 0.5:
        return below(st.rng_key, st.rng_ctr, g, STREAM_STRATEGY, ties)
    return 0


@kernel
def choose(st, ru, wk, g, b, p, a, kind, n):
    """Index of the option player p's strategy picks among ``wk.options[b, :n]`` (``a``: the
    deciding amoeba, or -1)."""
    prm = wk.params[st.strategy[g, p]]
    drawn = draw_uniform(st, wk, g, p, n)
    if drawn >= 0:
        return drawn
    opts = wk.options[b]
    val = wk.scores[b]
    if kind == PLACE_SETUP or kind == PLACE_FREE or kind == DIVIDE:
        _value_placements(st, ru, wk, g, b, p, kind, n, prm)
    elif kind == MOVE:
        _value_moves(st, ru, wk, g, b, p, a, n, prm)
    elif kind == DIRECTION:
        here = st.space[g, p, a] if a >= 0 else -1
        hunter = 1 if is_hunter(st, g, p) else 0
        for i in range(n):
            val[i] = (
                space_value(st, wk, g, b, p, step(ru.neighbours, here, opts[i, 0]), prm, a, hunter)
                if here >= 0
                else 0.0
            )
    elif kind == EAT:
        _value_eat(st, ru, wk, g, b, p, a, n, prm)
    elif kind == ATTACK:
        if not _value_attack(st, ru, wk, g, b, p, a, n, prm):
            return 0
    elif kind == AGGRESS:
        if not _value_aggress(st, ru, wk, g, b, p, n, prm):
            return 0
    elif kind == RESPOND:
        if not _value_respond(st, wk, g, b, p, n, prm):
            return 0
    elif kind == PAY:
        _value_pay(st, ru, wk, g, b, p, n)
    elif kind == BUY:
        _value_buy(st, ru, wk, g, b, p, n, prm)
    elif kind == COLOUR:
        sign = 1.0 if prm[HUNGRY_COLOUR_FIRST] >= 0.5 else -1.0
        for i in range(n):
            val[i] = sign * _hunger(st, g, opts[i, 0])
    elif kind > COLOUR:  # the extra genes' kinds come after the base game's
        _value_extra_gene_choice(st, ru, wk, g, b, p, a, kind, n, prm)
    # else: a gene module's kind (sim/ursuppe/engine/genes/): its hook has set the scores with the
    # module's own value kernel before it called decide; they are left as they are.
    best = 0
    ties = 1
    for i in range(1, n):
        if val[i] > val[best]:
            best = i
            ties = 1
        elif val[i] == val[best]:
            ties += 1
    if ties > 1:
        k = break_tie(st, wk, g, p, ties)
        for i in range(best, n):
            if val[i] == val[best]:
                if k == 0:
                    return i
                k -= 1
    return best


# --- streamed decisions: the choice of a decision whose options the engine does not list ----------


@kernel
def choose_move(st, ru, wk, g, b, p, a, active, stay):
    """M1: the move player p's strategy makes with amoeba a among drifting, an active move
    (``active`` 1: offered, M3) and staying (``stay`` 1: Holding), without their rows: the
    option choose would take among the listed rows (drift, active, stay), the same values
    (_move_value) and the same tie-break draw. For a decision the engine streams
    (decisions.streamable) with two options or more."""
    prm = wk.params[st.strategy[g, p]]
    here = st.space[g, p, a] if a >= 0 else -1
    hunter = 1 if is_hunter(st, g, p) else 0
    # The active move first (the values are pure: their order changes nothing): when it values
    # the five destinations, the drift's and the stay's are two of them.
    ruled_out = active != 0 and _active_ruled_out(st, ru, g, p, prm)
    faces = active != 0 and _faces_valued(prm) and not ruled_out
    by_move = NEVER  # the active move's value (when offered)
    if active != 0:
        by_move = _move_value(st, ru, wk, g, b, p, a, MOVE_ACTIVE, here, hunter, prm, False, ruled_out)
    drift = _move_value(st, ru, wk, g, b, p, a, MOVE_DRIFT, here, hunter, prm, faces, ruled_out)
    best = drift
    move = MOVE_DRIFT
    ties = 1
    if active != 0:
        if by_move > best:
            best, move, ties = by_move, MOVE_ACTIVE, 1
        elif by_move == best:
            ties += 1
    if stay != 0:
        staying = _move_value(st, ru, wk, g, b, p, a, MOVE_STAY, here, hunter, prm, faces, ruled_out)
        if staying > best:
            best, move, ties = staying, MOVE_STAY, 1
        elif staying == best:
            ties += 1
    if ties <= 1:
        return move
    k = break_tie(st, wk, g, p, ties)  # the k-th of the equal best, in the listed order
    if drift == best:
        if k == 0:
            return MOVE_DRIFT
        k -= 1
    if active != 0 and by_move == best:
        if k == 0:
            return MOVE_ACTIVE
    return MOVE_STAY


@kernel
def choose_space(st, ru, wk, g, b, p, kind, legal, number):
    """The space player p's strategy places a new amoeba numbered ``number`` on (S6, D2, D3)
    among the spaces of the bit mask ``legal``, or DIVIDE's stop (-1): the option choose would
    take among the listed rows (spaces ascending, each with the lowest free number, DIVIDE's
    stop first), the same values and the same tie-break draw. For a decision the engine streams
    (decisions.streamable) on a board whose spaces fit a mask (rules.MASK_SPACES)."""
    prm = wk.params[st.strategy[g, p]]
    stop = kind == DIVIDE
    if stop and not _division_wanted(st, ru, wk, g, p, prm):
        return -1  # the stop is worth 0, every space -1 (_value_placements)
    hunter = 1 if is_hunter(st, g, p) else 0
    # _placement_value over the game's rows, read once (no store below changes them)
    P = st.space.shape[1]
    everyone = st.occupancy[g, P]
    own = st.occupancy[g, p]
    capped = st.food_capped[g]
    food = st.food[g]
    neighbours = ru.neighbours
    base = prm[DIVISION_BASE]
    spread = prm[SPREAD_WEIGHT]
    best = 0.0  # the stop's value
    best_space = -1
    ties = 1 if stop else 0
    tied = np.int64(0)  # the spaces valued ``best`` (a draw picks among them: no second walk)
    rest = legal
    while rest != 0:  # the legal spaces, ascending
        s = lowest(rest)
        rest &= rest - 1
        v = _dest_value(prm, everyone, own, capped, food, p, s, -1, hunter)
        if stop:
            v = base + v
        if spread != 0.0:
            near = 0
            for d in range(4):
                near += own[int(neighbours[s, d]) + 1]
            v += spread * near
        v = v - 0.001 * number
        if ties == 0 or v > best:
            best = v
            best_space = s
            ties = 1
            tied = np.int64(1) << s
        elif v == best:
            ties += 1
            tied |= np.int64(1) << s
    if ties <= 1:
        return best_space
    k = break_tie(st, wk, g, p, ties)
    if stop and best == 0.0:
        if k == 0:
            return -1
        k -= 1
    for _ in range(k):  # the k-th tied space, ascending
        tied &= tied - 1
    return lowest(tied) if tied != 0 else best_space
