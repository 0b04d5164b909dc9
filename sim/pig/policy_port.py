"""What Pig's engine (engine.py) asks of a player's strategy, served through a port
(sim.policy_port).

The engine imports the policy's kernel from here, never from ``strategies.pig``: ``wiring.py``
(run by the package's ``__init__``, so before the engine) plugs ``strategies.pig.policy`` in.
"""

from sim.policy_port import Port

_PORT = Port(__name__)
plug = _PORT.plug_modules  # the wiring names the modules to serve
__getattr__ = _PORT.attribute
