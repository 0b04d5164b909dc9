"""Pig's strategies: a strategy is one number, the turn total at which it holds (PG4).

``random`` (hold 0) rolls again or holds with even odds whatever the totals: the conformance
suite's random player. The presets are rows of :data:`PRESETS`; a name that is an integer is a
threshold of its own (``25`` holds at 25).
"""

from sim.errors import UserError

RANDOM = 0  # the hold value of the random strategy
PRESETS: dict[str, int] = {"random": RANDOM, "cautious": 10, "steady": 20, "bold": 30}
DEFAULT_POOL = "cautious,steady,bold"


def hold_value(name: str) -> int:
    """The hold threshold of a preset or of an integer name (a UserError otherwise)."""
    if name in PRESETS:
        return PRESETS[name]
    if name.isdigit() and 1 <= int(name) <= 10_000:
        return int(name)
    raise UserError(f"strategy {name!r}: expected one of {', '.join(PRESETS)} or a hold threshold 1 to 10000")
