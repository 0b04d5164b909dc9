"""Arms: one run each, on common random numbers.

An arm is a run of a game (rules, strategies or pool, players) with the experiment's seed and game
indices: since a game is a pure function of (rules, strategies, seating, seed, game index) and
every game draws from its own streams, two arms that differ in one thing (a house rule, a
strategy) play the same dice, decks and seats wherever that thing does not reach: the paired
difference cancels their noise (common random numbers).
"""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from sim import runner
from sim.errors import UserError
from sim.game import Game

# Plays ``run`` (a GameAdapter) for ``games`` games into ``out``, or reuses it if ``out`` holds
# this very run; ``description`` names the arm (a progress bar's label). The command line's shows a
# progress bar and says what Ctrl-C kept (sim.cli.experiments); a notebook's is :func:`arm_player`.
ArmPlayer = Callable[[Any, Path, int, str], Any]


@dataclass(frozen=True)
class Arm:
    """One arm: its label and what makes its games."""

    label: str
    rules: Any  # the game's rules (Game.load_rules)
    strategies: str | None = None  # comma-separated, one per player, or
    pool: str | None = None  # drawn for every seat (default: the game's mix)
    seating: str = "rotate"


def arm_player(threads: int, chunk_size: int, backend: Any = None) -> ArmPlayer:
    """Arms played by the chunked runner on ``backend`` (sim.backends; default: this process on
    ``threads`` threads), without a progress bar (a notebook, a script)."""
    from sim import __version__

    def play(spec: Any, out: Path, games: int, description: str) -> Any:
        return runner.run(spec, out, games, chunk_size, threads, version=__version__, backend=backend)

    return play


def arm_run(game: Game, arm: Arm, players: int, seed: int, variant: str | None = None) -> Any:
    """``arm``'s run (Game.new_run: checked, a UserError naming bad input, before anything plays)."""
    kept = {"strategies": arm.strategies, "pool": arm.pool, "seating": arm.seating}
    return game.new_run(arm.rules, players, seed, **kept, variant=variant)


def play_arm(
    game: Game,
    arm: Arm,
    players: int,
    seed: int,
    games: int,
    out: Path,
    threads: int = 1,
    backend: Any = None,
    chunk_size: int | None = None,
    variant: str | None = None,
    play: ArmPlayer | None = None,
) -> pl.DataFrame:
    """Play ``arm`` into the run directory ``out`` (resuming a run already there) with ``play``
    (default: the chunked runner on ``backend``) and return its outcome rows, sorted by game and
    player."""
    adapter = arm_run(game, arm, players, seed, variant)
    if play is not None:
        play(adapter, Path(out), games, arm.label)
    else:
        opened = runner.open_run(adapter, Path(out), games, chunk_size or runner.default_chunk_size(threads))
        runner.play(opened, threads, backend=backend)
    return pl.concat([runner.read_chunk(f) for f in runner.chunk_files(Path(out))]).sort(["game", "player"])


# --------------------------------------------------------------------------------------------
# What every experiment checks and writes
# --------------------------------------------------------------------------------------------

DEFAULT_RULES = "default"  # the --rules value that means the built-in rules


def rules_arms(rules: list[str] | None) -> tuple[str | None, str | None]:
    """The two --rules values of a comparison as paths (None = the default rules); one value is B
    against the default rules."""
    values = list(rules or [])
    if not values or len(values) > 2:
        raise UserError(f"--rules: expected one or two rules files (or 'default'), got {len(values)}")
    if len(values) == 1:
        values = [DEFAULT_RULES, values[0]]
    return tuple(None if v == DEFAULT_RULES else v for v in values)  # type: ignore[return-value]


def check_games(games: int, least: int, what: str) -> None:
    """``--games`` below ``least`` is a one-line user error."""
    if games < least:
        raise UserError(f"--games: expected at least {least} {what}, got {games}")


def check_out(out: Path, command: str | None = None) -> None:
    """A user error unless ``out`` (and every run directory below it) can be a directory: checked
    before any game is played, so a bad --out leaves nothing behind. With ``command``, also
    unless ``out`` is new, empty or that command's own output (sim.out_dirs; issue 21.7)."""
    from sim import out_dirs

    if command is not None:
        out_dirs.check(out, command)
    else:
        out_dirs.check_writable(out)


def claim(out: Path, command: str) -> None:
    """Mark ``out`` as ``command``'s output when it starts writing (sim.out_dirs.claim)."""
    from sim import out_dirs

    out_dirs.claim(out, command)


def write_tables(out: Path, stem: str, table: Any, markdown: str) -> list[Path]:
    """``stem``.csv and ``stem``.md in ``out``, each written atomically."""
    from analysis.tables import write_csv_atomic, write_text_atomic

    csv, md = out / f"{stem}.csv", out / f"{stem}.md"
    write_csv_atomic(csv, table)
    write_text_atomic(md, markdown)
    return [csv, md]
