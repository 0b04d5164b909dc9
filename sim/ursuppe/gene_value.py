"""`soup tune --gene-value`: what a gene is worth under good play (issue 13, point 2).

A gene's purchase rate in a simulation mixes the gene's strength with the strategies' taste for
it. Here both sides play well: for every gene, two variants of the same start strategy (usually a
``soup tune`` result) are tuned against the same field on the same seeds, one **forced** to buy
the gene whenever it can (its gene value pinned at the maximum, GENE_VALUE_HIGH) and one that
**never** buys it (pinned at 0: a value of 0 or less is never bought, G1). Every other tuned
parameter adapts to the pin. The two tuned variants then play the same fresh games (common random
numbers, rotate seating), and the win-rate difference forced - never is the gene's value to a
good player, with a paired, cluster-robust (per game) interval (analysis.paired) and a Holm
correction over the genes (analysis.multiple_testing).

Each arm is an ordinary tuning in its own directory under ``arms/`` (checkpointed and resumable),
and each gene's evaluation is written to ``genes/`` as it is done, so Ctrl-C loses at most one
generation and the same command continues.
"""

import json
import re
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from sim.runner import write_atomic, write_json_atomic
from sim.ursuppe import tuning as T
from strategies.params import GENE_VALUE_HIGH

ARMS = {"forced": GENE_VALUE_HIGH, "never": 0.0}
RESULT = "gene_value.json"
REPORT = "gene_value.md"


def slug(gene: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", gene.lower()).strip("-")


def arm_config(base: T.TuneConfig, gene: str, arm: str, arm_budget: int) -> T.TuneConfig:
    """The tuning of one arm: the base configuration with the gene's value pinned and removed
    from the tuned parameters."""
    key = T.GENE_PREFIX + gene
    return replace(
        base,
        keys=tuple(k for k in base.keys if k != key),
        pinned={**base.pinned, key: ARMS[arm]},
        budget=arm_budget,
        name=f"{base.start.name}-{slug(gene)}-{arm}",
    )


def fixed_field(base: T.TuneConfig) -> T.TuneConfig:
    """Both arms of every gene face the same field: self-play becomes copies of the start (a
    self-play field would follow each arm's own pinned strategy)."""
    if base.fld.kind != "self":
        return base
    return replace(base, fld=T.Field("against", (base.start,) * (base.setting.players - 1)))


def study_games(base: T.TuneConfig, genes: list[str]) -> int:
    """Games the study plays: both arms of every gene, and every gene's fresh evaluation."""
    cfg = arm_config(fixed_field(base), genes[0], "forced", base.budget // (2 * len(genes)))
    return 2 * len(genes) * (cfg.generations() * cfg.games_per_generation() + base.eval_games)


def gene_value_study(
    base: T.TuneConfig,
    genes: list[str],
    out: Path,
    threads: int,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Tune both arms of every gene (``base.budget`` games in all, shared evenly), evaluate each
    gene's arms on the same fresh games and write the ranked table (JSON and Markdown)."""
    from analysis.multiple_testing import holm
    from analysis.paired import paired_difference

    base = fixed_field(base)
    arm_budget = base.budget // (2 * len(genes))
    cfgs = {(g, a): arm_config(base, g, a, arm_budget) for g in genes for a in ARMS}
    for cfg in cfgs.values():
        try:
            cfg.validate()
        except T.TuningError as e:
            raise T.TuningError(
                f"{e} (--gene-value: the budget is shared by {2 * len(genes)} arms)"
            ) from None
    per_arm = next(iter(cfgs.values()))
    arm_games = per_arm.generations() * per_arm.games_per_generation()
    total = study_games(base, genes)
    done = 0
    seconds = 0.0
    (out / "genes").mkdir(parents=True, exist_ok=True)
    rows = []
    seed = T.fresh_seed(base.seed)
    for gene in genes:
        path = out / "genes" / f"{slug(gene)}.json"
        if path.exists():
            row = json.loads(path.read_text())
            done += 2 * arm_games + 2 * base.eval_games
            if progress:
                progress(done, total)
            rows.append(row)
            continue
        vectors = []
        for arm in ARMS:
            cfg = cfgs[(gene, arm)]
            offset = done

            def arm_progress(d: int, _t: int, offset: int = offset) -> None:
                if progress:
                    progress(offset + d, total)

            state = T.tune(cfg, out / "arms" / f"{slug(gene)}-{arm}", threads, arm_progress)
            seconds += state.seconds
            done += arm_games
            v, _ = T.select_result(cfg, state, threads)
            vectors.append(v)
            text = T.tuned_toml(cfg, v, f"{base.start.name} tuned with {gene} {arm} (soup tune --gene-value)")
            target = out / "arms" / f"{slug(gene)}-{arm}" / T.TUNED
            write_atomic(target, lambda p, text=text: p.write_text(text, encoding="utf-8"))
        t0 = time.perf_counter()
        won, bought = T.play_field(
            base.setting, np.stack(vectors), base.fld, seed, 0, base.eval_games, threads
        )
        seconds += time.perf_counter() - t0
        done += 2 * base.eval_games
        if progress:
            progress(done, total)
        games = np.arange(base.eval_games)
        d = paired_difference(won[1], won[0], games, games, binary=True)  # forced - never
        gi = T.parameter_key_index(T.GENE_PREFIX + gene) - T.GENE_VALUE_BASE
        row = {
            "gene": gene,
            "forced": float(won[0].mean()),
            "never": float(won[1].mean()),
            "difference": d["estimate"],
            "ci_low": d["ci_low"],
            "ci_high": d["ci_high"],
            "p_value": d["p_value"],
            "test": d["test"],
            "discordant": int(d["discordant"]),
            "forced_bought": float(((bought[0] >> gi) & 1).mean()),
            "never_bought": float(((bought[1] >> gi) & 1).mean()),
        }
        write_json_atomic(path, row)
        rows.append(row)
    p_holm = holm([r["p_value"] for r in rows])
    for r, ph in zip(rows, p_holm, strict=True):
        r["p_holm"] = float(ph)
    rows.sort(key=lambda r: -r["difference"])
    doc = {
        "start": base.start.name,
        "players": base.setting.players,
        "variant": base.setting.variant,
        "rules_id": base.setting.book.rules_id,
        "field": base.fld.describe(),
        "seed": base.seed,
        "fresh_seed": seed,
        "budget": base.budget,
        "arm_budget": arm_budget,
        "arm_games": arm_games,
        "eval_games": base.eval_games,
        "params": list(base.keys),
        "genes": rows,
    }
    write_json_atomic(out / RESULT, doc)
    from analysis.tuning_report import gene_value_markdown

    text = gene_value_markdown(doc, seconds)
    write_atomic(out / REPORT, lambda p: p.write_text(text, encoding="utf-8"))
    return doc
