"""``soup compare``, ``soup ablate``, ``soup tournament`` and ``soup skill``: the command-line layer.

The experiments themselves (how arms are built, played, paired and tabulated, and their Markdown)
are in sim.experiments.paired, one stack for every game, which a notebook calls the same way; what
a game adds (its paired metrics, deck plans, re-tuning, ablation) it declares as capabilities
(sim.game.CAPABILITIES). This module parses the options, plays each arm with a progress bar
(:func:`_player`) and prints the tables; it names no game. Re-running a command with the same
arguments reuses complete runs in ``--out``; an ``--out`` holding a different run is a user error.
See docs/experiments.md.
"""

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from sim.cli.option_groups import Running, changed, grouped
from sim.cli.support import (
    CPUS,
    DEFAULT_GAME,
    MAX_SEED,
    USER_ERRORS,
    GameName,
    Players,
    Threads,
    Variant,
    check_resources,
    fail,
    game_for,
    keyed_table,
    plural,
    rows_table,
    run_with_progress,
)
from sim.experiments import PAIR_SEEDS
from sim.game import strategy_list

# Options shared by the commands.
# sim.ursuppe.experiments.retune.DEFAULT_BUDGET, not imported: retune loads the engine (numba), which `soup
# --help` must not (tests/test_trustworthy_runs.py); tests/test_retune.py checks the two agree.
RETUNE_BUDGET = 192_000
RETUNE_GAMES = 1200  # its games per candidate (sim.ursuppe.experiments.tuning), not imported (as above)
Seed = Annotated[
    int,
    typer.Option(
        "--seed", "-s", min=0, max=MAX_SEED, help="Seed: game i of seed s is the same game in every arm."
    ),
]
ChunkSize = Annotated[int, typer.Option(min=1, help="Games per Parquet chunk.")]
Strategies = Annotated[
    str | None,
    typer.Option(
        help="One strategy per player, comma-separated (a,b,c,d): the game's presets or .toml files."
    ),
]
Pool = Annotated[
    str | None,
    typer.Option(
        help="Strategies to draw every player of every game from (without --strategies; default: the "
        "game's mix)."
    ),
]
Seating = Annotated[
    str,
    typer.Option(
        help="random: a random start-space permutation per game; rotate: every permutation equally often "
        "(5-6 players: a balanced Latin square, every player on every space equally often)."
    ),
]
RetuneFlag = Annotated[
    bool,
    typer.Option(
        "--retune",
        help="First re-tune every strategy of the run under each arm's own rules (soup tune's CMA-ES, "
        "same budget and seed in every arm), then play each arm with its tuned strategies.",
    ),
]
RetuneBudget = Annotated[
    int,
    typer.Option(
        "--retune-budget",
        metavar="GAMES",
        help="With --retune: tuning games per strategy and arm (default: about 2 minutes for the default "
        "pool at 4 players on 2 cores).",
    ),
]
RetuneParams = Annotated[
    str,
    typer.Option(
        "--retune-params",
        metavar="KEYS",
        help="With --retune: the tuned parameters, as soup tune --params ('default': the economy, space "
        "weights and every gene value in play in any arm).",
    ),
]
Decks = Annotated[
    int,
    typer.Option(
        "--decks",
        metavar="K",
        help="Play every arm over the same K environment decks: the rules' own and K-1 drawn from its "
        "plausible family (V6, [environment.family]) with --seed; games in contiguous blocks of whole "
        "seating cycles, one a deck. Reports each row's per-deck range and whether its sign holds on "
        "every deck (1: the rules' deck only).",
    ),
]
RetuneGames = Annotated[
    int,
    typer.Option(
        "--retune-games-per-candidate",
        metavar="GAMES",
        help="With --retune: games of every candidate in a generation (a multiple of the rotate block).",
    ),
]


@dataclass(frozen=True)
class Table:
    """How many play every game and the 2-player variant (an option group of the paired
    experiments, sim.cli.option_groups)."""

    players: Players = 4
    variant: Variant = None


@dataclass(frozen=True)
class Lineup:
    """Who plays in which seat of every arm's games, drawn from --seed (an option group of soup
    compare and soup ablate, sim.cli.option_groups)."""

    strategies: Strategies = None
    pool: Pool = None
    seating: Seating = "rotate"
    seed: Seed = 1

    def setup(self, table: Table, games: int) -> Any:
        """The arms' common setup (sim.experiments.paired.Setup)."""
        from sim.experiments import paired

        return paired.Setup(
            table.players, games, self.seed, self.strategies, self.pool, self.seating, table.variant
        )


@dataclass(frozen=True)
class Retuning:
    """--retune and its settings (an option group of soup compare and soup ablate)."""

    retune: RetuneFlag = False
    retune_budget: RetuneBudget = RETUNE_BUDGET
    retune_params: RetuneParams = "default"
    retune_games_per_candidate: RetuneGames = RETUNE_GAMES


def _retune(chosen: Any, retuning: Retuning, threads: int, quiet: bool) -> Any:
    """The --retune settings (None without --retune; the game's, Game.retune_settings), with a
    progress bar for the tuning."""
    if not retuning.retune:
        given = changed(retuning)
        if given:
            fail(f"{', '.join(given)}: only with --retune")
        return None
    from sim.cli.support import progress_bar
    from sim.experiments.paired import require

    require(chosen, "retune", "--retune")

    def bar(total: int) -> Any:
        return progress_bar(total, "re-tuning", quiet)

    return chosen.retune_settings(
        retuning.retune_budget, retuning.retune_params, retuning.retune_games_per_candidate, threads, bar=bar
    )


def _interrupted(e: KeyboardInterrupt) -> None:
    """Ctrl-C outside an arm's run (whose own Ctrl-C says what it kept): while re-tuning (the
    game's retune names the directory: ``kept_in``), or after the arms, while tabulating."""
    from sim.cli.support import interrupted

    kept_in = getattr(e, "kept_in", None)
    if kept_in is not None:
        interrupted(f"the finished tuning generations are kept in {kept_in}", "continues")
    interrupted("the arms played to their end are kept; the tables were not written", "resumes")


MAX_TOURNAMENT_SEED = (MAX_SEED - PAIR_SEEDS) // PAIR_SEEDS


def _player(
    chunk_size: int, threads: int, quiet: bool, backend: Any, arms: int | None = None, unit: str = "arm"
) -> Any:
    """Each arm played with the chunked runner on ``backend`` and a progress bar
    (sim.experiments.arms.ArmPlayer). Ctrl-C says what the whole command kept, not only the
    arm it stopped in (issue 21.8): the ``arms`` (``unit``s) complete and the games of the one
    being played, in the experiment's directory."""
    complete: list[str] = []

    def play(spec: Any, out: Path, games: int, description: str) -> Any:
        def kept(in_arm: int) -> str:
            done = len(complete)
            whole = f"{done:,} of {plural(arms, unit)}" if arms else plural(done, unit)
            text = f"{whole} complete"
            if in_arm:
                text += f" and {in_arm:,} of {games:,} games of {unit} {done + 1} ({description})"
            return f"{text} kept in {out.parent}"

        summary = run_with_progress(
            spec,
            out,
            games,
            chunk_size,
            threads,
            quiet=quiet,
            description=description,
            backend=backend,
            kept_text=kept,
        )
        complete.append(description)
        return summary

    return play


def _prepared(chosen: Any, retuning: Retuning, quiet: bool, threads: int, games: int, per_arm: int) -> Any:
    """A paired experiment's --retune settings (:func:`_retune`), after the resources of its
    ``games`` in all are checked (arms of at least two games, ``per_arm``; smaller ones are the
    experiment's one-line error)."""
    settings = _experiment(_retune, chosen, retuning, threads, quiet)
    if per_arm >= 2:
        check_resources(threads, games)
    return settings


def _experiment(run: Any, *arguments: Any, **options: Any) -> Any:
    """``run(*arguments, **options)`` (an experiment of sim.experiments.paired, or a check), its
    bad input a one-line error and Ctrl-C saying what it kept."""
    try:
        return run(*arguments, **options)
    except USER_ERRORS as e:
        fail(str(e))
    except KeyboardInterrupt as e:
        _interrupted(e)


def _show(result: Any, label_a: str = "A", label_b: str = "B") -> None:
    """A paired experiment's lines and tables: the game's paired metrics (a family table, or
    ablate --each's summary), or the win rates by each column the game pairs by."""
    from sim.experiments.paired import WinRates

    if result.warning:  # the small-experiment warning, on stderr (it is in the Markdown header too)
        typer.echo(f"soup: warning: {result.warning}", err=True)
    for line in result.lines:
        typer.echo(line)
    if isinstance(result, WinRates):
        for key, table in result.tables.items():
            _paired_table(f"Win rate by {key.replace('_', ' ')}, B - A (paired by game)", table, key)
        typer.echo(f"table: {result.files[0]}")
        return
    if result.summary is None:
        print_comparison(result.table, label_a, label_b, result.sign_test)
        _summary_line(result.table)
    else:
        _print_ablation_summary(result.summary, result.table)
    _print_changes(result.printed_changes())
    typer.echo("tables: " + ", ".join(str(f) for f in result.files))


# --------------------------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------------------------


def _value(v: float, kind: str) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "nan"
    return f"{100 * v:.2f}%" if kind == "rate" else f"{v:.3f}"


def _diff(v: float, kind: str) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "nan"
    return f"{100 * v:+.2f}pp" if kind == "rate" else f"{v:+.3f}"


def _console() -> Any:
    """A rich console on stdout; wide enough for the tables when stdout is a file or a pipe,
    unless ``COLUMNS`` asks for a width (rich honours it; the tables then fit it, see
    :func:`print_comparison`)."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal and console.width < 120 and not os.environ.get("COLUMNS"):
        console = Console(width=120)
    return console


# Below this console width the comparison tables drop ``n`` and the raw p (both are in the
# CSV/Markdown): with them a table needs about 105 columns, and rich would cut every number
# of an 80-column terminal to "40.…".
NARROW = 110
MARK_SIGNIFICANT = "*"
MARK_SIGN_TEST = "s"
MARK_BY_CONSTRUCTION = "†"


def print_comparison(
    table: Any, label_a: str = "A", label_b: str = "B", sign_test: tuple[str, int] | None = None
) -> None:
    """The comparison table, one rich table per family, on stdout (rates in %, their differences
    and intervals in percentage points; over several decks, ``--decks``, also each row's range of
    per-deck differences and whether they all have its sign). Markers, explained in a line under
    each table that has them: ``*`` Holm-significant, ``s`` p-value from the exact sign test,
    ``†`` (in the group cell, so no long note widens a column) a removed gene's own purchase
    rate, 0 by construction and not tested (``sign_test``: the test column's value of a sign
    test and below how many changed games it is used; None marks none). q-values are in the
    CSV/Markdown; so are ``n`` and the raw p when the console is narrower than :data:`NARROW`."""
    from rich import box
    from rich.table import Table

    from analysis.tables import fmt

    test_sign, exact_below = sign_test or (None, 0)  # None: no row is marked as sign-tested

    console = _console()
    wide = console.width >= NARROW
    for family in table["family"].unique(maintain_order=True).to_list():
        part = table.filter(table["family"] == family)
        t = Table(
            title=f"{family}: diff = {label_b} - {label_a}, paired by game (Holm within the family)",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
        )
        t.add_column("group", justify="left", overflow="fold", min_width=8)
        cols = (["n"] if wide else []) + [label_a, label_b, "diff", "95% CI"] + (["p"] if wide else [])
        decks = "deck_min" in part.columns  # --decks K > 1: each row's per-deck range and sign
        cols += ["per deck", "same sign"] if decks else []
        for col in (*cols, "p Holm", ""):
            t.add_column(col, justify="right", no_wrap=True)
        used: set[str] = set()
        for r in part.iter_rows(named=True):
            k = r["kind"]
            group = str(r["group"] if family != "game" else r["metric"])
            if r.get("by_construction"):
                group += " " + MARK_BY_CONSTRUCTION
                used.add(MARK_BY_CONSTRUCTION)
            mark = (MARK_SIGNIFICANT if r["significant"] else "") + (
                MARK_SIGN_TEST if r.get("test") == test_sign else ""
            )
            used.update(mark)
            cells = [group] + ([f"{r['n']:,}"] if wide else [])
            cells += [_value(r["a"], k), _value(r["b"], k), _diff(r["diff"], k), _interval(r, k)]
            cells += [fmt(r["p_value"], "p")] if wide else []
            if decks:
                cells += [_interval({"ci_low": r["deck_min"], "ci_high": r["deck_max"]}, k)]
                cells += ["yes" if r["same_sign"] else "no"]
            cells += [fmt(r["p_holm"], "p"), mark]
            t.add_row(*cells)
        console.print(t)
        notes = {
            MARK_SIGNIFICANT: "*: Holm-significant",
            MARK_SIGN_TEST: f"s: p from the exact sign test (fewer than {exact_below} games changed)",
            MARK_BY_CONSTRUCTION: "†: the removed gene's own purchase rate, 0 by construction, not tested",
        }
        legend = [notes[m] for m in notes if m in used]
        if legend:
            console.print("; ".join(legend), highlight=False, markup=False)


def _interval(r: dict[str, Any], kind: str) -> str:
    """The 95% interval without the unit (the diff column carries it), to keep the table narrow."""
    lo, hi = _diff(r["ci_low"], kind), _diff(r["ci_high"], kind)
    return f"[{lo.removesuffix('pp')}, {hi.removesuffix('pp')}]"


# --------------------------------------------------------------------------------------------
# soup compare
# --------------------------------------------------------------------------------------------


@grouped
def compare(
    *,
    game: GameName = DEFAULT_GAME,
    rules: Annotated[
        list[str] | None,
        typer.Option(
            "--rules",
            "-r",
            help="Rules of A, then of B: house-rules TOML files or 'default'. One --rules compares the "
            "default rules (A) with it (B).",
        ),
    ] = None,
    table: Table,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per rule set (at least 2).")] = 20_000,
    lineup: Lineup,
    threads: Threads = CPUS,
    chunk_size: ChunkSize = 20_000,
    out: Annotated[
        Path | None,
        typer.Option(help="Directory for both runs (a/, b/) and the tables (default: results/compare-...)."),
    ] = None,
    running: Running,
    retuning: Retuning,
    decks: Decks = 1,
) -> None:
    """Play the same games under two rule sets and report what changed (B - A), paired by game.

    Both arms share the seed, game indices, strategy assignment and seating (common random
    numbers), so game i is the same deal under A and B. Reports per-strategy and per-seat win
    rates, mean rounds, the finish-zone share and every gene's purchase rate, with paired 95%
    intervals, p-values and the Holm correction within each family. Example:

    soup compare --rules default --rules house.toml --games 20000 --pool greedy,breeder,predator

    With --retune every strategy is first re-tuned under each arm's rules (docs/experiments.md).
    With --decks K both arms are played over the same K plausible environment decks (V6).
    A game without paired tables of its own reports the win rates by strategy and by seat,
    paired (sim.experiments.paired); --retune and --decks need the game's capabilities.
    """
    from sim.experiments import paired

    chosen = game_for(game, "compare")
    settings = _prepared(chosen, retuning, running.quiet, threads, 2 * games, games)
    setup = lineup.setup(table, games)
    with running.open(threads) as engine:
        play = _player(chunk_size, threads, running.quiet, engine, 2, "arm")
        result = _experiment(paired.compare, chosen, rules, setup, out, play, settings, decks)
    _show(result)


def _print_changes(printed: tuple[str, Any] | None) -> None:
    """--retune: the tuned parameters that differ most between the arms, per strategy (the
    experiment's title and rows, Comparison.printed_changes)."""
    if printed is None:
        return

    title, changes = printed
    t = keyed_table(title, changes.columns, ("strategy", "parameter"))
    for r in changes.iter_rows():
        t.add_row(*(v if isinstance(v, str) else f"{v:.3g}" for v in r))
    _console().print(t)


def _summary_line(table: Any) -> None:
    """The significant findings in one line; a removed gene's own purchase-rate drop is reported
    on its own line as "by construction" (it is the ablation itself, not a finding)."""
    if "by_construction" in table.columns:
        for r in table.filter(table["by_construction"]).iter_rows(named=True):
            typer.echo(
                f"By construction (not tested): {r['group']} purchase rate {100 * r['a']:.2f}% ->"
                f" {100 * r['b']:.2f}% (the gene is removed from the deck)"
            )
    sig = table.filter(table["significant"])
    if sig.height == 0:
        typer.echo("No difference is significant after the Holm correction.")
    else:
        items = [
            f"{r['family']}: {r['group'] if r['family'] != 'game' else r['metric']}"
            for r in sig.iter_rows(named=True)
        ]
        typer.echo(f"{sig.height} significant after Holm: " + "; ".join(items))


# --------------------------------------------------------------------------------------------
# soup ablate
# --------------------------------------------------------------------------------------------


@grouped
def ablate(
    *,
    gene: Annotated[
        list[str] | None,
        typer.Option("--gene", "-g", help="Gene to remove from the deck (repeat to remove a set together)."),
    ] = None,
    each: Annotated[
        bool, typer.Option("--each", help="Remove each gene in turn (one run per gene).")
    ] = False,
    action: Annotated[
        list[str] | None,
        typer.Option(
            "--action",
            help="Chromosome: a species' special action (its id, e.g. FE3) taken off its board (repeatable).",
        ),
    ] = None,
    rules: Annotated[
        Path | None,
        typer.Option("--rules", "-r", help="House-rules TOML file of the baseline (default rules)."),
    ] = None,
    table: Table,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per run (at least 2).")] = 10_000,
    lineup: Lineup,
    threads: Threads = CPUS,
    chunk_size: ChunkSize = 20_000,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Directory for the runs (baseline/, minus-{gene}/) and tables (default: results/ablate-...)."
        ),
    ] = None,
    running: Running,
    retuning: Retuning,
    decks: Decks = 1,
    game: GameName = DEFAULT_GAME,
) -> None:
    """Remove genes from the deck (0 copies) and report what changes against the full deck, paired by game.

    --gene removes one gene or, repeated, a set together (the same tables as soup compare).
    --each removes every gene in turn and prints one row per gene: its purchase rate in the
    baseline, the change of game length and finish-zone share, and every strategy's win-rate
    change; the Holm correction spans the whole family (all genes x all strategies). Examples:

    soup ablate --gene "Division Rate" --games 20000

    soup ablate --each --games 5000 --pool greedy,breeder,predator

    With --game chromosome: --gene Y|P|R|B removes a gene colour's use (R: no combat strength;
    B: no test bonus, no discard) and --action ID a species' special action (the full species
    mode in both arms); paired win rates by strategy, seat and species:

    soup ablate --game chromosome --action FE3 --players 3 --games 20000
    """
    from sim.experiments import paired

    chosen = game_for(game, "ablate")
    settings = _prepared(chosen, retuning, running.quiet, threads, games, games)
    setup = lineup.setup(table, games)
    with running.open(threads) as engine:
        play = _player(chunk_size, threads, running.quiet, engine, None if each else 2, "run")
        result = _experiment(
            paired.ablate, chosen, gene or [], each, rules, setup, out, play, settings, decks, action or ()
        )
    _show(result, "with", "without")


def _print_ablation_summary(summary: Any, table: Any) -> None:
    """One row per removed gene. Only the gene column may wrap; the numbers never do, so rich
    must not cut them to "+18.…": below :data:`NARROW` columns the changes in percentage points
    get one decimal and the cells no padding (the blank column rule still parts them), and the
    default pool's table fits 80 columns (more strategies need a wider terminal or the Markdown)."""
    from rich import box
    from rich.table import Table

    console = _console()
    digits = 2 if console.width >= NARROW else 1
    strat_cols = [c for c in summary.columns if c.startswith("d win ")]
    sig = {
        (r["removed"], r["group"])
        for r in table.filter(table["significant"] & (table["family"] == "win rate by strategy")).iter_rows(
            named=True
        )
    }
    t = Table(
        title="Removing one gene: change against the full deck of the mean rounds, the finish-zone share"
        " and each strategy's win rate (pp: percentage points; *: Holm-significant)",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1) if digits == 2 else (0, 0),
    )
    t.add_column("removed", justify="left", overflow="fold", min_width=10)
    for col in ("bought", "rounds", "finish", *[c.removeprefix("d win ") for c in strat_cols]):
        t.add_column(col, justify="right", no_wrap=True)
    for r in summary.iter_rows(named=True):
        cells = [
            r["removed"],
            f"{100 * r['baseline purchase rate']:.1f}%",
            f"{r['d rounds']:+.3f}" + ("*" if r["d rounds p_holm"] < 0.05 else ""),
            f"{100 * r['d finish-zone share']:+.{digits}f}"
            + ("*" if r["d finish-zone share p_holm"] < 0.05 else ""),
        ]
        for c in strat_cols:
            mark = "*" if (r["removed"], c.removeprefix("d win ")) in sig else ""
            cells.append(f"{100 * r[c]:+.{digits}f}{mark}")
        t.add_row(*cells)
    console.print(t)


# --------------------------------------------------------------------------------------------
# soup tournament
# --------------------------------------------------------------------------------------------


@grouped
def tournament(
    *,
    game: GameName = DEFAULT_GAME,
    strategies: Annotated[
        str | None,
        typer.Option(
            help="Strategies, comma-separated (presets or .toml files); every pair plays. Default: the "
            "game's presets (its field, weakest by design first, where the game names one)."
        ),
    ] = None,
    table: Table,
    games: Annotated[
        int,
        typer.Option(
            "--games", "-n", help="Games per pair (rounded up to twice the seating block: 2 P!, 20 or 12)."
        ),
    ] = 2_000,
    rules: Annotated[Path | None, typer.Option("--rules", "-r", help="House-rules TOML file.")] = None,
    seed: Annotated[
        int,
        typer.Option(
            "--seed",
            "-s",
            min=0,
            max=MAX_TOURNAMENT_SEED,
            help="Seed of the tournament: pair k plays seed SEED*10000+k.",
        ),
    ] = 1,
    anchor: Annotated[
        str | None, typer.Option(help="Strategy rated 0 (default: the ratings average 0).")
    ] = None,
    threads: Threads = CPUS,
    chunk_size: ChunkSize = 20_000,
    out: Annotated[
        Path | None,
        typer.Option(help="Directory for the pair runs and the tables (default: results/tournament-...)."),
    ] = None,
    plot: Annotated[bool, typer.Option(help="Also draw the win-rate matrix as a heatmap PNG.")] = True,
    running: Running,
) -> None:
    """Round robin: every pair of strategies plays head to head, half the seats each, seats rotated.

    With an even count a table is A,B,A,B(,A,B); with an odd one tables alternate A,B,A(,B,A) and
    B,A,B(,A,B). Prints the
    win-rate matrix (share of the pair's games won by the row strategy, 95% Wilson interval) and
    Bradley-Terry ratings on an Elo scale (400 points = 10:1 odds) with 95% intervals from the
    Fisher information. Pair k plays with seed SEED*10000+k. Example:

    soup tournament --strategies greedy,breeder,predator,forager --games 4000 --anchor greedy

    A game without paired tables of its own: the win-rate matrix and its equilibrium
    (sim.experiments.tournament); --anchor needs the game's ratings.
    """
    from sim.experiments import paired

    chosen = game_for(game, "tournament")
    if games >= 1:
        check_resources(threads, games)
    pairs = _pairs(chosen, strategies)
    setup = paired.Setup(table.players, games, seed, variant=table.variant)
    with running.open(threads) as engine:
        play = _player(chunk_size, threads, running.quiet, engine, pairs, "pair")
        result = _experiment(paired.tournament, chosen, strategies, setup, rules, anchor, out, play, plot)
    if isinstance(result, paired.RoundRobin):
        _print_round_robin(result)
        return
    for line in result.lines:
        typer.echo(line)
    _print_tournament(result.ratings, result.matrix, result.names, result.equilibrium)
    typer.echo("tables: " + ", ".join(str(f) for f in result.files))


def _pairs(chosen: Any, strategies: str | None) -> int:
    """How many pairs a round robin of ``strategies`` (default: the game's field) plays."""
    from sim.experiments.paired import default_field

    try:
        k = len(strategy_list(strategies or default_field(chosen), "--strategies"))
    except USER_ERRORS as e:
        fail(str(e))
    return k * (k - 1) // 2


def _print_round_robin(result: Any) -> None:
    """A round robin without the game's ratings: its win-rate matrix and equilibrium."""

    names, w = result.names, result.matrix
    m = keyed_table("Share of the pair's wins of the row strategy", ("strategy", *names))
    for i, a in enumerate(names):
        m.add_row(a, *("—" if i == j else f"{w[i, j]:.3f}" for j in range(len(names))))
    _console().print(m)
    e = keyed_table("Equilibrium of the meta-game", ("strategy", "weight", "regret"))
    for r in result.equilibrium.iter_rows(named=True):
        e.add_row(r["strategy"], f"{r['weight']:.3f}", f"{r['regret']:.3f}")
    _console().print(e)


def _print_tournament(ratings: Any, matrix: Any, names: list[str], equilibrium: Any = None) -> None:

    console = _console()
    cells = {
        "rating": "{rating:+.0f}",
        "95% CI": "[{ci_low:+.0f}, {ci_high:+.0f}]",
        "games": "{games:,}",
        "win rate": "{win_rate:.3f}",
    }
    console.print(rows_table("Bradley-Terry ratings (Elo scale)", ratings, "strategy", cells))
    half = float((matrix["ci_high"] - matrix["ci_low"]).max()) / 2
    m = keyed_table(
        f"Share of games the row strategy won against the column strategy (95% intervals within"
        f" ±{half:.3f}; see tournament.md)",
        ("strategy", *names),
    )
    cells = {(r["strategy"], r["opponent"]): r["win_rate"] for r in matrix.iter_rows(named=True)}
    for a in names:
        m.add_row(a, *("—" if a == b else f"{cells[a, b]:.3f}" for b in names))
    console.print(m)
    if equilibrium is None:
        return
    e = keyed_table(
        "Equilibrium of the meta-game (weight in the mix; regret = win rate given up against it)",
        ("strategy", "weight", "in support", "regret"),
    )
    for r in equilibrium.iter_rows(named=True):
        support = "yes" if r["in_support"] else "no"
        e.add_row(r["strategy"], f"{r['weight']:.3f}", support, f"{r['regret']:.3f}")
    console.print(e)


def _paired_table(title: str, table: Any, key: str) -> None:
    cells = {
        "rows": "{rows:,}",
        "A": "{win_rate_a:.3f}",
        "B": "{win_rate_b:.3f}",
        "B - A": "{difference:+.3f}",
        "95% CI": "[{low:+.3f}, {high:+.3f}]",
    }
    _console().print(rows_table(title, table, key, cells))


# --------------------------------------------------------------------------------------------
# soup skill
# --------------------------------------------------------------------------------------------


def skill(
    game: GameName = DEFAULT_GAME,
    players: Players = 4,
    games: Annotated[
        int, typer.Option("--games", "-n", min=1, help="Games per rung (paired: the same games).")
    ] = 200,
    budgets: Annotated[
        str, typer.Option(help="The search rungs' budgets (rollouts a decision), comma-separated, doubling.")
    ] = "16,32,64",
    rungs: Annotated[
        str | None,
        typer.Option(help="The rungs, comma-separated (default: random, the presets, search at --budgets)."),
    ] = None,
    field: Annotated[
        str | None,
        typer.Option(
            help="The strategy at every other seat (default: the game's field, or its default strategy)."
        ),
    ] = None,
    rules: Annotated[Path | None, typer.Option("--rules", "-r", help="House-rules TOML file.")] = None,
    seed: Seed = 1,
    threads: Threads = CPUS,
    out: Annotated[Path | None, typer.Option(help="Directory for the rungs' runs and the figure.")] = None,
) -> None:
    """A skill ladder (issue 33): random, each preset and search at doubling budgets, each at
    player 0 against a fixed field on the same games (paired by seed and seats). Prints every
    rung's win rate with its 95% Wilson interval and, when the field's strategy is a rung, its
    paired gain over that strategy at the same seat (the same games: the games' luck cancels),
    the skill depth (the strongest rung's win rate minus random's) and the skill curve (each
    doubling of the search budget's paired gain: whether it still gains), and draws skill.png.
    Example: soup skill --players 4 --games 400 --budgets 8,16,32,64"""
    from sim.experiments.skill import (
        default_rungs,
        ladder,
        ladder_doc,
        skill_curve,
        skill_depth,
        write_ladder,
    )

    chosen = game_for(game, "skill")
    try:
        book = chosen.load_rules([rules] if rules is not None else [])
        chosen.check_players(book, players)
        sizes = tuple(int(b) for b in strategy_list(budgets, "--budgets"))
        if any(b < 1 for b in sizes):
            raise ValueError
    except ValueError:
        fail(f"--budgets: expected positive integers, comma-separated, got {budgets!r}")
    except USER_ERRORS as e:
        fail(str(e))
    names = strategy_list(rungs, "--rungs") if rungs else default_rungs(chosen, sizes)
    opponent = field or chosen.info.skill_field or chosen.info.default_strategy
    out = out or Path("results") / f"skill-{game}-{players}p-seed{seed}-{games}"
    check_resources(threads, games)
    result = _experiment(ladder, chosen, book, players, names, opponent, seed, games, out, threads)
    _print_ladder(f"Skill ladder: {game}, {players} players, each rung against {opponent}", result, opponent)
    depth, best = skill_depth(result, chosen.info.random_strategy)
    typer.echo(f"skill depth: {depth:+.3f} (strongest rung: {best}; parity {1 / players:.3f})")
    for g in skill_curve(result):
        typer.echo(
            f"{g.base} -> {g.better}: {g.estimate:+.3f} [{g.low:+.3f}, {g.high:+.3f}] paired "
            f"({'still gains' if g.significant else 'no significant gain'})"
        )
    doc = ladder_doc(game, players, opponent, result, chosen.info.random_strategy)
    data, path = write_ladder(out, doc)
    typer.echo(f"ladder: {data}")
    typer.echo(f"figure: {path}")


def _print_ladder(title: str, result: Any, opponent: str) -> None:
    """Every rung's win rate with its interval and, when the field's strategy is a rung, its paired
    gain over that strategy."""

    from sim.experiments.skill import over_field

    gains = {g.better: g for g in over_field(result, opponent)}
    columns = ["rung", "games", "win rate", "95% CI"]
    if gains:
        columns += [f"over {opponent} (paired)", "95% CI "]
    t = keyed_table(title, columns, ("rung",))
    for r in result:
        row = [r.strategy, str(r.games), f"{r.rate:.3f}", f"[{r.low:.3f}, {r.high:.3f}]"]
        if gains:
            g = gains.get(r.strategy)
            row += [f"{g.estimate:+.3f}", f"[{g.low:+.3f}, {g.high:+.3f}]"] if g else ["(base)", ""]
        t.add_row(*row)
    _console().print(t)
