"""Gene identities (spec §7, extra genes XG-01..XG-26): the fixed index of every gene.

A gene's numbers (price, MP, copies, weight, defect payment, lower genes) are rules data and
live in the rules file; what a gene *does* is code, its module's (sim/ursuppe/engine/genes/), and
the kernels refer to it by a constant looked up in :data:`GENE_INDEX`. The index of every gene is
its line in the index ledger (rules/ledger.toml), which is only ever appended to: base genes keep
the indices they had before the extra genes, the extra genes theirs, so a run written then reads
the same.
"""

from sim.ursuppe.rules import gene_tables
from sim.ursuppe.rules.ledger import in_ledger_order

# The genes no code reads (their whole effect is rules data, docs/adding-a-gene.md) and the
# number-only slots (docs/verdicts.md): a rules file fills a slot with a gene declared by its
# numbers alone (`effect = "none"`: price, MP, copies, weight and no behaviour), e.g. the reference
# arms of a causal design (the null gene, a plain card) or a house rule's "new gene that only
# changes numbers". The slot's name is replaced by the declared one (RuleBook.gene_names); an
# undeclared slot has no copies. No kernel names these slots.
NUMBER_ONLY_SLOTS: tuple[str, ...] = tuple(f"Numbers-only gene {k}" for k in range(1, 5))
_CORE_GENES: tuple[str, ...] = (
    "Intelligence",
    "Ray Protection",
    "Doris & Frank Gene",
    "PhD",
    *NUMBER_ONLY_SLOTS,
)
# Every gene, the gene modules' (gene_tables.GENES) with these, in the ledger's order
# (rules/ledger.toml): gene i is bit i of a 64-bit gene mask and the gene index of results. It is
# the order of the table in §7, then the 26 extra genes in the order of the extra-gene table
# (XG-01..XG-26), the number-only slots, then the genes added since, so a run written before
# reads the same.
GENE_NAMES: tuple[str, ...] = in_ledger_order("genes", (*_CORE_GENES, *gene_tables.GENES), lambda name: name)
N_GENES = len(GENE_NAMES)
GENE_SET_BITS = 64  # gene sets are 64-bit masks (State.genes_bought, results, events, gene_sets.py)
N_BASE_GENES = 20  # §7: genes 0..19; the extra genes are N_BASE_GENES..N_EXTRA_END-1
NUMBER_ONLY_GENES: tuple[int, ...] = tuple(GENE_NAMES.index(name) for name in NUMBER_ONLY_SLOTS)
N_EXTRA_END = NUMBER_ONLY_GENES[0]  # XG-01..XG-26 end here; the number-only slots follow
if N_GENES > GENE_SET_BITS:
    raise ValueError(
        f"{N_GENES} genes (genes.GENE_NAMES with the gene modules' gene_tables.GENES) do not fit "
        f"the {GENE_SET_BITS}-bit gene sets (State.genes_bought, results, events, engine/gene_sets.py)"
    )
GENE_INDEX: dict[str, int] = {name: i for i, name in enumerate(GENE_NAMES)}
# Other names a rules or strategy file may give a gene: the gene modules' (gene_tables.ALIASES) and
# PhD's (XG-22: the seed's spelling).
GENE_ALIASES: dict[str, str] = {**gene_tables.ALIASES, "PhD Intelligence": "PhD"}

# The genes without a module the kernels read by index; a gene module names its own gene's.
INTELLIGENCE = GENE_INDEX["Intelligence"]
RAY_PROTECTION = GENE_INDEX["Ray Protection"]
DORIS_FRANK = GENE_INDEX["Doris & Frank Gene"]  # XG-01
PHD = GENE_INDEX["PhD"]  # XG-22

# G3: the genes that take lower genes (never given up themselves): the gene modules' advanced
# genes and PhD (XG-22), in index order.
ADVANCED_GENES: tuple[int, ...] = tuple(sorted(GENE_INDEX[name] for name in (*gene_tables.ADVANCED, "PhD")))
# The gene modules' genes added since (after the number-only slots) are extra genes too (§18).
ADDED_GENES: tuple[int, ...] = tuple(range(NUMBER_ONLY_GENES[-1] + 1, N_GENES))
EXTRA_GENES: tuple[int, ...] = (*range(N_BASE_GENES, N_EXTRA_END), *ADDED_GENES)


def xg_id(gene: int) -> str:
    """The rule id of an extra gene ("XG-01".."XG-26")."""
    return f"XG-{gene - N_BASE_GENES + 1:02d}"


def gene_index(name: str) -> int:
    """Index of a gene by its rulebook name (or a known alias); KeyError if unknown."""
    name = GENE_ALIASES.get(name, name)
    return GENE_INDEX[name]
