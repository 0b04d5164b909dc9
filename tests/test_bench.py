"""`soup bench --json` (issue 4): every figure is there and plausible. Speed is measured by the
benchmark, not asserted here (no timed tests)."""

import json

import pytest

from tests.test_cli import soup


@pytest.mark.slow
def test_bench_json_reports_every_figure():
    r = soup(
        "bench",
        "--json",
        "--games",
        "300",
        "--plain-games",
        "5",
        "--rss-games",
        "400",
        "--no-cold",
        "--repeats",
        "2",
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    for players in ("3p", "4p"):
        assert set(doc["games_per_s"][players]) == {"1", "2"}
        assert all(v > 0 for v in doc["games_per_s"][players].values())
        for t, runs in doc["games_per_s_runs"][players].items():  # the figure is the best run
            assert len(runs) == 2 and doc["games_per_s"][players][t] == max(runs)
    assert doc["speedup_vs_python"] > 1
    assert doc["peak_rss_mb"] > 0 and set(doc["peak_rss_mb_by_games"]) == {"400", "1600"}
    assert doc["warm_start_s"] > 0 and doc["cold_start_s"] is None
    assert {"games_per_s", "speedup_vs_python", "peak_rss_mb", "cold_start_s", "warm_start_s"} <= set(doc)
