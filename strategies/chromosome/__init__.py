"""Chromosome's strategies: a parameter row per strategy (params.py) and the policy kernel that
values a decision's options from it (policy.py)."""
