"""soup tune (issue 13, points 1, 2 and 6): the tuner finds what a house rule makes strong, drops
what it makes useless, does not overfit its seeds, is deterministic and resumable, and bad input
is one line with exit 2."""

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from sim.ursuppe.experiments import gene_value as G
from sim.ursuppe.experiments import tuning as T
from sim.ursuppe.rules.book import load_rules
from sim.ursuppe.rules.genes import GENE_NAMES, N_BASE_GENES, gene_index
from strategies.ursuppe import DEFAULT_POOL
from strategies.ursuppe.params import GENE_VALUE_BASE, load_strategy
from tests import processes

# The slow tier (README: pytest -m "not slow" is the fast one); CI runs both.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


def soup(*args: str) -> subprocess.CompletedProcess:
    """The command line of this checkout (not an installed console script of another one)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return processes.run(
        [sys.executable, "-m", "sim.cli.app", *args],
        cwd=ROOT,
        env=env,
        timeout=600,
    )


def mix(players: int = 4, **kw) -> T.Field:
    return T.Field("mix", tuple(load_strategy(n) for n in DEFAULT_POOL))


def config(
    start="greedy", players=4, fld=None, keys=("genes",), budget=60_000, rules=None, **kw
) -> T.TuneConfig:
    book = rules or load_rules()
    keys = T.resolve_keys(",".join(keys), book, players, kw.pop("variant", None))
    start = start if isinstance(start, T.Strategy) else load_strategy(start)
    kw.setdefault("games_per_candidate", 240)
    kw.setdefault("eval_games", 2400)
    return T.TuneConfig(T.Setting(book, players), start, fld or mix(players), tuple(keys), budget, **kw)


def run(cfg: T.TuneConfig, out: Path, threads: int = 2) -> dict:
    state = T.tune(cfg, out, threads)
    return T.finish(cfg, state, out, threads)


def gene_share(doc: dict, gene: str, who: str) -> float:
    return doc["fresh"]["purchases"][gene][who]


def test_search_space_maps_bounds_and_keeps_the_start():
    start = load_strategy("breeder").vector
    keys = T.resolve_keys("default,save_for_value,active_moves", load_rules(), 4, None)
    space = T.search_space(keys, start)
    x = space.to_unit(start)
    assert ((0 <= x) & (x <= 1)).all()
    back = space.to_vector(x, start)
    assert np.allclose(back, start, atol=1e-3)  # the start is a point of the space (bounds widened)
    j = space.keys.index("active_moves")
    assert space.switch[j]
    assert space.to_vector(np.full(len(x), 0.4), start)[space.index[j]] in (0.0, 1.0)
    assert len(keys) == len(set(keys)) and "gene_value.Division Rate" in keys


def test_tuned_toml_loads_everywhere(tmp_path):
    cfg = config(keys=("bp_reserve", "gene_value.Speed"))
    v = cfg.start_vector().copy()
    v[T.parameter_key_index("bp_reserve")] = 3.25
    v[T.parameter_key_index("gene_value.Speed")] = -1.5
    path = tmp_path / "t.toml"
    path.write_text(T.tuned_toml(cfg, v, 'a "quoted" description'))
    loaded = load_strategy(str(path))
    assert np.array_equal(loaded.vector, v)
    assert tomllib.loads(path.read_text())["extends"] == "greedy"
    # A start from a file: every parameter written out, no extends.
    cfg2 = config(start=loaded, keys=("bp_reserve",))
    path2 = tmp_path / "t2.toml"
    path2.write_text(T.tuned_toml(cfg2, v, "from a file"))
    assert "extends" not in tomllib.loads(path2.read_text())
    assert np.array_equal(load_strategy(path2).vector, v)


def tune_house_rule(tmp_path: Path, overrides: dict, start: str, keys: tuple[str, ...]) -> dict:
    """Tune the start strategy file ``start`` (TOML text) under a house rule against three greedy
    players, with a budget that finds what the rule makes strong or useless."""
    path = tmp_path / "start.toml"
    path.write_text(start)
    cfg = config(
        start=load_strategy(path),
        fld=T.Field("against", (load_strategy("greedy"),) * 3),
        keys=keys,
        rules=load_rules(overrides=overrides),
        budget=50_000,
        games_per_candidate=480,
        sigma=0.2,
    )
    return run(cfg, tmp_path / "out")


def test_free_amoebas_make_division_rate_the_gene_to_buy(tmp_path):
    """A house rule that makes amoebas free with Division Rate is discovered: the tuned player
    values it above the start, buys it far more often, and wins far more (issue 13.6)."""
    doc = tune_house_rule(
        tmp_path,
        {"economy": {"division_cost_division_rate": 0}},
        'extends = "greedy"\nname = "shy"\n[gene_value]\n"Division Rate" = 0.5\n',
        ("gene_value.Division Rate", "gene_value.Intelligence", "gene_value.Movement I", "bp_reserve"),
    )
    dr = GENE_VALUE_BASE + gene_index("Division Rate")
    assert doc["tuned_vector"][dr] > 0.5 + 2
    assert gene_share(doc, "Division Rate", "tuned") > gene_share(doc, "Division Rate", "start") + 0.2
    gain = doc["fresh"]["gain"]
    assert gain["estimate"] > 0.05 and gain["ci_low"] > 0


def test_useless_gene_is_abandoned(tmp_path):
    """Intelligence at price 12 is a waste of BP: a start that saves for it stops buying it."""
    doc = tune_house_rule(
        tmp_path,
        {"genes": {"Intelligence": {"price": 12}}},
        # It saves for Intelligence (valued above save_for_value) instead of dividing.
        'extends = "greedy"\nname = "brainy"\nsave_for_value = 7\n[gene_value]\n"Intelligence" = 8\n',
        ("gene_value.Intelligence", "gene_value.Division Rate", "gene_value.Movement I", "bp_reserve"),
    )
    intel = GENE_VALUE_BASE + gene_index("Intelligence")
    assert doc["tuned_vector"][intel] < 8 - 2
    assert gene_share(doc, "Intelligence", "start") > 0.3
    assert gene_share(doc, "Intelligence", "tuned") < gene_share(doc, "Intelligence", "start") - 0.2
    assert doc["fresh"]["gain"]["ci_high"] >= 0  # not worse than the start


def test_not_worse_than_the_start_on_fresh_seeds(tmp_path):
    """A strong start (breeder) against the mix: the tuned strategy is not worse on fresh games
    (no overfitting to the tuning seeds), and the report says so with intervals."""
    cfg = config(start="breeder", keys=("default",), budget=60_000, games_per_candidate=240)
    doc = run(cfg, tmp_path / "out")
    fr = doc["fresh"]
    assert fr["seed"] != cfg.seed
    assert fr["gain"]["ci_high"] >= 0 and fr["gain"]["estimate"] > -0.02
    check = doc["validation"]
    assert check["kept"] in ("tuned", "start") and check["first_game"] == cfg.generations() * 240
    if check["kept"] == "start":  # the mean did not beat the start on unplayed tuning games
        assert fr["gain"]["estimate"] == 0 and (tmp_path / "out" / "tuned.toml").exists()
    assert fr["tuned"]["ci"][0] <= fr["tuned"]["win_rate"] <= fr["tuned"]["ci"][1]
    report = (tmp_path / "out" / "report.md").read_text()
    assert "95% interval" in report and "fresh" in report
    assert (tmp_path / "out" / "learning_curve.png").stat().st_size > 1000


@pytest.mark.parametrize("seed", [2, 3])
def test_a_noisy_small_tuning_never_hands_back_a_worse_strategy(tmp_path, seed):
    """Few games a candidate and 28 parameters: the mean may wander on noise (seed 2 ends 4 points
    below breeder on fresh games); the final check on unplayed tuning games then keeps the start."""
    cfg = config(start="breeder", keys=("default",), budget=60_000, games_per_candidate=240, seed=seed)
    doc = run(cfg, tmp_path / "out")
    assert doc["fresh"]["gain"]["ci_high"] >= 0


def small(keys: tuple[str, ...], budget: int, **kw) -> T.TuneConfig:
    """A tuning of a few seconds at 3 players (120 games a candidate, 600 fresh games)."""
    return config(players=3, keys=keys, budget=budget, games_per_candidate=120, eval_games=600, **kw)


def test_same_seed_same_result_on_any_thread_count(tmp_path):
    cfg = small(("bp_reserve", "gene_value.Speed", "food_weight"), 12_000)
    run(cfg, tmp_path / "a", threads=2)
    run(cfg, tmp_path / "b", threads=2)
    run(cfg, tmp_path / "c", threads=1)
    for name in (T.RESULT, T.TUNED):
        a = (tmp_path / "a" / name).read_bytes()
        assert a == (tmp_path / "b" / name).read_bytes() == (tmp_path / "c" / name).read_bytes()
    other = small(("bp_reserve", "gene_value.Speed", "food_weight"), 12_000, seed=2)
    run(other, tmp_path / "d")
    assert (tmp_path / "d" / T.RESULT).read_bytes() != (tmp_path / "a" / T.RESULT).read_bytes()


def test_resume_after_interruption_gives_the_same_result(tmp_path):
    cfg = small(("bp_reserve", "gene_value.Speed", "division_base"), 16_000, fld=T.Field("self"))
    run(cfg, tmp_path / "whole")

    def stop(state: T.TuneState) -> None:
        if state.generation == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        T.tune(cfg, tmp_path / "cut", 2, after_generation=stop)
    assert T.load_checkpoint(tmp_path / "cut", cfg).generation == 3
    run(cfg, tmp_path / "cut")
    for name in (T.RESULT, T.TUNED):
        assert (tmp_path / "whole" / name).read_bytes() == (tmp_path / "cut" / name).read_bytes()
    other = small(("bp_reserve",), 16_000)
    with pytest.raises(T.TuningError, match="another tuning"):
        T.tune(other, tmp_path / "cut", 2)


def test_two_player_variant_and_fixed_opponents(tmp_path):
    book = load_rules()
    cfg = T.TuneConfig(
        T.Setting(book, 2, "dummy"),
        load_strategy("greedy"),
        T.Field("against", (load_strategy("breeder"),)),
        ("bp_reserve", "gene_value.Division Rate"),
        budget=4_000,
        games_per_candidate=100,
        eval_games=200,
    )
    doc = run(cfg, tmp_path / "out")
    assert doc["tuning"]["variant"] == "dummy" and doc["generations"] >= 2
    assert 0 <= doc["fresh"]["tuned"]["win_rate"] <= 1


def test_gene_value_ranks_the_genes_with_holm(tmp_path):
    """The labelled forced design (bought at the first chance vs never): ranked, Holm-corrected,
    the forced arm buys the gene and the never arm does not; a second call resumes."""
    base = config(
        players=3,
        keys=("bp_reserve", "gene_value.Division Rate", "gene_value.Speed"),
        budget=4 * 7_200,
        games_per_candidate=120,
        eval_games=1200,
    )
    doc = G.gene_value_study(
        base, ["Division Rate", "Speed"], tmp_path / "gv", 2, design="forced", references=()
    )
    rows = doc["genes"]
    assert [r["estimate"] for r in rows] == sorted((r["estimate"] for r in rows), reverse=True)
    for r in rows:
        assert r["ci_low"] <= r["estimate"] <= r["ci_high"]
        assert r["p_holm"] >= r["p_value"]
        assert r["bought_with"] >= r["bought_without"] == 0.0
    text = (tmp_path / "gv" / G.REPORT).read_text()
    assert "Holm" in text and "cost of a forced purchase" in text
    again = G.gene_value_study(
        base, ["Division Rate", "Speed"], tmp_path / "gv", 2, design="forced", references=()
    )  # resumes: nothing to play
    assert again["genes"] == rows


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--params", "nonsense"], "unknown parameter"),
        (["--params", "gene_value.Telepathy"], "unknown gene"),
        (["--budget", "1000"], "too small"),
        (["--strategy", "no-such-preset"], "unknown preset"),
        (["--against", "greedy,greedy"], "--against"),
        (["--games-per-candidate", "25"], "rotate"),
        (["--self-play", "--against", "greedy"], "not both"),
        (["--gene-value", "--genes", "Telepathy"], "unknown gene"),
        (["--gene-value", "--budget", "100000"], "shared by 82 arms"),  # 20 genes, their plain cards, null
        (["--gene-value", "--design", "sometimes"], "--design"),
        (["--sigma", "0"], "--sigma"),  # not the default in disguise (issue 21.1)
        (["--players", "2"], "variant"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, words):
    r = soup("tune", "--out", str(tmp_path / "out"), "-q", *args)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("soup: error:") and words in lines[0]
    assert not (tmp_path / "out").exists()


def test_gene_names_cover_the_default_parameters():
    keys = T.resolve_keys("default", load_rules(), 4, None)
    assert {k.removeprefix(T.GENE_PREFIX) for k in keys if k.startswith(T.GENE_PREFIX)} == set(
        GENE_NAMES[:N_BASE_GENES]
    )  # genes in play only
    assert T.resolve_keys("gene_value.Endurance", load_rules(), 4, None) == ["gene_value.Persistence"]
