"""A gene in one place (issues 22 and 35.3, docs/adding-a-gene.md): a gene module of
sim/ursuppe/engine/genes/ declares the gene's rows, and the central tables are built from them
(through the generated sim/ursuppe/rules/gene_tables.py) in the order of the append-only index
ledger (sim/ursuppe/rules/ledger.toml), both current; the central modules name no gene and unpack
no rows by position; the names of Rebound (a gene with a decision point), Toxic Excretions (one
without) and the base genes moved into modules appear nowhere else but at their call sites, and
every row keeps its historic index. Gene sets hold every gene: more than 64 is a clear error."""

import ast
import functools
import importlib
import importlib.util
import re
import types
from pathlib import Path

import pytest

import sim.ursuppe.rules as rules_package
from sim.ursuppe.engine import decision_kinds, events, tally
from sim.ursuppe.engine.genes import gene_modules, indices, rebound, toxic_excretions
from sim.ursuppe.rules import extra_flags, gene_tables, genes, ledger
from sim.ursuppe.rules.gene_rows import Decision, Gene, Knob, two_way
from sim.ursuppe.tools import gene_tables as generator
from sim.ursuppe.tools import scenario
from strategies.ursuppe.params import GENE_VALUE_BASE
from tests import processes

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "sim" / "ursuppe" / "rules" / "gene_tables.py"
LEDGER = ROOT / "sim" / "ursuppe" / "rules" / "ledger.toml"


def test_gene_tables_module_and_ledger_are_current():
    rows, lines = generator.current()
    assert GENERATED.read_text(encoding="utf-8") == rows, (
        "sim/ursuppe/rules/gene_tables.py is stale: run `python -m sim.ursuppe.tools.gene_tables`"
    )
    assert LEDGER.read_text(encoding="utf-8") == lines, (
        "sim/ursuppe/rules/ledger.toml is stale: run `python -m sim.ursuppe.tools.gene_tables`"
    )


def test_every_module_of_the_package_is_registered_in_order():
    names = [f"{generator.PACKAGE}.{m}" for m in ledger.LEDGER["modules"]]
    assert [m.__name__ for m in gene_modules()] == generator.module_names() == names


def test_the_tables_hold_rebounds_rows_at_the_indices_its_module_names():
    g = rebound.GENE
    (d,) = g.decisions
    kind = decision_kinds.DECISION_KINDS[rebound.REBOUND_CHOICE]
    assert (kind.name, kind.rule, kind.width, kind.row) == (d.name, d.rule, d.width, d.row)
    assert decision_kinds.CHOICE_KEYS[kind.choice_key] == d.choice_key
    assert events.EVENT_KINDS[rebound.EV_REBOUND] == events.EventKind(*g.events[0])
    assert tally.OUTCOMES[rebound.REBOUND_MADE - tally.N_KINDS] == g.tallies[0]
    assert extra_flags.EXTRA_FLAGS[rebound.XF_REBOUND_APPLIES_TO] == g.flags[0]
    assert genes.GENE_NAMES[rebound.REBOUND] == g.name
    # the indices results, tallies and tapes have always had
    assert (rebound.REBOUND, rebound.REBOUND_CHOICE, rebound.EV_REBOUND) == (35, 17, 35)
    assert (rebound.XF_REBOUND_APPLIES_TO, tally.TALLY_NAMES[rebound.REBOUND_MADE]) == (25, "rebound:made")


def test_the_scenario_choice_is_parsed_and_rendered_by_the_modules_row():
    parse = scenario._EXTRA_CHOICES["rebound"]
    assert parse("x", "choices[0].rebound", "rebound", [0] * 8, 4) == (
        decision_kinds.CHOICE_KEYS.index("rebound"),
        [1] + [0] * 7,
    )
    with pytest.raises(scenario.ScenarioError, match='expected "stay" or "rebound", got "jump"'):
        parse("x", "choices[0].rebound", "jump", [0] * 8, 4)
    row = __import__("numpy").array([0, 3, 1, 0, 0, 0, 0, 0])
    assert scenario._option_as_choice(rebound.REBOUND_CHOICE, row, 4) == {"rebound": False}


def test_the_tables_hold_toxic_excretions_rows_at_the_indices_its_module_names():
    """A gene without a decision point: flags, events and tallies only."""
    m, g = toxic_excretions, toxic_excretions.GENE
    assert g.decisions == ()
    flags = (
        m.XF_TOXIC_PICKUP_ON_SPEED_INTERMEDIATE,
        m.XF_TOXIC_PICKUP_BY_PLACEMENT,
        m.XF_TOXIC_ZERO_CUBE_EXCRETION,
        m.XF_TOXIC_INCLUDES_ATTACK_CUBES,
        m.XF_TOXIC_TOKEN_FOLLOWS_CUBES,
    )
    assert tuple(extra_flags.EXTRA_FLAGS[i] for i in flags) == g.flags
    assert tuple(events.EVENT_KINDS[i] for i in (m.EV_TOXIC_TOKEN, m.EV_TOXIC_PICKUP)) == tuple(
        events.EventKind(*row) for row in g.events
    )
    assert tuple(tally.OUTCOMES[i - tally.N_KINDS] for i in (m.TOXIC_TOKEN, m.TOXIC_PICKUP)) == g.tallies
    assert genes.GENE_NAMES[m.TOXIC] == g.name
    # the indices results, tallies, rules files and tapes have always had
    assert m.TOXIC == 38 and flags == (29, 30, 31, 32, 33)
    assert (m.EV_TOXIC_TOKEN, m.EV_TOXIC_PICKUP) == (28, 29)
    names = (tally.TALLY_NAMES[m.TOXIC_TOKEN], tally.TALLY_NAMES[m.TOXIC_PICKUP])
    assert names == ("toxic:token", "toxic:pickup")
    assert (m.TOXIC_TOKEN, m.TOXIC_PICKUP) == (tally.N_KINDS + 36, tally.N_KINDS + 37)  # (58, 59)


# A look-up in a central table by a string or the gene's name (what genes.indices says once)
_LOOKUP = re.compile(r"\b(?:GENE|XFLAG|KIND|EVENT|TALLY)_INDEX\[([^\]]+)\]")


@pytest.mark.parametrize("name", ledger.LEDGER["modules"])
def test_a_gene_modules_constants_are_its_rows_indices_in_the_order_of_its_row(name):
    """Issue 35.5: genes.indices(GENE) is where each row of the module sits in the central tables,
    in the row's order (gene, flags, decision kinds, events, tallies), and the module looks none of
    its row's names up itself: the row is the one place that spells them."""
    module = importlib.import_module(f"{generator.PACKAGE}.{name}")
    g = module.GENE
    at = iter(indices(g))
    assert genes.GENE_NAMES[next(at)] == g.name
    assert [extra_flags.EXTRA_FLAGS[next(at)] for _ in g.flags] == list(g.flags)
    assert [decision_kinds.KIND_NAMES[next(at)] for _ in g.decisions] == [d.name for d in g.decisions]
    assert [events.EVENT_KINDS[next(at)] for _ in g.events] == [events.EventKind(*e) for e in g.events]
    assert [tally.OUTCOMES[next(at) - tally.N_KINDS] for _ in g.tallies] == list(g.tallies)
    assert next(at, None) is None  # no knobs: the brand-new gene's test reads one
    own = {"GENE.name", *(f'"{row[0]}"' for row in (*g.flags, *g.decisions, *g.events, *g.tallies))}
    assert set(_LOOKUP.findall(_code(Path(module.__file__)))) & own == set()


# The base genes' modules (docs/rules.md §7-§8) and the indices their rows have always had: the
# decision kinds and choice keys, events, and outcome tallies (offsets in tally.OUTCOMES).
_BASE_ROWS = {
    "speed": ({"second_move": 3}, {}, {}),
    "tentacle": ({"carry": 4}, {"carry": 6}, {"tentacle:carried": 13}),
    "holding": ({"cling": 5}, {"cling": 7}, {"holding:clung": 12}),
    "parasitism": ({}, {}, {"parasitism:meal": 11}),
    "escape": ({}, {}, {"escape:stayed": 4}),
    "defense": ({}, {"fight": 13}, {"fight:defender_won": 5, "fight:defender_lost": 6}),
    "persistence": ({}, {}, {"persistence:refight": 7, "persistence:retry": 8}),
    "armor": ({}, {}, {"armor:dp": 9}),
    "aggression": ({"aggress": 13}, {"damage": 16}, {"aggression:lost_defense_dp": 10}),
}


@pytest.mark.parametrize("module", sorted(_BASE_ROWS))
def test_a_base_genes_rows_keep_their_historic_indices(module):
    gene = importlib.import_module(f"sim.ursuppe.engine.genes.{module}").GENE
    kinds, event_rows, tallies = _BASE_ROWS[module]
    assert {d.name for d in gene.decisions} == set(kinds)
    for d in gene.decisions:
        kind = decision_kinds.DECISION_KINDS[kinds[d.name]]
        assert (kind.name, kind.rule, kind.width, kind.row) == (d.name, d.rule, d.width, d.row)
        assert decision_kinds.CHOICE_KEYS.index(d.choice_key) == kind.choice_key == kinds[d.name]
    assert {name: events.EVENT_INDEX[name] for name, _ in gene.events} == event_rows
    assert all(events.EVENT_KINDS[event_rows[n]] == events.EventKind(n, f) for n, f in gene.events)
    assert {name: tally.TALLY_INDEX[name] - tally.N_KINDS for name, _ in gene.tallies} == tallies
    assert all(tally.OUTCOMES[tallies[n]] == (n, what) for n, what in gene.tallies)
    assert gene.flags == ()  # the base genes' flags are the rules book's (sim/ursuppe/rules/schema.py)


# Where a gene module's gene may be named: its module, the generated tables, and the call sites of
# its hooks (the names they import). The state field ``State.toxic`` and the scenario's position
# key "toxic" are shared formats, not the gene's rows.
_ALLOWED = {
    "Spores": {
        "sim/ursuppe/engine/genes/spores.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/phases/phase4_division.py": {"spores_anywhere", "genes.spores"},
    },
    "Substitution": {
        "sim/ursuppe/engine/genes/substitution.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/feeding.py": {"substitution_shape_bit", "genes.substitution"},
        # the rules data: the shape sets' sizes named in a rules error, and the base flag
        # substitution_3_1's gene (the rules book's flags stay central)
        "sim/ursuppe/rules/validation.py": {'"Substitution"'},
        "sim/ursuppe/experiments/readings.py": {'"Substitution"'},
    },
    "Frugality": {
        "sim/ursuppe/engine/genes/frugality.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/feeding.py": {"frugality_shape_bit", "genes.frugality"},
        # the rules data: the shape sets' sizes named in a rules error, and the base flag
        # gene_meals_optional's genes (the rules book's flags stay central)
        "sim/ursuppe/rules/validation.py": {'"Frugality"'},
        "sim/ursuppe/experiments/readings.py": {'"Frugality"'},
    },
    "Streamlining": {
        "sim/ursuppe/engine/genes/streamlining.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        # its hook active_move_cost, the price of every active move and escape
        "sim/ursuppe/engine/movement.py": {"genes.streamlining"},
        "sim/ursuppe/engine/attacks.py": {"genes.streamlining"},
        "strategies/ursuppe/policy.py": {"genes.streamlining"},
    },
    "Life Expectancy": {
        "sim/ursuppe/engine/genes/life_expectancy.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        # its hook is the base of death_threshold (XG-18's lower threshold stays there)
        "sim/ursuppe/engine/players.py": {"life_expectancy_threshold", "genes.life_expectancy"},
        # the rules data: the dummy variant's copies (TD4: the dummy holds one innately)
        "sim/ursuppe/rules/book.py": {'"Life Expectancy"'},
    },
    "Division Rate": {
        "sim/ursuppe/engine/genes/short_life_span.py": {"division_rate_cost", "genes.division_rate"},
        "sim/ursuppe/engine/genes/division_rate.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        # its hook picks the price in division_cost (XG-18's prices stay there)
        "sim/ursuppe/engine/players.py": {"division_rate_cost", "genes.division_rate"},
    },
    "Speed": {
        "sim/ursuppe/engine/genes/speed.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        # its hooks; '"second_move"' is also the active_move event's "how" (MOVE_HOW, shared)
        "sim/ursuppe/engine/movement.py": {"speed_ability", "second_move", '"second_move"', "genes.speed"},
        # the base flag clinging_after_first_step's genes (the rules book's flags stay central)
        "sim/ursuppe/experiments/readings.py": {'"Speed"'},
        # the strategy parameter second_move_threshold names the decision it steers (the
        # parameter schema is the strategies', shared by every decision)
        "strategies/ursuppe/params.py": {"second_move"},
    },
    "Tentacle": {
        "sim/ursuppe/engine/genes/tentacle.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/movement.py": {"tentacle_carry", "genes.tentacle"},
        # shared formats: the scratch row's slot of the cube vector being enumerated, and the
        # trace's rendering of an event's packed cube vector
        "sim/ursuppe/engine/scratch.py": {'"carry"'},
        "sim/ursuppe/tools/trace.py": {'"carry"'},
    },
    "Holding": {
        "sim/ursuppe/engine/genes/holding.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/movement.py": {
            "offer_clinging",
            "cling_after_first_step",
            "arrive_riders",
            "genes.holding",
        },
        "sim/ursuppe/engine/phases/phase1_movement_feeding.py": {"holding_may_stay", "genes.holding"},
        # A3's attack result attack:clung is the attacks' outcome (counted by attacks.py); the
        # trace renders the event log; the base flags' genes (the rules book's flags stay central)
        "sim/ursuppe/engine/tally.py": {'"Holding"'},
        "sim/ursuppe/tools/trace.py": {'"cling"'},
        "sim/ursuppe/experiments/readings.py": {'"Holding"'},
    },
    "Parasitism": {
        "sim/ursuppe/engine/genes/parasitism.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/feeding.py": {
            "parasitism_feeds",
            "may_parasitize",
            "parasite_pays",
            "genes.parasitism",
        },
        # the strategies' hunter test (policy.is_hunter) reads who holds it for shared decisions
        "strategies/ursuppe/policy.py": {"PARASITISM", "genes.parasitism"},
        # the base flag gene_meals_optional's genes (the rules book's flags stay central)
        "sim/ursuppe/experiments/readings.py": {'"Parasitism"'},
    },
    "Struggle for Survival": {
        "sim/ursuppe/engine/genes/more_than_a_mouthful.py": {"holds_struggle", "genes.struggle_for_survival"},
        "sim/ursuppe/engine/genes/struggle_for_survival.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/phases/phase1_movement_feeding.py": {
            "holds_struggle",
            "struggle_ability",
            "genes.struggle_for_survival",
        },
        # the strategies' hunter test and Mouthful's target value read who holds it (shared decisions)
        "strategies/ursuppe/policy.py": {"STRUGGLE", "genes.struggle_for_survival"},
        # the base flag attack_only_when_starving's gene (the rules book's flags stay central)
        "sim/ursuppe/experiments/readings.py": {'"Struggle for Survival"'},
    },
    "Movement I": {
        "sim/ursuppe/engine/genes/movement_i.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/movement.py": {"movement_i_die", "genes.movement_i"},
        # the strategies value an active move (the shared M1 decision) by the dice it rolls
        "strategies/ursuppe/policy.py": {"MOVEMENT_I", "genes.movement_i"},
    },
    "Movement II": {
        "sim/ursuppe/engine/genes/movement_ii.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/movement.py": {"movement_ii_directions", "genes.movement_ii"},
        # the strategies value an active move (the shared M1 decision) by its best destination
        "strategies/ursuppe/policy.py": {"MOVEMENT_II", "genes.movement_ii"},
    },
    "Escape": {
        "sim/ursuppe/engine/genes/alarm.py": {"holds_escape", "genes.escape"},
        "sim/ursuppe/engine/genes/escape.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/attacks.py": {"holds_escape", "escape(", "genes.escape"},
        "sim/ursuppe/engine/phases/phase1_movement_feeding.py": {"holds_escape", "genes.escape"},
        # the strategies' answer test (policy._can_answer) reads who holds it (shared decisions),
        # by index: this module imports the movement, which sits above the policy
        "strategies/ursuppe/policy.py": {"ESCAPE", '"Escape"'},
        # the base flags' genes (the rules book's flags stay central)
        "sim/ursuppe/experiments/readings.py": {'"Escape"'},
    },
    "Defense": {
        "sim/ursuppe/engine/genes/defense.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/attacks.py": {"may_defend", "defend(", "genes.defense"},
        # the strategies' answer test (policy._can_answer) reads who holds it (shared decisions)
        "strategies/ursuppe/policy.py": {"DEFENSE", "genes.defense"},
        # the trace renders the event log; the base flags' genes (the rules book's flags)
        "sim/ursuppe/tools/trace.py": {'"fight"'},
        "sim/ursuppe/experiments/readings.py": {'"Defense"'},
    },
    "Persistence": {
        "sim/ursuppe/engine/genes/persistence.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/attacks.py": {"persistence_retried", "genes.persistence"},
        "sim/ursuppe/engine/phases/phase1_movement_feeding.py": {"persistence_retries", "genes.persistence"},
        "sim/ursuppe/engine/genes/aggression.py": {"persistence_retries", "genes.persistence"},
        # its sibling modules: Defense's second fight, Speed's ability (Persistence includes it)
        "sim/ursuppe/engine/genes/defense.py": {"persistence_refights", "genes.persistence"},
        "sim/ursuppe/engine/genes/speed.py": {"PERSISTENCE", "genes.persistence"},
        # the rules data: the flag persistence_copies_4p sets its copies; the base flags' genes
        "sim/ursuppe/rules/schema.py": {"PERSISTENCE", '"Persistence"'},
        "sim/ursuppe/rules/validation.py": {"PERSISTENCE"},
        "sim/ursuppe/experiments/readings.py": {'"Persistence"'},
    },
    "Armor": {
        "sim/ursuppe/engine/genes/armor.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/attacks.py": {"armor_protects", "genes.armor"},
        "sim/ursuppe/engine/genes/aggression.py": {"armor_takes_dp", "genes.armor"},
        # the strategies' target value and lower-gene choice read who holds it (shared decisions)
        "strategies/ursuppe/policy.py": {"ARMOR", "genes.armor"},
        # the base flag armor_blocks_own_attacks's gene (the rules book's flags stay central)
        "sim/ursuppe/experiments/readings.py": {'"Armor"'},
    },
    "Aggression": {
        "sim/ursuppe/engine/genes/aggression.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/phases/phase5_deaths.py": {"may_aggress", "aggression(", "genes.aggression"},
        # its sibling: Struggle for Survival's ability, which Aggression includes (read by index:
        # this module calls decide, which the policy importing that one sits below)
        "sim/ursuppe/engine/genes/struggle_for_survival.py": {"AGGRESSION", '"Aggression"'},
        # the policy values the aggress decision itself (its propensity draw follows choose's
        # own draw, so no hook can score it before decide) and reads who holds the gene (by index)
        "strategies/ursuppe/policy.py": {"AGGRESS", '"aggress"', "AGGRESSION", '"Aggression"'},
        # the trace renders the damage event's reasons; the base flag's gene (the rules book's)
        "sim/ursuppe/tools/trace.py": {"DP_REASON", "genes.aggression", '"damage"'},
        "sim/ursuppe/experiments/readings.py": {'"Aggression"'},
    },
    "Rebound": {
        "sim/ursuppe/engine/genes/rebound.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/movement.py": {
            "REBOUND_DRIFT",
            "REBOUND_ACTIVE",
            "REBOUND_ESCAPE",
            "REBOUND_SPEED_STEPS",
            "step_or_rebound",
            "genes.rebound",
        },
    },
    "Toxic Excretions": {
        "sim/ursuppe/engine/genes/toxic_excretions.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/feeding.py": {
            "toxic_excretion",
            "toxic_attack_cubes",
            "toxic_attack_cubes_followed",
            "genes.toxic_excretions",
        },
        "sim/ursuppe/engine/movement.py": {"toxic_arrival", "toxic_speed_step", "genes.toxic_excretions"},
        "sim/ursuppe/engine/phases/phase4_division.py": {"toxic_placement", "genes.toxic_excretions"},
    },
    "Migration Sensing": {
        "sim/ursuppe/engine/genes/migration_sensing.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/phases/phase1_movement_feeding.py": {
            "migration_sensing_look",
            "genes.migration_sensing",
        },
        "sim/ursuppe/engine/genes/environmental_sensing.py": {"sense_next_card", "genes.migration_sensing"},
    },
    "Environmental Sensing": {
        "sim/ursuppe/engine/genes/environmental_sensing.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        # XG-23 includes XG-06 with its flag: Migration Sensing's look checks both (by name: this
        # module imports that one)
        "sim/ursuppe/engine/genes/migration_sensing.py": {
            '"Environmental Sensing"',
            "environmental_sensing_includes_migration",
        },
        "sim/ursuppe/engine/phases/phase2_environment.py": {
            "environmental_sensing_look",
            "genes.environmental_sensing",
        },
    },
    "Fast Food": {
        "sim/ursuppe/engine/genes/fast_food.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/phases/phase1_movement_feeding.py": {"fast_food_eats_first", "genes.fast_food"},
        "sim/ursuppe/engine/scratch.py": {'"order"'},  # the scratch slot of the turn order, another "order"
    },
    "Energy Conservation": {
        "sim/ursuppe/engine/genes/energy_conservation.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/phases/phase1_movement_feeding.py": {
            "energy_conservation_drift",
            "genes.energy_conservation",
        },
        # the Social Gene's Phase-6 income (XG-10) logs the event the two genes share
        "sim/ursuppe/engine/genes/social_gene.py": {"EV_GENE_INCOME", "genes.energy_conservation"},
        "sim/ursuppe/tools/trace.py": {'"gene_income"'},  # the readable log renders events by name
    },
    "Glutton": {
        "sim/ursuppe/engine/genes/glutton.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/rules/book.py": {'"Glutton"'},  # its data row's defect payment (a rules file's numbers)
        "sim/ursuppe/engine/feeding.py": {"glutton_eats", "glutton_meal", "genes.glutton"},
    },
    "Cleanliness": {
        "sim/ursuppe/engine/genes/cleanliness.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/feeding.py": {
            "cleanliness_target",
            "cleanliness_attack_cubes",
            "cleanliness_attack_cubes_followed",
            "genes.cleanliness",
        },
        # the strategy parameter clean_opponent_weight (the parameter table is shared) says what it weighs
        "strategies/ursuppe/params.py": {'"cleanliness (XG-04)"'},
    },
    "Suction 1": {
        "sim/ursuppe/engine/genes/suction_1.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/feeding.py": {"suction_reach", "suction_meal", "genes.suction_1"},
    },
    "Suction 2": {
        "sim/ursuppe/engine/genes/suction_2.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/genes/suction_1.py": {"SUCTION_2", "genes.suction_2"},  # its reach: 2
        "sim/ursuppe/engine/feeding.py": {"suction2_same_space", "genes.suction_2"},
    },
    "Highly Adaptable": {
        "sim/ursuppe/engine/genes/highly_adaptable.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/phases/phase3_genes.py": {"exchanges", "genes.highly_adaptable"},
        "sim/ursuppe/tools/trace.py": {'"exchange"', "exchanges"},  # the readable log renders events by name
        # the strategy parameter exchange_margin (the parameter table is shared) and what it weighs
        "strategies/ursuppe/params.py": {'"exchange_margin"', '"exchange (XG-08)"'},
    },
    "More Than a Mouthful": {
        "sim/ursuppe/engine/genes/aggression.py": {
            "mouthful_saves_from_aggression",
            "genes.more_than_a_mouthful",
        },
        "sim/ursuppe/engine/genes/more_than_a_mouthful.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/phases/phase1_movement_feeding.py": {
            "mouthful_saves",
            "genes.more_than_a_mouthful",
        },
        "sim/ursuppe/engine/phases/phase5_deaths.py": {
            "mouthful_saves_from_aggression",
            "genes.more_than_a_mouthful",
        },
        "sim/ursuppe/tools/trace.py": {'"mouthful"'},  # the readable log renders events by name
        # the attack target's valuation (a shared decision) and its parameter mouthful_target_penalty
        "strategies/ursuppe/policy.py": {
            "mouthful_deters",
            "genes.more_than_a_mouthful",
            "MOUTHFUL_TARGET_PENALTY",
        },
        "strategies/ursuppe/params.py": {'"mouthful_target_penalty"', "MOUTHFUL_TARGET_PENALTY"},
    },
    "Social Gene": {
        "sim/ursuppe/engine/genes/social_gene.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/rules/extra_flags.py": {'"Social Gene"'},  # XM2's default start pair (a market flag)
        # every gene's price and source (G1, G2, G4) know its taking; this module imports players.py
        "sim/ursuppe/engine/players.py": {
            '"Social Gene"',
            '"social_gene_steal_price"',
            "_SOCIAL_GENE",
            "_XF_STEAL_PRICE",
        },
        "sim/ursuppe/engine/phases/phase3_genes.py": {
            "social_gene_takeable",
            "social_gene_taken",
            "genes.social_gene",
        },
        "sim/ursuppe/engine/phases/phase6_scoring.py": {
            "social_gene_holder",
            "social_income_before_advance",
            "social_income_after_advance",
            "social_income_end_of_phase",
            "genes.social_gene",
        },
        "sim/ursuppe/tools/trace.py": {'"take"'},  # the readable log renders events by name
        # Highly Adaptable's choice {"give": gene, "take": gene}: another "take"
        "sim/ursuppe/engine/genes/highly_adaptable.py": {'"take"'},
    },
    "Camouflage 1": {
        "sim/ursuppe/engine/genes/aggression.py": {"camouflage", "camouflage_retry", "genes.camouflage_1"},
        "sim/ursuppe/engine/genes/camouflage_1.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/attacks.py": {"camouflage_no_defence", "genes.camouflage_1"},
        "sim/ursuppe/engine/phases/phase1_movement_feeding.py": {
            "camouflage",
            "camouflage_retry",
            "genes.camouflage_1",
        },
        "sim/ursuppe/engine/phases/phase5_deaths.py": {
            "camouflage",
            "camouflage_retry",
            "genes.camouflage_1",
        },
        "sim/ursuppe/tools/trace.py": {'"camouflage"'},  # the readable log renders events by name
    },
    "Camouflage 2": {
        "sim/ursuppe/engine/genes/camouflage_2.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/genes/camouflage_1.py": {"CAMOUFLAGE_2", "genes.camouflage_2"},  # no roll for it
        # the attack target's valuation (a shared decision): no answer counts against it
        "strategies/ursuppe/policy.py": {"CAMOUFLAGE_2", "genes.camouflage_2"},
        "sim/ursuppe/tools/trace.py": {'"Camouflage 2"'},  # the readable log's words for a camouflage event
    },
    "Thread Display": {
        "sim/ursuppe/engine/genes/aggression.py": {"threat_display_protects", "genes.threat_display"},
        "sim/ursuppe/engine/genes/threat_display.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/rules/genes.py": {'"Thread Display"', '"Threat Display"'},  # its alias (GENE_ALIASES)
        "sim/ursuppe/engine/attacks.py": {"threat_display_protects", "genes.threat_display"},
        "sim/ursuppe/engine/phases/phase5_deaths.py": {"threat_display_protects", "genes.threat_display"},
    },
    "Flexible": {
        "sim/ursuppe/engine/genes/flexible.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/players.py": {"flexible_price", "genes.flexible"},  # every gene's price (G1)
        "sim/ursuppe/engine/genes/highly_adaptable.py": {"flexible_exchange_discount", "genes.flexible"},
        "sim/ursuppe/engine/phases/phase3_genes.py": {"flexible_discount_tally", "genes.flexible"},
    },
    "Healing 1": {
        "sim/ursuppe/engine/genes/healing_1.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        # the owner's turn in each phase where a heal may come (Healing 2's flag healing2_phase)
        "sim/ursuppe/engine/phases/phase1_movement_feeding.py": {"heals_in_phase", "genes.healing_1"},
        "sim/ursuppe/engine/phases/phase3_genes.py": {"heals_in_phase", "genes.healing_1"},
        "sim/ursuppe/engine/phases/phase4_division.py": {"heals_in_phase", "genes.healing_1"},
        "sim/ursuppe/engine/phases/phase5_deaths.py": {"heals_in_phase", "genes.healing_1"},
        "sim/ursuppe/tools/trace.py": {'"heal"'},  # the readable log renders events by name
    },
    "Healing 2": {
        "sim/ursuppe/engine/genes/healing_2.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        # the healing both genes share (Healing 1's module) asks its phase, flags and receiver
        "sim/ursuppe/engine/genes/healing_1.py": {
            "HEALING_2",
            "XF_HEALING2_COST",
            "XF_HEALING2_INCLUDES_HEALING1",
            "XF_HEALING2_TARGET_ANY_COLOUR",
            "healing2_give",
            "healing2_now",
            "genes.healing_2",
        },
        # the owner's turns in Phases 1, 3 and 5 where it may heal (flag healing2_phase)
        "sim/ursuppe/engine/phases/phase1_movement_feeding.py": {"healing2_now", "genes.healing_2"},
        "sim/ursuppe/engine/phases/phase3_genes.py": {"healing2_now", "genes.healing_2"},
        "sim/ursuppe/engine/phases/phase5_deaths.py": {"healing2_now", "genes.healing_2"},
    },
    "Go Out With a Bang": {
        "sim/ursuppe/engine/genes/go_out_with_a_bang.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/attacks.py": {"bang", "genes.go_out_with_a_bang"},  # die: every death
        "sim/ursuppe/engine/phases/phase1_movement_feeding.py": {"bang", "genes.go_out_with_a_bang"},
        "sim/ursuppe/engine/deaths.py": {"DEATH_BANG", '"bang"'},  # the death event's "how" (a shared format)
        "sim/ursuppe/tools/trace.py": {'"bang"', "bang"},  # the readable log renders events by name
    },
    "Short Life Span": {
        "sim/ursuppe/engine/genes/short_life_span.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        # every amoeba's death threshold and division cost (X1, D3)
        "sim/ursuppe/engine/players.py": {
            "sls_threshold",
            "sls_holds",
            "sls_division_cost",
            "genes.short_life_span",
        },
        "sim/ursuppe/engine/phases/phase5_deaths.py": {"short_life_death", "genes.short_life_span"},
    },
    "Alarm": {
        "sim/ursuppe/engine/genes/alarm.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/engine/attacks.py": {"alarm_escape", "alarm_escape_taken", "genes.alarm"},
        "sim/ursuppe/engine/phases/phase1_movement_feeding.py": {
            "alarm_raised",
            "alarm_end_of_phase1",
            "genes.alarm",
        },
        "sim/ursuppe/tools/trace.py": {'"alarm"'},  # the readable log renders events by name
        "sim/ursuppe/tools/scenario.py": {'"alarm"'},  # the scenario format's state key (State.player_flags)
    },
    "Hard Crust": {
        "sim/ursuppe/engine/genes/aggression.py": {"hard_crust_refused", "DP_HARD_CRUST", '"hard_crust"'},
        "sim/ursuppe/engine/genes/hard_crust.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        # the attack's outcome (shared by Phases 1 and 5); a refused attacker dies through attacks.die
        "sim/ursuppe/engine/attacks.py": {
            "hard_crust_stops",
            "hard_crust_death_cubes",
            "hard_crust_refused",
            "DEATH_HARD_CRUST",
            '"crust"',  # ATTACK_CRUSHED's name in the attack_result event (a shared format)
            "genes.hard_crust",
        },
        "sim/ursuppe/engine/phases/phase1_movement_feeding.py": {"hard_crust_refused"},
        # the death and DP events' kinds (shared formats of the event log)
        "sim/ursuppe/engine/deaths.py": {"DEATH_HARD_CRUST", '"hard_crust"'},
        "sim/ursuppe/engine/phases/phase5_deaths.py": {"hard_crust_refused", "DP_HARD_CRUST", '"hard_crust"'},
        "sim/ursuppe/tools/trace.py": {'"hard_crust"'},  # the readable log renders events by name
        # an attack target's valuation (a shared decision): the module calls decide, so by name
        "strategies/ursuppe/policy.py": {
            '"Hard Crust"',
            '"hard_crust_extra_bp"',
            "_HARD_CRUST",
            "_XF_HARD_CRUST_EXTRA_BP",
            "HARD_CRUST_MAX_BP",
        },
        # the strategy parameter hard_crust_max_bp (the parameter table is shared) and what it weighs
        "strategies/ursuppe/params.py": {
            '"hard_crust_max_bp"',
            '"hard_crust (XG-05), attack, aggress (A1, R1)"',
            "HARD_CRUST_MAX_BP",
        },
    },
    # its placements and their decision kind place_explosion stay the phase's (PLACE_EXPLOSION)
    "Population Explosion": {
        "sim/ursuppe/engine/genes/population_explosion.py": None,
        "sim/ursuppe/rules/gene_tables.py": None,
        "sim/ursuppe/rules/extra_flags.py": {'"Population Explosion"'},  # XM2's default start pair
        "sim/ursuppe/engine/phases/phase4_division.py": {
            "explodes",
            "explosion_begin",
            "explosion_placed",
            "explosion_end",
            "genes.population_explosion",
            '"explosion"',  # EV_PLACE's how (a shared format of the event log)
        },
        "sim/ursuppe/tools/trace.py": {'"explosion"'},  # the readable log renders events by name
    },
}
_NAME = {
    "Spores": re.compile(r'"Spores"|\bSPORES\b|\bspores_\w+|genes\.spores\b'),
    "Substitution": re.compile(
        r'"Substitution"|\bSUBSTITUTION\b|\bsubstitution_shape_bit\b|genes\.substitution\b'
    ),
    "Frugality": re.compile(r'"Frugality"|\bFRUGALITY\b|\bfrugality_shape_bit\b|genes\.frugality\b'),
    "Streamlining": re.compile(r'"Streamlining"|\bSTREAMLINING\b|genes\.streamlining\b'),
    "Life Expectancy": re.compile(
        r'"Life Expectancy"|\bLIFE_EXPECTANCY\b|\blife_expectancy_\w+|genes\.life_expectancy\b'
    ),
    "Division Rate": re.compile(
        r'"Division Rate"|\bDIVISION_RATE\b|\bdivision_rate_\w+|genes\.division_rate\b'
    ),
    "Speed": re.compile(
        r'"Speed"|\bSPEED\b|\b(?:CK_)?SECOND_MOVE\b|"second_move"|\bsecond_move\b|\bspeed_ability\b|genes\.speed\b'
    ),
    "Tentacle": re.compile(
        r'"Tentacle"|\bTENTACLE\b|\b(?:CK_|EV_)?CARRY\b|\bCARRIED\b|"carry"|"tentacle:carried"'
        r"|\btentacle_carry\b|genes\.tentacle\b"
    ),
    "Holding": re.compile(
        r'"Holding"|\bHOLDING\b|\b(?:CK_|EV_)?CLING\b|\bCLUNG\b|"cling"|"holding:clung"|\bholding_may_stay\b'
        r"|\boffer_clinging\b|\bcling_after_first_step\b|\barrive_riders\b|genes\.holding\b"
    ),
    "Parasitism": re.compile(
        r'"Parasitism"|\bPARASITISM\b|\bPARASITE_MEAL\b|"parasitism:meal"|\bparasitism_feeds\b'
        r"|\bmay_parasitize\b|\bparasite_pays\b|genes\.parasitism\b"
    ),
    "Struggle for Survival": re.compile(
        r'"Struggle for Survival"|\bSTRUGGLE\b|\bholds_struggle\b|\bstruggle_ability\b'
        r"|genes\.struggle_for_survival\b"
    ),
    "Movement I": re.compile(r'"Movement I"|\bMOVEMENT_I\b|\bmovement_i_die\b|genes\.movement_i\b'),
    "Movement II": re.compile(r'"Movement II"|\bMOVEMENT_II\b|\bmovement_ii_\w+|genes\.movement_ii\b'),
    "Escape": re.compile(
        r'"Escape"|\bESCAPE\b|\bESCAPE_STAYED\b|"escape:stayed"|\bholds_escape\b|(?<![.\w])escape\(|genes\.escape\b'
    ),
    "Defense": re.compile(
        r'"Defense"|\bDEFENSE\b|\bEV_FIGHT\b|\bFIGHT_DEFENDER_\w+|"fight"|"fight:defender_\w+"|\bmay_defend\b'
        r"|(?<![.\w])defend\(|genes\.defense\b"
    ),
    "Persistence": re.compile(
        r'"Persistence"|\bPERSISTENCE\b|\bPERSISTENCE_RE\w+|"persistence:\w+"'
        r"|\bpersistence_(?:refights|retries|retried)\b|genes\.persistence\b"
    ),
    "Armor": re.compile(
        r'"Armor"|\bARMOR\b|\bARMOR_DP\b|"armor:dp"|\barmor_protects\b|\barmor_takes_dp\b|genes\.armor\b'
    ),
    "Aggression": re.compile(
        r'"Aggression"|\bAGGRESSION\b|\b(?:CK_)?AGGRESS\b|"aggress"|"aggression:lost_defense_dp"|\bLOST_DEFENSE_DP\b'
        r'|\bEV_DAMAGE\b|"damage"|\bDP_REASON\b|\bmay_aggress\b|(?<![.\w])aggression\(|genes\.aggression\b'
    ),
    "Rebound": re.compile(r'"rebound[^"]*"|"Rebound"|\b\w*REBOUND\w*|\w*_rebound\b|genes\.rebound'),
    # its flags, events and tallies ("toxic_...", "toxic:..."), constants, kernels and modules
    "Toxic Excretions": re.compile(
        r'"toxic[_:][^"]*"|"Toxic Excretions"|\b\w*TOXIC\w*|\btoxic_\w+|\w+_toxic\b|engine\.toxic\b'
        r"|genes\.toxic_excretions"
    ),
    # its event and tally (shared with Environmental Sensing, XG-23), constants, kernels and module
    "Migration Sensing": re.compile(
        r'"Migration Sensing"|"sense"|"sensing:seen"|\b\w*MIGRATION_SENSING\w*|\bEV_SENSE\b|\bSENSING_SEEN\b'
        r"|\bsense_next_card\b|genes\.migration_sensing|\bmigration_sensing\w*"
    ),
    "Environmental Sensing": re.compile(
        r'"Environmental Sensing"|\b\w*ENVIRONMENTAL_SENSING\w*'
        r"|genes\.environmental_sensing|\benvironmental_sensing\w*"
    ),
    # its decision kind and tally ("fast_food..."), choice key and event ("order"), constants, kernels
    "Fast Food": re.compile(
        r'"Fast Food"|"fast_food[^"]*"|"order"|\b\w*FAST_FOOD\w*|\bEV_ORDER\b|\bCK_ORDER\b'
        r"|genes\.fast_food|\bfast_food_\w+"
    ),
    # its flag and tally ("energy..."), the event gene_income (shared with the Social Gene, XG-10)
    "Energy Conservation": re.compile(
        r'"Energy Conservation"|"energy[_:][^"]*"|"gene_income"|\b\w*ENERGY_CONSERVATION\w*'
        r"|\bEV_GENE_INCOME\b|\bENERGY_BP\b|genes\.energy_conservation|\benergy_conservation_\w+"
    ),
    # its tally and hooks; Glutton's shapes (rules.glutton_shapes ...) are rules data
    "Glutton": re.compile(
        r'"Glutton"|"glutton:[^"]*"|\bGLUTTON\w*|genes\.glutton\b|\bglutton_(?:eats|meal)\b'
    ),
    # its flag, kind and tally ("cleanliness..."), choice key and event ("clean"), constants, kernels
    "Cleanliness": re.compile(
        r'"Cleanliness"|"clean"|"cleanliness[^"]*"|\b\w*CLEANLINESS\w*|\bCK_CLEAN\b|\bCLEAN\b|\bEV_CLEAN\b'
        r"|genes\.cleanliness\b|\bcleanliness_\w+|\bclean_destination\b"
    ),
    # its tally (shared with Suction 2, XG-26), constants, kernels and module; the EAT row's
    # suction column (EAT_SUCTION_SLOT, pack_suction) is the shared EAT row's format
    "Suction 1": re.compile(
        r'"Suction 1"|"suction:[^"]*"|\bSUCTION_1\b|\bSUCTION_MEAL\b|genes\.suction_1\b'
        r"|\bsuction_(?:reach|meal)\b"
    ),
    "Suction 2": re.compile(
        r'"Suction 2"|"suction2_[^"]*"|\b\w*SUCTION_?2\w*|genes\.suction_2\b|\bsuction2_\w+'
    ),
    # its flags ("ha_..."), kind, choice key, event and tally ("exchange..."), constants, kernels
    "Highly Adaptable": re.compile(
        r'"Highly Adaptable"|"exchange[^"]*"|"ha_[^"]*"|\b\w*HIGHLY_ADAPTABLE\w*|\bXF_HA_\w+|\bHA_[A-Z_]+'
        r"|\b(?:CK_|EV_)?EXCHANGE(?:_MADE)?\b|genes\.highly_adaptable\b|\bexchange(?:s|_options|_cost)\b"
    ),
    "More Than a Mouthful": re.compile(
        r'"More Than a Mouthful"|"mouthful[^"]*"|\b\w*MOUTHFUL\w*|genes\.more_than_a_mouthful\b'
        r"|\bmouthful_\w+"
    ),
    # its flags and tallies ("social..."), the event take, constants, kernels and module
    "Social Gene": re.compile(
        r'"Social Gene"|"social[_:][^"]*"|"take"|\b(?:_|XF_)?SOCIAL_\w*|\bSTEAL_TO_\w+|\b_?XF_STEAL_PRICE\b'
        r"|\bEV_TAKE\b|genes\.social_gene\b|\bsocial_(?:gene|income)_\w+"
    ),
    # its flag, event and tally ("camouflage..."; the event and tally shared with Camouflage 2)
    "Camouflage 1": re.compile(
        r'"Camouflage 1"|"camouflage[^"]*"|\bCAMOUFLAGE_1\b|\bXF_CAMOUFLAGE\w*'
        r"|\b(?:EV_)?CAMOUFLAGE(?:_NO_DEFENCE)?\b|genes\.camouflage_1\b|\bcamouflage(?:_retry|_no_defence)?\b"
    ),
    "Camouflage 2": re.compile(r'"Camouflage 2"|\bCAMOUFLAGE_2\b|genes\.camouflage_2\b'),
    # XG-13 (Threat Display, "Thread Display" in the seed): its flag and tally ("threat_display..."),
    # the values of its flag (THREAT_*), constants, kernels and module
    "Thread Display": re.compile(
        r'"Thread Display"|"Threat Display"|"threat_display[^"]*"|\b\w*THREAT_\w*|genes\.threat_display\b'
        r"|\bthreat_display_\w+"
    ),
    "Flexible": re.compile(
        r'"Flexible"|"flexible[_:][^"]*"|\b\w*FLEXIBLE\w*|genes\.flexible\b|\bflexible_\w+'
    ),
    # its flags ("healing1_..."), the kind, choice key, event and tally it shares with Healing 2
    # ("heal", "healing:..."), constants, kernels and module (engine/healing.py until now)
    "Healing 1": re.compile(
        r'"Healing 1"|"heal"|"healing1_[^"]*"|"healing:[^"]*"|\bHEALING_1\w*|\bXF_HEALING1_\w+'
        r"|\bHEALING_(?:UNLIMITED|ONCE_PER_AMOEBA|DP_REMOVED)\b|\b(?:CK_|EV_)?HEAL\b|genes\.healing_1\b"
        r"|\bheal(?:s_in_phase|_options)\b|engine\.healing\b"
    ),
    "Healing 2": re.compile(
        r'"Healing 2"|"healing2[_:][^"]*"|\bHEALING_?2\w*|\bXF_HEALING2_\w+|genes\.healing_2\b|\bhealing2_\w+'
    ),
    "Go Out With a Bang": re.compile(
        r'"Go Out With a Bang"|"bang[^"]*"|\b\w*BANG\w*|genes\.go_out_with_a_bang\b|\b_?bang(?:_hits)?\b'
    ),
    "Short Life Span": re.compile(
        r'"Short Life Span"|"sls_[^"]*"|"short_life:[^"]*"|\b\w*SHORT_LIFE\w*|\bXF_SLS_\w+'
        r"|genes\.short_life_span\b|\bsls_\w+|\bshort_life_\w+"
    ),
    # its flags, event and tallies ("alarm..."), constants, kernels and module; the player flag
    # PF_ALARM (the state struct) and the policy's reading of it are shared
    "Alarm": re.compile(
        r'"Alarm"|"alarm[^"]*"|\bALARM\w*|\bXF_ALARM_\w+|\bEV_ALARM\b|genes\.alarm\b|\b_?alarm_\w+'
    ),
    # its flags, kind, event and tallies ("hard_crust..."), choice key ("crust"), constants, kernels
    "Hard Crust": re.compile(
        r'"Hard Crust"|"crust"|"hard_crust[^"]*"|\b\w*HARD_CRUST\w*|\bCRUST_\w+|\bCK_CRUST\b'
        r"|genes\.hard_crust\b|\bhard_crust_\w+|\b_pays\b"
    ),
    "Population Explosion": re.compile(
        r'"Population Explosion"|"pop_explosion_[^"]*"|"explosion(?::placed)?"|\b\w*POP_\w*|\bEV_EXPLOSION\b'
        r"|\bEXPLOSION_PLACED\b|genes\.population_explosion\b|\bexplo(?:des|sion_\w+)\b"
    ),
}


@functools.cache  # parsed once per process, not once per gene (the fast tier's time: issue 35)
def _code(path: Path) -> str:
    """A module's code without its comments and docstrings (prose may cite a flag's name)."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    lines[first.lineno - 1 : first.end_lineno] = [""] * (first.end_lineno - first.lineno + 1)
    return "\n".join(line.split("#", 1)[0] for line in lines)


_KIT_PACKAGES = ("cli", "experiments")  # sim's own sub-packages (the kit); the others are games


@pytest.mark.parametrize("gene", list(_ALLOWED))
def test_a_gene_modules_rows_constants_and_kernels_are_declared_in_its_module_only(gene):
    found = {}
    for package in ("sim", "strategies"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            parts = rel.split("/")
            if len(parts) > 2 and parts[1] not in ("ursuppe", *_KIT_PACKAGES):
                continue  # another game's package: its words are its own (Chromosome's "exchange")
            allowed = _ALLOWED[gene].get(rel, set())
            if allowed is None:
                continue
            names = set(_NAME[gene].findall(_code(path))) - allowed
            if names:
                found[rel] = sorted(names)
    assert found == {}


def _fake_gene() -> Gene:
    return Gene(
        "Fake Gene",
        "XG-99",
        decisions=(Decision("fake", "XG-99", 1, "fake", "0 / 1", *two_way("fake", ("no", "yes"))),),
        events=(("fake", ("space",)),),
        tallies=(("fake:made", "XG-99"),),
        knobs=(Knob("fake_weight", 1.0, -10.0, 10.0, "fake (XG-99)", "how much the player wants to fake"),),
    )


def test_a_new_gene_module_is_appended_at_the_end_of_every_list_of_the_ledger():
    """Issue 35.3: the ledger is append-only; a new module's rows go after every row there is."""
    modules = {m.__name__: m.GENE for m in gene_modules()}
    modules["sim.ursuppe.engine.genes.zzz_fake"] = _fake_gene()
    rows = generator.rows(modules, set(decision_kinds.CORE_CHOICE_KEYS))
    new = generator.appended(ledger.LEDGER, modules, rows)
    added = {table: new[table][len(ledger.LEDGER[table]) :] for table in ledger.TABLES}
    assert all(new[table][: len(ledger.LEDGER[table])] == ledger.LEDGER[table] for table in ledger.TABLES)
    assert added == {
        "modules": ("zzz_fake",),
        "genes": ("Fake Gene",),
        "flags": (),
        "choice_keys": ("fake",),
        "decisions": ("fake",),
        "events": ("fake",),
        "tallies": ("fake:made",),
        "knobs": ("fake_weight",),
    }
    assert (
        rows["decisions"][-1] == ("fake", "XG-99", 1, "fake", "0 / 1")
        and rows["knobs"][-1].name == "fake_weight"
    )
    # Run again on its own output: nothing more is appended
    assert generator.appended(new, modules, rows) == new


def test_the_ledger_lists_every_index_once_and_names_a_row_for_each():
    """Every central table is its ledger list, row for row (a name twice only where the table has
    it twice: choice key "buy", CK_BUY and CK_BUY_END)."""
    assert ledger.LEDGER["genes"] == genes.GENE_NAMES
    assert ledger.LEDGER["flags"] == extra_flags.XFLAG_NAMES
    assert ledger.LEDGER["choice_keys"] == decision_kinds.CHOICE_KEYS
    assert ledger.LEDGER["decisions"] == decision_kinds.KIND_NAMES
    assert ledger.LEDGER["events"] == tuple(k.name for k in events.EVENT_KINDS)
    assert ledger.LEDGER["tallies"] == tuple(n for n, _ in tally.OUTCOMES)
    assert ledger.LEDGER["knobs"] == tuple(k.name for k in gene_tables.KNOBS)
    repeated = {t: [n for n in set(names) if names.count(n) > 1] for t, names in ledger.LEDGER.items()}
    assert repeated == {t: (["buy"] if t == "choice_keys" else []) for t in ledger.TABLES}


# Each list of the ledger as it was written (issue 35.3, from the tables as they were): its length
# and the sha256 of its names, one a line. Appending keeps them a prefix; an edit that moves or
# drops a line (and so an index) does not.
_LEDGER_AT_ISSUE_35 = {
    "modules": (42, "488e3d95c63e1f45"),
    "genes": (50, "dcef0276589aa4ab"),
    "flags": (43, "385c59e1445496c4"),
    "choice_keys": (21, "8fe3fb4383213639"),
    "decisions": (22, "a64ac450edd37c16"),
    "events": (41, "968d6816d9fdb388"),
    "tallies": (41, "346f17f4a761e982"),
    "knobs": (0, "e3b0c44298fc1c14"),
}


def test_the_ledger_only_grows_at_its_end():
    import hashlib

    for table, (n, digest) in _LEDGER_AT_ISSUE_35.items():
        names = ledger.LEDGER[table]
        assert len(names) >= n and hashlib.sha256("\n".join(names[:n]).encode()).hexdigest()[:16] == digest, (
            table
        )


def test_a_row_missing_from_the_ledger_or_a_line_without_a_row_is_a_one_line_error(monkeypatch):
    with pytest.raises(ledger.LedgerError, match=r"ledger\.toml: events: 'fake' is not in the ledger") as e:
        ledger.in_ledger_order(
            "events", (*events.EVENT_KINDS, events.EventKind("fake", ())), lambda k: k.name
        )
    assert "\n" not in str(e.value)
    with pytest.raises(ledger.LedgerError, match=r"events: 'eat' is declared by more rows than it has lines"):
        ledger.in_ledger_order("events", (*events.EVENT_KINDS, events.EventKind("eat", ())), lambda k: k.name)
    monkeypatch.setitem(ledger.LEDGER, "events", (*ledger.LEDGER["events"], "gone"))
    with pytest.raises(ledger.LedgerError, match=r"ledger\.toml: events\[\d+\]: 'gone' has no row") as e:
        ledger.in_ledger_order("events", events.EVENT_KINDS, lambda k: k.name)
    assert "\n" not in str(e.value)


# The central tables: their own (core) rows, the gene modules' from gene_tables, the order from the
# ledger. A name they may still hold is a rule's shared format, not a gene's row: the answers to an
# attack (A2), Holding's clinging as an attack's outcome, XM2's default start pair, PhD's alias.
_CENTRAL = {
    "sim/ursuppe/engine/decision_kinds.py": {'"escape"', '"defense"'},
    "sim/ursuppe/engine/events.py": set(),
    "sim/ursuppe/engine/tally.py": {'"Holding"'},
    "sim/ursuppe/rules/extra_flags.py": {'"Social Gene"', '"Population Explosion"'},
    "sim/ursuppe/rules/genes.py": set(),
}


@pytest.mark.parametrize("path", sorted(_CENTRAL))
def test_a_central_module_names_no_gene_modules_gene_and_unpacks_no_rows_by_position(path):
    """Issue 35.3: no splice of a gene's rows (gene_tables.<GENE>_...), no gene module's name, gene
    or choice key, and no constants unpacked by position (a ``_`` per gene row)."""
    code = _code(ROOT / path)
    words = {f'"{g.name}"' for g in (m.GENE for m in gene_modules())}
    words |= {f'"{a}"' for m in gene_modules() for a in m.GENE.aliases}
    words |= {f'"{key}"' for key in gene_tables.CHOICE_KEYS} | {f'"{n}"' for n, _ in gene_tables.EVENTS}
    words |= {f'"{d[0]}"' for d in gene_tables.DECISIONS} | {f'"{n}"' for n, _ in gene_tables.TALLIES}
    found = {w for w in words if w in code} - _CENTRAL[path]
    splices = set(re.findall(r"gene_tables\.([A-Z_]+)", code)) - {
        "GENES",
        "FLAGS",
        "CHOICE_KEYS",
        "DECISIONS",
        "EVENTS",
        "TALLIES",
        "ADVANCED",
        "ALIASES",
    }
    unpacked = [
        node.lineno
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Tuple) for t in node.targets)
        and len(node.targets[0].elts) > 3
    ]
    assert (found, splices, unpacked) == (set(), set(), [])


def _genes_module_with(appended: tuple[str, ...], monkeypatch) -> types.ModuleType:
    """genes.py run again with ``appended`` genes in gene_tables and at the end of the ledger."""
    fake = types.ModuleType("gene_tables")
    fake.GENES, fake.ADVANCED, fake.ALIASES = gene_tables.GENES + appended, gene_tables.ADVANCED, {}
    monkeypatch.setattr(rules_package, "gene_tables", fake)
    monkeypatch.setitem(ledger.LEDGER, "genes", genes.GENE_NAMES + appended)
    spec = importlib.util.spec_from_file_location("genes_probe", genes.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gene_sets_hold_every_gene_or_say_why_not(monkeypatch):
    room = genes.GENE_SET_BITS - genes.N_GENES
    fits = _genes_module_with(tuple(f"New {k}" for k in range(room)), monkeypatch)
    assert fits.N_GENES == 64 and fits.GENE_NAMES[-1] == f"New {room - 1}"
    assert fits.ADDED_GENES == tuple(range(genes.N_GENES, 64))  # extra genes (§18), after the slots
    with pytest.raises(ValueError, match=r"^\d+ genes .* do not fit the 64-bit gene sets") as e:
        _genes_module_with(tuple(f"New {k}" for k in range(room + 1)), monkeypatch)
    assert "\n" not in str(e.value)


# --- The claim end to end (issue 22.5): a brand-new gene with a decision point, added to a copy of
# the tree by editing 3 files (its data row, its module, its hook's call site) and running the
# generator, is played in a scenario and in whole games. Plain Python (NUMBA_DISABLE_JIT=1) in a
# subprocess whose `sim` is the copy's.

_NEW_MODULE = '''"""Sunbathing (XG-99, made up by tests/test_adding_a_gene.py): in Phase 6, before the markers
advance, the owner may take 1 BP or not; its strategy knob sunbathe_value says what taking it is worth."""

from sim.jit import kernel
from sim.ursuppe.engine.decisions import decide, set_option
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import add_bp, has
from sim.ursuppe.rules.gene_rows import Decision, Gene, Knob, two_way

GENE = Gene(
    "Sunbathing",
    "XG-99",
    decisions=(
        Decision(
            "sunbathe", "XG-99", 1, "sunbathe", "0 rest / 1 take 1 BP", *two_way("sunbathe", ("rest", "take"))
        ),
    ),
    events=(("sunbathe", ("bp",)),),
    tallies=(("sunbathe:made", "XG-99"),),
    knobs=(Knob("sunbathe_value", 1.0, -10.0, 10.0, "sunbathe (XG-99)", "taking 1 BP; 0 or less: rest"),),
)

SUNBATHING, SUNBATHE_CHOICE, EV_SUNBATHE, SUNBATHE_MADE, SUNBATHE_VALUE = indices(GENE)


@kernel
def sunbathe(st, ru, wk, g, b, phase):
    """XG-99: each holder may take 1 BP (0 rest / 1 take, valued at the knob sunbathe_value)."""
    if not ru.extra_genes:
        return
    for p in range(st.score.shape[1]):
        if p == ru.dummy or not has(st, g, p, SUNBATHING):
            continue
        set_option(wk.options, b, 0, 0, 0, 0)
        set_option(wk.options, b, 1, 1, 0, 0)
        wk.scores[b, 0] = 0.0
        wk.scores[b, 1] = wk.params[st.strategy[g, p], SUNBATHE_VALUE]
        if decide(st, ru, wk, g, b, p, -1, SUNBATHE_CHOICE, 2) == 1:
            add_bp(st, ru, g, p, 1)
            wk.tally[b, SUNBATHE_MADE] += 1
            log(st, wk, g, EV_SUNBATHE, phase, p, -1, 1, 0, 0, 0, 0, 0, 0)
'''

_DATA_ROW = """[genes."Sunbathing"]  # XG-99 (tests/test_adding_a_gene.py)
price = 3
mp = 3
copies = 1
"""

_CALL_SITE = "sim/ursuppe/engine/phases/phase6_scoring.py"

_PLAY = r"""
import json, sys, tempfile
import numpy as np
import sim
from sim.ursuppe.engine import batch as B
from sim.ursuppe.engine.genes.sunbathing import SUNBATHE_MADE, SUNBATHING
from sim.ursuppe.rules.book import load_rules
from sim.ursuppe.simulation import UrsuppeRun
from sim.ursuppe.tools.scenario import load_scenario, run_scenario
from strategies.ursuppe.params import GENE_VALUE_BASE, PARAMETERS, load_strategy, parameter_table

out = {"sim": sim.__file__, "index": SUNBATHING}
out["knob"] = [PARAMETERS["sunbathe_value"].index, GENE_VALUE_BASE]
scenario = {
    "players": 4, "rules": {"flags": {"extra_genes": True}}, "round": 3,
    "current_card": {"ozone": 11, "drift": "none"},
    "state": [
        {"score": 10, "bp": 1, "genes": ["Sunbathing"], "amoebas": [{"number": 1, "space": 3}]},
        {"score": 15, "bp": 0, "amoebas": [{"number": 1, "space": 4}]},
        {"score": 16, "bp": 0, "amoebas": [{"number": 1, "space": 5}]},
        {"score": 20, "bp": 0, "amoebas": [{"number": 1, "space": 6}]},
    ],
    "run": "phase6",
}
for take in (True, "rest"):
    doc = run_scenario(load_scenario({**scenario, "choices": [{"sunbathe": take}]}))
    out[str(take)] = {
        "bp": [s["bp"] for s in doc["state"]],
        "events": [e for e in doc["events"] if e["type"] == "sunbathe"],
        "unused": doc["unused_choices"],
        "genes": [g["name"] for g in doc["state"][0]["genes"]],
    }
# No forced choice: the strategies decide, by the knob (a strategy file sets it by name)
with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
    f.write('extends = "greedy"\nsunbathe_value = -1\n')
for label, first in (("bp_default", "greedy"), ("bp_knob", f.name)):
    doc = run_scenario(load_scenario({**scenario, "strategies": [first, "greedy", "greedy", "greedy"]}))
    out[label] = doc["state"][0]["bp"]

# Whole games: Sunbathing face up from round 1 (XM2), invariants checked after every phase.
book = load_rules(overrides={"flags": {"extra_genes": True, "extra_start_pair": ["Sunbathing", "Glutton"]}})
strategies = [load_strategy("greedy"), load_strategy("random")]
b = B.new_batch(book.for_players(4), parameter_table(strategies), np.array([0, 1, 0, 1]), 7, np.arange(8),
                check_invariants=True)
B.play(b)
out["error"] = None if B.first_error(b) is None else B.describe_error(B.first_error(b)[1])
out["finished"] = bool(b.state.finished.all())
out["bought"] = int(((b.state.genes_bought >> SUNBATHING) & 1).sum())
out["made"] = int(b.workspace.tally[:, SUNBATHE_MADE].sum())
# The market's face-down extra deck holds it (XM1) when it is not a start card
plain = B.new_batch(load_rules(overrides={"flags": {"extra_genes": True}}).for_players(3),
                    parameter_table(strategies), np.array([0, 1, 0]), 3, np.arange(4), check_invariants=True)
B.play(plain)
out["plain_error"] = B.first_error(plain) is not None
out["in_extra_deck"] = [bool(SUNBATHING in list(d)) for d in plain.state.extra_deck]
# A run's rows and manifest: bit 50 of the masks, first_bought's 51st entry, spec.gene_names
run = UrsuppeRun(book, 4, 7, strategies, seats=[0, 1, 0, 1], n_blocks=4)
table = run.play_chunk(0, 4, 1)
out["gene_names_last"] = run.spec()["gene_names"][-1]
out["rows_bought"] = int(((table["genes_bought"].to_numpy() >> SUNBATHING) & 1).sum())
out["rows_held"] = int(((table["genes_held"].to_numpy() >> SUNBATHING) & 1).sum())
out["first_bought_len"] = len(table["first_bought"][0].as_py())
json.dump(out, sys.stdout)
"""

_COPIED = ("sim", "strategies", "analysis")


def _tree_files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for package in _COPIED
        for p in (root / package).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def test_a_brand_new_gene_is_three_files_and_plays(tmp_path):
    import json
    import os
    import shutil
    import subprocess
    import sys

    copy = tmp_path / "tree"
    for package in _COPIED:
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(PYTHONPATH=str(copy), NUMBA_DISABLE_JIT="1", PYTHONDONTWRITEBYTECODE="1")

    # The three files: the data row, the module, the call site (Phase 6, before the markers advance)
    rules_file = copy / "sim/ursuppe/rules/default_rules.toml"
    rules_file.write_text(rules_file.read_text(encoding="utf-8") + _DATA_ROW, encoding="utf-8")
    (copy / "sim/ursuppe/engine/genes/sunbathing.py").write_text(_NEW_MODULE, encoding="utf-8")
    site = copy / _CALL_SITE
    text = site.read_text(encoding="utf-8")
    hook = "    turn_order(st, wk, g, b, True)\n"
    imports = "from sim.ursuppe.engine.players import (\n"
    assert text.count(hook) == 1 and text.count(imports) == 1
    text = text.replace(hook, "    sunbathe(st, ru, wk, g, b, PHASE)\n" + hook)
    text = text.replace(imports, "from sim.ursuppe.engine.genes.sunbathing import sunbathe\n" + imports)
    site.write_text(text, encoding="utf-8")

    # Then the generator, in the copy
    subprocess.run([sys.executable, "-m", "sim.ursuppe.tools.gene_tables"], cwd=copy, env=env, check=True)

    # The touch count: the 3 files, the generated tables and the lines appended to the ledger, nothing
    # else (no central table, no strategy parameter table)
    before, after = _tree_files(ROOT), _tree_files(copy)
    changed = sorted(f for f in before.keys() | after.keys() if before.get(f) != after.get(f))
    assert changed == [
        "sim/ursuppe/engine/genes/sunbathing.py",
        _CALL_SITE,
        "sim/ursuppe/rules/default_rules.toml",
        "sim/ursuppe/rules/gene_tables.py",
        "sim/ursuppe/rules/ledger.toml",
    ]
    old, new = (tree["sim/ursuppe/rules/ledger.toml"].decode().splitlines() for tree in (before, after))
    assert [line for line in old if line.startswith("    ")] == [
        line for line in new if line.startswith("    ") and "sunbath" not in line
    ]  # append-only: every line it had, at its index
    appended = sorted(line.split("#")[0].strip() for line in new if "sunbath" in line)
    assert appended == [
        '"Sunbathing",',
        '"sunbathe",',
        '"sunbathe",',
        '"sunbathe",',
        '"sunbathe:made",',
        '"sunbathe_value",',
        '"sunbathing",',
    ]

    done = processes.run([sys.executable, "-c", _PLAY], cwd=copy, env=env, check=True)
    out = json.loads(done.stdout)
    assert out["sim"] == str(copy / "sim" / "__init__.py")
    assert out["index"] == genes.N_GENES == len(ledger.LEDGER["genes"])  # the next index, after every gene
    # Its knob: right after the parameters there are, read by its valuation; a strategy file sets it
    assert out["knob"] == [GENE_VALUE_BASE, GENE_VALUE_BASE + 1]
    assert (out["bp_default"], out["bp_knob"]) == (2, 1)
    # The forced choice is taken: +1 BP and the event; declined: nothing
    taken, rested = out["True"], out["rest"]
    assert taken["genes"] == ["Sunbathing"] and taken["unused"] == [] and rested["unused"] == []
    assert taken["bp"] == [2, 0, 0, 0] and taken["events"] == [
        {"type": "sunbathe", "round": 3, "phase": 6, "player": 0, "bp": 1}
    ]
    assert rested["bp"] == [1, 0, 0, 0] and rested["events"] == []
    # Whole games with it in play: no invariant broken, it was bought and used
    assert out["error"] is None and out["finished"] and not out["plain_error"]
    assert out["bought"] > 0 and out["made"] > 0
    assert all(out["in_extra_deck"])
    assert out["gene_names_last"] == "Sunbathing" and out["first_bought_len"] == genes.N_GENES + 1
    assert out["rows_bought"] > 0
