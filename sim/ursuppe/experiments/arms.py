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

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sim.errors import UserError
from sim.out_dirs import slug

if TYPE_CHECKING:
    from sim.ursuppe.rules.book import RuleBook

# Plays ``spec`` (a GameAdapter) for ``games`` games into ``out``, or reuses it if ``out`` holds
# this very run; ``description`` names the arm (a progress bar's label).
ArmPlayer = Callable[[Any, Path, int, str], Any]

DEFAULT_RULES = "default"  # the --rules value that means the built-in rules
# The tournament's default field: every preset, weakest-by-design first.
PRESET_ORDER = ("random", "drifter", "greedy", "breeder", "geneticist", "predator", "forager")
# Pair k of a tournament plays seed SEED * 10,000 + k, which must stay a valid run seed.
PAIR_SEEDS = 10_000


def arm_player(threads: int, chunk_size: int, backend: Any = None) -> ArmPlayer:
    """Arms played by the chunked runner on ``backend`` (sim.backends; default: this process on
    ``threads`` threads), without a progress bar (a notebook, a script)."""
    from sim import __version__, runner

    def play(spec: Any, out: Path, games: int, description: str) -> Any:
        return runner.run(spec, out, games, chunk_size, threads, version=__version__, backend=backend)

    return play


# --------------------------------------------------------------------------------------------
# Checks and shared pieces
# --------------------------------------------------------------------------------------------


def check_out(out: Path, command: str | None = None) -> None:
    """A user error unless ``out`` (and every run directory below it) can be a directory: checked
    before any game is played, so a bad --out leaves nothing behind. With ``command``, also
    unless ``out`` is new, empty or that command's own output (sim.out_dirs; issue 21.7)."""
    from sim import out_dirs

    if command is not None:
        out_dirs.check(out, command)
    else:
        out_dirs.check_writable(out)


def claim(out: Path, command: str) -> None:
    """Mark ``out`` as ``command``'s output when it starts writing (sim.out_dirs.claim)."""
    from sim import out_dirs

    out_dirs.claim(out, command)


def check_games(games: int, least: int, what: str) -> None:
    """``--games`` below ``least`` is a one-line user error."""
    if games < least:
        raise UserError(f"--games: expected at least {least} {what}, got {games}")


def check_decks(decks: int, games: int) -> None:
    """``--decks`` (V6): a positive number of decks, each with two games of every arm at least
    (a paired interval per deck); one-line user errors, raised before any work."""
    if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
        raise UserError(f"--decks: expected a positive number of decks (1: the rules' own deck), got {decks}")
    if decks > 1 and games < 2 * decks:
        raise UserError(
            f"--games: expected at least {2 * decks} games per arm with --decks {decks} (two a deck), "
            f"got {games}"
        )


@dataclass
class DeckPlan:
    """The decks an experiment's arms are played over (V6, ``--decks K``): the decks
    (deck_family.plausible_decks of the baseline rules, deck 0 their own), which games play which
    deck (deck_family.deck_blocks: contiguous blocks, whole seating cycles) and the family's
    description. Every arm uses the same decks and blocks, so game i is the same deal with the
    same deck in every arm (common random numbers hold per deck)."""

    decks: list[Any]
    blocks: list[tuple[int, int]]
    family: str

    @property
    def k(self) -> int:
        return len(self.decks)

    def labels(self) -> list[str]:
        from sim.ursuppe.experiments.deck_family import deck_label

        return [deck_label(d) for d in self.decks]

    def lines(self) -> list[str]:
        """The header lines naming the family and every deck with its games."""
        out = [f"{self.k} decks, every arm over the same ones: {self.family}"]
        for j, ((first, count), label) in enumerate(zip(self.blocks, self.labels(), strict=True)):
            own = " (the rules' own deck)" if j == 0 else ""
            out.append(f"deck {j}{own}: {label}; games {first}..{first + count - 1}")
        return out

    def arm(
        self, book_of: Callable[[Any], "RuleBook"], base: "RuleBook", build: Callable[["RuleBook"], Any]
    ) -> Any:
        """One arm's run over the decks: ``build(rules)`` for each deck's rules (deck 0: ``base``
        itself, the others ``book_of(deck)``), as a deck_family.DeckFamilyRun."""
        from sim.ursuppe.experiments.deck_family import DeckFamilyRun

        runs = [build(base)] + [build(book_of(deck)) for deck in self.decks[1:]]
        return DeckFamilyRun(runs, self.blocks, self.family)


def deck_plan(book: "RuleBook", decks: int, games: int, players: int, seating: str, seed: int) -> DeckPlan:
    """The --decks K plan of an experiment whose baseline rules are ``book``: K decks drawn with the
    run's seed (deck_family.plausible_decks), games in blocks of whole seating cycles (rotate:
    the S5 design's block, so every deck sees every seating equally; random: 1)."""
    from sim.ursuppe.experiments.deck_family import deck_blocks, family_description, plausible_decks
    from sim.ursuppe.rules.seating import rotate_block

    chosen = plausible_decks(book, decks, seed)
    cycle = rotate_block(players) if seating == "rotate" else 1
    return DeckPlan(chosen, deck_blocks(games, decks, cycle), family_description(book))


def deck_rules(path: str | Path | None, deck: Any, overrides: dict[str, Any] | None = None) -> "RuleBook":
    """The rules of ``path`` (None: default) with ``overrides`` and the environment deck ``deck``."""
    from sim.ursuppe.experiments.deck_family import deck_overrides
    from sim.ursuppe.rules.book import load_rules

    return load_rules(path, overrides={**(overrides or {}), **deck_overrides(deck)})


def per_deck_tables(plan: DeckPlan, tabulate: Callable[[Any], Any], rows: list[Any]) -> Any:
    """``tabulate`` (a paired table of analysis.ursuppe.paired) on each deck's games of every arm's
    ``rows``, stacked with ``deck`` and ``deck_label`` columns first."""
    import polars as pl

    parts = []
    for j, ((first, count), label) in enumerate(zip(plan.blocks, plan.labels(), strict=True)):
        mine = [r.filter(pl.col("game").is_between(first, first + count - 1)) for r in rows]
        table = tabulate(*mine)
        parts.append(table.select(pl.lit(j).alias("deck"), pl.lit(label).alias("deck_label"), pl.all()))
    return pl.concat(parts)


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


def write_tables(out: Path, stem: str, table: Any, markdown: str) -> list[Path]:
    """``stem``.csv and ``stem``.md in ``out``, each written atomically."""
    from analysis.tables import write_csv_atomic, write_text_atomic

    csv, md = out / f"{stem}.csv", out / f"{stem}.md"
    write_csv_atomic(csv, table)
    write_text_atomic(md, markdown)
    return [csv, md]


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


def _tokens(given: str, fixed: bool) -> list[str]:
    """The run's strategies as given (--strategies or --pool), for --retune."""
    from sim.game import strategy_list

    return strategy_list(given, "--strategies" if fixed else "--pool")


def _which(strategies: str | None, tuned: str, pool: str) -> tuple[str | None, str]:
    """(strategies, pool) for build_run with the tuned files in place of the given strategies."""
    return (tuned, pool) if strategies is not None else (None, tuned)


def rules_arms(rules: list[str] | None) -> tuple[str | None, str | None]:
    """The two --rules values as paths (None = the default rules)."""
    values = list(rules or [])
    if not values or len(values) > 2:
        raise UserError(f"--rules: expected one or two rules files (or 'default'), got {len(values)}")
    if len(values) == 1:
        values = [DEFAULT_RULES, values[0]]
    return tuple(None if v == DEFAULT_RULES else v for v in values)  # type: ignore[return-value]


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
    decks: int = 1,
) -> Comparison:
    """Play the same games under two rule sets (A, B; common random numbers: game i is the same
    deal in both) and pair them by game (B - A). Writes comparison.csv/.md into ``out``.

    ``retune`` (a sim.ursuppe.experiments.retune.Retune): first re-tune every strategy under each arm's rules
    (same budget and seed), then play each arm with its own tuned strategies.

    ``decks`` > 1 (V6): both arms are played over the same ``decks`` plausible decks, drawn from
    A's deck family with the seed (deck 0: A's own deck; :func:`deck_plan`); the table is the
    pooled one with each row's per-deck spread (analysis.ursuppe.paired.deck_spread), and
    comparison-by-deck.csv/.md holds the table of each deck's games. A and B must then have the
    same deck and family (else the decks would replace the rule under comparison). ``decks`` = 1
    is the comparison without decks, byte for byte. Retuning (``retune``) tunes under each
    arm's own deck (deck 0) and plays every deck with the tuned strategies."""
    from sim.ursuppe.rules.book import count_label, load_rules
    from sim.ursuppe.simulation import build_run

    check_games(games, 2, "games per arm (a paired interval needs two games)")
    check_decks(decks, games)
    path_a, path_b = rules_arms(rules)
    book_a, book_b = load_rules(path_a), load_rules(path_b)
    spec_a = build_run(book_a, players, seed, strategies, pool, seating, variant)
    spec_b = build_run(book_b, players, seed, strategies, pool, seating, variant)
    plan = None
    if decks > 1:
        env_a, env_b = book_a.data["environment"], book_b.data["environment"]
        if (env_a["deck"], env_a["family"]) != (env_b["deck"], env_b["family"]):
            raise UserError(
                f"--decks: A ({path_a or 'default'}) and B ({path_b or 'default'}) differ in "
                "environment.deck or environment.family; --decks plays both arms over the same decks, "
                "which would replace the difference under comparison (compare decks with --decks 1)"
            )
        plan = deck_plan(book_a, decks, games, players, seating, seed)
    if out is None:
        label = count_label(players, variant)
        out = Path("results") / f"compare-{book_a.rules_id}-{book_b.rules_id}-{label}-seed{seed}-{games}"
        if retune is not None:
            out = out.with_name(out.name + f"-retune{retune.budget}")
        if plan is not None:
            out = out.with_name(out.name + f"-decks{decks}")
    check_out(out, "compare")
    if book_a.rules_id == book_b.rules_id:
        raise UserError(
            f"--rules: A ({path_a or 'default'}) and B ({path_b or 'default'}) are the same rules "
            f"(rules id {book_a.rules_id}): every game would be the same, so there is nothing to compare"
        )
    retuned, extra = None, ""
    if retune is not None:
        from sim.ursuppe.experiments import retune as R

        given = strategies if strategies is not None else pool
        tokens = _tokens(given, strategies is not None)
        tuning = R.plan(retune, {"a": book_a, "b": book_b}, players, variant, tokens, seed, out)
        claim(out, "compare")  # after every check: bad input leaves nothing behind
        retuned = R.run(tuning)
        s_a, s_b = (R.mapped(given, retuned.paths[arm]) for arm in ("a", "b"))
        spec_a = build_run(book_a, players, seed, *_which(strategies, s_a, pool), seating, variant)
        spec_b = build_run(book_b, players, seed, *_which(strategies, s_b, pool), seating, variant)
    if plan is not None:  # the same runs on each deck's rules (their strategies: tuned or not)
        run_a, run_b = spec_a, spec_b
        spec_a = plan.arm(lambda d: deck_rules(path_a, d), book_a, lambda bk: _rebuild(run_a, bk))
        spec_b = plan.arm(lambda d: deck_rules(path_b, d), book_b, lambda bk: _rebuild(run_b, bk))
    claim(out, "compare")
    play(spec_a, out / "a", games, "rules A")
    play(spec_b, out / "b", games, "rules B")
    from analysis.ursuppe.paired import compare_runs, deck_spread  # after every check (issue 21.9)
    from analysis.win_rates import load_results

    rows_a, rows_b = load_results(out / "a"), load_results(out / "b")
    genes = run_genes(out / "a")
    table = compare_runs(rows_a, rows_b, genes=genes)
    per_deck = None
    name_a, name_b = path_a or "default rules", path_b or "default rules"
    lines = [
        f"A: {name_a} (rules {book_a.rules_id}), run {out / 'a'}",
        f"B: {name_b} (rules {book_b.rules_id}), run {out / 'b'}",
        _arm_line(games, players, seed, seating, strategies, pool, "arm", variant),
    ]
    files: list[Path] = []
    if plan is not None:
        per_deck = per_deck_tables(plan, lambda a, b: compare_runs(a, b, genes=genes), [rows_a, rows_b])
        table = deck_spread(table, per_deck)
        lines += plan.lines()
        head = header("soup compare: each deck's games", lines) + DECK_NOTE
        files += write_tables(out, "comparison-by-deck", per_deck, by_deck_markdown(per_deck, head))
    changes = None
    if retuned is not None:
        labels = {"a": "A", "b": "B"}
        lines += retuned.lines(labels)
        changes = R.changes_table(retuned, labels)
        extra = R.changes_markdown(changes)
        files += write_tables(out, "retune-changes", changes, "# soup compare --retune\n" + extra)
    small = small_warning(games)
    head = header("soup compare", lines + (["warning: " + small] if small else [])) + extra
    head += DECK_NOTE if plan is not None else ""
    files = write_tables(out, "comparison", table, comparison_markdown(table, head)) + files
    return Comparison(out, table, lines, files, small, changes=changes, per_deck=per_deck)


# The header note of a table over several decks (--decks K > 1).
DECK_NOTE = (
    "- decks (V6): every arm played the same decks, game i the same deck in every arm (contiguous"
    " blocks of whole seating cycles); diff, its interval and p are pooled over every game; deck_min"
    " and deck_max: the smallest and largest per-deck diff; same_sign: the diff has the same sign"
    " (never 0) on every deck; the by-deck table has each deck's own estimates (Holm within a deck"
    " and family).\n"
)


def _rebuild(run: Any, book: "RuleBook") -> Any:
    """``run`` (a simulation.UrsuppeRun) with ``book`` as its rules: the same strategies,
    assignment and seating on another deck."""
    from dataclasses import replace

    return replace(run, rulebook=book)


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


def ablated_rules(rules: str | Path | None, genes: list[str], deck: Any = None) -> "RuleBook":
    """The rules of ``rules`` (None: default) with ``genes`` removed from the deck at every player
    count, and with ``deck`` as the environment deck (``--decks``; None: the rules' own)."""
    from sim.ursuppe.rules.book import load_rules

    removed = {"genes": {g: {"copies": 0} for g in genes}}  # 0: every count
    return load_rules(rules, overrides=removed) if deck is None else deck_rules(rules, deck, removed)


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
    decks: int = 1,
) -> Comparison:
    """Remove ``genes`` together (or, with ``each``, every gene in turn) from the deck (0 copies)
    and pair each arm with the full deck by game. Writes ablation.csv/.md (and with ``each``
    ablation-summary.csv/.md, one row per gene, Holm over the whole family) into ``out``.

    ``decks`` > 1 (V6): every arm is played over the same plausible decks, as :func:`compare`'s
    (drawn from the baseline rules' family); ablation-by-deck.csv/.md holds each deck's table."""
    from sim.ursuppe.rules.book import count_label, load_rules
    from sim.ursuppe.simulation import build_run, check_players

    if each == bool(genes):
        raise UserError("--gene/--each: give one or more --gene NAME, or --each")
    check_games(games, 2, "games per run (a paired interval needs two games)")
    check_decks(decks, games)
    base = load_rules(rules)
    check_players(base, players, variant)
    # Only the genes in play (copies at this count, the extra genes only with their module): a gene
    # that cannot be bought plays both arms alike and would report zeros (issue 21.2).
    in_play = base.genes_in_play(players, variant)
    if each:
        removed = [[g] for g in in_play]
    else:
        names = list(dict.fromkeys(resolve_gene(g, base) for g in genes or []))
        for g in names:
            if g not in in_play:
                raise UserError(f"--gene: {base.not_in_play(g, players, variant)}; nothing to remove")
        removed = [names]
    if out is None:
        what = "each" if each else "+".join(slug(g) for g in removed[0])
        count = count_label(players, variant)
        out = Path("results") / f"ablate-{what}-{base.rules_id}-{count}-seed{seed}-{games}"
        if retune is not None:
            out = out.with_name(out.name + f"-retune{retune.budget}")
        if decks > 1:
            out = out.with_name(out.name + f"-decks{decks}")
    plan = deck_plan(base, decks, games, players, seating, seed) if decks > 1 else None
    check_out(out, "ablate")
    baseline_run = build_run(base, players, seed, strategies, pool, seating, variant)
    books = {"baseline": base}
    arm_names = {"baseline": "baseline"}
    for removed_genes in removed:
        key = "minus-" + "+".join(slug(g) for g in removed_genes)
        books[key] = ablated_rules(rules, removed_genes)
        arm_names[key] = "without " + " + ".join(removed_genes)
    given = strategies if strategies is not None else pool
    arm_strategies = {key: given for key in books}
    retuned, extra, changes = None, "", None
    if retune is not None:
        from sim.ursuppe.experiments import retune as R

        tokens = _tokens(given, strategies is not None)
        tuning = R.plan(retune, books, players, variant, tokens, seed, out)
        claim(out, "ablate")  # after every check: bad input leaves nothing behind
        retuned = R.run(tuning)
        arm_strategies = {key: R.mapped(given, retuned.paths[key]) for key in books}
        baseline_run = build_run(
            base, players, seed, *_which(strategies, arm_strategies["baseline"], pool), seating, variant
        )
    if plan is not None:
        run = baseline_run
        baseline_run = plan.arm(lambda d: deck_rules(rules, d), base, lambda bk: _rebuild(run, bk))
    claim(out, "ablate")
    play(baseline_run, out / "baseline", games, "baseline")
    arms: dict[str, Path] = {}  # label (genes joined by " + ") -> run directory
    for removed_genes in removed:
        label = " + ".join(removed_genes)
        key = "minus-" + "+".join(slug(g) for g in removed_genes)
        book = books[key]
        arm = out / key
        arm_run = build_run(
            book, players, seed, *_which(strategies, arm_strategies[key], pool), seating, variant
        )
        if plan is not None:
            arm_run = plan.arm(
                lambda d, genes=removed_genes: ablated_rules(rules, genes, d),
                book,
                lambda bk, run=arm_run: _rebuild(run, bk),
            )
        play(arm_run, arm, games, f"without {label}")
        arms[label] = arm
    lines = [
        f"baseline: {rules or 'default rules'} (rules {base.rules_id}), run {out / 'baseline'}",
        _arm_line(games, players, seed, seating, strategies, pool, "run", variant),
    ]
    retune_files: list[Path] = []
    if retuned is not None:
        lines += retuned.lines(arm_names)
        changes = R.changes_table(retuned, arm_names)
        extra = R.changes_markdown(changes)
        retune_files = write_tables(out, "retune-changes", changes, "# soup ablate --retune\n" + extra)
    from analysis.tables import frame_markdown
    from analysis.ursuppe.paired import (  # after every check (issue 21.9)
        ablation_summary,
        ablation_table,
        compare_runs,
        deck_spread,
    )
    from analysis.win_rates import load_results

    small = small_warning(games)
    notes = ["warning: " + small] if small else []
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
    per_deck, deck_files, deck_note = None, [], ""
    if plan is not None:
        per_deck = per_deck_tables(plan, tabulate, [baseline, *arm_rows.values()])
        table = deck_spread(table, per_deck)
        lines += plan.lines()
        deck_note = DECK_NOTE
        head = header("soup ablate: each deck's games", lines) + DECK_NOTE
        deck_files = write_tables(out, "ablation-by-deck", per_deck, by_deck_markdown(per_deck, head))
    if not each:
        files = write_tables(
            out,
            "ablation",
            table,
            comparison_markdown(table, header("soup ablate", lines + notes) + extra + deck_note),
        )
        return Comparison(
            out,
            table,
            lines,
            files + deck_files + retune_files,
            small,
            removed=removed,
            changes=changes,
            per_deck=per_deck,
        )
    summary = ablation_summary(table)
    md = (
        header("soup ablate --each", lines + notes)
        + extra
        + (
            "- Holm over the whole family: every removed gene x every strategy (win rates),"
            " every removed gene (rounds, finish-zone share); a removed gene's own purchase"
            " rate is 0 by construction and not in the family.\n\n"
        )
        + frame_markdown(summary)
    )
    head = header("soup ablate --each", lines + notes) + extra + deck_note
    files = write_tables(out, "ablation", table, comparison_markdown(table, head))
    files += write_tables(out, "ablation-summary", summary, md) + deck_files + retune_files
    return Comparison(
        out, table, lines, files, small, summary=summary, removed=removed, changes=changes, per_deck=per_deck
    )


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
    from sim.ursuppe.simulation import check_players, load_seats

    check_games(games, 1, "game per pair")
    book = load_rules(rules)
    check_players(book, players, variant)
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
    per_pair = tournament_games(games, players, variant)
    if out is None:
        count = count_label(players, variant)
        out = Path("results") / f"tournament-{book.rules_id}-{count}-seed{seed}-{per_pair}"
    check_out(out, "tournament")
    # The analysis (polars, scipy, matplotlib) is imported after every check: a bad argument is
    # refused at once (issue 21.9).
    import polars as pl

    from analysis.equilibrium import equilibrium
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
    wide = wide_cells(matrix, names)
    lines = [
        f"rules {book.rules_id}; {per_pair:,} games per pair, {players} players"
        + (f", variant {variant}" if variant else "")
        + f", seed {seed}"
        " (pair k: seed*10000+k), seating rotate",
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
    files = [
        out / "tournament-matrix.csv",
        out / "tournament-ratings.csv",
        out / "tournament-equilibrium.csv",
        out / "tournament.md",
    ]
    if plot:
        heatmap(matrix, names, out / "tournament-heatmap.png", f"Head-to-head win rate, {players} players")
        files.append(out / "tournament-heatmap.png")
    return Tournament(out, ratings, matrix, names, lines, files, eq_table)


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
