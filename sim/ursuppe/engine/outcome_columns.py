"""The outcome rows' columns read off a finished batch (sim.ursuppe.simulation.outcome_rows), in
one kernel pass over its players rather than NumPy's many (issue 36.3, session 9).

Its own module, imported when rows are built: sim.ursuppe.simulation is imported by commands that
never play (``soup report``, an argument check), and a kernel there would load numba for them.
"""

from sim.jit import kernel


@kernel
def player_columns(final_positions, bought_first, n_genes, player_ranks, bought_bytes):
    """The outcome rows' columns that NumPy built in several passes over the batch, filled in one
    (issue 36.3) from a finished batch's ``final_positions`` (State.score) and ``bought_first``
    [G, P(, k)]: ``player_ranks`` (1 = the furthest marker, W1; equal positions, should a game end
    with two, rank in player order, as a stable sort of them would) and ``bought_bytes``
    [G * P, n_genes] (first_bought one byte an entry, sim.packed). Returns 1 if a first_bought
    entry lies outside 0..255 (its byte is then meaningless), else 0. Like every kernel it runs
    without the GIL, so the writer thread that builds the rows does not hold up the engine's
    threads between their blocks."""
    G, P = final_positions.shape
    outside = 0
    for g in range(G):
        for p in range(P):
            s = final_positions[g, p]
            r = 1
            for q in range(P):
                if final_positions[g, q] > s or (final_positions[g, q] == s and q < p):
                    r += 1
            player_ranks[g, p] = r
            row = g * P + p
            for i in range(n_genes):  # no branch: the loop stays a vector loop
                v = bought_first[g, p, i]
                outside |= v >> 8  # nonzero for an entry below 0 or over 255
                bought_bytes[row, i] = v
    return 1 if outside else 0
