"""Scripted strategies: a strategy is a row of numbers that the policy kernels read.

``params.py`` names every parameter and loads presets (``presets/*.toml``) and users' own
strategy files; ``policy.py`` turns (state, player, parameters, legal options) into a choice.
"""

from pathlib import Path

PRESETS_DIR = Path(__file__).resolve().parent / "presets"


def preset_names() -> list[str]:
    """The preset strategies (``presets/*.toml``) by name."""
    return sorted(p.stem for p in PRESETS_DIR.glob("*.toml"))


# The default mix of `soup simulate`, `soup bench` and the experiments: every player of every game
# is drawn from these presets. Here (no imports) so that the command line can show it cheaply.
DEFAULT_POOL: tuple[str, ...] = ("greedy", "breeder", "geneticist", "predator", "forager")
