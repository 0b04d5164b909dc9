"""`soup bench --profile` (issue 24.1): time by phase and by kernel, for any game. The kernels'
names come from a perf symbol map this project writes (sim.profiling); perf itself is optional:
without it the table is missing and says why."""

import json

import pytest

from sim import jit, profiling
from tests.test_cli import soup

REPORT = """# Samples: 10K of event 'cpu-clock:ppp'
#
# Overhead  Symbol
# ........  ......
#
    40.00%  [.] _PyEval_EvalFrameDefault
    30.00%  [.] sim.ursuppe.engine.feeding._add_arrangements
    20.00%  [.] strategies.ursuppe.policy.choose
     5.00%  [.] strategies.ursuppe.policy.choose (Python wrapper)
     5.00%  [k] exc_page_fault
"""


def test_a_perf_report_is_read_as_shares_of_the_kernels_time():
    kernels = {"sim.ursuppe.engine.feeding._add_arrangements", "strategies.ursuppe.policy.choose"}
    hot = profiling.parse_report(REPORT, kernels)
    assert hot.kernel_share == pytest.approx(0.55)
    assert [name for _, name in hot.rows] == [
        "sim.ursuppe.engine.feeding._add_arrangements",
        "strategies.ursuppe.policy.choose",
    ]
    assert [share for share, _ in hot.rows] == pytest.approx([30 / 55, 25 / 55])


def test_kernel_times_sum_by_module():
    rows = [(0.5, "a.feeding.eat"), (0.3, "b.policy.choose"), (0.2, "a.feeding.meal_options")]
    grouped = profiling.by_module(rows)
    assert [m for _, m in grouped] == ["a.feeding", "b.policy"]
    assert [share for share, _ in grouped] == pytest.approx([0.7, 0.3])


@pytest.mark.skipif(jit.PLAIN_PYTHON, reason="nothing compiles in the plain-Python path")
def test_the_symbol_map_names_every_kernel_of_the_engine(tmp_path):
    import sim.ursuppe.engine.round  # noqa: F401  (compiles or loads the engine)

    symbols = jit.machine_code_symbols()
    names = {name for _, _, name in symbols}
    for module, function in jit.expected_kernels("ursuppe"):
        assert f"{module}.{function}" in names
    addresses = [a for a, _, _ in symbols]
    assert addresses == sorted(set(addresses)) and all(0 < size <= 65536 for _, size, _ in symbols)
    path = profiling.write_perf_map()
    try:
        first = path.read_text().splitlines()[0].split(" ", 2)
        assert int(first[0], 16) == symbols[0][0] and first[2] == symbols[0][2]
    finally:
        path.unlink()


@pytest.mark.slow
def test_soup_bench_profile_gives_phase_shares_and_hot_kernels():
    r = soup("bench", "--profile", "--players", "3", "--games", "1500", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert list(doc["phase_shares"]) == ["setup", *(f"Phase {i}" for i in range(1, 7)), "end check"]
    assert sum(doc["phase_shares"].values()) == pytest.approx(1, abs=1e-3)
    assert doc["phase_shares"]["Phase 1"] > 0.2  # movement and feeding lead at every count
    kernels = {f"{m}.{f}" for m, f in jit.expected_kernels()}
    if doc["perf_missing"] is None:
        assert doc["hot_kernels"] and {name for _, name in doc["hot_kernels"]} <= kernels
        assert sum(share for share, _ in doc["hot_kernels"]) == pytest.approx(1, abs=1e-2)
        assert sum(share for share, _ in doc["hot_modules"]) == pytest.approx(1, abs=1e-2)
        assert {m for _, m in doc["hot_modules"]} == {n.rpartition(".")[0] for _, n in doc["hot_kernels"]}
    else:
        assert doc["hot_kernels"] is None and doc["perf_missing"]
    text = soup("bench", "--game", "chromosome", "--profile", "--players", "2", "--games", "500")
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("Profile: chromosome, 2 players, 500 games on 1 thread")
    assert "Time by phase" not in text.stdout and "Hot kernels" in text.stdout


def test_soup_bench_profile_refuses_what_the_game_has_not():
    r = soup("bench", "--game", "chromosome", "--profile", "--players", "6")
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        "soup: error: --players 6: chromosome is played by 2, 3, 4 players"
    ]
    r = soup("bench", "--game", "chromosome", "--profile", "--extra-genes")
    assert r.returncode == 2 and "only Ursuppe has extra genes" in r.stderr
