"""The numba types of Pig's kernel parameters beyond the kit's (sim.jit asks for them before
compiling the first kernel of the namespace; every other parameter is an int64)."""


def argument_types() -> dict:
    """The batch's arrays (sim/pig/engine.py) and the rules row."""
    from numba import types

    return {
        "pig_games": types.Array(types.int64, 2, "C"),
        "pig_scores": types.Array(types.int32, 2, "C"),
        "pig_hold": types.Array(types.int32, 2, "C"),
        "pig_seat": types.Array(types.int8, 2, "C"),
        "pig_dice": types.Array(types.int64, 2, "C"),
        "pig_rules": types.Array(types.int64, 1, "C"),
        "pig_tape": types.Array(types.int64, 2, "C"),
    }
