"""Gene value: what a gene is worth, by a design that measures the gene (docs/verdicts.md).

A gene's purchase rate in a simulation mixes the gene's strength with the strategies' taste for
it. The designs here compare two arms on the same fresh games (common random numbers, rotate
seating; the studied player is player 0, the others are the field), with a paired,
cluster-robust interval (analysis.ursuppe.paired) and a Holm correction over the genes:

- **option value** (the default; restricted play): the studied player may buy the gene vs may
  not (its gene value played at 0, G1: never bought). Both arms are tuned from the same start on
  the same seeds over the same search space (the gene's value is one of its dimensions, masked
  to 0 in the forbidden arm), so every other parameter adapts to the restriction and a gene
  that changes nothing gives the same tuning in both arms. The allowed player may always decline
  the gene: it keeps the forbidden arm's strategy when that wins more of the tuning's validation
  games (``declined``), so a tuning that wandered into buying a useless gene reads 0, not less.
  It answers "what is it worth to be allowed this gene?" and is never negative in expectation.
- **holding value**: the studied player is given the gene at setup and never gives it up
  (Rules.gift_keep = GIFT_KEPT: a gene defect is paid with other cards or BP, and when those fall
  short with every other card and all its BP; Highly Adaptable cannot exchange it, the Social
  Gene cannot be taken, it is not given up for an advanced gene) vs not given it, with the same
  strategy. It answers "what is holding it worth?", price aside.
- **cost of a forced purchase** (``forced``, only on request): the gene bought whenever
  affordable (FORCED_GENE_VALUE: bought first, never saved for) vs never, both tuned. It
  measures a rigid plan, not the gene: the forced arm pays for the gene at the first chance.

Each design adds **reference arms** (sim/ursuppe/experiments/reference_genes.py) measured the same way: the
**null gene** (no effect: must read 0), the gene's **plain card** (its price, MP and weight, no
effect: the gene's value beyond being a card is the gene's contrast minus the plain card's, paired
game by game) and, for holding value, the **BP gift** (the gene's price in BP at setup).

A *unit* is one contrast (the gene, its plain card, its BP gift, the null gene). Each unit's
outcome vectors are written to ``units/`` as soon as it is measured and each tuned arm is an
ordinary tuning under ``arms/`` (checkpointed), so Ctrl-C loses at most one generation or one
unit and the same command continues.
"""

import hashlib
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from sim.runner import write_atomic, write_json_atomic
from sim.ursuppe.experiments import tuning as T
from sim.ursuppe.experiments.reference_genes import (
    NULL_GENE,
    NULL_TWIN,
    NULL_VALUE,
    plain_card_name,
    reference_overrides,
)
from sim.ursuppe.rules.book import GIFT_KEPT
from sim.ursuppe.rules.genes import EXTRA_GENES
from strategies.ursuppe.params import FORCED_GENE_VALUE


@dataclass(frozen=True)
class Design:
    """One design of gene value (a row of :data:`DESIGNS`, under its name): its two arms (with,
    without) and whether they are tuned."""

    label: str
    arms: tuple[str, str]
    tuned: bool
    question: str


DESIGNS: dict[str, Design] = {
    "option": Design(
        "option value",
        ("allowed", "forbidden"),
        True,
        "what is it worth to a good player to be allowed to buy it (both arms tuned)?",
    ),
    "holding": Design(
        "holding value",
        ("gifted", "not gifted"),
        False,
        "what is holding it from setup to the end worth, price aside (the same strategy)?",
    ),
    "retuned": Design(
        "holding value, holder re-tuned",
        ("gifted", "not gifted"),
        True,
        "what is holding it worth to a holder that re-tunes its play around it (both arms tuned)?",
    ),
    "forced": Design(
        "cost of a forced purchase",
        ("forced", "never"),
        True,
        "what does a plan that buys it at the first chance cost or gain against never buying it?",
    ),
}
DEFAULT_DESIGN = "option"
GIFT_DESIGNS = (
    "holding",
    "retuned",
)  # the designs that give the gene at setup (a BP gift is their reference)
# calibrate's reference (issue 32.2): the gene's price as a BP gift that player 0 may not spend on
# the gene, so that no arm is the gene arm again (breeder spent a plain BP gift on the gene at once)
BP_FORBIDDEN = "bp_forbidden"
REFERENCES = ("null", "plain", "bp")  # the reference arms a study adds (bp: holding value only)
RESULT = "gene_value.json"
REPORT = "gene_value.md"


def slug(gene: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", gene.lower()).strip("-")


@dataclass(frozen=True)
class Unit:
    """One contrast of a study: ``kind`` gene, plain (the gene's plain card), bp (its price as a
    BP gift) or null (the null gene); ``gene`` is the studied gene (None for the null gene)."""

    kind: str
    gene: str | None

    @property
    def key(self) -> str:
        if self.kind == "null":
            return "null"  # one a study
        return slug(self.gene or "") if self.kind == "gene" else f"{self.kind}-{slug(self.gene or '')}"

    @property
    def label(self) -> str:
        if self.kind == "null":
            return NULL_GENE
        if self.kind == "plain":
            return plain_card_name(self.gene or "")
        if self.kind == "bp":
            return f"BP gift ({self.gene})"
        if self.kind == BP_FORBIDDEN:
            return f"BP gift, {self.gene} forbidden"
        return self.gene or ""


class GameCount:
    """Games played so far out of ``total``, reported to ``progress(done, total)`` after each
    part (a study, a verdict, a calibration); a resumed part counts as played."""

    def __init__(self, total: int, progress: Callable[[int, int], None] | None) -> None:
        self.total = total
        self.done = 0
        self.progress = progress

    def __call__(self, games: int) -> None:
        self.done += games
        if self.progress:
            self.progress(min(self.done, self.total), self.total)


def study_units(design: str, genes: list[str], references: tuple[str, ...]) -> list[Unit]:
    """The units of a study: the null gene first (one for all genes), then per gene the gene,
    its plain card and (holding value) its BP gift."""
    # one null gene for the study, going through the first gene's code paths (its copies, valued as it)
    units = [Unit("null", genes[0] if genes else None)] if "null" in references else []
    for g in genes:
        units.append(Unit("gene", g))
        if "plain" in references:
            units.append(Unit("plain", g))
        if "bp" in references and design in GIFT_DESIGNS:
            units.append(Unit("bp", g))
    return units


def unit_setting(setting: T.Setting, unit: Unit, holding: bool = False) -> tuple[T.Setting, str | None]:
    """The setting a unit plays in (its reference gene declared as a number-only gene) and the
    parameter key of the gene it measures (None for a BP gift). ``holding``: the reference is a
    gift (one card; a plain card replaces one of the gene's own cards)."""
    if unit.kind == "gene":
        # the parameter key names the gene's slot (a number-only gene's declared name is the book's)
        return setting, T.GENE_PREFIX + T.GENE_NAMES[setting.book.gene_index(unit.gene or "")]
    if unit.kind in ("bp", BP_FORBIDDEN):
        return setting, None
    kinds = ("null",) if unit.kind == "null" else ("plain",)
    # holding value gives the plain card's one card away; option value offers as many cards as
    # the gene has (the null gene and its twin: reference_genes.NULL_COPIES each)
    copies = 1 if unit.kind == "plain" and holding else None
    layer = reference_overrides(unit.gene, kinds, setting.book, copies)
    index = setting.book.gene_index(unit.gene or "") if unit.gene else -1
    if unit.kind == "plain" and index not in EXTRA_GENES:
        # The plain card stands in for the gene's cards: holding value gifts it in place of one of
        # them (both arms deny the other players the same card), option value offers it in place
        # of all of them (the same market, without the effect). An extra gene's one card lies in
        # the face-down deck (XM3): it stays there, and the plain card joins the open market.
        name = _canonical(setting.book, unit.gene or "")
        copies = setting.book.data["genes"][name]["copies"]
        left = {k: max(0, n - 1) if holding else 0 for k, n in copies.items()}
        layer["genes"][name] = {"copies": left}
    book = setting.book.derive(layer)
    name = NULL_GENE if unit.kind == "null" else plain_card_name(_canonical(setting.book, unit.gene or ""))
    return replace(setting, book=book), T.GENE_PREFIX + T.GENE_NAMES[book.gene_index(name)]


def _canonical(book: Any, gene: str) -> str:
    return book.gene_names[book.gene_index(gene)]


def unit_players(base: T.TuneConfig, unit: Unit) -> T.TuneConfig:
    """``base`` with every strategy (the start and the field) valuing a plain card as it values
    the studied gene (gene_value, G1): to every player the plain card is the gene without its
    effect, so its arms start where the gene's do and the field buys it as it buys the gene."""
    if unit.kind == "null":
        return _null_players(base)
    if unit.kind == BP_FORBIDDEN:
        # player 0 may not turn the gift into the gene (gene value 0: never bought, G1)
        v = base.start.vector.copy()
        v[T.GENE_VALUE_BASE + base.setting.book.gene_index(unit.gene or "")] = 0.0
        return replace(base, start=replace(base.start, vector=v))
    if unit.kind != "plain":
        return base
    gene = base.setting.book.gene_index(unit.gene or "")
    setting, key = unit_setting(base.setting, unit)
    slot = T.parameter_key_index(key or "")

    def as_gene(s: Any) -> Any:
        v = s.vector.copy()
        v[slot] = v[T.GENE_VALUE_BASE + gene]
        return replace(s, vector=v)

    return replace(
        base,
        start=as_gene(base.start),
        fld=replace(base.fld, strategies=tuple(map(as_gene, base.fld.strategies))),
    )


def _null_players(base: T.TuneConfig) -> T.TuneConfig:
    """``base`` with every strategy valuing the null gene and its twin at NULL_VALUE (a strategy
    file that names neither values them at 0 and would never buy them: the null gene would then
    change no draw and read 0 by construction)."""
    book = base.setting.book.derive(reference_overrides(None, ("null",)))
    slots = [T.GENE_VALUE_BASE + book.gene_index(n) for n in (NULL_GENE, NULL_TWIN)]

    def valued(s: Any) -> Any:
        v = s.vector.copy()
        v[slots] = NULL_VALUE
        return replace(s, vector=v)

    return replace(
        base,
        start=valued(base.start),
        fld=replace(base.fld, strategies=tuple(map(valued, base.fld.strategies))),
    )


def holding_edits(setting: T.Setting, unit: Unit) -> tuple[T.Setting, tuple[tuple[str, Any], ...]]:
    """Holding value's arm with the gift: player 0 holds the unit's gene from setup and keeps it;
    a BP gift is the gene's price in BP (its price at this player count)."""
    unit_set, key = unit_setting(setting, unit, holding=True)
    if unit.kind in ("bp", BP_FORBIDDEN):
        rules = setting.book.for_players(setting.players, setting.variant)
        price = int(rules.gene_price[setting.book.gene_index(unit.gene or "")])
        return unit_set, (("gift_to", 0), ("gift_bp", price))
    gene = T.parameter_key_index(key or "") - T.GENE_VALUE_BASE
    return unit_set, (("gift", (gene, -1)), ("gift_to", 0), ("gift_keep", GIFT_KEPT))


def arm_config(base: T.TuneConfig, unit: Unit, arm: str, arm_budget: int, design: str) -> T.TuneConfig:
    """The tuning of one arm of a tuned design: option value's allowed arm tunes the gene's value
    (added to the tuned keys), its forbidden arm pins it at 0; the forced arm pins it at
    FORCED_GENE_VALUE (bought when affordable, never saved for), never at 0."""
    d = DESIGNS[design]
    if design == "retuned":
        # holding value with the holder re-tuned: the gifted arm is tuned with the gift, the other
        # without it (the same tuning for every unit), from the same start on the same seeds
        name = f"{base.start.name}-{unit.key}-{slug(arm)}"
        if arm == d.arms[1]:
            return replace(base, budget=arm_budget, name=name)
        unit_set, edits = holding_edits(base.setting, unit)
        gifted = unit_players(base, unit)
        return replace(gifted, setting=replace(unit_set, edits=edits), budget=arm_budget, name=name)
    base = unit_players(base, unit)
    setting, key = unit_setting(base.setting, unit)
    assert key is not None
    keys = tuple(k for k in base.keys if k != key)
    pinned = dict(base.pinned)
    masked: dict[str, float] = {}
    if design == "option":
        # Both arms search the same space (the gene's value one of its dimensions): the forbidden
        # arm plays it at 0, so where the gene changes nothing the two arms are the same tuning.
        keys = (*keys, key)
        pinned.pop(key, None)
        if arm == d.arms[1]:
            masked[key] = 0.0
    elif arm == d.arms[0]:
        pinned[key] = FORCED_GENE_VALUE
    else:
        pinned[key] = 0.0
    return replace(
        base,
        setting=setting,
        keys=keys,
        pinned=pinned,
        masked=masked,
        budget=arm_budget,
        name=f"{base.start.name}-{unit.key}-{slug(arm)}",
    )


def fixed_field(base: T.TuneConfig) -> T.TuneConfig:
    """Both arms of every gene face the same field: self-play becomes copies of the start (a
    self-play field would follow each arm's own pinned strategy)."""
    if base.fld.kind != "self":
        return base
    return replace(base, fld=T.Field("against", (base.start,) * (base.setting.players - 1)))


def _arm_budget(base: T.TuneConfig, units: list[Unit]) -> int:
    return base.budget // max(1, 2 * len(units))


def study_games(
    base: T.TuneConfig,
    genes: list[str],
    design: str = DEFAULT_DESIGN,
    references: tuple[str, ...] = REFERENCES,
    decks: int = 1,
) -> int:
    """Games the study plays: every unit's arms (tuned designs: their tunings) and fresh games,
    and with ``decks`` > 1 every gene's arms again on each other deck."""
    units = study_units(design, genes, references)
    if not DESIGNS[design].tuned:
        # every deck: each gene's gift arm, and the arm without a gift on that deck
        return (len(units) + 1) * base.eval_games + (decks - 1) * (len(genes) + 1) * base.eval_games
    cfg = arm_config(fixed_field(base), units[0], DESIGNS[design].arms[0], _arm_budget(base, units), design)
    per_gene = 2 * (cfg.generations() * cfg.games_per_generation() + base.eval_games)
    return len(units) * per_gene + (decks - 1) * len(genes) * per_gene


def check_study(base: T.TuneConfig, genes: list[str], design: str, references: tuple[str, ...]) -> None:
    """Every arm's configuration is valid (T.TuningError, one line) before anything is played."""
    if design not in DESIGNS:
        raise T.TuningError(f"--design: expected one of {', '.join(DESIGNS)}, got {design!r}")
    bad = [r for r in references if r not in REFERENCES]
    if bad:
        raise T.TuningError(f"--references: expected some of {', '.join(REFERENCES)}, got {', '.join(bad)}")
    units = study_units(design, genes, references)
    base = fixed_field(base)
    if not DESIGNS[design].tuned:
        block = T.rotate_block(base.setting.players)
        if base.eval_games < block or base.eval_games % block:
            raise T.TuningError(
                f"--eval-games: expected a positive multiple of the rotate block ({block}), "
                f"got {base.eval_games}"
            )
        for unit in units:
            if unit.kind != "bp":
                holding_edits(base.setting, unit)
        return
    for unit in units:
        for arm in DESIGNS[design].arms:
            try:
                arm_config(base, unit, arm, _arm_budget(base, units), design).validate()
            except T.TuningError as e:
                raise T.TuningError(
                    f"{e} (gene value: the budget is shared by {2 * len(units)} arms)"
                ) from None


def _contrast(won_with: np.ndarray, won_without: np.ndarray) -> dict[str, Any]:
    """with - without win rate, paired by game (cluster-robust), as plain floats."""
    from analysis.ursuppe.paired import paired_difference

    games = np.arange(len(won_with))
    d = paired_difference(won_without, won_with, games, games, binary=True)
    out = {k: float(d[k]) for k in ("estimate", "ci_low", "ci_high", "p_value", "se")}
    if np.isnan(out["se"]):  # every changed game changed the same way: no spread, a point interval
        out.update(ci_low=out["estimate"], ci_high=out["estimate"], se=0.0)
    return out


def contrast_of_contrasts(
    a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
) -> dict[str, Any]:
    """(a_with - a_without) - (b_with - b_without), paired by game: how far unit a's contrast is
    above unit b's on the same games (e.g. the gene beyond its plain card)."""
    from analysis.ursuppe.paired import paired_difference

    games = np.arange(len(a[0]))
    y_b = a[0].astype(np.float64) + b[1]
    y_a = a[1].astype(np.float64) + b[0]
    d = paired_difference(y_a, y_b, games, games)
    return {k: float(d[k]) for k in ("estimate", "ci_low", "ci_high", "p_value")}


def measure_unit(
    design: str,
    base: T.TuneConfig,
    unit: Unit,
    out: Path,
    arm_budget: int,
    threads: int,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """One unit's outcome vectors on the fresh games (``won_with``, ``won_without`` of player 0,
    and the share of games player 0 bought / held the gene), from ``out/units/<key>.npz`` if it
    is there, else played (and written). ``progress(games)`` after each part."""
    path = out / "units" / f"{unit.key}.npz"
    if path.exists():
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    m = _Measuring(design, base, out, arm_budget, threads, progress)
    result = _tuned_unit(m, unit) if DESIGNS[design].tuned else _held_unit(m, unit)
    _save(path, result)
    return result


@dataclass(frozen=True)
class _Measuring:
    """What measuring a unit takes besides the unit (:func:`measure_unit`'s arguments)."""

    design: str
    base: T.TuneConfig
    out: Path
    arm_budget: int
    threads: int
    progress: Callable[[int], None] | None


def _held_unit(m: _Measuring, unit: Unit) -> dict[str, Any]:
    """Holding value's unit: the same strategy with the gift and without it (played once for every
    unit: ``units/no-gift.npz``) on the fresh games."""
    base, n = m.base, m.base.eval_games
    seed = T.fresh_seed(base.seed)
    without = m.out / "units" / "no-gift.npz"
    if without.exists():
        with np.load(without) as z:
            won0 = z["won"]
    else:
        won0 = T.play_field(base.setting, base.start_vector()[None, :], base.fld, seed, 0, n, m.threads)[0][0]
        _save(without, {"won": won0})
        if m.progress:
            m.progress(n)
    unit_set, edits = holding_edits(base.setting, unit)
    gifted = unit_players(base, unit)
    start1 = gifted.start_vector()[None, :]
    won1, _ = T.play_field(replace(unit_set, edits=edits), start1, gifted.fld, seed, 0, n, m.threads)
    if m.progress:
        m.progress(n)
    return {"won_with": won1[0], "won_without": won0}


def _tuned_unit(m: _Measuring, unit: Unit) -> dict[str, Any]:
    """A tuned design's unit: both arms tuned (:func:`_tuned_arms`), then played on the same fresh
    games; option value's allowed arm may decline the gene (:func:`_better_allowed`)."""
    seed = T.fresh_seed(m.base.seed)
    n, threads = m.base.eval_games, m.threads
    cfgs, vectors, kept = _tuned_arms(m, unit)
    declined = False
    if m.design == "option":
        vectors[0], declined = _better_allowed(cfgs[0], vectors[0], vectors[1], cfgs[0].fld, threads)
    if m.design == "retuned":  # each arm in its own setting (with and without the gift), the same games
        won = [
            T.play_field(c.setting, v[None, :], c.fld, seed, 0, n, threads)[0][0]
            for c, v in zip(cfgs, vectors, strict=True)
        ]
        result = {"won_with": won[0], "won_without": won[1]}
    else:
        setting, key = unit_setting(m.base.setting, unit)
        won, bought = T.play_field(setting, np.stack(vectors), cfgs[0].fld, seed, 0, n, threads)
        gi = T.parameter_key_index(key or "") - T.GENE_VALUE_BASE
        result = {
            "won_with": won[0],
            "won_without": won[1],
            "bought_with": np.float64(((bought[0] >> gi) & 1).mean()),
            "bought_without": np.float64(((bought[1] >> gi) & 1).mean()),
            "declined": np.bool_(declined),
            # each arm's tuning handed back its start (select_result): nothing was tuned
            "kept_start": np.array(kept, dtype=bool),
        }
    if m.progress:
        m.progress(2 * n)
    return result


def _tuned_arms(m: _Measuring, unit: Unit) -> tuple[list[T.TuneConfig], list[np.ndarray], list[bool]]:
    """Each arm of a unit tuned under ``out/arms/`` (checkpointed, its tuned.toml written): the
    arms' configurations, their tuned vectors and whether each kept its start."""
    d = DESIGNS[m.design]
    vectors, cfgs, kept = [], [], []
    for arm in d.arms:
        cfg = arm_config(m.base, unit, arm, m.arm_budget, m.design)
        cfgs.append(cfg)
        done = 0

        def arm_progress(games: int, _total: int) -> None:
            nonlocal done
            if m.progress and games > done:
                m.progress(games - done)
                done = games

        # re-tuned holding: every unit's arm without a gift is the same tuning, played once
        where = "no-gift" if m.design == "retuned" and arm == d.arms[1] else f"{unit.key}-{slug(arm)}"
        state = T.tune(cfg, m.out / "arms" / where, m.threads, arm_progress)
        v, check = T.select_result(cfg, state, m.threads)
        vectors.append(v)
        kept.append(check["kept"] == "start")
        text = T.tuned_toml(cfg, v, f"{m.base.start.name} tuned, {unit.label} {arm} ({d.label})")
        target = m.out / "arms" / where / T.TUNED
        write_atomic(target, lambda p, text=text: p.write_text(text, encoding="utf-8"))
    return cfgs, vectors, kept


# Option value's tuning replicates (issue 32.1): two arms tuned once each differ by their tunings'
# noise as well as by the gene (Tentacle at 0 copies read +1.9 [+0.8, +2.9] between two tuned files
# on fresh games alone). Each replicate tunes both arms again on a tuning seed of its own and plays
# fresh games of its own, so the replicates' contrasts are independent draws of (gene + tuning noise
# + fresh-game noise) and a t interval over them covers all three. Three is the fewest with a
# spread to read at all (t with 2 degrees of freedom: 4.30 standard errors at 95%); more narrow it.
DEFAULT_REPLICATES = 3
MIN_BOUGHT = 0.01  # an allowed arm that buys the gene in fewer games has not used the option


def replicate_seed(seed: int, replicate: int) -> int:
    """The tuning seed of option value's replicate ``replicate`` (0: ``seed`` itself)."""
    if replicate == 0:
        return seed
    digest = hashlib.blake2b(f"soup-option-replicate-{seed}-{replicate}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "little")


def replicated(per_replicate: list[dict[str, Any]], of: str = "gene") -> dict[str, Any]:
    """Option value over independent replicates: each replicate's contrast (with - without win
    rate on its own fresh games), their mean and a t interval over them (scipy), and whether the
    unit was measured at this budget: not when some replicate's arm kept its start (the tuning
    moved nothing) or the allowed arms bought it in fewer than MIN_BOUGHT of their games."""
    c = np.array([float(m["won_with"].mean() - m["won_without"].mean()) for m in per_replicate])
    return {**t_interval(c), **_measured(per_replicate, of)}


def t_interval(c: np.ndarray) -> dict[str, Any]:
    """Mean, standard error, 95% t interval and two-sided p of independent replicate contrasts."""
    from scipy import stats

    r = len(c)
    mean = float(c.mean())
    se = float(c.std(ddof=1) / np.sqrt(r)) if r > 1 else float("nan")
    if r > 1 and se > 0:
        q = float(stats.t.ppf(0.975, r - 1))
        p = float(2 * stats.t.sf(abs(mean) / se, r - 1))
    else:
        q, p = float("nan"), 1.0 if mean == 0 else float("nan")
    return {
        "estimate": mean,
        "ci_low": mean - q * se if r > 1 else mean,
        "ci_high": mean + q * se if r > 1 else mean,
        "p_value": p,
        "se": se,
        "replicates": [float(x) for x in c],
    }


def _measured(per_replicate: list[dict[str, Any]], of: str) -> dict[str, Any]:
    kept = any(bool(np.asarray(m.get("kept_start", [False])).any()) for m in per_replicate)
    bought = float(np.mean([float(m.get("bought_with", 0.0)) for m in per_replicate]))
    why = []
    if kept:
        why.append("a tuning kept its start (nothing tuned at this budget)")
    if bought < MIN_BOUGHT:
        why.append(f"the allowed arms bought the {of} in {100 * bought:.1f}% of their games (under 1%)")
    return {"measured": not why, "not_measured_because": why, "bought_with": bought}


def _better_allowed(
    allowed: T.TuneConfig, mine: np.ndarray, forbidden: np.ndarray, fld: T.Field, threads: int
) -> tuple[np.ndarray, bool]:
    """Option value's allowed player may always decline the gene: of its own tuning and the
    forbidden arm's (a strategy it may play too), it keeps the one that wins more of the tuning
    seed's validation games (the games no generation played, as select_result's check), so that a
    tuning that wandered into buying a useless gene does not read as a negative option. Returns
    (the vector, whether it declined)."""
    n = T.VALIDATION_BLOCKS * allowed.games_per_candidate
    first = allowed.generations() * allowed.games_per_candidate
    won, _ = T.play_field(allowed.setting, np.stack([mine, forbidden]), fld, allowed.seed, first, n, threads)
    if won[1].mean() > won[0].mean():
        return forbidden, True
    return mine, False


def _save(path: Path, arrays: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **arrays)

    write_atomic(path, write)


def gene_value_study(
    base: T.TuneConfig,
    genes: list[str],
    out: Path,
    threads: int,
    progress: Callable[[int, int], None] | None = None,
    design: str = DEFAULT_DESIGN,
    references: tuple[str, ...] = REFERENCES,
    decks: int = 1,
) -> dict[str, Any]:
    """Measure every gene (and the references) by ``design`` and write the ranked table (JSON
    and Markdown): per gene its contrast, the plain card's, the gene beyond its plain card and
    (holding value) the BP gift's; the null gene once; Holm over the genes. ``decks`` > 1: every
    gene is measured again on decks 1..K-1 of the V6 family (deck 0 is the rules' own, on which
    the table's estimates are), each deck on the same games, under ``deck-<k>/``; each row gains
    the per-deck estimates, their spread and whether the sign is the same on every deck."""
    from analysis.multiple_testing import holm
    from analysis.ursuppe.tuning_report import gene_value_markdown

    check_study(base, genes, design, references)
    if decks < 1:
        raise T.TuningError(f"--decks: expected at least 1, got {decks}")
    base = fixed_field(base)
    units = study_units(design, genes, references)
    arm_budget = _arm_budget(base, units)
    deck_list = _deck_family(base, decks)
    step = GameCount(study_games(base, genes, design, references, decks), progress)
    t0 = time.perf_counter()
    measured = _measure_all(design, base, units, out, arm_budget, threads, step)
    gene_units = [u for u in units if u.kind == "gene"]
    on_deck = []
    for k, deck in enumerate(deck_list[1:], start=1):
        from sim.ursuppe.experiments.deck_family import deck_overrides

        book = base.setting.book.derive(deck_overrides(deck))
        deck_base = replace(base, setting=replace(base.setting, book=book))
        where = out / f"deck-{k}"
        on_deck.append(_measure_all(design, deck_base, gene_units, where, arm_budget, threads, step))
    seconds = time.perf_counter() - t0
    rows = [_gene_row(design, g, measured, on_deck) for g in genes]
    for r, ph in zip(rows, holm([r["p_value"] for r in rows]), strict=True):
        r["p_holm"] = float(ph)
    rows.sort(key=lambda r: -r["estimate"])
    doc = _study_doc(base, design, references, units, arm_budget, deck_list if decks > 1 else [])
    doc |= {"null": _unit_contrast(design, Unit("null", None), measured), "genes": rows}
    write_json_atomic(out / RESULT, doc)
    text = gene_value_markdown(doc, seconds)
    write_atomic(out / REPORT, lambda p: p.write_text(text, encoding="utf-8"))
    return doc


def _measure_all(
    design: str,
    base: T.TuneConfig,
    units: list[Unit],
    out: Path,
    arm_budget: int,
    threads: int,
    step: GameCount,
) -> dict[str, dict[str, Any]]:
    """Every unit measured (:func:`measure_unit`) into ``out``, by key; a resumed unit counts its
    games as played."""
    measured = {}
    for unit in units:
        before = step.done
        have = (out / "units" / f"{unit.key}.npz").exists()
        measured[unit.key] = measure_unit(design, base, unit, out, arm_budget, threads, step)
        if have:
            step(_unit_games(base, DESIGNS[design], unit, units, arm_budget, design) - (step.done - before))
    return measured


def _unit_contrast(design: str, unit: Unit, measured: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """A measured unit's row: its contrast, both arms' win rates and what the design adds (the
    arms' purchases, a declined option, whether a tuned-once option was measured at all)."""
    m = measured.get(unit.key)
    if m is None:
        return None
    c = _contrast(m["won_with"], m["won_without"])
    c["with"] = float(m["won_with"].mean())
    c["without"] = float(m["won_without"].mean())
    if "bought_without" in m:
        c["bought_with"] = float(m["bought_with"])
        c["bought_without"] = float(m["bought_without"])
    if "declined" in m:
        c["declined"] = bool(m["declined"])
    if design == "option" and unit.kind == "gene" and "kept_start" in m:
        # tuned once an arm: an arm that kept its start, or a gene its allowed arm hardly
        # bought, is tuning noise, not a value (issue 32.1; soup verdict runs replicates)
        c.update(_measured([m], "gene"))
    return c


def _gene_row(
    design: str, gene: str, measured: dict[str, dict[str, Any]], on_deck: list[dict[str, dict[str, Any]]]
) -> dict[str, Any]:
    """A gene's row of the table: its contrast, its references beside it and (other decks) the
    per-deck estimates with their spread."""
    key = Unit("gene", gene).key
    row: dict[str, Any] = {"gene": gene, **(_unit_contrast(design, Unit("gene", gene), measured) or {})}
    plain = _unit_contrast(design, Unit("plain", gene), measured)
    if plain is not None:
        row["plain"] = plain
        a, b = measured[key], measured[Unit("plain", gene).key]
        row["beyond_card"] = contrast_of_contrasts(
            (a["won_with"], a["won_without"]), (b["won_with"], b["won_without"])
        )
    bp = _unit_contrast(design, Unit("bp", gene), measured)
    if bp is not None:
        row["bp_gift"] = bp
    if on_deck:
        arms = [measured[key], *(got[key] for got in on_deck)]
        est = [float(m["won_with"].mean() - m["won_without"].mean()) for m in arms]
        row["decks"] = est
        row["deck_spread"] = [min(est), max(est)]
        row["same_sign_every_deck"] = all(e > 0 for e in est) or all(e < 0 for e in est)
    return row


def _study_doc(
    base: T.TuneConfig,
    design: str,
    references: tuple[str, ...],
    units: list[Unit],
    arm_budget: int,
    deck_list: list[Any],
) -> dict[str, Any]:
    """The study's result document without its rows: the design, the setting and the budget."""
    d = DESIGNS[design]
    s = base.setting
    return {
        "design": design,
        "design_label": d.label,
        "question": d.question,
        "arms": list(d.arms),
        "start": base.start.name,
        "players": s.players,
        "variant": s.variant,
        "rules_id": s.book.rules_id,
        "deck": s.book.deck_description(),
        "deck_family": [_label(dk) for dk in deck_list],
        "placeholders": s.book.placeholders(s.players, s.variant),
        "field": base.fld.describe(),
        "seed": base.seed,
        "fresh_seed": T.fresh_seed(base.seed),
        "budget": base.budget if d.tuned else 0,
        "arm_budget": arm_budget if d.tuned else 0,
        "arm_games": _tuning_games(base, units, arm_budget, design) if d.tuned else 0,
        "eval_games": base.eval_games,
        "params": list(base.keys),
        "references": list(references),
    }


def _deck_family(base: T.TuneConfig, decks: int) -> list[Any]:
    """Deck 0 (the rules' own) and K-1 decks of the V6 family, drawn from the tuning seed."""
    if decks <= 1:
        return [None]
    from sim.ursuppe.experiments.deck_family import plausible_decks

    return plausible_decks(base.setting.book, decks, base.seed)


def _label(deck: Any) -> str:
    from sim.ursuppe.experiments.deck_family import deck_label

    return deck_label(deck)


def _tuning_games(base: T.TuneConfig, units: list[Unit], arm_budget: int, design: str) -> int:
    cfg = arm_config(base, units[0], DESIGNS[design].arms[0], arm_budget, design)
    return cfg.generations() * cfg.games_per_generation()


def _unit_games(
    base: T.TuneConfig, d: Design, unit: Unit, units: list[Unit], arm_budget: int, design: str
) -> int:
    """The games a unit accounts for in the progress total."""
    if not d.tuned:
        return base.eval_games * (2 if unit == units[0] else 1)
    return 2 * (_tuning_games(base, units, arm_budget, design) + base.eval_games)


def write_json(path: Path, doc: dict[str, Any]) -> None:
    """``doc`` as JSON, atomically (the verdict's and calibration's result files)."""
    write_atomic(path, lambda p: p.write_text(json.dumps(doc, indent=1), encoding="utf-8"))
