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

Where things live (a layer each; imports point down, tests/test_layers.py):
- rules/: the rules file (default_rules.toml), its schema (schema.py), validation (validation.py)
  and the Rules built from it (book.py), the gene table
  (genes.py, gene_rows.py, gene_tables.py), the extra genes' flags (extra_flags.py), the feeding
  shapes of each gene combination (meal_shapes.py), seating and colours;
- engine/: the struct of arrays (state.py) and the kernels: board, dice, movement, feeding,
  attacks, deaths, market (XM), the decisions of §9 (decision_kinds.py, decisions.py), the
  invariants of §11, phases/ (setup and one module per phase of a round, then the end check),
  round.py and batch.py (a round and a batch of games), genes/ (one module per gene with an
  effect of its own, docs/adding-a-gene.md), policy_port.py (what the engine asks of a
  strategy; the strategies are plugged in by wiring.py);
- game.py, simulation.py, decision_points.py: the game on the protocol (sim/game.py): runs,
  chunks, forks and decision points for the search player;
- experiments/: Ursuppe's experiments (verdict, calibrate, combos, tuning, references);
- tools/: developer tools (bench, profile, trace, play, scenario, rule index).
"""

from sim.ursuppe import wiring  # noqa: F401 (plugs the strategies into the engine's policy port)
