"""The balance report (``soup report``): Markdown and HTML with tables and figures, from one or
more run directories (e.g. a 3-player and a 4-player run of the same rules).

Layout of the output directory::

    report.md        the report (figures linked from figures/)
    report.html      the same, self-contained apart from the figures
    figures/*.png    matplotlib figures
    tables/*.csv     every table of the report in full

The directory is built next to its destination and renamed into place, so an interrupted
report never leaves a half-written result.
"""

import datetime
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from analysis import deck_order, figures, genes, win_rates
from analysis.tables import markdown_table
from sim import __version__


class ReportError(ValueError):
    """The run directories cannot make a report (the message is one line)."""


RATE_COLUMNS = [
    ("games", "rows", "int"),
    ("wins", "wins", "int"),
    ("win_rate", "win rate", "rate"),
    ("ci_low|ci_high", "95% CI", "ci"),
    ("fair_share", "fair", "rate"),
    ("p_holm", "p (Holm) vs fair", "p"),
    ("mean_rounds", "rounds", "num"),
]


# --- the report -------------------------------------------------------------------------------


class _Report:
    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "figures").mkdir(parents=True)
        (root / "tables").mkdir()
        self.parts: list[str] = []

    def text(self, s: str) -> None:
        self.parts.append(s.strip("\n") + "\n")

    def table(self, name: str, df: pl.DataFrame, columns: Sequence[tuple[str, str, str]]) -> None:
        df.write_csv(self.root / "tables" / f"{name}.csv")
        self.parts.append(
            markdown_table(df, columns) + f"\n\n*Full table: [tables/{name}.csv](tables/{name}.csv)*\n"
        )

    def figure(self, name: str, fig: Any, caption: str) -> None:
        figures.save(fig, self.root / "figures" / f"{name}.png")
        self.parts.append(f"![{caption}](figures/{name}.png)\n\n*{caption}*\n")

    def markdown(self) -> str:
        return "\n".join(self.parts)


def _runs_section(manifests: list[dict[str, Any]], dirs: list[Path]) -> tuple[str, list[str]]:
    lines = [
        "| run | players | games | seed | seating | strategies | rules id | rules files |",
        "|:--|--:|--:|--:|:--|:--|:--|:--|",
    ]
    decks, warnings = set(), []
    for d, m in zip(dirs, manifests, strict=True):
        s = m["spec"]
        assignment = "pool " if "pool" in s["assignment"] else "seats "
        lines.append(
            f"| `{d.name}` | {s['players']} | {s['games']:,} | {s['seed']} | {s['seating']} | "
            f"{assignment}{', '.join(s['strategies'])} | `{s['rules_id']}` | "
            f"{', '.join(s.get('rules_files') or []) or 'defaults'} |"
        )
        decks.add(s["deck"])
        if s["rules"]["environment"].get("placeholder"):
            warnings.append(
                "**Warning: placeholder environment deck.** The real card values are in no source we "
                "have (spec §13); this deck is a stand-in. Deck-order effects and everything that depends "
                "on ozone and drift are effects *of this deck*. Replace it in a rules file when the real "
                "values are known."
            )
    text = "\n".join(lines) + "\n\n" + "\n".join(f"Environment deck: {d}" for d in sorted(decks))
    return text, sorted(set(warnings))


def _findings(
    strategy: pl.DataFrame,
    seats: pl.DataFrame,
    effects: pl.DataFrame,
    synergy: pl.DataFrame,
    length: pl.DataFrame,
    ends: pl.DataFrame,
) -> list[str]:
    """Plain-language headlines, each backed by a table below."""
    out = []
    s = strategy.sort("win_rate", descending=True)
    if len(s) > 1:
        top, bottom = s.row(0, named=True), s.row(-1, named=True)
        out.append(
            f"Strongest strategy: **{top['strategy']}** wins {top['win_rate']:.1%} "
            f"(95% CI {top['ci_low']:.1%}–{top['ci_high']:.1%}; fair share {top['fair_share']:.1%}); "
            f"weakest: **{bottom['strategy']}** {bottom['win_rate']:.1%}."
        )
    biased = seats.filter(pl.col("p_holm") < 0.05)
    if len(biased):
        worst = biased.sort(pl.col("advantage").abs(), descending=True).row(0, named=True)
        out.append(
            f"Seat bias: {len(biased)} of {len(seats)} start spaces "
            f"{'differs' if len(biased) == 1 else 'differ'} from the fair share after Holm correction; "
            f"the largest deviation is start space {worst['start_space']} with {worst['players']} players "
            f"({worst['advantage']:+.1%} win rate)."
        )
    else:
        out.append(
            f"Seat bias: no start space differs from the fair share after Holm correction "
            f"(largest deviation {seats['advantage'].abs().max():.1%})."
        )
    sig = effects.filter(pl.col("within_p_holm") < 0.05).sort("within_strategy", descending=True)
    if len(sig):
        plus = sig.filter(pl.col("within_strategy") > 0)["gene"].head(3).to_list()
        minus = sig.filter(pl.col("within_strategy") < 0).sort("within_strategy")["gene"].head(3).to_list()
        out.append(
            "Genes held at the end that go with winning more, within strategy (Holm p < 0.05): "
            + (", ".join(plus) or "none")
            + "; with winning less: "
            + (", ".join(minus) or "none")
            + ". These are associations; `soup ablate --gene NAME` measures a gene's causal effect."
        )
    syn = synergy.filter(pl.col("q_bh") < 0.05).sort(pl.col("synergy").abs(), descending=True)
    if len(syn):
        r = syn.row(0, named=True)
        out.append(
            f"Strongest pair interaction: **{r['gene_a']} + {r['gene_b']}**: holders of both win "
            f"{r['observed']:.1%} against {r['expected']:.1%} expected from the genes alone "
            f"({len(syn)} pairs with BH q < 0.05)."
        )
    for row in length.iter_rows(named=True):
        fz = ends.filter(
            (pl.col("players") == row["players"]) & (pl.col("end_reason").cast(pl.String) == "finish_zone")
        )
        share = fz["share"][0] if len(fz) else 0.0
        out.append(
            f"{row['players']} players: games last {row['mean_rounds']:.2f} rounds on average "
            f"(median {row['median']:.0f}, range {row['min']}–{row['max']}); "
            f"{share:.1%} end in the finish zone."
        )
    return out


def build_report(run_dirs: Sequence[str | Path], out: str | Path, top_sets: int = 15) -> Path:
    """Write the balance report of ``run_dirs`` into ``out`` (replaced if it exists)."""
    dirs = [Path(d) for d in run_dirs]
    if not dirs:
        raise ReportError("no run directory given")
    manifests = []
    for d in dirs:
        try:
            manifests.append(win_rates.load_manifest(d))
        except FileNotFoundError:
            raise ReportError(
                f"{d}: not a run directory (no manifest.json; make one with soup simulate)"
            ) from None
        except ValueError as e:
            raise ReportError(f"{d}/manifest.json: unreadable ({e})") from None
        if manifests[-1]["spec"].get("game") != "ursuppe":
            raise ReportError(f"{d}: not an Ursuppe run")
    rules = {m["spec"]["rules_id"] for m in manifests}
    if len(rules) > 1:
        raise ReportError(
            f"the runs use different rules ({', '.join(sorted(rules))}): report each alone, "
            "or measure the difference with soup compare"
        )
    try:
        rows = win_rates.load_results(*dirs).collect()
    except Exception as e:  # a run with no complete chunk, or foreign files
        raise ReportError(
            f"{', '.join(map(str, dirs))}: no readable results ({e.__class__.__name__})"
        ) from None
    if rows.is_empty():
        raise ReportError(f"{', '.join(map(str, dirs))}: no complete chunks yet")
    same_deck = len({str(m["spec"]["rules"]["environment"]["deck"]) for m in manifests}) == 1

    out = Path(out)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    if tmp.exists():
        shutil.rmtree(tmp)
    try:
        report = _Report(tmp)
        _write(report, rows, manifests, dirs, same_deck, top_sets)
        markdown = report.markdown()
        (tmp / "report.md").write_text(markdown)
        (tmp / "report.html").write_text(render_html(markdown))
        if out.exists():
            old = out.with_name(f".{out.name}.old-{os.getpid()}")
            out.rename(old)
            tmp.rename(out)
            shutil.rmtree(old)
        else:
            tmp.rename(out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return out


def _write(
    r: _Report,
    rows: pl.DataFrame,
    manifests: list[dict[str, Any]],
    dirs: list[Path],
    same_deck: bool,
    top_sets: int,
) -> None:
    n_games = rows.select(win_rates.GAME_KEY).unique().height
    strategy = win_rates.win_rates(rows, ["strategy"])
    seats = win_rates.seat_advantage(rows)
    by_players = win_rates.win_rates(rows, ["players", "strategy"])
    crossing = win_rates.win_rates(rows, ["players", "strategy", "start_space"])
    length = win_rates.game_length(rows)
    length_summary = win_rates.game_length_summary(rows)
    ends = win_rates.end_reasons(rows)
    held = genes.gene_effects(rows, "held")
    bought = genes.gene_effects(rows, "bought")
    synergy = genes.gene_synergy(rows, "held")
    sets_winners = genes.frequent_gene_sets(rows, "held", top=top_sets)
    purchases = genes.purchase_rates(rows)
    timing = genes.purchase_timing(rows)

    runs_text, warnings = _runs_section(manifests, dirs)
    r.text("# Ursuppe balance report")
    r.text(
        f"{n_games:,} games ({rows.height:,} player results) from {len(dirs)} run"
        f"{'s' if len(dirs) != 1 else ''}. "
        f"Generated {datetime.date.today().isoformat()} by soup {__version__}."
    )
    for w in warnings:
        r.text("> " + w)
    r.text("## What was run")
    r.text(runs_text)
    r.text("## Headlines")
    r.text("\n".join(f"- {f}" for f in _findings(strategy, seats, held, synergy, length_summary, ends)))
    r.text(
        "## How to read this report\n"
        "Every rate has a 95% Wilson interval. Tests against the fair share (1 / players) and "
        "differences between groups use cluster-robust standard errors with the game as the cluster, "
        "because the players of one game are not independent (exactly one of them wins). Where a table "
        "tests a family (every seat, every gene), p-values are Holm-adjusted (family-wise error 5%) and, "
        "for the many gene pairs, Benjamini–Hochberg q-values are given (false-discovery rate 5%). "
        "Gene and deck effects are associations in simulated play with the listed strategies; a paired "
        "experiment (`soup compare`, `soup ablate`) answers what a change of the rules *causes*."
    )

    r.text("## Win rates by strategy")
    r.table("win_rate_by_strategy", strategy, [("strategy", "strategy", "text"), *RATE_COLUMNS])
    r.figure(
        "win_rate_by_strategy",
        figures.strategy_rates(strategy),
        "Win rate by strategy with 95% intervals; dashed: fair share.",
    )
    if by_players["players"].n_unique() > 1:
        r.text("### By player count")
        r.table(
            "win_rate_by_players_strategy",
            by_players,
            [("players", "players", "int"), ("strategy", "strategy", "text"), *RATE_COLUMNS],
        )
    r.text("### By strategy and start space")
    r.table(
        "win_rate_by_strategy_seat",
        crossing,
        [
            ("players", "players", "int"),
            ("strategy", "strategy", "text"),
            ("start_space", "seat", "int"),
            *RATE_COLUMNS,
        ],
    )

    r.text("## Seat advantage (S5)")
    r.table(
        "seat_advantage",
        seats,
        [
            ("players", "players", "int"),
            ("start_space", "start space", "int"),
            *RATE_COLUMNS[:4],
            ("advantage", "advantage", "signed"),
            ("p_holm", "p (Holm)", "p"),
        ],
    )
    r.figure(
        "seat_bias",
        figures.seat_bias(seats),
        "Win rate by start space with 95% intervals; dashed: fair share.",
    )

    r.text("## Game length and how games end (W1)")
    r.table(
        "game_length_summary",
        length_summary,
        [
            ("players", "players", "int"),
            ("games", "games", "int"),
            ("mean_rounds", "mean", "num"),
            ("sd_rounds", "sd", "num"),
            ("min", "min", "int"),
            ("q1", "Q1", "int"),
            ("median", "median", "int"),
            ("q3", "Q3", "int"),
            ("max", "max", "int"),
        ],
    )
    r.table(
        "end_reasons",
        ends,
        [
            ("players", "players", "int"),
            ("end_reason", "end", "text"),
            ("games", "games", "int"),
            ("share", "share", "rate"),
            ("ci_low|ci_high", "95% CI", "ci"),
        ],
    )
    length.write_csv(r.root / "tables" / "game_length.csv")
    r.figure(
        "game_length",
        figures.length_histogram(length),
        "Share of games by number of rounds, by how the game ended.",
    )

    r.text("## Genes")
    r.text(
        "### Held at the end\n"
        "Win rate of players holding each gene at the end against those not holding it. *difference* is "
        "the raw gap; *within strategy* compares holders and non-holders of the same strategy (weighted "
        "by rows), which removes the part of the gap that only says which strategies buy the gene."
    )
    gene_cols = [
        ("gene", "gene", "text"),
        ("share_with", "share holding", "rate"),
        ("win_rate_with", "win rate with", "rate"),
        ("win_rate_without", "without", "rate"),
        ("difference", "difference", "signed"),
        ("diff_low|diff_high", "95% CI", "sci"),
        ("p_holm", "p (Holm)", "p"),
        ("within_strategy", "within strategy", "signed"),
        ("within_low|within_high", "95% CI", "sci"),
        ("within_p_holm", "p (Holm)", "p"),
    ]
    r.table("gene_effects_held", held, gene_cols)
    r.figure(
        "gene_forest_held",
        figures.gene_forest(
            held, "within_strategy", "Genes held at the end: win-rate difference within strategy"
        ),
        "Forest plot: win-rate difference (holding - not holding) within strategy, 95% intervals; "
        "filled = Holm p < 0.05.",
    )
    r.figure(
        "gene_forest_held_raw",
        figures.gene_forest(held, "difference", "Genes held at the end: raw win-rate difference"),
        "Forest plot: raw win-rate difference (holding - not holding), 95% intervals.",
    )
    r.text("### Ever bought")
    r.table("gene_effects_bought", bought, [(c, h.replace("holding", "buying"), k) for c, h, k in gene_cols])
    r.text("### Purchases: how often and when")
    r.table(
        "gene_purchases",
        purchases,
        [
            ("gene", "gene", "text"),
            ("bought_rate", "bought by", "rate"),
            ("ci_low|ci_high", "95% CI", "ci"),
            ("held_rate", "held at end", "rate"),
            ("mean_round", "mean round", "num"),
            ("median_round", "median round", "num"),
        ],
    )
    timing.write_csv(r.root / "tables" / "gene_purchase_timing.csv")
    r.figure(
        "gene_purchase_timing",
        figures.purchase_heatmap(timing),
        "Share of players first buying each gene, by round.",
    )
    r.text(
        "### Pairs: synergy\nObserved win rate of holding both genes against the rate expected if their "
        "effects simply added up (rate A only + rate B only - rate neither). Positive: the pair is worth "
        "more than its parts."
    )
    top_pairs = synergy.filter(pl.col("q_bh").is_not_nan()).sort("p_value").head(15)
    synergy.write_csv(r.root / "tables" / "gene_synergy.csv")
    r.text(
        markdown_table(
            top_pairs,
            [
                ("gene_a", "gene A", "text"),
                ("gene_b", "gene B", "text"),
                ("rows_both", "rows with both", "int"),
                ("observed", "observed", "rate"),
                ("expected", "expected", "rate"),
                ("synergy", "synergy", "signed"),
                ("ci_low|ci_high", "95% CI", "sci"),
                ("q_bh", "q (BH)", "p"),
            ],
        )
        + "\n\n*The 15 pairs with the smallest p-values; all pairs: "
        "[tables/gene_synergy.csv](tables/gene_synergy.csv)*"
    )
    r.figure(
        "gene_synergy",
        figures.synergy_heatmap(synergy),
        "Pairwise synergy of genes held at the end (red: more than additive).",
    )
    r.text(
        "### Winners' gene sets\nThe gene sets held at the end most often by winners; "
        "*lift* = share among winners / share among all players."
    )
    r.table(
        "winner_gene_sets",
        sets_winners,
        [
            ("gene_set", "gene set", "text"),
            ("rows", "players", "int"),
            ("wins", "wins", "int"),
            ("share_of_winners", "of winners", "rate"),
            ("share_of_players", "of players", "rate"),
            ("lift", "lift", "num"),
            ("win_rate", "win rate", "rate"),
            ("ci_low|ci_high", "95% CI", "ci"),
        ],
    )

    r.text("## Environment-deck order")
    if not same_deck:
        r.text(
            "The runs use different environment decks, so deck-order effects are not computed across them."
        )
        return
    deck = manifests[0]["spec"]["rules"]["environment"]["deck"]
    featured = deck_order.deck_features(rows, deck)
    k = min(5, len(deck))
    r.text(
        f"Each game shuffles the deck. Features: the drift and ozone of the first card, and the ozone "
        f"total of the first {k} cards in terciles over the games (*ozone band*). *difference* compares "
        "the cell with the same seat or strategy in the other games (Holm over each table)."
    )
    effect_cols = lambda by, feature: [  # noqa: E731
        (by, by.replace("_", " "), "text"),
        (feature, feature.replace("_", " "), "text"),
        ("rows", "rows", "int"),
        ("win_rate", "win rate", "rate"),
        ("ci_low|ci_high", "95% CI", "ci"),
        ("difference", "difference", "signed"),
        ("diff_low|diff_high", "95% CI", "sci"),
        ("p_holm", "p (Holm)", "p"),
    ]
    for feature, by in (
        ("first_drift", "start_space"),
        ("ozone_band", "strategy"),
        ("first_drift", "strategy"),
    ):
        eff = deck_order.deck_effects(featured, feature, by)
        r.text(f"### Win rate by {by.replace('_', ' ')} and {feature.replace('_', ' ')}")
        r.table(f"deck_{feature}_by_{by}", eff, effect_cols(by, feature))
        r.figure(
            f"deck_{feature}_by_{by}",
            figures.deck_effect_plot(eff, feature, by),
            f"Win rate by {by} and {feature}, 95% intervals.",
        )
    r.text("### Game length and gene-defect losses (E2) by deck features")
    for feature in deck_order.FEATURES:
        outcome = deck_order.deck_outcomes(featured, feature)
        r.table(
            f"deck_outcomes_{feature}",
            outcome,
            [
                (feature, feature.replace("_", " "), "text"),
                ("games", "games", "int"),
                ("mean_rounds", "mean rounds", "num"),
                ("rounds_low|rounds_high", "95% CI", "ci"),
                ("finish_zone_share", "finish zone", "rate"),
                ("genes_lost_per_player", "genes lost / player", "num"),
                ("bp_paid_per_player", "BP paid / player", "num"),
            ],
        )


def render_html(markdown: str, title: str = "Ursuppe balance report") -> str:
    """The report's Markdown as a standalone HTML page (tables, figures linked relatively)."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").enable("table").render(markdown)
    style = (
        "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;"
        "line-height:1.45}"
        "table{border-collapse:collapse;font-size:0.85em;margin:0.5em 0}"
        "th,td{border:1px solid #ccc;padding:2px 6px}th{background:#f2f2f2}"
        "img{max-width:100%}"
        "blockquote{background:#fff3cd;border-left:4px solid #e0a800;margin:1em 0;padding:0.5em 1em}"
        "code{background:#f5f5f5;padding:0 3px}"
    )
    head = f"<meta charset='utf-8'><title>{title}</title><style>{style}</style>"
    return f"<!DOCTYPE html>\n<html><head>{head}</head>\n<body>\n{body}</body></html>\n"
