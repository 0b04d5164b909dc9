"""A skill ladder's results as a file, a figure and a report section (game-agnostic; issues 33.4
and 34.3).

``soup skill`` (sim/experiments/skill.py) writes ``skill.json`` into its directory: the game, the
player count, the field, and each rung's win rate at player 0 with its 95% Wilson interval and,
when the field's own strategy is a rung, its paired gain over it; the skill curve (each doubling
of the search budget's paired gain); the skill depth and the strongest rung. A balance report
given that directory (``soup report RUN --skill DIR``) shows the ladder's table and figure and
names the strongest rung it knows.
"""

import json
from pathlib import Path
from typing import Any

import numpy as np

from analysis.pages import Page
from analysis.report_runs import ReportError
from analysis.tables import Col

LADDER_FILE = "skill.json"
FIGURE_FILE = "skill.png"
_KEYS = ("game", "players", "field", "rungs", "curve", "strongest", "depth")


class LadderError(ReportError):
    """A skill directory that holds no readable ladder (a user error: one line; a report given
    one stops with it like any other report error)."""


def read_ladder(directory: str | Path) -> dict[str, Any]:
    """The ladder ``soup skill`` wrote into ``directory`` (a LadderError names what is wrong)."""
    path = Path(directory) / LADDER_FILE
    if not path.is_file():
        raise LadderError(f"{directory}: no {LADDER_FILE}: expected a directory written by soup skill")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise LadderError(
            f"{path}: not a skill ladder written by soup skill ({e.__class__.__name__})"
        ) from None
    missing = [k for k in _KEYS if not isinstance(doc, dict) or k not in doc]
    if missing:
        raise LadderError(
            f"{path}: missing {', '.join(missing)}: expected a skill ladder written by soup skill"
        )
    return doc


def strongest_line(doc: dict[str, Any]) -> str:
    """One sentence: the strongest rung the ladder knows, its win rate and the skill depth."""
    best = next(r for r in doc["rungs"] if r["strategy"] == doc["strongest"])
    fair = 1 / doc["players"]
    return (
        f"The strongest rung of the skill ladder ({doc['game']}, {doc['players']} players, each rung "
        f"at one seat against a {doc['field']} field) is **{best['strategy']}**: it wins "
        f"{best['rate']:.1%} [{best['low']:.1%}–{best['high']:.1%}] (fair share {fair:.1%}); the skill "
        f"depth, the strongest rung's win rate minus random's, is {doc['depth'] * 100:+.1f} points."
    )


def figure(doc: dict[str, Any]) -> Any:
    """Win rate per rung with its interval, the fair share dashed (a matplotlib figure)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rungs = doc["rungs"]
    fig, ax = plt.subplots(figsize=(max(5.0, 0.7 * len(rungs) + 2), 3.6))
    x = np.arange(len(rungs))
    rate = np.array([r["rate"] for r in rungs])
    err = np.array([[r["rate"] - r["low"] for r in rungs], [r["high"] - r["rate"] for r in rungs]])
    ax.errorbar(x, rate, yerr=err, fmt="o", capsize=3)
    ax.axhline(1 / doc["players"], linestyle="--", color="grey", linewidth=1)
    ax.set_xticks(x, [r["strategy"] for r in rungs], rotation=30, ha="right")
    ax.set_ylabel("win rate of the rung (95% CI)")
    ax.set_ylim(0, 1)
    ax.set_title(f"{doc['game']}, {doc['players']} players, field {doc['field']}")
    fig.tight_layout()
    return fig


def section_skill(r: Page, doc: dict[str, Any], source: Path) -> None:
    """The ladder of ``soup skill`` in ``source``: the strongest rung, the table and the figure."""
    r.text("## Skill ladder")
    r.text(
        f"From `{source}` (`soup skill`). {strongest_line(doc)} Each rung played the same games "
        "(seed and seats); *over the field* is the rung's paired gain over the field's own strategy "
        "at that seat, the interval the per-game differences'. A finding that holds among scripted "
        "players may not hold among players this much stronger: see *Under strong play* where a "
        "run of search players is given."
    )
    rows = [
        {
            "rung": x["strategy"],
            "games": x["games"],
            "win_rate": x["rate"],
            "ci_low": x["low"],
            "ci_high": x["high"],
            "over_field": (x.get("over_field") or {}).get("estimate", float("nan")),
            "over_low": (x.get("over_field") or {}).get("low", float("nan")),
            "over_high": (x.get("over_field") or {}).get("high", float("nan")),
        }
        for x in doc["rungs"]
    ]
    import polars as pl

    r.table(
        "skill_ladder",
        pl.DataFrame(rows),
        [
            ("rung", "rung", "text"),
            Col.GAMES,
            ("win_rate", "win rate", "rate"),
            Col.CI95,
            ("over_field", f"over {doc['field']} (paired)", "signed"),
            ("over_low|over_high", "95% CI", "sci"),
        ],
    )
    for g in doc["curve"]:
        gains = "still gains" if g["low"] > 0 else "no significant gain"
        r.text(
            f"- {g['base']} → {g['better']}: {g['estimate'] * 100:+.1f} points "
            f"[{g['low'] * 100:+.1f}, {g['high'] * 100:+.1f}], paired ({gains})."
        )
    r.figure(
        "skill_ladder",
        figure(doc),
        "Win rate of each rung at one seat against the field; dashed: fair share.",
    )
