"""The 2-player variants' colours (TA1-TA4, TB3): which strategy row plays each colour, and a
player's result from its colours' markers. Plain numpy over the rules' VARIANT_PLAYER_OF, read by
the run, the readable play, bench and tuning alike."""

import numpy as np

from sim.ursuppe.rules.book import VARIANT_PLAYER_OF


def colour_assignment(per_player: np.ndarray, variant: str | None) -> np.ndarray:
    """The strategy row of every colour, from the row of every player [games, players]: a
    player's strategy decides for all its colours (TA2, TB3); the dummy's row (0) is never read
    (TD2: it decides nothing)."""
    if variant is None:
        return per_player
    player_of = np.asarray(VARIANT_PLAYER_OF[variant])
    return np.where(player_of >= 0, per_player[:, np.maximum(player_of, 0)], 0).astype(per_player.dtype)


def double_play_colours(variant: str) -> np.ndarray:
    """Each player's two colours in a double play [2, 2], first colour first (TA1, TB3)."""
    return np.array([[c for c, q in enumerate(VARIANT_PLAYER_OF[variant]) if q == p] for p in (0, 1)])


def player_positions(score: np.ndarray, variant: str) -> np.ndarray:
    """Each player's result in a double play [G, 2] from the colours' markers [G, 4]: TA4, the
    worse (lower) of its two markers; TB3, double play II's one marker (both colours hold it).
    The engine's end check (players.player_result) names the winner by the same rule."""
    return score[:, double_play_colours(variant)].min(axis=2)
