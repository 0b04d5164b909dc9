"""The two kinds of failure a command reports in one line (game-agnostic).

- :class:`UserError`: the user's input is wrong (a rules file, an option, a run directory). The
  command prints ``soup: error: <message>`` and exits with 2; nothing is written.
- :class:`GameError`: a game could not be played to a valid end (an engine error or a failed
  check). The run stops at once; the message names the game; no row of that chunk is written;
  exit code 1.
- :class:`BackendError`: the machinery that plays the games failed (a Ray cluster that cannot be
  reached, a task whose worker died more often than it is retried): one line, exit code 1.

This module imports nothing, so the command line can name these classes without loading the
engine.
"""


class UserError(ValueError):
    """Bad input from the user; the message is one line naming the file, key or value."""


class GameError(RuntimeError):
    """A game ended in an engine error or a failed check; the message names the game."""


class BackendError(RuntimeError):
    """The backend playing a run's chunks failed (sim.backends); the message is one line."""
