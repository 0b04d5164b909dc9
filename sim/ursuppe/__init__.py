"""Ursuppe (Primordial Soup), base game for 3-6 players (5-6: PX), as struct-of-arrays numba kernels.

The rules in brief (full text with rule ids: docs/rules.md). 19 soup spaces around an island;
each player has 7 amoebas and a colour of food cubes. A round has six phases: (1) in ascending
score order every amoeba drifts with the current environment card, moves actively (1 BP, a die)
or, with Holding, stays, then eats cubes of the foreign colours in a pattern and excretes 2 of
its own, or starves (+1 DP); (2) the next environment card is revealed and players whose genes'
mutation points exceed its ozone pay the difference with genes or BP; (3) players buy genes;
(4) players get 10 BP and buy new amoebas (6 BP) next to their own; (5) amoebas with 2 DP die,
then Aggression attacks; (6) markers advance by amoebas on the board and genes held, with
leapfrog. The game ends when a marker reaches the finish zone (42) or after the round that
revealed the last card; the furthest marker wins.

Where things live: rules.py (rules file -> arrays), meal_shapes.py (the feeding shapes of each
gene combination, built with the rules), state.py (the struct of arrays), board.py, genes.py,
decision_kinds.py and decisions.py (every decision of §9), movement.py, feeding.py, attacks.py,
phases/ (one module per phase), game.py (round and batch kernels), invariants.py (§11),
scenario.py (scenario files), trace.py (the readable game log). The 26 extra genes (§18) add
extra_flags.py (their flags), market.py (XM) and combos.py (soup combos); the rest of their
effects live in the phase or concept they change, except the genes that live in one module of
engine/genes/ (docs/adding-a-gene.md: Rebound XG-16, Toxic Excretions XG-19 and most of the
others, each in the module named after it; Healing 1's holds the healing of XG-15 and XG-25).
"""

from sim.ursuppe import wiring  # noqa: F401 (plugs the strategies into the engine's policy port)
