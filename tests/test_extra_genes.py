"""The 26 extra genes (docs/rules.md §18): their data, flags, market, 64-bit gene sets, and the
fuzz test with the extra genes on (every flag on and off, 3 to 6 players, invariants after every
phase). The genes' effects are tested by their scenario files (tests/scenarios/XG-*.json)."""

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from analysis.ursuppe.genes import BASE_GENE_NAMES, run_gene_names
from sim.errors import UserError
from sim.ursuppe.engine import batch as B
from sim.ursuppe.engine.gene_sets import high_word, join_words, low_word
from sim.ursuppe.engine.tally import EXTRA_TALLY_NAMES, TALLY_NAMES
from sim.ursuppe.rules.book import RulesError, load_rules
from sim.ursuppe.rules.extra_flags import EXTRA_FLAGS, XFLAG_INDEX, encode
from sim.ursuppe.rules.genes import (
    ADVANCED_GENES,
    EXTRA_GENES,
    GENE_INDEX,
    GENE_NAMES,
    N_BASE_GENES,
    N_EXTRA_END,
    xg_id,
)
from sim.ursuppe.simulation import UrsuppeRun
from sim.ursuppe.tools.trace import events_as_dicts
from strategies.ursuppe.params import load_strategy, parameter_table
from tests import processes
from tests.fuzzing import fail_on_error

# Spec §1 (price, MP, gives up) of every extra gene, as the rules file must hold it.
TABLE = {
    "Doris & Frank Gene": (2, 3, None),
    "Glutton": (3, -2, None),
    "Alarm": (3, 3, None),
    "Cleanliness": (3, 3, None),
    "Hard Crust": (3, 3, None),
    "Migration Sensing": (3, 3, None),
    "Fast Food": (3, 4, None),
    "Highly Adaptable": (4, 3, None),
    "More Than a Mouthful": (4, 3, None),
    "Social Gene": (4, 3, None),
    "Camouflage 1": (4, 4, None),
    "Suction 1": (4, 4, None),
    "Thread Display": (4, 4, None),
    "Flexible": (5, 4, None),
    "Healing 1": (5, 4, None),
    "Rebound": (5, 4, None),
    "Go Out With a Bang": (5, 5, None),
    "Short Life Span": (5, 5, None),
    "Toxic Excretions": (5, 5, None),
    "Population Explosion": (6, 5, None),
    "Energy Conservation": (6, 6, None),
    "PhD": (3, 4, "Intelligence"),
    "Environmental Sensing": (4, 3, "Migration Sensing"),
    "Camouflage 2": (5, 4, "Camouflage 1"),
    "Healing 2": (5, 5, "Healing 1"),
    "Suction 2": (6, 6, "Suction 1"),
}
EXTRA = {"flags": {"extra_genes": True}}


def test_XG_table_is_the_rules_data():
    """§1: the 26 extra genes, one card each with 3-6 players, in XG-01..XG-26 order, advanced
    ones giving up their lower gene and counting 2 cards (K2); Short Life Span pays 4 when
    returned (XG-18), Glutton 0 (PLACEHOLDER glutton_return_value, XG-02)."""
    assert [GENE_NAMES[g] for g in EXTRA_GENES] == list(TABLE)
    assert [xg_id(g) for g in EXTRA_GENES] == [f"XG-{i:02d}" for i in range(1, 27)]
    book = load_rules(overrides=EXTRA)
    for players in (3, 4, 5, 6):
        ru = book.for_players(players)
        for name, (price, mp, lower) in TABLE.items():
            g = GENE_INDEX[name]
            assert (ru.gene_price[g], ru.gene_mp[g], ru.gene_copies[g]) == (price, mp, 1), name
            assert ru.gene_lower[g, 0] == (-1 if lower is None else GENE_INDEX[lower]), name
            assert ru.gene_weight[g] == (2 if g in ADVANCED_GENES else 1), name
    ru = book.for_players(4)
    assert ru.gene_defect_payment[GENE_INDEX["Short Life Span"]] == 4
    assert ru.gene_defect_payment[GENE_INDEX["Glutton"]] == 0
    assert ru.n_genes == 46 and ru.extra_genes


def test_XM1_module_is_off_by_default_and_leaves_the_base_game_alone():
    """XM1: without the module the extra genes have no copies and the kernels' gene loops stop at
    the 20 base genes; 2-player variants refuse it in one line."""
    ru = load_rules().for_players(4)
    assert not ru.extra_genes and ru.n_genes == N_BASE_GENES
    assert all(ru.gene_copies[g] == 0 for g in EXTRA_GENES)
    with pytest.raises(RulesError, match="flags.extra_genes: the extra genes are played with 3-6 players"):
        load_rules(overrides=EXTRA).for_players(2, "double2")


def test_XM2_XM3_XM8_start_pair_deck_and_exclusions():
    book = load_rules(
        overrides={
            "flags": {
                "extra_genes": True,
                "extra_excluded": ["Glutton"],
                "extra_start_pair": ["Alarm", "PhD"],
            }
        }
    )
    ru = book.for_players(5)
    assert [GENE_NAMES[g] for g in ru.extra_start] == ["Alarm", "PhD"]
    assert len(ru.extra_deck) == 23 and GENE_INDEX["Glutton"] not in ru.extra_deck
    assert ru.gene_copies[GENE_INDEX["Glutton"]] == 0
    with pytest.raises(RulesError, match="extra_start_pair: expected no excluded gene"):
        load_rules(overrides={"flags": {"extra_start_pair": ["Alarm"], "extra_excluded": ["Alarm"]}})
    with pytest.raises(RulesError, match=r"extra_excluded\[0\]: expected the name of an extra gene"):
        load_rules(overrides={"flags": {"extra_excluded": ["Speed"]}})
    # the spec's spellings and aliases
    alias = load_rules(
        overrides={"flags": {"extra_genes": True, "extra_start_pair": ["Threat Display", "PhD Intelligence"]}}
    )
    assert [GENE_NAMES[g] for g in alias.for_players(4).extra_start] == ["Thread Display", "PhD"]


@pytest.mark.parametrize("flag", EXTRA_FLAGS, ids=[f.name for f in EXTRA_FLAGS])
def test_every_extra_flag_loads_every_value_and_rejects_a_bad_one(flag):
    """§6: each flag is declared once (extra_flags.py); the default rules hold its default, every
    alternative loads and reaches the kernels' xflag table, and a wrong value is one line."""
    book = load_rules()
    assert book.data["flags"][flag.name] == (
        list(flag.default) if isinstance(flag.default, tuple) else flag.default
    )
    if isinstance(flag.default, bool):
        values = [True, False]
    elif isinstance(flag.default, int):
        values = [flag.lo, flag.hi]
    elif isinstance(flag.default, tuple):
        values = [[], list(flag.choices[:1])]
    else:
        values = list(flag.choices)
    for value in values:
        ru = load_rules(overrides={"flags": {"extra_genes": True, flag.name: value}}).for_players(4)
        assert ru.xflag[XFLAG_INDEX[flag.name]] == encode(flag, value)
    with pytest.raises(RulesError, match=f"flags.{flag.name}: expected"):
        load_rules(overrides={"flags": {flag.name: "no such value" if not flag.choices else 7}})


def test_placeholders_of_the_extra_genes_are_named_only_when_they_are_in_play():
    assert not [p for p in load_rules().placeholders(4) if "Glutton" in p or "social" in p]
    names = load_rules(overrides=EXTRA).placeholders(4)
    for expected in (
        "genes.Glutton.defect_payment",
        "flags.hard_crust_death_cubes",
        "flags.social_gene_timing",
        "flags.social_gene_steal_payment_to",
        "flags.sls_with_division_rate",
        "flags.healing2_phase",
    ):
        assert expected in names
    other = load_rules(
        overrides={"flags": {"extra_genes": True, "social_gene_timing": "at_owner_turn_after_advance"}}
    )
    assert "flags.social_gene_timing" not in other.placeholders(4)


def test_gene_sets_are_64_bit_words_round_trip():
    """Issue 14.1: a gene set holds all 46 genes in the state (int64) and in int32 rows as two
    31-bit words."""
    for mask in (0, 1, (1 << 46) - 1, 1 << 45, (1 << 31) | 1, 0b101 << 29):
        lo, hi = low_word(mask), high_word(mask)
        assert 0 <= lo < 2**31 and 0 <= hi < 2**31
        assert join_words(lo, hi) == mask


def test_run_gene_names_reads_old_and_new_manifests():
    assert run_gene_names([{"spec": {}}]) == BASE_GENE_NAMES  # written before the extra genes
    assert run_gene_names([{"spec": {}}, {"spec": {"gene_names": list(GENE_NAMES)}}]) == GENE_NAMES
    # a run names its own bits (issue 22.4: read from the manifest, not this version's table)
    assert run_gene_names([{"spec": {"gene_names": ["Speed", "Intelligence"]}}]) == ("Speed", "Intelligence")
    with pytest.raises(UserError, match="gene_names"):  # two runs whose bits mean other genes
        other = {"spec": {"gene_names": ["Speed"]}, "directory": "old"}
        run_gene_names([{"spec": {"gene_names": list(GENE_NAMES)}}, other])


def _run(players=4, seed=11, flags=None, strategies=("random",)):
    book = load_rules(overrides={"flags": {"extra_genes": True, **(flags or {})}})
    return UrsuppeRun(book, players, seed, [load_strategy(s) for s in strategies], pool=[0])


def test_results_hold_extra_genes_in_int64_masks_and_first_bought(tmp_path):
    """Issue 14.1 end to end: rows of a run with extra genes carry bits above 31 and 46
    first_bought entries; the manifest's spec names the 46 genes."""
    run = _run()
    table = run.chunk_rows(run.play_games(0, 300, threads=2))
    pq.write_table(table, tmp_path / "rows.parquet")
    back = pq.read_table(tmp_path / "rows.parquet")
    bought = back.column("genes_bought").to_numpy()
    assert back.schema.field("genes_bought").type == "int64"
    assert (bought >> 31).any(), "no gene above bit 31 bought in 300 games"
    assert {len(x) for x in back.column("first_bought").to_pylist()} == {46}
    assert run.spec()["gene_names"] == list(GENE_NAMES[:N_EXTRA_END])
    json.dumps(run.spec())  # the manifest stays JSON


def test_extra_genes_keep_the_seating_and_environment_deck_of_the_base_game():
    """XM3/XR3: the extra deck is shuffled after the environment deck, from the same stream, so a
    game's seats and environment cards are those of the game without the module (common random
    numbers for comparisons with and without the expansion)."""
    base = UrsuppeRun(load_rules(), 4, 5, [load_strategy("greedy")], pool=[0]).play_games(0, 50, 1)
    extra = _run(seed=5, strategies=("greedy",)).play_games(0, 50, 1)
    assert (base.state.seat == extra.state.seat).all()
    assert (base.state.card_index == extra.state.card_index).all()


def test_extra_gene_games_are_the_same_on_1_and_2_threads_and_any_block_count():
    run = _run(players=5, seed=3)
    one = run.chunk_rows(run.play_games(0, 200, threads=1))
    run.n_blocks = 7
    two = run.chunk_rows(run.play_games(0, 200, threads=2))
    assert one.equals(two)


# --- fuzz: every flag on and off, 3 to 6 players, invariants after every phase ------------------


def _other_value(flag):
    if isinstance(flag.default, bool):
        return not flag.default
    if isinstance(flag.default, int):
        return flag.default + 1 if flag.default + 1 <= flag.hi else flag.lo
    if isinstance(flag.default, tuple):
        return list(flag.choices[:1])
    return next(c for c in flag.choices if c != flag.default)


FLAG_SETS = {"defaults": {}, **{f"{f.name}": {f.name: _other_value(f)} for f in EXTRA_FLAGS}}
FLAG_SETS |= {  # a string flag's readings beyond the first alternative, each in a run of its own
    f"{f.name}={c}": {f.name: c}
    for f in EXTRA_FLAGS
    if isinstance(f.default, str)
    for c in f.choices
    if c not in (f.default, _other_value(f))
}
FLAG_SETS["every other reading"] = {f.name: _other_value(f) for f in EXTRA_FLAGS}
FLAG_SETS["no extra deck"] = {"extra_reveal_per_round": 0}


def _play(players, flags, games, seed, rich=False):
    overrides = {"flags": {"extra_genes": True, **flags}}
    if rich:
        overrides |= {"economy": {"income": 30}, "components": {"start_bp": 20}}
    ru = load_rules(overrides=overrides).for_players(players)
    params = parameter_table([load_strategy("random")])
    b = B.new_batch(ru, params, np.zeros(players), seed, np.arange(games), check_invariants=True)
    B.play(b, threads=2)
    fail_on_error(b)
    assert b.state.finished.all()
    assert (b.state.toxic >= 0).all(), "a space holds a negative number of Toxic Excretions tokens"
    return b


@pytest.mark.parametrize("flags", list(FLAG_SETS), ids=list(FLAG_SETS))
def test_random_games_with_every_extra_flag_keep_every_invariant(flags):
    players = 3 + sum(map(ord, flags)) % 4  # each flag set at one of 3..6 players, spread evenly
    _play(players, FLAG_SETS[flags], 150, 2026)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_random_buys_every_extra_gene_and_takes_every_new_decision(players):
    """Issue 14.5: over 2,500 random games of a rich economy (income 30, start 20 BP) every extra
    gene is bought and every decision and outcome of §18 happens, invariants on."""
    b = _play(players, {}, 2500, 77 + players, rich=True)
    bought = int(np.bitwise_or.reduce(b.state.genes_bought.ravel()))
    never_bought = [GENE_NAMES[g] for g in EXTRA_GENES if not bought >> g & 1]
    assert not never_bought, f"never bought: {never_bought}"
    totals = b.workspace.tally.sum(axis=0)
    never = sorted(n for i, n in enumerate(TALLY_NAMES) if n in EXTRA_TALLY_NAMES and totals[i] == 0)
    never = [n for n in never if n != "market:discard"]  # flag extra_unbought_discarded only (below)
    assert not never, f"never happened in 2,500 random games with {players} players: {never}"


def test_discard_happens_with_its_flag():
    b = _play(4, {"extra_unbought_discarded": True}, 300, 5)
    assert b.workspace.tally[:, TALLY_NAMES.index("market:discard")].sum() > 0


# --- issue 14.7: the report of a run with extra genes ---------------------------------------------


def _soup(*args):
    import sys

    return processes.run([sys.executable, "-m", "sim.cli.app", *args])


def test_report_of_an_extra_gene_run_shows_the_market_the_flags_and_every_extra_gene(tmp_path):
    rules = tmp_path / "extra.toml"
    rules.write_text("[flags]\nextra_genes = true\nextra_reveal_per_round = 4\n")
    out = tmp_path / "run"
    r = _soup("simulate", "--players", "4", "--games", "3000", "--rules", str(rules), "--out", str(out), "-q")
    assert r.returncode == 0, r.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["spec"]["gene_names"] == list(GENE_NAMES[:N_EXTRA_END])
    assert "flags.social_gene_timing" in manifest["spec"]["placeholders"]
    r = _soup("report", str(out), "--out", str(tmp_path / "rep"))
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "Extra genes (docs/rules.md §18): on. Start pair Social Gene + Population Explosion" in md
    assert "4 revealed a round after the first Phase-3 player" in md
    assert "`extra_reveal_per_round = 4`" in md
    assert "`flags.social_gene_timing`" in md and "§18 (extra genes)" in md
    bought = [g for g in GENE_NAMES[N_BASE_GENES:] if f"| {g} |" in md]
    assert len(bought) == 26, (
        f"extra genes missing from the gene tables: {set(GENE_NAMES[N_BASE_GENES:]) - set(bought)}"
    )


# --- issue 31: the reveal after the first player waits for its Highly Adaptable exchanges --------


ISSUE_31_SEATS = [
    ("random", "geneticist", "geneticist"),
    ("mutant", "mutant", "predator", "predator", "mutant"),
]


@pytest.mark.parametrize("strategies", ISSUE_31_SEATS, ids=["3p", "5p"])
def test_XM4_reveal_comes_after_the_first_players_whole_turn_exchanges_included(strategies):
    """XM4 ("the second player is the first who can buy a new extra gene") with XG-08: Highly
    Adaptable's exchanges are part of the owner's Phase-3 turn, so no player acts in a Phase 3
    both before and after the round's reveal (issue 31: the first player bought, the cards were
    revealed, then it exchanged into one). The games of the issue's seats, where first players
    that bought and exchanged occur (counted, so the check cannot pass unexercised)."""
    names = sorted(set(strategies))
    params = parameter_table([load_strategy(n) for n in names])
    ru = load_rules(overrides=EXTRA).for_players(len(strategies))
    seats = np.array([names.index(s) for s in strategies])
    b = B.new_batch(ru, params, seats, 31, np.arange(300), log_events=True)
    B.play(b, threads=2)
    fail_on_error(b)
    wk = b.workspace
    exercised = 0
    for g in range(300):
        by_round: dict[int, list[dict]] = {}
        for e in events_as_dicts(wk.events[g, : wk.n_events[g]], ru.players):
            if e["phase"] == 3 and e["type"] in ("buy", "take", "exchange", "reveal"):
                by_round.setdefault(e["round"], []).append(e)
        for events in by_round.values():
            kinds = [e["type"] for e in events]
            if "reveal" not in kinds:
                continue
            cut = kinds.index("reveal")
            before = {e["player"] for e in events[:cut]}
            after = {e["player"] for e in events[cut:] if e["type"] != "reveal"}
            assert len(before) <= 1 and not before & after, (g, events)
            exercised += "exchange" in kinds[:cut] and kinds[0] != "exchange"
    assert exercised > 0, "no first player bought and exchanged before a reveal"
