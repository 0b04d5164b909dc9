"""Healing 1 (XG-15): in Phase 4, before it divides, its owner pays ``healing1_cost`` (3) BP per DP
it removes from one of its amoebas, as often as it likes and can pay (once per amoeba and round
with the flag healing1_limit = once_per_amoeba). Healing 2 (XG-25, genes/healing_2.py) gives the
DP to another amoeba on the same space, which may die of it at once, where its flag
healing2_phase says.

The healing of both genes is here (it was engine/healing.py): the phases call
:func:`heals_in_phase` at the owner's turn (phases/phase4_division.py; with Healing 2's flag
also phases 1, 3 and 5); the owner's strategy chooses each heal (the decision kind ``heal``,
scenario choice ``{"heal": "stop" | {"number": n, "receiver": null | {"player": p, "number":
n}}}``, valued by :func:`value`) until it stops. A heal is logged as the event ``heal`` and
counted in the tally ``healing:dp_removed``; the kind, event and tally are the two genes' rows,
declared here (Healing 2's own tally, flags and phase are its module's).
"""

import json

from sim.jit import kernel
from sim.ursuppe.engine.decisions import decide, option_overflow, set_option
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.genes.healing_2 import (
    HEALING_2,
    XF_HEALING2_COST,
    XF_HEALING2_INCLUDES_HEALING1,
    XF_HEALING2_TARGET_ANY_COLOUR,
    healing2_give,
    healing2_now,
)
from sim.ursuppe.engine.players import add_bp, death_threshold
from sim.ursuppe.engine.policy_port import HEAL_RESERVE, HEAL_WITHIN, leading_opponent
from sim.ursuppe.engine.state import AF_HEALED
from sim.ursuppe.rules.gene_rows import ChoiceError, Decision, ExtraFlag, Gene

LIMITS = ("unlimited", "once_per_amoeba")  # flag healing1_limit
HEALING_ONCE_PER_AMOEBA = LIMITS.index("once_per_amoeba")
MAX_NUMBER = 7  # a scenario's amoeba numbers: 1..7


def _int(value, key: str, low: int, high: int) -> int:
    """An integer of the scenario choice in low..high (``key``: its part, ".number", ...)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ChoiceError(f"expected an integer, got {json.dumps(value)}", key)
    if value < low or value > high:
        raise ChoiceError(f"expected an integer in {low}..{high}, got {value}", key)
    return value


def _parse(value, row: list[int], players: int) -> list[int]:
    """The scenario choice: "stop" or {"number": n, "receiver": null | {"player": p, "number": n}}."""
    if value == "stop":
        row[0], row[1], row[2] = -1, -1, -1
    elif isinstance(value, dict) and set(value) <= {"number", "receiver"} and "number" in value:
        row[0] = _int(value["number"], ".number", 1, MAX_NUMBER)
        receiver = value.get("receiver")
        if receiver is None:
            row[1], row[2] = -1, -1
        elif isinstance(receiver, dict) and set(receiver) == {"player", "number"}:
            row[1] = _int(receiver["player"], ".receiver.player", 0, players - 1)
            row[2] = _int(receiver["number"], ".receiver.number", 1, MAX_NUMBER)
        else:
            raise ChoiceError(
                f'expected null or {{"player": p, "number": n}}, got {json.dumps(receiver)}', ".receiver"
            )
    else:
        raise ValueError(
            f'expected "stop" or {{"number": n, "receiver": null|{{...}}}}, got {json.dumps(value)}'
        )
    return row


def _render(row: list[int]) -> dict:
    if row[0] < 0:
        return {"heal": "stop"}
    receiver = None if row[1] < 0 else {"player": int(row[1]), "number": int(row[2])}
    return {"heal": {"number": int(row[0]), "receiver": receiver}}


GENE = Gene(
    "Healing 1",
    "XG-15",
    flags=(
        ExtraFlag("healing1_limit", "XG-15", "unlimited", LIMITS),
        ExtraFlag("healing1_cost", "XG-15", 3, lo=0, hi=100),
    ),
    decisions=(
        Decision(
            "heal",
            "XG-15, XG-25",
            3,
            "heal",
            "own number, receiver player, receiver number (-1, -1: Healing 1); all -1 = stop",
            _parse,
            _render,
        ),
    ),
    events=(("heal", ("dp", "cost", "receiver_player", "receiver_amoeba")),),  # XG-15, XG-25
    tallies=(("healing:dp_removed", "XG-15, XG-25"),),
)

# The kernels' constants (numba globals): the gene, its flags, the decision kind, event and tally
# it shares with Healing 2.
HEALING_1, XF_HEALING1_LIMIT, XF_HEALING1_COST, HEAL, EV_HEAL, HEALING_DP_REMOVED = indices(GENE)


@kernel
def value(st, ru, wk, g, b, p, n, prm):
    """XG-15, XG-25, the policy's valuation (strategies/ursuppe/policy.py) of the options (own
    number, receiver player, receiver number); all -1 = stop. Heal an amoeba within
    ``heal_within`` DP of its death threshold, the most damaged first, while ``heal_reserve`` BP
    are kept; Healing 2 prefers a receiver of the leader's or one the DP kills, and never gives
    the DP to its own amoeba."""
    opts = wk.options[b]
    val = wk.scores[b]
    threshold = death_threshold(st, ru, g, p)
    first = leading_opponent(st, ru, g, p)
    for i in range(n):
        a = opts[i, 0] - 1
        q = opts[i, 1]
        if a < 0:
            val[i] = 0.0
            continue
        cost = ru.xflag[XF_HEALING1_COST] if q < 0 else ru.xflag[XF_HEALING2_COST]
        if st.bp[g, p] - cost < prm[HEAL_RESERVE] or threshold - st.dp[g, p, a] > prm[HEAL_WITHIN]:
            val[i] = -1.0
            continue
        v = 1.0 + 0.1 * st.dp[g, p, a]
        if q >= 0:
            if ru.team[q] == ru.team[p]:
                val[i] = -1.0
                continue
            t = opts[i, 2] - 1
            if st.dp[g, q, t] + 1 >= death_threshold(st, ru, g, q):
                v += 0.5
            if q == first:
                v += 0.2
        val[i] = v


@kernel
def heal_options(st, ru, wk, g, b, p, plain, giving):
    """XG-15, XG-25: 'stop', then (own number, -1, -1) for a plain heal (``plain``: Healing 1, or
    Healing 2 with flag healing2_includes_healing1; healing1_cost BP) and (own number, receiver
    player, receiver number) for Healing 2's heal that gives the DP to another amoeba on the same
    space (``giving``; healing2_cost BP; own colour only with flag healing2_target_any_colour).
    An amoeba healed this round is left out with flag healing1_limit = once_per_amoeba."""
    set_option(wk.options, b, 0, -1, -1, -1)
    n = 1
    once = ru.xflag[XF_HEALING1_LIMIT] == HEALING_ONCE_PER_AMOEBA
    plain = plain and st.bp[g, p] >= ru.xflag[XF_HEALING1_COST]
    giving = giving and st.bp[g, p] >= ru.xflag[XF_HEALING2_COST]
    any_colour = ru.xflag[XF_HEALING2_TARGET_ANY_COLOUR] != 0
    A = st.space.shape[2]
    for a in range(A):
        s = st.space[g, p, a]
        if s < 0 or st.dp[g, p, a] <= 0:
            continue
        if once and st.amoeba_flags[g, p, a] & AF_HEALED:
            continue
        if plain:
            set_option(wk.options, b, n, a + 1, -1, -1)
            n += 1
        if not giving:
            continue
        for q in range(st.space.shape[1]):
            if q == p and not any_colour:
                continue
            for t in range(A):
                if st.space[g, q, t] == s and not (q == p and t == a):
                    if option_overflow(wk, g, n):
                        return n
                    set_option(wk.options, b, n, a + 1, q, t + 1)
                    n += 1
    return n


@kernel
def healing(st, ru, wk, g, b, p, phase, plain, giving):
    """XG-15, XG-25: player p heals as long as it likes and can pay: each heal removes 1 DP from
    one of its amoebas; Healing 2's gives that DP to the receiver, which dies at once when it
    reaches its threshold (removed, X1's cubes)."""
    while True:
        n = heal_options(st, ru, wk, g, b, p, plain, giving)
        if n <= 1:
            return
        # The policy cannot call value (its module would import this one, which calls decide):
        # the scores are set here, and policy.choose leaves a gene module's kinds' scores as they are.
        if p != ru.dummy:
            value(st, ru, wk, g, b, p, n, wk.params[st.strategy[g, p]])
        i = decide(st, ru, wk, g, b, p, -1, HEAL, n)
        a = wk.options[b, i, 0] - 1
        q = wk.options[b, i, 1]
        t = wk.options[b, i, 2] - 1
        if a < 0 or wk.error[g, 0] != 0:
            return
        cost = ru.xflag[XF_HEALING1_COST] if q < 0 else ru.xflag[XF_HEALING2_COST]
        add_bp(st, ru, g, p, -cost)
        st.dp[g, p, a] -= 1
        st.amoeba_flags[g, p, a] |= AF_HEALED
        wk.tally[b, HEALING_DP_REMOVED] += 1
        log(st, wk, g, EV_HEAL, phase, p, a + 1, st.dp[g, p, a], cost, q, t + 1 if q >= 0 else -1, 0, 0, 0)
        if q >= 0:
            healing2_give(st, ru, wk, g, b, q, t, phase)  # XG-25: the DP to the receiver


@kernel
def heals_in_phase(st, ru, wk, g, b, p, phase):
    """XG-15, XG-25: player p's healing at its turn in ``phase`` (1, 3, 4 or 5 before the deaths):
    Healing 1 heals in Phase 4; Healing 2 where healing2_now says, with Healing 1's plain heal
    there too under flag healing2_includes_healing1."""
    if not ru.extra_genes:
        return
    h2 = st.genes[g, p, HEALING_2] != 0 and healing2_now(ru, phase)
    plain = phase == 4 and st.genes[g, p, HEALING_1] != 0
    plain = plain or (h2 and ru.xflag[XF_HEALING2_INCLUDES_HEALING1] != 0)
    if h2 or plain:
        healing(st, ru, wk, g, b, p, phase, plain, h2)
