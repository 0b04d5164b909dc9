"""Gene sets as 64-bit masks (bit i = gene i of genes.GENE_NAMES), end to end.

The state and the results hold a gene set as one int64: State.held (the genes each player holds)
and State.pooled (the genes with a copy in the pool) are kept with ``genes`` and ``pool`` by
:func:`set_gene` and :func:`add_to_pool`, every change of either going through them. Option rows
and event records are int32, so there a set is two words of WORD_BITS bits each (low, high): 62
bits, enough for the 46 genes (``N_GENES <= 2 * WORD_BITS`` is checked below). A word never
reaches the int32 sign bit, so plain Python writes it into an int32 array as numba does.
"""

import numpy as np

from sim.jit import always_inline, kernel, trailing_zeros
from sim.ursuppe.rules.genes import GENE_NAMES, N_GENES

WORD_BITS = 31
WORD_MASK = (1 << WORD_BITS) - 1
assert N_GENES <= 2 * WORD_BITS


@kernel
@always_inline
def set_gene(st, g, p, gene, value):
    """Player p holds ``gene`` (``value`` 1) or no longer holds it (0): ``genes`` and ``held``."""
    st.genes[g, p, gene] = value
    bit = np.int64(1) << gene
    if value != 0:
        st.held[g, p] |= bit
    else:
        st.held[g, p] &= ~bit


@kernel
@always_inline
def add_to_pool(st, g, gene, count):
    """``count`` copies of ``gene`` into the pool (out of it, count < 0): ``pool`` and ``pooled``."""
    st.pool[g, gene] += count
    bit = np.int64(1) << gene
    if st.pool[g, gene] > 0:
        st.pooled[g] |= bit
    else:
        st.pooled[g] &= ~bit


@kernel
def recount_pooled(st, g):
    """``pooled`` from ``pool`` (after the pool was set copy by copy: setup)."""
    mask = np.int64(0)
    for i in range(st.pool.shape[1]):
        if st.pool[g, i] > 0:
            mask |= np.int64(1) << i
    st.pooled[g] = mask


@kernel
@always_inline
def genes_in_play(ru):
    """The genes a game can hold (below rules.n_genes), as a mask."""
    return (np.int64(1) << ru.n_genes) - 1


@kernel
@always_inline
def lowest(mask):
    """The lowest gene of a non-empty ``mask``: walk a set with ``gene = lowest(m); m &= m - 1``."""
    return trailing_zeros(mask)


@kernel
def low_word(mask):
    """The genes 0..30 of ``mask``, as an int32-safe word."""
    return mask & WORD_MASK


@kernel
def high_word(mask):
    """The genes 31..61 of ``mask``, as an int32-safe word."""
    return (mask >> WORD_BITS) & WORD_MASK


@kernel
def join_words(low, high):
    """The 64-bit gene mask of two words (an option row's or an event's)."""
    return (high << WORD_BITS) | low


def gene_names(mask: int) -> list[str]:
    """The names of the genes in ``mask``, in gene-index order."""
    return [GENE_NAMES[i] for i in range(N_GENES) if int(mask) >> i & 1]


def words(names_mask: int) -> tuple[int, int]:
    """(low, high) words of a mask built in Python (scenario files)."""
    return names_mask & WORD_MASK, (names_mask >> WORD_BITS) & WORD_MASK
