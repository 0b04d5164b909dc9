"""`soup bench --json` (issue 4, "Trustworthy runs"): every figure is there and plausible. Speed is
measured by the benchmark, not asserted here (no timed tests); nor is the memory target (the
peak memory of `soup simulate` of 10N games within 10% of N games'): it is measured and reported."""

import json
import statistics

import pytest

from tests.test_cli import ROOT, soup


@pytest.mark.slow
def test_bench_json_reports_every_figure_and_compares_with_a_revision():
    # --compare HEAD: measured from HEAD's files in a kernel cache of their own (compiled once per
    # commit and kept), or, when the engine files are HEAD's, from the working tree's.
    r = soup(
        "bench",
        "--json",
        "--games",
        "300",
        "--plain-games",
        "5",
        "--rss-games",
        "100",
        "--no-cold",
        "--repeats",
        "2",
        "--compare",
        "HEAD",
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    for players in ("3p", "4p", "5p", "6p", "2p-double2", "4p-extra"):
        assert set(doc["games_per_s"][players]) == {"1", "2"}
        assert all(v > 0 for v in doc["games_per_s"][players].values())
        for t, runs in doc["games_per_s_runs"][players].items():  # the figure is the best run
            assert len(runs) == 2 and doc["games_per_s"][players][t] == max(runs)
    # 6-player over 4-player games/s, from the same run's best rates (PX: 5-6 players)
    assert doc["6p_over_4p_target"] == 0.45
    for t in ("1", "2"):
        assert doc["6p_over_4p"][t] == pytest.approx(
            doc["games_per_s"]["6p"][t] / doc["games_per_s"]["4p"][t], abs=1e-3
        )
    # issue 14: 4-player games with the extra genes over without, from the same run
    assert doc["extra_over_4p_target"] == 0.6
    for t in ("1", "2"):
        assert doc["extra_over_4p"][t] == pytest.approx(
            doc["games_per_s"]["4p-extra"][t] / doc["games_per_s"]["4p"][t], abs=1e-3
        )
    assert doc["speedup_vs_python"] > 1
    # issue 12: whole `soup simulate` runs through the runner over the engine alone, same process
    assert doc["pipeline_efficiency_target"] == 0.95 and doc["pipeline_games"] == 1500
    for t in ("1", "2"):
        assert doc["simulate_games_per_s"][t] == max(doc["pipeline_runs"]["simulate"][t]) > 0
        assert doc["engine_games_per_s"][t] == max(doc["pipeline_runs"]["engine"][t]) > 0
        assert doc["pipeline_efficiency_best"][t] == pytest.approx(
            doc["simulate_games_per_s"][t] / doc["engine_games_per_s"][t], abs=1e-3
        )
        # the headline: the middle round's whole run over the engine measured just before it
        runs = doc["pipeline_runs"]
        paired = [s / e for s, e in zip(runs["simulate"][t], runs["engine"][t], strict=True)]
        assert doc["pipeline_efficiency"][t] == pytest.approx(statistics.median(paired), abs=1e-3)
    # the whole `soup simulate` command, at N and 10N games
    assert set(doc["peak_rss_mb_by_games"]) == {"100", "1000"}
    assert all(v > 0 for v in doc["peak_rss_mb_by_games"].values())
    assert doc["peak_rss_mb"] == max(doc["peak_rss_mb_by_games"].values())
    assert doc["peak_rss_ratio"] == pytest.approx(
        doc["peak_rss_mb_by_games"]["1000"] / doc["peak_rss_mb_by_games"]["100"], abs=1e-3
    )
    assert doc["warm_start_s"] > 0 and doc["cold_start_s"] is None
    # issue 31: warm figures of fresh processes, wall and CPU
    assert doc["warm_start_cpu_s"] > 0 and doc["warm_command_s"] > 0 and doc["warm_command_cpu_s"] > 0
    assert {"games_per_s", "speedup_vs_python", "peak_rss_mb", "cold_start_s", "warm_start_s"} <= set(doc)

    _check_compared(doc["compare"], set(doc["games_per_s"]))
    # the working tree's soup simulate peak: the one measured above, not measured again for --compare
    assert doc["compare"]["peak_rss_mb"]["working_tree"] == doc["peak_rss_mb"]

    from sim.ursuppe.tools.bench import as_text

    text = as_text(doc)
    assert "soup simulate (whole run, 4 players)" in text
    assert "compared with HEAD" in text and "ratio" in text and "peak memory of soup simulate" in text
    assert "5 players:" in text and "6 players:" in text and "6 players over 4:" in text
    assert "6p, 1 thr" in text and "4p extra, 2 thr" in text and "peak memory, MB" in text


def _check_compared(c: dict, figures: set[str]) -> None:
    """--compare HEAD's part of the document: every figure measured in both trees, in turns."""
    assert c["rev"] == "HEAD" and len(c["commit"]) == 40 and isinstance(c["same_engine_files"], bool)
    # every figure, HEAD plays them all (an older revision's missing ones are "not_compared")
    assert c["not_compared"] == [] and set(c["ratios"]) == figures
    for players in ("3p", "4p", "5p", "6p", "2p-double2", "4p-extra"):
        for t in ("1", "2"):
            work, rev = c["runs"]["working_tree"][players][t], c["runs"]["rev"][players][t]
            assert len(work) == len(rev) == 2 and min(work + rev) > 0
            assert c["working_tree_games_per_s"][players][t] == max(work)
            assert c["rev_games_per_s"][players][t] == max(rev)
            assert c["ratios"][players][t] == pytest.approx(max(work) / max(rev), rel=1e-2)
    # the peak memory of each tree's whole soup simulate (N and 10N games, the larger)
    assert c["rss_games"] == 100 and all(v > 0 for v in c["peak_rss_mb"].values())
    peak = c["peak_rss_mb"]
    assert c["rss_ratio"] == pytest.approx(peak["working_tree"] / peak["rev"], abs=1e-3)


@pytest.mark.slow
def test_bench_compare_with_an_unknown_revision_fails_in_one_line():
    r = soup("bench", "--no-cold", "--compare", "no-such-rev")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"soup: error: --compare: git cannot resolve the revision 'no-such-rev' in {ROOT}"
    ]
    assert "Traceback" not in r.stderr and r.stdout == ""
