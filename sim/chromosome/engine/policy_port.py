"""Chromosome's engine port to its players' policy (sim.policy_port): engine modules import a policy's
kernels and knobs from here, never from ``strategies.chromosome``; sim/chromosome/wiring.py plugs the strategy
modules in."""

from sim.policy_port import serve

plug, __getattr__ = serve(__name__)
