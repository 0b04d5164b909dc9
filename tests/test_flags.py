"""Rule flags of spec §10 across phases, where one scenario run (one phase or a whole round with
every decision between) would not pin them: the scenario's position and tape, then the engine's
phases one by one (docs/decisions.md, "Rule flags")."""

import pytest

from sim.ursuppe.engine import batch as batch_mod
from sim.ursuppe.tools.scenario import load_scenario, position_document, run_scenario


@pytest.mark.parametrize("once", [False, True])
def test_A3_answers_once_per_round_counts_phase_1_and_phase_5_together(once):
    """A2-A4, flag answers_once_per_round: P1's amoeba escapes P0's Phase-1 attack (11 -> 12).
    In Phase 5 P0's Aggression (R1) attacks it again on 12: by default it may escape again; with
    the flag its Escape was used this round, so it cannot answer and dies (R3)."""
    choices = [
        {"move": "drift"},
        {"attack": {"player": 1, "number": 1}},
        {"respond": ["escape"]},
        {"move": "drift"},
        {"move": "drift"},
        {"aggress": {"number": 2, "player": 1, "target": 1}},
    ]
    sc = load_scenario(
        {
            "players": 4,
            "rules": {"answers_once_per_round": once},
            "current_card": {"ozone": 11, "drift": "none"},
            "food": {"11": [0, 0, 0, 0]},
            "state": [
                {
                    "score": 1,
                    "bp": 2,
                    "genes": ["Aggression"],
                    "amoebas": [{"number": 1, "space": 11}, {"number": 2, "space": 12}],
                },
                {"score": 2, "bp": 2, "genes": ["Escape"], "amoebas": [{"number": 1, "space": 11}]},
                {"score": 3, "bp": 0},
                {"score": 4, "bp": 0},
            ],
            "dice": [3] if once else [3, 1],
            "choices": choices if once else [*choices, {"respond": ["escape"]}],
            "run": "phase1",
        }
    )
    after_phase1 = run_scenario(sc)
    assert after_phase1["state"][1]["amoebas"] == [{"number": 1, "space": 12, "dp": 0}]
    batch_mod.advance_phase(sc.batch, 5)
    assert sc.batch.workspace.error[0, 0] == 0
    doc = position_document(sc)
    assert doc["unused_choices"] == []
    phase5 = [e for e in doc["events"] if e["phase"] == 5]
    responses = [e["response"] for e in phase5 if e["type"] == "respond"]
    if once:
        assert responses == [[]] and doc["state"][1]["amoebas"] == []
    else:
        assert responses == [["escape"]]
        assert doc["state"][1]["amoebas"] == [{"number": 1, "space": 11, "dp": 0}]
