"""E2: Phase 2 walks every minimal payment without listing them (phase2_environment.py). Its walk
must be the list the engine built until 2026-11-23 (here again in plain Python, without its
1,024-option cap): the same payments in the same order, the strategy's first best and ties as
policy.choose would find them over that list, and a forced payment legal exactly when listed."""

import numpy as np
import pytest

from sim.ursuppe.engine.gene_sets import WORD_BITS
from sim.ursuppe.engine.phases.phase2_environment import (
    WALK_BEST,
    WALK_LIST,
    WALK_NTH,
    WALK_NTH_TIE,
    _held_genes,
    _walk_payments,
)
from sim.ursuppe.engine.state import MAX_OPTIONS, by_reference
from sim.ursuppe.rules.book import load_rules
from sim.ursuppe.rules.genes import GENE_NAMES, N_BASE_GENES, N_GENES
from sim.ursuppe.tools.scenario import load_scenario
from strategies.ursuppe.params import DEFECT_GENE_WEIGHT, GENE_VALUE_BASE

# Genes a 4-player position may hold together (one copy each, no advanced gene beside its lower).
BASIC = [
    name
    for name in GENE_NAMES[:N_BASE_GENES]
    if name not in ("Persistence", "Movement II", "Aggression", "Armor")
]


def listed_payments(held, payment, deficit, bp, may_overpay):
    """The old list (E2): by number of genes returned, then subset ascending; (mask, bp) each."""
    out = []
    k = len(held)
    for size in range(k + 1):
        for subset in range(1 << k):
            if bin(subset).count("1") != size:
                continue
            genes = [held[j] for j in range(k) if subset >> j & 1]
            total = sum(payment[i] for i in genes)
            pay_bp = max(0, deficit - total)
            if pay_bp > bp:
                continue
            paid = total + pay_bp
            if any(paid - payment[i] >= deficit for i in genes):
                continue
            if paid > deficit and not may_overpay and bp >= deficit:
                continue
            out.append((sum(1 << i for i in genes), pay_bp))
    return out


def position(rng, flags):
    genes = sorted(rng.choice(len(BASIC), size=int(rng.integers(1, 13)), replace=False))
    names = [BASIC[i] for i in genes]
    data = {
        "players": 4,
        "round": 2,
        "rules": {"flags": flags},
        "state": [{"score": 1, "bp": int(rng.integers(0, 40)), "genes": names}, {}, {}, {}],
        "strategies": ["greedy", "random", "breeder", "geneticist"],
        "run": "phase2",  # a position: the test walks its payments, nothing is played
    }
    return load_scenario(data, check_invariants=False)


@pytest.mark.parametrize("may_overpay", [True, False])
def test_E2_walk_is_the_full_list_in_order(may_overpay):
    rng = np.random.default_rng(11 if may_overpay else 12)
    book = load_rules(overrides={"defect_genes_may_overpay": may_overpay})
    ru_np = book.for_players(4)
    payment = [int(x) for x in ru_np.gene_defect_payment]
    beyond = 0
    for _ in range(60):
        sc = position(rng, {"defect_genes_may_overpay": may_overpay})
        batch = sc.batch
        st_np, wk_np = batch.state, batch.workspace
        st, ru, wk = by_reference(st_np, batch.rules, wk_np)
        held = [i for i in range(N_GENES) if st_np.genes[0, 0, i]]
        mp = sum(int(batch.rules.gene_mp[i]) for i in held)
        deficit = int(rng.integers(1, max(2, mp + 1)))
        want = listed_payments(held, payment, deficit, int(st_np.bp[0, 0]), may_overpay)
        beyond += len(want) > MAX_OPTIONS
        k = _held_genes(st, ru, wk, 0, 0, 0)
        assert k == len(held)
        n, mask, bp, ties, best = _walk_payments(st, ru, wk, 0, 0, 0, deficit, k, WALK_BEST, 0, 0)
        assert n == len(want)
        if n == 0:
            continue
        _walk_payments(st, ru, wk, 0, 0, 0, deficit, k, WALK_LIST, 0, 0)
        shown = min(n, MAX_OPTIONS)
        # an option row is the gene mask in two words (gene_sets.py), then the BP
        rows = [(int(row[0]) | int(row[1]) << WORD_BITS, int(row[2])) for row in wk_np.options[0, :shown]]
        assert rows == want[:shown]
        for i in sorted({0, n // 2, n - 1}):
            assert _walk_payments(st, ru, wk, 0, 0, 0, deficit, k, WALK_NTH, i, 0)[1:3] == want[i]
        # the strategy (greedy, row 0): policy.choose's first best and ties over the list
        prm = wk_np.params[st_np.strategy[0, 0]]
        cost = [float(batch.rules.gene_price[i]) + prm[GENE_VALUE_BASE + i] for i in range(N_GENES)]
        values = []
        for m, b in want:
            lost = 0.0
            for i in range(N_GENES):  # in gene order, as policy.pay_value sums
                if m >> i & 1:
                    lost += cost[i]
            values.append(-(b + prm[DEFECT_GENE_WEIGHT] * lost))
        top = max(values)
        assert best == values.index(top) and (mask, bp) == want[best]
        assert ties == values.count(top)
        equal = [j for j, v in enumerate(values) if v == top]
        for t in range(ties):
            got = _walk_payments(st, ru, wk, 0, 0, 0, deficit, k, WALK_NTH_TIE, t, best)
            assert got[1:3] == want[equal[t]]
    assert beyond > 0, "no position had more payments than the old 1,024-option list"
