"""Every decision of §9 goes through :func:`decide`.

The engine writes the legal options into ``Workspace.options[b, :n]`` (layouts in
decision_kinds.py) and calls ``decide``. A decision with one legal option is taken without
asking anyone (and without consuming a forced choice, as scenario-format.md requires). Otherwise
a scenario's next forced choice is used when there is one — it must be of the right kind and
legal, else the game stops with an error that names it — and the player's strategy decides when
there is none.
"""

from sim.jit import kernel
from sim.ursuppe.decision_kinds import BUY, CK_BUY_END, CK_DIVIDE, DIVIDE, KIND_CHOICE_KEY, KIND_WIDTH
from sim.ursuppe.state import (
    ERR_ILLEGAL_CHOICE,
    ERR_TOO_MANY_OPTIONS,
    ERR_WRONG_CHOICE_KIND,
    MAX_OPTIONS,
    OPTION_WIDTH,
)
from sim.ursuppe.tally import DECISION
from strategies.policy import choose

WILDCARD = -2  # a forced choice's value that matches anything ("Armor" without the gene given up)


@kernel
def _fail(wk, g, b, code, tape_index, kind, n, p):
    if wk.error[g, 0] != 0:
        return
    wk.error[g, 0] = code
    wk.error[g, 1] = tape_index
    wk.error[g, 2] = kind
    wk.error[g, 3] = p
    if wk.error_options.shape[0] > g:
        m = min(n, wk.error_options.shape[1])
        for i in range(m):
            for j in range(wk.options.shape[2]):
                wk.error_options[g, i, j] = wk.options[b, i, j]
        wk.n_error_options[g] = m


@kernel
def decide(st, ru, wk, g, b, p, a, kind, n):
    """Index of the chosen option among ``wk.options[b, :n]`` for player ``p``'s decision ``kind``
    about its amoeba ``a`` (0-based; -1 for a decision about no particular amoeba)."""
    if n <= 1:
        return 0
    wk.tally[b, DECISION + kind] += 1
    t = wk.tape_pos[g]
    if t < wk.tape_len[g]:
        ck = wk.tape_kind[g, t]
        accepted = ck == KIND_CHOICE_KEY[kind]
        if kind == DIVIDE and ck == CK_DIVIDE:
            accepted = True
        if kind == BUY and ck == CK_BUY_END:
            accepted = True
        if not accepted:
            _fail(wk, g, b, ERR_WRONG_CHOICE_KIND, t, kind, n, p)
            return 0
        wk.tape_pos[g] = t + 1
        w = KIND_WIDTH[kind]
        for i in range(n):
            same = True
            for j in range(w):
                want = wk.tape_value[g, t, j]
                if want != WILDCARD and wk.options[b, i, j] != want:
                    same = False
                    break
            if same:
                return i
        _fail(wk, g, b, ERR_ILLEGAL_CHOICE, t, kind, n, p)
        return 0
    return choose(st, ru, wk, g, b, p, a, kind, n)


@kernel
def consume_marker(wk, g, choice_key):
    """Consume the next forced choice if it is the marker ``choice_key`` (a buy list's end)."""
    t = wk.tape_pos[g]
    if t < wk.tape_len[g] and wk.tape_kind[g, t] == choice_key:
        wk.tape_pos[g] = t + 1


@kernel
def option_overflow(wk, g, n):
    """True (and the game's error set) when a decision would have more options than fit."""
    if n >= MAX_OPTIONS:
        if wk.error[g, 0] == 0:
            wk.error[g, 0] = ERR_TOO_MANY_OPTIONS
        return True
    return False


@kernel
def set_option(options, b, i, v0, v1, v2):
    """Write option row i of block b as (v0, v1, v2, 0, ...)."""
    row = options[b, i]
    row[0] = v0
    row[1] = v1
    row[2] = v2
    # The width is a compile-time constant (not row.shape[0]): the zeros become a few stores
    # instead of a loop, for each of the ~23 rows of a division decision.
    for j in range(3, OPTION_WIDTH):
        row[j] = 0
