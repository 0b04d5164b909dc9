"""A Chromosome strategy is a row of numbers; this is the row's layout (one name each). The
policy (policy.py) values every option of a decision as an expected change of the score (E4)
weighed by these numbers."""

PARAM_NAMES: tuple[str, ...] = (
    "randomness",  # probability of a uniform choice among the legal options (1: the random strategy)
    "reroll_own_at_most",  # D3: spend fate to reroll an own roll at or below this face
    "reroll_against_at_least",  # D3: spend fate to reroll an opponent's roll at or above this face
    "token_value",  # a token on the board (E4: +1)
    "trophy_value",  # a trophy held (E4: +1, and 2 E)
    "fate_value",  # a fate point kept (E4: +2)
    "irradiation_cost",  # a level of irradiation (E4: -1, and the X4 risk)
    "charge_value",  # a charged token (1 E to pay with)
    "gene_value",  # a gene gained by Evolution (renewed every round)
    "aggression",  # weight of a Spark's expected trophies
    "caution",  # weight of the radiation a group stands next to
    "pass_value",  # value of passing rather than acting
)
(
    RANDOMNESS,
    REROLL_OWN_AT_MOST,
    REROLL_AGAINST_AT_LEAST,
    TOKEN_VALUE,
    TROPHY_VALUE,
    FATE_VALUE,
    IRRADIATION_COST,
    CHARGE_VALUE,
    GENE_VALUE,
    AGGRESSION,
    CAUTION,
    PASS_VALUE,
) = range(len(PARAM_NAMES))
N_PARAMS = len(PARAM_NAMES)
