"""Every decision of §11 goes through :func:`decide`.

The engine writes the legal options into ``Workspace.options[b, :n]`` (layouts in
decision_kinds.py) and calls ``decide``. A decision with one legal option is taken without asking
anyone and without consuming a forced choice (scenario-format.md). Otherwise a scenario's next
forced choice is used when there is one (for the players of the tape's seat mask): it must be of
this kind and match a legal option's identifying integers, else the game stops with an error
naming it; with none, the player's strategy decides (strategies/chromosome/policy.py). A
``TAPE_STOP`` entry stops the game at the decision instead (issue 33: a decision point), and the
choice at ``Workspace.fork_at`` forks it (fork.py).
"""

from sim.chromosome.engine.decision_kinds import KIND_WIDTH
from sim.chromosome.engine.fork import fork_game
from sim.chromosome.engine.policy_port import choose
from sim.chromosome.engine.state import (
    ERR_DECISION_POINT,
    ERR_ILLEGAL_CHOICE,
    ERR_TOO_MANY_OPTIONS,
    ERR_WRONG_CHOICE_KIND,
    MAX_OPTIONS,
)
from sim.jit import kernel

# A tape entry's kind that stops the game at the decision it meets (issue 33: a decision point).
TAPE_STOP = -1


@kernel
def fail(cw, g, code, detail, kind, p):
    """Stop game g with error ``code`` (the first error stands)."""
    if cw.error[g, 0] == 0:
        cw.error[g, 0] = code
        cw.error[g, 1] = detail
        cw.error[g, 2] = kind
        cw.error[g, 3] = p


@kernel
def set_option(cw, b, i, v0, v1, v2, v3, v4):
    """Write option i's first five integers (the rest zero)."""
    cw.options[b, i, 0] = v0
    cw.options[b, i, 1] = v1
    cw.options[b, i, 2] = v2
    cw.options[b, i, 3] = v3
    cw.options[b, i, 4] = v4
    for j in range(5, cw.options.shape[2]):
        cw.options[b, i, j] = 0


@kernel
def stop_here(cw, g, b, t, kind, p, n):
    """Stop game g at player p's decision ``kind`` (tape index t), its ``n`` options kept."""
    fail(cw, g, ERR_DECISION_POINT, t, kind, p)
    for i in range(n):
        for j in range(cw.options.shape[2]):
            cw.stop_options[g, i, j] = cw.options[b, i, j]
    cw.n_stop_options[g] = n


@kernel
def decide(cs, cr, cw, g, b, p, kind, n):
    """Player p's choice among the ``n`` options of ``kind`` (the index of its row)."""
    if n > MAX_OPTIONS:
        fail(cw, g, ERR_TOO_MANY_OPTIONS, n, kind, p)
        return 0
    if n <= 1:
        return 0
    t = cw.tape_pos[g]
    if t < cw.tape_len[g] and (cw.tape_seats[g] >> p) & 1 != 0:
        if cw.tape_kind[g, t] == TAPE_STOP:
            if cw.error[g, 0] == 0:  # (after a stop the rest of the step decides nothing)
                stop_here(cw, g, b, t, kind, p, n)
                cw.stop_choice[g] = choose(cs, cr, cw, g, b, p, kind, n)  # the seat's own: a search's default
            return 0  # the game stops as with an error
        if cw.tape_kind[g, t] != kind:
            fail(cw, g, ERR_WRONG_CHOICE_KIND, t, kind, p)
            return 0
        width = KIND_WIDTH[kind]
        for i in range(n):
            same = True
            for j in range(width):
                if cw.options[b, i, j] != cw.tape_value[g, t, j]:
                    same = False
                    break
            if same:
                cw.tape_pos[g] = t + 1
                if t == cw.fork_at[g]:
                    fork_game(cs, cr, cw, g)
                return i
        fail(cw, g, ERR_ILLEGAL_CHOICE, t, kind, p)
        return 0
    return choose(cs, cr, cw, g, b, p, kind, n)
