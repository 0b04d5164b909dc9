"""The report's sections one at a time, on small synthetic frames (no simulation): each section
function writes its own heading, tables and figures, and nothing else."""

import re

import numpy as np
import polars as pl
import pytest

from analysis import win_rates
from analysis.pages import Page
from analysis.tables import fmt, markdown_table, plural, round_floats
from analysis.ursuppe import report
from analysis.ursuppe.report import Analyses

PNG = b"\x89PNG\r\n\x1a\n"


def _rows(games: int = 400, players: int = 4, seed: int = 0) -> pl.DataFrame:
    """Player rows of ``games`` synthetic games: seat 1 wins a little more often than fair,
    strategies alternate by seat (greedy at even positions, breeder at odd)."""
    rng = np.random.default_rng(seed)
    bias = np.array([1.25] + [1.0] * (players - 1))
    winner = rng.choice(players, size=games, p=bias / bias.sum())
    position = np.tile(np.arange(players), games)
    return pl.DataFrame(
        {
            "game": np.repeat(np.arange(games), players),
            "seed": 1,
            "players": pl.Series(np.full(games * players, players), dtype=pl.Int8),
            "start_space": pl.Series(position + 1, dtype=pl.Int8),
            "strategy": np.where(position % 2 == 0, "greedy", "breeder"),
            "won": position == np.repeat(winner, players),
            "rounds": pl.Series(np.repeat(rng.integers(7, 11, games), players), dtype=pl.Int16),
            "end_reason": pl.Series(
                np.repeat(np.where(rng.random(games) < 0.9, "finish_zone", "last_card"), players),
                dtype=pl.Categorical,
            ),
            "deck": [[0, 1, 2]] * (games * players),
        }
    )


@pytest.fixture
def rep(tmp_path) -> Page:
    return Page(tmp_path / "r")


def test_seat_section_alone(rep):
    rows = _rows()
    report.section_seats(rep, win_rates.seat_advantage(rows), win_rates.seat_effects(rows, "strategy"))
    md = rep.markdown()
    assert md.startswith("## Seat advantage (S5)")
    assert "### Strategy and start space" in md
    assert "## Win rates by strategy" not in md and "## Headlines" not in md  # only its own section
    assert (rep.root / "figures" / "seat_bias.png").read_bytes()[:8] == PNG
    seats = pl.read_csv(rep.root / "tables" / "seat_advantage.csv")
    assert seats["wins"].sum() == 400  # one winner per game
    assert sorted(p.name for p in (rep.root / "tables").iterdir()) == [
        "seat_advantage.csv",
        "seat_by_strategy.csv",
    ]


def test_strategy_section_alone(rep):
    strategy = win_rates.win_rates(_rows(), ["players", "strategy"])
    report.section_strategy(rep, strategy)
    md = rep.markdown()
    assert md.startswith("## Win rates by strategy")
    assert md.count("| 4 | ") == 2  # breeder and greedy
    assert "figures/win_rate_by_strategy.png" in md


def test_game_length_section_alone(rep):
    rows = _rows()
    length = report.readable_end(win_rates.game_length(rows))
    ends = report.readable_end(win_rates.end_reasons(rows))
    report.section_game_length(rep, length, win_rates.game_length_summary(rows), ends)
    md = rep.markdown()
    assert md.startswith("## Game length and how games end (W1)")
    assert "| 4 | finish zone |" in md and "| 4 | last card |" in md
    assert (rep.root / "figures" / "game_length.png").read_bytes()[:8] == PNG
    assert (rep.root / "tables" / "game_length.csv").exists()


# --- numbers as text -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["rate", "signed", "num", "float", "pct", "points"])
def test_a_value_that_rounds_to_zero_prints_without_a_sign(kind):
    for tiny in (-1e-9, -0.0, 0.0, 1e-9):
        text = fmt(tiny, kind)
        assert not text.startswith(("-", "+")), (kind, tiny, text)
    assert fmt(-0.0123, kind).startswith("-")  # a real negative keeps its sign
    assert fmt(0.0123, "signed") == "+0.012" and fmt(0.0123, "points") == "+1.2"


def test_an_interval_touching_zero_prints_zero_not_minus_zero():
    df = pl.DataFrame({"d": [-0.0004], "lo": [-0.0003], "hi": [0.071]})
    md = markdown_table(df, [("d", "difference", "signed"), ("lo|hi", "95% CI", "sci")])
    assert md.splitlines()[-1] == "| 0.000 | [0.000, +0.071] |"
    assert "-0.000" not in md


def test_csv_floats_are_rounded_without_noise_or_negative_zero():
    df = pl.DataFrame(
        {
            "rate": [0.025570000000000002, 0.0020000000000000018, -0.0, 1 / 3, None],
            "p": [1e-300, 2.5e-7, float("nan"), 1.0, 0.5],
            "n": [1, 2, 3, 4, 5],
            "name": ["a", "b", "c", "d", "e"],
        }
    )
    out = round_floats(df)
    assert out.schema == df.schema
    text = out.write_csv()
    assert text.splitlines()[1:] == [
        "0.02557,1e-300,1,a",
        "0.002,2.5e-7,2,b",
        "0.0,NaN,3,c",
        "0.333333,1.0,4,d",
        ",0.5,5,e",
    ]


def test_report_csvs_are_rounded(rep):
    rep.csv("t", pl.DataFrame({"x": [0.1 + 0.2, -1e-20 * 0.0]}))
    assert (rep.root / "tables" / "t.csv").read_text() == "x\n0.3\n0.0\n"
    rows = _rows()
    report.section_seats(rep, win_rates.seat_advantage(rows), win_rates.seat_effects(rows, "strategy"))
    for path in (rep.root / "tables").glob("*.csv"):
        cells = path.read_text().replace("\n", ",").split(",")
        floats = [c for c in cells if re.fullmatch(r"-?[0-9.]+(e-?\d+)?", c)]
        assert floats, path.name
        for cell in floats:
            mantissa = cell.split("e")[0].lstrip("-").replace(".", "").strip("0")
            assert len(mantissa) <= 6, (path.name, cell)
            assert cell not in ("-0.0", "-0"), path.name


def test_plural():
    assert plural(1, "card") == "1 card"
    assert plural(0, "card") == "0 cards"
    assert plural(11, "card") == "11 cards"
    assert plural(1200, "game") == "1,200 games"
    assert plural(1, "strategy", "strategies") == "1 strategy"
    assert plural(3, "strategy", "strategies") == "3 strategies"


# --- headlines -----------------------------------------------------------------------------------


def _analyses_for_headlines() -> Analyses:
    """Tables for the headlines: one significant strategy x seat cell and one significant gene
    pair whose strategies-compared label has its own parentheses."""
    rows = _rows()
    empty = pl.DataFrame()
    seat_by_strategy = pl.DataFrame(
        {
            "players": [4, 4],
            "strategy": ["greedy", "breeder"],
            "start_space": [1, 2],
            "win_rate": [0.31, 0.24],
            "difference": [0.07, -0.01],
            "p_holm": [0.01, 1.0],
        }
    )
    held = pl.DataFrame(
        {"players": [4], "gene": ["Speed"], "within_strategy": [0.02], "within_p_holm": [0.5]}
    )
    synergy = pl.DataFrame(
        {
            "players": [4, 4],
            "gene_a": ["Spores", "Speed"],
            "gene_b": ["Aggression", "Armor"],
            "within_strategy": [0.336, 0.01],
            "within_low": [0.188, -0.05],
            "within_high": [0.485, 0.07],
            "within_p": [1e-5, 0.6],
            "within_q_bh": [0.001, 0.7],
            "strata": [
                "breeder (smallest group 40), predator (smallest group 47)",
                "predator (smallest group 47)",
            ],
        }
    )
    return Analyses(
        strategy=win_rates.win_rates(rows, ["players", "strategy"]),
        seats=win_rates.seat_advantage(rows),
        seat_by_strategy=seat_by_strategy,
        length=empty,
        length_summary=win_rates.game_length_summary(rows),
        ends=report.readable_end(win_rates.end_reasons(rows)),
        held=held,
        bought=empty,
        synergy=synergy,
        purchases=empty,
        timing=empty,
    )


def test_headlines_have_no_doubled_parentheses_and_singular_counts(rep):
    report.section_headlines(rep, _analyses_for_headlines())
    md = rep.markdown()
    assert md.startswith("## Headlines")
    assert "))" not in md and "((" not in md
    for line in md.splitlines():
        assert line.count("(") == line.count(")"), line
    assert "**Spores + Aggression**: +33.6 points" in md
    assert "(95% CI +18.8 to +48.5), based on breeder (smallest group 40), predator (smallest group" in md
    assert "1 pair has BH q < 0.05" in md
    assert "1 strategy × seat cell differs" in md
    assert " 1 pairs" not in md and " 1 cells" not in md


def test_title_counts_are_singular_for_one(rep, tmp_path):
    rows = _rows(games=1).with_columns(pl.lit(0, pl.Int16).alias("run"))
    spec = {
        "players": 4,
        "seed": 1,
        "games": 1,
        "seating": "rotate",
        "strategies": ["greedy", "breeder"],
        "assignment": {"pool": [0, 1]},
        "rules_id": "abc",
        "deck": "1 card: 6N",
        "rules": {"environment": {"deck": [{"ozone": 6, "drift": "N"}]}},
    }
    report.section_title(rep, rows, [{"spec": spec, "status": "complete"}], [tmp_path / "one"])
    md = rep.markdown()
    assert "1 game (4 player results) from 1 run, seed 1." in md
    assert "**Small sample:** 1 game with 4 players" in md
    assert " 1 games" not in md and " 1 runs" not in md


# --- figures -------------------------------------------------------------------------------------


def _drawn(fig):
    """``fig`` drawn (layout done), and its renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def _texts(fig) -> list[str]:
    """Every piece of text a reader sees: titles, axis labels, tick labels, legends."""
    out = [fig.get_suptitle()]
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        out += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
    for legend in [*fig.legends, *(ax.get_legend() for ax in fig.axes)]:
        if legend is not None:
            out += [legend.get_title().get_text(), *(t.get_text() for t in legend.get_texts())]
    return [t for t in out if t]


def _deck_effects(by: str, feature: str) -> pl.DataFrame:
    """A deck-effects table (analysis.ursuppe.deck_order.deck_effects' columns) for one player count."""
    rng = np.random.default_rng(1)
    groups = [1, 2, 3, 4] if by == "start_space" else ["breeder", "greedy"]
    levels = ["low", "mid", "high"] if feature == "ozone_band" else ["N", "E", "S", "W", "none"]
    cells = [(g, lv) for g in groups for lv in levels]
    rate = 0.25 + rng.normal(0, 0.01, len(cells))
    return pl.DataFrame(
        {
            by: [g for g, _ in cells],
            feature: [lv for _, lv in cells],
            "win_rate": rate,
            "ci_low": rate - 0.03,
            "ci_high": rate + 0.03,
        }
    )


DECK_PLOTS = (("start_space", "first_drift"), ("start_space", "ozone_band"), ("strategy", "ozone_band"))


def _figures():
    from analysis.ursuppe import figures

    # four player counts (PX: 3 to 6): the per-count figures wrap their panels onto a second row
    rows = pl.concat([_rows(players=p, seed=p) for p in (3, 4, 5, 6)])
    seats = win_rates.seat_advantage(rows)
    yield "seat_bias", figures.seat_bias(seats)
    yield "strategy_rates", figures.strategy_rates(win_rates.win_rates(rows, ["players", "strategy"]))
    yield "length_histogram", figures.length_histogram(report.readable_end(win_rates.game_length(rows)))
    for by, feature in DECK_PLOTS:
        fig = figures.deck_effect_plot(_deck_effects(by, feature), feature, by, fair=0.25)
        yield f"deck {by} {feature}", fig


def test_figures_show_no_code_names():
    for name, fig in _figures():
        for text in _texts(fig):
            assert not re.search(r"[a-z]_[a-z]", text), (name, text)


def test_figure_titles_and_legends_do_not_overlap_the_plots():
    for name, fig in _figures():
        renderer = _drawn(fig)
        boxes = {"suptitle": fig._suptitle} if fig._suptitle is not None else {}
        for i, ax in enumerate(fig.axes):
            if ax.get_title():
                boxes[f"title {i}"] = ax.title
            if ax.get_legend() is not None:
                boxes[f"legend {i}"] = ax.get_legend()
        for i, legend in enumerate(fig.legends):
            boxes[f"figure legend {i}"] = legend
        extents = {k: v.get_window_extent(renderer) for k, v in boxes.items()}
        panels = {f"axes {i}": ax.get_window_extent(renderer) for i, ax in enumerate(fig.axes)}
        for k, box in extents.items():
            for other, obox in {**extents, **panels}.items():
                if other != k and not (k.startswith("title") and other == f"axes {k.split()[1]}"):
                    assert not box.overlaps(obox), (name, k, other)


def test_seat_axis_is_fitted_to_the_intervals_and_says_it_does_not_start_at_0():
    from analysis.ursuppe import figures

    rows = _rows(games=3000)
    seats = win_rates.seat_advantage(rows)
    fig = figures.seat_bias(seats)
    ax = fig.axes[0]
    bottom, top = ax.get_ylim()
    assert 0 < bottom < min(seats["ci_low"].min(), 0.25) and top > max(seats["ci_high"].max(), 0.25)
    assert top - bottom < 0.2  # zoomed: a ±1-point difference is visible
    assert "does not start at 0" in ax.get_ylabel()
    effects = _deck_effects("start_space", "first_drift")
    deck = figures.deck_effect_plot(effects, "first_drift", "start_space", fair=0.25)
    bottom, top = deck.axes[0].get_ylim()
    assert 0 < bottom < 0.25 < top and "does not start at 0" in deck.axes[0].get_ylabel()


def test_per_count_figures_wrap_four_player_counts_onto_two_rows():
    """3 to 6 players in one report: at most 3 (or 2 for wide panels) panels a row, so that
    labels stay readable when the figure is fitted to a page; every count keeps its panel."""
    for name, fig in _figures():
        if name.startswith("deck"):
            continue  # one player count per figure
        axes = [ax for ax in fig.axes if ax.get_title()]
        assert [ax.get_title().split()[0] for ax in axes] == ["3", "4", "5", "6"], name
        rows = {round(ax.get_position().y0, 3) for ax in axes}
        assert len(rows) == 2, (name, rows)
        width, _ = fig.get_size_inches()
        assert width <= 16, (name, width)
