"""The main actions (spec §4.4, A1-A14): which are legal now (T3: the whole cost payable, the
effect with a target), and what each does once chosen. The species' special actions (§7, flag
species_mode = full) are listed after them and played by specials.py; the plain mode (the
default) has none.
"""

from sim.chromosome.engine import flags as FL
from sim.chromosome.engine.combat import TIE_BOTH, fight
from sim.chromosome.engine.costs import (
    UNREACHABLE,
    can_pay,
    evolution_price,
    fate_gene_free,
    genes_held,
    spark_distance,
)
from sim.chromosome.engine.decision_kinds import (
    ACT_EVOLUTION,
    ACT_EVOLUTION_RANDOM,
    ACT_GROWTH_GROUP,
    ACT_GROWTH_ROOMS,
    ACT_IMPULSE_DRAW,
    ACT_IMPULSE_PLACE,
    ACT_NONE,
    ACT_PASS,
    ACT_SPARK,
    ACT_SPECIAL,
    DENY_SPECIAL_BIT,
    GROWTH_ROOM,
)
from sim.chromosome.engine.decisions import decide, set_option
from sim.chromosome.engine.dice import roll
from sim.chromosome.engine.events import (
    EV_EVOLUTION,
    EV_GROWTH,
    EV_IMPULSE,
    EV_PASS,
    EV_SPARK,
    log,
)
from sim.chromosome.engine.payments import pay_energy, pay_genes
from sim.chromosome.engine.population import adjacent, enemy, near_own, sterility
from sim.chromosome.engine.radiation import charge_own_near, cubes_placed
from sim.chromosome.engine.specials import list_specials, take_special
from sim.chromosome.engine.state import (
    N_EVOLUTION_RANDOM,
    N_IMPULSE_CUBES,
    N_MAX_GENES,
    NO_OWNER,
    ROLL_EVOLUTION,
)
from sim.jit import kernel

CHAIN_ROOMS, ONE_GROUP = 1, 2  # growth_adjacency readings (0: before_action)
ACTED, PASSED = 0, 1  # take_action's result (and specials.CHAIN)
Y, P_, R, B = range(4)


@kernel
def _growth_room_ok(cs, cr, g, p, r):
    """A3: an empty room of sterility 1 (a single token must meet M3), not removed."""
    return cs.owner[g, r] == NO_OWNER and cs.removed[g, r] == 0 and sterility(cs, cr, g, r) == 1


@kernel
def growth_rooms_possible(cs, cr, g, p):
    """A3: how many tokens option B could place (flag growth_adjacency): the eligible rooms
    next to an own group (before_action), their closure through new tokens (chain), or the most
    next to one own group (one_group)."""
    R = cs.owner.shape[1]
    how = cr.flag[FL.GROWTH_ADJACENCY]
    if how == ONE_GROUP:
        best = 0
        for x in range(R):
            if cs.owner[g, x] != p:
                continue
            k = 0
            for s in range(cr.degree[x]):
                if _growth_room_ok(cs, cr, g, p, cr.neighbours[x, s]):
                    k += 1
            best = max(best, k)
        return best
    n = 0
    for r in range(R):
        if _growth_room_ok(cs, cr, g, p, r) and near_own(cs, cr, g, p, r):
            n += 1
    if how != CHAIN_ROOMS:
        return n
    # chain: grow the set through eligible rooms next to those already counted
    seen = 0
    for r in range(R):
        if _growth_room_ok(cs, cr, g, p, r) and near_own(cs, cr, g, p, r):
            seen |= 1 << r
    grew = True
    while grew:
        grew = False
        for r in range(R):
            if (seen >> r) & 1 or not _growth_room_ok(cs, cr, g, p, r):
                continue
            for s in range(cr.degree[r]):
                if (seen >> int(cr.neighbours[r, s])) & 1:
                    seen |= 1 << r
                    grew = True
                    break
    k = 0
    for r in range(R):
        k += (seen >> r) & 1
    return k


@kernel
def _without_denied(cr, cw, b, p, n):
    """Restricted play (issue 34): the options of list_actions without those whose action player
    p is denied (Rules.deny_action), the rest in their order; option 0 (Pass, or declining
    Supergen's extra action) is never denied, so one option is always left (A13)."""
    mask = cr.deny_action[p]
    k = 1
    for i in range(1, n):
        code = cw.options[b, i, 0]
        bit = code if code != ACT_SPECIAL else DENY_SPECIAL_BIT + cw.options[b, i, 1]
        if (mask >> bit) & 1 != 0:
            continue
        if k != i:
            for j in range(cw.options.shape[2]):
                cw.options[b, k, j] = cw.options[b, i, j]
        k += 1
    return k


@kernel
def list_actions(cs, cr, cw, g, b, p, chain):
    """T3, Q6, Q9-Q12, Q17: the legal actions of player p now (its own turn), one option row
    each, the species' special actions last (specials.py; none in the plain mode). Pass is always
    legal (A13); ``chain``: Supergen's extra action (AL1), which may be declined (ACT_NONE)
    instead."""
    n = 0
    set_option(cw, b, n, ACT_NONE if chain else ACT_PASS, 0, 0, 0, 0)
    n += 1
    R = cs.owner.shape[1]
    fate = fate_gene_free(cs, g, p)
    # Growth (A1-A3): N Y genes (the fate may be one), N tokens from the supply
    most = min(cs.active_genes[g, p, Y] + (1 if fate else 0), cs.supply[g, p])
    rooms_b = growth_rooms_possible(cs, cr, g, p)
    for k in range(1, most + 1):
        for r in range(R):
            if cs.owner[g, r] == p and cs.size[g, r] + k <= 3:
                set_option(cw, b, n, ACT_GROWTH_GROUP, k, r, 0, 0)
                n += 1
        if k <= rooms_b:
            set_option(cw, b, n, ACT_GROWTH_ROOMS, k, 0, 0, 0)
            n += 1
    # Evolution (A4-A7): always 1 Y, never past the genes' cap
    if genes_held(cs, g, p) < cr.numbers[N_MAX_GENES]:
        for c in range(4):
            if cs.gene_supply[g, c] > 0 and can_pay(
                cs, cr, g, p, 1, 0, 0, 0, 0, evolution_price(cs, cr, g, p, c), True
            ):
                set_option(cw, b, n, ACT_EVOLUTION, c, 0, 0, 0)
                n += 1
        if can_pay(cs, cr, g, p, 1, 0, 0, 0, 0, cr.numbers[N_EVOLUTION_RANDOM], True):
            set_option(cw, b, n, ACT_EVOLUTION_RANDOM, 0, 0, 0, 0)
            n += 1
    # Spark (A8): any own group against any other player's, 1 Y + (d - 1) E (none this round
    # after round_no_attacks, V5)
    for a in range(R if cs.no_attacks[g] == 0 else 0):
        if cs.owner[g, a] != p:
            continue
        for d in range(R):
            if not enemy(cs, g, p, d):
                continue
            dist = spark_distance(cs, cr, g, a, d)
            if dist < UNREACHABLE and can_pay(cs, cr, g, p, 1, 0, 0, 0, 0, dist - 1, True):
                set_option(cw, b, n, ACT_SPARK, a, d, 0, 0)
                n += 1
    # Impulse (A10-A12): 1 P; create on any room with the cubes in the pool, or draw an area
    if can_pay(cs, cr, g, p, 0, 1, 0, 0, 0, 0, True):
        if cubes_placed(cs, cr, g, cr.numbers[N_IMPULSE_CUBES]) > 0:
            for r in range(R):
                if cs.removed[g, r] == 0:
                    set_option(cw, b, n, ACT_IMPULSE_PLACE, r, 0, 0, 0)
                    n += 1
        for r in range(R):
            if cs.cubes[g, r] > 0:
                set_option(cw, b, n, ACT_IMPULSE_DRAW, r, 0, 0, 0)
                n += 1
    n = list_specials(cs, cr, cw, g, b, p, n, chain)
    return n if cr.deny_action[p] == 0 else _without_denied(cr, cw, b, p, n)


@kernel
def _pick_growth_rooms(cs, cr, cw, g, b, p, k):
    """A3, Q9: the k rooms of option B, picked one at a time (a room mask); a room must be next
    to an own group on the board before the action (flag growth_adjacency: or next to a room
    picked before it, chain; or all next to one same own group, one_group)."""
    R = cs.owner.shape[1]
    how = cr.flag[FL.GROWTH_ADJACENCY]
    placed = 0
    for _ in range(k):
        n = 0
        for r in range(R):
            if (placed >> r) & 1 or not _growth_room_ok(cs, cr, g, p, r):
                continue
            ok = False
            for s in range(cr.degree[r]):
                x = int(cr.neighbours[r, s])
                own = cs.owner[g, x] == p
                if how == CHAIN_ROOMS and (placed >> x) & 1:
                    ok = True
                    break
                if not own:
                    continue
                if how != ONE_GROUP:
                    ok = True
                    break
                together = True  # one_group: x is next to every room picked so far
                for y in range(R):
                    if (placed >> y) & 1 and not adjacent(cr, x, y):
                        together = False
                if together:
                    ok = True
                    break
            if ok:
                set_option(cw, b, n, r, 0, 0, 0, 0)
                n += 1
        if n == 0:
            break
        placed |= 1 << cw.options[b, decide(cs, cr, cw, g, b, p, GROWTH_ROOM, n), 0]
    return placed


@kernel
def take_action(cs, cr, cw, g, b, p, i):
    """Pay for and carry out option i of list_actions (A1-A13, §7). Returns PASSED for Pass,
    CHAIN when the action grants one more (Supergen, AL1), else ACTED."""
    kind = cw.options[b, i, 0]
    x = cw.options[b, i, 1]
    y = cw.options[b, i, 2]
    if kind == ACT_PASS:
        cs.passed[g, p] = 1  # A13
        log(cs, cw, g, EV_PASS, p, 0, 0, 0, 0, 0, 0, 0)
        return PASSED
    if kind == ACT_SPECIAL:
        return take_special(cs, cr, cw, g, b, p, i)
    if kind == ACT_GROWTH_GROUP or kind == ACT_GROWTH_ROOMS:
        placed = _pick_growth_rooms(cs, cr, cw, g, b, p, x) if kind == ACT_GROWTH_ROOMS else 0
        pay_genes(cs, cr, cw, g, b, p, x, 0, 0, 0, 0, True)  # A1: N Y genes
        if kind == ACT_GROWTH_GROUP:
            cs.size[g, y] += x  # A2: the side does not change
            cs.supply[g, p] -= x
            log(cs, cw, g, EV_GROWTH, p, y, x, cs.size[g, y], 0, 0, 0, 0)
        for r in range(cs.owner.shape[1]):
            if (placed >> r) & 1:  # A3: one discharged token on each
                cs.owner[g, r] = p
                cs.size[g, r] = 1
                cs.charged[g, r] = 0
                cs.supply[g, p] -= 1
                log(cs, cw, g, EV_GROWTH, p, r, 1, 1, 0, 0, 0, 0)
        return ACTED
    if kind == ACT_EVOLUTION:  # A5
        price = evolution_price(cs, cr, g, p, x)
        pay_genes(cs, cr, cw, g, b, p, 1, 0, 0, 0, 0, True)
        pay_energy(cs, cr, cw, g, b, p, price)
        cs.gene_supply[g, x] -= 1
        cs.active_genes[g, p, x] += 1
        log(cs, cw, g, EV_EVOLUTION, p, x, price, 0, 0, 0, 0, 0)
        return ACTED
    if kind == ACT_EVOLUTION_RANDOM:  # A6: the die gives the colour, which must be taken
        pay_genes(cs, cr, cw, g, b, p, 1, 0, 0, 0, 0, True)
        pay_energy(cs, cr, cw, g, b, p, cr.numbers[N_EVOLUTION_RANDOM])
        got = -1
        for _ in range(100):
            c = cr.fate_values[roll(cs, cr, cw, g, b, p, ROLL_EVOLUTION, -1) - 1]
            if cs.gene_supply[g, c] > 0:
                cs.gene_supply[g, c] -= 1
                cs.active_genes[g, p, c] += 1
                got = c
                break
            if cr.flag[FL.EVOLUTION_EMPTY_COLOUR] == 0 or cw.error[g, 0] != 0:
                break  # "nothing": the payment is spent
        log(cs, cw, g, EV_EVOLUTION, p, got, cr.numbers[N_EVOLUTION_RANDOM], 1, 0, 0, 0, 0)
        return ACTED
    if kind == ACT_SPARK:  # A8-A9
        dist = spark_distance(cs, cr, g, x, y)
        log(cs, cw, g, EV_SPARK, p, x, y, dist, cs.owner[g, y], 0, 0, 0)
        pay_genes(cs, cr, cw, g, b, p, 1, 0, 0, 0, 0, True)
        pay_energy(cs, cr, cw, g, b, p, dist - 1)
        if cs.owner[g, x] == p:  # (paying turned groups, never removed them)
            fight(cs, cr, cw, g, b, p, x, y, 0, TIE_BOTH)
        return ACTED
    if kind == ACT_IMPULSE_PLACE:  # A11
        pay_genes(cs, cr, cw, g, b, p, 0, 1, 0, 0, 0, True)
        k = cubes_placed(cs, cr, g, cr.numbers[N_IMPULSE_CUBES])
        cs.pool[g] -= k
        cs.cubes[g, x] += k
        log(cs, cw, g, EV_IMPULSE, p, x, k, cs.cubes[g, x], 0, 0, 0, 0)
        charge_own_near(cs, cr, cw, g, p, x)
        return ACTED
    if kind == ACT_IMPULSE_DRAW:  # A12
        pay_genes(cs, cr, cw, g, b, p, 0, 1, 0, 0, 0, True)
        log(cs, cw, g, EV_IMPULSE, p, x, -1, cs.cubes[g, x] - 1, 0, 0, 0, 0)
        charge_own_near(cs, cr, cw, g, p, x)
        cs.cubes[g, x] -= 1
        cs.pool[g] += 1
        return ACTED
    return ACTED
