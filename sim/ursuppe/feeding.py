"""Feeding (M4) with Frugality, Substitution and Parasitism (F1-F4).

A *shape* is a pattern's cube counts over the foreign colours, regardless of which colour gets
which count (the owner assigns colours, M4). The shapes a player may eat depend only on the rules
and on whether it holds Substitution and Frugality, so they are built when the rules are loaded
(meal_shapes.py: the standard shape, Substitution's shapes (F2), each of those with Frugality's
cubes fewer (F1, F3); Parasitism (F4) adds every such shape with its cubes fewer, paired with a
victim). A meal option is a concrete cube vector: one distinct arrangement of a shape over the
foreign colours that the space can supply.

A feeding copies the player's shapes, sorted ascending, into the block's scratch row, because
``next_permutation`` walks each shape's distinct arrangements exactly once by permuting it in
place: ``scratch[b, NORMAL:NORMAL + 8k]`` and ``scratch[b, PARASITE:PARASITE + 8k]``.
"""

from sim.jit import kernel
from sim.ursuppe import tally
from sim.ursuppe.decision_kinds import EAT, EAT_VICTIM_SLOT
from sim.ursuppe.decisions import decide, option_overflow, set_option
from sim.ursuppe.events import EV_EAT, EV_EXCRETE, EV_STARVE, log
from sim.ursuppe.food import place_cubes, return_cubes
from sim.ursuppe.genes import FRUGALITY, PARASITISM, SUBSTITUTION
from sim.ursuppe.meal_shapes import WITH_FRUGALITY, WITH_SUBSTITUTION
from sim.ursuppe.players import add_bp, amoebas_on_space, has, same_side
from sim.ursuppe.scratch import NORMAL, PARASITE, SHAPE_STRIDE
from sim.ursuppe.state import AF_FED, AF_STARVED, OPTION_WIDTH


@kernel
def _next_permutation(row, start, k):
    """Rearrange row[start:start+k] into the next lexicographic permutation; False after the last."""
    i = k - 2
    while i >= 0 and row[start + i] >= row[start + i + 1]:
        i -= 1
    if i < 0:
        return False
    j = k - 1
    while row[start + j] <= row[start + i]:
        j -= 1
    x = row[start + i]
    row[start + i] = row[start + j]
    row[start + j] = x
    lo = i + 1
    hi = k - 1
    while lo < hi:
        x = row[start + lo]
        row[start + lo] = row[start + hi]
        row[start + hi] = x
        lo += 1
        hi -= 1
    return True


@kernel
def _shape_set(st, g, p):
    """The index of player p's shape sets in the rules tables (F1, F2: the genes it holds)."""
    c = 0
    if has(st, g, p, SUBSTITUTION):
        c |= WITH_SUBSTITUTION
    if has(st, g, p, FRUGALITY):
        c |= WITH_FRUGALITY
    return c


@kernel
def _fits(st, ru, wk, g, b, p, space, base, k):
    """Does the arrangement at row[base:base+k] (counts per foreign colour of p) fit on ``space``?
    TB1 (flag double2_eat_partner_colour false): none of ``ru.inedible[p]``'s cubes either."""
    row = wk.scratch[b]
    skip = ru.inedible[p]
    if skip < 0:  # every game but one variant's: the loop as lean as it was (the hottest one)
        for j in range(k):
            # the foreign colours in colour order: every colour but p's own
            if st.food[g, space, j + (j >= p)] < row[base + j]:
                return False
        return True
    for j in range(k):
        c = j + (j >= p)
        if st.food[g, space, c] < row[base + j] or (c == skip and row[base + j] > 0):
            return False
    return True


@kernel
def standard_available(st, ru, wk, g, b, p, space):
    """A1: can player p's amoeba eat the standard pattern on ``space``?"""
    row = wk.scratch[b]
    k = ru.meal_shapes.shape[2]
    for j in range(k):  # set 0, the standard shape alone
        row[NORMAL + j] = ru.meal_shapes[0, 0, j]
    base = NORMAL
    while True:
        if _fits(st, ru, wk, g, b, p, space, base, k):
            return True
        if not _next_permutation(row, base, k):
            return False


@kernel
def _add_arrangements(st, ru, wk, g, b, p, space, base, k, victim, n):
    """Add every arrangement of the shape at ``base`` that fits, as EAT options with ``victim``."""
    row = wk.scratch[b]
    while True:
        if _fits(st, ru, wk, g, b, p, space, base, k):
            if option_overflow(wk, g, n):
                return n
            opt = wk.options[b, n]
            for j in range(OPTION_WIDTH):  # a constant: stores, not a loop
                opt[j] = 0
            for j in range(k):
                opt[j + (j >= p)] = row[base + j]
            opt[EAT_VICTIM_SLOT] = victim
            n += 1
        if not _next_permutation(row, base, k):
            return n


@kernel
def meal_options(st, ru, wk, g, b, p, a, space):
    """Write every legal meal of amoeba (p, a) on ``space`` as EAT options; return their number."""
    row = wk.scratch[b]
    c = _shape_set(st, g, p)
    k = ru.meal_shapes.shape[2]
    n_shapes = ru.n_meal_shapes[c]
    for s in range(n_shapes):
        for j in range(k):
            row[NORMAL + s * SHAPE_STRIDE + j] = ru.meal_shapes[c, s, j]
    n = 0
    for s in range(n_shapes):
        n = _add_arrangements(st, ru, wk, g, b, p, space, NORMAL + s * SHAPE_STRIDE, k, -1, n)
    if has(st, g, p, PARASITISM) and ru.parasitism_fewer > 0:
        n_par = ru.n_parasite_shapes[c]
        P = st.supply.shape[1]
        for q in range(P):
            # F4: another player's amoeba (TB10: not a double play II partner colour's)
            if same_side(ru, p, q) or st.bp[g, q] < max(ru.parasitism_victim_pays, 1):
                continue
            if amoebas_on_space(st, g, q, space) == 0:
                continue
            # Copied for each victim: the walk below leaves every shape at its last arrangement
            # (until 2026-11-22 the set was built once, so a second victim was offered only
            # that arrangement, against F4).
            for s in range(n_par):
                for j in range(k):
                    row[PARASITE + s * SHAPE_STRIDE + j] = ru.parasite_shapes[c, s, j]
            for s in range(n_par):
                n = _add_arrangements(st, ru, wk, g, b, p, space, PARASITE + s * SHAPE_STRIDE, k, q, n)
    return n


@kernel
def eat(st, ru, wk, g, b, p, a, space, i, phase):
    """Eat option i: cubes to the supply, the parasite's victim pays (F4), then excrete (M4)."""
    opt = wk.options[b, i]
    packed = 0
    for c in range(st.supply.shape[1]):
        if opt[c] > 0:
            return_cubes(st, g, space, c, opt[c])
            packed |= opt[c] << (4 * c)
    victim = opt[EAT_VICTIM_SLOT]
    if victim >= 0:
        add_bp(st, ru, g, victim, -ru.parasitism_victim_pays)
        wk.tally[b, tally.PARASITE_MEAL] += 1
    st.amoeba_flags[g, p, a] |= AF_FED
    log(st, wk, g, EV_EAT, phase, p, a + 1, space, packed, victim, 0, 0, 0, 0)
    excreted = place_cubes(st, g, space, p, ru.excretion)
    log(st, wk, g, EV_EXCRETE, phase, p, a + 1, space, excreted, 0, 0, 0, 0, 0)


@kernel
def starve(st, ru, wk, g, p, a, phase):
    """M4/A6: the amoeba eats nothing, excretes nothing and gets DP."""
    st.dp[g, p, a] += ru.starvation_dp
    st.amoeba_flags[g, p, a] |= AF_STARVED
    log(st, wk, g, EV_STARVE, phase, p, a + 1, st.space[g, p, a], st.dp[g, p, a], 0, 0, 0, 0, 0)


@kernel
def eat_or_starve(st, ru, wk, g, b, p, a, phase):
    """M4: eat a legal meal if there is one (owner's choice), else starve. True if it ate.

    With the flag gene_meals_optional, gene patterns may be declined: when the standard pattern
    is not available, a last option eats nothing (cubes all 0, no victim) and starves."""
    space = st.space[g, p, a]
    n = meal_options(st, ru, wk, g, b, p, a, space)
    if n == 0:
        starve(st, ru, wk, g, p, a, phase)
        return False
    decline = -1
    if ru.gene_meals_optional and not option_overflow(wk, g, n):
        if not standard_available(st, ru, wk, g, b, p, space):  # reads only the scratch row
            decline = n
            set_option(wk.options, b, n, 0, 0, 0)
            wk.options[b, n, EAT_VICTIM_SLOT] = -1
            n += 1
    i = decide(st, ru, wk, g, b, p, a, EAT, n)
    if i == decline:
        starve(st, ru, wk, g, p, a, phase)
        return False
    eat(st, ru, wk, g, b, p, a, space, i, phase)
    return True
