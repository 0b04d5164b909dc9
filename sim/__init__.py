"""soup: a Monte Carlo balance analyser for Ursuppe.

``sim`` holds the engine. Its game-agnostic parts (``jit``, ``random_stream``, the batch
runner, result schema and CLI) stay apart from the rules of a particular game, which live in
their own subpackage (``sim.ursuppe``).
"""

__version__ = "0.1.0"
