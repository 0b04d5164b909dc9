"""Flexible (XG-14): its owner pays 1 BP less for every gene it buys (never below 0); on the Social
Gene's taking price too with the flag flexible_on_social_steal (the default), on Highly
Adaptable's exchanges only with the flag flexible_on_exchange.

Its hooks are the price's: :func:`flexible_price` (players.gene_cost, every gene's price, G1),
:func:`flexible_exchange_discount` (genes/highly_adaptable.py ``exchange_cost``) and
:func:`flexible_discount_tally` (phases/phase3_genes.py ``buy``: a purchase it made cheaper counts
in the tally ``flexible:discount``). This module imports neither players.py nor another gene
module, so players.py may call it.
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.rules.gene_rows import ExtraFlag, Gene

GENE = Gene(
    "Flexible",
    "XG-14",
    flags=(
        ExtraFlag("flexible_on_social_steal", "XG-14", True),
        ExtraFlag("flexible_on_exchange", "XG-14", False),
    ),
    tallies=(("flexible:discount", "XG-14"),),
)

# The kernels' constants (numba globals): the gene, its flags and tally.
FLEXIBLE, XF_FLEXIBLE_ON_SOCIAL_STEAL, XF_FLEXIBLE_ON_EXCHANGE, FLEXIBLE_DISCOUNT = indices(GENE)


@kernel
@always_inline
def flexible_price(st, ru, g, p, price, taking):
    """XG-14, the price's hook (players.gene_cost, extra genes on): ``price`` for player p, 1 BP
    less (never below 0) if p holds Flexible; on the Social Gene's taking price (``taking``) only
    with the flag flexible_on_social_steal."""
    flexible = st.genes[g, p, FLEXIBLE] != 0
    if taking:
        flexible = flexible and ru.xflag[XF_FLEXIBLE_ON_SOCIAL_STEAL] != 0
    if flexible and price > 0:
        price -= 1
    return price


@kernel
def flexible_exchange_discount(st, ru, g, p):
    """XG-14 (flag flexible_on_exchange), the exchange cost's hook (XG-08): 1 BP off for an owner
    of Flexible, else 0."""
    if ru.xflag[XF_FLEXIBLE_ON_EXCHANGE] != 0 and st.genes[g, p, FLEXIBLE] != 0:
        return 1
    return 0


@kernel
def flexible_discount_tally(st, ru, wk, g, b, p, gene, cost, taken):
    """XG-14, the purchase's hook (G1): a gene from the pool that player p's Flexible made cheaper
    than its price counts in the tally."""
    if ru.extra_genes and cost < ru.gene_price[gene] and not taken and st.genes[g, p, FLEXIBLE] != 0:
        wk.tally[b, FLEXIBLE_DISCOUNT] += 1
