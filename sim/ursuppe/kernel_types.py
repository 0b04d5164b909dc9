"""The numba types of Ursuppe's kernel parameters beyond the kit's (sim.jit asks for them before
compiling the first kernel of the namespace; every other parameter is an int64 or a boolean)."""


def argument_types() -> dict:
    """``st``, ``ru``, ``wk`` (the state, rules and workspace tuples, by reference) and ``prm``
    (a strategy's parameter row)."""
    from numba import types

    from sim.ursuppe.engine.state import borrowed_types

    return {**borrowed_types(), "prm": types.Array(types.float64, 1, "C")}
