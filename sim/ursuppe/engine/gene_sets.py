"""Gene sets as 64-bit masks (bit i = gene i of genes.GENE_NAMES), end to end.

The state and the results hold a gene set as one int64. Option rows and event records are
int32, so there a set is two words of WORD_BITS bits each (low, high): 62 bits, enough for the
46 genes (``N_GENES <= 2 * WORD_BITS`` is checked below). A word never reaches the int32 sign bit,
so plain Python writes it into an int32 array as numba does.
"""

from sim.jit import kernel
from sim.ursuppe.rules.genes import GENE_NAMES, N_GENES

WORD_BITS = 31
WORD_MASK = (1 << WORD_BITS) - 1
assert N_GENES <= 2 * WORD_BITS


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
