"""The extra-gene market (docs/rules.md §18, XM1-XM8): the face-down deck and its reveals.

With ``flags.extra_genes`` the start pair lies face up in the pool from round 1 (XM2; the rules
set its copies), and the other extra genes (not excluded, XM8) form a face-down deck shuffled
from the game's setup stream after the environment deck (XM3, XR3), so a game's seating and
environment cards are those of the same game without extra genes (common random numbers).
Phase 3 reveals ``extra_reveal_per_round`` cards a round (XM4) at the moment flag
``extra_reveal_timing`` names; revealed cards stay in the pool until bought (XM5) unless flag
``extra_unbought_discarded``. Bought, returned and re-bought like base genes (XM6).
"""

from sim.jit import kernel
from sim.random_stream import shuffle
from sim.ursuppe.engine import tally
from sim.ursuppe.engine.events import EV_DISCARD, EV_REVEAL, log
from sim.ursuppe.engine.gene_sets import add_to_pool
from sim.ursuppe.engine.state import NO_CARD, STREAM_SETUP
from sim.ursuppe.rules.extra_flags import XF_REVEAL_PER_ROUND, XF_UNBOUGHT_DISCARDED

PHASE = 3


@kernel
def shuffle_extra_deck(st, ru, g):
    """XM3: the face-down deck, shuffled (Fisher-Yates on the setup stream); its cards are not in
    the pool until revealed."""
    m = ru.extra_deck.shape[0]
    for i in range(st.extra_deck.shape[1]):
        st.extra_deck[g, i] = ru.extra_deck[i] if i < m else NO_CARD
    shuffle(st.rng_key, st.rng_ctr, g, STREAM_SETUP, st.extra_deck[g], m)
    for i in range(m):
        add_to_pool(st, g, st.extra_deck[g, i], -1)  # XM3: face down, not buyable
    st.extra_top[g] = 0


@kernel
def reveal(st, ru, wk, g, b, count):
    """XM4: turn up to ``count`` cards of the deck face up into the pool (the rest when fewer
    remain; nothing from an empty deck)."""
    m = ru.extra_deck.shape[0]
    for _ in range(count):
        top = st.extra_top[g]
        if top >= m:
            return
        gene = st.extra_deck[g, top]  # positions below extra_top are face up (or gone)
        st.extra_top[g] = top + 1
        add_to_pool(st, g, gene, 1)
        wk.tally[b, tally.MARKET_REVEAL] += 1
        log(st, wk, g, EV_REVEAL, PHASE, -1, -1, gene, 0, 0, 0, 0, 0, 0)


@kernel
def reveal_round(st, ru, wk, g, b):
    """XM4: this round's cards (extra_reveal_per_round of them)."""
    reveal(st, ru, wk, g, b, ru.xflag[XF_REVEAL_PER_ROUND])


@kernel
def discard_unbought(st, ru, wk, g, b, first, last):
    """XM5 (flag extra_unbought_discarded): the cards revealed this round (deck positions
    first..last-1) still in the pool leave the game at the end of Phase 3."""
    if ru.xflag[XF_UNBOUGHT_DISCARDED] == 0:
        return
    for i in range(first, last):
        gene = st.extra_deck[g, i]
        if st.pool[g, gene] > 0:
            add_to_pool(st, g, gene, -1)
            wk.tally[b, tally.MARKET_DISCARD] += 1
            log(st, wk, g, EV_DISCARD, PHASE, -1, -1, gene, 0, 0, 0, 0, 0, 0)
