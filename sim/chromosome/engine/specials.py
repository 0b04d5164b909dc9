"""The species' special actions (spec §7, SP1-SP4; flag species_mode = "full"): which are legal
now (T3, SP2: the whole cost payable, the effect with a target) and what each does.

A species' actions are data (rules file ``[species.<name>]``, Rules.special_*): each names one of
the effects below, its cost (genes by colour, '?' genes, energy, energy per room between for the
attacks) and its integer parameter. Most costs and several effects are PLACEHOLDERs (U7): the
readings are the spec's, and docs/decisions.md ("Chromosome's special actions") lists the ones
this file chose where the spec is silent.

ACTION option rows: ``[ACT_SPECIAL, k, a, b, c]`` with k the action's index on the player's
species board and a, b, c the effect's target, by effect:

- supergen (AL1): a = colour of the passive gene reactivated; then one more action (the turn asks
  ACTION again, with ACT_NONE to decline, and without Supergen unless supergen_chain_self)
- exchange (AL2): a = colour given up, b = colour taken (same space, active or passive)
- takeover (AL3): a = the enemy group's room
- gain_passive_gene (AL4): a = colour
- bond_attack (FE1), domination_attack (FE2): a = attacking room, b = target room
- fusion (FE3): a = the receiver's room, b = the absorbed group's room
- destroy (FE4): a = the enemy group's room
- concentration (CA1): a = room
- irradiate_all (CA2), charge_adjacent (CA3), extra_move (PA4): no target
- wave (CA4): a = the area's room, b = its destination
- teleport (PA1): a = the group's room, b = its destination
- hotbed (PA2): a = the group's room, b = tokens sent to each neighbour, 2 bits a neighbour slot
  (Rules.neighbours[a] order)
- giant (PA3): a = room
"""

from sim.chromosome.engine import effects as E
from sim.chromosome.engine import flags as FL
from sim.chromosome.engine.combat import TIE_ATTACKER_ONLY, TIE_BOTH, fight
from sim.chromosome.engine.costs import UNREACHABLE, can_pay, genes_held, spark_distance
from sim.chromosome.engine.decision_kinds import ACT_SPECIAL
from sim.chromosome.engine.decisions import set_option
from sim.chromosome.engine.dice import roll
from sim.chromosome.engine.events import (
    EV_AREA_PLACED,
    EV_CHARGED,
    EV_DESTROYED,
    EV_FUSION,
    EV_GROWTH,
    EV_IRRADIATED,
    EV_MOVE,
    EV_SPECIAL,
    EV_TAKEOVER,
    EV_TEST,
    EV_WAVE,
    log,
)
from sim.chromosome.engine.moves import has_move, take_move
from sim.chromosome.engine.over_seven import irradiate
from sim.chromosome.engine.payments import pay_energy, pay_genes
from sim.chromosome.engine.population import (
    adjacent,
    check_eliminations,
    enemy,
    groups_adjacent,
    may_move,
    move,
    near_own,
    take_tokens,
)
from sim.chromosome.engine.radiation import charge_own_near, cubes_placed, irradiation_gain, near_area, threat
from sim.chromosome.engine.state import (
    N_MAX_GENES,
    NO_OWNER,
    ROLL_TEST,
)
from sim.jit import kernel

WHOLE_GROUP = 1  # takeover_target's second reading
STRENGTH_ONLY = 1  # fala_test's second reading
# take_special's result: what the turn does next
DONE, CHAIN = 0, 2
CY, CP, CR, CB, CANY = range(5)  # special_cost's gene columns (Y, P, R, B, any)
COST_E, COST_PER_ROOM = 5, 6


@kernel
def _payable(cs, cr, g, p, s, k, rooms_between):
    """SP2: can p pay action k of species s, with ``rooms_between`` rooms for a per-room cost?"""
    c = cr.special_cost[s, k]
    energy = c[COST_E] + c[COST_PER_ROOM] * rooms_between
    return can_pay(cs, cr, g, p, c[CY], c[CP], c[CR], c[CB], c[CANY], energy, True)


@kernel
def _supply_free(cs, g, p, n):
    return cs.supply[g, p] >= n


@kernel
def _opt(cw, b, n, k, a, bb, c):
    """One special option row (ACT_SPECIAL, k, a, b, c), written only while there is room."""
    if n < cw.options.shape[1]:
        set_option(cw, b, n, ACT_SPECIAL, k, a, bb, c)
    return n + 1


@kernel
def _hotbed_ok(cs, cr, g, p, src, packed):
    """PA2: may p send the tokens ``packed`` (2 bits a neighbour slot) from its group in ``src``,
    each sub-group into a different adjacent room as a move would go (M2-M7: empty or own, M4's
    merge, M3's sterility)?"""
    moving = 0
    for j in range(cr.degree[src]):
        k = (packed >> (2 * j)) & 3
        if k == 0:
            continue
        moving += k
        if not may_move(cs, cr, g, p, src, cr.neighbours[src, j], k):
            return False
    return 1 <= moving <= cs.size[g, src]


@kernel
def _list_hotbed(cs, cr, cw, g, b, p, n, k):
    """PA2: every split of every own group (an odometer over the neighbour slots, 0-3 each)."""
    R = cs.owner.shape[1]
    for src in range(R):
        if cs.owner[g, src] != p:
            continue
        d = int(cr.degree[src])  # (an int8 would overflow 1 << 12 on the plain-Python path)
        for packed in range(1, 1 << (2 * d)):
            if _hotbed_ok(cs, cr, g, p, src, packed):
                n = _opt(cw, b, n, k, src, packed, 0)
    return n


@kernel
def _attack_options(cs, cr, cw, g, b, p, n, s, k, adjacent_only):
    """FE1 (an adjacent enemy group, no distance cost) and FE2 (any enemy group, E per room)."""
    R = cs.owner.shape[1]
    for a in range(R):
        if cs.owner[g, a] != p:
            continue
        for d in range(R):
            if not enemy(cs, g, p, d):
                continue
            if adjacent_only:
                if adjacent(cr, a, d) and _payable(cs, cr, g, p, s, k, 0):
                    n = _opt(cw, b, n, k, a, d, 0)
            else:
                dist = spark_distance(cs, cr, g, a, d)
                if dist < UNREACHABLE and _payable(cs, cr, g, p, s, k, dist - 1):
                    n = _opt(cw, b, n, k, a, d, 0)
    return n


@kernel
def _charge_adjacent(cs, cr, cw, g, p, apply):
    """CA3: p's discharged groups adjacent to an area whose strength is at least their size;
    with ``apply`` they become charged. Returns how many."""
    n = 0
    for r in range(cs.owner.shape[1]):
        if cs.owner[g, r] != p or cs.charged[g, r] != 0:
            continue
        for a in range(cs.cubes.shape[1]):
            if cs.cubes[g, a] >= cs.size[g, r] and near_area(cr, r, a):
                n += 1
                if apply:
                    cs.charged[g, r] = 1
                    log(cs, cw, g, EV_CHARGED, p, r, 0, 0, 0, 0, 0, 0)
                break
    return n


@kernel
def _wave(cs, cr, cw, g, b, p, a, d):
    """CA4: the area on ``a`` moves to ``d`` (merging with an area there); then every player with
    groups adjacent to ``d``, clockwise from p (p included), tests once with the moved strength
    (flag fala_test = normal: + its adjacent groups, X3); X4's removals become p's trophies (its
    own go to its supply)."""
    moved = cs.cubes[g, a]
    cs.cubes[g, a] = 0
    cs.cubes[g, d] += moved
    log(cs, cw, g, EV_WAVE, p, a, d, moved, 0, 0, 0, 0)
    P = cs.supply.shape[1]
    for i in range(P):
        q = (p + i) % P
        if cs.eliminated[g, q] != 0 or cw.error[g, 0] != 0:
            continue
        t = threat(cs, cr, g, q, d, moved)
        if t == moved:
            continue  # no group adjacent to it
        if cr.flag[FL.FALA_TEST] == STRENGTH_ONLY:
            t = moved
        face = roll(cs, cr, cw, g, b, q, ROLL_TEST, -1)
        gain = irradiation_gain(cs, cr, g, q, t, face)
        log(cs, cw, g, EV_TEST, q, d, t, face, gain, cs.irradiation[g, q], 0, 0)
        irradiate(cs, cr, cw, g, b, q, gain, p)


@kernel
def _fusion(cs, cr, cw, g, p, x, y):
    """FE3: the group in ``y`` leaves the board (its tokens to its owner's supply, or flag
    fusion_trophies: the receiver's owner's trophies); the receiver in ``x`` grows from its
    owner's supply to min(3, a + b) (fewer if short), charged only if both were."""
    rx = cs.owner[g, x]
    ry = cs.owner[g, y]
    a = cs.size[g, x]
    bb = cs.size[g, y]
    both = cs.charged[g, x] != 0 and cs.charged[g, y] != 0
    take_tokens(cs, g, y, bb, rx if cr.flag[FL.FUSION_TROPHIES] != 0 else -1)
    add = min(3 - a, bb, cs.supply[g, rx])
    cs.size[g, x] += add
    cs.supply[g, rx] -= add
    cs.charged[g, x] = 1 if both else 0
    log(cs, cw, g, EV_FUSION, p, x, y, cs.size[g, x], cs.charged[g, x], ry, 0, 0)
    check_eliminations(cs, cw, g)


@kernel
def _hotbed(cs, cr, cw, g, p, src, packed):
    """PA2: each sub-group goes to its neighbour (M4 merging); not the turn's move (M1)."""
    for j in range(cr.degree[src]):
        k = (packed >> (2 * j)) & 3
        if k > 0:
            dst = cr.neighbours[src, j]
            move(cs, g, p, src, dst, k)
            log(cs, cw, g, EV_MOVE, p, src, dst, k, 0, 0, 0, 0)


@kernel
def _gene_options(cs, cr, cw, g, b, p, n, k, eff):
    """AL1 (a passive gene to reactivate), AL2 (a gene held for one in the supply), AL4 (a gene
    of the supply, below the gene limit): action k's options from index n; the new count."""
    if eff == E.SUPERGEN:
        for c in range(4):
            if cs.passive_genes[g, p, c] > 0:
                n = _opt(cw, b, n, k, c, 0, 0)
    elif eff == E.EXCHANGE:
        for c in range(4):
            if cs.active_genes[g, p, c] + cs.passive_genes[g, p, c] == 0:
                continue
            for c2 in range(4):
                if c2 != c and cs.gene_supply[g, c2] > 0:
                    n = _opt(cw, b, n, k, c, c2, 0)
    elif eff == E.GAIN_PASSIVE_GENE:
        if genes_held(cs, g, p) < cr.numbers[N_MAX_GENES]:
            for c in range(4):
                if cs.gene_supply[g, c] > 0:
                    n = _opt(cw, b, n, k, c, 0, 0)
    return n


@kernel
def _enemy_group_options(cs, cr, cw, g, b, p, n, k, eff):
    """AL3 (an enemy group next to p's), FE3 (two adjacent groups of different players, one of
    them p's or next to p's), FE4 (an enemy group next to p's): action k's options from index n;
    the new count."""
    R = cs.owner.shape[1]
    if eff == E.TAKEOVER:
        whole = cr.flag[FL.TAKEOVER_TARGET] == WHOLE_GROUP
        for r in range(R):
            if not enemy(cs, g, p, r) or (cs.size[g, r] != 1 and not whole):
                continue
            if near_own(cs, cr, g, p, r) and _supply_free(cs, g, p, cs.size[g, r]):
                n = _opt(cw, b, n, k, r, 0, 0)
    elif eff == E.FUSION:
        for x in range(R):
            qx = cs.owner[g, x]
            if qx == NO_OWNER:
                continue
            for y in range(R):
                qy = cs.owner[g, y]
                if qy == NO_OWNER or qy == qx or not adjacent(cr, x, y):
                    continue
                # x receives y: the larger group receives (equal sizes: p picks, both rows)
                if cs.size[g, x] < cs.size[g, y]:
                    continue
                if qx == p or qy == p or near_own(cs, cr, g, p, x) or near_own(cs, cr, g, p, y):
                    n = _opt(cw, b, n, k, x, y, 0)
    elif eff == E.DESTROY:
        for r in range(R):
            if enemy(cs, g, p, r) and near_own(cs, cr, g, p, r):
                n = _opt(cw, b, n, k, r, 0, 0)
    return n


@kernel
def _board_options(cs, cr, cw, g, b, p, n, s, k, eff):
    """CA1-CA4 and PA1-PA4, the actions on areas, rooms and p's own groups: action k of species
    s's options from index n; the new count."""
    R = cs.owner.shape[1]
    if eff == E.CONCENTRATION:
        if cubes_placed(cs, cr, g, cr.special_param[s, k]) > 0:
            for r in range(R):
                if cs.removed[g, r] == 0:
                    n = _opt(cw, b, n, k, r, 0, 0)
    elif eff == E.IRRADIATE_ALL:
        n = _opt(cw, b, n, k, 0, 0, 0)
    elif eff == E.CHARGE_ADJACENT:
        if _charge_adjacent(cs, cr, cw, g, p, False) > 0:
            n = _opt(cw, b, n, k, 0, 0, 0)
    elif eff == E.WAVE:
        for a in range(R):
            if cs.cubes[g, a] > 0:
                for d in range(R):
                    if d != a and cs.removed[g, d] == 0:
                        n = _opt(cw, b, n, k, a, d, 0)
    elif eff == E.TELEPORT:
        for a in range(R):
            if cs.owner[g, a] == NO_OWNER:
                continue
            for d in range(R):
                if cs.owner[g, d] == NO_OWNER and cs.removed[g, d] == 0:
                    n = _opt(cw, b, n, k, a, d, 0)
    elif eff == E.HOTBED:
        n = _list_hotbed(cs, cr, cw, g, b, p, n, k)
    elif eff == E.GIANT:
        size = cr.special_param[s, k]
        if _supply_free(cs, g, p, size):
            for r in range(R):
                if cs.owner[g, r] == NO_OWNER and cs.removed[g, r] == 0 and near_own(cs, cr, g, p, r):
                    n = _opt(cw, b, n, k, r, 0, 0)
    elif eff == E.EXTRA_MOVE:
        if has_move(cs, cr, g, p):
            n = _opt(cw, b, n, k, 0, 0, 0)
    return n


@kernel
def list_specials(cs, cr, cw, g, b, p, n, chain):
    """SP2, T3, Q17: p's legal special actions, appended to the ACTION options from index n
    (``chain``: Supergen's extra action, which may not be Supergen again unless the flag
    supergen_chain_self). Returns the new count."""
    s = cs.species[g, p]
    for k in range(cr.special_count[s]):
        eff = cr.special_effect[s, k]
        if chain and eff == E.SUPERGEN and cr.flag[FL.SUPERGEN_CHAIN_SELF] == 0:
            continue
        limit = cr.special_per_round[s, k]
        if limit > 0 and cs.special_used[g, p, k] >= limit:
            continue
        if eff == E.BOND_ATTACK or eff == E.DOMINATION_ATTACK:
            if cs.no_attacks[g] == 0:  # V5 round_no_attacks
                n = _attack_options(cs, cr, cw, g, b, p, n, s, k, eff == E.BOND_ATTACK)
            continue
        if not _payable(cs, cr, g, p, s, k, 0):
            continue
        if eff == E.SUPERGEN or eff == E.EXCHANGE or eff == E.GAIN_PASSIVE_GENE:
            n = _gene_options(cs, cr, cw, g, b, p, n, k, eff)
        elif eff == E.TAKEOVER or eff == E.FUSION or eff == E.DESTROY:
            n = _enemy_group_options(cs, cr, cw, g, b, p, n, k, eff)
        else:
            n = _board_options(cs, cr, cw, g, b, p, n, s, k, eff)
    return n


@kernel
def _pay_special(cs, cr, cw, g, b, p, s, k, eff, a, bb):
    """SP2, SP3: log p's special action k (targets a, bb), count it against its per-round limit
    and pay its cost (FE2: its energy per room between the two groups)."""
    c = cr.special_cost[s, k]
    log(cs, cw, g, EV_SPECIAL, p, k, eff, a, bb, 0, 0, 0)
    cs.special_used[g, p, k] += 1
    rooms_between = 0
    if eff == E.DOMINATION_ATTACK:
        rooms_between = spark_distance(cs, cr, g, a, bb) - 1
    pay_genes(cs, cr, cw, g, b, p, c[CY], c[CP], c[CR], c[CB], c[CANY], True)
    pay_energy(cs, cr, cw, g, b, p, c[COST_E] + c[COST_PER_ROOM] * rooms_between)


@kernel
def _strike(cs, cr, cw, g, b, p, s, k, eff, a, bb):
    """AL3 and FE1-FE4: p's action k against the group in ``a`` (the attacks: from ``a`` against
    ``bb``; fusion: ``bb`` into ``a``)."""
    if eff == E.TAKEOVER:  # AL3: the enemy tokens become p's trophies, p's take their place
        q = cs.owner[g, a]
        size = cs.size[g, a]
        cs.trophies[g, p, q] += size
        cs.owner[g, a] = p
        cs.charged[g, a] = 0
        cs.supply[g, p] -= size
        log(cs, cw, g, EV_TAKEOVER, p, a, size, q, 0, 0, 0, 0)
        check_eliminations(cs, cw, g)
    elif eff == E.BOND_ATTACK:  # FE1: +1 for each own group adjacent to the target's room
        if cs.owner[g, a] == p:
            fight(cs, cr, cw, g, b, p, a, bb, groups_adjacent(cs, cr, g, p, bb), TIE_BOTH)
    elif eff == E.DOMINATION_ATTACK:  # FE2: a tie gives p a trophy and costs it none
        if cs.owner[g, a] == p:
            fight(cs, cr, cw, g, b, p, a, bb, 0, TIE_ATTACKER_ONLY)
    elif eff == E.FUSION:
        _fusion(cs, cr, cw, g, p, a, bb)
    elif eff == E.DESTROY:  # FE4
        holder = p if cr.flag[FL.DESTROY_TROPHY] != 0 else -1
        lost = take_tokens(cs, g, a, cr.special_param[s, k], holder)
        log(cs, cw, g, EV_DESTROYED, p, a, lost, 0, 0, 0, 0, 0)
        check_eliminations(cs, cw, g)


@kernel
def _act_on_board(cs, cr, cw, g, b, p, s, k, eff, a, bb):
    """CA1-CA4 and PA1-PA4: p's action k (of species s) on the areas, the rooms and the groups,
    with its targets a and bb."""
    if eff == E.CONCENTRATION:  # CA1: Impulse option 1 with more cubes
        n = cubes_placed(cs, cr, g, cr.special_param[s, k])
        cs.pool[g] -= n
        cs.cubes[g, a] += n
        log(cs, cw, g, EV_AREA_PLACED, p, a, n, cs.cubes[g, a], 0, 0, 0, 0)
        charge_own_near(cs, cr, cw, g, p, a)
    elif eff == E.IRRADIATE_ALL:  # CA2: everyone, Cadum included, clockwise from it
        P = cs.supply.shape[1]
        for j in range(P):
            q = (p + j) % P
            if cs.eliminated[g, q] == 0 and cw.error[g, 0] == 0:
                log(cs, cw, g, EV_IRRADIATED, q, cr.special_param[s, k], cs.irradiation[g, q], 0, 0, 0, 0, 0)
                irradiate(cs, cr, cw, g, b, q, cr.special_param[s, k], -1)
    elif eff == E.CHARGE_ADJACENT:  # CA3
        _charge_adjacent(cs, cr, cw, g, p, True)
    elif eff == E.WAVE:  # CA4
        _wave(cs, cr, cw, g, b, p, a, bb)
    elif eff == E.TELEPORT:  # PA1: any group to any empty room, sterility aside
        q = cs.owner[g, a]
        size = cs.size[g, a]
        move(cs, g, q, a, bb, size)
        log(cs, cw, g, EV_MOVE, q, a, bb, size, 0, 0, 0, 0)
    elif eff == E.HOTBED:
        _hotbed(cs, cr, cw, g, p, a, bb)
    elif eff == E.GIANT:  # PA3: a discharged group from the supply
        size = cr.special_param[s, k]
        cs.owner[g, a] = p
        cs.size[g, a] = size
        cs.charged[g, a] = 0
        cs.supply[g, p] -= size
        log(cs, cw, g, EV_GROWTH, p, a, size, size, 0, 0, 0, 0)
    elif eff == E.EXTRA_MOVE:  # PA4: one more move, now (M1-M7; listed only when there is one)
        take_move(cs, cr, cw, g, b, p)


@kernel
def take_special(cs, cr, cw, g, b, p, i):
    """SP2-SP4: pay for and carry out special option i of the ACTION options (AL1-AL4, FE1-FE4,
    CA1-CA4, PA1-PA4 by their effects). Returns CHAIN after Supergen (the turn asks for one more
    action), else DONE."""
    k = cw.options[b, i, 1]
    a = cw.options[b, i, 2]
    bb = cw.options[b, i, 3]
    s = cs.species[g, p]
    eff = cr.special_effect[s, k]
    _pay_special(cs, cr, cw, g, b, p, s, k, eff, a, bb)
    if eff == E.SUPERGEN:  # AL1
        cs.passive_genes[g, p, a] -= 1
        cs.active_genes[g, p, a] += 1
        return CHAIN
    if eff == E.EXCHANGE:  # AL2: the new gene on the old one's space
        if cs.active_genes[g, p, a] > 0:
            cs.active_genes[g, p, a] -= 1
            cs.active_genes[g, p, bb] += 1
        else:
            cs.passive_genes[g, p, a] -= 1
            cs.passive_genes[g, p, bb] += 1
        cs.gene_supply[g, a] += 1
        cs.gene_supply[g, bb] -= 1
    elif eff == E.GAIN_PASSIVE_GENE:  # AL4
        cs.gene_supply[g, a] -= 1
        cs.passive_genes[g, p, a] += 1
    elif (
        eff == E.TAKEOVER
        or eff == E.BOND_ATTACK
        or eff == E.DOMINATION_ATTACK
        or eff == E.FUSION
        or eff == E.DESTROY
    ):
        _strike(cs, cr, cw, g, b, p, s, k, eff, a, bb)
    else:
        _act_on_board(cs, cr, cw, g, b, p, s, k, eff, a, bb)
    return DONE
