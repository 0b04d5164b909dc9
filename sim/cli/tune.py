"""`soup tune`: a thin layer over sim.ursuppe.experiments.tuning and
sim.ursuppe.experiments.gene_value (issue 13, points 1 and 2). Every check comes before the
progress bar; bad input is one line and exit 2; Ctrl-C keeps the last generation's checkpoint
and prints the command that resumes (exit 130)."""

import os
from pathlib import Path
from typing import Annotated

import typer

from sim import out_dirs
from sim.cli.support import (
    DEFAULT_GAME,
    MAX_SEED,
    PLAYERS_HELP,
    GameName,
    fail,
    game_for,
    load_engine,
    long_job,
    only_with_ursuppe,
    progress_bar,
    warn,
)
from sim.errors import UserError
from sim.game import strategy_list
from strategies.ursuppe import DEFAULT_POOL

# Defaults measured on the 2-core reference machine (docs/tuning.md): a useful `soup tune` in a
# few minutes, and the gene-value study of 20 genes at one player count within 30 minutes.
TUNE_BUDGET = 1_800_000
GENE_VALUE_BUDGET = 16_000_000
GENE_VALUE_SIGMA = 0.08


def tune(
    strategy: Annotated[
        str,
        typer.Option(
            "--strategy",
            "-s",
            metavar="NAME|FILE",
            help="The start: a preset or a strategy .toml file (with --gene-value: usually a tuned.toml).",
        ),
    ] = "greedy",
    players: Annotated[int, typer.Option("--players", "-p", help=PLAYERS_HELP)] = 4,
    game: GameName = DEFAULT_GAME,
    variant: Annotated[
        str | None,
        typer.Option(
            "--variant", metavar="NAME", help="2-player variant (with --players 2): dummy, double1, double2."
        ),
    ] = None,
    against: Annotated[
        str | None,
        typer.Option(
            metavar="NAMES",
            help="Fixed opponents: one strategy for every other player, or one per other player "
            "(comma-separated presets or .toml files).",
        ),
    ] = None,
    self_play: Annotated[
        bool,
        typer.Option(
            "--self-play",
            help="The other players are the previous generation's best (the field is tuned too).",
        ),
    ] = False,
    pool: Annotated[
        str,
        typer.Option(
            metavar="NAMES",
            help="The mix every other player is drawn from (without --against or --self-play).",
        ),
    ] = ",".join(DEFAULT_POOL),
    params: Annotated[
        str,
        typer.Option(
            metavar="KEYS",
            help="Tuned parameters, comma-separated: names of docs/strategies.md, gene_value.<gene>, "
            "'genes' (every gene in play), 'default' (the economy, space weights and every gene value).",
        ),
    ] = "default",
    budget: Annotated[
        int | None,
        typer.Option(
            min=1,
            help=f"Tuning games in all (default {TUNE_BUDGET:,}; with --gene-value {GENE_VALUE_BUDGET:,}, "
            "shared by the 2 arms of every gene).",
        ),
    ] = None,
    games_per_candidate: Annotated[
        int,
        typer.Option(min=1, help="Games of every strategy in a generation (a multiple of the rotate block)."),
    ] = 1200,
    population: Annotated[
        int | None, typer.Option(min=2, help="CMA-ES population (default 4 + 3 ln(parameters)).")
    ] = None,
    sigma: Annotated[
        float | None,
        typer.Option(
            help="CMA-ES initial step in the [0, 1]-scaled search space (default 0.15; with --gene-value "
            "0.08: the arms start from a tuned strategy).",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, max=MAX_SEED, help="Seed of the tuning games.")] = 1,
    eval_games: Annotated[
        int,
        typer.Option(min=1, help="Fresh games (another seed) on which start and tuned are compared."),
    ] = 24_000,
    rules: Annotated[
        Path | None, typer.Option("--rules", "-r", metavar="FILE", help="House-rules TOML file.")
    ] = None,
    gene_value: Annotated[
        bool,
        typer.Option(
            "--gene-value",
            help="For every gene: its value by --design (default option value: tune a variant allowed to "
            "buy it and one that may not, compare them on fresh games), with the null gene, its plain card "
            "and (holding) its BP gift beside it, Holm-corrected (docs/verdicts.md).",
        ),
    ] = False,
    design: Annotated[
        str,
        typer.Option(
            metavar="DESIGN",
            help="With --gene-value: option (allowed vs forbidden, both tuned), holding (given at setup and "
            "kept vs not, the same strategy: no tuning), retuned (holding value with both arms tuned, "
            "the gifted one with the gift) or forced (the labelled 'cost of a forced purchase': bought at "
            "the first chance vs never).",
        ),
    ] = "option",
    references: Annotated[
        str,
        typer.Option(
            metavar="KINDS",
            help="With --gene-value: reference arms, comma-separated: null (the null gene, must read 0), "
            "plain (the gene's plain card), bp (its price as a BP gift; holding and retuned only); 'none' "
            "for none.",
        ),
    ] = "null,plain,bp",
    decks: Annotated[
        int,
        typer.Option(
            help="With --gene-value: measure every gene again on K-1 decks of the V6 plausible-deck family "
            "(deck 0: the rules' own), on the same games; the table adds the spread and a same-sign column.",
        ),
    ] = 1,
    genes: Annotated[
        str | None,
        typer.Option(
            metavar="NAMES", help="With --gene-value: these genes only (default: every gene in play)."
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(metavar="DIR", help="Output directory (default results/tune-<start>-<P>p-seed<S>)."),
    ] = None,
    threads: Annotated[int, typer.Option(min=1, help="Threads (default: all cores).")] = os.cpu_count() or 1,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Only continue the tuning in --out (an error if there is none). Without "
            "it, the same command continues too.",
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
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
    if game != DEFAULT_GAME:
        only_with_ursuppe(
            variant=variant is not None,
            **{"self-play": self_play, "gene-value": gene_value, "resume": resume},
            pool=pool != ",".join(DEFAULT_POOL),
            params=params != "default",
            sigma=sigma is not None,
        )
        _tune_other(
            game,
            strategy,
            players,
            against,
            rules,
            budget,
            games_per_candidate,
            population,
            seed,
            out,
            threads,
            quiet,
        )
        return
    from sim.ursuppe.experiments import tuning as T
    from sim.ursuppe.rules.book import count_label, load_rules
    from strategies.ursuppe.params import load_strategy

    if not gene_value:  # options that only --gene-value reads are never silently ignored
        given = [
            name
            for name, value, default in (
                ("--design", design, "option"),
                ("--references", references, "null,plain,bp"),
                ("--genes", genes, None),
            )
            if value != default
        ]
        if given:
            fail(f"{', '.join(given)}: only with --gene-value")
    book = load_rules(rules)
    from sim.ursuppe.simulation import check_players  # (pyarrow: not on every command's import)

    check_players(book, players, variant)
    start = load_strategy(strategy)
    # `is not None` throughout (issue 21.1): an empty value given is a mistake to name, never the default.
    if against is not None and self_play:
        fail("--against and --self-play: give one field, not both")
    if against is not None:
        names = strategy_list(against, "--against")
        if len(names) == 1:
            names *= players - 1
        if len(names) != players - 1:
            fail(
                f"--against: expected 1 or {players - 1} strategies (one per other player), got {len(names)}"
            )
        fld = T.Field("against", tuple(load_strategy(n) for n in names))
    elif self_play:
        fld = T.Field("self")
    else:
        fld = T.Field("mix", tuple(load_strategy(n) for n in dict.fromkeys(strategy_list(pool, "--pool"))))
    keys = T.resolve_keys(params, book, players, variant)
    setting = T.Setting(book, players, variant)
    cfg = T.TuneConfig(
        setting,
        start,
        fld,
        tuple(keys),
        budget if budget is not None else (GENE_VALUE_BUDGET if gene_value else TUNE_BUDGET),
        seed=seed,
        games_per_candidate=games_per_candidate,
        population=population,
        sigma=sigma if sigma is not None else (GENE_VALUE_SIGMA if gene_value else T.DEFAULT_SIGMA),
        eval_games=eval_games,
    )
    kind = "gene-value" if gene_value else "tune"
    if out is None:
        out = Path("results") / f"{kind}-{start.name}-{count_label(players, variant)}-seed{seed}"
    command = "tune --gene-value" if gene_value else "tune"
    try:  # not another command's directory, nor a run's (issue 21.7)
        out_dirs.check(out, command)
    except UserError as e:
        fail(str(e))
    if gene_value:
        in_play = T.genes_in_play(book, players, variant)
        chosen = in_play
        if genes is not None:
            if not genes.strip(", "):
                fail("--genes: expected comma-separated gene names (default: every gene in play)")
            chosen = [
                T.GENE_NAMES[T.parameter_key_index(T.GENE_PREFIX + g.strip()) - T.GENE_VALUE_BASE]
                for g in genes.split(",")
                if g.strip()
            ]
            for g in chosen:
                if g not in in_play:
                    fail(f"--genes: {book.not_in_play(g, players, variant)}")
        refs = tuple(r.strip() for r in references.split(",") if r.strip() and r.strip() != "none")
        _gene_value(cfg, chosen, out, threads, quiet, resume, design, refs, decks)
        return
    cfg.validate()
    if resume and not (out / T.CHECKPOINT).exists():
        fail(f"--resume: {out} holds no tuning to continue")
    kept = T.load_checkpoint(out, cfg)  # another tuning's checkpoint in --out: one line, before the bar
    load_engine()
    out_dirs.claim(out, "tune")
    total = cfg.generations() * cfg.games_per_generation()
    generation = kept.generation if kept else 0
    with long_job(out, lambda: f"{generation} of {cfg.generations()} generations are kept in {out}"):
        with progress_bar(total, "tuning", quiet) as update:

            def after(state: "T.TuneState") -> None:
                nonlocal generation
                generation = state.generation

            state = T.tune(cfg, out, threads, update, after)
        doc = T.finish(cfg, state, out, threads)
    fr = doc["fresh"]
    g = fr["gain"]
    typer.echo(
        f"{start.name} tuned: {doc['generations']} generations, {doc['games']:,} games, "
        f"{len(keys)} parameters, "
        f"against {doc['field']}"
    )
    typer.echo(
        f"fresh games ({fr['games']:,}, seed {fr['seed']}): start {fr['start']['win_rate']:.3f} "
        f"[{fr['start']['ci'][0]:.3f}, {fr['start']['ci'][1]:.3f}]  tuned {fr['tuned']['win_rate']:.3f} "
        f"[{fr['tuned']['ci'][0]:.3f}, {fr['tuned']['ci'][1]:.3f}]  gain {g['estimate']:+.3f} "
        f"[{g['ci_low']:+.3f}, {g['ci_high']:+.3f}]"
    )
    for r in doc["changes"][:5]:
        typer.echo(f"  {r['parameter']}: {r['start']:g} -> {r['tuned']:g}")
    if doc["validation"]["kept"] == "start":
        warn(
            "the tuned mean did not beat the start on the final check, so tuned.toml is the start: try a "
            "larger --budget or --games-per-candidate, or fewer --params"
        )
    elif g["ci_high"] < 0:
        warn(
            "the tuned strategy is worse than its start on fresh games: try a larger --budget or "
            "--games-per-candidate"
        )
    typer.echo(f"Wrote {out / T.TUNED} (use it as a strategy) and {out / 'report.md'}")


def _tune_other(
    game: str,
    strategy: str,
    players: int,
    against: str | None,
    rules: Path | None,
    budget: int | None,
    games_per_candidate: int,
    population: int | None,
    seed: int,
    out: Path | None,
    threads: int,
    quiet: bool,
) -> None:
    """soup tune --game NAME: sim.experiments.tuning over the game protocol; writes tuned.txt (the
    tuned strategy, as the game's runs accept it) and report.md."""
    import math

    from analysis.intervals import wilson
    from analysis.tables import write_text_atomic
    from sim.experiments.tuning import tune as tune_game

    chosen = game_for(game, "tune")
    book = chosen.load_rules([rules] if rules is not None else [])
    chosen.check_players(book, players)
    name = strategy
    field = against if against is not None else chosen.info.default_strategy
    names = strategy_list(field, "--against")
    if len(names) != 1:
        fail(f"--against: expected one strategy for every other seat with --game {game}, got {len(names)}")
    try:
        start, _, _ = chosen.strategy_space(name)
        chosen.check_play(book, players, ",".join([name] + names * (players - 1)))
    except UserError as e:
        fail(str(e))
    size = population or 4 + int(3 * math.log(len(start)))  # CMA-ES's default population
    total = budget if budget is not None else TUNE_BUDGET
    generations = total // (size * games_per_candidate)
    if generations < 1:
        fail(
            f"--budget: {total:,} games is less than one generation ({size} candidates x "
            f"{games_per_candidate:,} games); give a larger --budget or a smaller --games-per-candidate"
        )
    if out is None:
        out = Path("results") / f"tune-{game}-{name}-{players}p-seed{seed}"
    try:
        out_dirs.check(out, "tune")
    except UserError as e:
        fail(str(e))
    load_engine(chosen)
    out_dirs.claim(out, "tune")
    with long_job(out, lambda: f"nothing is kept in {out}: the same command starts again"):
        total_games = (generations * size + 2) * games_per_candidate
        with progress_bar(total_games, "tuning", quiet) as update:
            played = 0

            def advance(games: int) -> None:
                nonlocal played
                played += games
                update(played, total_games)

            tuned = tune_game(
                chosen,
                book,
                name,
                names[0],
                players,
                seed,
                generations,
                games_per_candidate,
                out / "candidates",
                threads,
                population,
                advance,
            )
    n = games_per_candidate
    rows = []
    for label, rate in (("start", tuned.start_win_rate), ("tuned", tuned.win_rate)):
        lo, hi = wilson(round(rate * n), n)
        rows.append(f"| {label} | {rate:.3f} | [{float(lo):.3f}, {float(hi):.3f}] |")
    write_text_atomic(out / "tuned.txt", tuned.spec + "\n")
    report = [
        f"# soup tune --game {game}: {name} against {names[0]} at {players} players",
        "",
        f"{chosen.rules_line(book)}; {generations} generations of {size} candidates, {n:,} games each "
        f"(seed {seed} on); tuned numbers {', '.join(f'{x:g}' for x in tuned.vector)}; the tuned "
        f"strategy: `{tuned.spec}`.",
        "",
        f"Win rate of the seat tuned (player 0) on {n:,} fresh games (seed {seed + generations}), the same "
        "for both; 95% Wilson intervals (sampling noise only):",
        "",
        "| strategy | win rate | 95% interval |",
        "|---|---|---|",
        *rows,
        "",
        "Best win rate of each generation: " + ", ".join(f"{r:.3f}" for r in tuned.history),
        "",
    ]
    write_text_atomic(out / "report.md", "\n".join(report))
    typer.echo(
        f"{name} tuned against {names[0]}: start {tuned.start_win_rate:.3f}, tuned {tuned.win_rate:.3f} "
        f"on {n:,} fresh games; the tuned strategy: {tuned.spec}"
    )
    typer.echo(f"Wrote {out / 'tuned.txt'} and {out / 'report.md'}")


def p_text(p: float) -> str:
    return "< 1e-300" if p == 0 else f"{p:.2g}"


def _gene_value(
    cfg,
    genes: list[str],
    out: Path,
    threads: int,
    quiet: bool,
    resume: bool,
    design: str,
    refs: tuple[str, ...],
    decks: int = 1,
) -> None:
    """The --gene-value study: checks first, then the bar; Ctrl-C keeps every finished arm and unit."""
    from sim.ursuppe.experiments import gene_value as G

    if resume and not (out / "units").exists() and not (out / "arms").exists():
        fail(f"--resume: {out} holds no gene-value study to continue")
    try:
        G.check_study(cfg, genes, design, refs)  # every arm is valid before anything is played
        if decks < 1:
            raise G.T.TuningError(f"--decks: expected at least 1, got {decks}")
    except G.T.TuningError as e:
        fail(str(e))
    load_engine()
    out_dirs.claim(out, "tune --gene-value")
    with long_job(out, lambda: f"finished arms and units are kept in {out}"):
        with progress_bar(
            G.study_games(cfg, genes, design, refs, decks), G.DESIGNS[design].label, quiet
        ) as update:
            doc = G.gene_value_study(cfg, genes, out, threads, update, design, refs, decks)
    d = G.DESIGNS[design]
    how = f"{doc['arm_games']:,} tuning games an arm, " if d.tuned else ""
    typer.echo(
        f"{d.label} of {len(genes)} genes ({how}{doc['eval_games']:,} fresh games a gene), "
        f"against {doc['field']}:"
    )
    if doc["null"]:
        n = doc["null"]
        typer.echo(
            f"  {'null gene (reference)':<22} {100 * n['estimate']:+5.1f} points "
            f"[{100 * n['ci_low']:+.1f}, {100 * n['ci_high']:+.1f}]"
        )
    for r in doc["genes"]:
        plain = r.get("plain")
        extra = f"  plain card {100 * plain['estimate']:+.1f}" if plain else ""
        typer.echo(
            f"  {r['gene']:<22} {d.arms[0]} - {d.arms[1]} {100 * r['estimate']:+5.1f} points "
            f"[{100 * r['ci_low']:+.1f}, {100 * r['ci_high']:+.1f}]  p(Holm) {p_text(r['p_holm'])}{extra}"
        )
    typer.echo(f"Wrote {out / G.REPORT}")
