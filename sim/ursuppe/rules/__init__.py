"""Ursuppe's rules as data: the rules file, its loader, gene table and flags."""
