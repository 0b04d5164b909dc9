"""Pig: the game protocol's small example game (sim.game), and the conformance suite's second game.

Rules (ids cited by the tests and scenarios; the numbers are rules data, ``rules.toml``):

- PG1 Players sit in a ring; the start player (start space 1) goes first, then in seat order.
- PG2 On a turn the player rolls a die of ``faces`` faces as often as it likes: each face other
  than ``bust`` adds to the turn total.
- PG3 A roll of ``bust`` loses the turn total and ends the turn.
- PG4 A player who holds banks the turn total into its score and ends the turn.
- PG5 A player whose score reaches ``target`` wins at once.
- PG6 After ``max_turns`` turns in all the game ends; the highest score wins, ties share the win.

A strategy decides one thing: roll again or hold (``strategies.pig``). The engine is a
struct of arrays with a leading game axis and numba kernels (``engine.py``), random streams per
game, invariants after every turn in debug mode, exactly as Ursuppe's: a new game copies this
layout (docs/adding-a-game.md).
"""

from sim.pig import wiring  # noqa: F401 (plugs the strategies into the engine's policy port)
