"""Scripted strategies: a strategy is a row of numbers that the policy kernels read.

``params.py`` names every parameter and loads presets (``presets/*.toml``) and users' own
strategy files; ``policy.py`` turns (state, player, parameters, legal options) into a choice.
"""
