"""Confidence intervals for rates."""

import numpy as np

Z95 = 1.959963984540054


def wilson(wins: np.ndarray | int, n: np.ndarray | int, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval (lower, upper) for ``wins`` successes in ``n`` trials.

    Unlike the normal approximation it stays inside [0, 1] and keeps close to nominal coverage
    for small n and rates near 0 or 1. n = 0 gives (0, 1).
    """
    wins = np.asarray(wins, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, wins / n, 0.0)
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        lo = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), 0.0)
        hi = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), 1.0)
    return lo, hi
