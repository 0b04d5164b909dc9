"""Food cubes (C3): moving cubes between the supply and the board, with food shortage.

Every change of ``State.food`` goes through here, so that ``State.food_capped`` (the cubes per
space counting at most FOOD_CAP of a colour) stays its sum.
"""

from sim.jit import kernel
from sim.ursuppe.engine.state import FOOD_CAP


@kernel
def _add_food(st, g, space, colour, count):
    """Add ``count`` (may be negative) cubes of ``colour`` to ``space``, keeping food_capped."""
    old = int(st.food[g, space, colour])
    new = old + count
    st.food[g, space, colour] = new
    st.food_capped[g, space] += min(new, FOOD_CAP) - min(old, FOOD_CAP)


@kernel
def place_cubes(st, g, space, colour, count):
    """Place up to ``count`` cubes of ``colour`` from the supply on ``space``.

    C3 (food shortage): when the supply is short only what is there is placed, never another
    colour. Returns the number placed.
    """
    n = count
    if st.supply[g, colour] < n:
        n = st.supply[g, colour]
    if n > 0:
        st.supply[g, colour] -= n
        _add_food(st, g, space, colour, n)
    return n


@kernel
def place_each_colour(st, g, space, count):
    """Place ``count`` cubes of every colour in play on ``space`` (X1, A6, R3), with shortage."""
    for c in range(st.supply.shape[1]):
        place_cubes(st, g, space, c, count)


@kernel
def return_cubes(st, g, space, colour, count):
    """Move ``count`` cubes of ``colour`` from ``space`` back to the supply (eaten, M4)."""
    _add_food(st, g, space, colour, -count)
    st.supply[g, colour] += count


@kernel
def move_cubes(st, g, source, target, colour, count):
    """Carry ``count`` cubes of ``colour`` from one space to another (Tentacle)."""
    _add_food(st, g, source, colour, -count)
    _add_food(st, g, target, colour, count)
