"""The per-block scratch row (``Workspace.scratch[b]``, int32), laid out once.

A kernel that needs a small buffer inside a game uses a slot of its block's scratch row instead
of allocating (one row per block, so threads never share one). Each :class:`Slot` row below
names a buffer, its size and its user; the offsets are derived from the rows, one after the
other, so no two buffers overlap whichever phases use them, and a slot is added in one place.
"""

from typing import NamedTuple

from sim.ursuppe.rules.genes import N_GENES

MAX_COLOURS = 8  # players/colours a buffer indexed by player holds (the engine plays up to 6)


class Slot(NamedTuple):
    name: str
    size: int
    used_by: str


SLOTS: tuple[Slot, ...] = (
    Slot("order", MAX_COLOURS, "players.turn_order: the current phase's player order"),
    Slot("held_genes", N_GENES, "phase2_environment: the genes of the paying player (E2)"),
    Slot("sorted_payments", N_GENES, "phase2_environment: their defect payments, ascending (E2)"),
    Slot("carry", 2 * MAX_COLOURS, "movement: the Tentacle cube vector being enumerated, its bounds"),
    Slot(
        "riders", 1 + MAX_COLOURS * MAX_COLOURS, "movement: amoebas that clung after a first step (Holding)"
    ),
    Slot(
        "free_numbers",
        MAX_COLOURS,
        "decisions.free_numbers: the deciding player's numbers in the supply (D4)",
    ),
    Slot(
        "meal_extra",
        4 * MAX_COLOURS,
        "feeding: the supply across an attack's kill, its cubes followed (XG-04, XG-19)",
    ),
    Slot("gene_work", 2 * N_GENES, "genes of one decision (Highly Adaptable, Healing; XG-08, XG-15)"),
)
OFFSET: dict[str, int] = {}
_end = 0
for _slot in SLOTS:
    OFFSET[_slot.name] = _end
    _end += _slot.size
SCRATCH_WIDTH = _end

ORDER_SLOT = OFFSET["order"]
HELD = OFFSET["held_genes"]
SORTED = OFFSET["sorted_payments"]
CARRY_SCRATCH = OFFSET["carry"]
RIDERS = OFFSET["riders"]
FREE_NUMBERS = OFFSET["free_numbers"]
MEAL_EXTRA = OFFSET["meal_extra"]
GENE_WORK = OFFSET["gene_work"]
