"""Paired experiments and the round robin (issue 12: one place for experiments).

How ``soup compare``, ``soup ablate`` and ``soup tournament`` build their arms, play them, pair
them and tabulate them, with their Markdown: the command line, a notebook and a future
``soup tune`` call these functions and differ only in how an arm is played (an
:data:`ArmPlayer`: with a progress bar or without, on which backend). So a backend
(sim.backends) is plugged in once, where the ArmPlayer is made, and the numbers are the same on
every backend.

Every arm is a chunked run of its own (one Parquet run directory per arm or pair, re-analysable
in a notebook); running an experiment again with the same arguments reuses its complete runs, and
an ``out`` holding a different run is a user error (sim.runner.open_run). With ``retune``
(compare, ablate: sim.ursuppe.experiments.retune) every arm's strategies are first re-tuned under the arm's
own rules, and the arms are played with the tuned files. Bad input raises
:class:`sim.errors.UserError` with a one-line message (the CLI prints it). See
docs/experiments.md.
"""

from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sim.errors import UserError
from sim.experiments import PAIR_SEEDS
from sim.experiments.arms import (  # noqa: F401 (arm_player, check_out: this module's API for a notebook)
    ArmPlayer,
    arm_player,
    check_games,
    check_out,
    claim,
    rules_arms,
    write_tables,
)
from sim.experiments.decks import DeckArms, DeckPlan
from sim.out_dirs import slug

if TYPE_CHECKING:
    from sim.ursuppe.rules.book import RuleBook

# --------------------------------------------------------------------------------------------
# Checks and shared pieces
# --------------------------------------------------------------------------------------------


def small_warning(games: int) -> str | None:
    """The warning (without its ``warning:`` prefix) when an arm has fewer games than
    analysis.ursuppe.paired.SMALL_EXPERIMENT: rare events then change in a handful of games."""
    from analysis.ursuppe.paired import SMALL_EXPERIMENT

    if games >= SMALL_EXPERIMENT:
        return None
    return (
        f"only {games:,} games per arm (< {SMALL_EXPERIMENT}): a difference may rest on a handful of"
        " games; treat p-values near 0.05 as approximate and re-run with more games"
    )


def run_genes(run: Path) -> tuple[str, ...]:
    """A run's genes in bit order, as its manifest names them (spec.gene_names)."""
    from sim.runner import read_manifest

    return tuple((read_manifest(run) or {}).get("spec", {}).get("gene_names", ()))


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


def header(title: str, lines: list[str]) -> str:
    """The Markdown header of a comparison: the experiment's lines and how to read the table."""
    from analysis.ursuppe.paired import EXACT_BELOW

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


def _arm_line(
    games: int,
    players: int,
    seed: int,
    seating: str,
    strategies: str | None,
    pool: str,
    per: str,
    variant: str | None = None,
) -> str:
    who = f"{players} players" + (f", variant {variant}" if variant else "")
    return f"{games:,} games per {per}, {who}, seed {seed}, seating {seating}, " + (
        f"strategies {strategies}" if strategies is not None else f"pool {pool}"
    )


# --------------------------------------------------------------------------------------------
# compare: two rule sets
# --------------------------------------------------------------------------------------------


@dataclass
class Comparison:
    """A finished paired experiment: its table (analysis.ursuppe.paired), the lines describing it, the
    files written and the small-experiment warning (None if the arms are large enough)."""

    out: Path
    table: Any
    lines: list[str]
    files: list[Path]
    warning: str | None
    summary: Any = None  # ablate --each: one row per removed gene
    removed: list[list[str]] = field(default_factory=list)
    changes: Any = None  # --retune: the tuned parameters that differ most between the arms
    per_deck: Any = None  # --decks K > 1: the table on each deck's games (deck, deck_label columns)

    @property
    def sign_test(self) -> tuple[str, int]:
        """The test column's value of a p from the exact sign test, and below how many changed
        games it is used (analysis.ursuppe.paired)."""
        from analysis.ursuppe.paired import EXACT_BELOW, TEST_SIGN

        return TEST_SIGN, EXACT_BELOW

    def printed_changes(self) -> tuple[str, Any] | None:
        """--retune: the title and rows of the changes table a terminal shows (the largest moves,
        retune.PRINTED at most; all in retune-changes.md), or None without --retune."""
        if self.changes is None:
            return None
        from sim.ursuppe.experiments.retune import PRINTED

        title, changes = "Re-tuned parameters that differ most between the arms", self.changes
        if changes.height > PRINTED:
            title += f" (the {PRINTED} largest moves; all in retune-changes.md)"
            changes = changes.sort("moved", descending=True, maintain_order=True).head(PRINTED)
        return title, changes


def _tokens(given: str, fixed: bool) -> list[str]:
    """The run's strategies as given (--strategies or --pool), for --retune."""
    from sim.game import strategy_list

    return strategy_list(given, "--strategies" if fixed else "--pool")


def _which(strategies: str | None, tuned: str, pool: str) -> tuple[str | None, str]:
    """(strategies, pool) for build_run with the tuned files in place of the given strategies."""
    return (tuned, pool) if strategies is not None else (None, tuned)


@dataclass(frozen=True)
class Seats:
    """Who plays an experiment's arms: the strategies as given (one per player, or a pool), the
    player count, seed, seating and variant, the same in every arm."""

    strategies: str | None
    pool: str
    players: int
    seed: int
    seating: str
    variant: str | None

    def run(self, book: "RuleBook", tuned: str | None = None) -> Any:
        """A run of ``book`` (simulation.build_run), with the ``tuned`` strategy files (--retune)
        in place of the given ones."""
        from sim.ursuppe.simulation import build_run

        who = (self.strategies, self.pool) if tuned is None else _which(self.strategies, tuned, self.pool)
        return build_run(book, self.players, self.seed, *who, self.seating, self.variant)

    def line(self, games: int, per: str) -> str:
        """The line naming the games, players, seed, seating and strategies of every arm."""
        return _arm_line(
            games, self.players, self.seed, self.seating, self.strategies, self.pool, per, self.variant
        )

    def retuned(self, retune: Any, books: dict[str, "RuleBook"], out: Path, command: str) -> tuple[dict, Any]:
        """The pre-step of ``--retune`` (``retune``, a retune.Retune): every arm's strategies
        re-tuned under its own rules (same budget and seed), ``out`` claimed for ``command`` once
        the tuning is planned (after every check: bad input leaves nothing behind). Returns each
        arm's run with its tuned strategies and the tuning's result."""
        from sim.ursuppe.experiments import retune as R

        given = self.strategies if self.strategies is not None else self.pool
        tokens = _tokens(given, self.strategies is not None)
        tuning = R.plan(retune, books, self.players, self.variant, tokens, self.seed, out)
        claim(out, command)
        retuned = R.run(tuning)
        return {
            key: self.run(book, R.mapped(given, retuned.paths[key])) for key, book in books.items()
        }, retuned


def _suffixed(out: Path, retune: Any, decks: int) -> Path:
    """A default ``out`` named for --retune and --decks too."""
    if retune is not None:
        out = out.with_name(out.name + f"-retune{retune.budget}")
    return out.with_name(out.name + f"-decks{decks}") if decks > 1 else out


def _compare_decks(books: list["RuleBook"], paths: tuple[str | None, str | None], decks: DeckArms, games: int,
                   seats: Seats) -> DeckPlan | None:  # fmt: skip
    """--decks K > 1 of a comparison: the plan drawn from A's deck family; A and B must have the
    same deck and family (else the decks would replace the rule under comparison)."""
    if decks.k <= 1:
        return None
    env_a, env_b = (b.data["environment"] for b in books)
    if (env_a["deck"], env_a["family"]) != (env_b["deck"], env_b["family"]):
        raise UserError(
            f"--decks: A ({paths[0] or 'default'}) and B ({paths[1] or 'default'}) differ in "
            "environment.deck or environment.family; --decks plays both arms over the same decks, "
            "which would replace the difference under comparison (compare decks with --decks 1)"
        )
    return decks.plan(books[0], games, seats.players, seats.seating, seats.seed)


def compare(
    rules: list[str] | None,
    players: int,
    games: int,
    strategies: str | None,
    pool: str,
    seating: str,
    seed: int,
    out: Path | None,
    play: ArmPlayer,
    variant: str | None = None,
    retune: Any = None,
    decks: DeckArms | None = None,
) -> Comparison:
    """Play the same games under two rule sets (A, B; common random numbers: game i is the same
    deal in both) and pair them by game (B - A). Writes comparison.csv/.md into ``out``.

    ``retune`` (a sim.ursuppe.experiments.retune.Retune): first re-tune every strategy under each arm's rules
    (same budget and seed), then play each arm with its own tuned strategies.

    ``decks`` (the stack's, K > 1; V6): both arms are played over the same K plausible decks, drawn
    from A's deck family with the seed (deck 0: A's own deck; deck_family.deck_plan); the table is the
    pooled one with each row's per-deck spread (analysis.ursuppe.paired.deck_spread), and
    comparison-by-deck.csv/.md holds the table of each deck's games. A and B must then have the
    same deck and family (else the decks would replace the rule under comparison). One deck
    is the comparison without decks, byte for byte. Retuning (``retune``) tunes under each
    arm's own deck (deck 0) and plays every deck with the tuned strategies."""
    from sim.ursuppe.rules.book import count_label, load_rules

    check_games(games, 2, "games per arm (a paired interval needs two games)")
    decks = decks or DeckArms(None)
    decks.check(games)
    paths = rules_arms(rules)
    books = {"a": load_rules(paths[0]), "b": load_rules(paths[1])}
    seats = Seats(strategies, pool, players, seed, seating, variant)
    runs = {key: seats.run(book) for key, book in books.items()}
    plan = _compare_decks(list(books.values()), paths, decks, games, seats)
    if out is None:
        label = count_label(players, variant)
        ids = "-".join(b.rules_id for b in books.values())
        out = _suffixed(Path("results") / f"compare-{ids}-{label}-seed{seed}-{games}", retune, decks.k)
    check_out(out, "compare")
    if books["a"].rules_id == books["b"].rules_id:
        raise UserError(
            f"--rules: A ({paths[0] or 'default'}) and B ({paths[1] or 'default'}) are the same rules "
            f"(rules id {books['a'].rules_id}): every game would be the same, so there is nothing to compare"
        )
    retuned = None
    if retune is not None:
        runs, retuned = seats.retuned(retune, books, out, "compare")
    if plan is not None:  # the same runs on each deck's rules (their strategies: tuned or not)
        play = plan.player(play)
    claim(out, "compare")
    play(runs["a"], out / "a", games, "rules A")
    play(runs["b"], out / "b", games, "rules B")
    lines = [
        f"{k.upper()}: {path or 'default rules'} (rules {books[k].rules_id}), run {out / k}"
        for k, path in zip("ab", paths, strict=True)
    ]
    return _compared(out, lines + [seats.line(games, "arm")], games, plan, retuned)


def _compared(out: Path, lines: list[str], games: int, plan: DeckPlan | None, retuned: Any) -> Comparison:
    """soup compare's tables of the arms played into ``out``/a and ``out``/b, written."""
    from analysis.ursuppe.paired import compare_runs, deck_spread  # after every check (issue 21.9)
    from analysis.win_rates import load_results

    rows_a, rows_b = load_results(out / "a"), load_results(out / "b")
    genes = run_genes(out / "a")
    table = compare_runs(rows_a, rows_b, genes=genes)
    per_deck, files = None, []
    if plan is not None:
        per_deck = plan.tables(lambda a, b: compare_runs(a, b, genes=genes), [rows_a, rows_b])
        table = deck_spread(table, per_deck)
        lines += plan.lines()
        head = header("soup compare: each deck's games", lines) + DECK_NOTE
        files += write_tables(out, "comparison-by-deck", per_deck, by_deck_markdown(per_deck, head))
    changes, extra = None, ""
    if retuned is not None:
        changes, extra, retune_files = _retune_tables(out, "compare", retuned, {"a": "A", "b": "B"}, lines)
        files += retune_files
    small = small_warning(games)
    head = header("soup compare", lines + (["warning: " + small] if small else [])) + extra
    head += DECK_NOTE if plan is not None else ""
    files = write_tables(out, "comparison", table, comparison_markdown(table, head)) + files
    return Comparison(out, table, lines, files, small, changes=changes, per_deck=per_deck)


def _retune_tables(out: Path, command: str, retuned: Any, labels: dict[str, str], lines: list[str]) -> tuple:
    """--retune's lines (added to ``lines``), its changes table, their Markdown and the files
    retune-changes.csv/.md."""
    from sim.ursuppe.experiments import retune as R

    lines += retuned.lines(labels)
    changes = R.changes_table(retuned, labels)
    extra = R.changes_markdown(changes)
    return (
        changes,
        extra,
        write_tables(out, "retune-changes", changes, f"# soup {command} --retune\n" + extra),
    )


# The header note of a table over several decks (--decks K > 1).
DECK_NOTE = (
    "- decks (V6): every arm played the same decks, game i the same deck in every arm (contiguous"
    " blocks of whole seating cycles); diff, its interval and p are pooled over every game; deck_min"
    " and deck_max: the smallest and largest per-deck diff; same_sign: the diff has the same sign"
    " (never 0) on every deck; the by-deck table has each deck's own estimates (Holm within a deck"
    " and family).\n"
)


def by_deck_markdown(per_deck: Any, head: str) -> str:
    """The per-deck table as Markdown: one section per deck, then per family."""
    parts = [head.rstrip() + "\n"]
    for j in per_deck["deck"].unique(maintain_order=True).to_list():
        part = per_deck.filter(per_deck["deck"] == j)
        label = part["deck_label"][0]
        body = comparison_markdown(part.drop("deck", "deck_label"), "").lstrip()
        parts.append(f"\n# deck {j}: {label}\n" + body)
    return "".join(parts)


# --------------------------------------------------------------------------------------------
# ablate: genes removed from the deck
# --------------------------------------------------------------------------------------------


def resolve_gene(name: str, book: "RuleBook | None" = None) -> str:
    """The rulebook name of a gene given by name or alias, case-insensitively (user error if
    none); with ``book``, a number-only gene its rules declare too (the null gene, a plain card:
    the ablation's reference arms, docs/verdicts.md)."""
    from sim.ursuppe.rules.genes import GENE_ALIASES, GENE_NAMES

    names = book.gene_names if book is not None else GENE_NAMES
    lookup = {g.lower(): g for g in names} | {a.lower(): g for a, g in GENE_ALIASES.items()}
    gene = lookup.get(" ".join(name.split()).lower())
    if gene is None:
        raise UserError(f"--gene: unknown gene {name!r} (genes: {', '.join(names)})")
    return gene


def ablated_rules(rules: str | Path | None, genes: list[str]) -> "RuleBook":
    """The rules of ``rules`` (None: default) with ``genes`` removed from the deck at every player
    count."""
    from sim.ursuppe.rules.book import load_rules

    return load_rules(rules, overrides={"genes": {g: {"copies": 0} for g in genes}})  # 0: every count


def _removed(
    genes: list[str] | None, each: bool, base: "RuleBook", players: int, variant: str | None
) -> list:
    """The gene sets an ablation removes, one per arm: every gene in play in turn (``each``) or
    ``genes`` together. Only the genes in play (copies at this count, the extra genes only with
    their module): a gene that cannot be bought plays both arms alike and would report zeros
    (issue 21.2)."""
    in_play = base.genes_in_play(players, variant)
    if each:
        return [[g] for g in in_play]
    names = list(dict.fromkeys(resolve_gene(g, base) for g in genes or []))
    for g in names:
        if g not in in_play:
            raise UserError(f"--gene: {base.not_in_play(g, players, variant)}; nothing to remove")
    return [names]


def ablate(
    genes: list[str] | None,
    each: bool,
    rules: Path | None,
    players: int,
    games: int,
    strategies: str | None,
    pool: str,
    seating: str,
    seed: int,
    out: Path | None,
    play: ArmPlayer,
    variant: str | None = None,
    retune: Any = None,
    decks: DeckArms | None = None,
) -> Comparison:
    """Remove ``genes`` together (or, with ``each``, every gene in turn) from the deck (0 copies)
    and pair each arm with the full deck by game. Writes ablation.csv/.md (and with ``each``
    ablation-summary.csv/.md, one row per gene, Holm over the whole family) into ``out``.

    ``decks`` (K > 1; V6): every arm is played over the same plausible decks, as :func:`compare`'s
    (drawn from the baseline rules' family); ablation-by-deck.csv/.md holds each deck's table."""
    from sim.ursuppe.rules.book import count_label, load_rules
    from sim.ursuppe.simulation import check_players

    if each == bool(genes):
        raise UserError("--gene/--each: give one or more --gene NAME, or --each")
    check_games(games, 2, "games per run (a paired interval needs two games)")
    decks = decks or DeckArms(None)
    decks.check(games)
    base = load_rules(rules)
    check_players(base, players, variant)
    removed = _removed(genes, each, base, players, variant)
    if out is None:
        what = "each" if each else "+".join(slug(g) for g in removed[0])
        count = count_label(players, variant)
        out = _suffixed(
            Path("results") / f"ablate-{what}-{base.rules_id}-{count}-seed{seed}-{games}", retune, decks.k
        )
    seats = Seats(strategies, pool, players, seed, seating, variant)
    plan = decks.plan(base, games, players, seating, seed)
    check_out(out, "ablate")
    runs = {"baseline": seats.run(base)}
    minus = {"minus-" + "+".join(slug(g) for g in r): r for r in removed}  # run directory -> genes
    books = {"baseline": base} | {key: ablated_rules(rules, r) for key, r in minus.items()}
    retuned = None
    if retune is not None:
        runs, retuned = seats.retuned(retune, books, out, "ablate")
    runs |= {key: seats.run(books[key]) for key in minus if key not in runs}
    if plan is not None:  # the same runs on each deck's rules (their strategies: tuned or not)
        play = plan.player(play)
    claim(out, "ablate")
    play(runs["baseline"], out / "baseline", games, "baseline")
    for key, r in minus.items():
        play(runs[key], out / key, games, f"without {' + '.join(r)}")
    lines = [
        f"baseline: {rules or 'default rules'} (rules {base.rules_id}), run {out / 'baseline'}",
        seats.line(games, "run"),
    ]
    arms = {" + ".join(r): out / key for key, r in minus.items()}  # label -> run directory
    names = {"baseline": "baseline"} | {key: "without " + " + ".join(r) for key, r in minus.items()}
    return _ablated(out, lines, arms, removed, each, games, plan, retuned, names)


def _ablated(out: Path, lines: list[str], arms: dict[str, Path], removed: list, each: bool, games: int,
             plan: DeckPlan | None, retuned: Any, names: dict[str, str]) -> Comparison:  # fmt: skip
    """soup ablate's tables of the arms played into ``out``, written (``arms``: each removed set's
    label and run directory; ``names``: each arm's name for the retune's lines)."""
    from analysis.ursuppe.paired import (  # after every check (issue 21.9)
        ablation_table,
        compare_runs,
        deck_spread,
    )
    from analysis.win_rates import load_results

    changes, extra, retune_files = None, "", []
    if retuned is not None:
        changes, extra, retune_files = _retune_tables(out, "ablate", retuned, names, lines)
    baseline = load_results(out / "baseline")
    genes = run_genes(out / "baseline")
    arm_rows = {label: load_results(arm) for label, arm in arms.items()}
    if not each:
        ((label, arm),) = arms.items()
        lines.insert(1, f"B: without {label}, run {arm}")

        def tabulate(base_rows: Any, *rows: Any) -> Any:
            return compare_runs(base_rows, rows[0], removed=removed[0], genes=genes)
    else:

        def tabulate(base_rows: Any, *rows: Any) -> Any:
            return ablation_table(base_rows, dict(zip(arm_rows, rows, strict=True)), genes)

    table = tabulate(baseline, *arm_rows.values())
    per_deck, deck_files = None, []
    if plan is not None:
        per_deck = plan.tables(tabulate, [baseline, *arm_rows.values()])
        table = deck_spread(table, per_deck)
        lines += plan.lines()
        head = header("soup ablate: each deck's games", lines) + DECK_NOTE
        deck_files = write_tables(out, "ablation-by-deck", per_deck, by_deck_markdown(per_deck, head))
    small = small_warning(games)
    title = "soup ablate --each" if each else "soup ablate"
    top = header(title, lines + (["warning: " + small] if small else [])) + extra
    head = top + (DECK_NOTE if plan is not None else "")
    files = write_tables(out, "ablation", table, comparison_markdown(table, head))
    summary = _ablation_summary(out, table, top) if each else None
    files += (summary[1] if summary else []) + deck_files + retune_files
    return Comparison(
        out, table, lines, files, small, summary=summary and summary[0], removed=removed, changes=changes,
        per_deck=per_deck,
    )  # fmt: skip


def _ablation_summary(out: Path, table: Any, head: str) -> tuple[Any, list[Path]]:
    """ablate --each's summary, one row per removed gene, and its files ablation-summary.csv/.md
    (``head``: the Markdown header, without the decks' note)."""
    from analysis.tables import frame_markdown
    from analysis.ursuppe.paired import ablation_summary

    summary = ablation_summary(table)
    md = (
        head + "- Holm over the whole family: every removed gene x every strategy (win rates),"
        " every removed gene (rounds, finish-zone share); a removed gene's own purchase"
        " rate is 0 by construction and not in the family.\n\n" + frame_markdown(summary)
    )
    return summary, write_tables(out, "ablation-summary", summary, md)


# --------------------------------------------------------------------------------------------
# tournament: every pair head to head
# --------------------------------------------------------------------------------------------


@dataclass
class Tournament:
    """A finished round robin: Bradley-Terry ratings, the win-rate matrix, the field's names, the
    lines describing it and the files written."""

    out: Path
    ratings: Any
    matrix: Any
    names: list[str]
    lines: list[str]
    files: list[Path]
    equilibrium: Any = None


def tournament(
    strategies: list[str],
    players: int,
    games: int,
    rules: Path | None,
    seed: int,
    anchor: str | None,
    out: Path | None,
    play: ArmPlayer,
    plot: bool = True,
    variant: str | None = None,
) -> Tournament:
    """Every pair of ``strategies`` plays head to head (sim.ursuppe.experiments.tournament_run: half the
    seats each, seats rotated; pair k with seed SEED*10000+k); Bradley-Terry ratings on an Elo
    scale, the win-rate matrix and the meta-game's equilibrium mix (analysis.equilibrium). Writes
    tournament-matrix.csv, tournament-ratings.csv, tournament-equilibrium.csv, tournament.md (and
    with ``plot`` tournament-heatmap.png) into ``out``."""
    from sim.ursuppe.experiments.tournament_run import TournamentRun, tournament_games
    from sim.ursuppe.rules.book import count_label, load_rules
    from sim.ursuppe.simulation import check_players

    check_games(games, 1, "game per pair")
    book = load_rules(rules)
    check_players(book, players, variant)
    loaded, search = _field(strategies, anchor, variant)
    names = [s.name for s in loaded]
    per_pair = tournament_games(games, players, variant)
    if out is None:
        count = count_label(players, variant)
        out = Path("results") / f"tournament-{book.rules_id}-{count}-seed{seed}-{per_pair}"
    check_out(out, "tournament")
    # The analysis (polars, scipy, matplotlib) is imported after every check: a bad argument is
    # refused at once (issue 21.9).
    from analysis.tournament import game_winners, pair_counts
    from analysis.win_rates import load_results

    claim(out, "tournament")
    counts = []
    for k, (i, j) in enumerate(combinations(range(len(loaded)), 2)):
        pair = [loaded[i], loaded[j]]
        searching = {r: search[x] for r, x in enumerate((i, j)) if x in search}
        spec = TournamentRun(
            book, players, seed * PAIR_SEEDS + k, pair, seating="rotate", variant=variant, search=searching
        )
        run_dir = out / f"{k:02d}-{slug(names[i])}-vs-{slug(names[j])}"
        play(spec, run_dir, per_pair, f"{names[i]} vs {names[j]}")
        counts.append(pair_counts(names[i], names[j], game_winners(load_results(run_dir))))
    head = (
        f"rules {book.rules_id}; {per_pair:,} games per pair, {players} players"
        + (f", variant {variant}" if variant else "")
        + f", seed {seed}"
        " (pair k: seed*10000+k), seating rotate"
    )
    return _rated(out, counts, names, anchor, head, players, plot)


def _field(strategies: list[str], anchor: str | None, variant: str | None) -> tuple[list[Any], dict]:
    """A tournament's strategies, loaded (simulation.load_seats: the search players apart), each
    once, at least two, with ``anchor`` among them."""
    from sim.ursuppe.simulation import load_seats

    loaded, search = load_seats(list(strategies))
    if search and variant is not None:
        raise UserError("search: a search player does not play the 2-player variants yet")
    names = [s.name for s in loaded]
    if len(set(names)) != len(names):
        raise UserError(f"--strategies: each strategy once, got {', '.join(names)}")
    if len(names) < 2:
        raise UserError("--strategies: expected at least two strategies")
    if anchor is not None and anchor not in names:
        raise UserError(f"--anchor: {anchor!r} is not one of {', '.join(names)}")
    return loaded, search


def _rated(out: Path, counts: list, names: list[str], anchor: str | None, head: str, players: int,
           plot: bool) -> Tournament:  # fmt: skip
    """The round robin's tables from each pair's win ``counts``: Bradley-Terry ratings, the
    win-rate matrix with the ratings' check, the equilibrium, written to ``out``."""
    import polars as pl

    from analysis.equilibrium import equilibrium
    from analysis.tables import fmt, write_csv_atomic
    from analysis.tournament import bt_check, bt_goodness_of_fit, bt_ratings, heatmap, win_matrix

    pairs = pl.DataFrame(counts)
    ratings = bt_ratings(pairs, names, anchor=anchor)
    matrix = bt_check(win_matrix(pairs, names), ratings)
    fit = bt_goodness_of_fit(matrix, len(names))
    worst = matrix.sort(pl.col("bt_z").abs(), descending=True, nulls_last=True).row(0, named=True)
    write_csv_atomic(out / "tournament-matrix.csv", matrix)
    write_csv_atomic(out / "tournament-ratings.csv", ratings)
    # Every game of a pair has exactly one winner, one of the two (pair_counts refuses others),
    # so W[A, B] + W[B, A] = 1 exactly: the meta-game is constant-sum with no ties to split.
    eq = equilibrium(matrix, names)
    eq_table = equilibrium_table(eq)
    write_csv_atomic(out / "tournament-equilibrium.csv", eq_table)
    lines = [
        head,
        "matrix: share of the pair's games won by the row strategy, 95% Wilson interval",
        "rating: Bradley-Terry on the Elo scale (400 log10 strength; "
        + (f"{anchor} = 0" if anchor else "mean 0")
        + "), 95% interval from the Fisher information",
        f"Bradley-Terry fit: chi2 = {fit['chi2']:.1f} on {fit['df']} df (p = {fmt(fit['p_value'], 'p')});"
        f" largest deviation: {worst['strategy']} vs {worst['opponent']} won {worst['win_rate']:.3f},"
        f" the ratings expect {worst['bt_expected']:.3f}",
        "equilibrium: "
        + ", ".join(f"{s} {eq.mix[s]:.3f}" for s in eq.support)
        + " (the mix of the meta-game no strategy beats; regret = win rate given up against it)",
    ]
    _tournament_markdown(out, lines, ratings, wide_cells(matrix, names), eq_table)
    files = [out / f"tournament-{x}.csv" for x in ("matrix", "ratings", "equilibrium")] + [
        out / "tournament.md"
    ]
    if plot:
        heatmap(matrix, names, out / "tournament-heatmap.png", f"Head-to-head win rate, {players} players")
        files.append(out / "tournament-heatmap.png")
    return Tournament(out, ratings, matrix, names, lines, files, eq_table)


def _tournament_markdown(out: Path, lines: list[str], ratings: Any, wide: Any, eq_table: Any) -> None:
    """tournament.md: the lines, the ratings, the win-rate matrix and the equilibrium."""
    from analysis.tables import frame_markdown, write_text_atomic

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
    md += "\n## Equilibrium\n\n" + EQUILIBRIUM_TEXT + "\n\n"
    md += frame_markdown(eq_table, {"weight": "rate", "regret": "rate"})
    write_text_atomic(out / "tournament.md", md)


EQUILIBRIUM_TEXT = (
    "The meta-game: each side picks a strategy to bring, and the payoff is the head-to-head win rate"
    " minus 1/2. Every game of a pair has one winner, one of the two, so the matrix is constant-sum"
    " (W[A, B] + W[B, A] = 1 exactly) and the game has value 0. The equilibrium mix (*weight*) wins at"
    " least half its games against every strategy of the field; *in_support*: played with positive"
    " weight; *regret*: how much win rate a strategy gives up against the mix (0 on the support)."
    " The matrix is estimated, so weights near 0 and small regrets are within noise: read the support"
    " together with the matrix's intervals. `soup report RUN --equilibrium DIR` weighs a run's tables"
    " by this mix."
)


def equilibrium_table(eq: Any) -> Any:
    """An :class:`analysis.equilibrium.Equilibrium` as tournament-equilibrium.csv's table:
    strategy, weight, in_support, regret, in the tournament's order."""
    return eq.frame().select("strategy", "weight", "in_support", "regret")


def wide_cells(matrix: Any, names: list[str]) -> Any:
    """The win-rate matrix as one row per strategy, a "rate [low, high]" cell per opponent."""
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
