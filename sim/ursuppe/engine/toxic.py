"""Toxic Excretions (XG-19): DP tokens laid where the owner's amoebas excrete, taken by the next
amoeba that moves into the space.

``State.toxic[g, s]`` counts the tokens lying on space s; they persist across rounds. A token is
laid by :func:`lay` (feeding.py: each excretion of a Toxic Excretions owner's amoeba; with the
flag toxic_includes_attack_cubes also A6's cubes), and taken by :func:`arrive`, which the
movement calls where an amoeba arrives on a space (movement.finish_movement, Speed's first step
with the flag toxic_pickup_on_speed_intermediate, and Phase-4 placements with the flag
toxic_pickup_by_placement). A mover arrives before the amoebas clinging to it, so it takes the
tokens; amoebas already on the space are unaffected.
"""

from sim.jit import kernel
from sim.ursuppe.engine import tally
from sim.ursuppe.engine.events import EV_TOXIC_PICKUP, EV_TOXIC_TOKEN, log
from sim.ursuppe.rules.extra_flags import XF_TOXIC_TOKEN_FOLLOWS_CUBES, XF_TOXIC_ZERO_CUBE_EXCRETION


@kernel
def lay(st, ru, wk, g, b, p, a, space, target, cubes, phase):
    """XG-19: amoeba (p, a) on ``space`` excreted ``cubes`` cubes of its colour onto ``target``
    (another space with Cleanliness, XG-04): one DP token on ``target`` (flag
    toxic_token_follows_cubes; else on ``space``). No token for 0 cubes placed (a shortage, C3)
    unless the flag toxic_zero_cube_excretion says so."""
    if cubes <= 0 and ru.xflag[XF_TOXIC_ZERO_CUBE_EXCRETION] == 0:
        return
    s = target if ru.xflag[XF_TOXIC_TOKEN_FOLLOWS_CUBES] != 0 else space
    st.toxic[g, s] += 1
    wk.tally[b, tally.TOXIC_TOKEN] += 1
    log(st, wk, g, EV_TOXIC_TOKEN, phase, p, a + 1, s, st.toxic[g, s], 0, 0, 0, 0, 0)


@kernel
def arrive(st, ru, wk, g, b, p, a, space, phase):
    """XG-19: amoeba (p, a) moved into ``space``: it takes every DP token lying there (+n DP; a
    death is checked in Phase 5, X1). Free in base games (no token is ever laid)."""
    if not ru.extra_genes:
        return
    n = st.toxic[g, space]
    if n <= 0:
        return
    st.toxic[g, space] = 0
    st.dp[g, p, a] += n
    wk.tally[b, tally.TOXIC_PICKUP] += 1
    log(st, wk, g, EV_TOXIC_PICKUP, phase, p, a + 1, space, n, 0, 0, 0, 0, 0)
