"""Dice (§0: a die is a uniform d6 from the game's own stream) and a scenario's forced dice."""

from sim.jit import always_inline, kernel
from sim.random_stream import below
from sim.ursuppe.engine.state import ERR_MISSING_DIE, STREAM_DICE


@kernel
@always_inline
def roll_die(st, wk, g):
    """One die: the next forced die of a scenario if dice are forced, else the dice stream.

    Running out of forced dice is an error (scenario-format.md), never a silent random roll: the
    error names the roll, and the game stops at the end of the phase.
    """
    if wk.dice_len[g] >= 0:
        i = wk.dice_pos[g]
        if i >= wk.dice_len[g]:
            if wk.error[g, 0] == 0:
                wk.error[g, 0] = ERR_MISSING_DIE
                wk.error[g, 1] = i
            return 1
        wk.dice_pos[g] = i + 1
        return int(wk.dice[g, i])
    return below(st.rng_key, st.rng_ctr, g, STREAM_DICE, 6) + 1
