"""Radiation (spec §5): areas, the resistance test's threat (X3), absorption (X5) and decay (X6).

An area is the cubes on one room (X1); ``cs.cubes[g, r]`` is its strength. A group is adjacent
to an area when it stands in the area's room or in a room next to it (§0, l.526).
"""

from sim.chromosome.engine import flags as FL
from sim.chromosome.engine.events import EV_CHARGED, log
from sim.chromosome.engine.population import adjacent
from sim.chromosome.engine.state import N_BLACK_TEST, NO_OWNER
from sim.jit import kernel

BLACK = 3  # the B gene colour (COLOURS order)


@kernel
def near_area(cr, room, area):
    """§0: a group in ``room`` is adjacent to the area on room ``area`` (its own room counts)."""
    return room == area or adjacent(cr, room, area)


@kernel
def cubes_placed(cs, cr, g, n):
    """A11: how many cubes an area created with ``n`` cubes from the pool gets: n, or (flag
    impulse_partial) the pool's when it holds fewer; 0: no area can be created. Impulse (A10,
    A11), Concentration (CA1) and the place-area card (V3) alike."""
    if cs.pool[g] >= n:
        return n
    return cs.pool[g] if cr.flag[FL.IMPULSE_PARTIAL] != 0 else 0


@kernel
def threat(cs, cr, g, p, area, strength):
    """X3: the threat an area of ``strength`` on room ``area`` makes to player p: the strength
    plus p's groups (not tokens) adjacent to it."""
    t = strength
    for r in range(cs.owner.shape[1]):
        if cs.owner[g, r] == p and near_area(cr, r, area):
            t += 1
    return t


@kernel
def irradiation_gain(cs, cr, g, p, t, roll):
    """X3: what a test of threat ``t`` with the final ``roll`` adds to p's irradiation: the
    excess of the threat over roll + p's active B genes (G4a: genes.black_test each), or nothing."""
    result = roll + cs.active_genes[g, p, BLACK] * cr.numbers[N_BLACK_TEST]
    return t - result if t > result else 0


@kernel
def charges(cs, cr, g, room, area):
    """X5: does the area on room ``area`` charge the group in ``room``? Adjacent (flag
    area_room_adjacent_for_charge false: the area's own room does not count) and, with the flag
    charge_size_limit, no larger than the area's strength."""
    if cs.owner[g, room] == NO_OWNER or cs.cubes[g, area] <= 0:
        return False
    if room == area:
        if cr.flag[FL.AREA_ROOM_ADJACENT_FOR_CHARGE] != 0:
            return False
    elif not adjacent(cr, room, area):
        return False
    return cr.flag[FL.CHARGE_SIZE_LIMIT] != 0 or cs.size[g, room] <= cs.cubes[g, area]


@kernel
def left_uncharged(cs, cr, g, room):
    """X5: is the group in ``room`` discharged while some area charges it?"""
    if cs.owner[g, room] == NO_OWNER or cs.charged[g, room] != 0:
        return False
    for area in range(cs.owner.shape[1]):
        if charges(cs, cr, g, room, area):
            return True
    return False


@kernel
def absorb(cs, cr, g):
    """X5 (Phase III.2): every group of every player that an area charges becomes charged."""
    for room in range(cs.owner.shape[1]):
        if left_uncharged(cs, cr, g, room):
            cs.charged[g, room] = 1


@kernel
def decay(cs, g):
    """X6 (Phase III.3): every area loses one cube to the pool; at 0 it is gone."""
    for r in range(cs.cubes.shape[1]):
        if cs.cubes[g, r] > 0:
            cs.cubes[g, r] -= 1
            cs.pool[g] += 1


@kernel
def charge_own_near(cs, cr, cw, g, p, area):
    """A11/A12 (and CA1): p's groups adjacent to the area on room ``area`` (its room included)
    with size at most its strength (flag charge_size_limit) become charged."""
    for r in range(cs.owner.shape[1]):
        if cs.owner[g, r] == p and near_area(cr, r, area):
            if cr.flag[FL.CHARGE_SIZE_LIMIT] != 0 or cs.size[g, r] <= cs.cubes[g, area]:
                if cs.charged[g, r] == 0:
                    log(cs, cw, g, EV_CHARGED, p, r, 0, 0, 0, 0, 0, 0)
                cs.charged[g, r] = 1
