"""The end of a game (spec §6): the score (E4) and the winners (E5)."""

from sim.chromosome.engine.population import board_tokens
from sim.jit import kernel

FATE_POINTS = 2  # E4: each fate point left scores 2


@kernel
def score(cs, g, p):
    """E4: +1 per own token on the board, +1 per trophy held, +2 per fate point left, minus the
    irradiation level."""
    trophies = 0
    for q in range(cs.trophies.shape[2]):
        trophies += cs.trophies[g, p, q]
    return board_tokens(cs, g, p) + trophies + FATE_POINTS * cs.fate[g, p] - cs.irradiation[g, p]


@kernel
def winners(cs, g, mark):
    """E5: mark[p] = 1 for every player with the highest score among the players not eliminated
    (ties all win); eliminated players lose; nobody wins if every player is eliminated. Returns
    the number of winners."""
    P = mark.shape[0]
    best = -(1 << 30)
    for p in range(P):
        mark[p] = 0
        if cs.eliminated[g, p] == 0:
            best = max(best, score(cs, g, p))
    n = 0
    for p in range(P):
        if cs.eliminated[g, p] == 0 and score(cs, g, p) == best:
            mark[p] = 1
            n += 1
    return n


@kernel
def score_all(cs, scores, won):
    """E4, E5 for every game of the batch: scores[g, p] and won[g, p] (1 = a winner)."""
    for g in range(scores.shape[0]):
        winners(cs, g, won[g])
        for p in range(scores.shape[1]):
            scores[g, p] = score(cs, g, p)
