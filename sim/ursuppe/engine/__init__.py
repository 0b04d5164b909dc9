"""Ursuppe's engine: the state of arrays, the phase kernels, the rule functions."""
