"""Chromosome (Marcin Danysz, 2016), 2-4 players: the second seed game (docs/chromosome-rules.md).

Alien microbes in a collapsing laboratory. Rooms (hexagonal tiles) have a sterility level 1-3: a
room of sterility s may be entered only by s or more tokens moving together (M3). A player's
population is groups of 1-3 tokens, one group a room, charged or discharged; charged groups pay
energy by turning (K3). Four gene colours are paid as action costs: yellow (actions), purple
(telepathy: Impulse), red (+1 combat strength), black (+1 on resistance tests; discarded to lower
irradiation). A round: Phase I (clock, event, renewal), Phase II (turns until all have passed:
one move, a fate restore, black discards and exactly one action: Growth, Evolution, Spark,
Impulse, Pass, or a species' special action), Phase III (resistance tests against radioactive
areas, absorption, decay). Spark is a combat with strength boosts and everyone's fate-paid rerolls;
losers' tokens become trophies. The game ends after R(P) rounds or after an elimination (with the
final turns); score = tokens + trophies + 2 x fate - irradiation.

Built so far (issue 23): the rules file and the board (``rules/``). The engine, strategies,
scenarios and the game's registration on the protocol are still to come.
"""

from sim.chromosome import wiring  # noqa: F401 (plugs the strategies into the engine's policy port)
