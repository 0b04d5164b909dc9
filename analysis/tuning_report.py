"""What every game's `soup tune` report needs (issue 13, point 1): its numbers as text, and the
report of a tuning over the game protocol (sim.experiments.tune_flow.GameTuning), from the result
alone (nothing here knows the engine). A game's own tuning reports are its analysis' (Ursuppe's
tune report, learning curve and gene-value table: analysis/ursuppe/tuning_report.py)."""

from typing import Any


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def p_text(p: float) -> str:
    """A p-value; one that underflows to 0 is below the smallest double."""
    return "< 1e-300" if p == 0 else f"{p:.2g}"


def interval(lo: float, hi: float) -> str:
    return f"[{pct(lo)}, {pct(hi)}]"


def game_tuning_markdown(doc: dict[str, Any]) -> str:
    """The report of soup tune over the game protocol (sim.experiments.tuning.GameTuning): the
    start and the tuned strategy on the same fresh games, and the learning curve in numbers."""
    from analysis.intervals import wilson

    n = doc["games"]
    rows = []
    for label, rate in (("start", doc["start_win_rate"]), ("tuned", doc["win_rate"])):
        lo, hi = wilson(round(rate * n), n)
        rows.append(f"| {label} | {rate:.3f} | [{float(lo):.3f}, {float(hi):.3f}] |")
    return "\n".join(
        [
            f"# soup tune --game {doc['game']}: {doc['start']} against {doc['field']} at "
            f"{doc['players']} players",
            "",
            f"{doc['rules']}; {doc['generations']} generations of {doc['population']} candidates, "
            f"{n:,} games each (seed {doc['seed']} on); tuned numbers "
            f"{', '.join(f'{x:g}' for x in doc['vector'])}; the tuned strategy: `{doc['spec']}`.",
            "",
            f"Win rate of the seat tuned (player 0) on {n:,} fresh games (seed "
            f"{doc['seed'] + doc['generations']}), the same for both; 95% Wilson intervals (sampling noise "
            "only):",
            "",
            "| strategy | win rate | 95% interval |",
            "|---|---|---|",
            *rows,
            "",
            "Best win rate of each generation: " + ", ".join(f"{r:.3f}" for r in doc["history"]),
            "",
        ]
    )
