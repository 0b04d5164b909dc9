"""Plugs Pig's strategies into its engine's policy port (sim.policy_port): the one place where the
game's engine meets ``strategies.pig``. Run by the package's ``__init__``, so before any engine
module asks the port for a name; the strategy modules are imported only then."""

from types import ModuleType

from sim.pig import policy_port


def _policy() -> ModuleType:
    from strategies.pig import policy

    return policy


policy_port.plug(_policy)
