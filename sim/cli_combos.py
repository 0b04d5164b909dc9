"""``soup combos``: the killer-combination scan (issue 14, point 6), the command-line layer.

The experiment is sim/ursuppe/combos.py (arms, common random numbers, files), the statistics
analysis/combos.py; this module parses the options, shows a progress bar and prints the top
pairs. No engine import at module level: ``soup --help`` stays free of numba.
"""

import math
import os
from pathlib import Path
from typing import Annotated

import typer

from sim.cli_support import (
    EXIT_INTERRUPTED,
    MAX_SEED,
    USER_ERRORS,
    fail,
    load_engine,
    long_job,
    progress_bar,
    warn,
)

# sim.ursuppe.combos.DEFAULT_GAMES, not imported (that module loads the rules and numpy arrays
# only, but the engine follows); tests/test_combos.py checks the two agree.
DEFAULT_GAMES = 10_000
CPUS = os.cpu_count() or 1


def combos(
    players: Annotated[
        int, typer.Option("--players", "-p", help="Players: 3 to 6 (the extra genes need 3-6 players, XM1).")
    ] = 4,
    genes: Annotated[
        str,
        typer.Option(
            "--genes",
            metavar="extra|all",
            help="extra: the 26 extra genes (321 pairs a player can hold together; 348 arms); all: every "
            "gene in play (46 at 4 players: 1,027 pairs, 1,074 arms, about 3 times as long).",
        ),
    ] = "extra",
    games: Annotated[
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
    ] = DEFAULT_GAMES,
    gene: Annotated[
        list[str] | None,
        typer.Option(
            "--gene",
            "-g",
            metavar="NAME",
            help="Scan only these genes and their pairs (repeat; e.g. --gene 'Division Rate').",
        ),
    ] = None,
    strategy: Annotated[
        str,
        typer.Option(
            "--strategy",
            metavar="NAME",
            help="The strategy every player plays (a preset name or a .toml file).",
        ),
    ] = "greedy",
    seed: Annotated[
        int,
        typer.Option("--seed", "-s", min=0, max=MAX_SEED, help="Seed: game i is the same game in every arm."),
    ] = 1,
    threads: Annotated[int, typer.Option(min=1, help="Threads (default: all cores).")] = CPUS,
    rules: Annotated[
        Path | None,
        typer.Option(
            "--rules", "-r", help="House-rules TOML file (flags.extra_genes is switched on in any case)."
        ),
    ] = None,
    top: Annotated[
        int, typer.Option("--top", "-k", metavar="K", help="Pairs listed in each top table.")
    ] = 10,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Directory for the tables, report and heatmap (default: results/combos-4p-extra-s1)."
        ),
    ] = None,
    observed: Annotated[
        Path | None,
        typer.Option(
            "--observed",
            metavar="RUN",
            help="A run directory of normal games (soup simulate with the extra genes on) for the"
            " observational"
            " view; default: the baseline arm is extended to --observed-games normal games.",
        ),
    ] = None,
    observed_games: Annotated[
        int | None,
        typer.Option(
            "--observed-games",
            metavar="GAMES",
            min=0,
            help="Normal games for the observational view (default: 10 x --games-per-arm; 0: none).",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Killer combinations: gift one player a gene or a pair of genes at setup; what is it worth?

    A gift is a gene the player holds from setup on, paid for by nobody and taken out of the pool
    (or the face-down extra deck). Every arm (no gift, each single gene, each pair) plays the same
    games (same seed: same seating, decks and dice), every player the same strategy, and the gift
    rotates over the start spaces. The gain of a gift is the gifted player's win rate minus the
    same games' without it; a pair's interaction is its gain minus the two single gains (> 0: the
    genes are worth more together than apart, a combination). Intervals are paired (per game),
    q-values Benjamini-Hochberg across all pairs. Beside it, the observational view: in normal
    games, how often players holding a pair win (lift over chance). The flag extra_genes is
    switched on. Writes combos.csv, combos.md, combos-heatmap.png, observed.csv and outcomes.npz
    (Ctrl-C: of the arms finished so far, marked as interrupted).

    soup combos --players 4

    soup combos --players 3 --genes all --games-per-arm 5000 --top 20
    """
    try:
        from sim.ursuppe import combos as experiment

        book = experiment.combo_book(rules)
        experiment.check_options(book, players, games, top)
        for_players = book.for_players(players)
        arms, _ = experiment.build_arms(for_players, experiment.scanned_genes(for_players, genes, gene))
        from strategies.params import load_strategy

        load_strategy(strategy)
    except USER_ERRORS as e:
        fail(str(e))
    if threads > CPUS:
        warn(f"--threads {threads} is more than the {CPUS} cores of this machine: extra threads only wait")
    target = out or experiment.default_out(players, genes, seed)
    observed_total = 0 if observed is not None else (10 * games if observed_games is None else observed_games)
    total = games * len(arms) + max(0, observed_total - games)
    load_engine()
    with long_job(target, lambda: "nothing (Ctrl-C before the baseline and one more arm were done)"):
        try:
            with progress_bar(total, f"{len(arms)} arms", quiet) as update:
                result = experiment.run_combos(
                    players,
                    genes,
                    games,
                    strategy,
                    seed,
                    threads,
                    rules,
                    top,
                    out,
                    observed,
                    observed_games,
                    progress=update,
                    only=gene,
                )
        except USER_ERRORS as e:
            fail(str(e))
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
    typer.echo(f"top {min(top, len(pairs))} pairs by interaction (win-rate points, 95% interval, BH q):")
    for r in pairs.head(top).iter_rows(named=True):
        typer.echo(
            f"  {r['gene_a']} + {r['gene_b']}: {r['interaction'] * 100:+.1f}"
            f" [{r['interaction_low'] * 100:+.1f}, {r['interaction_high'] * 100:+.1f}]"
            f" q {r['interaction_q']:.3g}; pair gain {r['gain'] * 100:+.1f}"
        )
    typer.echo("files: " + ", ".join(str(f) for f in result.files))
    if result.arms_done < result.arms:
        typer.echo(
            f"soup: interrupted: {result.out} holds the {result.arms_done} finished arms of"
            f" {result.arms}; the same command runs the whole scan again",
            err=True,
        )
        raise typer.Exit(EXIT_INTERRUPTED)
