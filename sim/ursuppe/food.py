"""Food cubes (C3): moving cubes between the supply and the board, with food shortage."""

from sim.jit import kernel


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
        st.food[g, space, colour] += n
    return n


@kernel
def place_each_colour(st, g, space, count):
    """Place ``count`` cubes of every colour in play on ``space`` (X1, A6, B3), with shortage."""
    for c in range(st.supply.shape[1]):
        place_cubes(st, g, space, c, count)


@kernel
def return_cubes(st, g, space, colour, count):
    """Move ``count`` cubes of ``colour`` from ``space`` back to the supply (eaten, M4)."""
    st.food[g, space, colour] -= count
    st.supply[g, colour] += count


@kernel
def move_cubes(st, g, source, target, colour, count):
    """Carry ``count`` cubes of ``colour`` from one space to another (Tentacle)."""
    st.food[g, source, colour] -= count
    st.food[g, target, colour] += count
