"""soup: a Monte Carlo balance analyser for board games (Ursuppe first).

``sim`` holds the game-agnostic kit (``game``: the protocol and registry, ``jit``,
``random_stream``, ``runner``, ``backends``, ``experiments``, ``cli``); each game is a
subpackage registered on the protocol (``sim.ursuppe``, ``sim.pig``). See docs/adding-a-game.md.
"""

__version__ = "0.1.0"
