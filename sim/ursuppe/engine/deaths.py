"""An amoeba's removal (X1, A6, R3): ``kill`` and the ways it dies (EV_DEATH's "how").

Every death of the phases goes through attacks.die, which is ``kill`` and then Go Out With a
Bang's hook (XG-17, genes/go_out_with_a_bang.py); a bang's chain kills through ``kill`` itself,
so ``kill`` sits here, below both (it was attacks.py's).
"""

from sim.jit import kernel
from sim.ursuppe.engine.events import EV_DEATH, log
from sim.ursuppe.engine.food import place_each_colour
from sim.ursuppe.engine.players import put_amoeba

# EV_DEATH's "how", by its name in the event log: X1's natural death (Phase 5, and Healing 2's
# receiver, XG-25), A6's violent one (Phase 1), R3's (Aggression), the attacker that did not pay
# Hard Crust (XG-05), a bang's at once (XG-17 flag bang_immediate_death).
DEATH_HOW: tuple[str, ...] = ("natural", "violent", "aggression", "hard_crust", "bang")
DEATH_NATURAL, DEATH_VIOLENT, DEATH_AGGRESSION, DEATH_HARD_CRUST, DEATH_BANG = range(len(DEATH_HOW))


@kernel
def kill(st, wk, g, q, t, cubes, how, phase):
    """Remove amoeba (q, t) to its owner's supply and place ``cubes`` of each colour (X1/A6/R3).
    The phases' deaths go through ``attacks.die``, which adds Go Out With a Bang (XG-17)."""
    space = st.space[g, q, t]
    dp = st.dp[g, q, t]
    put_amoeba(st, g, q, t, -1)
    st.dp[g, q, t] = 0
    st.amoeba_flags[g, q, t] = 0
    place_each_colour(st, g, space, cubes)
    log(st, wk, g, EV_DEATH, phase, q, t + 1, space, dp, cubes, how, 0, 0, 0)
