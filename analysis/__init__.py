"""Aggregation and statistics over simulation results (win rates, gene sets, deck order)."""
