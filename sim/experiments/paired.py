"""soup compare, soup ablate and soup tournament for every game (issue 35.1): one stack.

Every game's experiment goes through these functions: its arms are built from the game's rules
(Game.load_rules, Game.ablation), its options checked against the capabilities the game declares
(sim.game.CAPABILITIES: an option a game lacks the capability for is refused in one line naming
the games that have it), its ``--out`` checked before anything plays (a bad one leaves nothing
behind) and every arm played by one :data:`~sim.experiments.arms.ArmPlayer` (the command line's:
a progress bar, resume, and Ctrl-C saying what the whole experiment kept). What a game adds comes
in through its capabilities:

- ``paired_metrics`` (:class:`PairedExperiments`; Ursuppe's sim.ursuppe.experiments.arms): its
  own paired tables (every metric paired, Holm families, ablate --each, Bradley-Terry ratings);
- ``deck_plans`` (``--decks``: Game.deck_plan): the decks every arm is played over, an arm
  provider of the stack (sim.experiments.decks: the stack plays every arm over the game's decks
  and splits the rows by deck), handed to the game's paired experiments as a
  :class:`~sim.experiments.decks.DeckArms`;
- ``retune`` (``--retune``: Game.retune_settings): a pre-step re-tuning every arm's strategies,
  which its paired experiments apply;
- ``ablation``: the two arms of an ablation (Game.ablation).

A game without paired metrics gets the win rates by each of its GameInfo.paired_by columns,
paired by game (sim.experiments.compare), and a round robin's win-rate matrix with its
equilibrium (sim.experiments.tournament).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from sim.errors import UserError
from sim.experiments.arms import (
    DEFAULT_RULES,
    Arm,
    ArmPlayer,
    arm_run,
    check_games,
    check_out,
    claim,
    rules_arms,
)
from sim.experiments.decks import DeckArms
from sim.game import Game, get, names, strategy_list, supports


class PairedExperiments(Protocol):
    """What a game with the ``paired_metrics`` capability gives (Game.paired_experiments()): its
    own compare, ablate and tournament, played by ``play``; each returns a result with ``lines``
    and ``files`` (sim.ursuppe.experiments.arms: Comparison, Tournament)."""

    def compare(self, *arguments: Any, **options: Any) -> Any:
        """(rules, players, games, strategies, pool, seating, seed, out, play; variant, retune,
        decks: a DeckArms): as :func:`compare`."""

    def ablate(self, *arguments: Any, **options: Any) -> Any:
        """(genes, each, rules, players, games, strategies, pool, seating, seed, out, play;
        variant, retune, decks: a DeckArms): as :func:`ablate`."""

    def tournament(self, *arguments: Any, **options: Any) -> Any:
        """(strategies, players, games, rules, seed, anchor, out, play; plot, variant): as
        :func:`tournament`."""


@dataclass
class WinRates:
    """A paired experiment of a game without paired metrics: its win-rate table by each of
    GameInfo.paired_by (sim.experiments.compare.paired_win_rates), the line describing it and the
    file written."""

    out: Path
    tables: dict[str, Any]
    lines: list[str]
    files: list[Path]
    warning: str | None = None


@dataclass
class RoundRobin:
    """A round robin of a game without paired metrics: the win-rate matrix (row strategy's share
    of the pair's wins) and the meta-game's equilibrium (analysis.equilibrium)."""

    out: Path
    names: list[str]
    matrix: Any  # float ndarray [k, k]
    equilibrium: Any  # strategy, weight, regret
    lines: list[str]
    files: list[Path]


def having(capability: str) -> str:
    """The registered games that declare ``capability``, comma-separated."""
    return ", ".join(n for n in names() if supports(get(n), capability)) or "no game"


def require(game: Game, capability: str, option: str, why: str = "only with --game {having}") -> None:
    """A one-line UserError unless ``game`` declares ``capability`` for ``option``: ``why``, with
    ``{having}`` the games that declare it, then which capability the game lacks."""
    if not supports(game, capability):
        lacks = capability.replace("_", " ")
        raise UserError(
            f"{option}: {why.format(having=having(capability))} ({game.info.name} gives no {lacks})"
        )


def check_options(game: Game, retune: Any = None, decks: int = 1, anchor: str | None = None) -> None:
    """The options of the paired experiments a game gives by a capability, refused without it."""
    for given, capability, option in (
        (retune is not None, "retune", "--retune"),
        (decks != 1, "deck_plans", "--decks"),
        (anchor is not None, "paired_metrics", "--anchor"),
    ):
        if given:
            require(game, capability, option)


@dataclass(frozen=True)
class Setup:
    """What every arm of an experiment shares: players (with ``variant``), games per arm (per pair
    in a round robin), the seed, and who plays: ``strategies`` (one per player) or a ``pool``
    (default: the game's mix), seated by ``seating``."""

    players: int
    games: int
    seed: int
    strategies: str | None = None
    pool: str | None = None
    seating: str = "rotate"
    variant: str | None = None

    def arm(self, label: str, rules: Any) -> Arm:
        return Arm(label, rules, self.strategies, self.pool, self.seating)

    def own(self, game: Game) -> tuple[Any, ...]:
        """The arguments a game's own compare and ablate (PairedExperiments) take after their
        first ones: players, games, strategies, the pool (default: the game's mix), seating, seed."""
        pool = game.info.default_pool if self.pool is None else self.pool
        return (self.players, self.games, self.strategies, pool, self.seating, self.seed)

    def out(self, command: str, game: Game, what: str = "") -> Path:
        """The default directory of ``command``'s experiment on ``game``."""
        return (
            Path("results") / f"{command}-{game.info.name}{what}-{self.players}p-seed{self.seed}-{self.games}"
        )


def _check_arms(game: Game, arms: list[Arm], setup: Setup) -> None:
    """Every arm's run built once before anything is written: its bad input (players, variant,
    strategies) a one-line UserError that leaves no directory behind."""
    for arm in arms:
        arm_run(game, arm, setup.players, setup.seed, setup.variant)


def _rules(game: Game, path: str | Path | None) -> Any:
    return game.load_rules([] if path is None else [Path(path)])


def compare(
    game: Game, rules: list[str] | None, setup: Setup, out: Path | None, play: ArmPlayer, retune: Any = None,
    decks: int = 1,
) -> Any:  # fmt: skip
    """Two rule sets (``rules``: B against the default rules, or A and B) on common random
    numbers, paired by game (B - A); ``retune`` (Game.retune_settings) and ``decks`` with the
    game's capabilities."""
    check_options(game, retune, decks)
    if supports(game, "paired_metrics"):
        return game.paired_experiments().compare(  # type: ignore[attr-defined]
            rules, *setup.own(game), out, play,
            variant=setup.variant, retune=retune, decks=DeckArms(game, decks),
        )  # fmt: skip
    paths = rules_arms(rules)
    a, b = (_rules(game, p) for p in paths)
    said = [f"{p or DEFAULT_RULES} ({game.rules_line(r)})" for p, r in zip(paths, (a, b), strict=True)]
    arms = [setup.arm("rules A", a), setup.arm("rules B", b)]
    header = f"A: {said[0]}, B: {said[1]}"
    return win_rates(game, "compare", arms, header, setup, out or setup.out("compare", game), play)


def ablate(
    game: Game, remove: list[str], each: bool, rules: Path | None, setup: Setup, out: Path | None,
    play: ArmPlayer, retune: Any = None, decks: int = 1, actions: Sequence[str] = (),
) -> Any:  # fmt: skip
    """The game with its parts ``remove`` (--gene) and ``actions`` (--action) taken out
    (Game.ablation), or with ``each`` every gene in turn (paired metrics only), paired by game
    against the game as it is. A game with paired metrics ablates genes only."""
    check_options(game, retune, decks)
    if each:
        why = "an experiment of {having}'s gene deck; name what to remove with --gene or --action"
        require(game, "paired_metrics", "--each", why)
    remove = [*remove, *actions]
    if supports(game, "paired_metrics"):
        if actions:
            raise UserError(f"--action: {game.info.name} removes genes (--gene) only")
        return game.paired_experiments().ablate(  # type: ignore[attr-defined]
            remove or None, each, rules, *setup.own(game), out, play,
            variant=setup.variant, retune=retune, decks=DeckArms(game, decks),
        )  # fmt: skip
    a, b, header = game.ablation(_rules(game, rules), remove)  # type: ignore[attr-defined]
    out = out or setup.out("ablate", game, "-" + "-".join(remove))
    return win_rates(game, "ablate", [setup.arm("A", a), setup.arm("B", b)], header, setup, out, play)


def win_rates(
    game: Game, command: str, arms: list[Arm], header: str, setup: Setup, out: Path, play: ArmPlayer
) -> WinRates:
    """Arms A and B (into ``out``/a and ``out``/b) on common random numbers, their win rates
    paired by game by each of GameInfo.paired_by, written to ``out``/comparison.md."""
    from analysis.tables import frame_markdown, write_text_atomic
    from sim.experiments.compare import compare_tables

    check_games(setup.games, 2, "games per arm (a paired interval needs two games)")
    check_out(out, command)  # before the arms' runs, which load the engine (issue 31.7)
    _check_arms(game, arms, setup)
    claim(out, command)
    keys = game.info.paired_by
    a, b = arms
    tables = compare_tables(
        game, a, b, setup.players, setup.seed, setup.games, out, keys=keys, variant=setup.variant, play=play
    )
    markdown = "\n".join(frame_markdown(tables[key]) for key in keys)
    page = f"# soup {command} --game {game.info.name}\n\n{header}\n\n" + markdown
    write_text_atomic(out / "comparison.md", page)
    return WinRates(out, tables, [f"{header}; runs in {out}"], [out / "comparison.md"])


def tournament(
    game: Game, strategies: str | None, setup: Setup, rules: Path | None, anchor: str | None,
    out: Path | None, play: ArmPlayer, plot: bool = True,
) -> Any:  # fmt: skip
    """Every pair of ``strategies`` (default: the game's field, GameInfo.tournament_field, or
    every preset) head to head, ``setup.games`` games a pair; the game's own ratings with paired
    metrics, else the win-rate matrix and its equilibrium."""
    check_options(game, anchor=anchor)
    chosen = field(game, strategies)
    if supports(game, "paired_metrics"):
        return game.paired_experiments().tournament(  # type: ignore[attr-defined]
            chosen, setup.players, setup.games, rules, setup.seed, anchor, out, play, plot=plot,
            variant=setup.variant,
        )  # fmt: skip
    from sim.experiments.tournament import pairs, round_robin

    book = _rules(game, rules)
    out = out or setup.out("tournament", game)
    _check_arms(game, list(pairs(book, chosen, setup.players).values()), setup)
    check_out(out, "tournament")
    claim(out, "tournament")
    P, seed, games, variant = setup.players, setup.seed, setup.games, setup.variant
    w, eq = round_robin(game, book, chosen, P, seed, games, out, variant=variant, play=play)
    return RoundRobin(out, chosen, w, eq.frame(), [], [])


def default_field(game: Game) -> str:
    """A round robin's strategies by default, comma-separated: the game's field
    (GameInfo.tournament_field), or every preset."""
    return ",".join(game.info.tournament_field or game.strategy_names())


def field(game: Game, strategies: str | None) -> list[str]:
    """A round robin's strategies: ``strategies`` (comma-separated), or the game's field."""
    return strategy_list(strategies or default_field(game), "--strategies")
