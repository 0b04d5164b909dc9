"""A fork of a game at a decision point (issue 33: no peeking; docs/decisions.md).

A search player values an option by playing the game on from it many times. Each time must be a
future the deciding player could face, not the one the original game holds: everything the player
cannot know at that moment is drawn again, everything it has seen stays. :func:`fork_game` runs
when the tape's choice at ``Workspace.fork_at`` is taken, so the past (every draw before the
decision) is the original game's, byte for byte.

What is drawn again: every random stream of the game from its current counter on, keyed by the
fork's key alone (future dice, every strategy's future draws, the dummy's placements;
random_stream.refork), the order of the environment cards not yet revealed (V2) except the one
the deciding player has looked at (XG-06, XG-23: State.seen_card), and the order of the extra
genes still face down (XM3). The hidden orders are sorted before they are shuffled, so nothing
of a fork depends on the original game's future: a search's rollouts cannot peek at it.
"""

from sim.jit import kernel
from sim.random_stream import below, refork
from sim.ursuppe.engine.state import NO_CARD, STREAM_SETUP


@kernel
def _swap_cards(st, g, i, j):
    """Swap deck positions i and j of game g (a card's index, ozone and drift move together)."""
    st.card_index[g, i], st.card_index[g, j] = st.card_index[g, j], st.card_index[g, i]
    st.card_ozone[g, i], st.card_ozone[g, j] = st.card_ozone[g, j], st.card_ozone[g, i]
    st.card_drift[g, i], st.card_drift[g, j] = st.card_drift[g, j], st.card_drift[g, i]


@kernel
def _card_position(lo, skip, i):
    """The deck position of the i-th unrevealed card that may move (the seen one, at ``skip``, stays)."""
    return lo + i + (1 if lo + i >= skip else 0)


@kernel
def _card_after(st, g, i, j):
    """Does the card at deck position i sort after the one at j (by rules index, ozone, drift)?"""
    if st.card_index[g, i] != st.card_index[g, j]:
        return st.card_index[g, i] > st.card_index[g, j]
    if st.card_ozone[g, i] != st.card_ozone[g, j]:
        return st.card_ozone[g, i] > st.card_ozone[g, j]
    return st.card_drift[g, i] > st.card_drift[g, j]


@kernel
def _redeal_environment(st, g, p):
    """V2: deal the unrevealed environment cards (after deck_pos) again among their positions, but
    for the one player p has seen privately, which keeps its place. They are sorted first, so the
    new order depends on which cards are left and on the fork's key, not on their true order."""
    lo = st.deck_pos[g] + 1
    hi = st.n_cards[g]
    seen = st.seen_card[g, p]
    skip = seen if lo <= seen < hi else hi  # hi: no position to skip
    k = hi - lo - (1 if skip < hi else 0)
    for i in range(1, k):  # insertion sort (at most a deck's 11-odd cards)
        j = i
        while j > 0 and _card_after(st, g, _card_position(lo, skip, j - 1), _card_position(lo, skip, j)):
            _swap_cards(st, g, _card_position(lo, skip, j - 1), _card_position(lo, skip, j))
            j -= 1
    for i in range(k - 1, 0, -1):  # Fisher-Yates, as the deck was shuffled (S4)
        j = below(st.rng_key, st.rng_ctr, g, STREAM_SETUP, i + 1)
        _swap_cards(st, g, _card_position(lo, skip, i), _card_position(lo, skip, j))


@kernel
def _nth_card(st, g, top, n):
    """The position of the n-th (0-based) face-down extra gene at or after ``top``."""
    for i in range(top, st.extra_deck.shape[1]):
        if st.extra_deck[g, i] != NO_CARD:
            if n == 0:
                return i
            n -= 1
    return top


@kernel
def _redeal_extra(st, g):
    """XM3: deal the face-down extra genes (from extra_top; NO_CARD slots stay) again, sorted
    first (their true order stays hidden), then shuffled."""
    top = st.extra_top[g]
    k = 0
    for i in range(top, st.extra_deck.shape[1]):
        if st.extra_deck[g, i] != NO_CARD:
            k += 1
    for i in range(1, k):
        j = i
        while j > 0:
            a = _nth_card(st, g, top, j - 1)
            c = _nth_card(st, g, top, j)
            if st.extra_deck[g, a] <= st.extra_deck[g, c]:
                break
            st.extra_deck[g, a], st.extra_deck[g, c] = st.extra_deck[g, c], st.extra_deck[g, a]
            j -= 1
    for i in range(k - 1, 0, -1):
        j = below(st.rng_key, st.rng_ctr, g, STREAM_SETUP, i + 1)
        pi = _nth_card(st, g, top, i)
        pj = _nth_card(st, g, top, j)
        st.extra_deck[g, pi], st.extra_deck[g, pj] = st.extra_deck[g, pj], st.extra_deck[g, pi]


@kernel
def fork_game(st, ru, wk, g, p):
    """Game g forks here, at player p's decision: fresh keys for every stream (Workspace.fork_key),
    then the hidden card orders drawn again from the new setup stream."""
    refork(st.rng_key, g, wk.fork_key[g])
    _redeal_environment(st, g, p)
    if ru.extra_genes:
        _redeal_extra(st, g)
