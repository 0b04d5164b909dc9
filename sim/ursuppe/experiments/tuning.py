"""`soup tune`: tune a strategy's parameters for win rate against a field (issue 13, points 1 and 4).

The optimiser is CMA-ES (the ``cmaes`` library: small, numpy only, an ask/tell interface that
lets one generation's candidates be played as one batch, box bounds, and deterministic for a
given seed). It searches a chosen subset of the parameter vector (strategies/ursuppe/params.py), each
parameter mapped to [0, 1] by its search bounds (:func:`search_space`); switches are rounded.

**Common random numbers.** Generation ``t`` plays games ``t*N .. (t+1)*N - 1`` of the tuning
seed for *every* candidate: same decks, dice, field draws and seatings (rotate seating, S5, with
``N`` a multiple of the rotate block). Differences between candidates of a generation are then
differences of strategy, not of luck, and the ranking CMA-ES needs is much less noisy. The start
strategy and the incumbent (the distribution mean, which is what the tuner returns) are played on
the same games too: the learning curve is paired.

**The field.** ``against``: fixed opponents (one strategy per other player); ``mix``: every other
player of every game drawn from a pool (the default mix), with the same draws for every
candidate; ``self``: self-play, the other players are the best strategy of the previous
generation (the incumbent or a candidate, by win rate on that generation's games), so the field
is tuned too.

**Budget** is in games (every game of every strategy of every generation). **Fresh seeds**: the
tuned strategy and the start are compared on games of another seed (:func:`fresh_seed`), never
seen in tuning, so the reported gain is not the winner's curse of a noisy search.

**Resume.** After every generation the optimiser state (the ``cmaes.CMA`` object's attributes;
its sampler is reseeded from (seed, generation) before each generation, since cmaes does not
pickle it) and the history are written atomically to ``checkpoint.pkl``;
the same command continues from it and gives the result an uninterrupted run gives. A game is a
pure function of (rules, strategies, seating, seed, game index) on any number of threads, so the
whole tuning is deterministic for a given seed.
"""

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from sim.experiments.tuning import (
    TuneState,
    fresh_seed,
    read_checkpoint,
    run_generations,
    unit_optimizer,
)
from sim.game import STREAM_ASSIGNMENT, comma_list
from sim.runner import write_atomic, write_json_atomic
from sim.ursuppe.rules.book import RuleBook, Rules
from sim.ursuppe.rules.genes import GENE_NAMES, gene_index
from sim.ursuppe.rules.seating import rotate_block
from strategies.ursuppe import PRESETS_DIR
from strategies.ursuppe.params import GENE_VALUE_BASE, PARAMETERS, Strategy
from strategies.ursuppe.tunable import (
    GENE_PREFIX,
    SearchSpace,
    TuningError,
    parameter_key_index,
    search_space,
)

RESULT = "result.json"
TUNED = "tuned.toml"
TIMING = "timing.json"
FIELDS = ("mix", "against", "self")
# Games per batch handed to the engine at once: memory stays flat (~450 MB for 20,000 4p games).
MAX_BATCH = 24_000
# Scalars tuned by default (with every gene value in play): the economy and the two space weights.
DEFAULT_SCALARS: tuple[str, ...] = (
    "bp_reserve",
    "division_reserve",
    "max_amoebas",
    "division_base",
    "active_move_margin",
    "food_weight",
    "crowding_penalty",
    "attack_propensity",
)
DEFAULT_GAMES_PER_CANDIDATE = 1200  # a multiple of every rotate block (24, 10, 6, 2)
DEFAULT_SIGMA = 0.15  # initial step in the [0, 1] space: +-3 on a gene value of -10..10
MIN_GENERATIONS = 2
VALIDATION_BLOCKS = 4  # the final check of the mean against the start: 4 x games_per_candidate games


# --------------------------------------------------------------------------- search space


def genes_in_play(book: RuleBook, players: int, variant: str | None) -> list[str]:
    """Genes with at least one copy at this player count (S3): the ones a strategy can buy."""
    copies = book.for_players(players, variant).gene_copies
    return [g for i, g in enumerate(GENE_NAMES) if copies[i] > 0]


def resolve_keys(
    spec: str,
    book: RuleBook,
    players: int,
    variant: str | None,
    in_play: Sequence[str] | None = None,
    option: str = "--params",
) -> list[str]:
    """``--params``: comma-separated keys; ``default`` = DEFAULT_SCALARS + every gene in play;
    ``genes`` = every gene value in play. A gene named that cannot be in play (``in_play``:
    default, this book's genes in play) is a user error: its value would never be read, and the
    tuning would report +0.000 as if it had measured something (issue 21.2)."""
    in_play = genes_in_play(book, players, variant) if in_play is None else list(in_play)
    genes = [GENE_PREFIX + g for g in in_play]
    keys: list[str] = []
    for item in comma_list(spec):
        if item == "default":
            keys += [*DEFAULT_SCALARS, *genes]
        elif item == "genes":
            keys += genes
        else:
            i = parameter_key_index(item)
            if item.startswith(GENE_PREFIX):  # the canonical name (an alias: Endurance)
                gene = GENE_NAMES[i - GENE_VALUE_BASE]
                if gene not in in_play:
                    raise TuningError(f"{option}: {item}: {book.not_in_play(gene, players, variant)}")
                item = GENE_PREFIX + gene
            keys.append(item)
    keys = list(dict.fromkeys(keys))
    if not keys:
        raise TuningError("--params: expected at least one parameter")
    return keys


def pin(vector: np.ndarray, pinned: dict[str, float]) -> np.ndarray:
    v = vector.copy()
    for k, value in pinned.items():
        v[parameter_key_index(k)] = value
    return v


# --------------------------------------------------------------------------- the field and play


@dataclass(frozen=True)
class Field:
    """Who the tuned strategy plays against. ``kind``: mix (``strategies`` is the pool), against
    (one strategy per other player) or self (the start strategy, then the previous best)."""

    kind: str
    strategies: tuple[Strategy, ...] = ()

    def describe(self) -> str:
        names = ", ".join(s.name for s in self.strategies)
        if self.kind == "mix":
            return f"the mix {names} (every other player of every game drawn from it)"
        if self.kind == "against":
            return f"fixed opponents {names}"
        return "self-play (the other players: the previous generation's best)"


@dataclass(frozen=True)
class Setting:
    """What a game is, besides the strategies: rules, player count, variant, and ``edits``:
    fields of the loaded Rules set afterwards (Rules._replace), e.g. gene value's holding design
    gives player 0 a gene at setup (gift, gift_to, gift_keep, gift_bp)."""

    book: RuleBook
    players: int
    variant: str | None = None
    edits: tuple[tuple[str, Any], ...] = ()

    def rules(self) -> Rules:
        rules = self.book.for_players(self.players, self.variant)
        if not self.edits:
            return rules
        values = {
            k: np.array(v, dtype=getattr(rules, k).dtype) if isinstance(v, tuple) else v
            for k, v in self.edits
        }
        return rules._replace(**values)


def opponent_rows(
    fld: Field, seed: int, games: np.ndarray, players: int, self_vector: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """The opponents' parameter rows and, per game, the row of each other player [G, P-1]
    (indices into those rows)."""
    others = players - 1
    if fld.kind == "self":
        return self_vector[None, :].copy(), np.zeros((len(games), others), dtype=np.int64)
    rows = np.stack([s.vector for s in fld.strategies])
    if fld.kind == "against":
        return rows, np.tile(np.arange(others, dtype=np.int64), (len(games), 1))
    from sim.random_stream import uniform_draws  # a kernel: loaded after the checks (issue 21.9)

    draws = uniform_draws(seed, games, STREAM_ASSIGNMENT, len(rows), players)
    return rows, np.asarray(draws[:, 1:], dtype=np.int64)


def play_field(
    setting: Setting,
    vectors: np.ndarray,
    fld: Field,
    seed: int,
    first_game: int,
    n_games: int,
    threads: int,
    self_vector: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Play every strategy of ``vectors`` [K, N_PARAMS] as player 0 on the same games ``first_game
    .. first_game + n_games - 1`` of ``seed`` against the field (common random numbers; rotate
    seating). Returns ``won`` bool [K, n] and ``genes_bought`` int64 [K, n] of player 0.

    All K x n games go to the engine in as few batches as possible (at most MAX_BATCH games each):
    one batch a generation keeps both threads busy (issue 13.4)."""
    from sim.ursuppe.engine import batch as batch_mod
    from sim.ursuppe.rules.colours import colour_assignment
    from sim.ursuppe.simulation import outcome_rows

    K = len(vectors)
    games = np.arange(first_game, first_game + n_games, dtype=np.int64)
    opp_rows, opp_of = opponent_rows(fld, seed, games, setting.players, self_vector)
    params = np.ascontiguousarray(np.concatenate([vectors, opp_rows]), dtype=np.float64)
    rules = setting.rules()
    names = [f"s{i}" for i in range(len(params))]
    all_games = np.tile(games, K)
    per_player = np.empty((K * n_games, setting.players), dtype=np.int16)
    per_player[:, 0] = np.repeat(np.arange(K), n_games)
    per_player[:, 1:] = np.tile(K + opp_of, (K, 1))
    won = np.empty(K * n_games, dtype=bool)
    bought = np.empty(K * n_games, dtype=np.int64)
    n_batches = math.ceil(len(all_games) / MAX_BATCH)
    size = math.ceil(len(all_games) / n_batches)
    for lo in range(0, len(all_games), size):
        hi = min(lo + size, len(all_games))
        b = batch_mod.new_batch(
            rules, params, colour_assignment(per_player[lo:hi], setting.variant), seed, all_games[lo:hi]
        )
        batch_mod.play(b, seating="rotate", threads=threads)
        err = batch_mod.first_error(b)
        if err is not None:
            raise batch_mod.GameError(
                f"game {int(all_games[lo + err[0]])}: {batch_mod.describe_error(err[1])}"
            )
        rows = outcome_rows(b, seed, names, setting.book.rules_id, setting.variant)
        P = setting.players
        won[lo:hi] = rows.column("won").to_numpy(zero_copy_only=False).reshape(-1, P)[:, 0]
        bought[lo:hi] = rows.column("genes_bought").to_numpy().reshape(-1, P)[:, 0]
    return won.reshape(K, n_games), bought.reshape(K, n_games)


# --------------------------------------------------------------------------- the tuner


@dataclass(frozen=True)
class TuneConfig:
    """Everything that determines a tuning (its checkpoint is only resumed under the same); frozen,
    so that its fingerprint, built once, stays its own."""

    setting: Setting
    start: Strategy
    fld: Field
    keys: tuple[str, ...]
    budget: int
    seed: int = 1
    games_per_candidate: int = DEFAULT_GAMES_PER_CANDIDATE
    population: int | None = None
    sigma: float = DEFAULT_SIGMA
    eval_games: int = 24_000
    pinned: dict[str, float] = field(default_factory=dict)
    name: str | None = None
    masked: dict[str, float] = field(default_factory=dict)  # tuned keys played at a fixed value

    def start_vector(self) -> np.ndarray:
        """The start as played (pinned and masked values set)."""
        return pin(self.start.vector, {**self.pinned, **self.masked})

    def search_start(self) -> np.ndarray:
        """The start as the optimiser sees it (masked keys at their own start value)."""
        return pin(self.start.vector, self.pinned)

    def space(self) -> SearchSpace:
        space = search_space(self.keys, self.search_start(), self.pinned)
        if not self.masked:
            return space
        index = np.array([parameter_key_index(k) for k in self.masked], dtype=np.int64)
        return replace(space, fixed_index=index, fixed_value=np.array(list(self.masked.values())))

    def population_size(self) -> int:
        d = len(self.space().keys)
        return self.population if self.population is not None else 4 + int(3 * math.log(d))

    def games_per_generation(self) -> int:
        return (self.population_size() + 2) * self.games_per_candidate  # + the start and the incumbent

    def generations(self) -> int:
        return self.budget // self.games_per_generation()

    @cached_property
    def fingerprint(self) -> dict[str, Any]:
        """The identity of the tuning, stored in the checkpoint and the result (built once: the
        command's check, the tune and the result read the same)."""
        s = self.setting
        return {
            "rules_id": s.book.rules_id,
            "players": s.players,
            "variant": s.variant,
            **({"rules_edits": {k: v for k, v in s.edits}} if s.edits else {}),
            "start": self.start.name,
            "start_vector": [float(x) for x in self.start.vector],
            "field": self.fld.kind,
            "field_strategies": {x.name: [float(y) for y in x.vector] for x in self.fld.strategies},
            "params": list(self.keys),
            "pinned": dict(self.pinned),
            **({"masked": dict(self.masked)} if self.masked else {}),
            "budget": self.budget,
            "seed": self.seed,
            "games_per_candidate": self.games_per_candidate,
            "population": self.population_size(),
            "sigma": self.sigma,
            "eval_games": self.eval_games,
        }

    def validate(self) -> None:
        block = rotate_block(self.setting.players)
        if self.games_per_candidate % block:
            raise TuningError(
                f"--games-per-candidate: expected a multiple of the rotate seating block ({block} games at "
                f"{self.setting.players} players: every seat equally often), got {self.games_per_candidate}"
            )
        if self.population is not None and self.population < 2:
            raise TuningError(f"--population: expected at least 2, got {self.population}")
        if not 0 < self.sigma <= 1:
            raise TuningError(
                f"--sigma: expected a step in (0, 1] of the [0, 1] search space, got {self.sigma}"
            )
        need = MIN_GENERATIONS * self.games_per_generation()
        if self.budget < need:
            raise TuningError(
                f"--budget: {self.budget:,} games is too small: one generation plays "
                f"{self.games_per_generation():,} games ({self.population_size()} candidates + start + "
                f"incumbent, {self.games_per_candidate:,} games each); at least {MIN_GENERATIONS} "
                f"generations need {need:,}"
            )
        if self.eval_games < block or self.eval_games % block:
            raise TuningError(
                f"--eval-games: expected a positive multiple of the rotate block ({block}), "
                f"got {self.eval_games}"
            )


def new_state(cfg: TuneConfig) -> TuneState:
    space = cfg.space()
    opt = unit_optimizer(space.to_unit(cfg.search_start()), cfg.sigma, cfg.seed, cfg.population_size())
    opponent = [float(x) for x in cfg.start_vector()] if cfg.fld.kind == "self" else None
    return TuneState(cfg.fingerprint, opt, opponent=opponent)


def load_checkpoint(out: Path, cfg: TuneConfig) -> TuneState | None:
    """The tuning kept in ``out`` (None: none); one of another configuration is a TuningError."""
    return read_checkpoint(out, cfg.fingerprint, TuningError)


def tune(
    cfg: TuneConfig,
    out: Path,
    threads: int,
    progress: Callable[[int, int], None] | None = None,
    after_generation: Callable[[TuneState], None] | None = None,
) -> TuneState:
    """Run (or resume) the CMA-ES loop into ``out`` (sim.experiments.tuning.run_generations);
    returns the final state. ``progress(done, total)`` is called in games; ``after_generation``
    after each checkpoint (tests interrupt there). Ctrl-C leaves the last generation's
    checkpoint: the same call resumes."""
    cfg.validate()
    out.mkdir(parents=True, exist_ok=True)
    state = load_checkpoint(out, cfg) or new_state(cfg)
    space = cfg.space()
    base = cfg.start_vector()
    n = cfg.games_per_candidate

    def generation(state: TuneState) -> int:
        """One generation: the start, the incumbent and every candidate on the same games."""
        opt = state.optimizer
        xs = [opt.ask() for _ in range(opt.population_size)]
        incumbent = space.to_vector(opt.mean, base)
        vectors = np.stack([base, incumbent, *(space.to_vector(x, base) for x in xs)])
        opponent = np.asarray(state.opponent) if state.opponent is not None else None
        won, _ = play_field(
            cfg.setting, vectors, cfg.fld, cfg.seed, state.generation * n, n, threads, opponent
        )
        rates = won.mean(axis=1)
        opt.tell([(x, -float(r)) for x, r in zip(xs, rates[2:], strict=True)])
        best = int(np.argmax(rates[1:])) + 1  # the incumbent or a candidate (the start is not tuned)
        if cfg.fld.kind == "self":
            state.opponent = [float(v) for v in vectors[best]]
        state.history.append(
            {
                "generation": state.generation,
                "start": float(rates[0]),
                "incumbent": float(rates[1]),
                "best": float(rates[2:].max()),
                "candidates": float(rates[2:].mean()),
                "sigma": float(opt._sigma),
                "incumbent_unit": [round(float(v), 6) for v in opt.mean],
            }
        )
        return len(vectors) * n

    total = cfg.generations() * cfg.games_per_generation()
    return run_generations(
        state, cfg.generations(), cfg.seed, out, generation, total, progress, after_generation
    )


def tuned_vector(cfg: TuneConfig, state: TuneState) -> np.ndarray:
    """The result: the distribution mean (not the best noisy sample: its win rate is the maximum
    of many noisy estimates, biased upwards)."""
    return cfg.space().to_vector(state.optimizer.mean, cfg.start_vector())


def select_result(cfg: TuneConfig, state: TuneState, threads: int) -> tuple[np.ndarray, dict[str, Any]]:
    """The tuned strategy, or the start if tuning did not beat it: the final mean and the start
    play VALIDATION_BLOCKS x games_per_candidate games of the tuning seed that no generation
    played (the indices after the last generation's), paired; the mean is kept only if it wins
    more of them. A small budget (few games a candidate, many parameters) lets the mean wander
    on noise, and this keeps such a run from handing back a strategy worse than its start; the
    fresh games stay untouched for the report."""
    mean = tuned_vector(cfg, state)
    start = cfg.start_vector()
    n = VALIDATION_BLOCKS * cfg.games_per_candidate
    first = cfg.generations() * cfg.games_per_candidate
    opponent = np.asarray(state.opponent) if state.opponent is not None else None
    won, _ = play_field(cfg.setting, np.stack([start, mean]), cfg.fld, cfg.seed, first, n, threads, opponent)
    kept = "tuned" if won[1].mean() > won[0].mean() else "start"
    check = {"games": n, "first_game": first, "start": float(won[0].mean()), "mean": float(won[1].mean())}
    return (mean if kept == "tuned" else start), check | {"kept": kept}


# --------------------------------------------------------------------------- fresh evaluation


@dataclass
class Evaluation:
    """Start vs tuned on the same fresh games: win rates with 95% intervals and the paired gain."""

    seed: int
    games: int
    start_rate: float
    start_ci: tuple[float, float]
    tuned_rate: float
    tuned_ci: tuple[float, float]
    gain: dict[str, Any]
    start_bought: list[float]  # per gene: share of games player 0 bought it
    tuned_bought: list[float]
    field: str


def evaluate(cfg: TuneConfig, tuned: np.ndarray, opponent: np.ndarray | None, threads: int) -> Evaluation:
    """Play the start and the tuned strategy on ``cfg.eval_games`` games of :func:`fresh_seed`
    against the field (self-play: the final opponent), paired, with rotate seating."""
    from analysis.intervals import wilson
    from analysis.ursuppe.paired import paired_difference

    seed = fresh_seed(cfg.seed)
    n = cfg.eval_games
    vectors = np.stack([cfg.start_vector(), tuned])
    won, bought = play_field(cfg.setting, vectors, cfg.fld, seed, 0, n, threads, opponent)
    games = np.arange(n)
    gain = paired_difference(won[0], won[1], games, games, binary=True)
    ci = [tuple(float(v) for v in wilson(int(w.sum()), n)) for w in won]
    shares = [[float(((b >> i) & 1).mean()) for i in range(len(GENE_NAMES))] for b in bought]
    fld = cfg.fld.describe() if cfg.fld.kind != "self" else "the final self-play opponent (copies)"
    return Evaluation(
        seed,
        n,
        float(won[0].mean()),
        ci[0],
        float(won[1].mean()),
        ci[1],
        {k: (v.item() if isinstance(v, np.generic) else v) for k, v in gain.items()},
        shares[0],
        shares[1],
        fld,
    )


# --------------------------------------------------------------------------- output


def toml_value(x: float) -> str:
    return repr(float(x)) if not float(x).is_integer() else f"{float(x):.1f}"


def tuned_toml(cfg: TuneConfig, tuned: np.ndarray, description: str) -> str:
    """A strategy file for the tuned vector: ``extends`` the start preset and sets the tuned (and
    pinned) parameters; a start from a file gets every parameter written out."""
    name = cfg.name or f"{cfg.start.name}-tuned"
    is_preset = (PRESETS_DIR / f"{cfg.start.source}.toml").is_file() and "/" not in cfg.start.source
    lines = [f"name = {_toml_str(name)}", f"description = {_toml_str(description)}"]
    if is_preset:
        lines.append(f"extends = {_toml_str(cfg.start.source)}")
        keys = list(dict.fromkeys([*cfg.keys, *cfg.pinned]))
    else:
        keys = [*PARAMETERS, *(GENE_PREFIX + g for g in GENE_NAMES)]
    scalars = [k for k in keys if not k.startswith(GENE_PREFIX)]
    genes = [k.removeprefix(GENE_PREFIX) for k in keys if k.startswith(GENE_PREFIX)]
    for k in scalars:
        v = tuned[PARAMETERS[k].index]
        lines.append(f"{k} = {int(v) if PARAMETERS[k].switch else toml_value(v)}")
    if genes:
        lines.append("[gene_value]")
        for g in genes:
            lines.append(f"{_toml_str(g)} = {toml_value(tuned[GENE_VALUE_BASE + gene_index(g)])}")
    return "\n".join(lines) + "\n"


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def changed_parameters(cfg: TuneConfig, tuned: np.ndarray) -> list[dict[str, Any]]:
    """Every tuned parameter with its start and tuned value, largest change (in search-range
    units) first."""
    space = cfg.space()
    start = cfg.start_vector()
    rows = []
    for j, k in enumerate(space.keys):
        i = space.index[j]
        span = space.high[j] - space.low[j]
        rows.append(
            {
                "parameter": k,
                "start": float(start[i]),
                "tuned": float(tuned[i]),
                "change": float(tuned[i] - start[i]),
                "relative": float(abs(tuned[i] - start[i]) / span) if span > 0 else 0.0,
                "low": float(space.low[j]),
                "high": float(space.high[j]),
            }
        )
    return sorted(rows, key=lambda r: -r["relative"])


def result_doc(cfg: TuneConfig, state: TuneState, tuned: np.ndarray, ev: Evaluation) -> dict[str, Any]:
    """The result file: deterministic for a given seed (no timings: those are in timing.json)."""
    return {
        "tuning": {k: v for k, v in cfg.fingerprint.items() if k not in ("start_vector", "field_strategies")}
        | {"field_strategies": [s.name for s in cfg.fld.strategies]},
        "field": cfg.fld.describe(),
        "generations": state.generation,
        "games": state.games,
        "tuned_vector": [float(x) for x in tuned],
        "changes": changed_parameters(cfg, tuned),
        "history": state.history,
        "fresh": {
            "seed": ev.seed,
            "games": ev.games,
            "field": ev.field,
            "start": {"win_rate": ev.start_rate, "ci": list(ev.start_ci)},
            "tuned": {"win_rate": ev.tuned_rate, "ci": list(ev.tuned_ci)},
            "gain": ev.gain,
            "purchases": {
                g: {"start": ev.start_bought[i], "tuned": ev.tuned_bought[i]}
                for i, g in enumerate(GENE_NAMES)
            },
        },
    }


def finish(cfg: TuneConfig, state: TuneState, out: Path, threads: int) -> dict[str, Any]:
    """Evaluate on fresh games, write tuned.toml, result.json, timing.json and the report (the
    report: analysis/ursuppe/tuning_report.py). Returns the result document."""
    from analysis.ursuppe.tuning_report import write_report

    t0 = time.perf_counter()
    tuned, check = select_result(cfg, state, threads)
    opponent = np.asarray(state.opponent) if state.opponent is not None else None
    ev = evaluate(cfg, tuned, opponent, threads)
    eval_seconds = time.perf_counter() - t0
    doc = result_doc(cfg, state, tuned, ev) | {"validation": check}
    who = f"{cfg.setting.players} players" + (
        f", variant {cfg.setting.variant}" if cfg.setting.variant else ""
    )
    description = (
        f"{cfg.start.name} tuned by soup tune (CMA-ES, seed {cfg.seed}, {state.games:,} games, {who}) "
        f"against {cfg.fld.describe()}; fresh-seed win rate {ev.start_rate:.3f} -> {ev.tuned_rate:.3f}"
    )
    text = tuned_toml(cfg, tuned, description)
    write_atomic(out / TUNED, lambda p: p.write_text(text, encoding="utf-8"))
    write_json_atomic(out / RESULT, doc)
    timing = {
        "tuning_seconds": state.seconds,
        "tuning_games": state.games,
        "games_per_second": state.games / state.seconds if state.seconds else None,
        "generations_per_minute": state.generation / state.seconds * 60 if state.seconds else None,
        "eval_seconds": eval_seconds,
        "eval_games": 2 * ev.games + 2 * check["games"],
    }
    write_json_atomic(out / TIMING, timing)
    write_report(out, doc, timing)
    return doc
