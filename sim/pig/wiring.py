"""Plugs Pig's strategies (its policy) into its engine's policy port
(sim.policy_port): the one place where the game's engine meets ``strategies.pig``. Run by the
package's ``__init__``, so before any engine module asks the port for a name; the strategy
modules are imported only then."""

from sim.pig import policy_port

policy_port.plug("strategies.pig.policy")
