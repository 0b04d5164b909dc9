"""Chromosome's engine: a struct of arrays (state.py) and the kernels that play it, one module per
part of the rules (docs/chromosome-rules.md)."""
