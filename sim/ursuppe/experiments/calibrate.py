"""``soup calibrate``: what should a gene cost? Scan one numeric key of the gene (docs/verdicts.md).

For every value of the key (``price`` or ``mp``) the gene is measured by one design of
sim/ursuppe/experiments/gene_value.py in the verdict's headline cell (holder breeder, every other seat drawn
from the default mix, the rules' deck and readings), on the same fresh games at every value:

- ``option`` (default): option value by restricted search (sim/ursuppe/experiments/restricted.py):
  the same search player allowed vs denied the gene, paired games. A gene priced right is worth
  little as an option; a gene too cheap is worth a lot.
- ``option-tuned``: option value by tuned arms (allowed vs forbidden, both arms tuned by CMA-ES,
  over independent tuning replicates).
- ``holding``: with ``--key price``, holding the gene from setup minus holding its price in BP
  (both given at setup, paired game by game): 0 where the gene is worth exactly its price; with
  another key, the holding value itself (0 where holding it is worth nothing).

The *neutral value* is where the curve crosses 0 (linear interpolation between the two scanned
values around the first sign change), else the scanned value closest to 0. Each value is a
directory of its own under ``values/`` (units written as measured): Ctrl-C keeps them and the
same command continues.
"""

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from sim.errors import UserError
from sim.runner import write_atomic
from sim.ursuppe.experiments import gene_value as G
from sim.ursuppe.experiments import restricted as R
from sim.ursuppe.experiments import tuning as T
from sim.ursuppe.experiments import verdict as V

KEYS = ("price", "mp")
DESIGNS = ("option", "option-tuned", "holding")
RESULT_MD = "calibrate.md"
RESULT_CSV = "calibrate.csv"
RESULT_JSON = "calibrate.json"
RESULT_PNG = "calibrate.png"


@dataclass
class Calibration:
    plan: V.Plan
    key: str
    values: list[int]
    design: str
    current: int
    field_search: Any = None  # --search-field: every other seat this search player (holding, search holder)

    def head(self) -> V.Condition:
        """Where the gene is measured: the verdict's headline cell (restricted search: its rules
        and field with the search player at player 0; with ``field_search``, the search holder
        against a field of that search player, its rollouts by its own preset)."""
        if self.design == "option":
            return self.plan.option_condition()
        head = self.plan.conditions[0]
        if self.field_search is None:
            return head
        fld, _ = V._field(self.field_search.rollout, self.plan.players)
        label = (
            f"holder {head.search.name} (search, rollouts by {head.search.rollout}) vs every other seat "
            f"{self.field_search.name} (search, rollouts by {self.field_search.rollout})"
        )
        return replace(head, label=label, fld=fld, field_search=self.field_search)

    def games(self) -> int:
        """Fresh games of every arm (a search player's: --search-games)."""
        return self.plan.search_games if self.head().search else self.plan.games

    def config(self, value: int, replicate: int = 0) -> T.TuneConfig:
        head = self.head()
        book = head.setting.book.derive({"genes": {self.plan.gene: {self.key: value}}})
        setting = replace(head.setting, book=book)
        if self.design != "option-tuned":
            return T.TuneConfig(
                setting, head.holder, head.fld, (), 0, seed=self.plan.seed, eval_games=self.games()
            )
        # the gene's two arms only: option_budget tuning games each, on the replicate's own seed
        return replace(
            self.plan.option_config(replicate), setting=setting, budget=2 * self.plan.option_budget
        )

    def units(self) -> list[G.Unit]:
        if self.design == "holding" and self.key == "price":
            return [G.Unit("gene", self.plan.gene), G.Unit(G.BP_FORBIDDEN, self.plan.gene)]
        return [G.Unit("gene", self.plan.gene)]

    def games_per_value(self) -> int:
        if self.design == "holding":
            return (len(self.units()) + 1) * self.games()
        if self.design == "option":
            return 2 * self.games()
        return self.plan.option_replicates * G.study_games(
            self.config(self.values[0]), [self.plan.gene], "option", ()
        )


def plan_calibration(
    gene: str,
    key: str = "price",
    values: list[int] | None = None,
    design: str = "option",
    players: int = 4,
    rules_file: str | Path | None = None,
    games: int = V.DEFAULT_GAMES,
    option_budget: int = V.DEFAULT_OPTION_BUDGET,
    seed: int = 1,
    option_replicates: int = G.DEFAULT_REPLICATES,
    holder: str = V.HEADLINE[0],
    search: str = R.DEFAULT_SEARCH,
    search_games: int = R.DEFAULT_SEARCH_GAMES,
    search_field: str | None = None,
) -> Calibration:
    """Check every option (UserError, one line) and fix the values scanned (default: the
    current value - 3 .. + 3, within the key's range). ``holder``: the headline's holder (a
    search player with --design holding); ``search``: restricted search's player (--design
    option; a search ``holder`` is taken for it); ``search_field``: with --design holding and a
    search holder, every other seat this search player (a field of search players)."""
    if key not in KEYS:
        raise UserError(f"--key: expected one of {', '.join(KEYS)}, got {key!r}")
    if design not in DESIGNS:
        raise UserError(f"--design: expected one of {', '.join(DESIGNS)}, got {design!r}")
    if design == "option-tuned" and option_budget <= 0:
        raise UserError("--option-budget: option value by tuned arms tunes both; expected a positive budget")
    if search_field and (design != "holding" or not R.is_search(holder)):
        raise UserError(
            "--search-field: a field of search players needs --design holding and a search --holder"
        )
    if design == "option" and R.is_search(holder):
        search = holder  # the search holder is the player allowed and denied the gene
    plan = V.plan_verdict(
        gene,
        players,
        rules_file,
        games,
        decks=1,
        with_readings=False,
        # restricted search plays no tuning: any positive budget switches option value on
        option_budget=(option_budget if design == "option-tuned" else 1) if design != "holding" else 0,
        seed=seed,
        option_replicates=option_replicates,
        holder=holder if design != "option" or not R.is_search(holder) else V.HEADLINE[0],
        option_design="tuned" if design == "option-tuned" else "restricted",
        search=search if design == "option" else None,
        search_games=search_games,
    )
    row = plan.book.data["genes"][plan.gene]
    current = int(row[key])
    if values is None:
        values = [v for v in range(current - 3, current + 4) if v >= 0]
    values = sorted(dict.fromkeys(values))
    if len(values) < 2:
        raise UserError(f"--values: expected at least 2 distinct values, got {values}")
    field_search = V._search_player("--search-field", search_field) if search_field else None
    cal = Calibration(plan, key, values, design, current, field_search)
    for v in values:
        try:
            cfg = cal.config(v)  # a value the rules refuse is a one-line error naming it
        except UserError as e:
            raise UserError(f"--values: {v}: {e}") from None
        if design == "option-tuned":
            G.check_study(cfg, [plan.gene], "option", ())
    return cal


def budget_line(cal: Calibration) -> str:
    """What the calibration will play, printed before any game (issue 32.7)."""
    head = cal.head()
    if cal.design == "option-tuned":
        what = (
            f"option value by tuned arms ({cal.plan.option_replicates} tuning replicates x 2 arms x "
            f"{cal.plan.option_budget:,} tuning games)"
        )
    elif cal.design == "option":
        what = f"option value by restricted search ({head.search.name} allowed vs denied)"
    else:
        what = f"holding value (holder {head.search.name if head.search else head.holder.name})"
    total = cal.games_per_value() * len(cal.values)
    seconds = total * cal.plan.game_seconds(head)  # a search holder's (and its search field's) or scripted
    if head.field_search is not None:
        what += f" vs {cal.plan.players - 1} x {head.field_search.name}"
    return (
        f"calibrate {cal.plan.gene}, {cal.key} at {', '.join(map(str, cal.values))} "
        f"(the rules': {cal.current}), {cal.plan.players} players: {what}, "
        f"{cal.games():,} fresh games an arm; "
        f"{total:,} games in all, {V.duration(seconds)} on one core; detectable effect about "
        f"{V.detectable(cal.games()):.1f} points a value (80% power)"
    )


def _paired(cal: Calibration, measured: dict[str, dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """The two outcome vectors the curve compares at one value, on the same games: holding the
    gene vs holding its price in BP that player 0 may not spend on the gene (``--key price``), else
    holding the gene vs not."""
    gene = measured[G.Unit("gene", cal.plan.gene).key]
    if cal.design == "holding" and cal.key == "price":
        return gene["won_with"], measured[G.Unit(G.BP_FORBIDDEN, cal.plan.gene).key]["won_with"]
    return gene["won_with"], gene["won_without"]


def _curve_point(cal: Calibration, measured: dict[str, dict[str, Any]]) -> dict[str, Any]:
    c = G._contrast(*_paired(cal, measured))
    return {"estimate": c["estimate"], "low": c["ci_low"], "high": c["ci_high"], "p_value": c["p_value"]}


BOOTSTRAP = 999  # resamples of the games for the neutral value's interval


def neutral_interval(values: list[int], diffs: np.ndarray, seed: int) -> tuple[float | str, float | str]:
    """A 95% percentile bootstrap interval (scipy) of the neutral value: the games are resampled
    together at every value (the same games: common random numbers) and the crossing found again
    in each resample. A bound beyond the scan is "below the scan" / "above the scan" (the crossing
    lay outside it in more than 2.5% of the resamples). ``diffs``: [games, values] per-game
    differences of the curve."""
    from scipy import stats

    lo_edge = float(values[0] - (values[-1] - values[0]))
    hi_edge = float(values[-1] + (values[-1] - values[0]))

    def crossing(games: np.ndarray) -> float:
        # a resample of the games' indices: every value's games resampled together
        cross, _, where = neutral(values, [float(x) for x in diffs[games.astype(np.int64)].mean(axis=0)])
        if cross is not None:
            return float(cross)
        return hi_edge if where == "above" else lo_edge

    res = stats.bootstrap(
        (np.arange(len(diffs), dtype=np.float64),),
        crossing,
        vectorized=False,
        n_resamples=BOOTSTRAP,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)

    def bound(x: float) -> float | str:
        return "below the scan" if x <= lo_edge else "above the scan" if x >= hi_edge else x

    return bound(lo), bound(hi)


def neutral(values: list[int], estimates: list[float]) -> tuple[float | None, int, str]:
    """(where the curve crosses 0, interpolated between the values around the first sign change,
    or None when it does not cross 0 in the scan; the scanned value closest to 0; where the
    crossing lies: "in" the scan, or "above"/"below" it, on the side the curve heads to 0)."""
    nearest = values[int(np.argmin(np.abs(estimates)))]
    pairs = list(zip(values, estimates, strict=True))
    for (v0, e0), (v1, e1) in zip(pairs, pairs[1:], strict=False):
        if e0 == 0:
            return float(v0), nearest, "in"
        if (e0 > 0) != (e1 > 0):
            return v0 + (v1 - v0) * e0 / (e0 - e1), nearest, "in"
    if estimates[-1] == 0:
        return float(values[-1]), nearest, "in"
    heads_up = abs(estimates[-1]) < abs(estimates[0])  # closer to 0 at the top of the scan
    return None, nearest, "above" if heads_up else "below"


def run_calibration(
    cal: Calibration, out: Path, threads: int, progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """Measure the gene at every scanned value (each under ``out``/values/, resumed when kept),
    find the neutral value and write calibrate.md/.csv/.json/.png; returns the JSON document."""
    step = G.GameCount(cal.games_per_value() * len(cal.values), progress)

    t0 = time.perf_counter()
    points = []
    diffs = []
    for v in cal.values:
        point, diff = _measure_value(cal, v, out / "values" / f"{cal.key}-{v}", threads, step)
        points.append(point)
        if diff is not None:
            diffs.append(diff)
    doc = _calibration_doc(cal, points, diffs)
    write_outputs(doc, out, time.perf_counter() - t0)
    return doc


def _measure_value(
    cal: Calibration, v: int, where: Path, threads: int, step: G.GameCount
) -> tuple[dict[str, Any], np.ndarray | None]:
    """The curve's point at value ``v`` and the per-game differences behind it (None for
    option-tuned, whose points come from separate tunings)."""
    cfg = cal.config(v)
    before = step.done
    units = cal.units()
    if cal.design == "option-tuned":
        # option value over independent tuning replicates (issue 32.1), as soup verdict's
        reps = []
        for r in range(cal.plan.option_replicates):
            cfg_r = G.fixed_field(cal.config(v, r))
            arm_budget = G._arm_budget(cfg_r, units)
            reps.append(
                G.measure_unit("option", cfg_r, units[0], where / f"rep-{r}", arm_budget, threads, step)
            )
        step(cal.games_per_value() - (step.done - before))  # a resumed value counts as played
        c = G.replicated(reps)
        point = {
            "value": v,
            "estimate": c["estimate"],
            "low": c["ci_low"],
            "high": c["ci_high"],
            "p_value": c["p_value"],
            "measured": c["measured"],
            "note": "; ".join(c["not_measured_because"]),
        }
        return point, None
    measured = {}
    for unit in units:
        if cal.design == "option":
            measured[unit.key] = R.measure_restricted(cfg, unit, cal.head().search, where, step)
        elif cal.design == "holding" and cal.head().search:
            measured[unit.key] = R.measure_search_holding(
                cfg, unit, cal.head().search, where, step, field_search=cal.head().field_search
            )
        else:
            measured[unit.key] = G.measure_unit(cal.design, G.fixed_field(cfg), unit, where, 0, threads, step)
    step(cal.games_per_value() - (step.done - before))  # a resumed value counts as played
    point = {"value": v, **_curve_point(cal, measured), "measured": True, "note": ""}
    a, b = _paired(cal, measured)
    return point, a.astype(np.float64) - b


def _calibration_doc(
    cal: Calibration, points: list[dict[str, Any]], diffs: list[np.ndarray]
) -> dict[str, Any]:
    """The scan's JSON document: the curve, its neutral value with interval and the direction
    the rules' value should move."""
    cross, nearest, where_ = neutral([p["value"] for p in points], [p["estimate"] for p in points])
    interval = (
        neutral_interval(cal.values, np.stack(diffs, axis=1), cal.plan.seed)
        if cal.design != "option-tuned"
        else ("—", "—")
    )
    if cross is None:  # beyond the scan: a direction only if the rules' value is inside it
        if where_ == "above":
            direction = "up" if cal.values[-1] >= cal.current else "unknown"
        else:
            direction = "down" if cal.values[0] <= cal.current else "unknown"
    else:
        direction = "up" if cross > cal.current else "down" if cross < cal.current else "none"
    if not all(p["measured"] for p in points):
        direction = "unknown"  # tuning noise at some value: no direction from this scan
    what = (
        "holding the gene minus holding its price in BP that player 0 may not spend on the gene"
        if cal.design == "holding" and cal.key == "price"
        else {
            "option": "option value by restricted search",
            "option-tuned": "option value by tuned arms",
            "holding": "holding value",
        }[cal.design]
    )
    return {
        "gene": cal.plan.gene,
        "key": cal.key,
        "current": cal.current,
        "design": cal.design,
        "measure": what,
        "players": cal.plan.players,
        "condition": cal.head().label,
        "rules_id": cal.plan.book.rules_id,
        "deck": cal.plan.book.deck_description(),
        "placeholders": cal.plan.book.placeholders(cal.plan.players),
        "games": cal.plan.games,
        "seed": cal.plan.seed,
        "points": points,
        "neutral": cross,
        "neutral_low": interval[0],
        "neutral_high": interval[1],
        "crossing": where_,
        "nearest": nearest,
        "direction": direction,
    }


def markdown(doc: dict[str, Any], seconds: float) -> str:
    g, k = doc["gene"], doc["key"]
    move = {"up": "higher than", "down": "lower than", "none": "at", "unknown": "nowhere certain from"}[
        doc["direction"]
    ]
    if doc["neutral"] is None:
        edge = (
            max(p["value"] for p in doc["points"])
            if doc["crossing"] == "above"
            else min(p["value"] for p in doc["points"])
        )
        head = (
            f"**No {k} in the scan is neutral:** the curve does not cross 0 between "
            f"{doc['points'][0]['value']} and {doc['points'][-1]['value']}; it heads to 0 "
            f"{doc['crossing']} {edge} (scan further with --values); neutral {neutral_range(doc)}. "
            f"The rules' {k} is {doc['current']}, so the scan points {move} it."
        )
    else:
        head = (
            f"**The {k} closest to neutral is {doc['neutral']:.1f} {neutral_range(doc)}** "
            f"(scanned value nearest to 0: {doc['nearest']}); "
            f"the rules' {k} is {doc['current']}, so the scan points {move} it."
        )
    unmeasured = [p["value"] for p in doc["points"] if not p.get("measured", True)]
    if unmeasured:
        head = (
            f"**Not measured at this budget at {k} {', '.join(map(str, unmeasured))}** (a tuning kept its "
            "start or the allowed arms bought the gene in under 1% of their games: the curve there is the "
            "tunings' noise; raise --option-budget). " + head
        )
    lines = [
        f"# Calibration: {g}, {k} ({doc['players']} players)",
        "",
        head,
        "",
        f"Measured: {doc['measure']}, win-rate points of player 0 with 95% intervals, {doc['games']:,} fresh "
        f"games a value (seed {doc['seed']}); condition: {doc['condition']}. Rules {doc['rules_id']}; deck "
        f"{doc['deck']}; placeholders used: {', '.join(doc['placeholders']) or 'none'}. The intervals cover "
        "sampling noise only; another field, holder, deck or reading can move the curve (`soup verdict`).",
        "",
        f"| {k} | estimate [95%] | p |",
        "|---|---|---|",
    ]
    for p in doc["points"]:
        mark = " (the rules')" if p["value"] == doc["current"] else ""
        note = "" if p.get("measured", True) else f" not measured at this budget ({p['note']})"
        lines.append(
            f"| {p['value']}{mark} | {100 * p['estimate']:+.1f} "
            f"[{100 * p['low']:+.1f}, {100 * p['high']:+.1f}]{note} | "
            f"{p['p_value']:.2g} |"
        )
    lines += [
        "",
        f"![curve]({RESULT_PNG})",
        "",
        f"Played in {seconds:.0f} s. How to read this: docs/verdicts.md.",
        "",
    ]
    return "\n".join(lines)


def neutral_range(doc: dict[str, Any]) -> str:
    """The neutral value's 95% interval in words ("[2.1, 5.0]"; an open end beyond the scan)."""
    if doc["design"] == "option-tuned":
        return "(no interval: option value's points come from separate tunings)"
    lo, hi = (x if isinstance(x, str) else f"{x:.1f}" for x in (doc["neutral_low"], doc["neutral_high"]))
    if lo == hi and isinstance(doc["neutral_low"], str):
        return f"{lo} in at least 97.5% of 999 bootstrap resamples of the games"
    return f"[{lo}, {hi}] (95% bootstrap over the games)"


def write_outputs(doc: dict[str, Any], out: Path, seconds: float) -> None:
    out.mkdir(parents=True, exist_ok=True)
    csv_text = "value,estimate,low,high,p_value\n" + "".join(
        f"{p['value']},{p['estimate']:.6g},{p['low']:.6g},{p['high']:.6g},{p['p_value']:.6g}\n"
        for p in doc["points"]
    )
    write_atomic(out / RESULT_CSV, lambda p: p.write_text(csv_text, encoding="utf-8"))
    js = json.dumps(doc, indent=1)
    write_atomic(out / RESULT_JSON, lambda p: p.write_text(js, encoding="utf-8"))
    md = markdown(doc, seconds)
    write_atomic(out / RESULT_MD, lambda p: p.write_text(md, encoding="utf-8"))
    write_atomic(out / RESULT_PNG, lambda p: _figure(doc, p))


def _figure(doc: dict[str, Any], path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 3.6))
    ax = fig.add_subplot()
    xs = [p["value"] for p in doc["points"]]
    ys = [100 * p["estimate"] for p in doc["points"]]
    lo = [100 * p["low"] for p in doc["points"]]
    hi = [100 * p["high"] for p in doc["points"]]
    ax.fill_between(xs, lo, hi, alpha=0.25, label="95% interval")
    ax.plot(xs, ys, marker="o", label=doc["measure"])
    ax.axhline(0, color="black", lw=0.8)
    ax.axvline(doc["current"], color="grey", ls=":", label=f"rules' {doc['key']}")
    if doc["neutral"] is not None:
        ax.axvline(doc["neutral"], color="red", ls="--", label="neutral")
    ax.set_xlabel(f"{doc['gene']}: {doc['key']}")
    ax.set_ylabel("win-rate points")
    ax.legend(fontsize=7)
    fig.tight_layout()
    with open(path, "wb") as f:
        fig.savefig(f, format="png", dpi=100)
