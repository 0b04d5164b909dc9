"""Scripted strategies, one sub-package per game."""
