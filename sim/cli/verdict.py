"""``soup verdict`` and ``soup calibrate``: the designer's two questions about one gene, the
command-line layer (the experiments: sim/ursuppe/experiments/verdict.py and
sim/ursuppe/experiments/calibrate.py).

Every option is checked before the engine loads or a bar shows; Ctrl-C keeps every finished
unit and prints the command that continues (exit 130). No engine import at module level.
"""

import os
from pathlib import Path
from typing import Annotated

import typer

from sim import out_dirs
from sim.cli.support import (
    DEFAULT_GAME,
    MAX_SEED,
    USER_ERRORS,
    BackendName,
    GameName,
    RayAddress,
    check_backend,
    fail,
    game_for,
    load_engine,
    long_job,
    open_backend,
    progress_bar,
)

CPUS = os.cpu_count() or 1
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


def verdict(
    gene: Annotated[
        str | None, typer.Option("--gene", "-g", metavar="NAME", help="The gene to judge (or --all).")
    ] = None,
    all_genes: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Every gene in play, one after the other (each in DIR/<gene>/), and overview.md/.csv: one "
            "table a designer can act on.",
        ),
    ] = False,
    players: Annotated[int, typer.Option("--players", "-p", help="Players: 3 to 6.")] = 4,
    rules: Annotated[
        Path | None, typer.Option("--rules", "-r", metavar="FILE", help="House-rules TOML file.")
    ] = None,
    budget: Annotated[
        str,
        typer.Option(
            metavar="quick|default|full",
            help="Precision for time: sets --games, --search-games and --decks together (each may still be "
            "given). The budget line printed before any game says what each budget plays, its time and "
            "its detectable effect.",
        ),
    ] = "default",
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            "-n",
            show_default=False,
            help="Fresh games of every arm (a multiple of the rotate block: 24 at 4 players; default: "
            f"--budget's, {DEFAULT_GAMES:,} by default). The detectable effect is printed before the games "
            "are played and shrinks with 1/sqrt(games).",
        ),
    ] = None,
    decks: Annotated[
        int | None,
        typer.Option(
            show_default=False,
            help="Environment decks: the rules' own and K-1 drawn from the V6 plausible-deck family; every "
            f"deck plays the same games. 1: the rules' deck only (default: --budget's, {DEFAULT_DECKS} by "
            "default).",
        ),
    ] = None,
    readings: Annotated[
        bool,
        typer.Option(
            "--readings/--no-readings",
            help="Re-run the holding value with every flag that touches the gene set to its other values.",
        ),
    ] = True,
    option_budget: Annotated[
        int,
        typer.Option(
            help="Tuning games of each option-value arm under --option-design tuned (allowed / forbidden, "
            "the plain card, the null gene: 6 arms); 0 skips option value in either design.",
        ),
    ] = DEFAULT_OPTION_BUDGET,
    option_replicates: Annotated[
        int,
        typer.Option(
            help="Independent tunings of every option-value arm (own tuning seed, own fresh games): the "
            "interval is a t interval over them, so it covers the spread between tunings. At least 2.",
        ),
    ] = DEFAULT_OPTION_REPLICATES,
    fields: Annotated[
        str,
        typer.Option(
            metavar="NAMES",
            help="The panel's fields: presets (every other seat plays it) or 'mix' (the default mix).",
        ),
    ] = "greedy,mix,predator",
    holders: Annotated[
        str, typer.Option(metavar="NAMES", help="The panel's holders (the studied seat's strategy).")
    ] = "breeder,geneticist",
    holder: Annotated[
        str,
        typer.Option(
            metavar="NAME",
            help="The headline's holder: a preset, or a search player (search, search-N: its decks and "
            "readings are then played by search too, --search-games games an arm).",
        ),
    ] = "breeder",
    option_design: Annotated[
        str,
        typer.Option(
            metavar="DESIGN",
            help="Option value by 'restricted' search (default: the same search player, whose rollouts "
            "never buy the gene, allowed to buy it where its rollouts show a gain vs never offered it; "
            "paired games, no tuning; a lower bound) or by 'tuned' arms (both arms tuned by CMA-ES, over "
            "--option-replicates tunings of --option-budget games).",
        ),
    ] = "restricted",
    search: Annotated[
        str,
        typer.Option(
            metavar="NAME",
            help="The strong player (search-N: N rollouts a decision): it plays restricted option value and "
            "the panel's strong-play cell (search holder vs the default mix), whose verdict line says "
            "whether holding value holds under strong play. 'none': neither.",
        ),
    ] = DEFAULT_SEARCH,
    search_games: Annotated[
        int | None,
        typer.Option(
            show_default=False,
            help="Fresh games of every arm a search player plays (a multiple of the rotate block; default: "
            f"--budget's, {DEFAULT_SEARCH_GAMES} by default): the strong-play detectable effect shrinks "
            "with 1/sqrt of it, the time grows with it.",
        ),
    ] = None,
    search_field: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Every other seat of the second strong-play cell, a field of search players (default: the "
            "--search player itself, a mirror: every seat the same player, only the gene differs). Against "
            "the default mix a search-16 holder wins ~90% with or without the gene; here it wins ~1/P, so "
            "the strong-play line rests on this cell. A game costs about P search games.",
        ),
    ] = None,
    search_field_games: Annotated[
        int,
        typer.Option(
            help="Fresh games of every arm of the cell against a field of search players (a multiple of "
            "the rotate block); 0 skips the cell. Its detectable effect and time are on the budget line.",
        ),
    ] = DEFAULT_FIELD_GAMES,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, max=MAX_SEED, help="Seed of the games.")] = 1,
    out: Annotated[
        Path | None,
        typer.Option(metavar="DIR", help="Output directory (default results/verdict-<gene>-<P>p-s<seed>)."),
    ] = None,
    threads: Annotated[int, typer.Option(min=1, help="Threads (default: all cores).")] = CPUS,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    backend: BackendName = "local",
    ray_address: RayAddress = None,
    action: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="--game chromosome: the action judged by restricted search (growth, evolution, spark, "
            "impulse, or a special action's id in the full species mode): the same search player at "
            "player 0 allowed vs denied it, every other seat the game's default strategy.",
        ),
    ] = None,
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
    check_backend(backend, ray_address)
    if game == "chromosome" or action is not None:
        if backend != "local":
            fail("--backend ray: only for an Ursuppe gene's verdict")
        search_games = DEFAULT_SEARCH_GAMES if search_games is None else search_games
        return _action_verdict(game, action, players, rules, search, search_games, seed, out, quiet)
    game_for(game, "verdict")
    from sim.ursuppe.experiments import verdict as V

    if (gene is None) == (not all_genes):
        fail("--gene/--all: give one --gene NAME, or --all")
    try:
        games, search_games, decks = V.budget_sizes(budget, games, search_games, decks, players)

        def plan_for(name: str, games: int, search_games: int, decks: int) -> V.Plan:
            return V.plan_verdict(
                name,
                players,
                rules,
                games,
                decks,
                readings,
                option_budget,
                seed,
                tuple(f.strip() for f in fields.split(",") if f.strip()),
                tuple(h.strip() for h in holders.split(",") if h.strip()),
                option_replicates,
                holder,
                option_design,
                None if search == "none" else search,
                search_games,
                search_field,
                search_field_games,
            )

        def others(plan: V.Plan) -> dict[str, V.Plan]:
            """The plan under each other --budget (the budget line's trade of precision for time)."""
            return {
                b: plan_for(plan.gene, *V.budget_sizes(b, players=players)) for b in V.BUDGETS if b != budget
            }

        if all_genes:
            from sim.ursuppe.rules.book import load_rules

            names = load_rules(rules).genes_in_play(players, None)
        else:
            names = [gene]
        plans = [plan_for(name, games, search_games, decks) for name in names]
        slug = "all" if all_genes else V._slug(plans[0].gene)
        out = _out(out, Path("results") / f"verdict-{slug}-{players}p-s{seed}", "verdict")
        on = V.Machine(threads, backend, ray_address)
        # a --budget's name only where its sizes are played (not where --games & co. override them)
        label = budget if (games, search_games, decks) == V.budget_sizes(budget, players=players) else None
        lines = [V.budget_line(plan, on, label, None if all_genes else others(plan)) for plan in plans]
    except USER_ERRORS as e:
        fail(str(e))
    for line in lines:
        typer.echo(line, err=True)
    if all_genes:
        typer.echo(
            f"--all: {len(plans)} genes, {sum(p.total_games() for p in plans):,} games in all", err=True
        )
    load_engine()
    out_dirs.claim(out, "verdict")
    docs = []
    with (
        long_job(out, lambda: f"every finished unit is kept in {out}"),
        open_backend(backend, threads, ray_address) as engine,
    ):
        if backend == "ray":  # Ray started or reached before the bar: its failure is one line
            try:
                engine.start()
            except USER_ERRORS as e:
                fail(str(e))
        from sim.cli.progress import work_share

        work = sum(p.work() for p in plans)  # a search game weighs its cost (Plan.work)
        with progress_bar(work, "verdict", quiet, count=work_share) as update:
            done = 0
            for plan in plans:
                where = out / V._slug(plan.gene) if all_genes else out

                def step(n: int, _total: int, base: int = done) -> None:
                    update(base + n, work)

                docs.append(V.run_verdict(plan, where, threads, step, engine if backend == "ray" else None))
                done += plan.work()
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


def _action_verdict(
    game: str,
    action: str | None,
    players: int,
    rules: Path | None,
    search: str,
    search_games: int,
    seed: int,
    out: Path | None,
    quiet: bool,
) -> None:
    """``soup verdict --game chromosome --action NAME`` (issue 34.7): restricted play for an
    action (sim/experiments/restricted.py, the game's part in sim/chromosome/restrictions.py)."""
    from sim.cli.support import game_named
    from sim.runner import write_atomic

    if game != "chromosome":
        fail(f"--action: restricted play of an action is Chromosome's (--game chromosome), not {game}'s")
    if action is None:
        fail("--game chromosome: give --action NAME (growth, evolution, spark, impulse or a special's id)")
    g = game_named(game)
    try:
        from sim.chromosome.restrictions import restriction
        from strategies.search import is_search, load_search

        book = g.load_rules([rules] if rules else [])
        g.check_players(book, players)
        limit = restriction(book, action)
        rollout = g.info.default_strategy
        if not is_search(search):
            fail(f"--search: expected a search player (search, search-N or a search file), got {search!r}")
        spec = load_search(search, rollout)
        if search_games < players or search_games % players:
            fail(
                f"--search-games: expected a positive multiple of {players} (every seat as often), "
                f"got {search_games}"
            )
        default = Path("results") / f"verdict-chromosome-{action.lower()}-{players}p-s{seed}"
        out = _out(out, default, "verdict")
    except USER_ERRORS as e:
        fail(str(e))
    import json

    from sim.experiments import restricted as X

    total = 3 * search_games
    typer.echo(
        f"verdict on {action} (chromosome, {players} players): restricted search, {spec.name} allowed vs"
        f" denied and its null reference, 3 arms x {search_games:,} games = {total:,} search games (about"
        f" {total * X.SEARCH_GAME_S / 60:.0f} min); detectable effect about"
        f" {100 * 2.8 * (0.5 / search_games) ** 0.5:.1f} points (80% power, --search-games)",
        err=True,
    )
    load_engine()
    out_dirs.claim(out, "verdict")
    run = g.new_run(book, players, seed, strategies=",".join([rollout] * players))
    with long_job(out, lambda: "nothing is kept: the same command plays it again"):
        with progress_bar(total, "verdict", quiet) as update:
            done = 0

            def step(n: int) -> None:
                nonlocal done
                done += n
                update(done, total)

            result = X.restricted_play(g, run, spec, search_games, limit, step)
    doc = {
        "game": game,
        "action": action,
        "players": players,
        "seed": seed,
        "search": spec.name,
        "rollout": spec.rollout,
        "field": f"every other seat {rollout}",
        "rules": g.rules_line(book),
        **result,
    }
    out.mkdir(parents=True, exist_ok=True)
    text = X.markdown(doc)
    write_atomic(out / "verdict.md", lambda p: p.write_text(text, encoding="utf-8"))
    js = json.dumps(doc, indent=1)
    write_atomic(out / "verdict.json", lambda p: p.write_text(js, encoding="utf-8"))
    for line in X.words(doc):
        typer.echo(line)
    typer.echo(f"Wrote {out / 'verdict.md'}, {out / 'verdict.json'}")


def calibrate(
    gene: Annotated[str, typer.Option("--gene", "-g", metavar="NAME", help="The gene to calibrate.")],
    key: Annotated[
        str, typer.Option("--key", "-k", help="The gene's numeric key scanned: price or mp.")
    ] = "price",
    values: Annotated[
        str | None,
        typer.Option(metavar="V,V,...", help="Values scanned (default: the rules' value - 3 .. + 3)."),
    ] = None,
    design: Annotated[
        str,
        typer.Option(
            help="option: option value by restricted search (the same search player allowed vs denied the "
            "gene, paired games) at each value; option-tuned: option value by tuned arms (allowed vs "
            "forbidden, both tuned by CMA-ES); holding: holding the gene minus holding its price in BP "
            "(--key price), else its holding value (no tuning, fast).",
        ),
    ] = "option",
    holder: Annotated[
        str,
        typer.Option(
            metavar="NAME",
            help="The measured player: a preset, or a search player (search-N; with --design option it is "
            "the player allowed and denied the gene).",
        ),
    ] = "breeder",
    search: Annotated[
        str, typer.Option(metavar="NAME", help="Restricted search's player (--design option): search-N.")
    ] = DEFAULT_SEARCH,
    search_games: Annotated[
        int, typer.Option(help="Fresh games of every arm a search player plays, at every value.")
    ] = DEFAULT_SEARCH_GAMES,
    search_field: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="With --design holding and a search --holder: every other seat this search player too "
            "(rollouts by its own preset), so the holder does not win most games with or without the gene; "
            "a game costs about P search games. Default: the default mix.",
        ),
    ] = None,
    players: Annotated[int, typer.Option("--players", "-p", help="Players: 3 to 6.")] = 4,
    rules: Annotated[
        Path | None, typer.Option("--rules", "-r", metavar="FILE", help="House-rules TOML file.")
    ] = None,
    games: Annotated[
        int, typer.Option("--games", "-n", help="Fresh games of every arm at every value.")
    ] = DEFAULT_GAMES,
    option_budget: Annotated[
        int, typer.Option(help="Tuning games of each option-value arm at every value.")
    ] = DEFAULT_OPTION_BUDGET,
    option_replicates: Annotated[
        int, typer.Option(help="Independent tunings of both arms at every value (option value). At least 2.")
    ] = DEFAULT_OPTION_REPLICATES,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, max=MAX_SEED, help="Seed of the games.")] = 1,
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR", help="Output directory (default results/calibrate-<gene>-<key>-<P>p-s<seed>)."
        ),
    ] = None,
    threads: Annotated[int, typer.Option(min=1, help="Threads (default: all cores).")] = CPUS,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    game: GameName = DEFAULT_GAME,
) -> None:
    """What should this gene cost? Scan its price (or MP) and measure the gene at every value
    on the same games; report the curve with 95% intervals (calibrate.md, .csv, .png) and the
    value closest to neutral. Example: soup calibrate --gene Tentacle --design holding.
    How to read it: docs/verdicts.md.
    """
    game_for(game, "calibrate")
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
    load_engine()
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
