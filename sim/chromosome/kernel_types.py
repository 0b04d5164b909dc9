"""The numba types of Chromosome's kernel parameters beyond the kit's (sim.jit asks for them
before compiling the first kernel of the namespace; every other parameter is an int64)."""


def argument_types() -> dict:
    """``cs``, ``cr``, ``cw``: the state, the rules and the workspace, by reference
    (engine/state.py); ``mark``: a per-player row of 0/1 (int8); ``prm``: a strategy's row;
    ``scores``, ``won``: per game and player (int16, int8)."""
    from numba import types

    from sim.chromosome.engine.state import borrowed_types

    return {
        **borrowed_types(),
        "mark": types.Array(types.int8, 1, "C"),
        "prm": types.Array(types.float64, 1, "C"),
        "scores": types.Array(types.int16, 2, "C"),
        "won": types.Array(types.int8, 2, "C"),
    }
