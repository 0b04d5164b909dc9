"""A Chromosome strategy is a row of numbers; this is the row's layout (one name each)."""

PARAM_NAMES: tuple[str, ...] = (
    "randomness",  # probability of a uniform choice among the legal options (1: the random strategy)
    "reroll_own_at_most",  # D3: spend fate to reroll an own roll at or below this face
    "reroll_against_at_least",  # D3: spend fate to reroll an opponent's roll at or above this face
)
RANDOMNESS, REROLL_OWN_AT_MOST, REROLL_AGAINST_AT_LEAST = range(len(PARAM_NAMES))
N_PARAMS = len(PARAM_NAMES)
