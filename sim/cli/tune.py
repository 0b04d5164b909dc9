"""`soup tune`: options and printing over the tuning flow every game runs on
(sim.experiments.tuning; a game's own plan through its "tuning_plan" capability). Every check
comes before the progress bar; bad input is one line and exit 2; Ctrl-C keeps what the job keeps
(the last generation's checkpoint) and prints the command that resumes (exit 130)."""

from dataclasses import dataclass, fields
from typing import Annotated

import typer

from sim import out_dirs
from sim.cli.option_groups import grouped, spelled_out
from sim.cli.support import (
    CPUS,
    DEFAULT_GAME,
    MAX_SEED,
    GameName,
    Players,
    Quiet,
    Rules,
    Threads,
    fail,
    game_for,
    load_engine,
    long_job,
    out_dir,
    progress_bar,
    warn,
)
from sim.errors import UserError
from sim.experiments.tune_flow import GENE_VALUE_BUDGET, TUNE_BUDGET, TuneRequest, tuning_job

Start = Annotated[
    str,
    typer.Option(
        "--strategy",
        "-s",
        metavar="NAME|FILE",
        help="The start: a preset or a strategy .toml file (with --gene-value: usually a tuned.toml).",
    ),
]
Variant = Annotated[
    str | None,
    typer.Option(
        "--variant", metavar="NAME", help="2-player variant (with --players 2): dummy, double1, double2."
    ),
]
Against = Annotated[
    str | None,
    typer.Option(
        metavar="NAMES",
        help="Fixed opponents: one strategy for every other player, or one per other player "
        "(comma-separated presets or .toml files).",
    ),
]
SelfPlay = Annotated[
    bool,
    typer.Option(
        "--self-play", help="The other players are the previous generation's best (the field is tuned too)."
    ),
]
Pool = Annotated[
    str | None,
    typer.Option(
        metavar="NAMES",
        help="The mix every other player is drawn from (without --against or --self-play; default: the "
        "game's default mix).",
    ),
]
Params = Annotated[
    str,
    typer.Option(
        metavar="KEYS",
        help="Tuned parameters, comma-separated: names of docs/strategies.md, gene_value.<gene>, "
        "'genes' (every gene in play), 'default' (the economy, space weights and every gene value).",
    ),
]
Budget = Annotated[
    int | None,
    typer.Option(
        min=1,
        help=f"Tuning games in all (default {TUNE_BUDGET:,}; with --gene-value {GENE_VALUE_BUDGET:,}, "
        "shared by the 2 arms of every gene).",
    ),
]
GamesPerCandidate = Annotated[
    int, typer.Option(min=1, help="Games of every strategy in a generation (a multiple of the rotate block).")
]
Population = Annotated[
    int | None, typer.Option(min=2, help="CMA-ES population (default 4 + 3 ln(parameters)).")
]
Sigma = Annotated[
    float | None,
    typer.Option(
        help="CMA-ES initial step in the [0, 1]-scaled search space (default 0.15; with --gene-value "
        "0.08: the arms start from a tuned strategy).",
    ),
]
Seed = Annotated[int, typer.Option("--seed", min=0, max=MAX_SEED, help="Seed of the tuning games.")]
EvalGames = Annotated[
    int, typer.Option(min=1, help="Fresh games (another seed) on which start and tuned are compared.")
]
GeneValue = Annotated[
    bool,
    typer.Option(
        "--gene-value",
        help="For every gene: its value by --design (default option value: tune a variant allowed to "
        "buy it and one that may not, compare them on fresh games), with the null gene, its plain card "
        "and (holding) its BP gift beside it, Holm-corrected (docs/verdicts.md).",
    ),
]
Design = Annotated[
    str,
    typer.Option(
        metavar="DESIGN",
        help="With --gene-value: option (allowed vs forbidden, both tuned), holding (given at setup and "
        "kept vs not, the same strategy: no tuning), retuned (holding value with both arms tuned, "
        "the gifted one with the gift) or forced (the labelled 'cost of a forced purchase': bought at "
        "the first chance vs never).",
    ),
]
References = Annotated[
    str,
    typer.Option(
        metavar="KINDS",
        help="With --gene-value: reference arms, comma-separated: null (the null gene, must read 0), "
        "plain (the gene's plain card), bp (its price as a BP gift; holding and retuned only); 'none' "
        "for none.",
    ),
]
Decks = Annotated[
    int,
    typer.Option(
        help="With --gene-value: measure every gene again on K-1 decks of the V6 plausible-deck family "
        "(deck 0: the rules' own), on the same games; the table adds the spread and a same-sign column.",
    ),
]
Genes = Annotated[
    str | None,
    typer.Option(metavar="NAMES", help="With --gene-value: these genes only (default: every gene in play)."),
]
Out = out_dir("results/tune-<start>-<P>p-seed<S>")
Resume = Annotated[
    bool,
    typer.Option(
        "--resume",
        help="Only continue the tuning in --out (an error if there is none). Without "
        "it, the same command continues too.",
    ),
]


@dataclass(frozen=True)
class Opponents:
    """Whom the tuned strategy plays against: fixed opponents, its own best, or a mix (an option
    group, sim.cli.option_groups)."""

    against: Against = None
    self_play: SelfPlay = False
    pool: Pool = None


@dataclass(frozen=True)
class Cma:
    """What CMA-ES tunes and how: the parameters, the games in all and a candidate's, the
    population and the first step (an option group)."""

    params: Params = "default"
    budget: Budget = None
    games_per_candidate: GamesPerCandidate = 1200
    population: Population = None
    sigma: Sigma = None


@dataclass(frozen=True)
class GeneValueStudy:
    """--gene-value and its design, reference arms, decks and genes (an option group)."""

    gene_value: GeneValue = False
    design: Design = "option"
    references: References = "null,plain,bp"
    decks: Decks = 1
    genes: Genes = None


@grouped
def tune(
    *,
    strategy: Start = "greedy",
    players: Players = 4,
    game: GameName = DEFAULT_GAME,
    variant: Variant = None,
    opponents: Opponents,
    cma: Cma,
    seed: Seed = 1,
    eval_games: EvalGames = 24_000,
    rules: Rules = None,
    study: GeneValueStudy,
    out: Out = None,
    threads: Threads = CPUS,
    resume: Resume = False,
    quiet: Quiet = False,
) -> None:
    """Tune a strategy's parameters (CMA-ES) to maximise its win rate against a field.

    Every candidate of a generation plays the same games (common random numbers, rotate seating);
    the tuned strategy (tuned.toml, usable wherever a preset is) and the start are compared on fresh
    games, with 95% intervals, in report.md with a learning curve. Interrupted? The same command
    continues from the last generation. How to read it: docs/tuning.md. Examples:
    soup tune --strategy greedy;  soup tune --against predator --players 3;
    soup tune --gene-value --strategy results/tune-greedy-4p-seed1/tuned.toml

    With --game another than ursuppe: the game's own tunable numbers (CMA-ES over the game
    protocol), the strategy against --against at every other seat (default: the game's play
    strategy), e.g. soup tune --game pig --strategy cautious --players 2 --budget 200000
    """
    options = spelled_out(locals())  # every option but --game, --threads, --quiet: the request's field
    chosen = game_for(game, "tune")
    job = tuning_job(chosen, TuneRequest(**{f.name: options[f.name] for f in fields(TuneRequest)}))
    try:  # not another command's directory, nor a run's (issue 21.7)
        out_dirs.check(job.out, job.command)
    except UserError as e:
        fail(str(e))
    job.check()
    load_engine(chosen)
    out_dirs.claim(job.out, job.command)
    with long_job(job.out, job.kept):
        with progress_bar(job.total, job.label, quiet) as update:
            job.play(threads, update)
        job.finish(threads, typer.echo, warn)
