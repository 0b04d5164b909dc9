"""``soup compare``, ``soup ablate`` and ``soup tournament``: the command-line layer.

The experiments themselves (how arms are built, played, paired and tabulated, and their
Markdown) are in sim.ursuppe.experiments.arms, which a notebook calls the same way; this module
parses the options, plays each arm with a progress bar (:func:`_player`) and prints the tables.
Re-running a command with the same arguments reuses complete runs in ``--out``; an ``--out``
holding a different run is a user error. See docs/experiments.md.
"""

import math
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from sim import out_dirs
from sim.cli.support import (
    DEFAULT_GAME,
    MAX_SEED,
    PLAYERS_HELP,
    USER_ERRORS,
    BackendName,
    GameName,
    RayAddress,
    Variant,
    check_resources,
    fail,
    game_for,
    only_with_ursuppe,
    open_backend,
    plural,
    run_with_progress,
)
from sim.game import strategy_list
from sim.ursuppe.experiments.arms import PAIR_SEEDS, PRESET_ORDER
from strategies.ursuppe import DEFAULT_POOL as SIMULATION_POOL
from strategies.ursuppe import preset_names

DEFAULT_POOL = ",".join(SIMULATION_POOL)

# Options shared by the three commands.
# sim.ursuppe.experiments.retune.DEFAULT_BUDGET, not imported: retune loads the engine (numba), which `soup
# --help` must not (tests/test_trustworthy_runs.py); tests/test_retune.py checks the two agree.
RETUNE_BUDGET = 192_000
Players = Annotated[int, typer.Option("--players", "-p", help=PLAYERS_HELP)]
Seed = Annotated[
    int,
    typer.Option(
        "--seed", "-s", min=0, max=MAX_SEED, help="Seed: game i of seed s is the same game in every arm."
    ),
]
Threads = Annotated[int, typer.Option(min=1, help="Threads (default: all cores).")]
ChunkSize = Annotated[int, typer.Option(min=1, help="Games per Parquet chunk.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
Strategies = Annotated[
    str | None,
    typer.Option(
        help="One strategy per player, comma-separated (a,b,c,d). Presets: "
        + ", ".join(preset_names())
        + "; or .toml files."
    ),
]
Pool = Annotated[
    str, typer.Option(help="Strategies to draw every player of every game from (without --strategies).")
]
Seating = Annotated[
    str,
    typer.Option(
        help="random: a random start-space permutation per game; rotate: every permutation equally often "
        "(5-6 players: a balanced Latin square, every player on every space equally often)."
    ),
]
CPUS = os.cpu_count() or 1
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


def _retune(on: bool, budget: int, params: str, per_candidate: int, threads: int, quiet: bool) -> Any:
    """The --retune settings (None without --retune), with a progress bar for the tuning."""
    if not on:
        given = [
            name
            for name, value, default in (
                ("--retune-budget", budget, RETUNE_BUDGET),
                ("--retune-params", params, "default"),
                ("--retune-games-per-candidate", per_candidate, 1200),
            )
            if value != default
        ]
        if given:
            fail(f"{', '.join(given)}: only with --retune")
        return None
    from sim.cli.support import progress_bar
    from sim.ursuppe.experiments.retune import Retune

    return Retune(
        budget, params, per_candidate, threads, bar=lambda total: progress_bar(total, "re-tuning", quiet)
    )


def _interrupted(e: KeyboardInterrupt) -> None:
    """Ctrl-C outside an arm's run (whose own Ctrl-C says what it kept): while re-tuning
    (sim.ursuppe.experiments.retune.Interrupted names the directory), or after the arms, while tabulating."""
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
    (sim.ursuppe.experiments.arms.ArmPlayer). Ctrl-C says what the whole command kept, not only the
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


def _check_decks(decks: int, games: int) -> None:
    """A bad --decks (or too few games for it) ends the command in one line before any work."""
    from sim.errors import UserError
    from sim.ursuppe.experiments.arms import check_decks

    try:
        check_decks(decks, games)
    except UserError as e:
        fail(str(e))


def _warn(warning: str | None) -> None:
    """The small-experiment warning on stderr (it is in the Markdown header too)."""
    if warning:
        typer.echo(f"soup: warning: {warning}", err=True)


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


def print_comparison(table: Any, label_a: str = "A", label_b: str = "B") -> None:
    """The comparison table, one rich table per family, on stdout (rates in %, their differences
    and intervals in percentage points; over several decks, ``--decks``, also each row's range of
    per-deck differences and whether they all have its sign). Markers, explained in a line under
    each table that has them: ``*`` Holm-significant, ``s`` p-value from the exact sign test,
    ``†`` (in the group cell, so no long note widens a column) a removed gene's own purchase
    rate, 0 by construction and not tested. q-values are in the CSV/Markdown; so are ``n`` and the raw p
    when the console is narrower than :data:`NARROW`."""
    from rich import box
    from rich.table import Table

    from analysis.tables import fmt
    from analysis.ursuppe.paired import EXACT_BELOW, TEST_SIGN

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
                MARK_SIGN_TEST if r.get("test") == TEST_SIGN else ""
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
            MARK_SIGN_TEST: f"s: p from the exact sign test (fewer than {EXACT_BELOW} games changed)",
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


def compare(
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
    players: Players = 4,
    variant: Variant = None,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per rule set (at least 2).")] = 20_000,
    strategies: Strategies = None,
    pool: Pool = DEFAULT_POOL,
    seating: Seating = "rotate",
    seed: Seed = 1,
    threads: Threads = CPUS,
    chunk_size: ChunkSize = 20_000,
    out: Annotated[
        Path | None,
        typer.Option(help="Directory for both runs (a/, b/) and the tables (default: results/compare-...)."),
    ] = None,
    quiet: Quiet = False,
    backend: BackendName = "local",
    ray_address: RayAddress = None,
    retune: RetuneFlag = False,
    retune_budget: RetuneBudget = RETUNE_BUDGET,
    retune_params: RetuneParams = "default",
    retune_games_per_candidate: RetuneGames = 1200,
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
    With --game another than ursuppe: the win rates by strategy and by seat, paired
    (sim.experiments.compare); --variant, --retune and --decks are Ursuppe's.
    """
    if game != DEFAULT_GAME:
        only_with_ursuppe(variant=variant is not None, retune=retune, decks=decks != 1)
        _compare_other(
            game,
            rules,
            players,
            games,
            strategies,
            pool,
            seed,
            threads,
            chunk_size,
            out,
            backend,
            ray_address,
        )
        return
    from sim.ursuppe.experiments import arms as experiments

    _check_decks(decks, games)
    if games >= 2:
        check_resources(threads, 2 * games)
    settings = _retune(retune, retune_budget, retune_params, retune_games_per_candidate, threads, quiet)
    try:
        with open_backend(backend, threads, ray_address) as engine:
            result = experiments.compare(
                rules,
                players,
                games,
                strategies,
                pool,
                seating,
                seed,
                out,
                _player(chunk_size, threads, quiet, engine, 2, "arm"),
                variant=variant,
                retune=settings,
                decks=decks,
            )
    except USER_ERRORS as e:
        fail(str(e))
    except KeyboardInterrupt as e:
        _interrupted(e)
    _warn(result.warning)
    for line in result.lines:
        typer.echo(line)
    print_comparison(result.table)
    _summary_line(result.table)
    _print_changes(result.changes)
    typer.echo("tables: " + ", ".join(str(f) for f in result.files))


def _print_changes(changes: Any) -> None:
    """--retune: the tuned parameters that differ most between the arms, per strategy."""
    if changes is None:
        return
    from rich import box
    from rich.table import Table

    from sim.ursuppe.experiments.retune import PRINTED

    title = "Re-tuned parameters that differ most between the arms"
    if changes.height > PRINTED:
        title += f" (the {PRINTED} largest moves; all in retune-changes.md)"
        changes = changes.sort("moved", descending=True, maintain_order=True).head(PRINTED)
    t = Table(title=title, box=box.SIMPLE_HEAD)
    for col in changes.columns:
        t.add_column(col, justify="left" if col in ("strategy", "parameter") else "right")
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


def ablate(
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
    players: Players = 4,
    variant: Variant = None,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per run (at least 2).")] = 10_000,
    strategies: Strategies = None,
    pool: Pool = DEFAULT_POOL,
    seating: Seating = "rotate",
    seed: Seed = 1,
    threads: Threads = CPUS,
    chunk_size: ChunkSize = 20_000,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Directory for the runs (baseline/, minus-{gene}/) and tables (default: results/ablate-...)."
        ),
    ] = None,
    quiet: Quiet = False,
    backend: BackendName = "local",
    ray_address: RayAddress = None,
    retune: RetuneFlag = False,
    retune_budget: RetuneBudget = RETUNE_BUDGET,
    retune_params: RetuneParams = "default",
    retune_games_per_candidate: RetuneGames = 1200,
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
    chosen = game_for(game, "ablate")
    if game != DEFAULT_GAME:
        only_with_ursuppe(variant=variant is not None, retune=retune, decks=decks != 1)
        if each:
            fail("--each: an experiment of ursuppe's gene deck; name what to remove with --gene or --action")
        try:
            a, b, header = chosen.ablation(
                chosen.load_rules([rules] if rules else []), [*(gene or []), *(action or [])]
            )
        except USER_ERRORS as e:
            fail(str(e))
        mix = None if pool == DEFAULT_POOL else pool
        removed = "-".join([*(gene or []), *(action or [])])
        out = out or Path("results") / f"ablate-{game}-{removed}-{players}p-seed{seed}-{games}"
        _paired_arms(
            chosen,
            a,
            b,
            header,
            "ablate",
            players,
            games,
            strategies,
            mix,
            seed,
            threads,
            out,
            backend,
            ray_address,
        )
        return
    if action:
        fail("--action: a Chromosome special action; ursuppe removes genes (--gene)")
    from sim.ursuppe.experiments import arms as experiments

    if each == bool(gene):
        fail("--gene/--each: give one or more --gene NAME, or --each")
    _check_decks(decks, games)
    if games >= 2:
        check_resources(threads, games)
    settings = _retune(retune, retune_budget, retune_params, retune_games_per_candidate, threads, quiet)
    try:
        with open_backend(backend, threads, ray_address) as engine:
            result = experiments.ablate(
                gene,
                each,
                rules,
                players,
                games,
                strategies,
                pool,
                seating,
                seed,
                out,
                _player(chunk_size, threads, quiet, engine, None if each else 2, "run"),
                variant=variant,
                retune=settings,
                decks=decks,
            )
    except USER_ERRORS as e:
        fail(str(e))
    except KeyboardInterrupt as e:
        _interrupted(e)
    _warn(result.warning)
    for line in result.lines:
        typer.echo(line)
    if not each:
        print_comparison(result.table, "with", "without")
        _summary_line(result.table)
    else:
        _print_ablation_summary(result.summary, result.table)
    _print_changes(result.changes)
    typer.echo("tables: " + ", ".join(str(f) for f in result.files))


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


def tournament(
    game: GameName = DEFAULT_GAME,
    strategies: Annotated[
        str | None,
        typer.Option(
            help="Strategies, comma-separated (presets or .toml files); every pair plays. Default: the "
            f"game's presets (ursuppe: {','.join(PRESET_ORDER)})."
        ),
    ] = None,
    players: Players = 4,
    variant: Variant = None,
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
    quiet: Quiet = False,
    backend: BackendName = "local",
    ray_address: RayAddress = None,
) -> None:
    """Round robin: every pair of strategies plays head to head, half the seats each, seats rotated.

    With an even count a table is A,B,A,B(,A,B); with an odd one tables alternate A,B,A(,B,A) and
    B,A,B(,A,B). Prints the
    win-rate matrix (share of the pair's games won by the row strategy, 95% Wilson interval) and
    Bradley-Terry ratings on an Elo scale (400 points = 10:1 odds) with 95% intervals from the
    Fisher information. Pair k plays with seed SEED*10000+k. Example:

    soup tournament --strategies greedy,breeder,predator,forager --games 4000 --anchor greedy

    With --game another than ursuppe: the win-rate matrix and its equilibrium
    (sim.experiments.tournament); --variant and --anchor are Ursuppe's.
    """
    if game != DEFAULT_GAME:
        only_with_ursuppe(variant=variant is not None, anchor=anchor is not None)
        _tournament_other(game, strategies, players, games, rules, seed, threads, chunk_size, out)
        return
    strategies = strategies or ",".join(PRESET_ORDER)
    from sim.ursuppe.experiments import arms as experiments

    if games >= 1:
        check_resources(threads, games)
    try:
        names = strategy_list(strategies, "--strategies")
        pairs = len(names) * (len(names) - 1) // 2
        with open_backend(backend, threads, ray_address) as engine:
            result = experiments.tournament(
                names,
                players,
                games,
                rules,
                seed,
                anchor,
                out,
                _player(chunk_size, threads, quiet, engine, pairs, "pair"),
                plot=plot,
                variant=variant,
            )
    except USER_ERRORS as e:
        fail(str(e))
    for line in result.lines:
        typer.echo(line)
    _print_tournament(result.ratings, result.matrix, result.names, result.equilibrium)
    typer.echo("tables: " + ", ".join(str(f) for f in result.files))


def _print_tournament(ratings: Any, matrix: Any, names: list[str], equilibrium: Any = None) -> None:
    from rich import box
    from rich.table import Table

    console = _console()
    t = Table(title="Bradley-Terry ratings (Elo scale)", box=box.SIMPLE_HEAD)
    for col in ("strategy", "rating", "95% CI", "games", "win rate"):
        t.add_column(col, justify="left" if col == "strategy" else "right")
    for r in ratings.iter_rows(named=True):
        t.add_row(
            r["strategy"],
            f"{r['rating']:+.0f}",
            f"[{r['ci_low']:+.0f}, {r['ci_high']:+.0f}]",
            f"{r['games']:,}",
            f"{r['win_rate']:.3f}",
        )
    console.print(t)
    half = float((matrix["ci_high"] - matrix["ci_low"]).max()) / 2
    m = Table(
        title=f"Share of games the row strategy won against the column strategy (95% intervals within"
        f" ±{half:.3f}; see tournament.md)",
        box=box.SIMPLE_HEAD,
    )
    for col in ("strategy", *names):
        m.add_column(col, justify="left" if col == "strategy" else "right")
    cells = {(r["strategy"], r["opponent"]): r["win_rate"] for r in matrix.iter_rows(named=True)}
    for a in names:
        m.add_row(a, *("—" if a == b else f"{cells[a, b]:.3f}" for b in names))
    console.print(m)
    if equilibrium is None:
        return
    e = Table(
        title="Equilibrium of the meta-game (weight in the mix; regret = win rate given up against it)",
        box=box.SIMPLE_HEAD,
    )
    for col in ("strategy", "weight", "in support", "regret"):
        e.add_column(col, justify="left" if col == "strategy" else "right")
    for r in equilibrium.iter_rows(named=True):
        support = "yes" if r["in_support"] else "no"
        e.add_row(r["strategy"], f"{r['weight']:.3f}", support, f"{r['regret']:.3f}")
    console.print(e)


# --- another game than Ursuppe: the game-agnostic experiments (sim/experiments) -------------------


def _paired_table(title: str, table: Any, key: str) -> None:
    from rich import box
    from rich.table import Table

    t = Table(title=title, box=box.SIMPLE_HEAD)
    for col in (key, "rows", "A", "B", "B - A", "95% CI"):
        t.add_column(col, justify="left" if col == key else "right")
    for r in table.iter_rows(named=True):
        t.add_row(
            str(r[key]),
            f"{r['rows']:,}",
            f"{r['win_rate_a']:.3f}",
            f"{r['win_rate_b']:.3f}",
            f"{r['difference']:+.3f}",
            f"[{r['low']:+.3f}, {r['high']:+.3f}]",
        )
    _console().print(t)


def _compare_other(
    game: str,
    rules: list[str] | None,
    players: int,
    games: int,
    strategies: str | None,
    pool: str,
    seed: int,
    threads: int,
    chunk_size: int,
    out: Path | None,
    backend: str,
    ray_address: str | None,
) -> None:
    """soup compare --game NAME: two rule sets on common random numbers, paired win rates."""
    chosen = game_for(game, "compare")
    if not rules or len(rules) > 2:
        fail("--rules: expected one house-rules file (B, against the defaults) or two (A, B; 'default')")
    files = (["default"] + rules)[-2:]
    a, b = (chosen.load_rules([] if f == "default" else [Path(f)]) for f in files)
    # the Ursuppe mix is the option's default: another game plays its own unless --pool names one
    mix = None if pool == DEFAULT_POOL else pool
    out = out or Path("results") / f"compare-{game}-{players}p-seed{seed}-{games}"
    header = f"A: {files[0]} ({chosen.rules_line(a)}), B: {files[1]} ({chosen.rules_line(b)})"
    _paired_arms(
        chosen,
        a,
        b,
        header,
        "compare",
        players,
        games,
        strategies,
        mix,
        seed,
        threads,
        out,
        backend,
        ray_address,
    )


def _paired_arms(
    chosen: Any,
    a: Any,
    b: Any,
    header: str,
    command: str,
    players: int,
    games: int,
    strategies: str | None,
    mix: str | None,
    seed: int,
    threads: int,
    out: Path,
    backend: str,
    ray_address: str | None,
) -> None:
    """Play rules ``a`` and ``b`` on common random numbers and print the paired win-rate tables
    the game shows (GameInfo.paired_by), written to ``out``/comparison.md as well."""
    from analysis.tables import frame_markdown, write_text_atomic
    from sim.experiments.arms import Arm
    from sim.experiments.compare import compare_tables

    check_resources(threads, 2 * games)
    out_dirs.check_writable(out)  # before the engine loads (issue 31.7); each arm's run checks its own
    with open_backend(backend, threads, ray_address) as engine:
        arm_a, arm_b = Arm("A", a, strategies, mix), Arm("B", b, strategies, mix)
        keys = chosen.info.paired_by
        tables = compare_tables(chosen, arm_a, arm_b, players, seed, games, out, threads, engine, keys)
    typer.echo(f"{header}; runs in {out}")
    for key in keys:
        _paired_table(f"Win rate by {key.replace('_', ' ')}, B - A (paired by game)", tables[key], key)
    markdown = "\n".join(frame_markdown(tables[key]) for key in keys)
    write_text_atomic(
        out / "comparison.md", f"# soup {command} --game {chosen.info.name}\n\n{header}\n\n" + markdown
    )
    typer.echo(f"table: {out / 'comparison.md'}")


def _tournament_other(
    game: str,
    strategies: str | None,
    players: int,
    games: int,
    rules: Path | None,
    seed: int,
    threads: int,
    chunk_size: int,
    out: Path | None,
) -> None:
    """soup tournament --game NAME: the round robin's win-rate matrix and its equilibrium."""
    from rich import box
    from rich.table import Table

    from sim.experiments.tournament import round_robin

    chosen = game_for(game, "tournament")
    names = strategy_list(strategies or ",".join(chosen.strategy_names()), "--strategies")
    book = chosen.load_rules([rules] if rules is not None else [])
    out = out or Path("results") / f"tournament-{game}-{players}p-seed{seed}-{games}"
    check_resources(threads, games)
    out_dirs.check_writable(out)  # before the engine loads (issue 31.7)
    w, eq = round_robin(chosen, book, names, players, seed, games, out, threads)
    m = Table(title="Share of the pair's wins of the row strategy", box=box.SIMPLE_HEAD)
    for col in ("strategy", *names):
        m.add_column(col, justify="left" if col == "strategy" else "right")
    for i, a in enumerate(names):
        m.add_row(a, *("—" if i == j else f"{w[i, j]:.3f}" for j in range(len(names))))
    _console().print(m)
    e = Table(title="Equilibrium of the meta-game", box=box.SIMPLE_HEAD)
    for col in ("strategy", "weight", "regret"):
        e.add_column(col, justify="left" if col == "strategy" else "right")
    for r in eq.frame().iter_rows(named=True):
        e.add_row(r["strategy"], f"{r['weight']:.3f}", f"{r['regret']:.3f}")
    _console().print(e)


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
        typer.Option(help="The strategy at every other seat (default: breeder, or the game's default)."),
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
        over_field,
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
    opponent = field or ("breeder" if "breeder" in chosen.strategy_names() else chosen.info.default_strategy)
    out = out or Path("results") / f"skill-{game}-{players}p-seed{seed}-{games}"
    check_resources(threads, games)
    try:
        result = ladder(chosen, book, players, names, opponent, seed, games, out, threads)
    except USER_ERRORS as e:
        fail(str(e))
    from rich import box
    from rich.table import Table

    title = f"Skill ladder: {game}, {players} players, each rung against {opponent}"
    t = Table(title=title, box=box.SIMPLE_HEAD)
    gains = {g.better: g for g in over_field(result, opponent)}
    columns = ["rung", "games", "win rate", "95% CI"]
    if gains:
        columns += [f"over {opponent} (paired)", "95% CI "]
    for col in columns:
        t.add_column(col, justify="left" if col == "rung" else "right")
    for r in result:
        row = [r.strategy, str(r.games), f"{r.rate:.3f}", f"[{r.low:.3f}, {r.high:.3f}]"]
        if gains:
            g = gains.get(r.strategy)
            row += [f"{g.estimate:+.3f}", f"[{g.low:+.3f}, {g.high:+.3f}]"] if g else ["(base)", ""]
        t.add_row(*row)
    _console().print(t)
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
