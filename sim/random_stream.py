"""Counter-based random streams, one family per game (game-agnostic).

Every game owns a few independent streams, keyed by ``(seed, game index, stream id)``. Draw
``i`` of a stream is ``mix64(key + i * GAMMA)`` — the SplitMix64 construction, a bijective
64-bit finaliser applied to a Weyl sequence — so a draw depends only on the key and its counter,
never on which thread runs the game, how games are batched or what other games did. Separate
streams keep the consumers apart: under a house rule that changes how many dice a game rolls,
the seating and the deck order (setup stream) stay the same, which is what common-random-number
comparisons need.

State lives in two ``uint64`` arrays with leading axis = game: ``key[g, stream]`` and
``ctr[g, stream]``. Never numba's global ``np.random`` here: it is per-thread and would make
results depend on scheduling.
"""

import numpy as np

from sim.jit import PLAIN_PYTHON, kernel

GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_ONE = np.uint64(1)


@kernel
def mix64(x):
    """SplitMix64's finaliser: a bijection of uint64 with full avalanche."""
    x = (x ^ (x >> _S30)) * _M1
    x = (x ^ (x >> _S27)) * _M2
    return x ^ (x >> _S31)


@kernel
def stream_key(seed, game, stream):
    """The key of stream ``stream`` of game ``game`` under ``seed`` (all non-negative ints)."""
    k = mix64(np.uint64(seed) ^ np.uint64(0x5D0E5D0E5D0E5D0E))
    k = mix64(k + np.uint64(game) * GAMMA)
    return mix64(k + np.uint64(stream + 1) * _M2)


@kernel
def next_u64(key, ctr, g, s):
    """The next 64-bit draw of stream ``s`` of game ``g``; advances its counter."""
    c = ctr[g, s]
    ctr[g, s] = c + _ONE
    return mix64(key[g, s] + c * GAMMA)


if PLAIN_PYTHON:
    # numpy's uint64 scalars warn on the wrap-around this construction relies on (numba wraps
    # silently, as C does), so the plain-Python path does the same arithmetic on Python ints
    # masked to 64 bits: the same numbers, which tests/test_plain_python.py confirms.
    _MASK = (1 << 64) - 1

    def mix64(x):  # noqa: F811
        x = int(x)
        x = ((x ^ (x >> 30)) * int(_M1)) & _MASK
        x = ((x ^ (x >> 27)) * int(_M2)) & _MASK
        return np.uint64(x ^ (x >> 31))

    def stream_key(seed, game, stream):  # noqa: F811
        k = mix64(int(seed) ^ 0x5D0E5D0E5D0E5D0E)
        k = mix64((int(k) + int(game) * int(GAMMA)) & _MASK)
        return mix64((int(k) + (int(stream) + 1) * int(_M2)) & _MASK)

    def next_u64(key, ctr, g, s):  # noqa: F811
        c = int(ctr[g, s])
        ctr[g, s] = np.uint64((c + 1) & _MASK)
        return mix64((int(key[g, s]) + c * int(GAMMA)) & _MASK)


@kernel
def refork(key, g, fork):
    """Key every stream of game g by ``fork`` (a uint64) alone, keeping its counter: a fork of a
    game (issue 33) draws, from here on, numbers that depend on the fork's key and not on the
    original game's, whose future stays hidden; every draw before the fork stays as it was."""
    for s in range(key.shape[1]):
        key[g, s] = mix64(fork ^ mix64(np.uint64(s + 1)))  # xor: no wrap-around in plain Python


@kernel
def below(key, ctr, g, s, n):
    """A uniform integer in ``[0, n)`` for ``1 <= n < 2**32``, exactly unbiased.

    Lemire's multiply-and-reject on the high 32 bits of a draw: the rejection keeps every
    outcome equally likely, so a d6 is a fair die, not one off by 2**-32.
    """
    un = np.uint64(n)
    m = (next_u64(key, ctr, g, s) >> _S32) * un
    low = m & _LOW32
    if low < un:
        threshold = (_TWO32 - un) % un
        while low < threshold:
            m = (next_u64(key, ctr, g, s) >> _S32) * un
            low = m & _LOW32
    return np.int64(m >> _S32)


@kernel
def shuffle(key, ctr, g, s, cards, n):
    """Fisher-Yates on ``cards[:n]`` with game g's stream s: the last position first, each swapped
    with a uniform one at or before it (n - 1 draws)."""
    for i in range(n - 1, 0, -1):
        j = below(key, ctr, g, s, i + 1)
        x = cards[i]
        cards[i] = cards[j]
        cards[j] = x


@kernel
def _fill_keys(key, seed, games):
    for i in range(games.shape[0]):
        for s in range(key.shape[1]):
            key[i, s] = stream_key(seed, games[i], s)


def seed_streams(seed: int, games: np.ndarray, n_streams: int) -> tuple[np.ndarray, np.ndarray]:
    """Keys and zeroed counters for the given game indices: arrays ``[len(games), n_streams]``."""
    if not 0 <= seed < 2**63:
        raise ValueError(f"seed: expected an integer in [0, 2**63), got {seed}")
    key = np.empty((len(games), n_streams), dtype=np.uint64)
    _fill_keys(key, np.uint64(seed), np.asarray(games, dtype=np.int64))
    return key, np.zeros_like(key)


@kernel
def _fill_draws(key, ctr, s, n, draws):
    for g in range(draws.shape[0]):
        for i in range(draws.shape[1]):
            draws[g, i] = below(key, ctr, g, s, n)


def uniform_draws(seed: int, games: np.ndarray, stream: int, n: int, count: int) -> np.ndarray:
    """``count`` uniform integers in [0, n) per game from stream ``stream`` of each game: an
    int64 array [len(games), count] that depends only on (seed, game index, stream)."""
    key, ctr = seed_streams(seed, games, stream + 1)
    draws = np.zeros((len(games), count), dtype=np.int64)
    _fill_draws(key, ctr, stream, n, draws)
    return draws
