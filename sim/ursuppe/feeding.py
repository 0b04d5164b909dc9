"""Feeding (M4) with Frugality, Substitution and Parasitism (F1-F4).

A *shape* is a pattern's cube counts over the foreign colours, regardless of which colour gets
which count (the owner assigns colours, M4). The shapes a player may eat are built from the
rules data: the standard shape, Substitution's shapes (F2), each of those with Frugality's cubes
fewer (F1, F3); Parasitism (F4) adds every such shape with its cubes fewer, paired with a victim.
A meal option is a concrete cube vector: one distinct arrangement of a shape over the foreign
colours that the space can supply.

Shapes are kept sorted ascending in the block's scratch row (``next_permutation`` then walks
each shape's distinct arrangements exactly once):
``scratch[b, NORMAL:NORMAL + 8k]`` and ``scratch[b, PARASITE:PARASITE + 8k]``.
"""

from sim.jit import kernel
from sim.ursuppe import tally
from sim.ursuppe.decision_kinds import EAT, EAT_VICTIM_SLOT
from sim.ursuppe.decisions import decide, option_overflow
from sim.ursuppe.events import EV_EAT, EV_EXCRETE, EV_STARVE, log
from sim.ursuppe.food import place_cubes, return_cubes
from sim.ursuppe.genes import FRUGALITY, PARASITISM, SUBSTITUTION
from sim.ursuppe.players import amoebas_on_space, has
from sim.ursuppe.state import AF_FED, AF_STARVED, OPTION_WIDTH

SHAPE_STRIDE = 8
MAX_SHAPES = 12
NORMAL = 16  # scratch offset of the normal shapes
PARASITE = NORMAL + MAX_SHAPES * SHAPE_STRIDE  # scratch offset of the parasite shapes
TMP = PARASITE + MAX_SHAPES * SHAPE_STRIDE  # scratch offset of one shape being worked on
FOREIGN = TMP + SHAPE_STRIDE  # scratch offset of the foreign colours, in colour order


@kernel
def _sort_ascending(row, start, k):
    for i in range(1, k):
        j = i
        while j > 0 and row[start + j - 1] > row[start + j]:
            x = row[start + j - 1]
            row[start + j - 1] = row[start + j]
            row[start + j] = x
            j -= 1


@kernel
def _add_shape(row, base, count, k):
    """Append the shape in row[TMP:TMP+k] (sorted here) to the set at ``base`` unless present."""
    _sort_ascending(row, TMP, k)
    total = 0
    for j in range(k):
        total += row[TMP + j]
    if total <= 0:
        return count
    for s in range(count):
        same = True
        for j in range(k):
            if row[base + s * SHAPE_STRIDE + j] != row[TMP + j]:
                same = False
                break
        if same:
            return count
    if count >= MAX_SHAPES:
        return count
    for j in range(k):
        row[base + count * SHAPE_STRIDE + j] = row[TMP + j]
    return count + 1


@kernel
def _add_reduced(row, src, n_src, dst, n_dst, k, fewer):
    """Add to the set at ``dst`` every shape of the set at ``src`` with ``fewer`` cubes removed."""
    # Each pass removes one cube in every possible place from the shapes added by the last pass.
    lo = 0
    hi = n_src
    cur_base = src
    for _ in range(fewer):
        start = n_dst
        for s in range(lo, hi):
            for j in range(k):
                if row[cur_base + s * SHAPE_STRIDE + j] > 0:
                    for m in range(k):
                        row[TMP + m] = row[cur_base + s * SHAPE_STRIDE + m]
                    row[TMP + j] -= 1
                    n_dst = _add_shape(row, dst, n_dst, k)
        cur_base = dst
        lo = start
        hi = n_dst
    return n_dst


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
def _foreign_colours(st, wk, g, b, p):
    row = wk.scratch[b]
    k = 0
    for c in range(st.supply.shape[1]):
        if c != p:
            row[FOREIGN + k] = c
            k += 1
    return k


@kernel
def _build_shapes(st, ru, wk, g, b, p, with_genes):
    """Fill the normal shape set for player p; return (count, k foreign colours)."""
    row = wk.scratch[b]
    k = _foreign_colours(st, wk, g, b, p)
    for j in range(k):
        row[TMP + j] = ru.standard_shape[j]
    n = _add_shape(row, NORMAL, 0, k)
    if with_genes:
        if has(st, g, p, SUBSTITUTION):
            for s in range(ru.substitution_shapes.shape[0]):
                for j in range(k):
                    row[TMP + j] = ru.substitution_shapes[s, j]
                n = _add_shape(row, NORMAL, n, k)
        if has(st, g, p, FRUGALITY) and ru.frugality_fewer > 0:
            n = _add_reduced(row, NORMAL, n, NORMAL, n, k, ru.frugality_fewer)
    return n, k


@kernel
def _fits(st, wk, g, b, space, base, k):
    """Does the arrangement at row[base:base+k] (counts per foreign colour) fit on ``space``?"""
    row = wk.scratch[b]
    for j in range(k):
        if st.food[g, space, row[FOREIGN + j]] < row[base + j]:
            return False
    return True


@kernel
def standard_available(st, ru, wk, g, b, p, space):
    """A1: can player p's amoeba eat the standard pattern on ``space``?"""
    row = wk.scratch[b]
    n, k = _build_shapes(st, ru, wk, g, b, p, False)
    base = NORMAL
    while True:
        if _fits(st, wk, g, b, space, base, k):
            return True
        if not _next_permutation(row, base, k):
            return False


@kernel
def _add_arrangements(st, wk, g, b, space, base, k, victim, n):
    """Add every arrangement of the shape at ``base`` that fits, as EAT options with ``victim``."""
    row = wk.scratch[b]
    while True:
        if _fits(st, wk, g, b, space, base, k):
            if option_overflow(wk, g, n):
                return n
            opt = wk.options[b, n]
            for j in range(OPTION_WIDTH):  # a constant: stores, not a loop
                opt[j] = 0
            for j in range(k):
                opt[row[FOREIGN + j]] = row[base + j]
            opt[EAT_VICTIM_SLOT] = victim
            n += 1
        if not _next_permutation(row, base, k):
            return n


@kernel
def meal_options(st, ru, wk, g, b, p, a, space):
    """Write every legal meal of amoeba (p, a) on ``space`` as EAT options; return their number."""
    row = wk.scratch[b]
    n_shapes, k = _build_shapes(st, ru, wk, g, b, p, True)
    n = 0
    for s in range(n_shapes):
        n = _add_arrangements(st, wk, g, b, space, NORMAL + s * SHAPE_STRIDE, k, -1, n)
    if has(st, g, p, PARASITISM) and ru.parasitism_fewer > 0:
        n_par = _add_reduced(row, NORMAL, n_shapes, PARASITE, 0, k, ru.parasitism_fewer)
        P = st.supply.shape[1]
        for q in range(P):
            if q == p or st.bp[g, q] < max(ru.parasitism_victim_pays, 1):
                continue
            if amoebas_on_space(st, g, q, space) == 0:
                continue
            for s in range(n_par):
                n = _add_arrangements(st, wk, g, b, space, PARASITE + s * SHAPE_STRIDE, k, q, n)
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
        st.bp[g, victim] -= ru.parasitism_victim_pays
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
    """M4: eat a legal meal if there is one (owner's choice), else starve. True if it ate."""
    space = st.space[g, p, a]
    n = meal_options(st, ru, wk, g, b, p, a, space)
    if n == 0:
        starve(st, ru, wk, g, p, a, phase)
        return False
    i = decide(st, ru, wk, g, b, p, a, EAT, n)
    eat(st, ru, wk, g, b, p, a, space, i, phase)
    return True
