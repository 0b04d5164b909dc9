"""Highly Adaptable (XG-08): on its Phase-3 turn, after its purchases, the owner may exchange a
held gene (Highly Adaptable included) for a pool card it could take instead, paying the price
difference (never less than 0) to the bank; as many exchanges as it likes, or one (flag
ha_exchanges_per_round); into an advanced gene only with the flag ha_into_advanced. The old card
returns to the pool, the new one counts as acquired this round (G3).

Its hook :func:`exchanges` is called by phases/phase3_genes.py ``phase3`` at each player's turn
after its purchases. The choice is the decision kind ``exchange`` (scenario choice ``{"exchange":
"stop" | {"give": gene, "take": gene}}``), valued by :func:`value`; an exchange is logged as the
event ``exchange`` and counted in the tally ``exchange:made``. What stays central is shared: the
acquisition's bookkeeping (players.acquire, also a purchase's), the player flag PF_EXCHANGED
(state.py) and a gifted card that may not be exchanged (rules.GIFT_NO_EXCHANGE, soup combos).
"""

import json

import numpy as np

from sim.jit import kernel
from sim.ursuppe.engine.decisions import decide, option_overflow, set_option
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.gene_sets import add_to_pool, set_gene
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.genes.flexible import flexible_exchange_discount
from sim.ursuppe.engine.players import (
    SOURCE_POOL,
    acquire,
    add_bp,
    gene_source,
    kept_gift,
    lower_gene_ok,
    share_with_partner,
)
from sim.ursuppe.engine.policy_port import BP_RESERVE, EXCHANGE_MARGIN, GENE_VALUE_BASE
from sim.ursuppe.engine.state import PF_EXCHANGED
from sim.ursuppe.rules.book import GIFT_NO_EXCHANGE
from sim.ursuppe.rules.gene_rows import ChoiceError, Decision, ExtraFlag, Gene
from sim.ursuppe.rules.genes import GENE_NAMES, gene_index

PER_ROUND = ("unlimited", "once")  # flag ha_exchanges_per_round
HA_ONCE = PER_ROUND.index("once")
INTO_ADVANCED = ("forbidden", "with_lower_given_up")  # flag ha_into_advanced
HA_ADVANCED_WITH_LOWER = INTO_ADVANCED.index("with_lower_given_up")


def _gene(value, key: str) -> int:
    """A gene name of the scenario choice (``key``: ".give" or ".take")."""
    if not isinstance(value, str):
        raise ChoiceError(f"expected a gene name, got {json.dumps(value)}", key)
    try:
        return gene_index(value)
    except KeyError:
        names = ", ".join(GENE_NAMES)
        raise ChoiceError(f"unknown gene {json.dumps(value)} (expected one of: {names})", key) from None


def _parse(value, row: list[int], players: int) -> list[int]:
    """The scenario choice: "stop" or {"give": gene, "take": gene}."""
    if value == "stop":
        row[0], row[1] = -1, -1
    elif isinstance(value, dict) and set(value) == {"give", "take"}:
        row[0] = _gene(value["give"], ".give")
        row[1] = _gene(value["take"], ".take")
    else:
        raise ValueError(f'expected "stop" or {{"give": gene, "take": gene}}, got {json.dumps(value)}')
    return row


def _render(row: list[int]) -> dict:
    return {"exchange": "stop" if row[0] < 0 else {"give": GENE_NAMES[row[0]], "take": GENE_NAMES[row[1]]}}


GENE = Gene(
    "Highly Adaptable",
    "XG-08",
    flags=(
        ExtraFlag("ha_exchanges_per_round", "XG-08", "unlimited", PER_ROUND),
        ExtraFlag("ha_into_advanced", "XG-08", "forbidden", INTO_ADVANCED),
    ),
    decisions=(
        Decision(
            "exchange", "XG-08", 2, "exchange", "gene given, gene taken; (-1, -1) = stop", _parse, _render
        ),
    ),
    events=(("exchange", ("gave", "took", "cost")),),
    tallies=(("exchange:made", "XG-08"),),
)

# The kernels' constants (numba globals): the gene, its flags, decision kind, event and tally.
(
    HIGHLY_ADAPTABLE,
    XF_HA_EXCHANGES_PER_ROUND,
    XF_HA_INTO_ADVANCED,
    EXCHANGE,
    EV_EXCHANGE,
    EXCHANGE_MADE,
) = indices(GENE)


@kernel
def exchange_cost(st, ru, g, p, given, taken):
    """XG-08: max(0, new price - old price) BP to the bank; Flexible takes 1 BP off it only with
    flag flexible_on_exchange (XG-14)."""
    cost = int(ru.gene_price[taken]) - int(ru.gene_price[given])
    cost -= flexible_exchange_discount(st, ru, g, p)  # XG-14
    return max(cost, 0)


@kernel
def value(st, ru, wk, g, b, p, n, prm):
    """XG-08, the policy's valuation (strategies/ursuppe/policy.py) of the options (gene given,
    gene taken); (-1, -1) = stop. An exchange is worth the taken gene's value minus its BP cost
    (exchange_cost) minus the given gene's value and ``exchange_margin``; one that would dip
    below ``bp_reserve`` is never made."""
    opts = wk.options[b]
    val = wk.scores[b]
    for i in range(n):
        given = opts[i, 0]
        taken = opts[i, 1]
        if given < 0:
            val[i] = 0.0
            continue
        cost = exchange_cost(st, ru, g, p, given, taken)
        if st.bp[g, p] - cost < prm[BP_RESERVE]:
            val[i] = -1.0
            continue
        v = prm[GENE_VALUE_BASE + taken] - cost - prm[GENE_VALUE_BASE + given] - prm[EXCHANGE_MARGIN]
        val[i] = v if v > 0.0 else -1.0


@kernel
def _blocked_without(st, ru, g, p, given):
    """G4's blocked mask of player p as if it had given up ``given`` (XG-08)."""
    blocked = np.int64(0)
    for gene in range(ru.n_genes):
        if gene != given and st.genes[g, p, gene] != 0:
            blocked |= ru.gene_blocks[gene]
    return blocked


@kernel
def exchange_options(st, ru, wk, g, b, p):
    """XG-08: 'stop', then (gene given, pool gene taken) for every held gene (Highly Adaptable
    included) and every pool card p may take instead, as a purchase would (G2, G4, the Social
    Gene's last player, XG-10), affordable. An advanced gene only with flag ha_into_advanced =
    with_lower_given_up, and then only for its lower gene held since an earlier round (G3)."""
    set_option(wk.options, b, 0, -1, -1, 0)
    n = 1
    into_advanced = ru.xflag[XF_HA_INTO_ADVANCED] == HA_ADVANCED_WITH_LOWER
    for given in range(ru.n_genes):
        if st.genes[g, p, given] == 0 or kept_gift(st, ru, g, p, given, GIFT_NO_EXCHANGE):
            continue
        blocked = _blocked_without(st, ru, g, p, given)
        for taken in range(ru.n_genes):
            if taken == given or st.pool[g, taken] <= 0:
                continue
            if gene_source(st, ru, g, p, taken, blocked) != SOURCE_POOL:
                continue
            if ru.gene_lower[taken, 0] >= 0:
                if not into_advanced:
                    continue
                ok = False
                for j in range(ru.gene_lower.shape[1]):
                    if ru.gene_lower[taken, j] == given and lower_gene_ok(st, ru, g, p, taken, given):
                        ok = True
                if not ok:
                    continue
            if exchange_cost(st, ru, g, p, given, taken) > st.bp[g, p]:
                continue
            if option_overflow(wk, g, n):
                return n
            set_option(wk.options, b, n, given, taken, 0)
            n += 1
    return n


@kernel
def exchanges(st, ru, wk, g, b, p, phase):
    """XG-08, Phase 3's hook (extra genes on): Highly Adaptable's exchanges on player p's turn,
    after its purchases (docs/decisions.md), as many as it likes or one (flag
    ha_exchanges_per_round). The old card returns to the pool; the new one counts as acquired
    this round (G3)."""
    while st.genes[g, p, HIGHLY_ADAPTABLE] != 0:
        if ru.xflag[XF_HA_EXCHANGES_PER_ROUND] == HA_ONCE and st.player_flags[g, p] & PF_EXCHANGED:
            return
        n = exchange_options(st, ru, wk, g, b, p)
        if n <= 1:
            return
        # The policy cannot call value (its module would import this one, which calls decide):
        # the scores are set here, and policy.choose leaves a gene module's kinds' scores as they are.
        if p != ru.dummy:
            value(st, ru, wk, g, b, p, n, wk.params[st.strategy[g, p]])
        i = decide(st, ru, wk, g, b, p, -1, EXCHANGE, n)
        given = wk.options[b, i, 0]
        taken = wk.options[b, i, 1]
        if given < 0 or wk.error[g, 0] != 0:
            return
        cost = exchange_cost(st, ru, g, p, given, taken)
        add_bp(st, ru, g, p, -cost)
        set_gene(st, g, p, given, 0)
        add_to_pool(st, g, given, 1)
        add_to_pool(st, g, taken, -1)
        acquire(st, ru, g, p, taken)
        st.player_flags[g, p] |= PF_EXCHANGED
        share_with_partner(st, ru, g, p)
        wk.tally[b, EXCHANGE_MADE] += 1
        log(st, wk, g, EV_EXCHANGE, phase, p, -1, given, taken, cost, 0, 0, 0, 0)
