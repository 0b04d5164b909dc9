"""A player's moves (spec §4.2, M1-M7, Q3): whether it has one, every legal one as a decision's
options, and one chosen and made. The turn's move (T1) and Pars's extra move (PA4) both use them."""

from sim.chromosome.engine.decision_kinds import MOVE
from sim.chromosome.engine.decisions import decide, set_option
from sim.chromosome.engine.events import EV_MOVE, log
from sim.chromosome.engine.population import may_move, move
from sim.jit import kernel


@kernel
def has_move(cs, cr, g, p):
    """M1-M7: has player p a legal move now?"""
    for src in range(cs.owner.shape[1]):
        if cs.owner[g, src] != p:
            continue
        for s in range(cr.degree[src]):
            for k in range(1, cs.size[g, src] + 1):
                if may_move(cs, cr, g, p, src, cr.neighbours[src, s], k):
                    return True
    return False


@kernel
def list_moves(cs, cr, cw, g, b, p):
    """M1-M7, Q3: every legal move of player p (group, tokens, destination)."""
    n = 0
    R = cs.owner.shape[1]
    for src in range(R):
        if cs.owner[g, src] != p:
            continue
        for s in range(cr.degree[src]):
            dst = cr.neighbours[src, s]
            for k in range(1, cs.size[g, src] + 1):
                if may_move(cs, cr, g, p, src, dst, k):
                    set_option(cw, b, n, src, dst, k, 0, 0)
                    n += 1
    return n


@kernel
def take_move(cs, cr, cw, g, b, p):
    """M1, Q3: player p picks one of its legal moves (there is one) and makes it."""
    n = list_moves(cs, cr, cw, g, b, p)
    i = decide(cs, cr, cw, g, b, p, MOVE, n)
    src, dst, k = cw.options[b, i, 0], cw.options[b, i, 1], cw.options[b, i, 2]
    move(cs, g, p, src, dst, k)
    log(cs, cw, g, EV_MOVE, p, src, dst, k, 0, 0, 0, 0)
