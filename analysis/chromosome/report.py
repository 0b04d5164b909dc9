"""Chromosome's balance report (``soup report`` on Chromosome runs): Markdown and HTML with
tables and figures, from one or more run directories (e.g. a 2-, a 3- and a 4-player run of the
same rules).

The output directory is a report page's (analysis.pages.page_built_beside: report.md, report.html,
figures/, tables/ and the marker), built beside its destination and renamed into place. The checks
every report makes of its runs are analysis.report_runs'; Chromosome's own are here. The runs are
read one chunk at a time and kept as sums over games (analysis.chromosome.outcomes), so memory
stays flat however many games they hold.
"""

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from analysis import report_runs
from analysis.chromosome import figures, outcomes
from analysis.pages import Page, Progress, page_built_beside, write_sections
from analysis.report_runs import ReportError
from analysis.skill_ladder import read_ladder, section_skill
from analysis.tables import WIN_RATE_COLUMNS, Col, fmt, markdown_table, plural
from sim.chromosome.rules.book import FLAGS, default_data
from sim.runner import chunk_files

TITLE = "Chromosome balance report"


# --- input -------------------------------------------------------------------------------------


def _spec_problem(spec: dict[str, Any]) -> str | None:
    """What is wrong with Chromosome's own fields of a manifest's spec for the report, or None
    (the fields every game has: analysis.report_runs.read_manifest)."""
    rules = spec.get("rules")
    if not isinstance(rules, dict) or not isinstance(rules.get("flags"), dict):
        return "spec.rules: expected the rules the run used (with their flags)"
    placeholders = spec.get("placeholders", [])
    if not isinstance(placeholders, list) or not all(isinstance(p, str) for p in placeholders):
        return "spec.placeholders: expected a list of rules keys"
    return None


def _read_manifest(run: Path) -> dict[str, Any]:
    """A Chromosome run's manifest, checked for what the report needs; ReportError names the problem."""
    return report_runs.read_manifest(run, "chromosome", "soup simulate --game chromosome", _spec_problem)


def _check_combination(manifests: list[dict[str, Any]], dirs: list[Path]) -> None:
    """Runs may be combined when they add games of one experiment (analysis.report_runs): the
    same rules and, per player count, the same strategies and assignment, and another seed."""
    report_runs.check_same_rules(manifests, compare="soup compare --game chromosome")
    report_runs.check_combination(manifests, dirs, ("strategies", "assignment"), "strategies or assignment")


# --- reading: the tables from the chunks -----------------------------------------------------------

BY = ("species", "start_space", "strategy")  # the win-rate tables (with players)
END_BY = ("species", "strategy", "won")  # the end-state tables


@dataclass
class Tables:
    """Every table of the report (analysis.chromosome.outcomes), from all chunks of the runs."""

    games_per_run: dict[int, int]
    wins: dict[str, pl.DataFrame]  # BY, "players" and "end_reason_species"
    shared: pl.DataFrame
    winners: pl.DataFrame
    ends: pl.DataFrame
    length: pl.DataFrame
    length_summary: pl.DataFrame
    end_state: dict[str, pl.DataFrame]  # END_BY
    distributions: pl.DataFrame
    gene_columns: list[str] = field(default_factory=list)
    genes: dict[str, pl.DataFrame] | None = None  # END_BY, when every chunk has the gene columns
    events: dict[str, pl.DataFrame] | None = None  # when every chunk has the event order
    partial: list[str] = field(default_factory=list)  # optional columns only some chunks have


def analyse(chunks: Iterator[pl.DataFrame], event_names: Sequence[str] = ()) -> Tables:
    """The report's tables from ``chunks`` (frames of whole games, each with its ``run`` column
    or from one run); each chunk is reduced to its parts and dropped. ``event_names``: the
    deck's card names, for the event tables."""
    win: dict[tuple[str, ...], list[pl.DataFrame]] = {}
    groupings = {**{k: [k] for k in BY}, "players": [], "end_reason_species": ["end_reason", "species"]}
    games, ends = [], {k: [] for k in END_BY}
    dists = []
    genes: dict[str, list[pl.DataFrame]] = {k: [] for k in END_BY}
    events = []
    per_run: dict[int, int] = {}
    n_chunks, gene_chunks, event_chunks, gene_cols = 0, 0, 0, None
    for chunk in chunks:
        rows = outcomes.prepared(chunk).collect()
        n_chunks += 1
        for run, n in (
            rows.group_by("run").agg(pl.struct(outcomes.GAME_KEY).n_unique().alias("n")).iter_rows()
        ):
            per_run[run] = per_run.get(run, 0) + n
        for name, by in groupings.items():
            win.setdefault(name, []).append(outcomes.win_parts(rows, by))
        games.append(outcomes.game_parts(rows))
        for by in END_BY:
            ends[by].append(outcomes.end_state_parts(rows, by))
        dists.append(outcomes.distribution_parts(rows))
        columns = outcomes.gene_columns(rows.columns)
        if columns:
            gene_chunks += 1
            gene_cols = columns if gene_cols is None else [c for c in gene_cols if c in columns]
            for by in END_BY:
                genes[by].append(outcomes.gene_parts(rows, by, gene_cols))
        if outcomes.has_event_order(rows.schema):
            event_chunks += 1
            events.append(outcomes.event_parts(rows))
    if not n_chunks:
        raise ReportError("no results to report (no complete chunks)")
    partial = []
    if 0 < gene_chunks < n_chunks:
        partial.append("gene colours (genes_Y, genes_P, genes_R, genes_B)")
    if 0 < event_chunks < n_chunks:
        partial.append("event order (event_order)")
    return Tables(
        games_per_run=per_run,
        wins={name: outcomes.win_table_from_parts(win[name], by) for name, by in groupings.items()},
        shared=outcomes.shared_wins(games),
        winners=outcomes.winner_counts(games),
        ends=outcomes.end_reasons(games),
        length=outcomes.game_length(games),
        length_summary=outcomes.length_summary(games),
        end_state={by: outcomes.end_state_from_parts(ends[by], by) for by in END_BY},
        distributions=outcomes.distributions_from_parts(dists),
        gene_columns=gene_cols or [],
        genes=(
            {by: outcomes.genes_held_from_parts(genes[by], by, gene_cols) for by in END_BY}
            if gene_chunks == n_chunks
            else None
        ),
        events=outcomes.event_tables(events, event_names) if event_chunks == n_chunks else None,
        partial=partial,
    )


def _chunks(
    dirs: list[Path], manifests: list[dict[str, Any]], progress: Progress | None
) -> Iterator[pl.DataFrame]:
    """Every complete chunk of the runs, in order, with its ``run`` column; ``progress`` is told
    the games read."""
    total = sum(sum(c.get("games", 0) for c in m.get("chunks", {}).values()) for m in manifests)
    done = 0
    for i, d in enumerate(dirs):
        for f in chunk_files(d):
            chunk = pl.read_parquet(f).with_columns(pl.lit(i, pl.Int16).alias("run"))
            yield chunk
            done += chunk["game"].n_unique()
            if progress is not None:
                progress("reading", done, total)


# --- the report being written ----------------------------------------------------------------------


def build_report(
    run_dirs: Sequence[str | Path],
    out: str | Path,
    progress: Progress | None = None,
    skill: str | Path | None = None,
) -> Path:
    """Write the report of the Chromosome runs ``run_dirs`` into ``out`` (an earlier report there
    is replaced); ``progress(step, done, total)`` is told the games read, then each section;
    ``skill``: a ``soup skill`` directory whose ladder the report shows (analysis.skill_ladder)."""
    ladder = read_ladder(skill) if skill is not None else None  # a LadderError is a ReportError
    dirs = report_runs.run_dirs(run_dirs)
    manifests = [_read_manifest(d) for d in dirs]
    _check_combination(manifests, dirs)
    out = report_runs.output_dir(out, dirs)
    report_runs.check_some_chunks(manifests, dirs)
    deck = manifests[0]["spec"]["rules"].get("events", {}).get("deck", [])
    names = [str(c.get("name", i)) if isinstance(c, dict) else str(i) for i, c in enumerate(deck)]
    with report_runs.reading(dirs):  # damaged or foreign files among the chunks
        tables = analyse(_chunks(dirs, manifests, progress), names)
    with page_built_beside(out, TITLE) as page:
        write(page, tables, manifests, dirs, progress)
        if ladder is not None:
            section_skill(page, ladder, Path(skill))
    return out


# --- sections ----------------------------------------------------------------------------------------

RATE_COLUMNS = [
    Col.PLAYER_GAMES,
    *WIN_RATE_COLUMNS,
    ("par", "par", "rate"),
    ("vs_par", "vs par", "signed"),
    ("p_holm", "p vs par (Holm)", "p"),
    ("win_share", "win share", "rate"),
    ("share_low|share_high", "95% CI", "ci"),
]
SHARED_WINS_WORDS = (
    "**How shared wins count.** All tied players with the highest score win (E5), so a game can have "
    "several winners, or none when every player is eliminated. A player counts as a winner when it is one "
    "of the game's winners: the *win rate* counts a shared win in full for each winner, and the win rates "
    "of a player count average its *par* = (winners per game) / P, a little above the *fair share* 1/P. "
    "*vs par* and its Holm p test a group against the par (the p against 1/P is in the CSV: p_fair, "
    "p_fair_holm). The *win share* splits a shared win, 1/k to each of k winners; it averages (games with "
    "a winner) / P. Intervals: Wilson for the win rate, cluster-robust by game for the win share and the "
    "tests."
)


def _counts(t: pl.DataFrame) -> list[int]:
    return t["players"].unique().sort().to_list()


def write(
    page: Page, t: Tables, manifests: list[dict[str, Any]], dirs: list[Path], progress: Progress | None = None
) -> None:
    """Every section of the report, in reading order."""
    sections: list[tuple[str, Callable[[], None]]] = [
        ("runs", lambda: section_runs(page, t, manifests, dirs)),
        ("headlines", lambda: section_headlines(page, t)),
        ("rules and placeholders", lambda: section_rules(page, manifests, t)),
        ("species", lambda: section_species(page, t)),
        ("seats", lambda: section_seats(page, t)),
        ("strategies", lambda: section_strategies(page, t)),
        ("player counts", lambda: section_player_counts(page, t)),
        ("shared wins", lambda: section_shared_wins(page, t)),
        ("game length", lambda: section_endings(page, t, manifests)),
        ("end state", lambda: section_end_state(page, t)),
    ]
    if t.genes is not None:
        sections.append(("gene colours", lambda: section_genes(page, t)))
    if t.events is not None or any(m["spec"]["rules"]["flags"].get("events") for m in manifests):
        sections.append(("event order", lambda: section_events(page, t)))
    write_sections(sections, progress)


def section_runs(page: Page, t: Tables, manifests: list[dict[str, Any]], dirs: list[Path]) -> None:
    """The title, what was run, and the warnings (placeholders, incomplete runs, small samples)."""
    page.text(f"# {TITLE}")
    lines = [
        "| run | players | games analysed | seed | strategies | rules id |",
        "|:--|--:|--:|--:|:--|:--|",
    ]
    warnings = []
    per_count: dict[int, int] = {}
    for i, (d, m) in enumerate(zip(dirs, manifests, strict=True)):
        s = m["spec"]
        done = t.games_per_run.get(i, 0)
        per_count[s["players"]] = per_count.get(s["players"], 0) + done
        how = "drawn from " if "pool" in (s.get("assignment") or {}) else "seated "
        lines.append(
            f"| `{d.name}` | {s['players']} | {done:,} of {s['games']:,} | {s['seed']} | "
            f"{how}{', '.join(s['strategies'])} | `{s['rules_id']}` |"
        )
        warning = report_runs.run_warning(d, m, done)
        if warning:
            warnings.append(warning)
    placeholders = sorted({p for m in manifests for p in m["spec"].get("placeholders", [])})
    if placeholders:
        warnings.append(
            "**Warning: placeholder rules.** These runs use rules data no source has "
            "(docs/chromosome-rules.md §15): "
            + ", ".join(f"`{p}`" for p in placeholders)
            + ". Results that depend on them are results "
            "*of these guesses*; see *Rules and placeholders*."
        )
    warnings += report_runs.small_samples(per_count)
    for what in t.partial:
        warnings.append(
            f"**Partial results:** only some chunks have the {what}; its section is left out (play the runs "
            "again with one version of the engine)."
        )
    page.text(
        "Win rates by species, seat, strategy and player count with 95% intervals, shared wins, how games "
        "end, and the state of the players at the end. Each player's species is drawn at random (S4) and "
        "the seating is a uniform random order (S6), so every table compares like with like.\n\n"
        + "\n".join(lines)
    )
    for w in warnings:
        page.text(f"> {w}")


def _pct(x: float) -> str:
    return fmt(x, "pct")


def section_headlines(page: Page, t: Tables) -> None:
    """Plain-language findings per player count, each backed by a table below."""
    out = []
    species, seats = t.wins["species"], t.wins["start_space"]
    for p in _counts(species):
        s = species.filter(pl.col("players") == p).sort("win_rate", descending=True)
        differ = s.filter(pl.col("p_holm") < 0.05)
        if len(differ):
            parts = [
                f"**{r['species']}** {_pct(r['win_rate'])} ({fmt(r['vs_par'], 'points')} points vs par)"
                for r in differ.iter_rows(named=True)
            ]
            out.append(
                f"{p} players: species that differ from the par {_pct(s['par'][0])} (Holm p < 0.05): "
                + ", ".join(parts)
                + "."
            )
        elif len(s) > 1:
            out.append(
                f"{p} players: no species differs from the par {_pct(s['par'][0])} (Holm p ≥ 0.05; best "
                f"{s['species'][0]} {_pct(s['win_rate'][0])}, worst {s['species'][-1]} "
                f"{_pct(s['win_rate'][-1])})."
            )
        st = seats.filter(pl.col("players") == p)
        biased = st.filter(pl.col("p_holm") < 0.05)
        if len(biased):
            worst = biased.sort(pl.col("vs_par").abs(), descending=True).row(0, named=True)
            out.append(
                f"{p} players: {len(biased)} of {len(st)} seats "
                f"{'differs' if len(biased) == 1 else 'differ'} from the par (Holm p < 0.05); the largest "
                f"deviation is seat {worst['start_space']} "
                f"({fmt(worst['vs_par'], 'points')} points of win rate)."
            )
        elif len(st):
            out.append(
                f"{p} players: no seat differs from the par (Holm p ≥ 0.05; largest deviation "
                f"{st['vs_par'].abs().max() * 100:.1f} points)."
            )
        sh = t.shared.filter(pl.col("players") == p).row(0, named=True)
        en = t.ends.filter((pl.col("players") == p) & (pl.col("end_reason") == "elimination"))
        elimination = en["share"][0] if len(en) else 0.0
        out.append(
            f"{p} players: {_pct(sh['shared_share'])} of games have a shared win, "
            f"{_pct(sh['no_winner_share'])} no winner; {_pct(elimination)} end by elimination."
        )
    page.text("## Headlines\n\n" + "\n".join(f"- {line}" for line in out))


def _layout_words(rules: dict[str, Any], default: dict[str, Any], players: int) -> str:
    layout = rules.get("layouts", {}).get(str(players))
    if not isinstance(layout, dict):
        return "–"
    rooms = layout.get("rooms", [])
    tiles = sorted(r[0] for r in rooms if isinstance(r, list) and r)
    which = (
        "the default layout (PLACEHOLDER, L1/U2)"
        if layout == default["layouts"].get(str(players))
        else "a house layout (rules file)"
    )
    adjacency = ", adjacency given" if layout.get("adjacency") else ", hex grid"
    return f"{which}: {plural(len(rooms), 'room')}{adjacency}; tiles {', '.join(map(str, tiles))}"


# What each PLACEHOLDER key is (docs/chromosome-rules.md §15).
PLACEHOLDER_WORDS = {
    "components.gene_cubes_per_colour": "gene cubes per colour (C7, U5)",
    "flags.fate_max": "the fate track's maximum (U4)",
    "tiles": "the tile table: sterility, start frames, red marks (L5, U1)",
    "layouts": "the room layout (L1, U2)",
    "die.fate_values": "the die's fate values: face to gene colour (D2, U3)",
    "species": "a special action's invented part (SP1, U7)",
    "events.deck": "the event deck (V5-V6, U8)",
    "events.removed_room_tokens": "tokens on a removed room go back to their supplies (V3, U9)",
}


def _placeholder_words(key: str) -> str:
    for prefix, words in PLACEHOLDER_WORDS.items():
        if key == prefix or key.startswith(prefix + "."):
            return words
    return ""


def section_rules(page: Page, manifests: list[dict[str, Any]], t: Tables) -> None:
    """The rules the runs used (one rules id: _check_combination): species mode, events, die,
    clock, tile table and layout per player count, §14 flags not at their default, and every
    placeholder the manifests name, per run."""
    spec = manifests[0]["spec"]
    rules, flags = spec["rules"], spec["rules"]["flags"]
    default = default_data()
    counts = sorted({m["spec"]["players"] for m in manifests})
    sides = flags.get("die_sides")
    faces = rules.get("die", {}).get("fate_values", [])[: sides or 0]
    deck = rules.get("events", {}).get("deck", [])
    lines = [
        f"- Rules id: `{spec['rules_id']}`.",
        f"- Species mode (SP1): **{flags.get('species_mode')}**"
        + (
            " (the 5 main actions only: every rule from the source)."
            if flags.get("species_mode") == "plain"
            else " (each species' 4 special actions; costs and effects partly PLACEHOLDER, U7)."
        ),
        f"- Events (V1): **{'on' if flags.get('events') else 'off'}**"
        + (
            f": a deck of {plural(len(deck), 'card')} ({', '.join(str(c.get('name')) for c in deck)})."
            if flags.get("events")
            else " (the official variant without events)."
        ),
        f"- Die (D1): **d{sides}**; fate values (D2) "
        + ", ".join(f"{i + 1} → {v}" for i, v in enumerate(faces))
        + ".",
        "- Clock R(P) (S2): "
        + ", ".join(f"{p} players {rules['rounds'].get(str(p), '?')} rounds" for p in counts)
        + ".",
        "- Tile table (L5): "
        + (
            "the default (PLACEHOLDER, U1)"
            if rules.get("tiles") == default["tiles"]
            else "a house tile table (rules file)"
        )
        + f", {plural(len(rules.get('tiles', {})), 'tile')}.",
    ]
    lines += [f"- Layout, {p} players: {_layout_words(rules, default, p)}." for p in counts]
    changed = [
        f"`{f.name} = {json.dumps(flags[f.name])}`"
        for f in FLAGS
        if f.name in flags and flags[f.name] != default["flags"][f.name]
    ]
    lines.append("- §14 flags not at their default: " + (", ".join(changed) or "none") + ".")
    page.text("## Rules and placeholders\n\n" + "\n".join(lines))
    rows = []
    for m in manifests:
        s = m["spec"]
        for key in s.get("placeholders", []):
            rows.append(
                {
                    "players": s["players"],
                    "seed": s["seed"],
                    "placeholder": key,
                    "what": _placeholder_words(key),
                }
            )
    if rows:
        page.text(
            "Every PLACEHOLDER the runs use (their manifests' `spec.placeholders`: data no source has, "
            "docs/chromosome-rules.md §15), per run:"
        )
        df = pl.DataFrame(rows).unique(maintain_order=True)
        page.table(
            "placeholders",
            df,
            [Col.PLAYERS, ("seed", "seed", "int"), ("placeholder", "placeholder", "text"),
             ("what", "what it is", "text")],
        )  # fmt: skip
    else:
        page.text("The runs use no PLACEHOLDER data.")


def _rate_section(page: Page, t: Tables, key: str, header: str, name: str) -> None:
    table = t.wins[key]
    page.table(
        name,
        table,
        [
            Col.PLAYERS,
            (key, header, "text" if key != "start_space" else "int"),
            *RATE_COLUMNS,
        ],
    )


def section_species(page: Page, t: Tables) -> None:
    page.text("## Win rate by species\n\nEach player's species is drawn at random (S4). " + SHARED_WINS_WORDS)
    _rate_section(page, t, "species", "species", "win_rate_by_species")
    page.figure(
        "win_rate_by_species",
        figures.win_rates(t.wins["species"], "species", "Win rate by species"),
        "Win rate by species, 95% Wilson intervals; dashed: fair share 1/P; dotted: par (all players' win "
        "rate, shared wins counted for each winner).",
    )
    page.text(
        "### By species and how the game ended\n"
        "The same by end reason: a species may win its games mostly by outlasting the clock or by "
        "surviving eliminations (par and tests within each player count)."
    )
    page.table(
        "win_rate_by_species_and_end",
        t.wins["end_reason_species"],
        [Col.PLAYERS, ("end_reason", "game ended by", "text"),
         ("species", "species", "text"), *RATE_COLUMNS[:5]],
    )  # fmt: skip


def section_seats(page: Page, t: Tables) -> None:
    page.text(
        "## Win rate by start seat\n\n"
        "Seat 1 is the starting player of round 1 (S6); play goes clockwise, seat 2 next. From round 2 "
        "the player with the fewest tokens on the board starts (R5), so the seat is the order of round 1 "
        "and of the setup (S7). The seating is a uniform random order in every game."
    )
    _rate_section(page, t, "start_space", "seat", "win_rate_by_seat")
    page.figure(
        "win_rate_by_seat",
        figures.win_rates(t.wins["start_space"], "start_space", "Win rate by start seat"),
        "Win rate by start seat (1 starts round 1), 95% Wilson intervals; dashed: fair share; dotted: par.",
    )


def section_strategies(page: Page, t: Tables) -> None:
    page.text("## Win rate by strategy")
    _rate_section(page, t, "strategy", "strategy", "win_rate_by_strategy")


def section_player_counts(page: Page, t: Tables) -> None:
    page.text(
        "## Win rate by player count\n\n"
        "All players of a player count: the win rate is the par, (winners per game) / P; it exceeds the "
        "fair share by the shared wins (and falls short of it by the games without a winner). *p vs 1/P* "
        "tests it against the fair share."
    )
    page.table(
        "win_rate_by_players",
        t.wins["players"],
        [
            Col.PLAYERS,
            ("game_count", "games", "int"),
            Col.PLAYER_GAMES,
            *WIN_RATE_COLUMNS,
            ("p_fair_holm", "p vs 1/P (Holm)", "p"),
            ("win_share", "win share", "rate"),
        ],
    )


def section_shared_wins(page: Page, t: Tables) -> None:
    page.text(
        "## Shared wins and games without a winner\n\n"
        "All tied players with the highest score win (E5); when every player is eliminated nobody wins. "
        "Shares of games with 95% Wilson intervals (one row per game: games are independent)."
    )
    page.table(
        "shared_wins",
        t.shared,
        [
            Col.PLAYERS,
            Col.GAMES,
            ("shared", "shared win", "int"),
            ("shared_share", "share", "rate"),
            ("shared_ci_low|shared_ci_high", "95% CI", "ci"),
            ("no_winner", "no winner", "int"),
            ("no_winner_share", "share", "rate"),
            ("no_winner_ci_low|no_winner_ci_high", "95% CI", "ci"),
            ("mean_winners", "winners per game", "num"),
            ("most_winners", "most winners", "int"),
        ],
    )
    page.text("### Games by number of winners")
    page.table(
        "winner_counts",
        t.winners,
        [Col.PLAYERS, ("winners", "winners", "int"), Col.GAMES,
         ("share", "share", "rate")],
    )  # fmt: skip


def section_endings(page: Page, t: Tables, manifests: list[dict[str, Any]]) -> None:
    rounds = manifests[0]["spec"]["rules"].get("rounds", {})
    clock = ", ".join(f"{p} players {rounds.get(str(p), '?')}" for p in _counts(t.ends))
    page.text(
        "## How games end and how long they last\n\n"
        f"A game ends when the clock runs out after round R(P) (E1: *rounds*; R(P) = {clock}) or after an "
        "elimination (E3: *elimination*; E2: no token left on the board, or X4). Shares of games with 95% "
        "Wilson intervals."
    )
    page.table(
        "end_reasons",
        t.ends,
        [*Col.END_REASONS, ("mean_rounds", "mean rounds", "num")],
    )
    page.text("### Game length (rounds played)")
    page.table(
        "game_length_summary",
        t.length_summary,
        [
            Col.PLAYERS,
            Col.GAMES,
            ("mean_rounds", "mean", "num"),
            ("sd_rounds", "sd", "num"),
            ("min", "min", "int"),
            ("q1", "q1", "median"),
            ("median", "median", "median"),
            ("q3", "q3", "median"),
            ("max", "max", "int"),
        ],
    )
    page.csv("game_length", t.length)
    page.figure(
        "game_length",
        figures.game_length(t.length),
        "Share of games by rounds played, stacked by how the game ended "
        "(full table: tables/game_length.csv).",
    )


def _key(by: str) -> str:
    """The column a table by ``by`` shows (``who`` for ``won``: :func:`_who`)."""
    return "who" if by == "won" else by


def _who(df: pl.DataFrame) -> pl.DataFrame:
    """A table by ``won`` with a ``who`` column: winners, or the rest."""
    return df.with_columns(
        pl.when(pl.col("won")).then(pl.lit("winners")).otherwise(pl.lit("the rest")).alias("who")
    )


END_STATE_COLUMNS = [
    Col.PLAYER_GAMES,
    ("eliminated", "eliminated", "rate"),
    ("eliminated_low|eliminated_high", "95% CI", "ci"),
    ("score", "score", "num"),
    ("tokens", "tokens", "num"),
    ("trophies", "trophies", "num"),
    ("fate", "fate", "num"),
    ("irradiation", "irradiation", "num"),
]


def section_end_state(page: Page, t: Tables) -> None:
    page.text(
        "## The end: irradiation, trophies, tokens and fate\n\n"
        "Per player at the end of the game: the share eliminated (E2; Wilson on the effective sample size of "
        "the cluster-robust variance) and the means of the score (E4: tokens + trophies + 2 × fate − "
        "irradiation), tokens on the board, trophies held, fate left and irradiation. Every mean has a 95% "
        "interval (cluster-robust by game) in the CSV (columns *_low, *_high)."
    )
    for by, words in (("species", "species"), ("strategy", "strategy"), ("won", "winners and the rest")):
        page.text(f"### By {words}")
        page.table(
            f"end_state_by_{by}",
            _who(t.end_state[by]) if by == "won" else t.end_state[by],
            [
                Col.PLAYERS,
                (_key(by), _key(by), "text"),
                *END_STATE_COLUMNS,
            ],
        )
    page.text("### Distributions")
    page.csv("end_state_distributions", t.distributions)
    irr = t.distributions.filter(pl.col("measure") == "irradiation")
    wide = irr.pivot(on="value", index="players", values="share", sort_columns=True).sort("players")
    page.text(
        "Share of players at each irradiation level at the end (every measure: "
        "[tables/end_state_distributions.csv](tables/end_state_distributions.csv)):\n\n"
        + markdown_table(wide, [Col.PLAYERS, *((c, c, "rate") for c in wide.columns[1:])])
    )
    page.figure(
        "end_state",
        figures.distributions(t.distributions),
        "Share of players by irradiation, trophies, tokens on the board and fate left at the end, per "
        "player count.",
    )


def section_genes(page: Page, t: Tables) -> None:
    colours = [c for c in t.gene_columns if c != outcomes.GENES_TOTAL]
    page.text(
        "## Gene colours held\n\n"
        "Mean gene cubes held at the end (active and passive) per colour (Y action, P telepathy, R combat, "
        "B build) and in all, with 95% intervals (cluster-robust by game) in the CSV."
    )
    columns = [(c, c.removeprefix("genes_"), "num") for c in [*colours, outcomes.GENES_TOTAL]]
    for by, words in (("species", "species"), ("strategy", "strategy"), ("won", "winners and the rest")):
        page.text(f"### By {words}")
        page.table(
            f"genes_held_by_{by}",
            _who(t.genes[by]) if by == "won" else t.genes[by],
            [Col.PLAYERS, (_key(by), _key(by), "text"),
             Col.PLAYER_GAMES, *columns],
        )  # fmt: skip


def section_events(page: Page, t: Tables) -> None:
    page.text("## Event order")
    if t.events is None:
        page.text(
            "The runs play with events, but their results have no `event_order` column (an engine "
            "that does not record it yet): no event tables."
        )
        return
    page.text(
        "From round 2 one event card is revealed each round (V2). *Revealed in* is the share of games that "
        "revealed the card, with the mean round it came."
    )
    page.table(
        "event_cards",
        t.events["cards"],
        [Col.PLAYERS, ("name", "card", "text"), Col.GAMES,
         ("share", "revealed in", "rate"), ("mean_round", "mean round", "num")],
    )  # fmt: skip
    page.text("### The first card and how the game ends")
    page.table(
        "event_first_end",
        t.events["first_end"],
        [Col.PLAYERS, ("name", "first card", "text"), Col.GAMES,
         ("elimination_share", "ended by elimination", "rate"),
         ("elimination_ci_low|elimination_ci_high", "95% CI", "ci")],
    )  # fmt: skip
    page.text(
        "### The first card and the species\n"
        "Each species' win rate in the games whose first card is this one, against the same species in the "
        "other games of the player count (*difference*, cluster-robust 95% interval, Holm over the table)."
    )
    page.table(
        "event_first_species",
        t.events["first_species"],
        [
            Col.PLAYERS,
            ("name", "first card", "text"),
            ("species", "species", "text"),
            Col.PLAYER_GAMES,
            *Col.VS_OTHER_GAMES,
        ],
    )
