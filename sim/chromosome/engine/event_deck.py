"""The event deck (spec §8, V1-V7; flag ``events``): the cards are shuffled once a game, and I.2
of every round from round 2 reveals the next one and applies it (R3).

A card is instant (remove_room, irradiate_all, place_area, decay_all, discharge_all, fate_all) or
lasts the current round (round_no_attacks, round_sterility_plus1, round_trophy_energy: the State's
``no_attacks``, ``sterility_plus`` and ``trophy_bonus``, cleared at the next Phase I). The cards'
data are PLACEHOLDERs (U8, V6). Readings this file chose where the spec is silent
(docs/decisions.md, "Chromosome's event cards"):

- irradiate_all resolves player by player clockwise from the round's previous starting player;
- place_area puts ``cubes`` cubes from the pool (fewer only with flag impulse_partial; none if the
  pool is short otherwise) and charges nobody (V5);
- decay_all takes ``n`` cubes from every area, never below 0;
- fate_all raises every player's fate by ``n``, capped at fate_max.
"""

from sim.chromosome.engine.events import (
    EV_AREA_PLACED,
    EV_CARD,
    EV_DECAY,
    EV_DISCHARGED,
    EV_FATE,
    EV_IRRADIATED,
    EV_ROOM_REMOVED,
    log,
)
from sim.chromosome.engine.over_seven import irradiate
from sim.chromosome.engine.population import check_eliminations
from sim.chromosome.engine.radiation import cubes_placed
from sim.chromosome.engine.state import (
    CARD_DECAY_ALL,
    CARD_DISCHARGE_ALL,
    CARD_FATE_ALL,
    CARD_IRRADIATE_ALL,
    CARD_PLACE_AREA,
    CARD_REMOVE_ROOM,
    CARD_ROUND_NO_ATTACKS,
    CARD_ROUND_STERILITY_PLUS1,
    CARD_ROUND_TROPHY_ENERGY,
    N_FATE_MAX,
    NO_OWNER,
    STREAM_SETUP,
)
from sim.jit import kernel
from sim.random_stream import below

APPLIED, CANCELLED, NOTHING = range(3)  # a card's outcome: V4 cancels a split; a missing tile does nothing


@kernel
def deal_deck(cs, cr, g):
    """V2: the game's order of the deck (a uniform shuffle from the setup stream, drawn after
    the species so that a game without events is seated as before)."""
    E = cr.card_kind.shape[0]
    for i in range(E):
        cs.deck[g, i] = i
    for i in range(E - 1, 0, -1):
        j = below(cs.rng_key, cs.rng_ctr, g, STREAM_SETUP, i + 1)
        cs.deck[g, i], cs.deck[g, j] = cs.deck[g, j], cs.deck[g, i]
    cs.deck_len[g] = E
    cs.deck_pos[g] = 0


@kernel
def connected_without(cs, cr, g, gone):
    """V4: do the rooms left (not removed, not ``gone``) still form one connected board?"""
    R = cs.owner.shape[1]
    first = -1
    for r in range(R):
        if r != gone and cs.removed[g, r] == 0:
            first = r
            break
    if first < 0:
        return True
    reached = 1 << first
    frontier = reached
    while frontier != 0:
        nxt = 0
        for r in range(R):
            if (frontier >> r) & 1:
                for s in range(cr.degree[r]):
                    x = int(cr.neighbours[r, s])
                    if x != gone and cs.removed[g, x] == 0 and not (reached >> x) & 1:
                        nxt |= 1 << x
        reached |= nxt
        frontier = nxt
    for r in range(R):
        if r != gone and cs.removed[g, r] == 0 and not (reached >> r) & 1:
            return False
    return True


@kernel
def _remove_room(cs, cw, g, r):
    """V3, U9: room r leaves the board: its cubes go back to the pool, its tokens to their
    owner's supply (E2: that may eliminate the owner)."""
    owner = cs.owner[g, r]
    log(cs, cw, g, EV_ROOM_REMOVED, owner, r, cs.size[g, r], cs.cubes[g, r], 0, 0, 0, 0)
    if owner != NO_OWNER:
        cs.supply[g, owner] += cs.size[g, r]
    cs.owner[g, r] = NO_OWNER
    cs.size[g, r] = 0
    cs.charged[g, r] = 0
    cs.pool[g] += cs.cubes[g, r]
    cs.cubes[g, r] = 0
    cs.removed[g, r] = 1
    check_eliminations(cs, cw, g)


@kernel
def reveal(cs, cr, cw, g, b):
    """R3, V2-V7: the round's effects of the last card end; the next card, if any, is revealed
    and applied (V1: without events the deck is empty and nothing happens)."""
    cs.no_attacks[g] = 0
    cs.sterility_plus[g] = 0
    cs.trophy_bonus[g] = 0
    if cs.deck_pos[g] >= cs.deck_len[g]:
        return
    card = cs.deck[g, cs.deck_pos[g]]
    cs.deck_pos[g] += 1
    kind = cr.card_kind[card]
    r = cr.card_room[card]
    n = cr.card_n[card]
    P = cs.supply.shape[1]
    outcome = APPLIED
    if kind == CARD_REMOVE_ROOM or kind == CARD_PLACE_AREA:
        if r < 0 or cs.removed[g, r] != 0:
            outcome = NOTHING  # V4: a missing tile
        elif kind == CARD_REMOVE_ROOM and not connected_without(cs, cr, g, r):
            outcome = CANCELLED  # V4: the board may never be split
    log(cs, cw, g, EV_CARD, -1, card, kind, outcome, 0, 0, 0, 0)
    if outcome != APPLIED:
        return
    if kind == CARD_REMOVE_ROOM:
        _remove_room(cs, cw, g, r)
    elif kind == CARD_IRRADIATE_ALL:  # X4 applies
        for i in range(P):
            p = (cs.start_player[g] + i) % P
            if cs.eliminated[g, p] == 0 and cw.error[g, 0] == 0:
                log(cs, cw, g, EV_IRRADIATED, p, n, cs.irradiation[g, p], 0, 0, 0, 0, 0)
                irradiate(cs, cr, cw, g, b, p, n, -1)
    elif kind == CARD_PLACE_AREA:  # A11's cubes, nobody charged
        k = cubes_placed(cs, cr, g, n)
        if k > 0:
            cs.pool[g] -= k
            cs.cubes[g, r] += k
            log(cs, cw, g, EV_AREA_PLACED, -1, r, k, cs.cubes[g, r], 0, 0, 0, 0)
    elif kind == CARD_DECAY_ALL:
        for x in range(cs.cubes.shape[1]):
            if cs.cubes[g, x] > 0:
                d = min(n, cs.cubes[g, x])
                cs.cubes[g, x] -= d
                cs.pool[g] += d
                log(cs, cw, g, EV_DECAY, -1, x, cs.cubes[g, x], 0, 0, 0, 0, 0)
    elif kind == CARD_DISCHARGE_ALL:
        for x in range(cs.owner.shape[1]):
            if cs.owner[g, x] != NO_OWNER and cs.charged[g, x] != 0:
                cs.charged[g, x] = 0
                log(cs, cw, g, EV_DISCHARGED, cs.owner[g, x], x, 0, 0, 0, 0, 0, 0)
    elif kind == CARD_FATE_ALL:
        for p in range(P):
            if cs.eliminated[g, p] == 0:
                cs.fate[g, p] = min(cs.fate[g, p] + n, cr.numbers[N_FATE_MAX])
                log(cs, cw, g, EV_FATE, p, cs.fate[g, p], 0, 0, 0, 0, 0, 0)
    elif kind == CARD_ROUND_NO_ATTACKS:
        cs.no_attacks[g] = 1
    elif kind == CARD_ROUND_STERILITY_PLUS1:
        cs.sterility_plus[g] = 1
    elif kind == CARD_ROUND_TROPHY_ENERGY:
        cs.trophy_bonus[g] = n
