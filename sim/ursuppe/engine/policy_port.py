"""What Ursuppe's engine asks of a player's strategy, served through a port (sim.policy_port).

Engine modules import a strategy's policy kernels and knobs from here, never from
``strategies.ursuppe``: the names are those the game's strategy modules define, and
``sim/ursuppe/wiring.py`` (run by the package's ``__init__``, so before any engine module) plugs them
in. The engine stays below its strategies; the strategies import the engine's state and rule
functions.
"""

from sim.policy_port import Port

_PORT = Port(__name__)
plug = _PORT.plug_modules  # the wiring names the modules to serve
__getattr__ = _PORT.attribute
