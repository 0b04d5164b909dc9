"""Chromosome's tools: scenario files (a position, forced dice and choices; docs/chromosome-rules.md §13)."""
