"""Parasitism (§8 F4): if an amoeba of another player whose owner has at least 1 BP stands on
the same space, the owner's amoeba may eat one cube fewer (any colour; the rules'
parasitism_fewer) than the pattern it uses, and that owner pays 1 BP (parasitism_victim_pays) to
the bank. Only when the parasite actually eats; once per feeding; allowed even when food is
plentiful; the parasite's owner picks the victim among several.

Its row: the tally ``parasitism:meal``. Its hooks are called by the feeding: :func:`parasitism_feeds`
and :func:`may_parasitize` where feeding.meal_options lists the parasite meals (their shapes are
rules data, built at load time), :func:`parasite_pays` where feeding.eat eats one. A parasite
meal is an EAT option with a victim (decision_kinds.EAT_VICTIM_SLOT, the eat event's
parasite_victim): the EAT row is shared by every feeding gene, and so is its valuation
(policy._value_eat).
"""

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import add_bp, amoebas_on_space, has, same_side
from sim.ursuppe.rules.gene_rows import Gene

GENE = Gene("Parasitism", "F4", tallies=(("parasitism:meal", "F4"),))

# The kernels' constants (numba globals): the gene and its tally.
PARASITISM, PARASITE_MEAL = indices(GENE)


@kernel
@always_inline
def parasitism_feeds(st, ru, g, p):
    """F4: may player p's amoebas eat as parasites (it holds Parasitism, and the rules take at
    least one cube off)?"""
    return has(st, g, p, PARASITISM) and ru.parasitism_fewer > 0


@kernel
@always_inline
def may_parasitize(st, ru, g, p, q, space):
    """F4: may player p's amoeba on ``space`` parasitize player q? Another player's amoeba
    (TB10: not a double play II partner colour's) stands there and q can pay."""
    if same_side(ru, p, q) or st.bp[g, q] < max(ru.parasitism_victim_pays, 1):
        return False
    return amoebas_on_space(st, g, q, space) != 0


@kernel
def parasite_pays(st, ru, wk, g, b, victim):
    """F4: a parasite meal was eaten: its ``victim`` (-1: none, an ordinary meal) pays the bank."""
    if victim >= 0:
        add_bp(st, ru, g, victim, -ru.parasitism_victim_pays)
        wk.tally[b, PARASITE_MEAL] += 1
