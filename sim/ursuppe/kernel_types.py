"""The numba types of Ursuppe's kernel parameters beyond the kit's (sim.jit asks for them before
compiling the first kernel of the namespace; every other parameter is an int64 or a boolean)."""


def argument_types() -> dict:
    """``st``, ``ru``, ``wk`` (the state, rules and workspace tuples, by reference), ``prm``
    (a strategy's parameter row), and one game's rows that the policy's hot loops read once and
    pass to the helpers they inline (policy._dest_value): ``occ_all`` and ``occ_own`` (rows of
    State.occupancy), ``capped_row`` (State.food_capped[g]) and ``food_rows`` (State.food[g]);
    and the arrays of the outcome rows' kernel (``final_positions`` ... ``bought_bytes``)."""
    from numba import types

    from sim.ursuppe.engine.state import borrowed_types

    return {
        **borrowed_types(),
        "prm": types.Array(types.float64, 1, "C"),
        "occ_all": types.Array(types.int8, 1, "C"),
        "occ_own": types.Array(types.int8, 1, "C"),
        "capped_row": types.Array(types.int16, 1, "C"),
        "food_rows": types.Array(types.int16, 2, "C"),
        # a finished batch's state fields [G, P(, k)] and the outcome rows' columns built from
        # them (engine.outcome_columns)
        "final_positions": types.Array(types.int16, 2, "C"),
        "bought_first": types.Array(types.int16, 3, "C"),
        "player_ranks": types.Array(types.int8, 2, "C"),
        "bought_bytes": types.Array(types.uint8, 2, "C"),
    }
