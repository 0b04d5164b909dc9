"""Toxic Excretions (XG-19): DP tokens laid where the owner's amoebas excrete, taken by the next
amoeba that moves into the space. A gene without a decision point: its module declares flags,
events and tallies, and its hooks are called where an excretion happens or an amoeba arrives.

``State.toxic[g, s]`` counts the tokens lying on space s (the state struct is shared, so the field
stays in state.py); they persist across rounds. A token is laid by :func:`toxic_excretion`
(feeding.excrete: each excretion of a Toxic Excretions owner's amoeba) and, with the flag
toxic_includes_attack_cubes, by :func:`toxic_attack_cubes` (A6's cubes). The tokens are taken by
:func:`toxic_arrival`, which the movement calls where an amoeba arrives on a space
(movement.finish_movement), by :func:`toxic_speed_step` (Speed's first step, flag
toxic_pickup_on_speed_intermediate) and by :func:`toxic_placement` (Phase-4 placements, flag
toxic_pickup_by_placement). A mover arrives before the amoebas clinging to it, so it takes the
tokens; amoebas already on the space are unaffected.
"""

from sim.jit import kernel
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.rules.gene_rows import ExtraFlag, Gene

GENE = Gene(
    "Toxic Excretions",
    "XG-19",
    flags=(
        ExtraFlag("toxic_pickup_on_speed_intermediate", "XG-19", True),
        ExtraFlag("toxic_pickup_by_placement", "XG-19", False),
        ExtraFlag("toxic_zero_cube_excretion", "XG-19", False),
        ExtraFlag("toxic_includes_attack_cubes", "XG-19", False),
        ExtraFlag("toxic_token_follows_cubes", "XG-19", True),
    ),
    events=(
        ("toxic_token", ("space", "tokens")),  # a token laid; the tokens now on the space
        ("toxic_pickup", ("space", "dp")),
    ),
    tallies=(
        ("toxic:token", "XG-19"),
        ("toxic:pickup", "XG-19"),
    ),
)

# The kernels' constants (numba globals): the gene, its flags, events and tallies.
(
    TOXIC,
    XF_TOXIC_PICKUP_ON_SPEED_INTERMEDIATE,
    XF_TOXIC_PICKUP_BY_PLACEMENT,
    XF_TOXIC_ZERO_CUBE_EXCRETION,
    XF_TOXIC_INCLUDES_ATTACK_CUBES,
    XF_TOXIC_TOKEN_FOLLOWS_CUBES,
    EV_TOXIC_TOKEN,
    EV_TOXIC_PICKUP,
    TOXIC_TOKEN,
    TOXIC_PICKUP,
) = indices(GENE)


@kernel
def _lay(st, ru, wk, g, b, p, a, space, target, cubes, phase):
    """XG-19: amoeba (p, a) on ``space`` excreted ``cubes`` cubes of its colour onto ``target``
    (another space with Cleanliness, XG-04): one DP token on ``target`` (flag
    toxic_token_follows_cubes; else on ``space``). No token for 0 cubes placed (a shortage, C3)
    unless the flag toxic_zero_cube_excretion says so."""
    if cubes <= 0 and ru.xflag[XF_TOXIC_ZERO_CUBE_EXCRETION] == 0:
        return
    s = target if ru.xflag[XF_TOXIC_TOKEN_FOLLOWS_CUBES] != 0 else space
    st.toxic[g, s] += 1
    wk.tally[b, TOXIC_TOKEN] += 1
    log(st, wk, g, EV_TOXIC_TOKEN, phase, p, a + 1, s, st.toxic[g, s], 0, 0, 0, 0, 0)


@kernel
def toxic_excretion(st, ru, wk, g, b, p, a, space, target, cubes, phase):
    """XG-19, the excretion's hook (feeding.excrete, extra genes on): with Toxic Excretions the
    excretion of (p, a) on ``space`` (``cubes`` put on ``target``) lays a token (_lay)."""
    if has(st, g, p, TOXIC):
        _lay(st, ru, wk, g, b, p, a, space, target, cubes, phase)


@kernel
def toxic_attack_cubes_followed(st, ru, g, p):
    """XG-19 (flag toxic_includes_attack_cubes): do player p's A6 cubes lay a token? Then the
    caller (feeding.attack_cubes_watch) notes the supply before the kill."""
    return has(st, g, p, TOXIC) and ru.xflag[XF_TOXIC_INCLUDES_ATTACK_CUBES] != 0


@kernel
def toxic_attack_cubes(st, ru, wk, g, b, p, a, space, target, own, phase):
    """XG-19 (flag toxic_includes_attack_cubes): the attacker's ``own`` cubes of its colour, put by
    its kill on ``space`` (on ``target`` with Cleanliness), count as an excretion (_lay)."""
    if toxic_attack_cubes_followed(st, ru, g, p):
        _lay(st, ru, wk, g, b, p, a, space, target, own, phase)


@kernel
def toxic_arrival(st, ru, wk, g, b, p, a, space, phase):
    """XG-19: amoeba (p, a) moved into ``space``: it takes every DP token lying there (+n DP; a
    death is checked in Phase 5, X1). Free in base games (no token is ever laid)."""
    if not ru.extra_genes:
        return
    n = st.toxic[g, space]
    if n <= 0:
        return
    st.toxic[g, space] = 0
    st.dp[g, p, a] += n
    wk.tally[b, TOXIC_PICKUP] += 1
    log(st, wk, g, EV_TOXIC_PICKUP, phase, p, a + 1, space, n, 0, 0, 0, 0, 0)


@kernel
def toxic_speed_step(st, ru, wk, g, b, p, a, space, phase):
    """XG-19 (flag toxic_pickup_on_speed_intermediate): Speed's first step moved (p, a) into
    ``space``; each step moves into a space, so it takes the tokens there (toxic_arrival)."""
    if ru.extra_genes and ru.xflag[XF_TOXIC_PICKUP_ON_SPEED_INTERMEDIATE] != 0:
        toxic_arrival(st, ru, wk, g, b, p, a, space, phase)


@kernel
def toxic_placement(st, ru, wk, g, b, p, a, phase):
    """XG-19 (flag toxic_pickup_by_placement): a placed amoeba takes the DP tokens on its space."""
    if ru.extra_genes and ru.xflag[XF_TOXIC_PICKUP_BY_PLACEMENT] != 0:
        toxic_arrival(st, ru, wk, g, b, p, a, st.space[g, p, a], phase)
