"""Combat (spec §4.5, F1-F11): strength, boosts, rolls with their reroll windows, the loser's
tokens as the winner's trophies. Spark (A8-A9) and the attack-type special actions call
:func:`fight` once the attack's cost is paid (F1)."""

from sim.chromosome.engine import flags as FL
from sim.chromosome.engine.decision_kinds import BOOST
from sim.chromosome.engine.decisions import decide, set_option
from sim.chromosome.engine.dice import roll
from sim.chromosome.engine.events import EV_BOOST, EV_COMBAT, log
from sim.chromosome.engine.population import check_eliminations, take_tokens
from sim.chromosome.engine.state import N_RED_STRENGTH, ROLL_ATTACK, ROLL_DEFENCE
from sim.jit import kernel

AFTER_ROLLS = 1
RED = 2  # the R gene colour
TIE_BOTH, TIE_ATTACKER_ONLY = 0, 1  # F9; FE2 Dominacja: only the attacker takes a trophy


@kernel
def boost(cs, cr, cw, g, b, p):
    """F2/F3, Q13: player p exhausts any number of its active R genes (genes.red_strength each)
    and spends any amount of fate (+1 each); returns the boost."""
    n = 0
    for r in range(cs.active_genes[g, p, RED] + 1):
        for f in range(cs.fate[g, p] + 1):
            set_option(cw, b, n, r, f, 0, 0, 0)
            n += 1
    i = decide(cs, cr, cw, g, b, p, BOOST, n)
    r = cw.options[b, i, 0]
    f = cw.options[b, i, 1]
    cs.active_genes[g, p, RED] -= r
    cs.passive_genes[g, p, RED] += r
    cs.fate[g, p] -= f
    log(cs, cw, g, EV_BOOST, p, r, f, 0, 0, 0, 0, 0)
    return r * cr.numbers[N_RED_STRENGTH] + f


@kernel
def fight(cs, cr, cw, g, b, p, a, d, bonus, tie):
    """F2-F10: p's group in room ``a`` attacks the group in room ``d``; ``bonus``: the attacker's
    modifier from a special action (F6, FE1); ``tie``: TIE_*. Returns +1 if the attacker won, -1
    if the defender won, 0 for a tie."""
    q = cs.owner[g, d]
    strength_a = cs.size[g, a] + bonus
    strength_d = cs.size[g, d]
    after = cr.flag[FL.FATE_STRENGTH_TIMING] == AFTER_ROLLS
    if not after:
        strength_a += boost(cs, cr, cw, g, b, p)  # F2, then F3 having seen it
        strength_d += boost(cs, cr, cw, g, b, q)
    total_a = strength_a + roll(cs, cr, cw, g, b, p, ROLL_ATTACK, q)  # F4
    total_d = strength_d + roll(cs, cr, cw, g, b, q, ROLL_DEFENCE, p)  # F5
    if after:  # flag fate_strength_timing = after_rolls: the boosts once both rolls are final
        total_a += boost(cs, cr, cw, g, b, p)
        total_d += boost(cs, cr, cw, g, b, q)
    lost = 0  # tokens the loser gave up (a tie: the defender's)
    lost_a = 0  # a tie: the attacker's (TIE_BOTH)
    if total_a > total_d:  # F7, F8
        lost = take_tokens(cs, g, d, total_a - total_d, p)
        result = 1
    elif total_d > total_a:
        lost = take_tokens(cs, g, a, total_d - total_a, q)
        result = -1
    else:  # F9
        lost = take_tokens(cs, g, d, 1, p)
        if tie == TIE_BOTH:
            lost_a = take_tokens(cs, g, a, 1, q)
        result = 0
    log(cs, cw, g, EV_COMBAT, p, a, d, total_a, total_d, result, lost, lost_a)
    check_eliminations(cs, cw, g)  # F10
    return result
