"""``soup verdict`` and ``soup calibrate``: the designer's two questions about one gene, the
command-line layer (the experiments: sim/ursuppe/experiments/verdict.py and
sim/ursuppe/experiments/calibrate.py).

Every option is checked before the engine loads or a bar shows; Ctrl-C keeps every finished
unit and prints the command that continues (exit 130). No engine import at module level: soup
mounts these commands (sim.ursuppe.cli) before any help is shown. A game that denies actions
(the "restrictions" capability: Chromosome) gets its verdict on an action from the kit
(sim/cli/action_verdict.py) through --action.
"""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from sim import out_dirs
from sim.cli import action_verdict
from sim.cli.option_groups import Running, grouped
from sim.cli.support import (
    CPUS,
    DEFAULT_GAME,
    MAX_SEED,
    USER_ERRORS,
    GameName,
    Quiet,
    Rules,
    Threads,
    fail,
    game_for,
    game_named,
    load_engine,
    long_job,
    out_dir,
    progress_bar,
)

# sim.ursuppe.experiments.verdict's defaults, not imported here (tests/test_verdict.py checks they agree)
DEFAULT_GAMES = 12_000
DEFAULT_DECKS = 4
DEFAULT_OPTION_BUDGET = 120_000
DEFAULT_OPTION_REPLICATES = 3
DEFAULT_SEARCH = "search-16"  # sim.ursuppe.experiments.restricted's
DEFAULT_SEARCH_GAMES = 336
DEFAULT_FIELD_GAMES = 120


def _out(out: Path | None, default: Path, command: str) -> Path:
    """--out (or the default), refused unless new, empty or ``command``'s own (issue 21.7)."""
    from sim.ursuppe.experiments.arms import check_out

    out = out if out is not None else default
    check_out(out, command)
    return out


Gene = Annotated[
    str | None, typer.Option("--gene", "-g", metavar="NAME", help="The gene to judge (or --all).")
]
AllGenes = Annotated[
    bool,
    typer.Option(
        "--all",
        help="Every gene in play, one after the other (each in DIR/<gene>/), and overview.md/.csv: one "
        "table a designer can act on.",
    ),
]
Players = Annotated[int, typer.Option("--players", "-p", help="Players: 3 to 6.")]
Budget = Annotated[
    str,
    typer.Option(
        metavar="quick|default|full",
        help="Precision for time: sets --games, --search-games and --decks together (each may still be "
        "given). The budget line printed before any game says what each budget plays, its time and "
        "its detectable effect.",
    ),
]
Games = Annotated[
    int | None,
    typer.Option(
        "--games",
        "-n",
        show_default=False,
        help="Fresh games of every arm (a multiple of the rotate block: 24 at 4 players; default: "
        f"--budget's, {DEFAULT_GAMES:,} by default). The detectable effect is printed before the games "
        "are played and shrinks with 1/sqrt(games).",
    ),
]
Decks = Annotated[
    int | None,
    typer.Option(
        show_default=False,
        help="Environment decks: the rules' own and K-1 drawn from the V6 plausible-deck family; every "
        f"deck plays the same games. 1: the rules' deck only (default: --budget's, {DEFAULT_DECKS} by "
        "default).",
    ),
]
Readings = Annotated[
    bool,
    typer.Option(
        "--readings/--no-readings",
        help="Re-run the holding value with every flag that touches the gene set to its other values.",
    ),
]
OptionBudget = Annotated[
    int,
    typer.Option(
        help="Tuning games of each option-value arm under --option-design tuned (allowed / forbidden, "
        "the plain card, the null gene: 6 arms); 0 skips option value in either design.",
    ),
]
OptionReplicates = Annotated[
    int,
    typer.Option(
        help="Independent tunings of every option-value arm (own tuning seed, own fresh games): the "
        "interval is a t interval over them, so it covers the spread between tunings. At least 2.",
    ),
]
Fields = Annotated[
    str,
    typer.Option(
        metavar="NAMES",
        help="The panel's fields: presets (every other seat plays it) or 'mix' (the default mix).",
    ),
]
Holders = Annotated[
    str, typer.Option(metavar="NAMES", help="The panel's holders (the studied seat's strategy).")
]
Holder = Annotated[
    str,
    typer.Option(
        metavar="NAME",
        help="The headline's holder: a preset, or a search player (search, search-N: its decks and "
        "readings are then played by search too, --search-games games an arm).",
    ),
]
OptionDesign = Annotated[
    str,
    typer.Option(
        metavar="DESIGN",
        help="Option value by 'restricted' search (default: the same search player, whose rollouts "
        "never buy the gene, allowed to buy it where its rollouts show a gain vs never offered it; "
        "paired games, no tuning; a lower bound) or by 'tuned' arms (both arms tuned by CMA-ES, over "
        "--option-replicates tunings of --option-budget games).",
    ),
]
Search = Annotated[
    str,
    typer.Option(
        metavar="NAME",
        help="The strong player (search-N: N rollouts a decision): it plays restricted option value and "
        "the panel's strong-play cell (search holder vs the default mix), whose verdict line says "
        "whether holding value holds under strong play. 'none': neither.",
    ),
]
SearchGames = Annotated[
    int | None,
    typer.Option(
        show_default=False,
        help="Fresh games of every arm a search player plays (a multiple of the rotate block; default: "
        f"--budget's, {DEFAULT_SEARCH_GAMES} by default): the strong-play detectable effect shrinks "
        "with 1/sqrt of it, the time grows with it.",
    ),
]
SearchField = Annotated[
    str | None,
    typer.Option(
        metavar="NAME",
        help="Every other seat of the second strong-play cell, a field of search players (default: the "
        "--search player itself, a mirror: every seat the same player, only the gene differs). Against "
        "the default mix a search-16 holder wins ~90% with or without the gene; here it wins ~1/P, so "
        "the strong-play line rests on this cell. A game costs about P search games.",
    ),
]
SearchFieldGames = Annotated[
    int,
    typer.Option(
        help="Fresh games of every arm of the cell against a field of search players (a multiple of "
        "the rotate block); 0 skips the cell. Its detectable effect and time are on the budget line.",
    ),
]
Seed = Annotated[int, typer.Option("--seed", "-s", min=0, max=MAX_SEED, help="Seed of the games.")]
Out = out_dir("results/verdict-<gene>-<P>p-s<seed>")
Action = Annotated[
    str | None,
    typer.Option(
        metavar="NAME",
        help="--game chromosome: the action judged by restricted search (growth, evolution, spark, "
        "impulse, or a special action's id in the full species mode): the same search player at "
        "player 0 allowed vs denied it, every other seat the game's default strategy.",
    ),
]
CalibrateGene = Annotated[str, typer.Option("--gene", "-g", metavar="NAME", help="The gene to calibrate.")]
Key = Annotated[str, typer.Option("--key", "-k", help="The gene's numeric key scanned: price or mp.")]
Values = Annotated[
    str | None,
    typer.Option(metavar="V,V,...", help="Values scanned (default: the rules' value - 3 .. + 3)."),
]
Design = Annotated[
    str,
    typer.Option(
        help="option: option value by restricted search (the same search player allowed vs denied the "
        "gene, paired games) at each value; option-tuned: option value by tuned arms (allowed vs "
        "forbidden, both tuned by CMA-ES); holding: holding the gene minus holding its price in BP "
        "(--key price), else its holding value (no tuning, fast).",
    ),
]
CalibrateHolder = Annotated[
    str,
    typer.Option(
        metavar="NAME",
        help="The measured player: a preset, or a search player (search-N; with --design option it is "
        "the player allowed and denied the gene).",
    ),
]
CalibrateSearch = Annotated[
    str, typer.Option(metavar="NAME", help="Restricted search's player (--design option): search-N.")
]
CalibrateSearchGames = Annotated[
    int, typer.Option(help="Fresh games of every arm a search player plays, at every value.")
]
CalibrateSearchField = Annotated[
    str | None,
    typer.Option(
        metavar="NAME",
        help="With --design holding and a search --holder: every other seat this search player too "
        "(rollouts by its own preset), so the holder does not win most games with or without the gene; "
        "a game costs about P search games. Default: the default mix.",
    ),
]
CalibrateGames = Annotated[
    int, typer.Option("--games", "-n", help="Fresh games of every arm at every value.")
]
CalibrateOptionBudget = Annotated[
    int, typer.Option(help="Tuning games of each option-value arm at every value.")
]
CalibrateOptionReplicates = Annotated[
    int, typer.Option(help="Independent tunings of both arms at every value (option value). At least 2.")
]
CalibrateOut = out_dir("results/calibrate-<gene>-<key>-<P>p-s<seed>")


@dataclass(frozen=True)
class Sizes:
    """--budget and the sizes it sets, each of which may still be given (an option group,
    sim.cli.option_groups; --search-games is strong play's)."""

    budget: Budget = "default"
    games: Games = None
    decks: Decks = None


@dataclass(frozen=True)
class OptionValue:
    """The tuned design of option value: its tuning games and replicates (an option group)."""

    option_budget: OptionBudget = DEFAULT_OPTION_BUDGET
    option_replicates: OptionReplicates = DEFAULT_OPTION_REPLICATES


@dataclass(frozen=True)
class Panel:
    """The panel of fields x holders the holding value is measured under (an option group)."""

    fields: Fields = "greedy,mix,predator"
    holders: Holders = "breeder,geneticist"


@dataclass(frozen=True)
class StrongPlay:
    """The search player of restricted option value and of the strong-play cells, their games and
    the field of search players (an option group)."""

    search: Search = DEFAULT_SEARCH
    search_games: SearchGames = None
    search_field: SearchField = None
    search_field_games: SearchFieldGames = DEFAULT_FIELD_GAMES


@grouped
def verdict(
    *,
    gene: Gene = None,
    all_genes: AllGenes = False,
    players: Players = 4,
    rules: Rules = None,
    sizes: Sizes,
    readings: Readings = True,
    option_value: OptionValue,
    panel: Panel,
    holder: Holder = "breeder",
    option_design: OptionDesign = "restricted",
    strong: StrongPlay,
    seed: Seed = 1,
    out: Out = None,
    threads: Threads = CPUS,
    running: Running,
    action: Action = None,
    game: GameName = DEFAULT_GAME,
) -> None:
    """Is this gene too strong? One command: its holding value (given at setup and kept, vs not)
    under a panel of fields x holders (and a search holder: strong play), K environment decks and
    every reading of the rules that touches it; its option value (the same search player allowed
    vs denied it; or --option-design tuned: both arms tuned over independent tuning replicates);
    the null gene, its plain card and its price as a BP gift
    beside it. Writes verdict.md (the bottom line: too strong, about right, too weak or depends,
    then labels with their size and the conditions that flip or erase them), verdict.csv (one
    row per design x condition) and verdict.json; --all adds overview.md, one row per gene.
    --budget quick|default|full trades precision for time (the budget line, printed first, says
    how); --backend ray plays the search games, nearly all of the time, as Ray tasks.
    Interrupted? The same command continues. Example: soup verdict --gene Tentacle. How to
    read it: docs/verdicts.md.
    """
    running.check()
    if action is not None or _denies_actions(game):  # a game's action (sim.cli.action_verdict)
        if running.backend != "local":
            fail("--backend ray: only for an Ursuppe gene's verdict")
        search_games = DEFAULT_SEARCH_GAMES if strong.search_games is None else strong.search_games
        return action_verdict.run(
            action_verdict.plan(game, action, players, rules, strong.search, search_games, seed, out),
            running.quiet,
        )
    chosen = game_for(game, "verdict")
    if (gene is None) == (not all_genes):
        fail("--gene/--all: give one --gene NAME, or --all")
    plan_for = _planner(players, rules, readings, option_value, seed, panel, holder, option_design, strong)
    try:
        names = lambda: _genes(gene, all_genes, rules, players)  # noqa: E731 (after the sizes' checks)
        plans, out, lines = _plan_verdicts(
            plan_for, names, all_genes, sizes, strong.search_games, players, seed, out, threads, running
        )
    except USER_ERRORS as e:
        fail(str(e))
    for line in lines:
        typer.echo(line, err=True)
    if all_genes:
        typer.echo(
            f"--all: {len(plans)} genes, {sum(p.total_games() for p in plans):,} games in all", err=True
        )
    docs = _play_verdicts(chosen, plans, out, all_genes, threads, running)
    _print_verdicts(docs, out, all_genes)


def _denies_actions(game: str) -> bool:
    """Whether ``game``'s verdict is on an action (restricted play) rather than a gene."""
    from sim import game as games

    return games.supports(game_named(game), "restrictions")


def _planner(
    players: int,
    rules: Path | None,
    readings: bool,
    option_value: OptionValue,
    seed: int,
    panel: Panel,
    holder: str,
    option_design: str,
    strong: StrongPlay,
) -> Callable[[str, int, int, int], Any]:
    """The verdict plan of a gene at given sizes (games, search games, decks), from the options."""
    from sim.game import comma_list
    from sim.ursuppe.experiments import verdict as V

    def plan_for(name: str, games: int, search_games: int, decks: int) -> V.Plan:
        return V.plan_verdict(
            name, players, rules, games, decks, readings, option_value.option_budget, seed,
            comma_list(panel.fields),
            comma_list(panel.holders),
            option_value.option_replicates, holder, option_design,
            None if strong.search == "none" else strong.search, search_games,
            strong.search_field, strong.search_field_games,
        )  # fmt: skip

    return plan_for


def _genes(gene: str | None, all_genes: bool, rules: Path | None, players: int) -> list[str]:
    """The genes judged: --gene's, or with --all every gene in play."""
    if not all_genes:
        return [gene]
    from sim.ursuppe.rules.book import load_rules

    return load_rules(rules).genes_in_play(players, None)


def _plan_verdicts(
    plan_for: Callable[[str, int, int, int], Any],
    names: Callable[[], list[str]],
    all_genes: bool,
    sizes: Sizes,
    search_games: int | None,
    players: int,
    seed: int,
    out: Path | None,
    threads: int,
    running: Running,
) -> tuple[list[Any], Path, list[str]]:
    """Every gene's plan at --budget's sizes (--games & co. override them), the output directory
    (checked) and the budget lines (what each budget would play instead: one gene only)."""
    from sim.ursuppe.experiments import verdict as V

    budget = sizes.budget
    games, search_games, decks = V.budget_sizes(budget, sizes.games, search_games, sizes.decks, players)

    def others(plan: V.Plan) -> dict[str, V.Plan]:
        """The plan under each other --budget (the budget line's trade of precision for time)."""
        return {b: plan_for(plan.gene, *V.budget_sizes(b, players=players)) for b in V.BUDGETS if b != budget}

    plans = [plan_for(name, games, search_games, decks) for name in names()]
    slug = "all" if all_genes else V._slug(plans[0].gene)
    out = _out(out, Path("results") / f"verdict-{slug}-{players}p-s{seed}", "verdict")
    on = V.Machine(threads, running.backend, running.ray_address)
    # a --budget's name only where its sizes are played (not where --games & co. override them)
    label = budget if (games, search_games, decks) == V.budget_sizes(budget, players=players) else None
    lines = [V.budget_line(plan, on, label, None if all_genes else others(plan)) for plan in plans]
    return plans, out, lines


def _play_verdicts(
    game: Any,
    plans: list[Any],
    out: Path,
    all_genes: bool,
    threads: int,
    running: Running,
) -> list[dict[str, Any]]:
    """Play every plan (each gene in its own directory with --all) under one progress bar, which
    counts work (a search game weighs its cost, Plan.work)."""
    from sim.cli.progress import work_share
    from sim.ursuppe.experiments import verdict as V

    load_engine(game)
    out_dirs.claim(out, "verdict")
    docs = []
    with (
        long_job(out, lambda: f"every finished unit is kept in {out}"),
        running.open(threads) as engine,
    ):
        ray = running.backend == "ray"
        if ray:  # Ray started or reached before the bar: its failure is one line
            try:
                engine.start()
            except USER_ERRORS as e:
                fail(str(e))
        work = sum(p.work() for p in plans)
        with progress_bar(work, "verdict", running.quiet, count=work_share) as update:
            done = 0
            for plan in plans:
                where = out / V._slug(plan.gene) if all_genes else out

                def step(n: int, _total: int, base: int = done) -> None:
                    update(base + n, work)

                docs.append(V.run_verdict(plan, where, threads, step, engine if ray else None))
                done += plan.work()
    return docs


def _print_verdicts(docs: list[dict[str, Any]], out: Path, all_genes: bool) -> None:
    """The bottom line and the labels of one gene's verdict, or --all's overview table."""
    from sim.ursuppe.experiments import verdict as V

    if all_genes:
        V.write_overview(out, docs)
        typer.echo((out / V.OVERVIEW_MD).read_text().replace("**", ""))
        typer.echo(f"Wrote {out / V.OVERVIEW_MD}, {out / V.OVERVIEW_CSV}")
        return
    doc = docs[0]
    if doc.get("bottom_line"):
        typer.echo(V.bottom_words(doc["gene"], doc["bottom_line"], doc["price"]).replace("**", ""))
    for line in V.words(doc):
        typer.echo(line.replace("**", ""))
    typer.echo(f"Wrote {out / V.RESULT_MD}, {out / V.RESULT_CSV}")


def calibrate(
    gene: CalibrateGene,
    key: Key = "price",
    values: Values = None,
    design: Design = "option",
    holder: CalibrateHolder = "breeder",
    search: CalibrateSearch = DEFAULT_SEARCH,
    search_games: CalibrateSearchGames = DEFAULT_SEARCH_GAMES,
    search_field: CalibrateSearchField = None,
    players: Players = 4,
    rules: Rules = None,
    games: CalibrateGames = DEFAULT_GAMES,
    option_budget: CalibrateOptionBudget = DEFAULT_OPTION_BUDGET,
    option_replicates: CalibrateOptionReplicates = DEFAULT_OPTION_REPLICATES,
    seed: Seed = 1,
    out: CalibrateOut = None,
    threads: Threads = CPUS,
    quiet: Quiet = False,
    game: GameName = DEFAULT_GAME,
) -> None:
    """What should this gene cost? Scan its price (or MP) and measure the gene at every value
    on the same games; report the curve with 95% intervals (calibrate.md, .csv, .png) and the
    value closest to neutral. Example: soup calibrate --gene Tentacle --design holding.
    How to read it: docs/verdicts.md.
    """
    chosen = game_for(game, "calibrate")
    from sim.ursuppe.experiments import calibrate as C

    try:
        parsed = None
        if values is not None:
            try:
                parsed = [int(v) for v in values.split(",") if v.strip()]
            except ValueError:
                fail(f"--values: expected comma-separated integers, got {values!r}")
        cal = C.plan_calibration(
            gene,
            key,
            parsed,
            design,
            players,
            rules,
            games,
            option_budget,
            seed,
            option_replicates,
            holder,
            search,
            search_games,
            search_field,
        )
        slug = C.V._slug(cal.plan.gene)
        out = _out(out, Path("results") / f"calibrate-{slug}-{key}-{players}p-s{seed}", "calibrate")
    except USER_ERRORS as e:
        fail(str(e))
    typer.echo(C.budget_line(cal), err=True)
    load_engine(chosen)
    out_dirs.claim(out, "calibrate")
    with long_job(out, lambda: f"every finished value is kept in {out}"):
        with progress_bar(cal.games_per_value() * len(cal.values), "calibrate", quiet) as update:
            doc = C.run_calibration(cal, out, threads, update)
    for p in doc["points"]:
        typer.echo(
            f"  {key} {p['value']:>3}: {100 * p['estimate']:+5.1f} "
            f"[{100 * p['low']:+.1f}, {100 * p['high']:+.1f}]"
        )
    if doc["neutral"] is not None:
        found = f"the {key} closest to neutral is {doc['neutral']:.1f} {C.neutral_range(doc)}"
    else:
        found = f"no {key} in the scan is neutral (the curve heads to 0 {doc['crossing']} it)"
    typer.echo(f"{doc['gene']}: {found} (the rules' {key}: {doc['current']}); wrote {out / C.RESULT_MD}")
