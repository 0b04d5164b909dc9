"""Every decision of §9 goes through :func:`decide`.

The engine writes the legal options into ``Workspace.options[b, :n]`` (layouts in
decision_kinds.py) and calls ``decide``. A decision with one legal option is taken without
asking anyone (and without consuming a forced choice, as scenario-format.md requires). Otherwise
a scenario's next forced choice is used when there is one — it must be of the right kind and
legal, else the game stops with an error that names it — and the player's strategy decides when
there is none.
"""

from sim.jit import always_inline, kernel
from sim.random_stream import below
from sim.ursuppe.engine.decision_kinds import (
    BUY,
    CK_BUY_END,
    CK_DIVIDE,
    DIVIDE,
    EAT,
    KIND_CHOICE_KEY,
    KIND_WIDTH,
    PLACE_FREE,
    PLACE_SETUP,
)
from sim.ursuppe.engine.fork import fork_game
from sim.ursuppe.engine.policy_port import choose, needs_every_option
from sim.ursuppe.engine.scratch import FREE_NUMBERS
from sim.ursuppe.engine.state import (
    ERR_DECISION_POINT,
    ERR_ILLEGAL_CHOICE,
    ERR_TOO_MANY_OPTIONS,
    ERR_WRONG_CHOICE_KIND,
    MAX_OPTIONS,
    OPTION_WIDTH,
    STREAM_STRATEGY,
)
from sim.ursuppe.engine.tally import DECISION

WILDCARD = -2  # a forced choice's value that matches anything ("Armor" without the gene given up)
# A tape entry's kind that stops the game at the decision it meets (issue 33: a decision point): the
# error slots then name the decision (ERR_DECISION_POINT) and error_options hold its legal options.
TAPE_STOP = -1


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


FORCED_NONE = -1  # forced_choice: no forced choice left (the strategy decides)
FORCED_WRONG_KIND = -2  # forced_choice: the next forced choice is of another kind (error set)
FORCED_STOP = -3  # forced_choice: the tape stops the game here (a decision point, ERR_DECISION_POINT)


@kernel
def forced_choice(wk, g, b, p, kind, n):
    """A scenario's next forced choice for player p's decision ``kind`` with ``n`` legal options
    (listed in ``wk.options[b]``, as far as they fit, for an error message): its tape index,
    consumed; FORCED_NONE when the tape is used up; FORCED_WRONG_KIND (and the game's error)
    when it is of another kind. The caller checks that the choice is legal (reject_forced)."""
    t = wk.tape_pos[g]
    if t >= wk.tape_len[g]:
        return FORCED_NONE
    ck = wk.tape_kind[g, t]
    if ck == TAPE_STOP:
        if wk.error[g, 0] != 0:
            return FORCED_WRONG_KIND  # stopped already: the rest of the phase decides nothing
        _fail(wk, g, b, ERR_DECISION_POINT, t, kind, n, p)
        return FORCED_STOP  # (not consumed) the game stops as with an error
    accepted = ck == KIND_CHOICE_KEY[kind]
    if kind == DIVIDE and ck == CK_DIVIDE:
        accepted = True
    if kind == BUY and ck == CK_BUY_END:
        accepted = True
    if not accepted:
        _fail(wk, g, b, ERR_WRONG_CHOICE_KIND, t, kind, n, p)
        return FORCED_WRONG_KIND
    wk.tape_pos[g] = t + 1
    return t


@kernel
@always_inline
def taped(wk, g, p):
    """Does the tape force player p's next decision? While it has entries left, for the players
    of its seat mask (Workspace.tape_seats: a scenario's all, a search's its own seats)."""
    return wk.tape_pos[g] < wk.tape_len[g] and (wk.tape_seats[g] >> p) & 1 != 0


@kernel
def forked_here(st, ru, wk, g, p, t):
    """The forced choice at tape index ``t`` is taken: the game forks here if the tape says so."""
    if t == wk.fork_at[g]:
        fork_game(st, ru, wk, g, p)


@kernel
def stop_default(st, ru, wk, g, b, p, a, kind, n):
    """At a decision point: keep the option the seat's own strategy takes (a search's default; the
    game stops, so its random draws are spent on nothing)."""
    wk.stop_choice[g] = choose(st, ru, wk, g, b, p, a, kind, n)


@kernel
def reject_forced(wk, g, b, p, kind, n, t):
    """The forced choice at tape index ``t`` is not legal for player p's decision ``kind``: the
    game's error, with the legal options listed in ``wk.options[b, :n]``."""
    _fail(wk, g, b, ERR_ILLEGAL_CHOICE, t, kind, n, p)


@kernel
def dummy_place(st, wk, g, b, n):
    """TD5/TD7 (flag dummy_placement = "random"): a uniformly random one of the placement rows
    ``wk.options[b, :n]`` that name a space (each a legal space with the lowest free number),
    drawn from the game's strategy stream (the dummy's choices are nobody's strategy)."""
    k = 0
    for i in range(n):
        if wk.options[b, i, 0] >= 0:
            k += 1
    if k == 0:
        return 0
    j = below(st.rng_key, st.rng_ctr, g, STREAM_STRATEGY, k)
    for i in range(n):
        if wk.options[b, i, 0] >= 0:
            if j == 0:
                return i
            j -= 1
    return 0


@kernel
def dummy_choice(st, wk, g, b, p, a, kind, n):
    """The dummy's fixed behaviour (TD2-TD9): it decides nothing a strategy could. Placements
    are random (dummy_place); a meal takes twice the colour with more cubes on the space, ties
    by colour index (TD3, flag dummy_feeding = "most_cubes"); every other decision takes the
    first option, which the engine lists as drift (TD2: MOVE's row 0), no attack, no answer,
    no purchase or stop (its rows with -1 come first) - the dummy never pays BP."""
    if kind == PLACE_SETUP or kind == PLACE_FREE or kind == DIVIDE:
        return dummy_place(st, wk, g, b, n)
    if kind == EAT:
        space = st.space[g, p, a] if a >= 0 else -1
        best = 0
        best_cubes = -1
        best_colour = 0
        for i in range(n):
            c = 0  # the colour the option takes most of (its first, lowest-index one on a tie)
            for j in range(1, st.supply.shape[1]):
                if wk.options[b, i, j] > wk.options[b, i, c]:
                    c = j
            cubes = st.food[g, space, c] if space >= 0 else 0
            if cubes > best_cubes or (cubes == best_cubes and c < best_colour):
                best, best_cubes, best_colour = i, cubes, c
        return best
    for i in range(n):
        if wk.options[b, i, 0] < 0:
            return i  # BUY's stop
    return 0


@kernel
@always_inline
def decide(st, ru, wk, g, b, p, a, kind, n):
    """Index of the chosen option among ``wk.options[b, :n]`` for player ``p``'s decision ``kind``
    about its amoeba ``a`` (0-based; -1 for a decision about no particular amoeba). The dummy of
    the 2-player variant (TD2) decides by its fixed rules, not by a strategy or forced choice."""
    if n <= 1:
        return 0
    if p == ru.dummy:
        return dummy_choice(st, wk, g, b, p, a, kind, n)
    wk.tally[b, DECISION + kind] += 1
    if taped(wk, g, p):
        t = forced_choice(wk, g, b, p, kind, n)
        if t == FORCED_STOP:
            stop_default(st, ru, wk, g, b, p, a, kind, n)
        if t < 0:
            return 0  # another kind or a stop: the game's error is set
        w = KIND_WIDTH[kind]
        for i in range(n):
            same = True
            for j in range(w):
                want = wk.tape_value[g, t, j]
                if want != WILDCARD and wk.options[b, i, j] != want:
                    same = False
                    break
            if same:
                forked_here(st, ru, wk, g, p, t)
                return i
        reject_forced(wk, g, b, p, kind, n, t)
        return 0
    return choose(st, ru, wk, g, b, p, a, kind, n)


@kernel
@always_inline
def streamable(st, ru, wk, g, p):
    """Can player p's next decision be taken without listing its options? When no dummy (TD2)
    and no tape forces p's decisions (a scenario's, or a search seat's: the other players of a
    replay stream theirs, so a rollout's replayed past costs what a plain game's does), and p's
    strategy does not draw among all the options (policy.needs_every_option), choose takes the
    first best option by its values, a tie broken by policy.break_tie: a caller that streams its
    options in list order through the same values, breaking a tie with the same draw, takes the
    option decide would (issue 24: Tentacle's cube vectors, D3's and S6's spaces, M1's moves). It
    counts the decision with :func:`count_decision`."""
    if not wk.stream_decisions or p == ru.dummy or taped(wk, g, p):
        return False
    return not needs_every_option(st, wk, g, p)


@kernel
@always_inline
def count_decision(wk, b, kind, n):
    """A streamed decision (:func:`streamable`) of ``n`` options counts as decide counts it."""
    if n > 1:
        wk.tally[b, DECISION + kind] += 1


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


@kernel
@always_inline
def free_numbers(st, wk, g, b, p):
    """Write the 1-based numbers of player p's amoebas in the supply (D4, S6) to the scratch row,
    ascending; return how many."""
    k = 0
    for a in range(st.space.shape[2]):
        if st.space[g, p, a] < 0:
            wk.scratch[b, FREE_NUMBERS + k] = a + 1
            k += 1
    return k


@kernel
def _every_number(wk, b, n, n_free):
    """Expand the placement rows (space, lowest free number) in place into one row per space and
    free number, in the same order; return the new count."""
    full = 0
    for i in range(n):
        full += n_free if wk.options[b, i, 0] >= 0 else 1
    j = full
    for i in range(n - 1, -1, -1):  # backwards: a row moves only to a later index
        space = wk.options[b, i, 0]
        if space < 0:
            j -= 1
            set_option(wk.options, b, j, space, wk.options[b, i, 1], 0)
            continue
        for k in range(n_free - 1, -1, -1):
            j -= 1
            set_option(wk.options, b, j, space, wk.scratch[b, FREE_NUMBERS + k], 0)
    return full


@kernel
def decide_placement(st, ru, wk, g, b, p, kind, n, n_free):
    """:func:`decide` for a placement (S6, D2, D3-D4): the engine lists one row per legal space,
    (space, lowest free number), plus DIVIDE's stop (-1, -1); any of the ``n_free`` numbers of
    ``free_numbers`` may be placed there. The rows are expanded to every (space, number) before
    a forced choice or a strategy that draws among all options decides, so the decision is the
    one over the full list. Otherwise the strategy values the compact rows: a space's row with
    its lowest number is its best (policy: D4's lowest number first), and the best rows and
    their ties are the full list's, in the same order, so the choice is the same."""
    if p == ru.dummy:
        return decide(st, ru, wk, g, b, p, -1, kind, n)  # TD5/TD7: the lowest number, not a choice
    one_space = n == 1 and wk.options[b, 0, 0] >= 0  # but several numbers: a real decision
    if n_free > 1 and (one_space or taped(wk, g, p) or needs_every_option(st, wk, g, p)):
        n = _every_number(wk, b, n, n_free)
    return decide(st, ru, wk, g, b, p, -1, kind, n)
