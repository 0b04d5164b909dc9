"""Pig's engine: a struct of arrays (leading axis = game) and the kernels that play a batch.

One phase is one turn (PG2-PG4); :func:`play_block` plays a block of games to the end (PG5,
PG6); the Python side (the batch, threads, ranks) is batch.py. Random draws come from each
game's own counter-based streams (sim.random_stream), so a game is a pure function of (rules,
strategies, seating, seed, game index) on any number of threads. With ``check`` set the
invariants are checked after every turn (debug mode); a broken one stops the game with its
number in ``pig_games[g, ERROR]``.
"""

import numpy as np

from sim.jit import kernel
from sim.pig.policy_port import rolls_again
from sim.pig.rules import RULE_BUST, RULE_FACES, RULE_MAX_TURNS, RULE_TARGET
from sim.random_stream import below, refork

# pig_games columns: one row per game
CURRENT, TURN_TOTAL, TURNS, FINISHED, ERROR, DICE_USED = range(6)
GAME_FIELDS = 6
STREAM_DICE, STREAM_POLICY, STREAM_SEATING = range(3)  # a game's streams (the assignment is 3)
N_STREAMS = 3
NO_DIE = -1  # a scenario's dice tape: draw from the stream past its end

# pig_tape: forced roll-or-hold choices (decision points, issue 33): a head, then one entry a
# decision (ROLL or HOLD, or TAPE_STOP: stop the game there). The tape forces the decisions of the
# players in the TAPE_SEATS mask; the choice at TAPE_FORK_AT forks the game (refork: TAPE_FORK_KEY).
TAPE_LEN, TAPE_POS, TAPE_SEATS, TAPE_FORK_AT, TAPE_FORK_KEY = range(5)
TAPE_HEAD = 5
HOLD, ROLL = 0, 1  # a decision's options, in this order
TAPE_STOP = -1
ERR_DECISION_POINT = -1  # pig_games[g, ERROR]: not a broken invariant, a stop at a decision point


@kernel
def seat_players(pig_games, pig_seat, key, ctr):
    """PG1: a uniform permutation of start spaces per game; the start space 1 player starts."""
    P = pig_seat.shape[1]
    for g in range(pig_seat.shape[0]):
        for p in range(P):
            pig_seat[g, p] = p + 1
        for i in range(P - 1, 0, -1):
            j = below(key, ctr, g, STREAM_SEATING, i + 1)
            x = pig_seat[g, i]
            pig_seat[g, i] = pig_seat[g, j]
            pig_seat[g, j] = x
        for p in range(P):
            if pig_seat[g, p] == 1:
                pig_games[g, CURRENT] = p


@kernel
def _roll(pig_games, pig_dice, pig_rules, key, ctr, g):
    used = pig_games[g, DICE_USED]
    if used < pig_dice.shape[1] and pig_dice[g, used] != NO_DIE:
        pig_games[g, DICE_USED] = used + 1
        return pig_dice[g, used]
    return below(key, ctr, g, STREAM_DICE, pig_rules[RULE_FACES]) + 1


@kernel
def forced_roll(pig_games, pig_tape, key, g, p):
    """Player p's forced choice (ROLL or HOLD) from the tape, or -1 when the tape does not force
    it; TAPE_STOP stops the game here (ERR_DECISION_POINT; the caller returns)."""
    t = pig_tape[g, TAPE_POS]
    if t >= pig_tape[g, TAPE_LEN] or (pig_tape[g, TAPE_SEATS] >> p) & 1 == 0:
        return -1
    v = pig_tape[g, TAPE_HEAD + t]
    if v == TAPE_STOP:
        pig_games[g, ERROR] = ERR_DECISION_POINT
        return HOLD
    pig_tape[g, TAPE_POS] = t + 1
    if t == pig_tape[g, TAPE_FORK_AT]:
        refork(key, g, np.uint64(pig_tape[g, TAPE_FORK_KEY]))  # Pig hides nothing else: dice, draws
    return v


@kernel
def play_turn(pig_games, pig_scores, pig_hold, pig_seat, pig_dice, pig_rules, pig_tape, key, ctr, g):
    """One turn of game g (PG2-PG5): roll until the strategy holds or the die busts."""
    p = pig_games[g, CURRENT]
    pig_games[g, TURN_TOTAL] = 0
    while True:
        total = pig_games[g, TURN_TOTAL]
        if total > 0:
            again = -1
            if pig_tape[g, TAPE_LEN] > 0:  # (a decision point's replay; never in a plain run)
                again = forced_roll(pig_games, pig_tape, key, g, p)
                if pig_games[g, ERROR] != 0:
                    return
            if again < 0:
                rolls = rolls_again(
                    pig_hold[g, p],
                    pig_scores[g, p],
                    total,
                    pig_rules[RULE_TARGET],
                    key,
                    ctr,
                    g,
                    STREAM_POLICY,
                )
                again = ROLL if rolls else HOLD
            if again == HOLD:
                pig_scores[g, p] += total  # PG4
                break
        face = _roll(pig_games, pig_dice, pig_rules, key, ctr, g)
        if face == pig_rules[RULE_BUST]:
            break  # PG3: the turn total is lost
        pig_games[g, TURN_TOTAL] = total + face  # PG2
    pig_games[g, TURN_TOTAL] = 0
    pig_games[g, TURNS] += 1
    if pig_scores[g, p] >= pig_rules[RULE_TARGET] or pig_games[g, TURNS] >= pig_rules[RULE_MAX_TURNS]:
        pig_games[g, FINISHED] = 1  # PG5, PG6
        return
    # PG1: the next player in seat order (start space s + 1, after the last the first)
    P = pig_seat.shape[1]
    nxt = pig_seat[g, p] % P + 1
    for q in range(P):
        if pig_seat[g, q] == nxt:
            pig_games[g, CURRENT] = q


@kernel
def check_invariants(pig_games, pig_scores, pig_seat, pig_rules, g):
    """After a turn: no turn total is carried (1), scores stay in [0, target + faces * 100] (2),
    the seats are a permutation of 1..P (3), a finished game has a winner or used every turn (4).
    Returns the number of the first broken invariant, 0 if none."""
    if pig_games[g, TURN_TOTAL] != 0:
        return 1
    P = pig_scores.shape[1]
    best = 0
    seen = 0
    for p in range(P):
        if pig_scores[g, p] < 0:
            return 2
        best = max(best, pig_scores[g, p])
        seen |= 1 << (pig_seat[g, p] - 1)
    if seen != (1 << P) - 1:
        return 3
    if (
        pig_games[g, FINISHED]
        and best < pig_rules[RULE_TARGET]
        and pig_games[g, TURNS] < pig_rules[RULE_MAX_TURNS]
    ):
        return 4
    return 0


@kernel
def play_block(
    pig_games,
    pig_scores,
    pig_hold,
    pig_seat,
    pig_dice,
    pig_rules,
    pig_tape,
    key,
    ctr,
    b,
    n_blocks,
    check,
    turns,
):
    """Block b of the batch: each game for ``turns`` more turns (0: to the end)."""
    G = pig_games.shape[0]
    for g in range(b * G // n_blocks, (b + 1) * G // n_blocks):
        played = 0
        while pig_games[g, FINISHED] == 0 and pig_games[g, ERROR] == 0 and (turns == 0 or played < turns):
            play_turn(pig_games, pig_scores, pig_hold, pig_seat, pig_dice, pig_rules, pig_tape, key, ctr, g)
            played += 1
            if check:
                pig_games[g, ERROR] = check_invariants(pig_games, pig_scores, pig_seat, pig_rules, g)
