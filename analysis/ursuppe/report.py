"""The balance report (``soup report``): Markdown and HTML with tables and figures, from one or
more run directories (e.g. a 3-player and a 4-player run of the same rules).

The output directory is a report page's (analysis.pages.page_built_beside: report.md, report.html,
figures/, tables/ and the marker), built beside its destination and renamed into place, so an
interrupted report never leaves a half-written result; an existing directory is replaced only if it
is an earlier report. The checks every report makes of its runs are analysis.report_runs';
Ursuppe's own are here.
"""

import datetime
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from analysis import at_equilibrium, report_runs, win_rates
from analysis.intervals import SMALL_GROUP
from analysis.pages import Page, Progress, page_built_beside, write_sections
from analysis.report_runs import ReportError
from analysis.skill_ladder import read_ladder, section_skill, strongest_line
from analysis.tables import WIN_RATE_COLUMNS, Col, fmt, markdown_table, plural
from analysis.ursuppe import deck_order, figures, genes
from analysis.ursuppe.streamed import Analyses, RunCounts, Streamed, analyse_runs, readable_end
from sim import __version__
from sim.ursuppe.rules.extra_flags import EXTRA_FLAGS
from sim.ursuppe.rules.seating import rotate_block

# --- input -------------------------------------------------------------------------------------


def _read_manifest(run: Path) -> dict[str, Any]:
    """A run's manifest, checked for what the report needs (analysis.report_runs.read_manifest:
    every game's fields and its chunks; here Ursuppe's own fields); ReportError names the problem."""
    return report_runs.read_manifest(run, "ursuppe", "soup simulate", _spec_problem)


def _spec_problem(spec: dict[str, Any]) -> str | None:
    """What is wrong with Ursuppe's own fields of a manifest's spec for the report, or None (the
    fields every game has: analysis.report_runs.read_manifest)."""
    for key in ("deck", "seating"):
        if not isinstance(spec.get(key), str):
            return f"spec.{key}: expected a string, got {spec.get(key)!r}"
    if not isinstance(spec.get("assignment"), dict):
        return "spec.assignment: expected an object"
    decks = spec.get("decks")
    if isinstance(decks, list) and len(decks) > 1:
        # V6: an arm of soup compare/ablate --decks K; its deck-order and deck columns would mix decks
        return (
            f"spec.decks: a run over {len(decks)} environment decks (soup compare/ablate --decks), whose "
            "rows mix decks; the report reads one deck per run: see the experiment's by-deck table"
        )
    try:
        deck = spec["rules"]["environment"]["deck"]
    except (KeyError, TypeError):
        return "spec.rules.environment.deck: missing"
    if not isinstance(deck, list) or not deck:
        return "spec.rules.environment.deck: expected a list of cards"
    for i, card in enumerate(deck):
        if (
            not isinstance(card, dict)
            or not isinstance(card.get("ozone"), int)
            or not isinstance(card.get("drift"), str)
        ):
            return f"spec.rules.environment.deck[{i}]: expected {{ozone = integer, drift = text}}"
    return None


def _check_combination(manifests: list[dict[str, Any]], dirs: list[Path]) -> None:
    """Runs may be combined when they add games of the same experiment
    (analysis.report_runs.check_combination: another seed; the rules are checked by the caller):
    per player count one variant, then the same strategies, assignment and seating."""
    variants: dict[int, tuple[Path, Any]] = {}
    for d, m in zip(dirs, manifests, strict=True):
        s = m["spec"]
        first, variant = variants.setdefault(s["players"], (d, s.get("variant")))
        if variant != s.get("variant"):
            # The 2-player variants are different games: their rows are never pooled (issue 11).
            raise ReportError(
                f"{first} and {d}: 2-player runs of different variants ({variant}, {s.get('variant')}); "
                "report each alone"
            )
    design = ("strategies", "strategy_parameters", "assignment", "seating")
    report_runs.check_combination(manifests, dirs, design, "strategies, assignment or seating")


# --- the report ---------------------------------------------------------------------------------


def build_report(
    run_dirs: Sequence[str | Path],
    out: str | Path,
    top_sets: int = 15,
    equilibrium: str | Path | None = None,
    progress: Progress | None = None,
    strong: Sequence[str | Path] = (),
    skill: str | Path | None = None,
) -> Path:
    """Write the balance report of ``run_dirs`` into ``out``; an earlier report there is replaced.
    ``equilibrium``: a ``soup tournament`` directory whose equilibrium mix weighs the seat and
    gene tables in an extra section "At equilibrium" (analysis.at_equilibrium). ``strong``: runs
    of the same rules with search players (issue 34.3), whose strategy, seat and gene tables are
    shown beside the scripted field's in "Under strong play", with the findings that change;
    ``skill``: a ``soup skill`` directory, whose ladder the report shows and whose strongest rung
    the strategy section names (analysis.skill_ladder).

    The runs are read one chunk at a time (analysis.ursuppe.streamed), so memory stays flat however many
    games they hold (issue 21.11); only ``equilibrium`` needs every row in memory (its weights are
    per row). ``progress(step, done, total)`` is told what is being done: ``reading`` the chunks
    (in games; ``reading 1/2`` and ``reading 2/2`` when read twice), then each section written."""
    dirs = report_runs.run_dirs(run_dirs)
    manifests = [_read_manifest(d) for d in dirs]
    report_runs.check_same_rules(manifests, compare="soup compare")
    _check_combination(manifests, dirs)
    mix = None
    if equilibrium is not None:
        try:
            mix = at_equilibrium.read_mix(equilibrium)
        except ValueError as e:
            raise ReportError(str(e)) from None
    ladder = read_ladder(skill) if skill is not None else None  # a LadderError is a ReportError
    strong_dirs = report_runs.run_dirs(strong) if strong else []
    strong_manifests = [_read_manifest(d) for d in strong_dirs]
    if strong_dirs:
        _check_strong(manifests, strong_manifests, strong_dirs)
    out = report_runs.output_dir(out, dirs)
    report_runs.check_some_chunks(manifests, dirs)
    if strong_dirs:
        report_runs.check_some_chunks(strong_manifests, strong_dirs)
    weighted = None  # checked before the runs are read: a check that fails comes first
    with report_runs.reading(dirs):  # a damaged chunk, the same run twice, foreign files
        if mix is not None:  # every row in memory: the mix's weights are per row
            weighted = at_equilibrium.with_weights(win_rates.load_results(*dirs).collect(), mix)
        decks = {json.dumps(m["spec"]["rules"]["environment"]["deck"]) for m in manifests}
        streamed = analyse_runs(
            dirs,
            manifests,
            genes.run_gene_names(manifests),
            progress,
            deck=manifests[0]["spec"]["rules"]["environment"]["deck"] if len(decks) == 1 else None,
        )
    strong_streamed = None
    if strong_dirs:
        with report_runs.reading(strong_dirs):
            strong_streamed = analyse_runs(
                strong_dirs, strong_manifests, genes.run_gene_names(strong_manifests)
            )
    with page_built_beside(out, "Ursuppe balance report") as page:
        _write(page, streamed, manifests, dirs, top_sets, progress, ladder)
        if weighted is not None:
            section_at_equilibrium(page, weighted, mix, Path(equilibrium))
        if ladder is not None:
            section_skill(page, ladder, Path(skill))
        if strong_streamed is not None:
            section_strong_play(
                page, streamed.analyses, strong_streamed.analyses, strong_manifests, strong_dirs
            )
    return out


def _check_strong(manifests: list[dict[str, Any]], strong: list[dict[str, Any]], dirs: list[Path]) -> None:
    """Runs of search players beside the scripted ones (issue 34.3): the same rules and player
    counts, and a search player among each run's strategies (else it is not strong play)."""
    report_runs.check_same_rules(manifests + strong, compare="soup compare")
    counts = {m["spec"]["players"] for m in manifests}
    for d, m in zip(dirs, strong, strict=True):
        if m["spec"]["players"] not in counts:
            raise ReportError(
                f"--strong {d}: a {m['spec']['players']}-player run, but the report's runs are of "
                f"{', '.join(map(str, sorted(counts)))} players"
            )
        if not m["spec"].get("search"):
            raise ReportError(
                f"--strong {d}: no search player among its strategies "
                f"({', '.join(m['spec']['strategies'])}); "
                "expected a run of soup simulate --strategies search-…"
            )


# --- sections -----------------------------------------------------------------------------------

# A start space against the other start spaces (seat tables by strategy, and at equilibrium).
SEAT_VS_OTHERS_COLUMNS = [
    ("start_space", "start space", "int"),
    Col.PLAYER_GAMES,
    ("win_rate", "win rate", "rate"),
    Col.CI95,
    ("difference", "vs other spaces", "signed"),
    Col.DIFF_CI95,
    Col.P_HOLM,
]
RATE_COLUMNS = [*WIN_RATE_COLUMNS, ("p_holm", "p vs fair (Holm)", "p")]
# A start space against the fair share (the seat table, scripted and strong field).
SEAT_ADVANTAGE_COLUMNS = [
    Col.PLAYERS,
    ("start_space", "start space", "int"),
    Col.PLAYER_GAMES,
    *RATE_COLUMNS[:3],
    ("advantage", "advantage", "signed"),
    Col.P_HOLM,
]


def _seating_words(seating: str, players: int) -> str:
    """The run's seating and, for ``rotate``, its design (S5): every permutation at 3-4 players,
    a balanced Latin square with a block of rotate_block(P) games at 5-6 (docs/decisions.md)."""
    if seating != "rotate":
        return seating
    block = rotate_block(players)
    if block == math.factorial(players):
        return f"rotate (all {block} permutations)"
    return f"rotate (balanced Latin square, {block} games a block)"


def _runs_section(
    manifests: list[dict[str, Any]], dirs: list[Path], counts: RunCounts
) -> tuple[str, list[str]]:
    analysed = counts.games_per_run
    lines = [
        "| run | players | games analysed | seed | seating | strategies | rules id | house-rules files |",
        "|:--|--:|--:|--:|:--|:--|:--|:--|",
    ]
    decks, markets, warnings = set(), set(), []
    for i, (d, m) in enumerate(zip(dirs, manifests, strict=True)):
        s = m["spec"]
        done = analysed.get(i, 0)
        assignment = "drawn from " if "pool" in s.get("assignment", {}) else "seated "
        lines.append(
            f"| `{d.name}` | {s['players']} | {done:,} of {s['games']:,} | {s['seed']} | "
            f"{_seating_words(s.get('seating', '?'), s['players'])} | "
            f"{assignment}{', '.join(s['strategies'])} | `{s['rules_id']}` | "
            f"{', '.join(s.get('rules_files') or []) or 'none (default rules)'} |"
        )
        decks.add(s["deck"])
        market = _extra_genes_line(s["rules"])
        if market:
            markets.add(market)
        warning = report_runs.run_warning(d, m, done)
        if warning:
            warnings.append(warning)
        if s["rules"]["environment"].get("placeholder"):
            warnings.append(
                "**Warning: placeholder environment deck.** The real card values are in no source we "
                "have (spec §13); this deck is a stand-in. Deck-order effects and everything that depends "
                "on ozone and drift are effects *of this deck*. Replace it in a rules file when the real "
                "values are known."
            )
        guessed = [name for name in s.get("placeholders", []) if name != "environment.deck"]
        if guessed:
            # A 2-player variant's guesses are its own section's (docs/rules.md §16: the dummy;
            # §17: the double plays).
            variant = f", variant {s['variant']}" if s.get("variant") else ""
            where = {None: "§15", "dummy": "§16"}.get(s.get("variant"), "§17")
            if any(n.startswith("genes.") or n[6:] in _EXTRA_FLAG_NAMES for n in guessed):
                where += " and §18 (extra genes)"
            warnings.append(
                f"**Warning: placeholder rules with {s['players']} players{variant}:** "
                + ", ".join(f"`{name}`" for name in guessed)
                + f" (no source has these values; docs/rules.md {where} gives the defaults used). Results "
                "that depend on them are results *of these guesses*."
            )
    warnings += report_runs.small_samples(
        counts.games_per_count,
        "Intervals are wide, and tests with too few players on a side are not made (shown as –)",
    )
    text = "\n".join(lines) + "\n\n" + "\n".join(f"Environment deck: {d}" for d in sorted(decks))
    if markets:
        text += "\n\n" + "\n\n".join(sorted(markets))
    return text, list(dict.fromkeys(warnings))


_EXTRA_FLAG_NAMES = frozenset(f.name for f in EXTRA_FLAGS)


def _extra_genes_line(rules: dict[str, Any]) -> str:
    """The extra-gene market of a run's rules (XM1-XM8) and the §18 flags not at their default;
    empty without the module (a run written before it has no such flags)."""
    flags = rules.get("flags", {})
    if not flags.get("extra_genes"):
        return ""
    timing = {
        "after_first_player": "after the first Phase-3 player",
        "start_of_phase3": "at the start of Phase 3",
        "after_each_purchase": "one after each purchase",
    }[flags["extra_reveal_timing"]]
    changed = [
        f"`{f.name} = {json.dumps(flags[f.name])}`"
        for f in EXTRA_FLAGS
        if f.name in flags
        and flags[f.name] != (list(f.default) if isinstance(f.default, tuple) else f.default)
    ]
    return (
        f"Extra genes (docs/rules.md §18): on. Start pair {' + '.join(flags['extra_start_pair']) or 'none'}; "
        f"the other extra genes face down, {flags['extra_reveal_per_round']} revealed a round {timing}; "
        f"unbought cards {'are discarded' if flags['extra_unbought_discarded'] else 'stay in the pool'}; "
        f"excluded: {', '.join(flags['extra_excluded']) or 'none'}"
        + ("; base genes mixed into the deck" if flags["extra_deck_mixed_with_base"] else "")
        + ". Readings not at their default: "
        + (", ".join(changed) or "none")
        + "."
    )


def _pct(x: float) -> str:
    return fmt(x, "pct")


def _first_three(names: pl.Series) -> str:
    """E.g. "A, B, C and 2 more"; "none" when empty."""
    shown = ", ".join(names.head(3).to_list()) or "none"
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _strategy_headline(players: int, s: pl.DataFrame) -> str:
    """Which strategies are strongest and weakest, by their intervals: the leaders are the
    strategies whose interval overlaps the best one's, the laggards those whose interval overlaps
    the worst one's; a side is named "clearly" only when its intervals stay apart from the other's
    (``s`` sorted by win rate, best first)."""
    best_low, worst_high = s["ci_low"][0], s["ci_high"][-1]
    leaders = s.filter(pl.col("ci_high") >= best_low)
    laggards = s.filter(pl.col("ci_low") <= worst_high)

    def named(part: pl.DataFrame) -> str:
        return ", ".join(
            f"**{n}** {_pct(w)} [{_pct(lo)}–{_pct(hi)}]"
            for n, w, lo, hi in part.select("strategy", "win_rate", "ci_low", "ci_high").iter_rows()
        )

    fair = _pct(s["fair_share"][0])
    if len(leaders) == len(s):
        return (
            f"{players} players: no strategy is clearly strongest or weakest: every interval overlaps "
            f"the best one's ({named(s)}; fair share {fair})."
        )
    if len(leaders) == 1:
        top = f"the strongest strategy is {named(leaders)}, clearly ahead of the rest"
    else:
        top = (
            f"no single strategy is clearly strongest: {len(leaders)} lead with overlapping intervals "
            f"({named(leaders)})"
        )
    if len(laggards) == 1:
        bottom = f"the weakest is {named(laggards)}, clearly behind the rest"
    else:
        bottom = f"the weakest, with overlapping intervals: {named(laggards)}"
    return f"{players} players: {top}; {bottom} (win rates with [95% intervals]; fair share {fair})."


def _findings(
    strategy: pl.DataFrame,
    seats: pl.DataFrame,
    seat_by_strategy: pl.DataFrame,
    effects: pl.DataFrame,
    synergy: pl.DataFrame,
    length: pl.DataFrame,
    ends: pl.DataFrame,
) -> list[str]:
    """Plain-language headlines, each backed by a table below, per player count."""
    out = []
    for players in strategy["players"].unique().sort().to_list():
        at = pl.col("players") == players
        s = strategy.filter(at).sort("win_rate", descending=True)
        lines = [
            _strategy_headline(players, s) if len(s) > 1 else None,
            _seat_headline(players, seats.filter(at)),
            _seat_strategy_headline(
                players,
                seat_by_strategy.filter(at & (pl.col("p_holm") < 0.05)).sort(
                    pl.col("difference").abs(), descending=True
                ),
            ),
            _gene_headline(players, effects.filter(at & (pl.col("within_p_holm") < 0.05))),
            # The best-supported pair (smallest p, as the table is sorted), not the largest estimate:
            # the largest estimates come from the smallest groups.
            _synergy_headline(players, synergy.filter(at & (pl.col("within_q_bh") < 0.05)).sort("within_p")),
            _length_headline(
                players, length.filter(at), ends.filter(at & (pl.col("end_reason") == "finish zone"))
            ),
        ]
        out += [line for line in lines if line is not None]
    return out


def _seat_headline(players: int, st: pl.DataFrame) -> str:
    """Whether any start space differs from the fair share (Holm), or that it cannot be tested."""
    if st["p_holm"].is_nan().all():
        return f"{players} players: seat bias is not testable with this few games."
    biased = st.filter(pl.col("p_holm") < 0.05)
    if len(biased):
        worst = biased.sort(pl.col("advantage").abs(), descending=True).row(0, named=True)
        return (
            f"{players} players: {len(biased)} of {len(st)} start spaces "
            f"{'differs' if len(biased) == 1 else 'differ'} from the fair share (Holm p < 0.05); "
            f"the largest deviation is start space {worst['start_space']} "
            f"({fmt(worst['advantage'], 'points')} points of win rate)."
        )
    return (
        f"{players} players: no start space differs from the fair share (Holm p ≥ 0.05; largest "
        f"deviation {st['advantage'].abs().max() * 100:.1f} points of win rate)."
    )


def _seat_strategy_headline(players: int, sb: pl.DataFrame) -> str | None:
    """The largest significant strategy × start space cell (``sb``: those cells, largest first)."""
    if not len(sb):
        return None
    r = sb.row(0, named=True)
    return (
        f"{players} players: seats matter for some strategies: **{r['strategy']}** wins "
        f"{_pct(r['win_rate'])} from start space {r['start_space']}, "
        f"{abs(r['difference']) * 100:.1f} points {'more' if r['difference'] > 0 else 'less'} "
        f"than from the other spaces ({plural(len(sb), 'strategy × seat cell')} "
        f"{'differs' if len(sb) == 1 else 'differ'}, Holm p < 0.05; "
        "see *Strategy and start space*)."
    )


def _gene_headline(players: int, sig: pl.DataFrame) -> str | None:
    """The genes whose holders win more (less) within strategy (``sig``: the significant ones)."""
    if not len(sig):
        return None
    sig = sig.with_columns(
        pl.when((pl.col("smallest_group") > 0) & (pl.col("smallest_group") < SMALL_GROUP))
        .then(pl.format("{} (small group: {})", "gene", "smallest_group"))
        .otherwise(pl.col("gene"))
        .alias("gene")
    )
    plus = sig.filter(pl.col("within_strategy") > 0).sort("within_strategy", descending=True)["gene"]
    minus = sig.filter(pl.col("within_strategy") < 0).sort("within_strategy")["gene"]
    return (
        f"{players} players: genes whose holders win more than non-holders of the same strategy "
        f"(Holm p < 0.05), largest first: {_first_three(plus)}; win less: {_first_three(minus)}. "
        "These are associations; `soup verdict --gene NAME` judges a gene by designs that measure "
        "it, across fields, decks and readings (docs/verdicts.md)."
    )


def _synergy_headline(players: int, syn: pl.DataFrame) -> str | None:
    """The first of ``syn`` (the pairs with BH q < 0.05, best-supported first)."""
    if not len(syn):
        return None
    r = syn.row(0, named=True)
    return (
        f"{players} players: the best-supported gene-pair interaction within strategy is "
        f"**{r['gene_a']} + {r['gene_b']}**: {fmt(r['within_strategy'], 'points')} points of win "
        f"rate beyond the two genes' own effects (95% CI {fmt(r['within_low'], 'points')} to "
        f"{fmt(r['within_high'], 'points')}), based on {r['strata']}; "
        f"{plural(len(syn), 'pair')} {'has' if len(syn) == 1 else 'have'} BH q < 0.05."
    )


def _length_headline(players: int, ln: pl.DataFrame, fz: pl.DataFrame) -> str | None:
    """How long games last and the share ending in the finish zone (``fz``: that ending's row)."""
    if not len(ln):
        return None
    row = ln.row(0, named=True)
    share = fz["share"][0] if len(fz) else 0.0
    return (
        f"{players} players: games last {row['mean_rounds']:.2f} rounds on average (median "
        f"{row['median']:.0f}, range {row['min']}–{row['max']}); {_pct(share)} end with a marker "
        "in the finish zone, the rest after the last environment card."
    )


def analyse(rows: pl.DataFrame, gene_names: Sequence[str] | None = None) -> Analyses:
    """The report's analysis tables of the player rows (analysis.win_rates.load_results); the
    gene tables cover ``gene_names`` (the runs' genes, analysis.ursuppe.genes.run_gene_names)."""
    g = None if gene_names is None else tuple(gene_names)
    return Analyses(
        strategy=win_rates.win_rates(rows, ["players", "strategy"]),
        seats=win_rates.seat_advantage(rows),
        seat_by_strategy=win_rates.seat_effects(rows, "strategy"),
        length=readable_end(win_rates.game_length(rows)),
        length_summary=win_rates.game_length_summary(rows),
        ends=readable_end(win_rates.end_reasons(rows)),
        held=genes.gene_effects(rows, "held", genes=g),
        bought=genes.gene_effects(rows, "bought", genes=g),
        synergy=genes.gene_synergy(rows, "held", genes=g),
        purchases=genes.purchase_rates(rows, genes=g),
        timing=genes.purchase_timing(rows, genes=g),
    )


def _player_counts(df: pl.DataFrame) -> list[int]:
    return df["players"].unique().sort().to_list()


def _write(
    r: Page,
    s: Streamed,
    manifests: list[dict[str, Any]],
    dirs: list[Path],
    top_sets: int,
    progress: Progress | None = None,
    ladder: dict[str, Any] | None = None,
) -> None:
    """The whole report, section by section, in reading order, from the tables of the runs
    (analysis.ursuppe.streamed); ``ladder``: a skill ladder whose strongest rung the strategy
    section names."""
    a = s.analyses
    steps: list[tuple[str, Callable[[], None]]] = [
        ("title", lambda: section_title(r, s.counts, manifests, dirs)),
        ("headlines", lambda: (section_headlines(r, a), section_how_to_read(r))),
        ("win rates", lambda: section_strategy(r, a.strategy, ladder)),
        ("seats", lambda: section_seats(r, a.seats, a.seat_by_strategy)),
        ("game length", lambda: section_game_length(r, a.length, a.length_summary, a.ends)),
        ("gene effects", lambda: section_gene_effects(r, a.held, a.bought)),
        ("purchases", lambda: section_purchases(r, a.purchases, a.timing)),
        ("synergy", lambda: section_synergy(r, a.synergy)),
        ("gene sets", lambda: section_gene_sets(r, s.gene_set_counts, top_sets, s.gene_names)),
        ("deck order", lambda: section_deck_order(r, s, manifests)),
        ("glossary", lambda: section_glossary(r)),
    ]
    write_sections(steps, progress)


def section_title(
    r: Page, rows: "pl.DataFrame | RunCounts", manifests: list[dict[str, Any]], dirs: list[Path]
) -> None:
    """Title, what the report covers, the warnings (incomplete runs, small samples, the
    placeholder deck) and the table of runs: what a reader must know before any number.
    ``rows``: the player rows, or their counts (analysis.ursuppe.streamed.RunCounts)."""
    counts = rows if isinstance(rows, RunCounts) else RunCounts.of(rows)
    n_games = counts.games
    runs_text, warnings = _runs_section(manifests, dirs, counts)
    r.text("# Ursuppe balance report")
    seeds = sorted({m["spec"]["seed"] for m in manifests})
    r.text(
        f"{plural(n_games, 'game')} ({plural(counts.rows, 'player result')}) from "
        f"{plural(len(dirs), 'run')}, "
        f"seed{'s' if len(seeds) != 1 else ''} {', '.join(map(str, seeds))}. "
        f"Generated {datetime.date.today().isoformat()} by soup {__version__}."
    )
    for w in warnings:
        r.text("> " + w)
    r.text("## What was run")
    r.text(runs_text)


def section_headlines(r: Page, a: Analyses) -> None:
    """Plain-language findings, each backed by a table further down."""
    r.text("## Headlines")
    r.text(
        "\n".join(
            f"- {f}"
            for f in _findings(
                a.strategy, a.seats, a.seat_by_strategy, a.held, a.synergy, a.length_summary, a.ends
            )
        )
    )


def section_how_to_read(r: Page) -> None:
    """The statistics behind every table, said once so the tables need not repeat it."""
    r.text(
        "## How to read this report\n"
        "- **Player-games**: one player in one game; a strategy drawn for two seats of a game counts twice.\n"
        "- Every rate has a 95% **Wilson interval**. Tests against the fair share (1 / players) and "
        "differences between groups use **cluster-robust** standard errors with the game as the "
        "cluster, because the players of one game are not independent (exactly one of them wins).\n"
        "- A table that tests a family (every seat, every gene) gives **Holm**-adjusted p-values (the "
        "chance of any false finding in the table stays below 5%); the many gene pairs get "
        "**Benjamini–Hochberg** q-values (the expected share of false findings among those with q < 0.05 "
        "stays below 5%). A dash (–) marks a test not made: too few players on a side.\n"
        "- Gene and deck effects are **associations** in simulated play with the listed strategies. *Within "
        "strategy* compares players of the same strategy, which removes the part of a gap that only says "
        "which strategies buy a gene. What a rule change *causes* is a paired experiment: `soup compare`, "
        "`soup ablate`; whether a gene is too strong, and under which conditions, is `soup verdict --gene "
        "NAME` (docs/verdicts.md).\n"
        "- Player counts are never pooled: the fair share and the gene copies differ between them.\n"
        "- Words and rule ids are explained in the *Glossary* at the end."
    )


# The report's terms, in the order a reader meets them; a rule id names the rule of
# docs/rules.md that defines the term.
GLOSSARY: tuple[tuple[str, str], ...] = (
    ("score marker", "a player's marker on the score track: it moves up by the points of Phase 6"),
    (
        "start space (S5)",
        "the space of the score track a player's marker starts on, 1 to the number of players; it "
        "fixes the turn order until the markers move apart, so it is the game's seat",
    ),
    ("seating", "how players are put on start spaces: `random` per game, or `rotate` through them all"),
    ("fair share", "1 / players: the win rate of a player when no strategy or seat matters"),
    ("player-game", "one player in one game (a four-player game gives four)"),
    ("strategy", "a scripted player (docs/strategies.md); the table names it by its preset"),
    ("BP, DP, MP", "biological points (the currency, C4), damage points (C4), mutation points (E2)"),
    ("gene held / bought", "a gene card a player holds at the end / bought at some point of the game"),
    (
        "within strategy",
        "holders against non-holders of the same strategy, averaged over the strategies by their "
        "player-games: the part of a gap that only says which strategies buy a gene is removed",
    ),
    ("smallest group", "the fewest players on one side of a within-strategy comparison"),
    (
        "environment deck (V1-V4)",
        "11 cards that set the drift direction and the ozone each round; their order is dealt per game",
    ),
    ("finish zone (W1)", "the end of the score track: a marker reaching it ends the game after the round"),
    ("end of game (W1)", "a marker in the finish zone, or the last environment card revealed"),
    ("Holm p", "a p-value adjusted for the whole table's tests (family-wise error below 5%)"),
    ("BH q", "Benjamini–Hochberg q-value: the expected share of false findings among q < 0.05"),
    (
        "placeholder",
        "a value no source states (docs/rules.md); the run's manifest and the title name those used",
    ),
    ("rules id", "a hash of the rules a run played: runs with the same id played the same rules"),
)


def section_glossary(r: Page) -> None:
    """The report's words and rule ids, said once at the end (docs/rules.md has the rules)."""
    r.text(
        "## Glossary\n"
        + "\n".join(f"- **{term}**: {meaning}." for term, meaning in GLOSSARY)
        + "\n- **Rule ids** (S5, W1, E2, ...) name rules of the specification, docs/rules.md."
    )


def section_strategy(r: Page, strategy: pl.DataFrame, ladder: dict[str, Any] | None = None) -> None:
    """Win rate per strategy and player count (analysis.win_rates.win_rates): which strategy wins;
    and the strongest player the project knows (issue 33.4): a skill ladder's strongest rung
    when one is given, else how to measure it."""
    r.text("## Win rates by strategy")
    if ladder is not None:
        r.text(strongest_line(ladder) + " See *Skill ladder*.")
    else:
        r.text(
            "These strategies are scripted. How strong they are against the strongest player soup has "
            "(search, docs/strategies.md) is measured by `soup skill`; give its directory with "
            "`--skill DIR` and this section names the strongest rung."
        )
    r.table(
        "win_rate_by_strategy",
        strategy,
        [
            Col.PLAYERS,
            ("strategy", "strategy", "text"),
            Col.PLAYER_GAMES,
            *RATE_COLUMNS,
            ("mean_rounds", "mean rounds of its games", "num"),
        ],
    )
    r.figure(
        "win_rate_by_strategy",
        figures.strategy_rates(strategy),
        "Win rate by strategy with 95% intervals; dashed: fair share.",
    )


def section_seats(r: Page, seats: pl.DataFrame, seat_by_strategy: pl.DataFrame) -> None:
    """Seat advantage (S5): each start space against the fair share, then each strategy from
    each start space against the same strategy from the other spaces."""
    r.text("## Seat advantage (S5)")
    r.table(
        "seat_advantage",
        seats,
        SEAT_ADVANTAGE_COLUMNS,
    )
    r.figure(
        "seat_bias",
        figures.seat_bias(seats),
        "Win rate by start space with 95% intervals; dashed: fair share. The rate axis is fitted to the "
        "intervals and does not start at 0.",
    )
    r.text(
        "### Strategy and start space\n"
        "Each strategy's win rate from each start space, against the same strategy from the other "
        "spaces (*difference*; Holm over the table). Seat effects of opposite sign for different "
        "strategies can cancel in the table above."
    )
    r.table(
        "seat_by_strategy",
        seat_by_strategy,
        [Col.PLAYERS, ("strategy", "strategy", "text"), *SEAT_VS_OTHERS_COLUMNS],
    )


def section_game_length(
    r: Page, length: pl.DataFrame, length_summary: pl.DataFrame, ends: pl.DataFrame
) -> None:
    """Rounds per game and how games end (W1): finish zone or last environment card."""
    r.text("## Game length and how games end (W1)")
    r.table(
        "game_length_summary",
        length_summary,
        [
            Col.PLAYERS,
            Col.GAMES,
            ("mean_rounds", "mean rounds", "num"),
            ("sd_rounds", "sd", "num"),
            ("min", "min", "int"),
            ("q1", "Q1", "int"),
            ("median", "median", "median"),
            ("q3", "Q3", "int"),
            ("max", "max", "int"),
        ],
    )
    r.table("end_reasons", ends, Col.END_REASONS)
    r.csv("game_length", length)
    r.figure(
        "game_length",
        figures.length_histogram(length),
        "Share of games by number of rounds, by how the game ended.",
    )


GENE_COLUMNS = [
    Col.PLAYERS,
    ("gene", "gene", "text"),
    ("share_with|rows_with", "share holding", "share"),
    ("win_rate_with", "win rate with", "rate"),
    ("win_rate_without", "without", "rate"),
    ("difference", "difference", "signed"),
    Col.DIFF_CI95,
    Col.P_HOLM,
    ("within_strategy", "within strategy", "signed"),
    ("within_low|within_high", "95% CI", "sci"),
    ("within_p_holm", "p (Holm)", "p"),
    ("strata", "strategies compared", "text"),
]


def _small_groups(effects: pl.DataFrame) -> str:
    """A warning naming the gene rows whose within-strategy estimate leans on a group of fewer
    than ``SMALL_GROUP`` players (holders or non-holders of one strategy), which nonetheless
    carries its strategy's whole weight; "" when none does."""
    small = effects.filter((pl.col("smallest_group") > 0) & (pl.col("smallest_group") < SMALL_GROUP)).sort(
        "smallest_group"
    )
    if not len(small):
        return ""
    rows = ", ".join(
        f"{g} at {p} players (smallest group {n:,})"
        for p, g, n in small.select("players", "gene", "smallest_group").iter_rows()
    )
    return (
        f"**Small groups:** the within-strategy estimates of {plural(len(small), 'row')} rest on a group "
        f"of fewer than {SMALL_GROUP} holders or non-holders of one strategy, which carries that "
        f"strategy's whole weight: {rows}. Their intervals are honest but wide, and a strategy's "
        "few holders may be unusual players of it; read these rows as indications."
    )


def section_gene_effects(r: Page, held: pl.DataFrame, bought: pl.DataFrame) -> None:
    """Does holding (or buying) a gene go with winning? Raw and within strategy
    (analysis.ursuppe.genes.gene_effects), with forest plots of the held genes."""
    r.text("## Genes")
    r.text(
        "### Held at the end\n"
        "Win rate of players holding each gene at the end against those not holding it. *difference* is "
        "the raw gap; *within strategy* compares holders and non-holders of the same strategy, weighted "
        "by the strategy's player-games, using only the strategies with at least "
        f"{genes.MIN_ROWS} players on both sides (*strategies compared*, with their player-games). "
        "*share holding* below 0.001 is given with its number of players: so few holders make the "
        "interval wide, and such a row says the gene is unmeasured, not that it has no effect."
    )
    caution = _small_groups(held)
    if caution:
        r.text("> " + caution)
    r.table("gene_effects_held", held, GENE_COLUMNS)
    r.figure(
        "gene_forest_held",
        figures.gene_forest(
            held, "within_strategy", "Genes held at the end: win-rate difference within strategy"
        ),
        "Forest plot: win-rate difference (holding − not holding) within strategy, 95% intervals; "
        "filled = Holm p < 0.05.",
    )
    r.figure(
        "gene_forest_held_raw",
        figures.gene_forest(held, "difference", "Genes held at the end: raw win-rate difference"),
        "Forest plot: raw win-rate difference (holding − not holding), 95% intervals.",
    )
    r.text("### Ever bought")
    caution = _small_groups(bought)
    if caution:
        r.text("> " + caution.replace("holders", "buyers"))
    r.table(
        "gene_effects_bought", bought, [(c, h.replace("holding", "buying"), k) for c, h, k in GENE_COLUMNS]
    )


def section_at_equilibrium(r: Page, weighted: pl.DataFrame, mix: pl.DataFrame, source: Path) -> None:
    """The seat and gene tables again with the player rows weighted to a tournament's
    equilibrium mix (``soup report --equilibrium``; analysis.at_equilibrium)."""
    r.text("## At equilibrium")
    support = mix.filter(pl.col("weight") > 0)
    r.text(
        f"The tables below weigh the player rows by the equilibrium mix of the tournament in `{source}` "
        "(*" + ", ".join(f"{s} {w:.3f}" for s, w in support.select("strategy", "weight").iter_rows()) + "*): "
        "a row of strategy s counts w_s / (s's share of the run's rows at its player count), so the rows "
        "hold the strategies in the mix's proportions and strategies outside the support drop out. "
        "The opponents are still the run's: these are players bringing the mix against the run's field. "
        "Intervals are cluster-robust by game with the weights taken as fixed; compare each table with "
        "its plain-mix version above."
    )
    r.csv("equilibrium_mix", mix)
    r.table(
        "mix_win_rate_at_equilibrium",
        at_equilibrium.mix_win_rate(weighted),
        [
            Col.PLAYERS,
            Col.PLAYER_GAMES,
            ("win_rate", "win rate of the mix", "rate"),
            Col.CI95,
            ("fair_share", "fair share", "rate"),
        ],
    )
    r.text("### Seat advantage at equilibrium")
    r.table(
        "seat_advantage_at_equilibrium",
        at_equilibrium.seat_table(weighted),
        [Col.PLAYERS, *SEAT_VS_OTHERS_COLUMNS],
    )
    w = at_equilibrium.WEIGHT
    r.text(
        "### Genes held at the end, at equilibrium\n"
        "As in *Genes* above with every rate weighted; *within strategy* averages the strategies by "
        "their weight in the mix instead of their player-games."
    )
    r.table("gene_effects_held_at_equilibrium", genes.gene_effects(weighted, "held", weight=w), GENE_COLUMNS)
    r.text("### Genes ever bought, at equilibrium")
    r.table(
        "gene_effects_bought_at_equilibrium",
        genes.gene_effects(weighted, "bought", weight=w),
        [(c, h.replace("holding", "buying"), k) for c, h, k in GENE_COLUMNS],
    )


def _strong_changes(scripted: Analyses, strong: Analyses) -> tuple[list[str], list[str], int]:
    """How the seat and gene findings read under strong play: those whose two intervals are
    disjoint (the finding **differs**), those significant (Holm p < 0.05) among scripted players
    whose strong-play interval overlaps theirs but includes 0 (**not confirmed** at that size: too
    few strong games may be all it says), and the count of findings the strong runs cannot test."""

    def seats(t: pl.DataFrame) -> pl.DataFrame:  # the advantage over the fair share, its interval
        return t.select(
            "players",
            "start_space",
            e="advantage",
            lo=pl.col("ci_low") - pl.col("fair_share"),
            hi=pl.col("ci_high") - pl.col("fair_share"),
            p="p_holm",
        )

    def held(t: pl.DataFrame) -> pl.DataFrame:  # holding within strategy
        return t.select(
            "players", "gene", e="within_strategy", lo="within_low", hi="within_high", p="within_p_holm"
        )

    tables = [
        ("start space {start_space}", seats(scripted.seats), seats(strong.seats), ["players", "start_space"]),
        ("holding **{gene}** (within strategy)", held(scripted.held), held(strong.held), ["players", "gene"]),
    ]

    def reading(e: float, lo: float, hi: float) -> str:
        return f"{e * 100:+.1f} points [{lo * 100:+.1f}, {hi * 100:+.1f}]"

    differs, unconfirmed, untested = [], [], 0
    for label, a, b, keys in tables:
        for x in a.join(b, on=keys, how="left", suffix="_s").iter_rows(named=True):
            what = f"{x['players']} players, " + label.format(**x)
            if any(v is None or math.isnan(v) for v in (x["e_s"], x["lo_s"], x["hi_s"])):
                untested += x["p"] is not None and not math.isnan(x["p"]) and x["p"] < 0.05
                continue
            both = (
                f"{reading(x['e'], x['lo'], x['hi'])} with scripted players, "
                + reading(x["e_s"], x["lo_s"], x["hi_s"])
                + " under strong play"
            )
            if x["hi_s"] < x["lo"] or x["lo_s"] > x["hi"]:
                differs.append(f"{what}: {both}.")
            elif x["p"] < 0.05 and x["lo_s"] <= 0 <= x["hi_s"]:
                unconfirmed.append(f"{what}: {both}.")
    return differs, unconfirmed, untested


def section_strong_play(
    r: Page, scripted: Analyses, strong: Analyses, manifests: list[dict[str, Any]], dirs: list[Path]
) -> None:
    """The strategy, seat and gene tables of runs with search players beside the scripted field's
    (issue 34.3), and the findings whose reading changes with the players' strength."""
    r.text("## Under strong play")
    who = "; ".join(
        f"`{d}`: {', '.join(m['spec']['strategies'])}" for d, m in zip(dirs, manifests, strict=True)
    )
    r.text(
        f"The same tables for runs with search players ({who}). Search plays far above the scripted "
        "strategies (see *Skill ladder* when given), so a finding that reads the same here holds among "
        "stronger players too; one that changes describes the scripted players as much as the game. "
        "Each interval covers sampling noise only, and the search runs are usually much smaller."
    )
    differs, unconfirmed, untested = _strong_changes(scripted, strong)
    r.text("### Findings that change with the players' strength")
    if differs:
        r.text("**Differ** (the two 95% intervals are disjoint):\n\n" + "\n".join(f"- {c}" for c in differs))
    else:
        r.text("No seat or gene reading differs between the two fields (no pair of disjoint intervals).")
    if unconfirmed:
        r.text(
            "**Not confirmed under strong play** (significant with scripted players; the strong-play "
            "interval overlaps it but includes 0, which more strong games may settle):\n\n"
            + "\n".join(f"- {c}" for c in unconfirmed)
        )
    if untested:
        r.text(
            f"{plural(untested, 'significant scripted finding')} cannot be tested in the strong runs "
            "(too few rows)."
        )
    r.text("### Win rates by strategy, strong field")
    r.table(
        "win_rate_by_strategy_strong",
        strong.strategy,
        [Col.PLAYERS, ("strategy", "strategy", "text"), Col.PLAYER_GAMES, *RATE_COLUMNS],
    )
    r.text("### Seat advantage, strong field")
    r.table(
        "seat_advantage_strong",
        strong.seats,
        SEAT_ADVANTAGE_COLUMNS,
    )
    r.text("### Genes held at the end, strong field")
    r.table("gene_effects_held_strong", strong.held, GENE_COLUMNS)


def section_purchases(r: Page, purchases: pl.DataFrame, timing: pl.DataFrame) -> None:
    """How often each gene is bought and in which round first (analysis.ursuppe.genes.purchase_rates,
    purchase_timing), with a timing heatmap per player count."""
    r.text("### Purchases: how often and when")
    r.table(
        "gene_purchases",
        purchases,
        [
            Col.PLAYERS,
            ("gene", "gene", "text"),
            ("bought_rate", "bought by", "rate"),
            Col.CI95,
            ("held_rate", "held at end", "rate"),
            ("mean_round", "mean round of first purchase", "num"),
            ("median_round", "median round", "median"),
        ],
    )
    r.csv("gene_purchase_timing", timing)
    for p in _player_counts(purchases):
        r.figure(
            f"gene_purchase_timing_{p}p",
            figures.purchase_heatmap(timing.filter(pl.col("players") == p).drop("players")),
            f"{p} players: share of players first buying each gene, by round "
            "(full table: tables/gene_purchase_timing.csv).",
        )


SYNERGY_SHOWN = 15  # pairs in the Markdown table; the CSV has all of them


def section_synergy(r: Page, synergy: pl.DataFrame) -> None:
    """Is a pair of genes worth more than its parts (analysis.ursuppe.genes.gene_synergy)? The
    best-supported pairs as a table, every pair in the CSV, a heatmap per player count."""
    r.text(
        "### Pairs: synergy\n"
        "Does holding both genes win more than the two genes' own effects predict? The *additive "
        "prediction* is rate(A only) + rate(B only) − rate(neither); *synergy* = observed − prediction, "
        "in points of win rate (raw, and within strategy as above). Positive: the pair is worth more than "
        "its parts. The prediction is not a rate and can fall below 0."
    )
    r.csv("gene_synergy", synergy)
    shown = synergy.filter(pl.col("within_q_bh").is_not_nan()).sort("within_p").head(SYNERGY_SHOWN)
    r.text(
        markdown_table(
            shown,
            [
                Col.PLAYERS,
                *genes.GENE_PAIR_COLUMNS,
                ("rows_both", "players with both", "int"),
                ("observed", "observed", "rate"),
                ("additive_prediction", "additive prediction", "signed"),
                ("synergy", "raw synergy", "signed"),
                ("within_strategy", "within strategy", "signed"),
                ("within_low|within_high", "95% CI", "sci"),
                ("within_q_bh", "q (BH)", "p"),
                ("strata", "strategies compared", "text"),
            ],
        )
        + f"\n\n*The {SYNERGY_SHOWN} pairs with the smallest within-strategy p-values; all pairs: "
        "[tables/gene_synergy.csv](tables/gene_synergy.csv)*"
    )
    for p in _player_counts(synergy):
        r.figure(
            f"gene_synergy_{p}p",
            figures.synergy_heatmap(
                synergy.filter(pl.col("players") == p),
                "within_strategy",
                f"{p} players: gene-pair synergy within strategy (grey: no estimate; dot: BH q < 0.05)",
            ),
            f"{p} players: gene-pair synergy within strategy (red: the pair is worth more than its parts).",
        )


SET_COLUMNS = [
    Col.PLAYERS,
    ("gene_set", "gene set held at the end", "text"),
    ("rows", "player-games", "int"),
    ("wins", "wins", "int"),
    ("share_of_winners", "share of winners", "rate"),
    ("share_of_players", "share of all players", "rate"),
    ("lift", "lift", "num"),
    ("win_rate", "win rate", "rate"),
    Col.CI95,
]


def section_gene_sets(r: Page, counted: pl.DataFrame, top_sets: int, names: Sequence[str]) -> None:
    """The gene sets winners (and all players) end with most often, and their lift
    (analysis.ursuppe.genes.gene_sets_from_counts of the rows and wins per held set, ``counted``)."""
    r.text(
        "### Gene sets of winners and of all players\n"
        "The gene sets held at the end most often by winners, then by all players; *lift* = share among "
        "winners / share among all players (above 1: the set is over-represented among winners)."
    )
    r.table(
        "gene_sets_winners",
        genes.gene_sets_from_counts(counted, names, top=top_sets, among="winners"),
        SET_COLUMNS,
    )
    r.table(
        "gene_sets_all", genes.gene_sets_from_counts(counted, names, top=top_sets, among="all"), SET_COLUMNS
    )


def section_deck_order(r: Page, s: Streamed, manifests: list[dict[str, Any]]) -> None:
    """Environment-deck order (analysis.ursuppe.deck_order, from the runs' tables ``s``): win rates by
    seat or strategy and deck features, then game length and gene-defect losses by deck
    features. Not computed across runs of different decks."""
    r.text("## Environment-deck order")
    if s.deck_effects is None or s.deck_outcomes is None:
        r.text(
            "The runs use different environment decks, so deck-order effects are not computed across them."
        )
        return
    deck = manifests[0]["spec"]["rules"]["environment"]["deck"]
    section_deck_effects(r, s.deck_effects, min(5, len(deck)))
    section_deck_outcomes(r, s.deck_outcomes)


DECK_EFFECTS = (
    ("first_drift", "start_space"),
    ("ozone_band", "start_space"),
    ("first_drift", "strategy"),
    ("ozone_band", "strategy"),
    ("first_ozone", "strategy"),
)
DECK_SHOWN = 12  # cells shown of a deck-effects table longer than 2 * DECK_SHOWN


def section_deck_effects(r: Page, effects: dict[tuple[str, str], pl.DataFrame], window: int) -> None:
    """Win rate by seat or strategy and each deck feature (analysis.ursuppe.deck_order.deck_effects per
    (feature, by) of DECK_EFFECTS, ``effects``; ``window``: the cards of the ozone band)."""
    r.text(
        f"Each game shuffles the deck. Features: the drift and ozone of the first card, and the ozone "
        f"total of the first {plural(window, 'card')} in terciles over the games (*ozone band*). "
        "*difference* compares the cell with the same seat or strategy in the other games of the player "
        "count (Holm over each table)."
    )
    for feature, by in DECK_EFFECTS:
        eff = effects[feature, by]
        name = f"deck_{feature}_by_{by}"
        r.text(f"### Win rate by {by.replace('_', ' ')} and {feature.replace('_', ' ')}")
        significant = eff.filter(pl.col("p_holm") < 0.05)
        columns = [
            Col.PLAYERS,
            (by, by.replace("_", " "), "text"),
            (feature, feature.replace("_", " "), "text"),
            ("rows", "player-games", "int"),
            *Col.VS_OTHER_GAMES,
        ]
        if len(eff) > 2 * DECK_SHOWN:
            r.text(
                f"{len(significant)} of {len(eff)} cells {'differs' if len(significant) == 1 else 'differ'} "
                f"(Holm p < 0.05); the {DECK_SHOWN} largest "
                "differences:"
            )
            largest = eff.sort(pl.col("difference").abs(), descending=True).head(DECK_SHOWN)
            r.table(name, eff, columns, shown=largest)
        else:
            r.table(name, eff, columns)
        if feature != "first_ozone":
            for p in _player_counts(eff):
                r.figure(
                    f"{name}_{p}p",
                    figures.deck_effect_plot(
                        eff.filter(pl.col("players") == p).drop("players"), feature, by, fair=1 / p
                    ),
                    f"{p} players: win rate by {figures.label(by)} and {figures.label(feature)}, 95% "
                    "intervals; dashed: fair share. The rate axis is fitted to the intervals (its label says "
                    "when it does not start at 0).",
                )


def section_deck_outcomes(r: Page, outcomes: dict[str, pl.DataFrame]) -> None:
    """Game length and gene-defect losses (E2) by each deck feature
    (analysis.ursuppe.deck_order.deck_outcomes per feature, ``outcomes``)."""
    r.text(
        "### Game length and gene-defect losses (E2) by deck features\n"
        "Mean rounds and gene-defect losses per player (genes returned, BP paid) with 95% intervals; "
        "*Δ* is the difference from the other games of the player count, with Holm p over the table."
    )
    for feature in deck_order.FEATURES:
        outcome = outcomes[feature]
        r.table(
            f"deck_outcomes_{feature}",
            outcome,
            [
                Col.PLAYERS,
                (feature, feature.replace("_", " "), "text"),
                Col.GAMES,
                ("rounds_mean", "mean rounds", "num"),
                ("rounds_low|rounds_high", "95% CI", "ci"),
                ("rounds_difference", "Δ", "signed"),
                ("rounds_p_holm", "p (Holm)", "p"),
                ("finish_zone_share", "finish zone", "rate"),
                ("finish_low|finish_high", "95% CI", "ci"),
                ("genes_lost_mean", "genes lost / player", "rate"),
                ("genes_lost_difference", "Δ", "signed"),
                ("genes_lost_p_holm", "p (Holm)", "p"),
                ("bp_paid_mean", "BP paid / player", "num"),
                ("bp_paid_difference", "Δ", "signed"),
                ("bp_paid_p_holm", "p (Holm)", "p"),
            ],
        )
