"""soup tune's flow, the same for every game (issue 35.1): the options as a :class:`TuneRequest`,
the :class:`TuningJob` the command line plays (checks first, then one progress bar, one Ctrl-C
line, one claim of --out: sim/cli/tune.py), and :class:`GameTuning`, the job of a game without
its own plan (CMA-ES over the game protocol, sim.experiments.tuning). A game with the
"tuning_plan" capability (sim.game.CAPABILITIES) gives its own job for the same flow (Ursuppe:
its parameter rows, fields, variants and gene-value study); every game's tuning resumes the
same way (checkpointed every generation: the same command continues, --resume insists on it).

Cheap to import (no numpy, no cmaes): the command line reads the defaults for its help."""

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from sim import game as games
from sim.errors import UserError
from sim.game import Game, strategy_list

if TYPE_CHECKING:
    from sim.experiments.tuning import TuneSetup

# soup tune's default budgets, measured on the 2-core reference machine (docs/tuning.md): a useful
# tuning in a few minutes, and a game's gene-value study (its "tuning_plan") of 20 genes at one
# player count within 30 minutes.
TUNE_BUDGET = 1_800_000
GENE_VALUE_BUDGET = 16_000_000


@dataclass(frozen=True)
class TuneRequest:
    """soup tune's options as the command line gives them (None: not given). Every game reads the
    first group; the rest only a game with its own tuning (the "tuning_plan" capability: Ursuppe's
    parameter rows, self-play, pools and gene-value study) reads, and another game is refused
    them (:func:`refuse_own_options`)."""

    strategy: str
    players: int
    seed: int
    games_per_candidate: int
    eval_games: int
    against: str | None = None
    rules: Path | None = None
    budget: int | None = None
    population: int | None = None
    out: Path | None = None
    resume: bool = False
    variant: str | None = None
    self_play: bool = False
    pool: str | None = None
    params: str = "default"
    sigma: float | None = None
    gene_value: bool = False
    design: str = "option"
    references: str = "null,plain,bp"
    decks: int = 1
    genes: str | None = None

    def own_options(self) -> dict[str, bool]:
        """The options of a game's own tuning, by name: whether each was given."""
        return {
            "variant": self.variant is not None,
            "self-play": self.self_play,
            "gene-value": self.gene_value,
            "pool": self.pool is not None,
            "params": self.params != "default",
            "sigma": self.sigma is not None,
        }


class TuningJob(Protocol):
    """One soup tune, checked and ready to play: the command line gives it the progress bar, the
    Ctrl-C line and the output directory's claim (sim/cli/tune.py), the same for every game."""

    out: Path
    command: str  # the owner of --out (sim.out_dirs): "tune" or a study's
    label: str  # the progress bar's
    total: int  # games in all (a resumed part counts as played)

    def check(self) -> None:
        """What needs --out claimed by no other command (a checkpoint to resume): a UserError."""

    def kept(self) -> str:
        """What an interrupted job keeps in ``out`` (read when Ctrl-C comes)."""

    def play(self, threads: int, progress: Callable[[int, int], None]) -> None:
        """Play (or resume) the tuning; ``progress(done, total)`` in games."""

    def finish(self, threads: int, say: Callable[[str], None], warn: Callable[[str], None]) -> None:
        """Write the outputs and tell the result (``say``) and what to watch (``warn``)."""


def refuse_own_options(game: Game, request: TuneRequest) -> None:
    """A UserError naming the first option of a game's own tuning given with a game without one,
    and the games that have it."""
    if games.supports(game, "tuning_plan"):
        return
    having = ", ".join(n for n in games.names() if games.supports(games.get(n), "tuning_plan"))
    for name, given in request.own_options().items():
        if given:
            raise UserError(
                f"--{name}: only with --game {having} (the game-agnostic experiments have no such option)"
            )


def tuning_job(game: Game, request: TuneRequest) -> TuningJob:
    """soup tune's job for ``game``: its own plan (the "tuning_plan" capability) or
    :class:`GameTuning`, checked (a UserError) before any engine code loads."""
    refuse_own_options(game, request)
    if games.supports(game, "tuning_plan"):
        return game.tuning_plan(request)
    return GameTuning(game, request)


class GameTuning:
    """soup tune over the game protocol: CMA-ES (:func:`tune`) of the strategy's tunable numbers
    against one strategy at every other seat (default: the game's play strategy), checkpointed in
    --out after every generation (the same command continues); writes tuned.txt (the tuned
    strategy, as the game's runs accept it) and report.md."""

    command = "tune"
    label = "tuning"

    def __init__(self, game: Game, request: TuneRequest) -> None:
        r = self.request = request
        self.game = game
        self.book = game.load_rules([r.rules] if r.rules is not None else [])
        game.check_players(self.book, r.players)
        names = strategy_list(r.against if r.against is not None else game.info.default_strategy, "--against")
        if len(names) != 1:
            raise UserError(
                f"--against: expected one strategy for every other seat with --game {game.info.name}, "
                f"got {len(names)}"
            )
        self.field = names[0]
        start, _, _ = game.strategy_space(r.strategy)
        game.check_play(self.book, r.players, ",".join([r.strategy] + names * (r.players - 1)))
        self.size = r.population or 4 + int(3 * math.log(len(start)))  # CMA-ES's default population
        budget = r.budget if r.budget is not None else TUNE_BUDGET
        self.generations = budget // (self.size * r.games_per_candidate)
        if self.generations < 1:
            raise UserError(
                f"--budget: {budget:,} games is less than one generation ({self.size} candidates x "
                f"{r.games_per_candidate:,} games); give a larger --budget or a smaller --games-per-candidate"
            )
        default = Path("results") / f"tune-{game.info.name}-{r.strategy}-{r.players}p-seed{r.seed}"
        self.out = r.out if r.out is not None else default
        self.total = (self.generations * self.size + 2) * r.games_per_candidate
        self.generation = 0  # reached: what Ctrl-C keeps

    @cached_property
    def setup(self) -> "TuneSetup":
        """The tuning :func:`sim.experiments.tuning.tune` plays (one, so that the check and the
        tune share its fingerprint)."""
        from sim.experiments.tuning import TuneSetup

        r = self.request
        return TuneSetup(
            self.game,
            self.book,
            r.strategy,
            self.field,
            r.players,
            r.seed,
            self.generations,
            r.games_per_candidate,
            r.population,
        )

    def check(self) -> None:
        from sim.experiments.tuning import CHECKPOINT, read_checkpoint

        if self.request.resume and not (self.out / CHECKPOINT).exists():
            raise UserError(f"--resume: {self.out} holds no tuning to continue")
        # another tuning's checkpoint: one line, before the progress bar
        kept = read_checkpoint(self.out, self.setup.fingerprint)
        self.generation = kept.generation if kept else 0

    def kept(self) -> str:
        return f"{self.generation} of {self.generations} generations are kept in {self.out}"

    def play(self, threads: int, progress: Callable[[int, int], None]) -> None:
        from sim.experiments.tuning import TuneState, tune

        def after(state: TuneState) -> None:
            self.generation = state.generation

        self.tuned = tune(self.setup, self.out, threads, progress, after)

    def finish(self, threads: int, say: Callable[[str], None], warn: Callable[[str], None]) -> None:
        from analysis.tables import write_text_atomic
        from analysis.tuning_report import game_tuning_markdown

        r, tuned = self.request, self.tuned
        write_text_atomic(self.out / "tuned.txt", tuned.spec + "\n")
        doc = {
            "game": self.game.info.name,
            "rules": self.game.rules_line(self.book),
            "start": r.strategy,
            "field": self.field,
            "players": r.players,
            "seed": r.seed,
            "generations": self.generations,
            "population": self.size,
            "games": r.games_per_candidate,
            "vector": [float(x) for x in tuned.vector],
            "spec": tuned.spec,
            "start_win_rate": tuned.start_win_rate,
            "win_rate": tuned.win_rate,
            "history": tuned.history,
        }
        write_text_atomic(self.out / "report.md", game_tuning_markdown(doc))
        say(
            f"{r.strategy} tuned against {self.field}: start {tuned.start_win_rate:.3f}, tuned "
            f"{tuned.win_rate:.3f} on {r.games_per_candidate:,} fresh games; the tuned strategy: {tuned.spec}"
        )
        say(f"Wrote {self.out / 'tuned.txt'} and {self.out / 'report.md'}")
