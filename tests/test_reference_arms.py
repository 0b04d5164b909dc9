"""Reference arms and the designs that measure a gene (issue 20.1-20.2, docs/verdicts.md).

Number-only genes (declared by their numbers alone), gifts kept for good, the BP gift, and the
gene-value designs: the null gene must read 0 under option value and holding value, a planted
strong gene (a number-only gene that counts 6 cards for K2) clearly positive.
"""

from dataclasses import replace

import numpy as np
import pytest

from sim.errors import UserError
from sim.ursuppe.engine.genes.tentacle import TENTACLE
from sim.ursuppe.experiments import gene_value as G
from sim.ursuppe.experiments import tuning as T
from sim.ursuppe.experiments.reference_genes import (
    NULL_COPIES,
    NULL_GENE,
    NULL_TWIN,
    plain_card_name,
    reference_overrides,
)
from sim.ursuppe.rules.book import GIFT_KEPT, GIFT_ORDINARY, load_rules
from sim.ursuppe.rules.genes import GENE_NAMES, NUMBER_ONLY_GENES
from strategies.ursuppe.params import load_strategy, parameter_table

PLANTED = {"effect": "none", "price": 0, "mp": 0, "copies": 1, "weight": 6}


def test_a_number_only_gene_fills_a_slot_with_its_numbers():
    book = load_rules(overrides={"genes": {"Placebo": {"effect": "none", "price": 3, "mp": 2, "copies": 2}}})
    i = book.gene_index("placebo")
    assert i == NUMBER_ONLY_GENES[0] and book.gene_names[i] == "Placebo"
    rules = book.for_players(4)
    assert (rules.gene_price[i], rules.gene_mp[i], rules.gene_copies[i], rules.gene_weight[i]) == (3, 2, 2, 1)
    assert rules.gene_defect_payment[i] == 2 and rules.gene_lower[i].tolist() == [-1, -1]
    assert rules.n_genes == len(GENE_NAMES)  # the loops reach the slot
    assert all(rules.gene_copies[j] == 0 for j in NUMBER_ONLY_GENES[1:])
    assert load_rules().for_players(4).n_genes == 20  # none declared: the base game's loops


@pytest.mark.parametrize(
    ("genes", "words"),
    [
        ({"Placebo": {"price": 3, "mp": 0, "copies": 1}}, 'a number-only gene marked effect = "none"'),
        ({"Placebo": {"effect": "strong", "price": 3, "mp": 0, "copies": 1}}, "expected one of: none"),
        ({"Placebo": {"effect": "none", "mp": 0, "copies": 1}}, "genes.Placebo.price: missing key"),
        ({"Placebo": {"effect": "none", "price": 3, "mp": 0, "copies": 1, "gives_up": []}}, "unknown key"),
        ({"endurance": {"effect": "none", "price": 3, "mp": 0, "copies": 1}}, "a name of its own"),
        ({f"P{k}": {"effect": "none", "price": 1, "mp": 0, "copies": 1} for k in range(5)}, "at most 4"),
    ],
)
def test_a_bad_number_only_gene_is_one_line(genes, words):
    with pytest.raises(UserError) as e:
        load_rules(overrides={"genes": genes})
    assert words in str(e.value) and "\n" not in str(e.value)


def test_reference_rows_carry_the_studied_genes_numbers():
    book = load_rules()
    layer = reference_overrides("Tentacle", ("null", "plain"), book)
    derived = book.derive(layer)
    rules = derived.for_players(4)
    plain = derived.gene_index(plain_card_name("Tentacle"))
    null = derived.gene_index(NULL_GENE)
    for field in ("gene_price", "gene_mp", "gene_copies", "gene_weight", "gene_defect_payment"):
        assert getattr(rules, field)[plain] == getattr(rules, field)[TENTACLE], field
    assert (
        rules.gene_price[null],
        rules.gene_mp[null],
        rules.gene_weight[null],
        rules.gene_copies[null],
    ) == (
        0,
        0,
        0,
        NULL_COPIES,
    )


def _play(rules, strategies, games=96, seed=3):
    from sim.ursuppe.engine import batch as B

    b = B.new_batch(
        rules, parameter_table(strategies), np.arange(rules.players, dtype=np.int16), seed, np.arange(games)
    )
    B.play(b, seating="rotate", threads=1)
    assert B.first_error(b) is None
    return b


def test_a_kept_gift_is_never_given_up_and_the_bp_gift_is_paid():
    """Tentacle gifted to player 0 with 12 MP (a gene defect in most rounds, E2): kept, it is held
    at the end of every game; as an ordinary card it is returned in some."""
    book = load_rules(overrides={"genes": {"Tentacle": {"mp": 12}}})
    rules = book.for_players(3)
    gift = np.array([TENTACLE, -1], dtype=np.int8)
    s = [load_strategy("greedy")] * 3
    kept = _play(rules._replace(gift=gift, gift_to=0, gift_keep=GIFT_KEPT), s)
    ordinary = _play(rules._replace(gift=gift, gift_to=0, gift_keep=GIFT_ORDINARY), s)
    assert kept.state.genes[:, 0, TENTACLE].all()
    assert not ordinary.state.genes[:, 0, TENTACLE].all()
    from sim.ursuppe.engine import batch as B

    b = B.new_batch(
        rules._replace(gift_to=1, gift_bp=5), parameter_table(s), np.zeros(3, np.int16), 1, np.arange(4)
    )
    B.setup(b, seating="rotate")
    assert (
        b.state.bp[:, 1].tolist() == [rules.start_bp + 5] * 4
        and b.state.bp[:, 0].tolist() == [rules.start_bp] * 4
    )


def holding_base(book=None, games=1200):
    book = book or load_rules()
    fld = T.Field("against", (load_strategy("greedy"),) * 2)
    return T.TuneConfig(T.Setting(book, 3), load_strategy("greedy"), fld, (), 0, eval_games=games)


def tuned_base(budget):
    """A study that tunes greedy (bp_reserve, division_base; 240 games a candidate) with the
    planted gene in the rules, against two greedy players."""
    book = load_rules(overrides={"genes": {"Planted": PLANTED}})
    keys = ("bp_reserve", "division_base")
    return replace(holding_base(book), keys=keys, budget=budget, games_per_candidate=240)


def test_holding_value_reads_the_null_gene_at_0_and_a_planted_gene_clearly_positive(tmp_path):
    book = load_rules(overrides={"genes": {"Planted": PLANTED}})
    doc = G.gene_value_study(holding_base(book), ["Planted", "Intelligence"], tmp_path, 2, design="holding")
    null = doc["null"]
    se = (null["ci_high"] - null["ci_low"]) / 3.92
    assert abs(null["estimate"]) <= 2 * se + 1e-12 and null["ci_high"] - null["ci_low"] < 0.03
    planted = next(r for r in doc["genes"] if r["gene"] == "Planted")
    assert planted["ci_low"] > 0.05 and planted["p_holm"] < 1e-6
    # its plain card is itself (the same numbers, no effect): nothing beyond being a card
    assert abs(planted["beyond_card"]["estimate"]) < 1e-12
    assert {"plain", "bp_gift", "beyond_card"} <= set(planted)
    text = (tmp_path / G.REPORT).read_text()
    assert "null gene" in text and "Plain card" not in text and "BP gift" in text
    again = G.gene_value_study(holding_base(book), ["Planted", "Intelligence"], tmp_path, 2, design="holding")
    assert again["genes"] == doc["genes"]  # resumed from the units: the same numbers


@pytest.mark.slow
def test_option_value_reads_the_null_gene_at_0_and_a_planted_gene_clearly_positive(tmp_path):
    base = tuned_base(budget=4 * 4 * 9 * 240)
    doc = G.gene_value_study(base, ["Planted"], tmp_path, 2, design="option", references=("null",))
    null = doc["null"]
    se = (null["ci_high"] - null["ci_low"]) / 3.92
    assert abs(null["estimate"]) <= 2 * se + 1e-12 and null["ci_high"] - null["ci_low"] < 0.03
    planted = doc["genes"][0]
    # one card, which the field (valuing it at the default 1) buys too: player 0 gets it in some games
    assert planted["ci_low"] > 0.05 and planted["bought_with"] > 0.2 and planted["bought_without"] == 0


def test_the_forced_arm_buys_when_it_can_and_never_saves_for_it():
    from strategies.ursuppe.params import FORCED_GENE_VALUE, GENE_VALUE_HIGH

    assert FORCED_GENE_VALUE > GENE_VALUE_HIGH  # no strategy file can hold it
    base = T.TuneConfig(
        T.Setting(load_rules(), 3),
        load_strategy("greedy"),
        T.Field("against", (load_strategy("greedy"),) * 2),
        ("bp_reserve",),
        10_000,
    )
    forced = G.arm_config(base, G.Unit("gene", "Spores"), "forced", 10_000, "forced")
    never = G.arm_config(base, G.Unit("gene", "Spores"), "never", 10_000, "forced")
    i = T.parameter_key_index("gene_value.Spores")
    assert forced.start_vector()[i] == FORCED_GENE_VALUE and never.start_vector()[i] == 0.0
    option = G.arm_config(base, G.Unit("gene", "Spores"), "forbidden", 10_000, "option")
    allowed = G.arm_config(base, G.Unit("gene", "Spores"), "allowed", 10_000, "option")
    assert option.space().keys == allowed.space().keys  # the same search space
    assert option.start_vector()[i] == 0.0 and allowed.start_vector()[i] == base.start.vector[i]


def test_gene_value_options_are_checked_first():
    base = holding_base()
    with pytest.raises(T.TuningError, match="--design"):
        G.check_study(base, ["Tentacle"], "sometimes", ())
    with pytest.raises(T.TuningError, match="--references"):
        G.check_study(base, ["Tentacle"], "holding", ("nul",))


def test_retuned_holding_reads_the_null_gene_at_0_and_the_planted_gene_positive(tmp_path):
    """Holding value with the holder re-tuned (both arms tuned, the gifted one with the gift): the
    shared arm without a gift is tuned once."""
    base = tuned_base(budget=4 * 2 * 9 * 240)
    doc = G.gene_value_study(base, ["Planted"], tmp_path, 2, design="retuned", references=("null",))
    assert doc["null"]["estimate"] == 0.0 and doc["genes"][0]["ci_low"] > 0.05
    assert sorted(p.name for p in (tmp_path / "arms").iterdir()) == [
        "no-gift",
        "null-gifted",
        "planted-gifted",
    ]
    assert "holder re-tuned" in (tmp_path / G.REPORT).read_text()


def test_an_extra_genes_plain_card_leaves_its_card_in_the_deck(tmp_path):
    """Suction 2 is one card of the face-down extra deck (XM3): its plain card is gifted beside it
    and the games stay whole (I4 holds)."""
    book = load_rules(overrides={"flags": {"extra_genes": True}})
    base = holding_base(book, games=240)
    doc = G.gene_value_study(base, ["Suction 2"], tmp_path, 2, design="holding", references=("plain",))
    assert "plain" in doc["genes"][0]


def test_every_player_values_a_plain_card_as_the_gene():
    base = T.TuneConfig(
        T.Setting(load_rules(), 4),
        load_strategy("breeder"),
        T.Field("mix", (load_strategy("greedy"), load_strategy("predator"))),
        (),
        0,
    )
    unit = G.Unit("plain", "Tentacle")
    cfg = G.unit_players(base, unit)
    _, key = G.unit_setting(base.setting, unit)
    slot = T.parameter_key_index(key)
    tentacle = T.parameter_key_index("gene_value.Tentacle")
    for s in (cfg.start, *cfg.fld.strategies):
        assert s.vector[slot] == s.vector[tentacle]
    assert G.unit_players(base, G.Unit("gene", "Tentacle")) is base


def test_the_null_gene_changes_the_games_and_still_reads_0(tmp_path):
    """Issue 32.3: a reference that cannot differ checks nothing. The null gene is gifted and kept
    (holding value) and sold beside its twin, both valued as a number-only gene (1): a player
    that may buy both draws the tie (random_ties), so the games differ from the games without
    it; its answer is still 0 (a free card that does nothing)."""
    from strategies.ursuppe import DEFAULT_POOL

    fld = T.Field("mix", tuple(load_strategy(n) for n in DEFAULT_POOL))
    base = T.TuneConfig(T.Setting(load_rules(), 3), load_strategy("breeder"), fld, (), 0, eval_games=600)
    m = G.measure_unit("holding", base, G.Unit("null", "Intelligence"), tmp_path, 0, 2)
    differ = int((m["won_with"] != m["won_without"]).sum())
    assert differ > 30  # the games are not the same games
    c = G._contrast(m["won_with"], m["won_without"])
    assert c["ci_low"] <= 0 <= c["ci_high"] and c["ci_high"] - c["ci_low"] > 0


def test_the_null_gene_and_its_twin_are_free_cards_every_player_may_hold():
    book = load_rules()
    derived = book.derive(reference_overrides("Tentacle", ("null",), book))
    rules = derived.for_players(4)
    for name in (NULL_GENE, NULL_TWIN):
        i = derived.gene_index(name)
        assert (rules.gene_price[i], rules.gene_mp[i], rules.gene_weight[i]) == (0, 0, 0)
        assert rules.gene_copies[i] >= 4
