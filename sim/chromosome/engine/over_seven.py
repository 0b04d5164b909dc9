"""Over 7 (spec X4): irradiation past the track's end removes tokens, or eliminates."""

from sim.chromosome.engine.decision_kinds import REMOVE
from sim.chromosome.engine.decisions import decide, set_option
from sim.chromosome.engine.events import EV_OVER_SEVEN, EV_REMOVE, log
from sim.chromosome.engine.population import board_tokens, eliminate, take_tokens
from sim.chromosome.engine.state import N_IRRADIATION_MAX
from sim.jit import kernel


@kernel
def irradiate(cs, cr, cw, g, b, p, gain, holder):
    """X4: player p's irradiation rises by ``gain``. Past the track's end (7) by x, a player with
    more than x tokens on the board removes x of them, one at a time and of its choice (Q16), to
    its supply (to ``holder``'s trophies under Fala, CA4; -1: the supply) and stays at 7; with x
    or fewer it removes them all and is eliminated (E2)."""
    if gain <= 0 or cs.eliminated[g, p] != 0:
        return
    top = cr.numbers[N_IRRADIATION_MAX]
    level = cs.irradiation[g, p] + gain
    if level <= top:
        cs.irradiation[g, p] = level
        return
    x = level - top
    cs.irradiation[g, p] = top
    if holder == p:
        holder = -1  # CA4: the Cadum player's own tokens go to its supply
    R = cs.owner.shape[1]
    if board_tokens(cs, g, p) <= x:
        removed = 0
        for r in range(R):
            if cs.owner[g, r] == p:
                removed += take_tokens(cs, g, r, cs.size[g, r], holder)
        log(cs, cw, g, EV_OVER_SEVEN, p, x, removed, 1, 0, 0, 0, 0)
        eliminate(cs, cw, g, p)
        return
    log(cs, cw, g, EV_OVER_SEVEN, p, x, x, 0, 0, 0, 0, 0)
    for _ in range(x):
        n = 0
        for r in range(R):
            if cs.owner[g, r] == p:
                set_option(cw, b, n, r, 0, 0, 0, 0)
                n += 1
        r = cw.options[b, decide(cs, cr, cw, g, b, p, REMOVE, n), 0]
        take_tokens(cs, g, r, 1, holder)
        log(cs, cw, g, EV_REMOVE, p, r, 0, 0, 0, 0, 0, 0)
