"""Game-agnostic experiments over the game protocol (sim.game): arms on common random numbers,
paired comparisons, round robins with their equilibrium, and CMA-ES tuning of a strategy. Each
plays its arms through sim.runner on any backend; nothing here names a game or imports the CLI.
soup compare, ablate and tournament run for every game through paired.py, where what a game adds
(Ursuppe's paired metrics, decks and re-tuning: sim/ursuppe/experiments/) comes in through the
capabilities it declares (sim.game.CAPABILITIES)."""

# Pair k of a round robin plays seed SEED * PAIR_SEEDS + k, which must stay a valid run seed (here, not in
# tournament.py, so the command line reads it without loading numpy).
PAIR_SEEDS = 10_000
