"""Cleanliness (XG-04): the owner may put the cubes its amoeba excretes on one orthogonally
adjacent space instead of its own (B1); with the flag cleanliness_covers_attack_cubes, A6's cubes
of a successful attack too.

The choice is the decision kind ``cleanliness`` (scenario choice ``{"clean": space}``), valued by
:func:`value`; cubes put elsewhere are logged as the event ``clean`` and counted in the tally
``cleanliness:moved``. The hooks are called by feeding.py: :func:`cleanliness_target` by
``excrete``, :func:`cleanliness_attack_cubes_followed` by ``attack_cubes_watch`` and
:func:`cleanliness_attack_cubes` by ``attack_cubes_placed`` (the supply noted in the scratch's
``meal_extra`` slot before the kill).
"""

import json

from sim.jit import kernel
from sim.ursuppe.engine.decisions import decide, set_option
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.food import move_cubes
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import has
from sim.ursuppe.engine.policy_port import CLEAN_OPPONENT_WEIGHT
from sim.ursuppe.engine.scratch import MEAL_EXTRA
from sim.ursuppe.rules.gene_rows import Decision, ExtraFlag, Gene

LAST_SPACE = 126  # a scenario's space number: 0..126


def _parse(value, row: list[int], players: int) -> list[int]:
    """The scenario choice {"clean": space}: the space the cubes go to."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, got {json.dumps(value)}")
    if value < 0 or value > LAST_SPACE:
        raise ValueError(f"expected an integer in 0..{LAST_SPACE}, got {value}")
    row[0] = value
    return row


def _render(row: list[int]) -> dict[str, int]:
    return {"clean": int(row[0])}


GENE = Gene(
    "Cleanliness",
    "XG-04",
    flags=(ExtraFlag("cleanliness_covers_attack_cubes", "XG-04", False),),
    decisions=(
        Decision("cleanliness", "XG-04", 1, "clean", "space the excreted cubes go to", _parse, _render),
    ),
    events=(("clean", ("from", "to")),),
    tallies=(("cleanliness:moved", "XG-04: excreted cubes put on a neighbouring space"),),
)

# The kernels' constants (numba globals): the gene, its flag, decision kind, event and tally.
CLEANLINESS, XF_CLEANLINESS_COVERS_ATTACK_CUBES, CLEAN, EV_CLEAN, CLEANLINESS_MOVED = indices(GENE)


@kernel
def value(st, ru, wk, g, b, p, a, n, prm):
    """XG-04, the policy's valuation (strategies/ursuppe/policy.py) of the options (the space the
    excreted cubes go to). Own-colour cubes feed only the other players' amoebas: a destination
    loses ``clean_opponent_weight`` per other player's amoeba on it, so the cubes go where no
    opponent is (the own space, listed first, on a tie)."""
    P = st.space.shape[1]
    for i in range(n):
        slot = int(wk.options[b, i, 0]) + 1
        others = 0
        for q in range(P):
            if ru.team[q] != ru.team[p]:
                others += st.occupancy[g, q, slot]
        wk.scores[b, i] = -prm[CLEAN_OPPONENT_WEIGHT] * float(others)


@kernel
def clean_destination(st, ru, wk, g, b, p, a, space, phase):
    """XG-04 Cleanliness: the space the cubes amoeba (p, a) produces on ``space`` go to: the own
    space (the first option) or one orthogonally adjacent space (B1), the owner's choice."""
    set_option(wk.options, b, 0, space, 0, 0)
    n = 1
    for d in range(4):
        s = ru.neighbours[space, d]
        if s >= 0:
            set_option(wk.options, b, n, s, 0, 0)
            n += 1
    # The policy cannot call value (its module would import this one, which calls decide): the
    # scores are set here, and policy.choose leaves a gene module's kinds' scores as they are.
    if p != ru.dummy and n > 1:
        value(st, ru, wk, g, b, p, a, n, wk.params[st.strategy[g, p]])
    target = wk.options[b, decide(st, ru, wk, g, b, p, a, CLEAN, n), 0]
    if target != space:
        wk.tally[b, CLEANLINESS_MOVED] += 1
        log(st, wk, g, EV_CLEAN, phase, p, a + 1, space, target, 0, 0, 0, 0, 0)
    return target


@kernel
def cleanliness_target(st, ru, wk, g, b, p, a, space, phase):
    """XG-04, the excretion's hook (feeding.excrete, extra genes on): where the cubes amoeba
    (p, a) excretes on ``space`` go; the owner of Cleanliness chooses when there is a cube to put
    (C3: as many as the supply has)."""
    if has(st, g, p, CLEANLINESS) and min(ru.excretion, st.supply[g, p]) > 0:
        return clean_destination(st, ru, wk, g, b, p, a, space, phase)
    return space


@kernel
def cleanliness_attack_cubes_followed(st, ru, g, p):
    """XG-04 (flag cleanliness_covers_attack_cubes): may player p move its A6 cubes? Then the
    caller (feeding.attack_cubes_watch) notes the supply before the kill."""
    return has(st, g, p, CLEANLINESS) and ru.xflag[XF_CLEANLINESS_COVERS_ATTACK_CUBES] != 0


@kernel
def cleanliness_attack_cubes(st, ru, wk, g, b, p, a, space, total, phase):
    """XG-04 (flag cleanliness_covers_attack_cubes): the ``total`` cubes p's kill placed on
    ``space`` (A6; the supply before it in the scratch's ``meal_extra`` slot) count as the
    attacker's production: its owner may move them all to one neighbouring space. Returns where
    they are."""
    if total <= 0 or not cleanliness_attack_cubes_followed(st, ru, g, p):
        return space
    P = st.supply.shape[1]
    placed_from = MEAL_EXTRA + 8  # the counts survive the CLEAN decision (options, not scratch)
    for c in range(P):
        wk.scratch[b, placed_from + c] = wk.scratch[b, MEAL_EXTRA + c] - st.supply[g, c]
    target = clean_destination(st, ru, wk, g, b, p, a, space, phase)
    if target != space:
        for c in range(P):
            if wk.scratch[b, placed_from + c] > 0:
                move_cubes(st, g, space, target, c, wk.scratch[b, placed_from + c])
    return target
