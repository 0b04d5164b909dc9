"""The balance report's plain-language lines (issue 31's newcomer audit): a headline that names
a clearly weak strategy even when the leaders overlap, a warning where a within-strategy gene
estimate leans on a small group, and a glossary of the report's words and rule ids."""

import polars as pl

from analysis.intervals import SMALL_GROUP
from analysis.pages import Page
from analysis.ursuppe.report import GLOSSARY, _small_groups, _strategy_headline, section_glossary


def _strategies(rows: list[tuple[str, float, float, float]]) -> pl.DataFrame:
    return pl.DataFrame(
        rows, schema=["strategy", "win_rate", "ci_low", "ci_high"], orient="row"
    ).with_columns(pl.lit(0.25).alias("fair_share"))


def test_overlapping_leaders_do_not_hide_a_clearly_weak_strategy():
    # The audit's run: the two best overlap, greedy wins 2.9% with a tight interval.
    s = _strategies(
        [
            ("breeder", 0.31, 0.30, 0.32),
            ("predator", 0.305, 0.295, 0.315),
            ("geneticist", 0.27, 0.26, 0.28),
            ("greedy", 0.029, 0.025, 0.033),
        ]
    )
    line = _strategy_headline(4, s)
    assert "no single strategy is clearly strongest: 2 lead" in line
    assert "the weakest is **greedy** 2.9%" in line and "clearly behind the rest" in line
    assert "geneticist" not in line.split("lead")[1].split(";")[0]  # not among the leaders


def test_a_clear_leader_and_overlapping_laggards():
    s = _strategies(
        [("breeder", 0.40, 0.38, 0.42), ("predator", 0.25, 0.23, 0.27), ("greedy", 0.24, 0.22, 0.26)]
    )
    line = _strategy_headline(4, s)
    assert "the strongest strategy is **breeder** 40.0%" in line and "clearly ahead" in line
    assert "the weakest, with overlapping intervals: **predator**" in line


def test_all_overlapping_says_so():
    s = _strategies([("a", 0.26, 0.20, 0.32), ("b", 0.25, 0.19, 0.31), ("c", 0.24, 0.18, 0.30)])
    assert "no strategy is clearly strongest or weakest" in _strategy_headline(3, s)


def test_small_groups_are_named_with_their_size():
    effects = pl.DataFrame(
        {
            "players": [4, 4, 4, 4],
            "gene": ["Tentacle", "Armor", "Speed", "Spores"],
            "smallest_group": [39, SMALL_GROUP, 59, 0],  # 0: no within-strategy estimate
        }
    )
    line = _small_groups(effects)
    assert "2 rows" in line
    assert (
        "Tentacle at 4 players (smallest group 39)" in line
        and "Speed at 4 players (smallest group 59)" in line
    )
    assert "Armor" not in line and "Spores" not in line
    assert _small_groups(effects.filter(pl.col("gene") == "Armor")) == ""


def test_the_glossary_explains_the_report_jargon(tmp_path):
    page = Page(tmp_path / "report")
    section_glossary(page)
    text = "\n".join(page.parts)
    for term in ("start space (S5)", "end of game (W1)", "fair share", "within strategy", "Holm p"):
        assert f"**{term}**" in text
    assert len({t for t, _ in GLOSSARY}) == len(GLOSSARY)  # each term once
