"""Chromosome's report sections: its tables (outcomes), figures and report (soup report on a
Chromosome run)."""
