"""Groups and movement (spec §4.2, C2, I2): counting a player's tokens and groups, and whether
k tokens of a group may move into a room (M1-M7)."""

from sim.chromosome.engine import flags as FL
from sim.chromosome.engine.events import EV_ELIMINATED, log
from sim.chromosome.engine.state import NO_OWNER
from sim.jit import kernel

STERILITY_RESULTING = 1  # flag sterility_check's second reading (M3)


@kernel
def board_tokens(cs, g, p):
    """C2: player p's tokens on the board (charged and discharged alike)."""
    n = 0
    for r in range(cs.owner.shape[1]):
        if cs.owner[g, r] == p:
            n += cs.size[g, r]
    return n


@kernel
def board_groups(cs, g, p):
    """Player p's groups on the board (one a room, I2)."""
    n = 0
    for r in range(cs.owner.shape[1]):
        if cs.owner[g, r] == p:
            n += 1
    return n


@kernel
def charged_tokens(cs, g, p):
    """Player p's tokens in charged groups (K3: the energy it could pay by turning them)."""
    n = 0
    for r in range(cs.owner.shape[1]):
        if cs.owner[g, r] == p and cs.charged[g, r] != 0:
            n += cs.size[g, r]
    return n


@kernel
def adjacent(cr, a, b):
    """L1: rooms a and b are neighbours."""
    for i in range(cr.degree[a]):
        if cr.neighbours[a, i] == b:
            return True
    return False


@kernel
def groups_adjacent(cs, cr, g, p, room):
    """FE1: how many of p's groups stand in a room next to ``room`` (Bond Attack's bonus)."""
    n = 0
    for r in range(cs.owner.shape[1]):
        if cs.owner[g, r] == p and adjacent(cr, r, room):
            n += 1
    return n


@kernel
def sterility(cs, cr, g, r):
    """M3: room r's sterility this round (the tile's, + 1 up to 3 after round_sterility_plus1, V5)."""
    return min(3, cr.sterility[r] + cs.sterility_plus[g])


@kernel
def near_own(cs, cr, g, p, r):
    """Is room r adjacent to one of p's groups (L1)? Growth's rooms (A3), AL3, FE3, FE4, PA1."""
    for i in range(cr.degree[r]):
        if cs.owner[g, cr.neighbours[r, i]] == p:
            return True
    return False


@kernel
def enemy(cs, g, p, r):
    """Does room r hold another player's group (not empty, not p's)? What a Spark (A8) and the
    special actions against groups (AL3, FE1-FE4) target."""
    q = cs.owner[g, r]
    return q != NO_OWNER and q != p


@kernel
def may_move(cs, cr, g, p, src, dst, k):
    """M1-M7: may player p move k tokens of its group in room ``src`` to room ``dst``? One
    adjacent room (M1), not another player's (M2), sterility met by the moving tokens (M3; flag
    sterility_check: by the size after merging), at most 3 after merging with an own group (M4),
    never into a removed room (M7)."""
    if cs.owner[g, src] != p or k < 1 or k > cs.size[g, src]:
        return False
    if src == dst or cs.removed[g, dst] != 0 or not adjacent(cr, src, dst):
        return False
    if enemy(cs, g, p, dst):
        return False
    merged = k + (cs.size[g, dst] if cs.owner[g, dst] == p else 0)
    if merged > 3:
        return False
    entering = merged if cr.flag[FL.STERILITY_CHECK] == STERILITY_RESULTING else k
    return entering >= sterility(cs, cr, g, dst)


@kernel
def move(cs, g, p, src, dst, k):
    """M1, M4, M5: move k tokens of p's group in ``src`` to ``dst`` (checked by may_move). The
    tokens keep their group's side; a merged group is charged only if both parts were."""
    side = cs.charged[g, src]
    if cs.owner[g, dst] == p:
        cs.charged[g, dst] = 1 if (cs.charged[g, dst] != 0 and side != 0) else 0
        cs.size[g, dst] += k
    else:
        cs.owner[g, dst] = p
        cs.size[g, dst] = k
        cs.charged[g, dst] = side
    cs.size[g, src] -= k
    if cs.size[g, src] == 0:
        cs.owner[g, src] = NO_OWNER
        cs.charged[g, src] = 0


@kernel
def take_tokens(cs, g, room, k, holder):
    """Remove k tokens from the group in ``room`` (at most its size): to ``holder``'s trophies
    (F8, F9) or, with holder -1, to their owner's supply (X4, SP4). Returns how many."""
    owner = cs.owner[g, room]
    k = min(k, cs.size[g, room])
    cs.size[g, room] -= k
    if holder >= 0:
        cs.trophies[g, holder, owner] += k
    else:
        cs.supply[g, owner] += k
    if cs.size[g, room] == 0:
        cs.owner[g, room] = NO_OWNER
        cs.charged[g, room] = 0
    return k


@kernel
def eliminate(cs, cw, g, p):
    """E2: player p is out; the game ends after the final turns (E3)."""
    cs.eliminated[g, p] = 1
    cs.ending[g] = 1
    log(cs, cw, g, EV_ELIMINATED, p, 0, 0, 0, 0, 0, 0, 0)


@kernel
def check_eliminations(cs, cw, g):
    """E2: a player not yet eliminated with no token left on the board is eliminated now; the
    game then ends after the final turns (E3)."""
    for p in range(cs.supply.shape[1]):
        if cs.eliminated[g, p] == 0 and board_tokens(cs, g, p) == 0:
            eliminate(cs, cw, g, p)
