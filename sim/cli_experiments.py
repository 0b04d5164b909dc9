"""``soup compare``, ``soup ablate`` and ``soup tournament``: paired experiments and a round robin.

The commands run games with the chunked runner (one Parquet run directory per arm or pair, so
every run can be re-analysed in a notebook) and hand the rows to analysis.paired and
analysis.tournament. Re-running a command with the same arguments reuses complete runs in
``--out``; an ``--out`` holding a different run is a user error. See docs/experiments.md.
"""

import math
import os
import re
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sim.cli_support import (
    MAX_SEED,
    PLAYERS_HELP,
    USER_ERRORS,
    build_run,
    check_players,
    check_resources,
    fail,
    run_with_progress,
)
from strategies import DEFAULT_POOL as SIMULATION_POOL
from strategies import preset_names

if TYPE_CHECKING:  # the engine is imported by the commands when they run, not by `soup --help`
    from sim.ursuppe.rules import RuleBook

DEFAULT_POOL = ",".join(SIMULATION_POOL)
# The tournament's default field: every preset, weakest-by-design first.
PRESET_ORDER = ("random", "drifter", "greedy", "breeder", "geneticist", "predator", "forager")
DEFAULT_RULES = "default"  # the --rules value that means the built-in rules

# Options shared by the three commands.
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
# Pair k of a tournament plays seed SEED * 10,000 + k, which must stay a valid run seed.
PAIR_SEEDS = 10_000
MAX_TOURNAMENT_SEED = (MAX_SEED - PAIR_SEEDS) // PAIR_SEEDS


# --------------------------------------------------------------------------------------------
# Running arms
# --------------------------------------------------------------------------------------------


def _check_out(out: Path) -> None:
    """A user error unless ``out`` (and every run directory below it) can be a directory: checked
    before any game is played, so a bad --out leaves nothing behind."""
    for path in (out, *out.parents):
        if path.exists() and not path.is_dir():
            fail(f"--out: {path} is a file, not a directory; choose another --out")
    if out.exists() and not os.access(out, os.W_OK | os.X_OK):
        fail(f"--out: {out} is not writable; choose another --out")


def _check_games(games: int, least: int, what: str) -> None:
    """``--games`` below ``least`` is a one-line user error (typer's ``min=`` prints a panel)."""
    if games < least:
        fail(f"--games: expected at least {least} {what}, got {games}")


def _warn_if_small(games: int) -> str | None:
    """One line on stderr (and returned for the Markdown header) when an arm has fewer games than
    analysis.paired.SMALL_EXPERIMENT: rare events then change in a handful of games."""
    from analysis.paired import SMALL_EXPERIMENT

    if games >= SMALL_EXPERIMENT:
        return None
    line = (
        f"only {games:,} games per arm (< {SMALL_EXPERIMENT}): a difference may rest on a handful of"
        " games; treat p-values near 0.05 as approximate and re-run with more games"
    )
    typer.echo(f"soup: warning: {line}", err=True)
    return "warning: " + line


def _run(
    spec: Any, out: Path, games: int, chunk_size: int, threads: int, quiet: bool, description: str
) -> None:
    """Play ``spec`` into ``out``, or reuse it if ``out`` already holds this very run (a
    different run there is a user error; see sim.runner.open_run)."""
    run_with_progress(spec, out, games, chunk_size, threads, quiet=quiet, description=description)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


def _write_tables(out: Path, stem: str, table: Any, markdown: str) -> list[Path]:
    from analysis.tables import write_csv_atomic, write_text_atomic

    csv, md = out / f"{stem}.csv", out / f"{stem}.md"
    write_csv_atomic(csv, table)
    write_text_atomic(md, markdown)
    return [csv, md]


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
    and intervals in percentage points). Markers, explained in a line under each table that has
    them: ``*`` Holm-significant, ``s`` p-value from the exact sign test, ``†`` (in the group
    cell, so no long note widens a column) a removed gene's own purchase rate, 0 by
    construction and not tested. q-values are in the CSV/Markdown; so are ``n`` and the raw p
    when the console is narrower than :data:`NARROW`."""
    from rich import box
    from rich.table import Table

    from analysis.paired import EXACT_BELOW, TEST_SIGN
    from analysis.tables import fmt

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


def comparison_markdown(table: Any, header: str) -> str:
    """The comparison table as Markdown: a header paragraph, then one table per family."""
    from analysis.tables import frame_markdown

    parts = [header.rstrip() + "\n"]
    if "by_construction" in table.columns and not table["by_construction"].any():
        table = table.drop("by_construction")  # a compare: no gene is removed, the column says nothing
    for family in table["family"].unique(maintain_order=True).to_list():
        part = table.filter(table["family"] == family).drop("family", "kind")
        parts.append(f"\n## {family}\n\n" + frame_markdown(part))
    return "".join(parts)


def _header(title: str, lines: list[str]) -> str:
    from analysis.paired import EXACT_BELOW

    return (
        f"# {title}\n\n"
        + "\n".join(f"- {line}" for line in lines)
        + "\n- diff = B - A, paired by game (cluster-robust standard error, game = cluster); 95% interval"
        " and two-sided p from Student's t with games - 1 degrees of freedom; p_holm: Holm-adjusted"
        " within the family; q_bh: Benjamini-Hochberg; significant: p_holm < 0.05; discordant: games"
        f" whose outcome changed; test: sign where a 0/1 outcome changed in fewer than {EXACT_BELOW}"
        " games (exact sign test on those games), else t; by_construction (ablate): a removed gene's"
        " own purchase rate (0 without it by design; not tested, not in the family).\n"
    )


# --------------------------------------------------------------------------------------------
# soup compare
# --------------------------------------------------------------------------------------------


def _rules_arms(rules: list[str] | None) -> tuple[str | None, str | None]:
    """The two --rules values as paths (None = the default rules)."""
    values = list(rules or [])
    if not values or len(values) > 2:
        fail(f"--rules: expected one or two rules files (or 'default'), got {len(values)}")
    if len(values) == 1:
        values = [DEFAULT_RULES, values[0]]
    return tuple(None if v == DEFAULT_RULES else v for v in values)  # type: ignore[return-value]


def compare(
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
) -> None:
    """Play the same games under two rule sets and report what changed (B - A), paired by game.

    Both arms share the seed, game indices, strategy assignment and seating (common random
    numbers), so game i is the same deal under A and B. Reports per-strategy and per-seat win
    rates, mean rounds, the finish-zone share and every gene's purchase rate, with paired 95%
    intervals, p-values and the Holm correction within each family. Example:

    soup compare --rules default --rules house.toml --games 20000 --pool greedy,breeder,predator
    """
    from analysis.paired import PairingError, compare_runs
    from analysis.win_rates import load_results
    from sim.ursuppe.rules import load_rules

    _check_games(games, 2, "games per arm (a paired interval needs two games)")
    check_resources(threads, 2 * games)
    try:
        path_a, path_b = _rules_arms(rules)
        book_a, book_b = load_rules(path_a), load_rules(path_b)
        spec_a = build_run(book_a, players, seed, strategies, pool, seating)
        spec_b = build_run(book_b, players, seed, strategies, pool, seating)
        if out is None:
            out = (
                Path("results") / f"compare-{book_a.rules_id}-{book_b.rules_id}-{players}p-seed{seed}-{games}"
            )
        _check_out(out)
        if book_a.rules_id == book_b.rules_id:
            fail(
                f"--rules: A ({path_a or 'default'}) and B ({path_b or 'default'}) are the same rules "
                f"(rules id {book_a.rules_id}): every game would be the same, so there is nothing to compare"
            )
        _run(spec_a, out / "a", games, chunk_size, threads, quiet, "rules A")
        _run(spec_b, out / "b", games, chunk_size, threads, quiet, "rules B")
    except USER_ERRORS as e:
        fail(str(e))
    try:
        table = compare_runs(load_results(out / "a"), load_results(out / "b"))
    except PairingError as e:
        fail(str(e))
    name_a, name_b = path_a or "default rules", path_b or "default rules"
    lines = [
        f"A: {name_a} (rules {book_a.rules_id}), run {out / 'a'}",
        f"B: {name_b} (rules {book_b.rules_id}), run {out / 'b'}",
        f"{games:,} games per arm, {players} players, seed {seed}, seating {seating}, "
        + (f"strategies {strategies}" if strategies else f"pool {pool}"),
    ]
    small = _warn_if_small(games)
    header = _header("soup compare", lines + ([small] if small else []))
    files = _write_tables(out, "comparison", table, comparison_markdown(table, header))
    for line in lines:
        typer.echo(line)
    print_comparison(table)
    _summary_line(table)
    typer.echo("tables: " + ", ".join(str(f) for f in files))


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


def resolve_gene(name: str) -> str:
    """The rulebook name of a gene given by name or alias, case-insensitively (user error if none)."""
    from sim.ursuppe.genes import GENE_ALIASES, GENE_NAMES

    lookup = {g.lower(): g for g in GENE_NAMES} | {a.lower(): g for a, g in GENE_ALIASES.items()}
    gene = lookup.get(" ".join(name.split()).lower())
    if gene is None:
        fail(f"--gene: unknown gene {name!r} (genes: {', '.join(GENE_NAMES)})")
    return gene


def ablated_rules(rules: str | Path | None, genes: list[str]) -> "RuleBook":
    """The rules of ``rules`` (None: default) with ``genes`` removed from the deck at every player count."""
    from sim.ursuppe.rules import load_rules

    return load_rules(rules, overrides={"genes": {g: {"copies": 0} for g in genes}})  # 0: every count


def ablate(
    gene: Annotated[
        list[str] | None,
        typer.Option("--gene", "-g", help="Gene to remove from the deck (repeat to remove a set together)."),
    ] = None,
    each: Annotated[
        bool, typer.Option("--each", help="Remove each gene in turn (one run per gene).")
    ] = False,
    rules: Annotated[
        Path | None,
        typer.Option("--rules", "-r", help="House-rules TOML file of the baseline (default rules)."),
    ] = None,
    players: Players = 4,
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
) -> None:
    """Remove genes from the deck (0 copies) and report what changes against the full deck, paired by game.

    --gene removes one gene or, repeated, a set together (the same tables as soup compare).
    --each removes every gene in turn and prints one row per gene: its purchase rate in the
    baseline, the change of game length and finish-zone share, and every strategy's win-rate
    change; the Holm correction spans the whole family (all genes x all strategies). Examples:

    soup ablate --gene "Division Rate" --games 20000

    soup ablate --each --games 5000 --pool greedy,breeder,predator
    """
    from analysis.paired import PairingError, ablation_summary, ablation_table, compare_runs
    from analysis.tables import frame_markdown
    from analysis.win_rates import load_results
    from sim.ursuppe.genes import GENE_NAMES
    from sim.ursuppe.rules import load_rules

    if each == bool(gene):
        fail("--gene/--each: give one or more --gene NAME, or --each")
    _check_games(games, 2, "games per run (a paired interval needs two games)")
    check_resources(threads, games)
    try:
        base = load_rules(rules)
        if each:
            removed = [[g] for g in GENE_NAMES if base.data["genes"][g]["copies"][str(players)] > 0]
        else:
            names = list(dict.fromkeys(resolve_gene(g) for g in gene or []))
            absent = [g for g in names if base.data["genes"][g]["copies"][str(players)] == 0]
            if absent:
                fail(f"--gene: {', '.join(absent)} has no copies for {players} players already")
            removed = [names]
        if out is None:
            what = "each" if each else "+".join(_slug(g) for g in removed[0])
            out = Path("results") / f"ablate-{what}-{base.rules_id}-{players}p-seed{seed}-{games}"
        _check_out(out)
        _run(
            build_run(base, players, seed, strategies, pool, seating),
            out / "baseline",
            games,
            chunk_size,
            threads,
            quiet,
            "baseline",
        )
        arms: dict[str, Path] = {}  # label (genes joined by " + ") -> run directory
        for genes in removed:
            label = " + ".join(genes)
            book = ablated_rules(rules, genes)
            arm = out / ("minus-" + "+".join(_slug(g) for g in genes))
            _run(
                build_run(book, players, seed, strategies, pool, seating),
                arm,
                games,
                chunk_size,
                threads,
                quiet,
                f"without {label}",
            )
            arms[label] = arm
    except USER_ERRORS as e:
        fail(str(e))
    lines = [
        f"baseline: {rules or 'default rules'} (rules {base.rules_id}), run {out / 'baseline'}",
        f"{games:,} games per run, {players} players, seed {seed}, seating {seating}, "
        + (f"strategies {strategies}" if strategies else f"pool {pool}"),
    ]
    small = _warn_if_small(games)
    notes = [small] if small else []  # for the Markdown header; stderr has it already
    baseline = load_results(out / "baseline")
    if not each:
        ((label, arm),) = arms.items()
        lines.insert(1, f"B: without {label}, run {arm}")
        try:
            table = compare_runs(baseline, load_results(arm), removed=removed[0])
        except PairingError as e:
            fail(str(e))
        files = _write_tables(
            out, "ablation", table, comparison_markdown(table, _header("soup ablate", lines + notes))
        )
        for line in lines:
            typer.echo(line)
        print_comparison(table, "with", "without")
        _summary_line(table)
    else:
        try:
            table = ablation_table(baseline, {label: load_results(arm) for label, arm in arms.items()})
        except PairingError as e:
            fail(str(e))
        summary = ablation_summary(table)
        md = (
            _header("soup ablate --each", lines + notes)
            + (
                "- Holm over the whole family: every removed gene x every strategy (win rates),"
                " every removed gene (rounds, finish-zone share); a removed gene's own purchase"
                " rate is 0 by construction and not in the family.\n\n"
            )
            + frame_markdown(summary)
        )
        files = _write_tables(
            out, "ablation", table, comparison_markdown(table, _header("soup ablate --each", lines + notes))
        )
        files += _write_tables(out, "ablation-summary", summary, md)
        for line in lines:
            typer.echo(line)
        _print_ablation_summary(summary, table)
    typer.echo("tables: " + ", ".join(str(f) for f in files))


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
    strategies: Annotated[
        str,
        typer.Option(help="Strategies, comma-separated (presets or .toml files); every pair plays."),
    ] = ",".join(PRESET_ORDER),
    players: Players = 4,
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
) -> None:
    """Round robin: every pair of strategies plays head to head, half the seats each, seats rotated.

    With an even count a table is A,B,A,B(,A,B); with an odd one tables alternate A,B,A(,B,A) and
    B,A,B(,A,B). Prints the
    win-rate matrix (share of the pair's games won by the row strategy, 95% Wilson interval) and
    Bradley-Terry ratings on an Elo scale (400 points = 10:1 odds) with 95% intervals from the
    Fisher information. Pair k plays with seed SEED*10000+k. Example:

    soup tournament --strategies greedy,breeder,predator,forager --games 4000 --anchor greedy
    """
    import polars as pl

    from analysis.tables import fmt, frame_markdown, write_csv_atomic, write_text_atomic
    from analysis.tournament import (
        bt_check,
        bt_goodness_of_fit,
        bt_ratings,
        game_winners,
        heatmap,
        pair_counts,
        win_matrix,
    )
    from analysis.win_rates import load_results
    from sim.cli_support import strategy_list
    from sim.ursuppe.rules import load_rules
    from sim.ursuppe.tournament_run import TournamentRun, tournament_games
    from strategies.params import load_strategy

    _check_games(games, 1, "game per pair")
    check_resources(threads, games)
    try:
        book = load_rules(rules)
        check_players(book, players)
        loaded = [load_strategy(n) for n in strategy_list(strategies, "--strategies")]
        names = [s.name for s in loaded]
        if len(set(names)) != len(names):
            fail(f"--strategies: each strategy once, got {', '.join(names)}")
        if len(names) < 2:
            fail("--strategies: expected at least two strategies")
        if anchor is not None and anchor not in names:
            fail(f"--anchor: {anchor!r} is not one of {', '.join(names)}")
        per_pair = tournament_games(games, players)
        if out is None:
            out = Path("results") / f"tournament-{book.rules_id}-{players}p-seed{seed}-{per_pair}"
        _check_out(out)
        counts = []
        for k, (i, j) in enumerate(combinations(range(len(loaded)), 2)):
            pair = [loaded[i], loaded[j]]
            spec = TournamentRun(book, players, seed * PAIR_SEEDS + k, pair, seating="rotate")
            run_dir = out / f"{k:02d}-{_slug(names[i])}-vs-{_slug(names[j])}"
            _run(spec, run_dir, per_pair, chunk_size, threads, quiet, f"{names[i]} vs {names[j]}")
            counts.append(pair_counts(names[i], names[j], game_winners(load_results(run_dir))))
    except USER_ERRORS as e:
        fail(str(e))
    pairs = pl.DataFrame(counts)
    ratings = bt_ratings(pairs, names, anchor=anchor)
    matrix = bt_check(win_matrix(pairs, names), ratings)
    fit = bt_goodness_of_fit(matrix, len(names))
    worst = matrix.sort(pl.col("bt_z").abs(), descending=True, nulls_last=True).row(0, named=True)
    write_csv_atomic(out / "tournament-matrix.csv", matrix)
    write_csv_atomic(out / "tournament-ratings.csv", ratings)
    wide = _wide_cells(matrix, names)
    lines = [
        f"rules {book.rules_id}; {per_pair:,} games per pair, {players} players, seed {seed}"
        " (pair k: seed*10000+k), seating rotate",
        "matrix: share of the pair's games won by the row strategy, 95% Wilson interval",
        "rating: Bradley-Terry on the Elo scale (400 log10 strength; "
        + (f"{anchor} = 0" if anchor else "mean 0")
        + "), 95% interval from the Fisher information",
        f"Bradley-Terry fit: chi2 = {fit['chi2']:.1f} on {fit['df']} df (p = {fmt(fit['p_value'], 'p')});"
        f" largest deviation: {worst['strategy']} vs {worst['opponent']} won {worst['win_rate']:.3f},"
        f" the ratings expect {worst['bt_expected']:.3f}",
    ]
    md = "# soup tournament\n\n" + "\n".join(f"- {x}" for x in lines) + "\n\n## Ratings\n\n"
    kinds = {
        "rating": "num",
        "se": "num",
        "ci_low": "num",
        "ci_high": "num",
        "win_rate": "rate",
        "prior": "num",
    }
    md += frame_markdown(ratings, kinds) + "\n## Win-rate matrix\n\n" + frame_markdown(wide)
    write_text_atomic(out / "tournament.md", md)
    files = [out / "tournament-matrix.csv", out / "tournament-ratings.csv", out / "tournament.md"]
    if plot:
        heatmap(matrix, names, out / "tournament-heatmap.png", f"Head-to-head win rate, {players} players")
        files.append(out / "tournament-heatmap.png")
    for line in lines:
        typer.echo(line)
    _print_tournament(ratings, matrix, names)
    typer.echo("tables: " + ", ".join(str(f) for f in files))


def _wide_cells(matrix: Any, names: list[str]) -> Any:
    import polars as pl

    cells = {(r["strategy"], r["opponent"]): r for r in matrix.iter_rows(named=True)}
    rows = []
    for a in names:
        row = {"strategy": a}
        for b in names:
            r = cells.get((a, b))
            row[b] = "—" if r is None else f"{r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        rows.append(row)
    return pl.DataFrame(rows, schema={"strategy": pl.String, **{b: pl.String for b in names}})


def _print_tournament(ratings: Any, matrix: Any, names: list[str]) -> None:
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
