"""``soup combos``: the killer-combination scan (issue 14, point 6), the command-line layer.

The experiment is sim/ursuppe/experiments/combos.py (arms, common random numbers, files), the statistics
analysis/ursuppe/combos.py; this module parses the options, shows a progress bar and prints the top
pairs. No engine import at module level: ``soup --help`` stays free of numba.
"""

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from sim.cli.option_groups import grouped
from sim.cli.support import (
    CPUS,
    DEFAULT_GAME,
    EXIT_INTERRUPTED,
    MAX_SEED,
    USER_ERRORS,
    GameName,
    Quiet,
    Threads,
    check_threads,
    command_line,
    fail,
    game_for,
    load_engine,
    long_job,
    progress_bar,
    report_interrupt,
)

# sim.ursuppe.experiments.combos.DEFAULT_GAMES and combos_confirm's panel, not imported (those modules load
# the rules and numpy arrays only, but the engine follows); tests/test_combos.py checks they agree.
DEFAULT_GAMES = 10_000
DEFAULT_CONFIRM_TOP = 5
DEFAULT_PANEL_FIELDS = "greedy,mix,predator"
DEFAULT_PANEL_HOLDERS = "greedy,mutant-tuned"


Players = Annotated[
    int, typer.Option("--players", "-p", help="Players: 3 to 6 (the extra genes need 3-6 players, XM1).")
]
Genes = Annotated[
    str,
    typer.Option(
        "--genes",
        metavar="extra|all",
        help="extra: the 26 extra genes (321 pairs a player can hold together; 348 arms); all: every "
        "gene in play (46 at 4 players: 1,027 pairs, 1,074 arms, about 3 times as long).",
    ),
]
Games = Annotated[
    int,
    typer.Option(
        "--games-per-arm",
        "-n",
        metavar="GAMES",
        help="Games every arm plays (the same games in every arm). The default scans the 348 arms of"
        " 4 players in 3 to 4 minutes on 2 free cores (measured 9.8 with four other jobs on them) and"
        " detects an interaction of 2.7 win-rate points (80% power after Benjamini-Hochberg); the"
        " detectable effect shrinks with 1/sqrt(games).",
    ),
]
Gene = Annotated[
    list[str] | None,
    typer.Option(
        "--gene",
        "-g",
        metavar="NAME",
        help="Scan only these genes and their pairs (repeat; e.g. --gene 'Division Rate').",
    ),
]
Strategy = Annotated[
    str,
    typer.Option(
        "--strategy",
        metavar="NAME",
        help="The strategy of every seat not given by --holder, --against or --pool (a preset name"
        " or a .toml file).",
    ),
]
Holder = Annotated[
    str | None,
    typer.Option(
        "--holder",
        metavar="NAME|FILE",
        help="The gifted seat's strategy (default: --strategy). It may differ from the field's.",
    ),
]
Against = Annotated[
    str | None,
    typer.Option(
        "--against",
        metavar="NAMES",
        help="Fixed opponents: 1 or P-1 comma-separated presets or .toml files (one per other seat).",
    ),
]
Pool = Annotated[
    str | None,
    typer.Option(
        "--pool",
        metavar="NAMES",
        help="Every other seat drawn per game from these strategies (comma-separated; the same draws in"
        " every arm).",
    ),
]
Confirm = Annotated[
    bool,
    typer.Option(
        "--confirm/--no-confirm",
        help="After the scan, re-play the top singles and pairs, the baseline and the null gene on"
        " fresh games under the panel of fields x holders; label each robust, conditional or not"
        " confirmed.",
    ),
]
ConfirmTop = Annotated[
    int,
    typer.Option(
        "--confirm-top",
        metavar="N",
        help="Top singles and top pairs (by gain) the confirmation re-plays.",
    ),
]
ConfirmGames = Annotated[
    int | None,
    typer.Option(
        "--confirm-games",
        metavar="GAMES",
        help="Games per arm and cell of the confirmation (default: --games-per-arm; rounded up to whole"
        " rotate cycles on every deck).",
    ),
]
PanelFields = Annotated[
    str,
    typer.Option(
        "--panel-fields",
        metavar="FIELDS",
        help="The panel's fields, comma-separated: NAME or FILE (every other seat plays it), mix (every"
        " other seat drawn from the default pool), pool:A+B+C, against:A+B+C (one per other seat).",
    ),
]
PanelHolders = Annotated[
    str,
    typer.Option(
        "--panel-holders",
        metavar="NAMES",
        help="The panel's holders (the gifted seat's strategy): presets, strategy files, or search "
        "players (search-N: strong play, one game at a time: give a small --confirm-games).",
    ),
]
Decks = Annotated[
    int | None,
    typer.Option(
        "--decks",
        metavar="K",
        help="The confirmation plays every cell over the same K plausible decks (deck 0 the rules' own),"
        " and adds the spread across decks and whether the sign is the same on every deck.",
    ),
]
Seed = Annotated[
    int,
    typer.Option("--seed", "-s", min=0, max=MAX_SEED, help="Seed: game i is the same game in every arm."),
]
Rules = Annotated[
    Path | None,
    typer.Option(
        "--rules", "-r", help="House-rules TOML file (flags.extra_genes is switched on in any case)."
    ),
]
Top = Annotated[int, typer.Option("--top", "-k", metavar="K", help="Pairs listed in each top table.")]
Out = Annotated[
    Path | None,
    typer.Option(help="Directory for the tables, report and heatmap (default: results/combos-4p-extra-s1)."),
]
Observed = Annotated[
    Path | None,
    typer.Option(
        "--observed",
        metavar="RUN",
        help="A run directory of normal games (soup simulate with the extra genes on) for the"
        " observational"
        " view; default: the baseline arm is extended to --observed-games normal games.",
    ),
]
ObservedGames = Annotated[
    int | None,
    typer.Option(
        "--observed-games",
        metavar="GAMES",
        min=0,
        help="Normal games for the observational view (default: 10 x --games-per-arm; 0: none).",
    ),
]


@dataclass(frozen=True)
class Seats:
    """Who plays the scan's games: every seat's strategy, the gifted seat's and the others' (an
    option group, sim.cli.option_groups)."""

    strategy: Strategy = "greedy"
    holder: Holder = None
    against: Against = None
    pool: Pool = None


@dataclass(frozen=True)
class Confirmation:
    """The confirmation stage after the scan: whether it runs, what it re-plays, its games and
    its panel of fields x holders over K decks (an option group)."""

    confirm: Confirm = True
    confirm_top: ConfirmTop = DEFAULT_CONFIRM_TOP
    confirm_games: ConfirmGames = None
    panel_fields: PanelFields = DEFAULT_PANEL_FIELDS
    panel_holders: PanelHolders = DEFAULT_PANEL_HOLDERS
    decks: Decks = None

    def plan(self, scan: Any) -> Any:
        """The confirmation's plan (sim.ursuppe.experiments.combos_confirm) of the ``scan``'s
        arms; None with --no-confirm."""
        if not self.confirm:
            if self.decks is not None:
                fail("--decks: the decks are played by the confirmation stage; drop --no-confirm")
            return None
        from sim.game import comma_list
        from sim.ursuppe.experiments import combos_confirm

        config = combos_confirm.ConfirmConfig(
            self.confirm_top,
            self.confirm_games,
            comma_list(self.panel_fields),
            comma_list(self.panel_holders),
            self.decks,
        )
        return combos_confirm.plan_confirmation(scan, config)


@dataclass(frozen=True)
class Observation:
    """The observational view beside the scan: a run of normal games, or how many the baseline
    arm is extended by (an option group)."""

    observed: Observed = None
    observed_games: ObservedGames = None


@grouped
def combos(
    *,
    players: Players = 4,
    genes: Genes = "extra",
    games: Games = DEFAULT_GAMES,
    gene: Gene = None,
    seats: Seats,
    confirmation: Confirmation,
    seed: Seed = 1,
    threads: Threads = CPUS,
    rules: Rules = None,
    top: Top = 10,
    out: Out = None,
    observation: Observation,
    quiet: Quiet = False,
    game: GameName = DEFAULT_GAME,
) -> None:
    """Killer combinations: gift one player a gene or a pair of genes at setup; what is it worth?

    A gift is a gene the player holds from setup on, paid for by nobody and taken out of the pool
    (or the face-down extra deck). Every arm (no gift, each single gene, each pair) plays the same
    games (same seed: same seating, decks and dice), every player the same strategy, and the gift
    rotates over the start spaces (--holder, --against, --pool: the gifted seat and the others
    play other strategies; the gifted player is then player 0, the holder). The gain of a gift
    is the gifted player's win rate minus the same games' without it; a pair's interaction is its
    gain minus the two single gains (> 0: the genes are worth more together than apart, a
    combination). Intervals are paired (per game), q-values Benjamini-Hochberg across all pairs.
    Beside it, the observational view: in normal games, how often players holding a pair win
    (lift over chance). The flag extra_genes is
    switched on; a gifted card cannot be exchanged by Highly Adaptable.

    Then the confirmation stage (--no-confirm: none) re-plays the top --confirm-top singles and
    pairs, the baseline and a null gene (a card with no effect, which must read 0) on fresh games
    under a panel of fields x holders (default: every other seat greedy, the default mix, every
    other seat predator x holders greedy and mutant-tuned; --decks K: over K plausible decks) and
    labels each arm robust (significant, Holm, with the scan's sign in every cell), conditional
    (the cells that flip or erase it are named) or not confirmed. Writes combos.csv, combos.md,
    combos-heatmap.png, observed.csv, outcomes.npz, confirm.csv and confirm/ (Ctrl-C keeps the
    finished arms and cells, marked as interrupted; the same command resumes).

    soup combos --players 4

    soup combos --players 3 --genes all --games-per-arm 5000 --top 20
    """
    chosen = game_for(game, "combos")
    try:
        plan = _plan(players, genes, games, gene, seats, seed, rules, top, out, observation)
        confirm_plan = confirmation.plan(plan)
    except USER_ERRORS as e:
        fail(str(e))
    check_threads(threads)
    command = command_line()
    result = _run(chosen, plan, confirm_plan, top, threads, quiet, command)
    _print_scan(result, top)
    if result.confirmation is not None:
        _print_confirmation(result.confirmation)
    _print_times(result)
    _stop_if_interrupted(result, command)


def _plan(
    players: int,
    genes: str,
    games: int,
    gene: list[str] | None,
    seats: Seats,
    seed: int,
    rules: Path | None,
    top: int,
    out: Path | None,
    observation: Observation,
) -> Any:
    """The scan's plan (sim.ursuppe.experiments.combos.plan_scan: every option checked)."""
    from sim.ursuppe.experiments import combos as experiment

    return experiment.plan_scan(
        players, genes, games, seats.strategy, seed, rules, top, out, observation.observed,
        observation.observed_games, gene, holder=seats.holder, against=seats.against, pool=seats.pool,
    )  # fmt: skip


def _run(game: Any, plan: Any, confirm_plan: Any, top: int, threads: int, quiet: bool, command: str) -> Any:
    """Hold --out, load the engine and play the scan (and the confirmation) under one bar."""
    from analysis.tables import plural
    from sim import out_dirs
    from sim.ursuppe.experiments import combos_run

    total = plan.total_games() + (confirm_plan.total_games_bound() if confirm_plan else 0)
    try:  # a second scan into the same --out ends here, before the engine (issue 31.8)
        out_dirs.hold(plan.out)
    except USER_ERRORS as e:
        fail(str(e))
    load_engine(game)
    with long_job(plan.out, lambda: "nothing (Ctrl-C before the baseline and one more arm were done)"):
        try:
            with progress_bar(
                total, plural(len(plan.arms), "arm") + (" + panel" if confirm_plan else ""), quiet
            ) as update:
                return combos_run.run_plan(plan, top, threads, update, confirm_plan, command)
        except USER_ERRORS as e:
            fail(str(e))


def _print_scan(result: Any, top: int) -> None:
    """The scan's summary lines, what it can detect and the top pairs by interaction."""
    from analysis.tables import plural

    for line in result.lines:
        typer.echo(line)
    mde = result.detectable
    typer.echo(
        "detectable with 80% power after BH: interaction "
        + ", ".join(
            f"{name} {mde[key] * 100:.1f} points" if math.isfinite(mde[key]) else f"{name} -"
            for name, key in (
                ("interaction", "pair_interaction"),
                ("pair gain", "pair_gain"),
                ("single gain", "single_gain"),
            )
        ).removeprefix("interaction ")
    )
    pairs = result.table.filter(result.table["kind"] == "pair").sort("interaction", descending=True)
    if len(pairs):
        shown = plural(min(top, len(pairs)), "pair")
        typer.echo(f"top {shown} by interaction (win-rate points, 95% interval, BH q):")
    else:  # Ctrl-C before the first pair finished: say so, not "top 0 pairs"
        typer.echo("no pair finished before the interrupt: the tables hold the baseline and singles")
    for r in pairs.head(top).iter_rows(named=True):
        typer.echo(
            f"  {r['gene_a']} + {r['gene_b']}: {r['interaction'] * 100:+.1f}"
            f" [{r['interaction_low'] * 100:+.1f}, {r['interaction_high'] * 100:+.1f}]"
            f" q {r['interaction_q']:.3g}; pair gain {r['gain'] * 100:+.1f}"
        )


def _print_times(result: Any) -> None:
    """How long the scan and the confirmation took, and the files written."""
    from analysis.tables import plural

    typer.echo(
        f"scan: {result.seconds:,.0f} s"
        + (f" ({plural(result.resumed_arms, 'arm')} kept from an earlier run)" if result.resumed_arms else "")
        + (f"; confirmation: {result.confirmation.seconds:,.0f} s" if result.confirmation is not None else "")
    )
    typer.echo("files: " + ", ".join(str(f) for f in result.files))


def _stop_if_interrupted(result: Any, command: str) -> None:
    """Exit 130 with the one line Ctrl-C gets (sim.cli.app.main adds none of its own, issue 31.6)
    when the scan or the confirmation was interrupted: what is kept and the command that resumes."""
    from analysis.tables import plural

    if result.arms_done < result.arms:
        report_interrupt(
            f"interrupted: {result.out} holds {result.arms_done} finished arms of"
            f" {result.arms}; the same command resumes from them: {command}"
        )
        raise typer.Exit(EXIT_INTERRUPTED)
    if result.confirmation is not None and result.confirmation.interrupted:
        c = result.confirmation
        report_interrupt(
            f"interrupted: {result.out} holds the scan and {c.cells_done} of {plural(c.cells, 'cell')}"
            f" of the confirmation (and the finished arms of the next); the same command resumes from"
            f" them: {command}"
        )
        raise typer.Exit(EXIT_INTERRUPTED)


def _print_confirmation(c: Any) -> None:
    """The confirmation's labels (a combos_confirm.Confirmation) on the terminal, one line per
    gene arm."""
    from analysis.tables import plural

    labels = c.labels
    if not len(labels):
        typer.echo("confirmation: no cell finished")
        return
    provisional = " (interrupted: provisional labels)" if c.interrupted else ""
    typer.echo(f"confirmation on fresh games, {c.cells_done} of {plural(c.cells, 'cell')}{provisional}:")
    for r in labels.iter_rows(named=True):
        # what the label judges: a single's gain, a pair's interaction (issue 32.5)
        judged = "interaction " if r["judged"] == "interaction" else "gain "
        typer.echo(
            f"  {r['arm']}: {r['label']} ({judged}{r['judged_min'] * 100:+.1f} to"
            f" {r['judged_max'] * 100:+.1f} points; robust in {r['cells_agreeing']} of"
            f" {plural(r['cells'], 'cell')})"
        )
