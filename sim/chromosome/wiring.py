"""Plugs Chromosome's strategies (knobs first, then the policy) into its engine's policy port
(sim.policy_port): the one place where the game's engine meets ``strategies.chromosome``. Run by the
package's ``__init__``, so before any engine module asks the port for a name; the strategy
modules are imported only then."""

from sim.chromosome.engine import policy_port

policy_port.plug("strategies.chromosome.params", "strategies.chromosome.policy")
