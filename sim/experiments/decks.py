"""``--decks K`` of the paired experiments: deck plans as an arm provider (issue 35.1).

A game with the ``deck_plans`` capability draws an experiment's decks (Game.deck_plan: a
:class:`DeckPlan`, deck 0 the baseline rules' own, with the games each deck plays) and says how
one of its runs plays another deck. The stack does the rest, the same for every game: it plays
every arm over the same decks and blocks of games (:meth:`DeckPlan.player`), so that game i is
the same deal on the same deck in every arm (common random numbers hold per deck), and it splits
every arm's rows by deck for the per-deck tables (:meth:`DeckPlan.tables`).
"""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sim.errors import UserError

if TYPE_CHECKING:  # arms imports polars: a deck plan is read without it (verdict's plan)
    from sim.experiments.arms import ArmPlayer
    from sim.game import Game


def check_decks(decks: int, games: int) -> None:
    """``--decks`` (V6): a positive number of decks, each with two games of every arm at least
    (a paired interval per deck); one-line user errors, raised before any work."""
    if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
        raise UserError(f"--decks: expected a positive number of decks (1: the rules' own deck), got {decks}")
    if decks > 1 and games < 2 * decks:
        raise UserError(
            f"--games: expected at least {2 * decks} games per arm with --decks {decks} (two a deck), "
            f"got {games}"
        )


@dataclass
class DeckPlan:
    """The decks every arm of an experiment is played over (Game.deck_plan): the decks (deck 0
    the baseline rules' own), the games each deck plays (``blocks``: contiguous (first, count)),
    the description of the family they were drawn from and each deck's label. A game's plan says
    how one of its runs plays another deck (:meth:`on_deck`) and makes one run of a run on every
    deck (:meth:`joined`)."""

    decks: list[Any]
    blocks: list[tuple[int, int]]
    family: str
    labels: list[str]

    @property
    def k(self) -> int:
        return len(self.decks)

    def on_deck(self, run: Any, deck: Any) -> Any:
        """``run`` (a run of Game.new_run) with ``deck`` in its rules: the same strategies, seats
        and seed."""
        raise NotImplementedError

    def joined(self, runs: list[Any]) -> Any:
        """One run (the runner's GameAdapter) whose games of block j are ``runs[j]``'s."""
        raise NotImplementedError

    def over(self, run: Any) -> Any:
        """An arm's ``run`` over every deck: as it is on deck 0, :meth:`on_deck` on the others."""
        return self.joined([run, *(self.on_deck(run, deck) for deck in self.decks[1:])])

    def player(self, play: "ArmPlayer") -> "ArmPlayer":
        """``play`` with every arm played over the decks."""

        def over_decks(run: Any, out: Path, games: int, description: str) -> Any:
            return play(self.over(run), out, games, description)

        return over_decks

    def lines(self) -> list[str]:
        """The header lines naming the family and every deck with its games."""
        out = [f"{self.k} decks, every arm over the same ones: {self.family}"]
        for j, ((first, count), label) in enumerate(zip(self.blocks, self.labels, strict=True)):
            own = " (the rules' own deck)" if j == 0 else ""
            out.append(f"deck {j}{own}: {label}; games {first}..{first + count - 1}")
        return out

    def tables(self, tabulate: Callable[..., Any], rows: list[Any]) -> Any:
        """``tabulate`` (a paired table) on each deck's games of every arm's ``rows`` (one frame
        an arm, with a ``game`` column), stacked with ``deck`` and ``deck_label`` columns first."""
        import polars as pl

        parts = []
        for j, ((first, count), label) in enumerate(zip(self.blocks, self.labels, strict=True)):
            mine = [r.filter(pl.col("game").is_between(first, first + count - 1)) for r in rows]
            table = tabulate(*mine)
            parts.append(table.select(pl.lit(j).alias("deck"), pl.lit(label).alias("deck_label"), pl.all()))
        return pl.concat(parts)


@dataclass(frozen=True)
class DeckArms:
    """``--decks K`` as the stack hands it to a game's paired experiments (PairedExperiments):
    how many decks, and the game that draws them (Game.deck_plan)."""

    game: "Game | None"
    k: int = 1

    def check(self, games: int) -> None:
        """:func:`check_decks` of ``games`` games an arm."""
        check_decks(self.k, games)

    def plan(self, rules: Any, games: int, players: int, seating: str, seed: int) -> DeckPlan | None:
        """The decks drawn from the baseline ``rules`` with ``seed``; None for one deck (the rules'
        own: the experiment without decks, byte for byte)."""
        if self.k <= 1:
            return None
        draw = self.game.deck_plan  # type: ignore[union-attr,attr-defined]
        return draw(rules, self.k, games, players, seating, seed)
