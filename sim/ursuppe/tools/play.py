"""One game played and told round by round (``soup play``)."""

from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.ursuppe.engine import batch as batch_mod
from sim.ursuppe.rules.book import VARIANT_PLAYER_OF, RuleBook
from sim.ursuppe.rules.colours import colour_assignment, player_positions
from sim.ursuppe.tools.trace import board_text, describe, events_as_dicts
from strategies.ursuppe.params import Strategy, parameter_table

DOUBLE_PLAYS = ("double1", "double2")  # two colours a player (TA1, TB3)
PHASE_TITLES = (
    "Setup",
    "Phase 1: movement and feeding",
    "Phase 2: environment",
    "Phase 3: new genes",
    "Phase 4: cell division",
    "Phase 5: deaths",
    "Phase 6: scoring",
    "End of round",
)


@dataclass
class PlayedGame:
    players: int
    seed: int
    events: list[dict[str, Any]]
    boards: list[str]  # the board after setup, then after each round
    rounds: int
    winner: int
    final_positions: list[int]
    rules_id: str
    strategies: list[str]  # per player (colour) index
    start_spaces: list[int]  # per player: the seat (S5)
    deck: str  # the rules' deck (RuleBook.deck_description)
    deck_order: list[int]  # this game's order of the deck's cards (indices into the rules' deck)
    variant: str | None = None  # a 2-player variant: seats lists every colour (TD1: the dummy's too)

    def owner(self, colour: int) -> int | None:
        """The player a colour belongs to in a 2-player variant (TA2, TB3; None: the dummy, TD1)."""
        q = VARIANT_PLAYER_OF[self.variant][colour] if self.variant else colour
        return None if q < 0 else q

    def seat_json(self, colour: int) -> dict[str, Any]:
        seat = {
            "player": colour,
            "strategy": self.strategies[colour],
            "start_space": self.start_spaces[colour],
        }
        if self.variant:
            seat["owner"] = self.owner(colour)
        return seat

    def as_json(self) -> dict[str, Any]:
        """``winner``, ``final_positions``, ``seats`` and the events name colours; in a 2-player
        variant a seat's ``owner`` is the player that colour belongs to, and ``winner`` is the
        winning player's first colour (TA4: in double play I by the worse of its two markers)."""
        return {
            "players": self.players,
            "variant": self.variant,
            "seed": self.seed,
            "rounds": self.rounds,
            "winner": self.winner,
            "final_positions": self.final_positions,
            "seats": [self.seat_json(c) for c in range(len(self.strategies))],
            "deck": self.deck,
            "deck_order": self.deck_order,
            "events": self.events,
            "rules_id": self.rules_id,
        }

    def header(self) -> list[str]:
        """What makes this game this game (issue 21: the text named neither seed nor strategies,
        so a game someone pasted could not be played again): seed, players, rules, deck, seats."""
        who = f"{self.players} players" + (f", variant {self.variant}" if self.variant else "")
        seats = ", ".join(
            f"P{p} {name} ({self._owned(p)}start space {space})"
            for p, (name, space) in enumerate(zip(self.strategies, self.start_spaces, strict=True))
        )
        return [
            f"soup play: seed {self.seed}, {who}, rules {self.rules_id}",
            f"seats: {seats}",
            f"deck: {self.deck}",
            "",
        ]

    def _owned(self, colour: int) -> str:
        """'player 1, ' before a double play colour's start space: whose colour it is (TA2, TB3)."""
        return f"player {self.owner(colour)}, " if self.variant in DOUBLE_PLAYS else ""

    def result_line(self) -> str:
        """The end event's line; in a double play it names the winning player (TA4: each player's
        worse marker, the rule of soup simulate's rows; TB3: one marker a player)."""
        end = next(e for e in reversed(self.events) if e["type"] == "end")
        if self.variant not in DOUBLE_PLAYS:
            return describe(end)
        winner = self.owner(end["winner"])
        colours = " and ".join(f"P{c}" for c in range(len(self.strategies)) if self.owner(c) == winner)
        results = player_positions(np.array([self.final_positions]), self.variant)[0]
        marker = "worse marker" if self.variant == "double1" else "marker"
        return (
            f"game over ({end['reason'].replace('_', ' ')}): player {winner} wins ({colours}: {marker} "
            f"{results[winner]} against {results[1 - winner]})"
        )

    def as_text(self) -> str:
        out: list[str] = self.header()
        by_round: dict[int, list[dict[str, Any]]] = {}
        for e in self.events:
            by_round.setdefault(e["round"] if e["phase"] else 0, []).append(e)
        for r in range(0, self.rounds + 1):
            out.append("=" * 72)
            out.append("Setup" if r == 0 else f"Round {r}")
            out.append("=" * 72)
            phase = -1
            for e in by_round.get(r, []):
                if e["phase"] != phase:
                    phase = e["phase"]
                    if r:
                        out.append(f"-- {PHASE_TITLES[phase]}")
                out.append("  " + (self.result_line() if e["type"] == "end" else describe(e)))
            out.append("")
            out.append(self.boards[r])
            out.append("")
        return "\n".join(out)


def play_game(
    rulebook: RuleBook,
    players: int,
    seed: int,
    strategies: list[Strategy],
    check_invariants: bool = True,
    variant: str | None = None,
) -> PlayedGame:
    """Play game 0 of ``seed`` with random seating, keeping the log and a board per round. With
    a 2-player ``variant`` the colours are the variant's (TD1: the dummy is the last colour,
    named "dummy"; it decides by its fixed rules, TD2)."""
    rules = rulebook.for_players(players, variant)
    colours = rules.players
    b = batch_mod.new_batch(
        rules,
        parameter_table(strategies),
        colour_assignment(np.minimum(np.arange(players), len(strategies) - 1)[None, :], variant)[0],
        seed,
        np.array([0]),
        log_events=True,
        check_invariants=check_invariants,
    )
    batch_mod.setup(b)
    coordinates = rulebook.data["board"]["coordinates"]
    boards = [board_text(b.state, 0, rules, coordinates)]
    batch_mod.play_rounds(
        b, after_round=lambda done: boards.append(board_text(done.state, 0, rules, coordinates))
    )
    err = batch_mod.first_error(b)
    if err is not None:
        raise batch_mod.GameError(f"game 0 of seed {seed}: {batch_mod.describe_error(err[1])}")
    st, wk = b.state, b.workspace
    events = events_as_dicts(wk.events[0, : wk.n_events[0]], colours)
    names = [strategies[int(i)].name for i in st.strategy[0]]
    if rules.dummy >= 0:
        names[rules.dummy] = "dummy"
    return PlayedGame(
        players,
        seed,
        events,
        boards,
        int(st.round[0]),
        int(st.winner[0]),
        [int(x) for x in st.score[0]],
        rulebook.rules_id,
        names,
        [int(x) for x in st.seat[0]],
        rulebook.deck_description(),
        [int(x) for x in st.card_index[0, : st.n_cards[0]]],
        variant,
    )
