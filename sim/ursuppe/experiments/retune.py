"""``soup compare --retune`` and ``soup ablate --retune``: every arm's strategies re-tuned under
the arm's own rules before the paired comparison (issue 13, point 2).

A house rule judged by bots that ignore it can mislead (they keep buying a gene the rule made
useless). With ``--retune`` every distinct strategy of the run (``--strategies`` or ``--pool``) is
tuned by ``soup tune``'s CMA-ES (sim.ursuppe.experiments.tuning) once per arm, under that arm's rules:

- **the same tuning in every arm**: same start strategy, same tuned parameters (``--retune-params``;
  ``default`` = the tuning scalars and every gene in play in *any* arm, so the search space is the
  same), same budget, same seed (the run's ``--seed``), hence the same tuning games (common random
  numbers across arms, as within a tuning);
- **the field**: each strategy is tuned against the mix of the run's *original* (un-tuned)
  distinct strategies, every other player of every game drawn from it (``soup tune``'s default
  field), under the arm's rules. Not self-play, not the other tuned strategies: one tuning per
  strategy, independent, and simple to state;
- **the result**: the final CMA-ES mean, kept only if it beats the start on the tuning seed's
  held-out validation games (tuning.select_result), else the start. No fresh-seed evaluation:
  the paired comparison that follows is the evaluation.

The tuned strategies are written as TOML files (``<out>/retune/<arm>/<strategy>.toml``, named
``<strategy>-retuned`` in both arms so the arms pair by strategy) and the arms are then played
with them exactly as without ``--retune``. Every tuning checkpoints after each generation
(``<out>/retune/<arm>/<strategy>/checkpoint.pkl``): the same command continues an interrupted
run and gives the same tables.
"""

import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sim.errors import UserError
from sim.out_dirs import slug
from sim.ursuppe.experiments import tuning as T

# Tuning games per strategy and arm. Sized on the 2-core reference machine: the default pool (5
# strategies) at 4 players, 2 arms, is 10 tunings of 10 generations of 15 strategies x 1,200 games
# (+ validation), about 1.9 million games: 1 min 47 s measured (docs/experiments.md).
DEFAULT_BUDGET = 192_000
CHANGES_SHOWN = 5  # per strategy (and arm): the parameters that moved most between arms
PRINTED = 40  # the terminal shows at most this many rows of the changes table (all in the Markdown)

Bar = Callable[[int], AbstractContextManager[Callable[[int, int], None]]]


@dataclass(frozen=True)
class Retune:
    """How the arms' strategies are re-tuned: budget (games per strategy and arm), tuned
    parameters, games per candidate, threads; ``bar(total)`` opens a progress bar (the CLI's)
    yielding ``update(done, total)``."""

    budget: int = DEFAULT_BUDGET
    params: str = "default"
    games_per_candidate: int = T.DEFAULT_GAMES_PER_CANDIDATE
    threads: int = 1
    bar: Bar | None = None

    def describe(self) -> str:
        return (
            f"re-tuned per arm (soup tune CMA-ES, seed as the games, {self.budget:,} tuning games"
            f" per strategy and arm, params {self.params}, {self.games_per_candidate:,} games per candidate)"
            " against the mix of the run's original strategies under the arm's rules"
        )


@dataclass
class Plan:
    """The tunings of an experiment: per arm label, per strategy token, a TuneConfig."""

    retune: Retune
    configs: dict[str, dict[str, T.TuneConfig]]
    out: Path

    def tuning_dir(self, arm: str, token: str) -> Path:
        return self.out / "retune" / arm / slug(self.configs[arm][token].start.name)

    def toml_path(self, arm: str, token: str) -> Path:
        return self.out / "retune" / arm / f"{slug(self.configs[arm][token].start.name)}.toml"

    def total_games(self) -> int:
        return sum(
            c.generations() * c.games_per_generation() + 2 * T.VALIDATION_BLOCKS * c.games_per_candidate
            for arm in self.configs.values()
            for c in arm.values()
        )


@dataclass
class Retuned:
    """The tuned strategies: per arm, token -> TOML path; vectors and validation per arm/token."""

    plan: Plan
    paths: dict[str, dict[str, Path]]
    vectors: dict[str, dict[str, np.ndarray]]
    checks: dict[str, dict[str, dict[str, Any]]]
    seconds: float

    def lines(self, labels: dict[str, str]) -> list[str]:
        """Header lines: the tuning, then per arm its files and whether the tuned mean was kept."""
        out = [self.plan.retune.describe()]
        for arm, label in labels.items():
            items = []
            for token, path in self.paths[arm].items():
                c = self.checks[arm][token]
                items.append(
                    f"{path} (kept the {'tuned mean' if c['kept'] == 'tuned' else 'start'}; validation win"
                    f" rate start {c['start']:.3f}, tuned mean {c['mean']:.3f})"
                )
            out.append(f"{label} tuned strategies: " + "; ".join(items))
        return out


def plan(
    retune: Retune,
    books: dict[str, Any],
    players: int,
    variant: str | None,
    tokens: list[str],
    seed: int,
    out: Path,
) -> Plan:
    """Every arm's tuning configurations, validated before anything is played (a bad budget is a
    one-line user error). ``books``: arm label -> RuleBook; ``tokens``: the run's strategies as
    given (preset names or files), duplicates allowed."""
    from strategies.ursuppe.params import load_strategy

    distinct = list(dict.fromkeys(tokens))
    starts = {t: load_strategy(t) for t in distinct}
    names = [s.name for s in starts.values()]
    if len(set(names)) != len(names):
        raise UserError(f"--retune: two strategies share a name ({', '.join(names)}); rename one")
    fld = T.Field("mix", tuple(starts.values()))
    keys: list[str] = []
    # A gene in play in any arm may be named (an ablated arm's gene is in play in the baseline).
    in_play = list(dict.fromkeys(g for b in books.values() for g in T.genes_in_play(b, players, variant)))
    for book in books.values():  # the same search space in every arm
        keys += T.resolve_keys(retune.params, book, players, variant, in_play, "--retune-params")
    keys = list(dict.fromkeys(keys))
    configs: dict[str, dict[str, T.TuneConfig]] = {}
    for arm, book in books.items():
        setting = T.Setting(book, players, variant)
        configs[arm] = {}
        for t, start in starts.items():
            cfg = T.TuneConfig(
                setting,
                start,
                fld,
                tuple(keys),
                retune.budget,
                seed=seed,
                games_per_candidate=retune.games_per_candidate,
                name=f"{start.name}-retuned",
            )
            try:
                cfg.validate()
            except T.TuningError as e:
                msg = (
                    str(e)
                    .replace("--budget:", "--retune-budget:")
                    .replace("--games-per-candidate:", "--retune-games-per-candidate:")
                )
                raise T.TuningError(msg + " (per strategy and arm)") from None
            configs[arm][t] = cfg
    p = Plan(retune, configs, out)
    for arm in configs:  # another tuning's checkpoint: one line, before anything is played
        for t in configs[arm]:
            T.load_checkpoint(p.tuning_dir(arm, t), configs[arm][t])
    return p


class Interrupted(KeyboardInterrupt):
    """Ctrl-C while re-tuning, naming where the finished generations are kept (issue 21.8: the
    command's line names the directory, also when --out was left to its default)."""

    def __init__(self, kept_in: Path) -> None:
        super().__init__(str(kept_in))
        self.kept_in = kept_in


def run(p: Plan) -> Retuned:
    """Tune every (arm, strategy) of the plan (resuming checkpoints), write the TOML files;
    Ctrl-C raises :class:`Interrupted`."""
    try:
        return _run(p)
    except KeyboardInterrupt:
        raise Interrupted(p.out / "retune") from None


def _run(p: Plan) -> Retuned:
    from sim.runner import write_atomic

    total = p.total_games()
    bar = p.retune.bar(total) if p.retune.bar else nullcontext(None)
    done_before = 0
    paths: dict[str, dict[str, Path]] = {}
    vectors: dict[str, dict[str, np.ndarray]] = {}
    checks: dict[str, dict[str, dict[str, Any]]] = {}
    t0 = time.perf_counter()
    with bar as update:
        for arm, cfgs in p.configs.items():
            paths[arm], vectors[arm], checks[arm] = {}, {}, {}
            for token, cfg in cfgs.items():
                base = done_before

                def progress(done: int, _total: int, base: int = base) -> None:
                    if update:
                        update(base + done, total)

                state = T.tune(cfg, p.tuning_dir(arm, token), p.retune.threads, progress)
                vector, check = T.select_result(cfg, state, p.retune.threads)
                done_before += cfg.generations() * cfg.games_per_generation()
                done_before += 2 * T.VALIDATION_BLOCKS * cfg.games_per_candidate
                if update:
                    update(done_before, total)
                who = f"{cfg.setting.players} players" + (
                    f", variant {cfg.setting.variant}" if cfg.setting.variant else ""
                )
                description = (
                    f"{cfg.start.name} re-tuned under rules {cfg.setting.book.rules_id} ({arm}) by soup"
                    f" compare/ablate --retune (CMA-ES, seed {cfg.seed}, {state.games:,} games, {who})"
                    f" against {cfg.fld.describe()}; kept the {check['kept']}"
                )
                text = T.tuned_toml(cfg, vector, description)
                path = p.toml_path(arm, token)
                write_atomic(path, lambda f, text=text: f.write_text(text, encoding="utf-8"))
                paths[arm][token], vectors[arm][token], checks[arm][token] = path, vector, check
    return Retuned(p, paths, vectors, checks, time.perf_counter() - t0)


def mapped(tokens: str, paths: dict[str, Path]) -> str:
    """The --strategies/--pool string with every strategy replaced by its tuned file."""
    from sim.game import strategy_list

    return ",".join(str(paths[t]) for t in strategy_list(tokens, "--strategies"))


def changes_table(r: Retuned, labels: dict[str, str], shown: int = CHANGES_SHOWN) -> Any:
    """Per strategy, the ``shown`` tuned parameters whose value differs most between the arms
    (in units of the search range; the first arm is the reference). Two arms (compare, ablate
    --gene): one row per parameter with the start, each arm's value and the difference. More
    arms (ablate --each): one row per (strategy, arm, parameter), the ``shown`` largest moves of
    each arm against the first, with ``moved`` (the difference in search-range units), unchanged
    values left out."""
    import polars as pl

    arms = list(labels)
    ref = arms[0]
    rows = []
    for token, cfg in r.plan.configs[ref].items():
        space = cfg.space()
        start = cfg.start_vector()
        span = np.where(space.high > space.low, space.high - space.low, 1.0)
        values = {a: r.vectors[a][token][space.index] for a in arms}
        if len(arms) == 2:
            other = arms[1]
            order = np.argsort(-np.abs(values[other] - values[ref]) / span, kind="stable")[:shown]
            for j in order:
                i = int(space.index[j])
                rows.append(
                    {
                        "strategy": cfg.start.name,
                        "parameter": space.keys[j],
                        "start": float(start[i]),
                        labels[ref]: float(values[ref][j]),
                        labels[other]: float(values[other][j]),
                        f"{labels[other]} - {labels[ref]}": float(values[other][j] - values[ref][j]),
                    }
                )
            continue
        for a in arms[1:]:
            moved = np.abs(values[a] - values[ref]) / span
            for j in np.argsort(-moved, kind="stable")[:shown]:
                if moved[j] == 0:  # unchanged: nothing to show (the arm kept the reference's value)
                    continue
                rows.append(
                    {
                        "strategy": cfg.start.name,
                        "arm": labels[a],
                        "parameter": space.keys[j],
                        "start": float(start[space.index[j]]),
                        labels[ref]: float(values[ref][j]),
                        "value": float(values[a][j]),
                        "diff": float(values[a][j] - values[ref][j]),
                        "moved": float(moved[j]),
                    }
                )
    if not rows:  # ablate --each where no arm moved a parameter
        names = ["strategy", "arm", "parameter", "start", labels[ref], "value", "diff", "moved"]
        return pl.DataFrame(schema={c: pl.String if i < 3 else pl.Float64 for i, c in enumerate(names)})
    return pl.DataFrame(rows)


def changes_markdown(table: Any) -> str:
    from analysis.tables import frame_markdown

    return (
        "\n## Re-tuned parameters\n\nPer strategy, the tuned parameters that differ most between the"
        " arms (largest difference in units of the search range first):\n\n" + frame_markdown(table)
    )
