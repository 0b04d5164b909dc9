"""The report's tables from runs read one chunk at a time: memory flat in the runs' size (issue 21.11).

``soup report`` used to load every player row of every run (``load_results(...).collect()``) and
then compute each table from them: 1.04 GB at 200,000 games, and ten times the rows at 2,000,000.
Here each chunk file is read, turned into *sufficient statistics* and dropped. Every table of
the report is a function of sums over games, because the game is the unit of every interval
(the cluster of analysis.intervals.cluster_contrast) and a run's chunks hold whole games:

- rates and counts: sums of wins and rows per group;
- a cluster-robust contrast of group means: its variance ``C/(C-1) * sum_c u_c^2`` with
  ``u_c = sum_k a_k (S_kc - m_k N_kc)`` is a quadratic form in the sums over games of the products
  of a game's per-group sums (:class:`Moments`), which add up chunk by chunk;
- medians, quartiles and terciles: histograms of whole numbers (rounds, ozone totals).

So the tables are those of the in-memory functions (analysis.win_rates, analysis.ursuppe.genes,
analysis.ursuppe.deck_order), which stay the reference and the notebook's API; tests/test_newcomer_audit
checks that both give the same tables. Only ``soup report --equilibrium`` (row weights from a
tournament) still reads every row.

Reading is two passes over the chunks: the first reads only the deck orders (the ozone band's
terciles are over all games of a player count), the second everything else.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analysis import win_rates
from analysis.intervals import MIN_ROWS, NO_CONTRAST, Z95, contrast_result, wilson
from analysis.multiple_testing import with_holm
from analysis.ursuppe import deck_order
from sim.runner import chunk_files, read_chunk

# Relative size below which a variance computed from the moments is rounding error: exactly 0 in
# the row-by-row computation (every game's u_c is 0), e.g. a group whose every row won.
_ZERO_VARIANCE = 1e-10
_INTERACTION = np.array([1.0, -1.0, -1.0, 1.0])
_DIFF = np.array([1.0, -1.0])
SEAT_SLOTS = 8  # start spaces 1..8 (a run has at most 6)
_COLUMNS = [
    "game",
    "seed",
    "players",
    "player",
    "start_space",
    "strategy",
    "won",
    "rounds",
    "end_reason",
    "genes_held",
    "genes_bought",
    "first_bought",
    "deck",
    "defect_genes_lost",
    "defect_bp_paid",
]


class Moments:
    """For K groups of rows: per group ``s`` (sum of y) and ``n`` (rows), and over the clusters
    (games) the sums of products of a game's per-group sums: ``ss[k, l] = sum_c S_kc S_lc``,
    ``sn[k, l] = sum_c S_kc N_lc``, ``nn[k, l] = sum_c N_kc N_lc``. Disjoint sets of games add
    up (:meth:`add`), groups merge by a 0/1 matrix (:meth:`merged`), and :meth:`contrast` gives
    what analysis.intervals.cluster_contrast gives from the rows."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.s = np.zeros(k)
        self.n = np.zeros(k)
        self.ss = np.zeros((k, k))
        self.sn = np.zeros((k, k))
        self.nn = np.zeros((k, k))

    def add(self, group: np.ndarray, y: np.ndarray) -> None:
        """Rows of whole games: ``group`` and ``y`` are [games, rows of a game]; group -1 leaves
        a row out. A game's pairs of rows (itself included) add to the products."""
        k = self.k
        keep = group >= 0
        g = np.where(keep, group, 0).astype(np.int64)
        one = keep.astype(np.float64)
        yk = np.where(keep, y, 0.0).astype(np.float64)
        self.s += np.bincount(g.ravel(), weights=yk.ravel(), minlength=k)
        self.n += np.bincount(g.ravel(), weights=one.ravel(), minlength=k)
        idx = (g[:, :, None] * k + g[:, None, :]).ravel()
        size = k * k
        self.nn += np.bincount(
            idx, weights=(one[:, :, None] * one[:, None, :]).ravel(), minlength=size
        ).reshape(k, k)
        self.sn += np.bincount(
            idx, weights=(yk[:, :, None] * one[:, None, :]).ravel(), minlength=size
        ).reshape(k, k)
        self.ss += np.bincount(
            idx, weights=(yk[:, :, None] * yk[:, None, :]).ravel(), minlength=size
        ).reshape(k, k)

    def merged(self, a: np.ndarray) -> "Moments":
        """The moments of groups that are unions of these (``a`` [K', K], 0/1): a game's sums
        are then ``a @ S_c`` and ``a @ N_c``, so every product is ``a @ x @ a.T``."""
        out = Moments(a.shape[0])
        out.s, out.n = a @ self.s, a @ self.n
        out.ss, out.sn, out.nn = a @ self.ss @ a.T, a @ self.sn @ a.T, a @ self.nn @ a.T
        return out

    def contrast(self, weights: np.ndarray, clusters: int, z: float = Z95) -> dict[str, float]:
        """analysis.intervals.cluster_contrast of these groups with ``weights`` over ``clusters``
        games (those with a row in a group of the contrast)."""
        w = np.asarray(weights, dtype=np.float64)
        if clusters < 2 or (self.n[w != 0] == 0).any():
            return dict(NO_CONTRAST)
        means = self.s / np.where(self.n > 0, self.n, 1.0)
        estimate = float(w @ means)
        a = np.where(self.n > 0, w / np.where(self.n > 0, self.n, 1.0), 0.0)
        b = a * means
        big = float(a @ self.ss @ a + b @ self.nn @ b)
        q = big - 2.0 * float(a @ self.sn @ b)
        if q <= _ZERO_VARIANCE * big:
            q = 0.0
        return contrast_result(estimate, float(np.sqrt(clusters / (clusters - 1) * q)), z)


def _wilson_clustered(m: Moments, clusters: int) -> tuple[float, float, float]:
    """analysis.intervals.cluster_wilson of a one-group :class:`Moments` (y 0/1)."""
    n = int(m.n[0])
    if n == 0:
        return 0.0, 1.0, float("nan")
    c = m.contrast(np.array([1.0]), clusters)
    p = float(m.s[0] / m.n[0])
    se = c["se"]
    n_eff = p * (1.0 - p) / se**2 if se > 0 and 0.0 < p < 1.0 else float(n)
    lo, hi = wilson(p * n_eff, n_eff)
    return float(lo), float(hi), n / n_eff


def _quantile_nearest(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """polars' quantile(q, "nearest") of the data whose sorted distinct values are ``values``
    with ``counts``: the value at index round-half-up(q * (n - 1))."""
    n = int(counts.sum())
    return float(_at(values, counts, int(np.floor(q * (n - 1) + 0.5))))


def _at(values: np.ndarray, counts: np.ndarray, index: int) -> Any:
    """The ``index``-th (0-based) of the sorted data."""
    return values[int(np.searchsorted(np.cumsum(counts), index, side="right"))]


def _median(values: np.ndarray, counts: np.ndarray) -> float:
    """The median (the mean of the two middle values for an even count), as numpy and polars."""
    n = int(counts.sum())
    if n % 2:
        return float(_at(values, counts, n // 2))
    return (float(_at(values, counts, n // 2 - 1)) + float(_at(values, counts, n // 2))) / 2


def _quantile_linear(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """numpy.quantile(data, q) (linear interpolation) from the histogram: numpy's own formula on
    the two order statistics around q * (n - 1)."""
    n = int(counts.sum())
    h = q * (n - 1)
    lo = int(np.floor(h))
    hi = min(lo + 1, n - 1)
    return float(
        np.quantile(np.array([_at(values, counts, lo), _at(values, counts, hi)], dtype=np.float64), h - lo)
    )


class _Histogram:
    """Counts of non-negative whole numbers, growing as needed."""

    def __init__(self) -> None:
        self.counts = np.zeros(0, dtype=np.int64)

    def add(self, values: np.ndarray) -> None:
        c = np.bincount(np.asarray(values, dtype=np.int64).ravel())
        if len(c) > len(self.counts):
            self.counts = np.concatenate([self.counts, np.zeros(len(c) - len(self.counts), dtype=np.int64)])
        self.counts[: len(c)] += c

    def nonzero(self) -> tuple[np.ndarray, np.ndarray]:
        at = np.flatnonzero(self.counts)
        return at, self.counts[at]


def readable_end(df: pl.DataFrame) -> pl.DataFrame:
    """end_reason in words (finish_zone -> finish zone) for the report's tables."""
    return df.with_columns(pl.col("end_reason").cast(pl.String).str.replace("_", " "))


@dataclass(frozen=True)
class Analyses:
    """Every analysis table the report reads, computed once: several sections read the same
    table (the headlines read nearly all of them), and a section given its tables can be built
    and tested alone."""

    strategy: pl.DataFrame
    seats: pl.DataFrame
    seat_by_strategy: pl.DataFrame
    length: pl.DataFrame
    length_summary: pl.DataFrame
    ends: pl.DataFrame
    held: pl.DataFrame
    bought: pl.DataFrame
    synergy: pl.DataFrame
    purchases: pl.DataFrame
    timing: pl.DataFrame


@dataclass
class _Deck:
    """Deck-order features of the rules' deck (analysis.ursuppe.deck_order)."""

    ozone: np.ndarray
    drift: np.ndarray
    horizon: int
    levels: dict[str, list[str]]  # feature -> its levels as strings, in level_order

    @classmethod
    def of(cls, deck: list[dict[str, Any]], horizon: int = 5) -> "_Deck":
        ozone = np.array([c["ozone"] for c in deck], dtype=np.int64)
        drift = np.array([c["drift"] for c in deck], dtype=object)
        levels = {
            "first_drift": sorted({str(d) for d in drift}, key=deck_order.level_order),
            "first_ozone": sorted({str(o) for o in ozone}, key=deck_order.level_order),
            "ozone_band": list(deck_order.BANDS),
        }
        return cls(ozone, drift, min(horizon, len(deck)), levels)


@dataclass
class _Count:
    """Everything one player count's tables need, summed over its games."""

    players: int
    strategies: list[str]
    genes: int
    deck: _Deck | None
    bands: tuple[float, float] | None = None
    games: int = 0
    rows: int = 0
    games_with: dict[str, np.ndarray] = field(default_factory=dict)  # "strategy"/"start_space"
    seat: Moments | None = None
    held: list[Moments] = field(default_factory=list)
    bought: list[Moments] = field(default_factory=list)
    synergy: dict[tuple[int, int], Moments] = field(default_factory=dict)
    purchase: list[Moments] = field(default_factory=list)
    held_rows: np.ndarray | None = None
    first_round: list[_Histogram] = field(default_factory=list)
    max_round: int = 0
    deck_effects: dict[tuple[str, str], Moments] = field(default_factory=dict)
    deck_outcomes: dict[tuple[str, str], Moments] = field(default_factory=dict)
    level_games: dict[str, np.ndarray] = field(default_factory=dict)
    level_finish: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        s = len(self.strategies)
        self.games_with = {"strategy": np.zeros(s), "start_space": np.zeros(SEAT_SLOTS)}
        self.seat = Moments(s * SEAT_SLOTS)
        self.held = [Moments(2 * s) for _ in range(self.genes)]
        self.bought = [Moments(2 * s) for _ in range(self.genes)]
        self.synergy = {pair: Moments(4 * s) for pair in combinations(range(self.genes), 2)}
        self.purchase = [Moments(1) for _ in range(self.genes)]
        self.held_rows = np.zeros(self.genes)
        self.first_round = [_Histogram() for _ in range(self.genes)]
        if self.deck is not None:
            for feature, by in REPORT_DECK_EFFECTS:
                self.deck_effects[feature, by] = Moments(self._by_levels(by) * len(self.deck.levels[feature]))
            for feature in deck_order.FEATURES:
                n = len(self.deck.levels[feature])
                for column in deck_order.OUTCOME_COLUMNS:
                    self.deck_outcomes[feature, column] = Moments(n)
                self.level_games[feature] = np.zeros(n)
                self.level_finish[feature] = np.zeros(n)

    def _by_levels(self, by: str) -> int:
        return len(self.strategies) if by == "strategy" else SEAT_SLOTS


# The report's deck-effect tables (feature, by), as analysis.ursuppe.report.DECK_EFFECTS.
REPORT_DECK_EFFECTS = (
    ("first_drift", "start_space"),
    ("ozone_band", "start_space"),
    ("first_drift", "strategy"),
    ("ozone_band", "strategy"),
    ("first_ozone", "strategy"),
)


@dataclass
class RunCounts:
    """What the report's title and runs table say about the rows: games analysed per run, games
    per player count, games and player rows in all."""

    games_per_run: dict[int, int]
    games_per_count: dict[int, int]
    games: int
    rows: int

    @classmethod
    def of(cls, rows: pl.DataFrame) -> "RunCounts":
        """From player rows in memory (a test, ``--equilibrium``)."""
        per_run = dict(rows.group_by("run").agg(pl.col("game").n_unique()).iter_rows())
        per_count = dict(rows.group_by("players").agg(pl.struct("run", "game").n_unique()).iter_rows())
        return cls(per_run, per_count, rows.select("run", "game").unique().height, rows.height)


@dataclass
class Streamed:
    """The report's tables of runs read chunk by chunk (see the module docstring)."""

    analyses: "Analyses"
    counts: RunCounts
    gene_set_counts: pl.DataFrame  # players, mask, rows, wins (held at the end)
    deck_effects: dict[tuple[str, str], pl.DataFrame] | None
    deck_outcomes: dict[str, pl.DataFrame] | None
    gene_names: tuple[str, ...]  # the runs' genes in bit order (their manifests' spec.gene_names)


def _chunk(path: Path, run: int, columns: list[str]) -> tuple[pl.DataFrame, int]:
    """A chunk's rows sorted by game and player, with ``run``, and the rows of a game."""
    df = read_chunk(path, columns).with_columns(pl.lit(run, pl.Int16).alias("run"))
    df = df.sort("game", "player") if "player" in df.columns else df.sort("game")
    games = df["game"].n_unique()
    if games == 0 or len(df) % games:
        raise ValueError(f"{path}: games of unequal row counts")
    return df, len(df) // games


def _matrix(series: pl.Series, width: int | None = None) -> np.ndarray:
    """A list column of equal lengths as a [rows, length] integer array (padded or cut to ``width``)."""
    lengths = series.list.len()
    k = int(lengths.max() or 0)
    if int(lengths.min() or 0) != k:
        raise ValueError("list column of unequal lengths in one chunk")
    flat = series.explode().to_numpy().astype(np.int64)
    m = flat.reshape(len(series), k) if k else np.zeros((len(series), 0), dtype=np.int64)
    if width is None or width == k:
        return m
    out = np.zeros((len(series), width), dtype=np.int64)
    out[:, : min(k, width)] = m[:, :width]
    return out


def analyse_runs(
    dirs: Sequence[Path],
    manifests: Sequence[dict[str, Any]],
    gene_names: Sequence[str],
    progress: Callable[[str, int, int], None] | None = None,
    deck: list[dict[str, Any]] | None = None,
) -> Streamed:
    """Every table of the report, reading the runs' chunks one at a time; ``progress(step, done,
    total)`` after each chunk, in games of the pass (issue 31.11: a 1M-game run counted 2,000,000
    games read): ``step`` is ``reading`` when the runs are read once, ``reading 1/2`` and
    ``reading 2/2`` when twice (the deck tables' ozone terciles first). ``deck``: the runs'
    common deck (None: they differ, no deck tables)."""
    files = [(i, f) for i, d in enumerate(dirs) for f in chunk_files(Path(d))]
    players_of = {i: int(m["spec"]["players"]) for i, m in enumerate(manifests)}
    # games per chunk file (its Parquet footer: rows / rows of a game)
    sizes = [
        int(pl.scan_parquet(f).select(pl.len()).collect().item()) // max(1, players_of[i]) for i, f in files
    ]
    kit = _Deck.of(deck) if deck is not None else None
    names_by_count: dict[int, set[str]] = {}
    for i, m in enumerate(manifests):
        names_by_count.setdefault(players_of[i], set()).update(m["spec"]["strategies"])
    reading = _Reading(files, sizes, players_of, progress)
    bands = _ozone_bands(reading, kit, names_by_count)
    by_count = {
        p: _Count(p, sorted(names), len(gene_names), kit, bands[p]) for p, names in names_by_count.items()
    }
    sums = _read_rows(reading, by_count, "reading 2/2" if kit is not None else "reading")
    counted = (
        pl.concat(sums.game_counts).group_by("players", "rounds", "end_reason").agg(pl.col("games").sum())
    )
    counts = RunCounts(
        sums.per_run,
        {p: c.games for p, c in by_count.items() if c.games},
        sum(c.games for c in by_count.values()),
        sum(c.rows for c in by_count.values()),
    )
    analyses = Analyses(
        strategy=win_rates.win_rates_from_parts(pl.concat(sums.strategy), ["players", "strategy"]),
        seats=win_rates.win_rates_from_parts(pl.concat(sums.seat), ["players", "start_space"]).with_columns(
            (pl.col("win_rate") - pl.col("fair_share")).alias("advantage")
        ),
        seat_by_strategy=_seat_effects(by_count),
        length=readable_end(_game_length(counted)),
        length_summary=_game_length_summary(counted),
        ends=readable_end(_end_reasons(counted)),
        held=_gene_effects(by_count, "held", gene_names),
        bought=_gene_effects(by_count, "bought", gene_names),
        synergy=_synergy(by_count, gene_names),
        purchases=_purchase_rates(by_count, gene_names),
        timing=_purchase_timing(by_count, gene_names),
    )
    set_counts = pl.concat(sums.sets).group_by("players", "mask").agg(pl.col("rows", "wins").sum())
    effects = outcomes = None
    if kit is not None:
        effects = {key: _deck_effects(by_count, *key) for key in REPORT_DECK_EFFECTS}
        outcomes = {feature: _deck_outcomes(by_count, feature) for feature in deck_order.FEATURES}
    return Streamed(analyses, counts, set_counts, effects, outcomes, tuple(gene_names))


@dataclass
class _Reading:
    """The runs' chunk files (run index, path), their games, each run's player count and the
    progress callback of :func:`analyse_runs`."""

    files: list[tuple[int, Path]]
    sizes: list[int]
    players_of: dict[int, int]
    progress: Callable[[str, int, int], None] | None

    def chunks(self, columns: list[str], step: str) -> Any:
        """Each chunk as (run index, rows, rows a game), reporting ``step``'s games read after each."""
        done, total = 0, sum(self.sizes)
        for (i, f), n in zip(self.files, self.sizes, strict=True):
            df, per = _chunk(f, i, columns)
            yield i, df, per
            done += n
            if self.progress:
                self.progress(step, done, total)


def _ozone_bands(
    reading: _Reading, kit: _Deck | None, names_by_count: dict[int, set[str]]
) -> dict[int, tuple[float, float] | None]:
    """Pass 1 (with a deck only): the terciles of the ozone total of every game's first cards,
    per player count (the deck tables' ozone band); None without a deck."""
    if kit is None:
        return {p: None for p in names_by_count}
    first_k: dict[int, _Histogram] = {p: _Histogram() for p in names_by_count}
    for i, df, per in reading.chunks(["game", "player", "players", "deck"], "reading 1/2"):
        order = _matrix(df["deck"])[::per]
        first_k[reading.players_of[i]].add(kit.ozone[order[:, : kit.horizon]].sum(axis=1))
    bands: dict[int, tuple[float, float] | None] = {}
    for p in names_by_count:
        values, counts = first_k[p].nonzero()
        bands[p] = (_quantile_linear(values, counts, 1 / 3), _quantile_linear(values, counts, 2 / 3))
    return bands


@dataclass
class _RowSums:
    """What the second pass keeps of the rows beside the per-count sums (_Count): win-rate parts
    by strategy and by seat, games by length and ending, rows and wins by gene set, games a run."""

    strategy: list[pl.DataFrame] = field(default_factory=list)
    seat: list[pl.DataFrame] = field(default_factory=list)
    game_counts: list[pl.DataFrame] = field(default_factory=list)
    sets: list[pl.DataFrame] = field(default_factory=list)
    per_run: dict[int, int] = field(default_factory=dict)


def _read_rows(reading: _Reading, by_count: dict[int, _Count], step: str) -> _RowSums:
    """Pass 2: every chunk's rows added to its player count's sums and to the tables' parts."""
    sums = _RowSums()
    for i, df, per in reading.chunks(_COLUMNS, step):
        _add_chunk(by_count[reading.players_of[i]], df, per)
        rows = df.with_columns(pl.col("strategy").cast(pl.String))
        sums.strategy.append(win_rates.win_rate_parts(rows, ["players", "strategy"]))
        sums.seat.append(win_rates.win_rate_parts(rows, ["players", "start_space"]))
        firsts = rows.gather_every(per)
        sums.game_counts.append(
            firsts.group_by("players", "rounds", pl.col("end_reason").cast(pl.String)).agg(
                pl.len().cast(pl.Int64).alias("games")
            )
        )
        sums.sets.append(
            rows.group_by("players", pl.col("genes_held").alias("mask")).agg(
                pl.len().cast(pl.Int64).alias("rows"), pl.col("won").sum().cast(pl.Int64).alias("wins")
            )
        )
        if len(sums.sets) > 16:  # bounded by the distinct gene sets, not by the chunks
            sums.sets = [pl.concat(sums.sets).group_by("players", "mask").agg(pl.col("rows", "wins").sum())]
        sums.per_run[i] = sums.per_run.get(i, 0) + len(firsts)
    return sums


def _add_chunk(c: _Count, df: pl.DataFrame, per: int) -> None:
    """Add one chunk's games (rows sorted by game and player, ``per`` rows a game)."""
    games = len(df) // per
    shape = (games, per)
    index = {name: k for k, name in enumerate(c.strategies)}
    strategy = np.array([index[s] for s in df["strategy"].cast(pl.String).to_list()], dtype=np.int64)
    strategy = strategy.reshape(shape)
    seat = (df["start_space"].to_numpy().astype(np.int64) - 1).reshape(shape)
    won = df["won"].to_numpy().astype(np.float64).reshape(shape)
    c.games += games
    c.rows += len(df)
    s = len(c.strategies)
    present = np.zeros((games, s), dtype=bool)
    present[np.arange(games)[:, None], strategy] = True
    c.games_with["strategy"] += present.sum(axis=0)
    seated = np.zeros((games, SEAT_SLOTS), dtype=bool)
    seated[np.arange(games)[:, None], seat] = True
    c.games_with["start_space"] += seated.sum(axis=0)
    c.seat.add(strategy * SEAT_SLOTS + seat, won)
    bits = np.arange(c.genes, dtype=np.int64)
    for basis, moments in (("genes_held", c.held), ("genes_bought", c.bought)):
        has = (df[basis].to_numpy().astype(np.int64)[:, None] >> bits) & 1  # [rows, genes]
        for i in range(c.genes):
            side = 1 - has[:, i].reshape(shape)  # 0: with the gene, 1: without
            moments[i].add(strategy * 2 + side, won)
        if basis == "genes_held":
            held = has
    for (i, j), m in c.synergy.items():
        cell = (3 - 2 * held[:, i] - held[:, j]).reshape(shape)
        m.add(strategy * 4 + cell, won)
    first = _matrix(df["first_bought"], c.genes)
    zero = np.zeros(shape, dtype=np.int64)
    for i in range(c.genes):
        bought = (first[:, i] > 0).astype(np.float64).reshape(shape)
        c.purchase[i].add(zero, bought)
        c.first_round[i].add(first[:, i][first[:, i] > 0])
    c.held_rows += held.sum(axis=0)
    if first.size:
        c.max_round = max(c.max_round, int(first.max()))
    if c.deck is None:
        return
    kit = c.deck
    order = _matrix(df["deck"])[::per]
    k_total = kit.ozone[order[:, : kit.horizon]].sum(axis=1)
    low, high = c.bands
    band = np.where(k_total <= low, 0, np.where(k_total <= high, 1, 2))
    values = {
        "first_drift": np.array([str(d) for d in kit.drift[order[:, 0]]], dtype=object),
        "first_ozone": np.array([str(o) for o in kit.ozone[order[:, 0]]], dtype=object),
    }
    level = {f: np.array([kit.levels[f].index(v) for v in values[f]], dtype=np.int64) for f in values} | {
        "ozone_band": band
    }
    finish = (df["end_reason"].cast(pl.String).to_numpy()[::per] == "finish_zone").astype(np.float64)
    for feature, by in REPORT_DECK_EFFECTS:
        n_levels = len(kit.levels[feature])
        by_index = strategy if by == "strategy" else seat
        c.deck_effects[feature, by].add(by_index * n_levels + level[feature][:, None], won)
    outcome = {
        col: df[col].to_numpy().astype(np.float64).reshape(shape) for col in deck_order.OUTCOME_COLUMNS
    }
    for feature in deck_order.FEATURES:
        g = np.repeat(level[feature][:, None], per, axis=1)
        for col in deck_order.OUTCOME_COLUMNS:
            c.deck_outcomes[feature, col].add(g, outcome[col])
        n = len(kit.levels[feature])
        c.level_games[feature] += np.bincount(level[feature], minlength=n)
        c.level_finish[feature] += np.bincount(level[feature], weights=finish, minlength=n)


def _counts(by_count: dict[int, _Count]) -> list[_Count]:
    return [by_count[p] for p in sorted(by_count) if by_count[p].games]


def _seat_effects(by_count: dict[int, _Count]) -> pl.DataFrame:
    """analysis.win_rates.seat_effects(rows, "strategy")."""
    out = []
    for c in _counts(by_count):
        for si, name in enumerate(c.strategies):
            cols = np.arange(si * SEAT_SLOTS, (si + 1) * SEAT_SLOTS)
            n_part = c.seat.n[cols]
            if n_part.sum() == 0:
                continue
            for t in np.flatnonzero(n_part):
                n, w = int(n_part[t]), int(c.seat.s[cols[t]])
                if min(n, int(n_part.sum()) - n) >= MIN_ROWS:
                    a = np.zeros((2, c.seat.k))
                    a[0, cols[t]] = 1
                    a[1, cols] = 1
                    a[1, cols[t]] = 0
                    con = c.seat.merged(a).contrast(_DIFF, int(c.games_with["strategy"][si]))
                else:
                    con = NO_CONTRAST
                out.append(win_rates.seat_effect_row(c.players, "strategy", name, int(t + 1), n, w, con))
    return with_holm(out)


def _game_length(counted: pl.DataFrame) -> pl.DataFrame:
    """analysis.win_rates.game_length from the games per (players, rounds, end reason)."""
    return counted.with_columns(
        (pl.col("games") / pl.col("games").sum().over("players")).alias("share")
    ).sort(["players", "rounds", "end_reason"])


def _game_length_summary(counted: pl.DataFrame) -> pl.DataFrame:
    """analysis.win_rates.game_length_summary from the games per (players, rounds, end reason)."""
    out = []
    for (players,), part in counted.group_by(["players"]):
        h = part.group_by("rounds").agg(pl.col("games").sum()).sort("rounds")
        v, k = h["rounds"].to_numpy().astype(np.int64), h["games"].to_numpy().astype(np.int64)
        n = int(k.sum())
        mean = float((v * k).sum() / n)
        sd = float(np.sqrt(((v - mean) ** 2 * k).sum() / (n - 1))) if n > 1 else None
        out.append(
            {
                "players": players,
                "games": n,
                "mean_rounds": mean,
                "sd_rounds": sd,
                "min": int(v.min()),
                "q1": _quantile_nearest(v, k, 0.25),
                "median": _median(v, k),
                "q3": _quantile_nearest(v, k, 0.75),
                "max": int(v.max()),
            }
        )
    return pl.DataFrame(out, schema_overrides={"sd_rounds": pl.Float64}).sort("players")


def _end_reasons(counted: pl.DataFrame) -> pl.DataFrame:
    """analysis.win_rates.end_reasons from the games per (players, rounds, end reason)."""
    df = (
        counted.group_by(["players", "end_reason"])
        .agg(pl.col("games").sum())
        .with_columns(pl.col("games").sum().over("players").alias("of"))
        .sort(["players", "end_reason"])
    )
    lo, hi = wilson(df["games"].to_numpy(), df["of"].to_numpy())
    return df.with_columns(
        (pl.col("games") / pl.col("of")).alias("share"), pl.Series("ci_low", lo), pl.Series("ci_high", hi)
    )


def _gene_effects(by_count: dict[int, _Count], basis: str, gene_names: Sequence[str]) -> pl.DataFrame:
    """analysis.ursuppe.genes.gene_effects(rows, basis, genes=gene_names)."""
    from analysis.ursuppe.genes import (
        NO_STRATA,
        _strata_label,
        _strata_weights,
        effect_row,
        effects_frame,
        smallest_group,
    )

    out = []
    for c in _counts(by_count):
        names = np.array(c.strategies, dtype=object)
        s = len(names)
        pool = np.zeros((2, 2 * s))
        pool[0, 0::2] = pool[1, 1::2] = 1
        for i, name in enumerate(gene_names):
            m = (c.held if basis == "held" else c.bought)[i]
            counts = m.n.reshape(s, 2)
            n_with, n_without = int(counts[:, 0].sum()), int(counts[:, 1].sum())
            wins = m.s.reshape(s, 2)
            w_with, w_without = int(wins[:, 0].sum()), int(wins[:, 1].sum())
            lo, hi = wilson(np.array([w_with, w_without]), np.array([n_with, n_without]))
            rate_with = w_with / n_with if n_with else np.nan
            rate_without = w_without / n_without if n_without else np.nan
            rates = (lo, hi, n_with / (n_with + n_without), rate_with, rate_without)
            diff, strata = NO_CONTRAST, NO_STRATA
            if min(n_with, n_without) >= MIN_ROWS:
                diff = m.merged(pool).contrast(_DIFF, c.games)
                present = counts.sum(axis=1) > 0
                usable, weight = _strata_weights(counts[present].astype(np.int64), MIN_ROWS)
                full = np.zeros(s)
                full[present] = weight
                if usable.any():
                    within = m.contrast(np.stack([full, -full], axis=1).ravel(), c.games)
                    label = _strata_label(names[present], counts[present].astype(np.int64), usable)
                    strata = (within, label, smallest_group(counts[present], usable))
            out.append(effect_row(c.players, name, n_with, n_without, rates, diff, strata))
    return effects_frame(out)


def _synergy(by_count: dict[int, _Count], gene_names: Sequence[str]) -> pl.DataFrame:
    """analysis.ursuppe.genes.gene_synergy(rows, "held", genes=...)."""
    from analysis.ursuppe.genes import _strata_label, _strata_weights, synergy_frame, synergy_row

    out = []
    for c in _counts(by_count):
        names = np.array(c.strategies, dtype=object)
        s = len(names)
        pool = np.zeros((4, 4 * s))
        for cell in range(4):
            pool[cell, cell::4] = 1
        for (i, j), m in c.synergy.items():
            by_stratum = m.n.reshape(s, 4)
            counts = by_stratum.sum(axis=0)
            rates = m.s.reshape(s, 4).sum(axis=0) / np.maximum(counts, 1)
            raw = within = NO_CONTRAST
            label = ""
            if counts.min() >= MIN_ROWS:
                raw = m.merged(pool).contrast(_INTERACTION, c.games)
                present = by_stratum.sum(axis=1) > 0
                usable, weight = _strata_weights(by_stratum[present].astype(np.int64), MIN_ROWS)
                if usable.any():
                    full = np.zeros(s)
                    full[present] = weight
                    within = m.contrast(np.outer(full, _INTERACTION).ravel(), c.games)
                    label = _strata_label(names[present], by_stratum[present].astype(np.int64), usable)
            out.append(synergy_row(c.players, i, j, counts, rates, raw, within, label, gene_names))
    return synergy_frame(out)


def _purchase_rates(by_count: dict[int, _Count], gene_names: Sequence[str]) -> pl.DataFrame:
    """analysis.ursuppe.genes.purchase_rates(rows, genes=gene_names)."""
    out = []
    for c in _counts(by_count):
        for i, name in enumerate(gene_names):
            m = c.purchase[i]
            buyers = int(m.s[0])
            lo, hi, deff = _wilson_clustered(m, c.games)
            values, counts = c.first_round[i].nonzero()
            out.append(
                {
                    "players": c.players,
                    "gene": name,
                    "bought_rate": buyers / c.rows,
                    "ci_low": lo,
                    "ci_high": hi,
                    "design_effect": deff,
                    "held_rate": c.held_rows[i] / c.rows,
                    "mean_round": float((values * counts).sum() / buyers) if buyers else np.nan,
                    "median_round": _median(values, counts) if buyers else np.nan,
                }
            )
    return pl.DataFrame(out)


def _purchase_timing(by_count: dict[int, _Count], gene_names: Sequence[str]) -> pl.DataFrame:
    """analysis.ursuppe.genes.purchase_timing(rows, genes=gene_names)."""
    from analysis.ursuppe.genes import TIMING_SCHEMA, timing_rows

    counts = _counts(by_count)
    max_round = max((c.max_round for c in counts), default=0)
    records = []
    for c in counts:
        for i, name in enumerate(gene_names):
            per_round = np.zeros(max_round + 1, dtype=np.int64)
            h = c.first_round[i].counts
            per_round[: len(h)] += h[: max_round + 1]
            records += timing_rows(c.players, name, per_round, c.rows)
    return pl.DataFrame(records, schema=TIMING_SCHEMA)


def _by_names(c: _Count, by: str) -> list[str]:
    return c.strategies if by == "strategy" else [str(t + 1) for t in range(SEAT_SLOTS)]


def _deck_effects(by_count: dict[int, _Count], feature: str, by: str) -> pl.DataFrame:
    """analysis.ursuppe.deck_order.deck_effects(deck_features(rows, deck), feature, by)."""
    out = []
    for c in _counts(by_count):
        m = c.deck_effects[feature, by]
        levels = c.deck.levels[feature]
        f_n = len(levels)
        by_names = _by_names(c, by)
        n = m.n.reshape(len(by_names), f_n)
        wins = m.s.reshape(len(by_names), f_n)
        f_present = [f for f in range(f_n) if n[:, f].sum() > 0]
        b_present = sorted(
            (b for b in range(len(by_names)) if n[b].sum() > 0),
            key=lambda b: deck_order.level_order(by_names[b]),
        )
        for b in b_present:
            for f in f_present:
                cell_n, w = int(n[b, f]), int(wins[b, f])
                rest = int(n[b].sum()) - cell_n
                if min(cell_n, rest) >= MIN_ROWS:
                    a = np.zeros((2, m.k))
                    a[0, b * f_n + f] = 1
                    a[1, b * f_n : (b + 1) * f_n] = 1
                    a[1, b * f_n + f] = 0
                    con = m.merged(a).contrast(_DIFF, int(c.games_with[by][b]))
                else:
                    con = NO_CONTRAST
                out.append(
                    deck_order.cell_row(c.players, {by: by_names[b], feature: levels[f]}, cell_n, w, con)
                )
    return with_holm(out)


def _deck_outcomes(by_count: dict[int, _Count], feature: str) -> pl.DataFrame:
    """analysis.ursuppe.deck_order.deck_outcomes(deck_features(rows, deck), feature)."""
    out = []
    for c in _counts(by_count):
        levels = c.deck.levels[feature]
        games_at = c.level_games[feature]
        for f in [f for f in range(len(levels)) if games_at[f] > 0]:
            n_games, fz_games = int(games_at[f]), int(c.level_finish[feature][f])
            lo, hi = wilson(fz_games, n_games)
            row: dict[str, Any] = {
                "players": c.players,
                feature: levels[f],
                "games": n_games,
                "finish_zone_share": fz_games / n_games if n_games else np.nan,
                "finish_low": float(lo),
                "finish_high": float(hi),
            }
            for column, name in deck_order.OUTCOME_COLUMNS.items():
                m = c.deck_outcomes[feature, column]
                at = np.zeros((1, m.k))
                at[0, f] = 1
                split = np.vstack([at, 1 - at])
                mean = m.merged(at).contrast(np.array([1.0]), n_games)
                row |= deck_order.outcome_cells(name, mean, m.merged(split).contrast(_DIFF, c.games))
            out.append(row)
    return deck_order.outcomes_frame(out)
