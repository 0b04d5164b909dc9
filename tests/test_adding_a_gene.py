"""A gene in one place (issue 22, docs/adding-a-gene.md): a gene module of sim/ursuppe/engine/genes/
declares the gene's rows, and the central tables are built from them (through the generated
sim/ursuppe/rules/gene_tables.py, which must be current); Rebound's names appear nowhere else.
Gene sets hold every gene: more than 64 is a clear error."""

import importlib.util
import re
import types
from pathlib import Path

import pytest

import sim.ursuppe.rules as rules_package
from sim.ursuppe.engine import decision_kinds, events, tally
from sim.ursuppe.engine.genes import gene_modules, rebound
from sim.ursuppe.rules import extra_flags, gene_tables, genes
from sim.ursuppe.rules.gene_rows import Decision, Gene, two_way
from sim.ursuppe.tools import gene_tables as generator
from sim.ursuppe.tools import scenario

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "sim" / "ursuppe" / "rules" / "gene_tables.py"


def test_gene_tables_module_is_current():
    assert GENERATED.read_text(encoding="utf-8") == generator.current(), (
        "sim/ursuppe/rules/gene_tables.py is stale: run `python -m sim.ursuppe.tools.gene_tables`"
    )


def test_every_module_of_the_package_is_registered_in_order():
    assert [m.__name__ for m in gene_modules()] == generator.module_names() == list(gene_tables.GENE_MODULES)


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


# Where Rebound may be named: its module, the generated tables, its historic slot in genes.py, and
# the call sites of its hook (movement.py passes each step's bit).
_ALLOWED = {
    "sim/ursuppe/engine/genes/rebound.py": None,
    "sim/ursuppe/rules/gene_tables.py": None,
    "sim/ursuppe/rules/genes.py": {'"Rebound"'},
    "sim/ursuppe/engine/movement.py": {
        "REBOUND_DRIFT",
        "REBOUND_ACTIVE",
        "REBOUND_ESCAPE",
        "REBOUND_SPEED_STEPS",
        "step_or_rebound",
        "genes.rebound",
    },
}
_NAME = re.compile(r'"rebound[^"]*"|"Rebound"|\b\w*REBOUND\w*|\w*_rebound\b|genes\.rebound')


def test_rebounds_rows_constants_and_kernels_are_declared_in_its_module_only():
    found = {}
    for package in ("sim", "strategies"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            allowed = _ALLOWED.get(rel, set())
            if allowed is None:
                continue
            code = "\n".join(line.split("#", 1)[0] for line in path.read_text(encoding="utf-8").splitlines())
            # a historic gene's rows are spliced where they always were: gene_tables.REBOUND_<ROWS>
            names = set(_NAME.findall(re.sub(r"gene_tables\.REBOUND_[A-Z_]+", "", code))) - allowed
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
    )


def test_a_new_gene_module_is_appended_after_every_row():
    modules = {m.__name__: m.GENE for m in gene_modules()}
    modules["sim.ursuppe.engine.genes.zzz_fake"] = _fake_gene()
    namespace: dict = {}
    text = generator.render(modules, set(decision_kinds.CHOICE_KEYS) - {"rebound"})
    exec(compile(text, "gene_tables", "exec"), namespace)
    assert namespace["GENE_MODULES"][-1] == "sim.ursuppe.engine.genes.zzz_fake"
    assert namespace["APPENDED_GENES"] == ("Fake Gene",)
    assert namespace["APPENDED_CHOICE_KEYS"] == ("fake",)
    assert namespace["APPENDED_DECISIONS"] == (("fake", "XG-99", 1, "fake", "0 / 1"),)
    assert namespace["APPENDED_EVENTS"] == (("fake", ("space",)),)
    assert namespace["APPENDED_TALLIES"] == (("fake:made", "XG-99"),)
    assert namespace["REBOUND_DECISIONS"] == gene_tables.REBOUND_DECISIONS  # a historic gene stays put


def _genes_module_with(appended: tuple[str, ...], monkeypatch) -> types.ModuleType:
    fake = types.ModuleType("gene_tables")
    fake.APPENDED_GENES = appended
    monkeypatch.setattr(rules_package, "gene_tables", fake)
    spec = importlib.util.spec_from_file_location("genes_probe", genes.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gene_sets_hold_every_gene_or_say_why_not(monkeypatch):
    room = genes.GENE_SET_BITS - len(genes.HISTORIC_GENE_NAMES)
    fits = _genes_module_with(tuple(f"New {k}" for k in range(room)), monkeypatch)
    assert fits.N_GENES == 64 and fits.GENE_NAMES[-1] == f"New {room - 1}"
    with pytest.raises(ValueError, match=r"^\d+ genes .* do not fit the 64-bit gene sets") as e:
        _genes_module_with(tuple(f"New {k}" for k in range(room + 1)), monkeypatch)
    assert "\n" not in str(e.value)
