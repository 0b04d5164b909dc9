"""Feeding (M4) with Frugality, Substitution and Parasitism (F1-F4).

A *shape* is a pattern's cube counts over the foreign colours, regardless of which colour gets
which count (the owner assigns colours, M4). The shapes a player may eat depend only on the rules
and on whether it holds Substitution and Frugality, so they are built when the rules are loaded
(meal_shapes.py: the standard shape, Substitution's shapes (F2), each of those with Frugality's
cubes fewer (F1, F3); Parasitism (F4) adds every such shape with its cubes fewer, paired with a
victim). A meal option is a concrete cube vector: one distinct arrangement of a shape over the
foreign colours that the space can supply. The three genes' hooks live in their modules
(sim/ursuppe/engine/genes/: substitution.py, frugality.py, parasitism.py).

Every arrangement of every shape is listed when the rules are loaded too (rules.meal_codes, in
the order of the EAT options), each packed into one integer: a feeding packs the space's cubes
the same way and keeps the arrangements that fit, one subtraction each (:func:`_code_fits`).
Until issue 24 every feeding copied its shapes into the scratch row and walked their
arrangements with ``next_permutation``: a fifth of the 6-player engine's time.

The extra genes (all behind ``Rules.extra_genes``, so a base game pays one branch):

- XG-02 Glutton (genes/glutton.py: whether it applies, its tally): the owner's shapes are
  Glutton's tables (rules.glutton_shapes: every shape with one foreign cube more; the modifiers
  of F1-F4 add), listed like the others (rules.meal_codes' Glutton tables). Its set 0 is the
  pattern A1 asks for.
- XG-12 / XG-26 Suction (genes/suction_1.py: how many cubes, the meal's cubes and tally): each
  arrangement may also be eaten with one (two) of its cubes taken from orthogonally adjacent
  spaces (:func:`_add_suction`: the arrangement's code less the cubes taken, against the own
  space's cubes); the EAT row's suction column names them. M4's "must eat if a
  legal pattern is available" and A1 count those meals too.
- XG-04 Cleanliness: the owner may put the excreted cubes on one neighbouring space
  (genes/cleanliness.py).
- XG-19 Toxic Excretions: an excretion lays a DP token (genes/toxic_excretions.py).

With extra genes a meal list that would overflow the option buffer keeps the first
``MAX_OPTIONS - 1`` meals instead of stopping the game (docs/decisions.md).
"""

import numpy as np

from sim.jit import always_inline, kernel
from sim.ursuppe.engine.decision_kinds import EAT, EAT_SUCTION_SLOT, EAT_VICTIM_SLOT, SUCTION_BITS
from sim.ursuppe.engine.decisions import count_decision, decide, option_overflow, set_option, streamable
from sim.ursuppe.engine.events import EV_EAT, EV_EXCRETE, EV_STARVE, log
from sim.ursuppe.engine.food import place_cubes, return_cubes
from sim.ursuppe.engine.genes.cleanliness import (
    cleanliness_attack_cubes,
    cleanliness_attack_cubes_followed,
    cleanliness_target,
)
from sim.ursuppe.engine.genes.frugality import frugality_shape_bit
from sim.ursuppe.engine.genes.glutton import glutton_eats, glutton_meal
from sim.ursuppe.engine.genes.parasitism import may_parasitize, parasite_pays, parasitism_feeds
from sim.ursuppe.engine.genes.substitution import substitution_shape_bit
from sim.ursuppe.engine.genes.suction_1 import suction_meal, suction_reach
from sim.ursuppe.engine.genes.suction_2 import suction2_same_space
from sim.ursuppe.engine.genes.toxic_excretions import (
    toxic_attack_cubes,
    toxic_attack_cubes_followed,
    toxic_excretion,
)
from sim.ursuppe.engine.policy_port import EAT_LEADER_COLOUR, NEVER, break_tie, leading_opponent, meal_value
from sim.ursuppe.engine.scratch import MEAL_EXTRA
from sim.ursuppe.engine.state import AF_FED, AF_STARVED, MAX_OPTIONS, OPTION_WIDTH
from sim.ursuppe.rules.meal_shapes import (
    CODE_BITS,
    CODE_FIELDS,
    CODE_FIELDS_BITS,
    CODE_MAX,
    GUARDS,
    MEAL_TABLE,
    ONE_MORE_PARASITE_TABLE,
    ONE_MORE_TABLE,
    PARASITE_TABLE,
)


@kernel
@always_inline
def _shape_set(st, g, p):
    """The index of player p's shape sets in the rules tables (F1, F2: the genes it holds)."""
    return substitution_shape_bit(st, g, p) | frugality_shape_bit(st, g, p)


@kernel
@always_inline
def _food_code(st, ru, g, p, space, k):
    """The cubes of p's foreign colours on ``space`` packed like the meal codes (meal_shapes.pack;
    capped at CODE_MAX, above any count), every field's guard bit set; TB1 (flag
    double2_eat_partner_colour false): ``ru.inedible[p]``'s cubes read 0, so no meal takes one."""
    skip = ru.inedible[p]
    have = GUARDS
    for j in range(k):
        c = j + (j >= p)  # the foreign colours in colour order: every colour but p's own
        if c != skip:
            have |= min(int(st.food[g, space, c]), CODE_MAX) << (CODE_BITS * j)
    return have


@kernel
@always_inline
def _code_fits(have, code):
    """M4: does the arrangement ``code`` fit on the space whose cubes are ``have`` (_food_code)?
    A field whose count exceeds the cubes borrows its guard bit away; none borrows across."""
    return ((have - code) & GUARDS) == GUARDS


@kernel
@always_inline
def _full(ru, wk, g, n):
    """No room for option n: in a base game the game's error (option_overflow); with extra genes
    (Glutton's and Suction's longer lists) the meals beyond the buffer are dropped, one row kept
    for gene_meals_optional's decline (docs/decisions.md)."""
    if ru.extra_genes:
        return n >= MAX_OPTIONS - 1
    return option_overflow(wk, g, n)


@kernel
@always_inline
def _write_meal(wk, b, p, code, k, victim, suction, n):
    """Option n: the arrangement ``code`` eaten from the own space (per colour), ``victim`` (F4)
    and the ``suction`` cubes (XG-12)."""
    opt = wk.options[b, n]
    for j in range(OPTION_WIDTH):  # a constant: stores, not a loop
        opt[j] = 0
    for j in range(k):
        opt[j + (j >= p)] = (code >> (CODE_BITS * j)) & CODE_MAX
    opt[EAT_VICTIM_SLOT] = victim
    opt[EAT_SUCTION_SLOT] = suction


@kernel
def _add_suction(st, ru, wk, g, b, p, space, code, k, victim, n, reach, dry, have):
    """XG-12, XG-26: the meals of the arrangement ``code`` with one (Suction 2: or two) of its cubes
    taken from orthogonally adjacent spaces, the rest from ``space`` (whose cubes are ``have``,
    _food_code); two cubes come from one neighbour unless the flag suction2_same_space is false.
    Each pair is listed once, its cubes in ascending (space, colour) order. Added as EAT options
    from row n on (returns the new count); ``dry``: returns 1 if there is such a meal, 0 if not,
    and writes nothing."""
    same = suction2_same_space(ru)  # XG-26
    for d1 in range(4):
        s1 = int(ru.neighbours[space, d1])
        if s1 < 0:
            continue
        for j1 in range(k):
            c1 = j1 + (j1 >= p)
            if (code >> (CODE_BITS * j1)) & CODE_MAX == 0 or st.food[g, s1, c1] == 0:
                continue
            code1 = 8 * s1 + c1
            rest = code - (np.int64(1) << (CODE_BITS * j1))  # the cubes left for ``space``
            if _code_fits(have, rest):
                if dry or _full(ru, wk, g, n):
                    return 1 if dry else n
                _write_meal(wk, b, p, rest, k, victim, 1 + code1, n)
                n += 1
            if reach > 1:
                for d2 in range(4):
                    s2 = int(ru.neighbours[space, d2])
                    if s2 < 0 or (same and s2 != s1):
                        continue
                    for j2 in range(k):
                        c2 = j2 + (j2 >= p)
                        code2 = 8 * s2 + c2
                        if code2 < code1 or (rest >> (CODE_BITS * j2)) & CODE_MAX == 0:
                            continue
                        if st.food[g, s2, c2] < (2 if code2 == code1 else 1):
                            continue
                        rest2 = rest - (np.int64(1) << (CODE_BITS * j2))
                        if _code_fits(have, rest2):
                            if dry or _full(ru, wk, g, n):
                                return 1 if dry else n
                            pair = (1 + code1) | ((1 + code2) << SUCTION_BITS)
                            _write_meal(wk, b, p, rest2, k, victim, pair, n)
                            n += 1
    return 0 if dry else n


@kernel
def _extra_standard_available(st, ru, wk, g, b, p, space):
    """A1 for an owner of Glutton or Suction: Glutton's standard pattern (one cube more, XG-02)
    or the standard one, also with neighbours' cubes (XG-12, XG-26)."""
    k = ru.meal_shapes.shape[2]
    reach = suction_reach(st, ru, g, p)
    table = ONE_MORE_TABLE if glutton_eats(st, ru, g, p) else MEAL_TABLE  # extra genes are on here
    have = _food_code(st, ru, g, p, space, k)
    for i in range(ru.n_meal_codes[table, 0]):
        code = ru.meal_codes[table, 0, i]
        if _code_fits(have, code):
            return True
        if reach > 0 and _add_suction(st, ru, wk, g, b, p, space, code, k, -1, 0, reach, True, have) > 0:
            return True
    return False


@kernel
def standard_available(st, ru, wk, g, b, p, space):
    """A1: can player p's amoeba eat the standard pattern on ``space``? (Glutton's enlarged one,
    with Suction counting neighbours' cubes: XG-02, XG-12.) Writes no option row."""
    if glutton_eats(st, ru, g, p) or suction_reach(st, ru, g, p) > 0:  # both False in a base game
        return _extra_standard_available(st, ru, wk, g, b, p, space)
    count = ru.n_meal_codes[MEAL_TABLE, 0]
    if count == 0:
        return True  # a standard pattern of no cube (house rules) is always there
    have = _food_code(st, ru, g, p, space, ru.meal_shapes.shape[2])
    for i in range(count):
        if _code_fits(have, ru.meal_codes[MEAL_TABLE, 0, i]):
            return True
    return False


@kernel
def _add_meals(st, ru, wk, g, b, p, space, table, c, k, victim, n, reach, have):
    """Add every arrangement of set c of code table ``table`` (meal_shapes.*_TABLE) that fits on
    ``space`` (cubes ``have``: _food_code), as EAT options with ``victim`` from row n on; with
    Suction each arrangement also with neighbours' cubes (_add_suction). Returns the new count."""
    for i in range(ru.n_meal_codes[table, c]):
        code = ru.meal_codes[table, c, i]
        if _code_fits(have, code):
            if _full(ru, wk, g, n):
                return n
            _write_meal(wk, b, p, code, k, victim, 0, n)
            n += 1
        if reach > 0:
            n = _add_suction(st, ru, wk, g, b, p, space, code, k, victim, n, reach, False, have)
    return n


@kernel
def meal_options(st, ru, wk, g, b, p, a, space):
    """Write every legal meal of amoeba (p, a) on ``space`` as EAT options; return their number.
    The meals are the arrangements of the player's shape set (rules.meal_codes), then those of
    its parasite set with each victim in turn (F4); Glutton's sets instead with Glutton (XG-02)."""
    c = _shape_set(st, g, p)
    k = ru.meal_shapes.shape[2]
    reach = suction_reach(st, ru, g, p)
    glutton = glutton_eats(st, ru, g, p)
    have = _food_code(st, ru, g, p, space, k)
    n = _add_meals(
        st, ru, wk, g, b, p, space, ONE_MORE_TABLE if glutton else MEAL_TABLE, c, k, -1, 0, reach, have
    )
    if parasitism_feeds(st, ru, g, p):
        P = st.supply.shape[1]
        table = ONE_MORE_PARASITE_TABLE if glutton else PARASITE_TABLE  # F4
        for q in range(P):
            if may_parasitize(st, ru, g, p, q, space):
                n = _add_meals(st, ru, wk, g, b, p, space, table, c, k, q, n, reach, have)
    return n


@kernel
@always_inline
def _code_value(st, g, prm, code, k, victim, leader, lead):
    """policy.meal_value of the arrangement ``code`` eaten with ``victim``, the leader's cubes in
    its field ``lead`` (k: none); an arrangement of no cube is never chosen (policy._value_eat)."""
    cubes = 0
    for j in range(k):
        cubes += (code >> (CODE_BITS * j)) & CODE_MAX
    if cubes == 0:
        return NEVER
    led = (code >> (CODE_BITS * lead)) & CODE_MAX if lead < k else 0
    return meal_value(st, g, prm, cubes, victim, leader, led)


@kernel
@always_inline
def _streamed_meal(st, ru, wk, g, b, p, space):
    """meal_options' meals in its order, valued as policy._value_eat values them (policy.meal_value),
    without listing them (issue 36; for a player without Suction: decisions.streamable). Returns
    (the number of meals, how many share the best value) and leaves those best meals, in order,
    in ``wk.scores[b, :ties]`` for the tie-break (:func:`eat_streamed`: each a code and
    its victim + 1 above CODE_FIELDS_BITS, exact in a float64); MAX_OPTIONS - 1 meals or more:
    (MAX_OPTIONS, 0), for the listing path, its cap and its error. A meal is valued only once a
    second one fits (most feedings have one: the standard pattern's single arrangement at 3-4
    players), and the leading opponent looked up only for a strategy that weighs its colour (the
    default's weight 0 adds 0.0, which no comparison sees)."""
    prm = wk.params[st.strategy[g, p]]
    c = _shape_set(st, g, p)
    k = ru.meal_shapes.shape[2]
    glutton = glutton_eats(st, ru, g, p)
    have = _food_code(st, ru, g, p, space, k)
    leader = -1
    lead = k  # the leader's field in a code (k: none, reads 0)
    victims = st.supply.shape[1] if parasitism_feeds(st, ru, g, p) else 0
    kept = wk.scores[b]
    best = 0.0
    n = 0
    ties = 0
    for group in range(-1, victims):  # the own meals, then each victim's (F4), as meal_options
        victim = group
        if group < 0:
            table = ONE_MORE_TABLE if glutton else MEAL_TABLE
        elif may_parasitize(st, ru, g, p, group, space):
            table = ONE_MORE_PARASITE_TABLE if glutton else PARASITE_TABLE
        else:
            continue
        for i in range(ru.n_meal_codes[table, c]):
            code = ru.meal_codes[table, c, i]
            if not _code_fits(have, code):
                continue
            if n >= MAX_OPTIONS - 1:
                return MAX_OPTIONS, 0
            meal = float(code | (np.int64(victim + 1) << CODE_FIELDS_BITS))
            if n == 0:
                kept[0] = meal
                ties = 1
                n = 1
                continue
            if n == 1:  # a second meal: value the first
                if prm[EAT_LEADER_COLOUR] != 0.0:
                    leader = leading_opponent(st, ru, g, p)
                    lead = leader - (leader > p) if leader >= 0 else k
                first = int(kept[0])
                best = _code_value(
                    st, g, prm, first & CODE_FIELDS, k, (first >> CODE_FIELDS_BITS) - 1, leader, lead
                )
            v = _code_value(st, g, prm, code, k, victim, leader, lead)
            if v > best:
                best = v
                kept[0] = meal
                ties = 1
            elif v == best:
                kept[ties] = meal
                ties += 1
            n += 1
    return n, ties


@kernel
@always_inline
def excrete(st, ru, wk, g, b, p, a, space, phase):
    """M4: the amoeba excretes ``ru.excretion`` cubes of its colour on its space (C3: as many as
    the supply has); with Cleanliness on a neighbour instead (XG-04), with Toxic Excretions a DP
    token follows (XG-19)."""
    if not ru.extra_genes:
        excreted = place_cubes(st, g, space, p, ru.excretion)
        log(st, wk, g, EV_EXCRETE, phase, p, a + 1, space, excreted, 0, 0, 0, 0, 0)
        return
    target = cleanliness_target(st, ru, wk, g, b, p, a, space, phase)  # XG-04
    excreted = place_cubes(st, g, target, p, ru.excretion)
    log(st, wk, g, EV_EXCRETE, phase, p, a + 1, target, excreted, 0, 0, 0, 0, 0)
    toxic_excretion(st, ru, wk, g, b, p, a, space, target, excreted, phase)


@kernel
@always_inline
def _eaten(st, ru, wk, g, b, p, a, space, packed, victim, suction, phase):
    """M4 once a meal's cubes from ``space`` (``packed`` base 16, for the log) are in the supply:
    Suction's from the neighbours too (XG-12, XG-26), the parasite's victim pays (F4), then
    excrete."""
    parasite_pays(st, ru, wk, g, b, victim)
    if ru.extra_genes:
        suction_meal(st, wk, g, b, suction)  # XG-12, XG-26: the neighbours' cubes
        glutton_meal(st, wk, g, b, p)
    st.amoeba_flags[g, p, a] |= AF_FED
    log(st, wk, g, EV_EAT, phase, p, a + 1, space, packed, victim, suction, 0, 0, 0)
    excrete(st, ru, wk, g, b, p, a, space, phase)


@kernel
def eat(st, ru, wk, g, b, p, a, space, i, phase):
    """M4: eat option i: cubes to the supply (Suction's from the neighbours too), the parasite's
    victim pays (F4), then excrete."""
    opt = wk.options[b, i]
    packed = 0
    for c in range(st.supply.shape[1]):
        if opt[c] > 0:
            return_cubes(st, g, space, c, opt[c])
            packed |= opt[c] << (4 * c)
    # read before the excretion's CLEAN decision reuses the rows
    _eaten(st, ru, wk, g, b, p, a, space, packed, opt[EAT_VICTIM_SLOT], opt[EAT_SUCTION_SLOT], phase)


@kernel
@always_inline
def eat_streamed(st, ru, wk, g, b, p, a, space, k, t, phase):
    """M4, F4: eat the t-th best meal :func:`_streamed_meal` kept, as :func:`eat` eats its option
    row (the same cubes in colour order, the same hooks), without writing the row: a streamed
    meal has no Suction cubes (decisions.streamable's players have no Suction)."""
    meal = int(wk.scores[b, t])
    code = meal & CODE_FIELDS
    packed = 0
    for j in range(k):  # p's foreign colours, ascending (_food_code's fields)
        c = j + (j >= p)
        count = (code >> (CODE_BITS * j)) & CODE_MAX
        return_cubes(st, g, space, c, count)  # 0 cubes change nothing: no branch to mispredict
        packed |= count << (4 * c)
    _eaten(st, ru, wk, g, b, p, a, space, packed, (meal >> CODE_FIELDS_BITS) - 1, 0, phase)


@kernel
def attack_cubes_watch(st, ru, wk, g, b, p):
    """A6 with XG-04 (flag cleanliness_covers_attack_cubes) or XG-19 (flag
    toxic_includes_attack_cubes): does player p's successful attack need its cubes followed? If so
    the supply is noted (scratch ``meal_extra``) before the target dies, for attack_cubes_placed."""
    if not ru.extra_genes:
        return False
    clean = cleanliness_attack_cubes_followed(st, ru, g, p)
    toxic = toxic_attack_cubes_followed(st, ru, g, p)
    if not (clean or toxic):
        return False
    for c in range(st.supply.shape[1]):
        wk.scratch[b, MEAL_EXTRA + c] = st.supply[g, c]
    return True


@kernel
def attack_cubes_placed(st, ru, wk, g, b, p, a, space, phase):
    """A6's cubes (one of each colour, placed on ``space`` by the kill) as the attacker's
    production: with Cleanliness and the flag cleanliness_covers_attack_cubes the owner may move
    them all to one neighbouring space (XG-04); with Toxic Excretions and the flag
    toxic_includes_attack_cubes the attacker's own-colour cube lays a token (XG-19)."""
    P = st.supply.shape[1]
    total = 0
    for c in range(P):
        total += wk.scratch[b, MEAL_EXTRA + c] - st.supply[g, c]
    own = wk.scratch[b, MEAL_EXTRA + p] - st.supply[g, p]
    target = cleanliness_attack_cubes(st, ru, wk, g, b, p, a, space, total, phase)  # XG-04
    toxic_attack_cubes(st, ru, wk, g, b, p, a, space, target, own, phase)


@kernel
def starve(st, ru, wk, g, p, a, phase):
    """M4/A6: the amoeba eats nothing, excretes nothing and gets DP."""
    st.dp[g, p, a] += ru.starvation_dp
    st.amoeba_flags[g, p, a] |= AF_STARVED
    log(st, wk, g, EV_STARVE, phase, p, a + 1, st.space[g, p, a], st.dp[g, p, a], 0, 0, 0, 0, 0)


@kernel
def eat_or_starve(st, ru, wk, g, b, p, a, phase):
    """M4: eat a legal meal if there is one (owner's choice), else starve. True if it ate.

    With the flag gene_meals_optional, gene patterns may be declined: when the standard pattern
    is not available, a last option eats nothing (cubes all 0, no victim) and starves."""
    space = st.space[g, p, a]
    if not ru.gene_meals_optional and suction_reach(st, ru, g, p) == 0 and streamable(st, ru, wk, g, p):
        # the strategy values the meals without their rows (issue 36): the same choice
        n, ties = _streamed_meal(st, ru, wk, g, b, p, space)
        if n < MAX_OPTIONS:
            if n == 0:
                starve(st, ru, wk, g, p, a, phase)
                return False
            count_decision(wk, b, EAT, n)
            t = break_tie(st, wk, g, p, ties) if n > 1 else 0
            eat_streamed(st, ru, wk, g, b, p, a, space, ru.meal_shapes.shape[2], t, phase)
            return True
    n = meal_options(st, ru, wk, g, b, p, a, space)
    if n == 0:
        starve(st, ru, wk, g, p, a, phase)
        return False
    decline = -1
    if ru.gene_meals_optional and not option_overflow(wk, g, n):
        if not standard_available(st, ru, wk, g, b, p, space):  # reads only the scratch row
            decline = n
            set_option(wk.options, b, n, 0, 0, 0)
            wk.options[b, n, EAT_VICTIM_SLOT] = -1
            n += 1
    i = decide(st, ru, wk, g, b, p, a, EAT, n)
    if i == decline:
        starve(st, ru, wk, g, p, a, phase)
        return False
    eat(st, ru, wk, g, b, p, a, space, i, phase)
    return True
