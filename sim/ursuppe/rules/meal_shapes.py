"""Meal shapes (M4, F1-F4), built once per player count when the rules are loaded.

A *shape* is a pattern's cube counts over the foreign colours, regardless of which colour gets
which count (the owner assigns colours, M4). Which shapes a player may eat depends only on the
rules and on whether it holds Substitution (F2) and Frugality (F1, F3); Parasitism (F4) adds
those shapes with cubes fewer, each paired with a victim. So :func:`shape_tables` builds the
sets of all four combinations of Substitution and Frugality here, in plain Python, and the
feeding kernels (feeding.py) only copy the right set into their scratch row.

The kernels turn each shape into options by walking its arrangements with ``next_permutation``,
which needs the shape sorted ascending; the order of the shapes is the order of the EAT options,
which decides ties and random choices. So every set here is built in exactly the order the
kernels used to build it at every feeding:

- a shape is stored sorted ascending; all-zero shapes and duplicates are skipped, the set keeps
  insertion order and holds at most :data:`MAX_SHAPES`;
- the normal set: the standard shape (M4), then Substitution's shapes (F2), then with Frugality
  every shape of the set so far with ``frugality_fewer`` cubes fewer (F1, F3), found by passes
  that each remove one cube in every place from the shapes the last pass added (the first pass
  reads the set it appends to, up to its size before the pass);
- the parasite set: the same passes with ``parasitism_fewer`` cubes fewer (F4), but the first
  pass reads the normal shapes sorted *descending*: the feeding kernel builds the parasite set
  after it has walked every normal shape to its last arrangement, which ``next_permutation``
  leaves in place.
"""

from collections.abc import Sequence

import numpy as np

MAX_SHAPES = 12  # shapes in one set (the default rules need at most 6, F3); house rules may need more
WITH_SUBSTITUTION = 1  # bit of a shape-set index: the player holds Substitution (F2)
WITH_FRUGALITY = 2  # bit of a shape-set index: the player holds Frugality (F1)
N_SHAPE_SETS = 4  # every combination of the two bits

Shape = tuple[int, ...]


def _add_shape(shapes: list[Shape], counts: Sequence[int], limit: int | None) -> None:
    """Append ``counts`` sorted ascending unless it has no cube, is present or the set holds
    ``limit`` shapes already (None: no limit, to count what a set would need)."""
    shape = tuple(sorted(counts))
    if sum(shape) <= 0 or shape in shapes or (limit is not None and len(shapes) >= limit):
        return
    shapes.append(shape)


def _add_reduced(source: list[Shape], shapes: list[Shape], fewer: int, limit: int | None) -> None:
    """Add to ``shapes`` every shape of ``source`` with ``fewer`` cubes removed (F1, F4).

    ``source`` may be ``shapes`` itself (Frugality): the first pass reads it only up to its size
    before the pass; each later pass reads the shapes the pass before added.
    """
    current, lo, hi = source, 0, len(source)
    for _ in range(fewer):
        start = len(shapes)
        for shape in current[lo:hi]:
            for j, count in enumerate(shape):
                if count > 0:
                    reduced = list(shape)
                    reduced[j] -= 1
                    _add_shape(shapes, reduced, limit)
        current, lo, hi = shapes, start, len(shapes)


def normal_shapes(
    standard: Sequence[int],
    substitution: Sequence[Sequence[int]],
    frugality_fewer: int,
    with_substitution: bool,
    with_frugality: bool,
    limit: int | None = MAX_SHAPES,
) -> list[Shape]:
    """The shapes a player eats without a victim (M4; F2 with Substitution, F1/F3 with Frugality),
    at most ``limit`` of them (None: all, as rules validation counts them)."""
    shapes: list[Shape] = []
    _add_shape(shapes, standard, limit)
    if with_substitution:
        for counts in substitution:
            _add_shape(shapes, counts, limit)
    if with_frugality and frugality_fewer > 0:
        _add_reduced(shapes, shapes, frugality_fewer, limit)
    return shapes


def normal_sets(
    standard: Sequence[int],
    substitution: Sequence[Sequence[int]],
    frugality_fewer: int,
    limit: int | None = MAX_SHAPES,
) -> list[list[Shape]]:
    """:func:`normal_shapes` of every shape set, by its index: set ``c`` is a player's holding
    Substitution if ``c & WITH_SUBSTITUTION`` and Frugality if ``c & WITH_FRUGALITY``."""
    genes = [(bool(c & WITH_SUBSTITUTION), bool(c & WITH_FRUGALITY)) for c in range(N_SHAPE_SETS)]
    return [normal_shapes(standard, substitution, frugality_fewer, s, f, limit) for s, f in genes]


def parasite_shapes(
    normal: Sequence[Shape], parasitism_fewer: int, limit: int | None = MAX_SHAPES
) -> list[Shape]:
    """F4: the normal shapes with ``parasitism_fewer`` cubes fewer, read in their last arrangement."""
    last_arrangements = [tuple(sorted(shape, reverse=True)) for shape in normal]
    shapes: list[Shape] = []
    _add_reduced(last_arrangements, shapes, parasitism_fewer, limit)
    return shapes


def _table(sets: list[list[Shape]], k: int, width: int = MAX_SHAPES) -> tuple[np.ndarray, np.ndarray]:
    """Pad the sets into int8 [N_SHAPE_SETS, width, k] and their sizes into int8 [N_SHAPE_SETS]."""
    table = np.zeros((N_SHAPE_SETS, width, k), np.int8)
    sizes = np.zeros(N_SHAPE_SETS, np.int8)
    for c, shapes in enumerate(sets):
        sizes[c] = len(shapes)
        if shapes:
            table[c, : len(shapes)] = shapes
    return table, sizes


def shape_tables(
    standard: Sequence[int],
    substitution: Sequence[Sequence[int]],
    frugality_fewer: int,
    parasitism_fewer: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(meal_shapes, n_meal_shapes, parasite_shapes, n_parasite_shapes) for every shape set.

    Set ``c`` is for a player holding Substitution if ``c & WITH_SUBSTITUTION`` and Frugality if
    ``c & WITH_FRUGALITY``; ``substitution`` is the shapes of this player count with the flag
    substitution_3_1 already applied (F2). Set 0 is the standard shape alone (A1 reads it).
    """
    normal = normal_sets(standard, substitution, frugality_fewer)
    k = len(standard)
    meal, n_meal = _table(normal, k)
    parasite, n_parasite = _table([parasite_shapes(shapes, parasitism_fewer) for shapes in normal], k)
    return meal, n_meal, parasite, n_parasite


# --- Glutton (XG-02) ------------------------------------------------------------------------------

# Glutton's sets: every shape of a set with one cube more in some place, so up to P - 1 <= 5 times
# as many shapes (never capped: :func:`glutton_shapes` keeps them all).
MAX_GLUTTON_SHAPES = 5 * MAX_SHAPES


def glutton_shapes(normal: Sequence[Shape]) -> list[Shape]:
    """XG-02: the shapes of a Glutton owner: each of ``normal`` with one foreign cube more, of any
    colour (any place), duplicates dropped, in the order of ``normal`` then of the place. The
    modifiers add (Frugality's cube fewer and Glutton's cube more, F1 + XG-02), so a Frugality
    shape plus one is the standard size again."""
    shapes: list[Shape] = []
    for shape in normal:
        for j in range(len(shape)):
            bigger = list(shape)
            bigger[j] += 1
            _add_shape(shapes, bigger, None)
    return shapes


def glutton_tables(
    standard: Sequence[int],
    substitution: Sequence[Sequence[int]],
    frugality_fewer: int,
    parasitism_fewer: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(shapes, n_shapes, parasite_shapes, n_parasite_shapes) of a Glutton owner (XG-02) for every
    combination of Substitution and Frugality (the index of :func:`shape_tables`): set c's normal
    shapes enlarged by one cube (:func:`glutton_shapes`), and those with Parasitism's cubes fewer
    (F4: the modifiers add, so a parasite Glutton may eat the plain pattern). Set 0 is Glutton's
    standard pattern, the one A1 asks for."""
    bigger = [
        glutton_shapes(normal)[:MAX_GLUTTON_SHAPES]
        for normal in normal_sets(standard, substitution, frugality_fewer, limit=None)
    ]
    fewer = [parasite_shapes(shapes, parasitism_fewer, limit=MAX_GLUTTON_SHAPES) for shapes in bigger]
    k = len(standard)
    return (*_table(bigger, k, MAX_GLUTTON_SHAPES), *_table(fewer, k, MAX_GLUTTON_SHAPES))


# --- Arrangement codes: every meal option of a shape set, listed once at load -----------------------

# The feeding kernels once walked each shape's distinct arrangements with ``next_permutation`` at
# every meal (a fifth of the 6-player engine's time, issue 24). The walk depends on the rules only,
# so it is done here: every arrangement of every shape of a set, in the walk's order (ascending
# lexicographic from the ascending shape: the order of the EAT options), packed into one integer
# with CODE_BITS per foreign colour. A meal then tests ``fits`` with one subtraction against the
# space's cubes packed the same way (feeding._food_code): each field carries a guard bit that a
# count above the cubes borrows away, and no borrow crosses a field.
CODE_BITS = 8
CODE_MAX = (1 << (CODE_BITS - 1)) - 1  # a count or a space's cubes of one colour, as packed
MAX_CODE_FIELDS = 6  # foreign colours a code packs (the engine plays up to 6 colours: 5, TB1's 3 + 0)
GUARDS = sum(1 << (CODE_BITS * j + CODE_BITS - 1) for j in range(MAX_CODE_FIELDS))
CODE_FIELDS_BITS = CODE_BITS * MAX_CODE_FIELDS  # the bits a code's fields take (the rest: free)
CODE_FIELDS = (1 << CODE_FIELDS_BITS) - 1
# The code tables' first index: which shapes a set's arrangements come from.
MEAL_TABLE = 0  # meal_shapes (M4, F1-F3)
PARASITE_TABLE = 1  # parasite_shapes (F4)
ONE_MORE_TABLE = 2  # glutton_shapes: each shape with one foreign cube more (XG-02)
ONE_MORE_PARASITE_TABLE = 3  # glutton_parasite_shapes (XG-02 with F4)
N_CODE_TABLES = 4


def pack(counts: Sequence[int]) -> int:
    """Cube counts per foreign colour as one code: count j in bits CODE_BITS * j and up."""
    if len(counts) > MAX_CODE_FIELDS or any(not 0 <= c <= CODE_MAX for c in counts):
        raise ValueError(f"a meal shape packs at most {MAX_CODE_FIELDS} counts in 0..{CODE_MAX}: {counts}")
    return sum(int(c) << (CODE_BITS * j) for j, c in enumerate(counts))


def arrangements(shape: Sequence[int]) -> list[Shape]:
    """Every distinct arrangement of ``shape`` in the order ``next_permutation`` walks them from
    the ascending shape: ascending lexicographic."""
    found: set[Shape] = set()

    def place(rest: list[int], done: tuple[int, ...]) -> None:
        if not rest:
            found.add(done)
            return
        for i in range(len(rest)):
            place(rest[:i] + rest[i + 1 :], (*done, rest[i]))

    place(list(shape), ())
    return sorted(found)


def code_tables(tables: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """(codes int64 [N_CODE_TABLES, N_SHAPE_SETS, M], counts int16 [N_CODE_TABLES, N_SHAPE_SETS]):
    for each (shapes, sizes) of ``tables`` (in *_TABLE order) and each shape set, the codes of
    every arrangement of every shape, shape by shape in the set's order (the EAT options' order)."""
    lists = [
        [[pack(a) for s in range(sizes[c]) for a in arrangements(table[c, s])] for c in range(N_SHAPE_SETS)]
        for table, sizes in tables
    ]
    width = max(1, max(len(codes) for sets in lists for codes in sets))
    out = np.zeros((len(lists), N_SHAPE_SETS, width), np.int64)
    counts = np.zeros((len(lists), N_SHAPE_SETS), np.int16)
    for t, sets in enumerate(lists):
        for c, codes in enumerate(sets):
            counts[t, c] = len(codes)
            out[t, c, : len(codes)] = codes
    return out, counts
