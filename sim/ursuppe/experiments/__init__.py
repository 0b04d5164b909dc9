"""Experiments on Ursuppe: paired arms, tuning, gene value, combos, verdicts."""
