"""Issue 34.3 (and 33.4's last point): the balance report shows a skill ladder and the tables of
a field of search players beside the scripted field's, and names the strongest rung it knows."""

import json

import pytest

from analysis.skill_ladder import LadderError, read_ladder, strongest_line
from sim import game as games
from sim.experiments.arms import Arm, play_arm
from sim.experiments.skill import ladder, ladder_doc, write_ladder


def _ladder(tmp_path, players=4, games_=8):
    g = games.get("ursuppe")
    rungs = ladder(
        g, g.load_rules(), players, ["random", "breeder", "search-2"], "breeder", 1, games_, tmp_path
    )
    write_ladder(tmp_path, ladder_doc("ursuppe", players, "breeder", rungs, "random"))
    return rungs


def test_skill_json_names_the_strongest_rung_and_reads_back(tmp_path):
    """`soup skill` writes skill.json: the strongest rung, the depth, each rung's gain over the
    field's own strategy (paired; none for the base itself) and the curve; the report reads it."""
    rungs = _ladder(tmp_path)
    doc = read_ladder(tmp_path)
    best = max(rungs, key=lambda r: r.rate)
    assert doc["strongest"] == best.strategy and (tmp_path / "skill.png").stat().st_size > 0
    by_name = {r["strategy"]: r for r in doc["rungs"]}
    assert by_name["breeder"]["over_field"] is None
    assert by_name["search-2"]["over_field"]["estimate"] == pytest.approx(
        by_name["search-2"]["rate"] - by_name["breeder"]["rate"]
    )
    assert doc["depth"] == pytest.approx(best.rate - by_name["random"]["rate"])
    assert f"**{best.strategy}**" in strongest_line(doc)


def test_a_directory_without_a_ladder_is_one_clear_error(tmp_path):
    with pytest.raises(LadderError, match="no skill.json: expected a directory written by soup skill"):
        read_ladder(tmp_path)
    (tmp_path / "skill.json").write_text("{not json")
    with pytest.raises(LadderError, match="not a skill ladder"):
        read_ladder(tmp_path)
    (tmp_path / "skill.json").write_text(json.dumps({"game": "ursuppe"}))
    with pytest.raises(LadderError, match="missing players"):
        read_ladder(tmp_path)


@pytest.mark.slow
def test_soup_report_with_a_strong_field_and_a_skill_ladder(tmp_path):
    """`soup report RUN --strong STRONG --skill DIR`: the strategy section names the strongest
    rung, the report gains "Skill ladder" and "Under strong play" (the strong field's strategy,
    seat and gene tables and the findings that change); a strong run without a search player, or
    a directory without a ladder, is one line and exit 2, and nothing is written."""
    from tests.processes import run

    g = games.get("ursuppe")
    base, strong, skill = tmp_path / "base", tmp_path / "strong", tmp_path / "skill"
    play_arm(g, Arm("base", g.load_rules()), 4, 1, 400, base)
    play_arm(
        g, Arm("strong", g.load_rules(), strategies="search-2,breeder,breeder,breeder"), 4, 1, 24, strong
    )
    _ladder(skill)
    out = tmp_path / "report"
    r = run(
        ["soup", "report", str(base), "--strong", str(strong), "--skill", str(skill), "-q", "--out", str(out)]
    )
    assert r.returncode == 0, r.stderr
    md = (out / "report.md").read_text()
    assert "The strongest rung of the skill ladder" in md.split("## Win rates by strategy")[1].split("##")[0]
    for heading in (
        "## Skill ladder",
        "## Under strong play",
        "### Findings that change with the players' strength",
    ):
        assert heading in md
    assert "search-2" in md.split("## Under strong play")[1]
    assert (out / "figures" / "skill_ladder.png").is_file()
    assert (out / "tables" / "seat_advantage_strong.csv").is_file()
    for bad, message in (
        (["--strong", str(base)], "no search player among its strategies"),
        (["--skill", str(base)], "no skill.json"),
    ):
        r = run(["soup", "report", str(base), *bad, "-q", "--out", str(tmp_path / "bad")])
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr
        assert not (tmp_path / "bad").exists()
