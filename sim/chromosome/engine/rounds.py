"""The round's frame (spec §3): the starting player of Phase II (R5)."""

from sim.chromosome.engine import flags as FL
from sim.chromosome.engine.population import board_groups, board_tokens, charged_tokens
from sim.jit import kernel

START_GROUPS, START_CHARGED = 1, 2  # flag start_count: tokens (0), groups, charged_tokens


@kernel
def start_count(cs, cr, g, p):
    """R5 (flag start_count): what "fewest own tokens on the board" counts."""
    how = cr.flag[FL.START_COUNT]
    if how == START_GROUPS:
        return board_groups(cs, g, p)
    if how == START_CHARGED:
        return charged_tokens(cs, g, p)
    return board_tokens(cs, g, p)


@kernel
def next_start_player(cs, cr, g):
    """R5: from round 2, the player with the fewest own tokens on the board starts; among tied
    players the first reached clockwise from the seat left of the previous starter, the previous
    starter reached last (flag start_tie_previous_last; false: a tied previous starter keeps it).
    Eliminated players are skipped (E2)."""
    P = cs.supply.shape[1]
    prev = cs.start_player[g]
    fewest = 1 << 30
    for p in range(P):
        if cs.eliminated[g, p] == 0:
            fewest = min(fewest, start_count(cs, cr, g, p))
    keeps = cr.flag[FL.START_TIE_PREVIOUS_LAST] != 0
    if keeps and cs.eliminated[g, prev] == 0 and start_count(cs, cr, g, prev) == fewest:
        return prev
    for i in range(1, P + 1):
        p = (prev + i) % P
        if cs.eliminated[g, p] == 0 and start_count(cs, cr, g, p) == fewest:
            return p
    return prev
