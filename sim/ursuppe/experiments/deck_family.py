"""V6: the plausible environment decks, and how an experiment's games are spread over them.

Ten of the eleven environment cards are unknown (V5: only (6,W) is known), so a verdict that
depends on the deck must hold over a family of plausible decks. The family's bounds are rules data
(``[environment.family]`` of default_rules.toml, a PLACEHOLDER like the deck, validated by
sim/ursuppe/rules/book.py): ``cards`` cards, the ``fixed`` ones and the others with ozone in
``ozone_low..ozone_high``, ``without_drift`` of those without drift (V1), the rest drifting so that
each of N, E, S, W is the drift of at least ``min_per_direction`` cards, the fixed cards counted.

``soup compare --decks K`` and ``soup ablate --decks K`` play every arm over the same K decks
(the paired stack's deck plans, sim.experiments.decks): :func:`deck_plan` is the game's plan
(Game.deck_plan), :func:`plausible_decks` draws its decks, :func:`deck_overrides` turns one into
rules overrides, :func:`deck_blocks` says which games play which deck, and a
:class:`DeckFamilyRun` plays an arm's games over them. Plain Python: no kernels, nothing here
loads the engine.
"""

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sim.experiments.decks import DeckPlan
from sim.runner import RunAdapter
from sim.ursuppe.rules.book import RuleBook, RulesError

if TYPE_CHECKING:
    import pyarrow as pa

    from sim.ursuppe.simulation import UrsuppeRun

Card = tuple[int, str]  # (ozone, drift) in the rules file's spelling: "N", "E", "S", "W" or "none"
Deck = tuple[Card, ...]

DIRECTIONS: tuple[str, ...] = ("N", "E", "S", "W")
NO_DRIFT = "none"
_DRIFT_ORDER = {d: i for i, d in enumerate((*DIRECTIONS, NO_DRIFT))}
# Draws of a deck already drawn (or the book's own) before the family counts as too small for k
# distinct decks: the default family has billions of members, so this is reached only by bounds
# that admit a handful.
_MAX_REPEATS = 1000


def _family(book: RuleBook) -> dict[str, Any]:
    return book.data["environment"]["family"]


def _deck(cards: Any) -> Deck:
    """A deck as a tuple of (ozone, drift) pairs, from rules data or any sequence of pairs."""
    out = []
    for card in cards:
        if isinstance(card, dict):
            out.append((int(card["ozone"]), str(card["drift"])))
        else:
            ozone, drift = card
            out.append((int(ozone), str(drift)))
    return tuple(out)


def _where(book: RuleBook) -> str:
    """The rules files of ``book`` for an error message: the house-rules layers, or the default."""
    layers = [Path(s).name for s in book.sources[1:]]
    return " + ".join(layers) if layers else Path(book.sources[0]).name


def _key(deck: Deck) -> Deck:
    """A deck as a multiset (V2 shuffles it, so the order in the rules file makes no other game)."""
    return tuple(sorted(deck, key=lambda c: (c[0], _DRIFT_ORDER.get(c[1], 9))))


def family_violation(book: RuleBook, deck: Any) -> str | None:
    """Why ``deck`` is not a member of the book's V6 family, or None if it is one."""
    fam = _family(book)
    cards = list(_deck(deck))
    if len(cards) != fam["cards"]:
        return f"{len(cards)} cards, the family has {fam['cards']}"
    for card in _deck(fam["fixed"]):
        if card not in cards:
            return f"the fixed card {card_label(card)} is missing"
        cards.remove(card)  # the fixed cards taken out: the rest are the drawn ones
    low, high = fam["ozone_low"], fam["ozone_high"]
    outside = [card_label(c) for c in cards if not low <= c[0] <= high]
    if outside:
        return f"ozone outside {low}..{high}: {' '.join(outside)}"
    without = sum(c[1] == NO_DRIFT for c in cards)
    if without != fam["without_drift"]:
        return f"{without} drawn cards without drift, the family has {fam['without_drift']}"
    every = list(_deck(fam["fixed"])) + cards
    for d in DIRECTIONS:
        count = sum(c[1] == d for c in every)
        if count < fam["min_per_direction"]:
            return f"{count} cards drift {d}, the family needs at least {fam['min_per_direction']}"
    return None


def family_description(book: RuleBook) -> str:
    """One line naming the V6 family's bounds, e.g. for a manifest or a report header."""
    fam = _family(book)
    fixed = " ".join(card_label(c) for c in _deck(fam["fixed"])) or "none"
    note = " (PLACEHOLDER)" if fam["placeholder"] else ""
    return (
        f"V6 deck family{note}: {fam['cards']} cards, fixed {fixed}, the others ozone "
        f"{fam['ozone_low']}..{fam['ozone_high']}, {fam['without_drift']} without drift, each of N E S W "
        f"on at least {fam['min_per_direction']} cards"
    )


def _direction_counts(book: RuleBook, drifting: int, rng: np.random.Generator) -> list[int]:
    """How many of the ``drifting`` drawn cards drift N, E, S, W: each sequence of directions
    meeting min_per_direction (the fixed cards counted) equally likely, as if every card's
    direction were drawn uniformly and the draw repeated until the deck is a member. The count
    vectors are enumerated with their number of orderings (a multinomial coefficient) instead, so
    no draw is rejected however tight the bounds are."""
    fam = _family(book)
    fixed = _deck(fam["fixed"])
    need = [max(0, fam["min_per_direction"] - sum(c[1] == d for c in fixed)) for d in DIRECTIONS]
    vectors, weights = [], []
    for n in range(need[0], drifting + 1):
        for e in range(need[1], drifting - n + 1):
            for s in range(need[2], drifting - n - e + 1):
                w = drifting - n - e - s
                if w >= need[3]:
                    vectors.append((n, e, s, w))
                    weights.append(
                        math.factorial(drifting)
                        // (math.factorial(n) * math.factorial(e) * math.factorial(s) * math.factorial(w))
                    )
    p = np.asarray(weights, dtype=np.float64)
    return list(vectors[int(rng.choice(len(vectors), p=p / p.sum()))])


def _draw(book: RuleBook, rng: np.random.Generator) -> Deck:
    """One member of the family: the fixed cards, then the drawn ones in ozone order. Ozone values
    are independent and uniform in ozone_low..ozone_high; the first ``without_drift`` of them get
    no drift (the values are exchangeable, so which ones does not matter) and the others the
    directions of :func:`_direction_counts` in a random order."""
    fam = _family(book)
    fixed = _deck(fam["fixed"])
    drawn = fam["cards"] - len(fixed)
    ozone = rng.integers(fam["ozone_low"], fam["ozone_high"] + 1, size=drawn)
    drifting = drawn - fam["without_drift"]
    counts = _direction_counts(book, drifting, rng)
    directions = [d for d, c in zip(DIRECTIONS, counts, strict=True) for _ in range(c)]
    directions = [directions[i] for i in rng.permutation(drifting)]
    drifts = [NO_DRIFT] * fam["without_drift"] + directions
    return fixed + _key(tuple((int(o), d) for o, d in zip(ozone, drifts, strict=True)))


def plausible_decks(book: RuleBook, k: int, seed: int) -> list[tuple[tuple[int, str], ...]]:
    """k decks, each 11 (ozone, drift) pairs in rules-file spelling ("N","E","S","W","none").

    Deck 0 is always the book's own deck, in its listed order; it must be a member of the book's
    V6 family (``environment.family``), else a one-line RulesError names the deck and why (a
    house rule that changes the deck outside the family cannot be checked over it). Decks
    1..k-1 are drawn from the V6 family with ``numpy.random.default_rng(seed)`` alone
    (deterministic, independent of anything else), each distinct from every earlier one as a
    multiset of cards (the order of a deck only relabels its shuffles, V2); a family too small
    for k distinct decks is a RulesError. A drawn deck lists the fixed cards first, then the
    others by ozone (and N, E, S, W, none)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise RulesError(f"decks: expected a positive number of decks, got {k!r}")
    own = _deck(book.data["environment"]["deck"])
    why = family_violation(book, own)
    if why is not None:
        raise RulesError(
            f"{_where(book)}: environment.deck: expected a member of environment.family (V6) to be "
            f"checked over plausible decks, got {deck_label(own)}: {why}"
        )
    rng = np.random.default_rng(seed)
    decks, seen, repeats = [own], {_key(own)}, 0
    while len(decks) < k:
        deck = _draw(book, rng)
        if _key(deck) in seen:
            repeats += 1
            if repeats > _MAX_REPEATS:
                raise RulesError(
                    f"{_where(book)}: environment.family: expected bounds that admit {k} distinct decks, "
                    f"found only {len(decks)} in {_MAX_REPEATS} repeated draws"
                )
            continue
        seen.add(_key(deck))
        decks.append(deck)
    return decks


def deck_overrides(deck: Any) -> dict[str, Any]:
    """``{"environment": {"deck": [{"ozone": 6, "drift": "W"}, ...]}}``: the rules overrides that
    play ``deck`` (for ``load_rules(rules_file, overrides=...)``). Arrays replace whole when
    rules merge, so the deck replaces a house-rules file's deck and keeps every other key of it."""
    return {"environment": {"deck": [{"ozone": o, "drift": d} for o, d in _deck(deck)]}}


def deck_blocks(n_games: int, k: int, cycle: int) -> list[tuple[int, int]]:
    """How the n games of an arm are assigned to k decks: k contiguous blocks of game indices
    (first, count), block j plays deck j; each block a multiple of `cycle` (the seating cycle,
    e.g. P! for rotate seating) where n allows, so that every deck sees every seating equally;
    k == 1 gives [(0, n_games)].

    With n >= k * cycle the n // cycle whole cycles are shared out as evenly as possible, the
    first blocks taking one more, and the n % cycle games left over go to the last block (the
    only block that is then not a multiple of ``cycle``). With fewer games the blocks are as
    even as possible (each at least one game). Every block starts on a multiple of ``cycle``
    wherever the blocks before it are whole cycles."""
    if k < 1 or cycle < 1 or n_games < k:
        raise ValueError(
            f"deck_blocks: expected 1 <= k <= n_games and cycle >= 1, got n={n_games} k={k} cycle={cycle}"
        )
    if n_games >= k * cycle:
        units, rest = divmod(n_games // cycle, k)
        counts = [(units + (1 if j < rest else 0)) * cycle for j in range(k)]
        counts[-1] += n_games % cycle
    else:
        base, rest = divmod(n_games, k)
        counts = [base + (1 if j < rest else 0) for j in range(k)]
    blocks, first = [], 0
    for count in counts:
        blocks.append((first, count))
        first += count
    return blocks


def card_label(card: Card) -> str:
    """``(6, "W")`` -> ``6W``; a card without drift ``11-`` (as RuleBook.deck_description)."""
    ozone, drift = card
    return f"{ozone}{'-' if drift == NO_DRIFT else drift}"


def deck_label(deck: Any) -> str:
    """Short text, e.g. "6W 8E 9S ...": every card in the deck's order (``-``: no drift)."""
    return " ".join(card_label(c) for c in _deck(deck))


@dataclass
class DeckFamilyRun(RunAdapter):
    """A run played over several environment decks (V6; ``soup compare/ablate --decks K``, the
    runner's GameAdapter): the games of block j of ``blocks`` (first, count) are played by
    ``runs[j]``, the same run but for its rules' deck (:func:`plausible_decks`). A game is
    still a pure function of (rules, strategies, seating, seed, game index), so the rows of game
    i are those ``runs[j]`` alone gives it, whatever the chunks. Each row's ``rules_id`` is its
    deck's rules; the spec is deck 0's (the rules' own deck) plus the family and every deck."""

    runs: list["UrsuppeRun"]
    blocks: list[tuple[int, int]]
    family: str  # family_description of the rules the decks were drawn from

    def spec(self) -> dict[str, Any]:
        first = self.runs[0]
        spec = first.spec()
        spec["placeholders"] = first.rulebook.placeholders(first.players, first.variant, decks=len(self.runs))
        spec["deck_family"] = self.family
        spec["decks"] = [
            {
                "deck": deck_label(run.rulebook.data["environment"]["deck"]),
                "rules_id": run.rulebook.rules_id,
                "first_game": start,
                "games": count,
            }
            for run, (start, count) in zip(self.runs, self.blocks, strict=True)
        ]
        return spec

    def play_chunk(self, first: int, count: int, threads: int) -> "pa.Table":
        """Games ``first .. first + count - 1``: each deck's part of the range by its run, in order."""
        import pyarrow as pa  # here: the deck plans above are read without it (verdict's plan)

        parts = []
        for run, (start, games) in zip(self.runs, self.blocks, strict=True):
            lo, hi = max(first, start), min(first + count, start + games)
            if lo < hi:
                parts.append(run.play_chunk(lo, hi - lo, threads))
        return parts[0] if len(parts) == 1 else pa.concat_tables(parts)


class FamilyPlan(DeckPlan):
    """The decks of ``--decks K`` (:func:`deck_plan`): an arm's run plays a deck with the deck as
    its rules' environment.deck, every other key of its rules kept (:func:`deck_overrides`)."""

    def on_deck(self, run: "UrsuppeRun", deck: Any) -> "UrsuppeRun":
        from dataclasses import replace

        return replace(run, rulebook=run.rulebook.derive(deck_overrides(deck)))

    def joined(self, runs: list["UrsuppeRun"]) -> DeckFamilyRun:
        return DeckFamilyRun(runs, self.blocks, self.family)


def deck_plan(book: RuleBook, decks: int, games: int, players: int, seating: str, seed: int) -> FamilyPlan:
    """The --decks K plan of an experiment whose baseline rules are ``book`` (Game.deck_plan): K
    decks drawn with the run's seed (:func:`plausible_decks`), games in blocks of whole seating
    cycles (rotate: the S5 design's block, so every deck sees every seating equally; random: 1)."""
    from sim.ursuppe.rules.seating import rotate_block

    chosen = plausible_decks(book, decks, seed)
    cycle = rotate_block(players) if seating == "rotate" else 1
    blocks = deck_blocks(games, decks, cycle)
    return FamilyPlan(chosen, blocks, family_description(book), [deck_label(d) for d in chosen])
