"""`soup tune --gene-value --design option`'s table (issue 32.1): each arm is tuned once, so a gene
whose allowed arm kept its start or hardly bought it is tuning noise, and reads "not measured at
this budget" instead of a number; the table says its intervals do not cover the tunings' spread."""

import numpy as np

from analysis.ursuppe.tuning_report import gene_value_markdown
from sim.ursuppe.experiments.gene_value import _measured


def _contrast(estimate: float) -> dict:
    return {"estimate": estimate, "ci_low": estimate - 0.01, "ci_high": estimate + 0.01, "p_value": 0.01}


def _doc(rows: list[dict]) -> dict:
    return {
        "design": "option",
        "design_label": "option value",
        "question": "what is it worth to be allowed to buy it?",
        "arms": ["allowed", "forbidden"],
        "start": "breeder",
        "players": 4,
        "variant": None,
        "seed": 1,
        "arm_games": 1000,
        "field": "mix",
        "eval_games": 500,
        "fresh_seed": 2,
        "rules_id": "x",
        "deck": "d",
        "placeholders": [],
        "null": _contrast(0.0),
        "genes": rows,
    }


def test_a_gene_its_arm_never_bought_is_not_measured():
    kept = _measured([{"kept_start": np.array([False]), "bought_with": 0.0}], "gene")
    used = _measured([{"kept_start": np.array([False]), "bought_with": 0.4}], "gene")
    start = _measured([{"kept_start": np.array([True]), "bought_with": 0.4}], "gene")
    assert not kept["measured"] and "under 1%" in kept["not_measured_because"][0]
    assert used["measured"]
    assert not start["measured"] and "kept its start" in start["not_measured_because"][0]
    rows = [
        {"gene": "Tentacle", **_contrast(0.018), **kept, "p_holm": 0.01},
        {"gene": "Speed", **_contrast(0.05), **used, "p_holm": 0.01},
    ]
    text = gene_value_markdown(_doc(rows))
    assert "| Tentacle | not measured at this budget (the allowed arms bought the gene in 0.0%" in text
    assert "| Speed | +5.0 [+4.0, +6.0] |" in text
    assert "+1.8" not in text  # the tuning noise is not printed as a value
    assert "**Tuned once an arm:**" in text
