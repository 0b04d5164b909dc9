"""Tallies of what happened in a batch: decisions by kind (§9) and outcomes (§8, §18), declared once.

``Workspace.tally[b, i]`` counts event ``i`` over the games of block b (one writer per row, so
threads never share a counter); the batch total is the sum over blocks. The fuzz tests read them
to show that the random strategy reaches every decision and every outcome. The first N_KINDS
tallies are ``decision:<kind>`` (a decision with at least two legal options), one per row of
decision_kinds.DECISION_KINDS; then one per row of :data:`OUTCOMES` (name, what it counts).
"""

from sim.ursuppe.engine.decision_kinds import DECISION_KINDS, KIND_NAMES, N_KINDS  # noqa: F401 (outcome i is tally N_KINDS + i)
from sim.ursuppe.rules import gene_tables
from sim.ursuppe.rules.ledger import in_ledger_order

DECISION = 0  # DECISION + kind: a decision with at least two legal options

# The outcomes the core rules count; a gene module's come from its row (gene_tables.TALLIES). All
# of them in the ledger's order (rules/ledger.toml).
_CORE_OUTCOMES: tuple[tuple[str, str], ...] = (
    ("attack:success", "A6"),
    ("attack:escaped", "A3"),
    ("attack:defended", "A4"),
    ("attack:clung", "Holding"),
    # The extra genes' market (docs/rules.md §18)
    ("market:reveal", "XM4"),
    ("market:discard", "XM5"),
)
OUTCOMES: tuple[tuple[str, str], ...] = in_ledger_order(
    "tallies", (*_CORE_OUTCOMES, *gene_tables.TALLIES), lambda outcome: outcome[0]
)
TALLY_NAMES: tuple[str, ...] = tuple(f"decision:{k}" for k in KIND_NAMES) + tuple(n for n, _ in OUTCOMES)
N_TALLIES = len(TALLY_NAMES)
TALLY_INDEX: dict[str, int] = {name: i for i, name in enumerate(TALLY_NAMES)}
# The tallies only a game with the extra genes can reach (rule ids XM.., XG..): the base fuzz
# test leaves them out, the extra-gene fuzz test asks for every one.
EXTRA_TALLY_NAMES: frozenset[str] = frozenset(
    [f"decision:{k.name}" for k in DECISION_KINDS if k.rule.startswith("X")]
    + [n for n, rule in OUTCOMES if rule.startswith("X")]
)
# The kernels count into plain module integers (numba globals); a gene module names its tallies' itself.
ATTACK_SUCCESS = TALLY_INDEX["attack:success"]
ATTACK_ESCAPED = TALLY_INDEX["attack:escaped"]
ATTACK_DEFENDED = TALLY_INDEX["attack:defended"]
ATTACK_CLUNG = TALLY_INDEX["attack:clung"]
MARKET_REVEAL = TALLY_INDEX["market:reveal"]
MARKET_DISCARD = TALLY_INDEX["market:discard"]
