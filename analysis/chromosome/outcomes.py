"""Chromosome's tables from its result rows (sim/chromosome/game.py: the core columns and
``species``, ``score``, ``eliminated``, ``tokens``, ``trophies``, ``fate``, ``irradiation``,
``rounds``, ``end_reason``; docs/results.md), with 95% intervals.

Every table is a function of sums over games, its *parts*: the game is the unit of every interval
(the cluster of analysis.intervals.cluster_contrast) and a run's chunks hold whole games, so the
parts of the chunks add up. ``soup report`` reads one chunk at a time and keeps only the parts
(memory flat in the runs' size); the in-memory functions here are the same code:
``table(rows) == table_from_parts([parts(rows)])``.

**Shared wins** (E5): every tied non-eliminated player with the highest score wins, and a game
where every player is eliminated has no winner. A player counts as a winner when ``won``, so the
*win rate* counts a shared win as a win for each winner; the win rates of the players of a player
count then average (winners per game) / P, its *par*, which exceeds the fair share 1/P by the
shared wins. Groups are tested against the par (and, in the CSV, against 1/P). The *win share*
splits a shared win, 1/k to each of k winners: it averages (games with a winner) / P.

Optional columns, used when the results have them (the engine does not write them yet):
``genes_Y``, ``genes_P``, ``genes_R``, ``genes_B`` (int8: gene cubes of that colour the player
holds at the end, active and passive) and ``event_order`` (list<int8>: indices into the rules'
``events.deck`` in the order the game reveals them; a card at position k is revealed in round
k + 2, V2, so only the first rounds − 1 entries count).
"""

from collections.abc import Callable, Sequence

import numpy as np
import polars as pl

from analysis import win_rates
from analysis.intervals import Z95, two_sided_p, wilson
from analysis.multiple_testing import holm
from analysis.win_rates import Rows

GAME_KEY = win_rates.GAME_KEY
WIN_COLUMNS = ("won", "win_share")
END_STATE = ("score", "tokens", "trophies", "fate", "irradiation")
END_COLUMNS = ("eliminated", *END_STATE)
DISTRIBUTIONS = ("irradiation", "trophies", "tokens", "fate")
GENE_COLOURS = ("Y", "P", "R", "B")  # §0: action, telepathy, combat, build
GENE_COLUMNS = tuple(f"genes_{c}" for c in GENE_COLOURS)
GENES_TOTAL = "genes_total"
EVENT_ORDER = "event_order"
FIRST_EVENT = "first_event"
# Relative size below which a variance from the moments is rounding error (exactly 0 row by row).
_ZERO_VARIANCE = 1e-10


# --- rows ----------------------------------------------------------------------------------------


def gene_columns(names: Sequence[str]) -> list[str]:
    """The gene-colour columns present among ``names`` (and their total when any is)."""
    present = [c for c in GENE_COLUMNS if c in names]
    return [*present, GENES_TOTAL] if present else []


def has_event_order(schema: pl.Schema | dict) -> bool:
    """Whether the results carry the event order (a list column ``event_order``)."""
    dtype = dict(schema).get(EVENT_ORDER)
    return dtype is not None and isinstance(dtype, pl.List)


def prepared(rows: Rows) -> pl.LazyFrame:
    """``rows`` with what the tables use beside the result columns: ``run`` (0 for one run),
    ``winners`` (the number of winners of the row's game), ``win_share`` (1/winners for a winner,
    else 0), ``genes_total`` (with gene-colour columns) and ``first_event`` (with an event order:
    the first card revealed, null when none was). Columns already there are kept."""
    lf = win_rates.with_run(rows)
    schema = lf.collect_schema()
    names = schema.names()
    if "winners" not in names:
        lf = lf.with_columns(pl.col("won").cast(pl.Int64).sum().over(GAME_KEY).alias("winners"))
    if "win_share" not in names:
        share = pl.when(pl.col("won")).then(1.0 / pl.col("winners").cast(pl.Float64)).otherwise(0.0)
        lf = lf.with_columns(share.alias("win_share"))
    genes = [c for c in gene_columns(names) if c != GENES_TOTAL]
    if genes and GENES_TOTAL not in names:
        lf = lf.with_columns(pl.sum_horizontal(*(pl.col(c).cast(pl.Int64) for c in genes)).alias(GENES_TOTAL))
    if has_event_order(schema) and FIRST_EVENT not in names:
        revealed = pl.col("rounds").cast(pl.Int64) >= 2  # V2: the first card in round 2
        lf = lf.with_columns(
            pl.when(revealed).then(pl.col(EVENT_ORDER).list.first()).cast(pl.Int64).alias(FIRST_EVENT)
        )
    return lf


# --- moments: means, rates and tests from sums over games ---------------------------------------


def moment_parts(rows: Rows, by: Sequence[str], columns: Sequence[str]) -> pl.DataFrame:
    """Per group of ``by``: ``rows`` and, per column c, the sums over the group's games c of
    ``N_c`` (rows), ``S_c`` (sum of c), and the products ``N_c^2``, ``S_c^2``, ``S_c N_c``: the
    sufficient statistics of a group mean with a cluster-robust variance (the game the cluster),
    :func:`means_from_parts`. Parts of disjoint sets of games add up (:func:`combine`)."""
    lf = prepared(rows)
    keys = [*by, *(k for k in GAME_KEY if k not in by)]
    per_game = lf.group_by(keys).agg(
        pl.len().cast(pl.Float64).alias("_n"),
        *(pl.col(c).cast(pl.Float64).sum().alias(f"_s_{c}") for c in columns),
    )
    aggs = [
        pl.col("_n").sum().alias("rows"),
        (pl.col("_n") ** 2).sum().alias("_nn"),
        pl.len().cast(pl.Float64).alias("_clusters"),
    ]
    for c in columns:
        s = pl.col(f"_s_{c}")
        aggs += [s.sum(), (s**2).sum().alias(f"_ss_{c}"), (s * pl.col("_n")).sum().alias(f"_sn_{c}")]
    return per_game.group_by(list(by)).agg(aggs).collect()


def combine(parts: Sequence[pl.DataFrame], by: Sequence[str]) -> pl.DataFrame:
    """The sum of parts (of disjoint sets of games) per group of ``by``, sorted by it."""
    frames = [p for p in parts if len(p)]
    if not frames:
        return parts[0].clear() if parts else pl.DataFrame()
    df = pl.concat(frames, how="vertical_relaxed")
    return df.group_by(list(by)).agg(pl.exclude(list(by)).sum()).sort(list(by), nulls_last=True)


def _arrays(df: pl.DataFrame, c: str) -> tuple[np.ndarray, ...]:
    get = lambda name: df[name].cast(pl.Float64).to_numpy()  # noqa: E731
    return get("rows"), get(f"_s_{c}"), get(f"_ss_{c}"), get(f"_sn_{c}"), get("_nn"), get("_clusters")


def _spread(ss, sn, nn, mu) -> np.ndarray:
    """``sum_c (S_c - mu N_c)^2`` from the moments, with rounding error set to 0."""
    q = ss - 2 * mu * sn + mu * mu * nn
    return np.where(q > _ZERO_VARIANCE * (ss + mu * mu * nn), q, 0.0)


def mean_se(df: pl.DataFrame, c: str) -> tuple[np.ndarray, np.ndarray]:
    """The group means of column ``c`` and their cluster-robust standard errors (exactly
    analysis.intervals.cluster_contrast of one group): ``sqrt(C/(C-1) sum_c (S_c - m N_c)^2) / N``
    over the group's C games; NaN with fewer than 2 games."""
    n, s, ss, sn, nn, clusters = _arrays(df, c)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = s / n
        se = np.sqrt(clusters / (clusters - 1) * _spread(ss, sn, nn, m)) / n
    return m, np.where(clusters >= 2, se, np.nan)


def score_p(df: pl.DataFrame, c: str, mu0: np.ndarray) -> np.ndarray:
    """Two-sided p-value of "the group mean of ``c`` is ``mu0``" (a score test: the
    cluster-robust variance around ``mu0``, so a group with no wins or only wins is testable);
    NaN without spread. analysis.win_rates does the same against the fair share."""
    n, s, ss, sn, nn, clusters = _arrays(df, c)
    mu0 = np.asarray(mu0, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        se0 = np.sqrt(clusters / np.maximum(clusters - 1, 1) * _spread(ss, sn, nn, mu0)) / n
        p = two_sided_p((s / n - mu0) / se0)
    return np.where(se0 > 0, p, np.nan)


def cluster_rate_interval(df: pl.DataFrame, c: str) -> tuple[np.ndarray, np.ndarray]:
    """Wilson interval of the share of 0/1 column ``c`` on the effective sample size of its
    cluster-robust variance (analysis.intervals.cluster_wilson); the plain Wilson interval on the
    rows where that variance is 0 or undefined."""
    n, s = _arrays(df, c)[:2]
    p, se = mean_se(df, c)
    with np.errstate(invalid="ignore", divide="ignore"):
        n_eff = np.where((se > 0) & (p > 0) & (p < 1), p * (1 - p) / se**2, n)
    return wilson(p * n_eff, n_eff)


def means_from_parts(
    parts: Sequence[pl.DataFrame], by: Sequence[str], columns: Sequence[str], rates: Sequence[str] = ()
) -> pl.DataFrame:
    """Per group of ``by``: ``games`` (player-games) and per column c its mean ``c`` with a 95%
    interval ``c_low``, ``c_high``: normal with the cluster-robust standard error, or for the
    0/1 columns in ``rates`` Wilson on the effective sample size (:func:`cluster_rate_interval`)."""
    df = combine(parts, by)
    out = df.select(*by, pl.col("rows").cast(pl.Int64).alias("games"))
    for c in columns:
        if c in rates:
            m = mean_se(df, c)[0]
            lo, hi = cluster_rate_interval(df, c)
        else:
            m, se = mean_se(df, c)
            lo, hi = m - Z95 * se, m + Z95 * se
        out = out.with_columns(pl.Series(c, m), pl.Series(f"{c}_low", lo), pl.Series(f"{c}_high", hi))
    return out


# --- win rates ---------------------------------------------------------------------------------


def win_parts(rows: Rows, by: Sequence[str]) -> pl.DataFrame:
    """The parts of :func:`win_table` (per player count and group of ``by``)."""
    return moment_parts(rows, ["players", *by], WIN_COLUMNS)


def win_table_from_parts(parts: Sequence[pl.DataFrame], by: Sequence[str]) -> pl.DataFrame:
    """Per player count and group of ``by``: player-games (``games``), games played
    (``game_count``), ``wins`` and the ``win_rate`` (every winner of a shared win counts) with its
    95% Wilson interval; the ``fair_share`` 1/P; the ``par``, the win rate of all players of the
    player count ((winners per game) / P); ``vs_par`` = win rate − par, tested against 0
    (``p_value``, ``p_holm`` over the table; ``p_fair``, ``p_fair_holm``: against 1/P); and the
    ``win_share`` (a shared win split among its winners) with its 95% interval."""
    keys = ["players", *by]
    df = combine(parts, keys)
    totals = df.group_by("players").agg(
        pl.col("rows").sum().alias("_all"), pl.col("_s_won").sum().alias("_w")
    )
    df = df.join(totals, on="players").sort(keys, nulls_last=True)
    par = (df["_w"] / df["_all"]).to_numpy()
    fair = 1.0 / df["players"].cast(pl.Float64).to_numpy()
    wins = df["_s_won"].round().cast(pl.Int64).to_numpy()
    n = df["rows"].cast(pl.Int64).to_numpy()
    lo, hi = wilson(wins, n)
    p = score_p(df, "won", par)
    p_fair = score_p(df, "won", fair)
    share, share_se = mean_se(df, "win_share")
    rate = wins / n
    return df.select(
        *keys,
        pl.Series("games", n),
        pl.col("_clusters").cast(pl.Int64).alias("game_count"),
        pl.Series("wins", wins),
        pl.Series("win_rate", rate),
        pl.Series("ci_low", lo),
        pl.Series("ci_high", hi),
        pl.Series("fair_share", fair),
        pl.Series("par", par),
        pl.Series("vs_par", rate - par),
        pl.Series("p_value", p),
        pl.Series("p_holm", holm(p)),
        pl.Series("p_fair", p_fair),
        pl.Series("p_fair_holm", holm(p_fair)),
        pl.Series("win_share", share),
        pl.Series("share_low", np.clip(share - Z95 * share_se, 0.0, 1.0)),
        pl.Series("share_high", np.clip(share + Z95 * share_se, 0.0, 1.0)),
    )


def win_table(rows: Rows, by: Sequence[str]) -> pl.DataFrame:
    """:func:`win_table_from_parts` of ``rows`` (e.g. ``by=["species"]``, ``["start_space"]``,
    ``["strategy"]``, ``[]`` for the player counts)."""
    return win_table_from_parts([win_parts(rows, by)], by)


# --- games: shared wins, endings, length ---------------------------------------------------------


def game_parts(rows: Rows) -> pl.DataFrame:
    """Games per player count, rounds played, end reason and number of winners."""
    return (
        prepared(rows)
        .group_by(GAME_KEY)
        .agg(pl.col("rounds").first().cast(pl.Int64), pl.col("end_reason").first(), pl.col("winners").first())
        .group_by("players", "rounds", "end_reason", "winners")
        .agg(pl.len().cast(pl.Int64).alias("games"))
        .collect()
    )


def _games(parts: Sequence[pl.DataFrame]) -> pl.DataFrame:
    return combine(parts, ["players", "rounds", "end_reason", "winners"])


def _with_wilson(df: pl.DataFrame, count: str, of: str, prefix: str = "") -> pl.DataFrame:
    lo, hi = wilson(df[count].to_numpy(), df[of].to_numpy())
    return df.with_columns(
        (pl.col(count) / pl.col(of)).alias(f"{prefix}share"),
        pl.Series(f"{prefix}ci_low", lo),
        pl.Series(f"{prefix}ci_high", hi),
    )


def shared_wins(parts: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Per player count: games; games without a winner (every player eliminated, E5) and games
    with a shared win (2 or more winners), each as a count and a share with a 95% Wilson interval
    (games are independent); the mean and the most winners of a game."""
    g = _games(parts)
    df = (
        g.group_by("players")
        .agg(
            pl.col("games").sum().alias("games"),
            pl.col("games").filter(pl.col("winners") == 0).sum().alias("no_winner"),
            pl.col("games").filter(pl.col("winners") == 1).sum().alias("one_winner"),
            pl.col("games").filter(pl.col("winners") >= 2).sum().alias("shared"),
            ((pl.col("winners") * pl.col("games")).sum() / pl.col("games").sum()).alias("mean_winners"),
            pl.col("winners").max().alias("most_winners"),
        )
        .sort("players")
    )
    df = _with_wilson(df, "no_winner", "games", "no_winner_")
    return _with_wilson(df, "shared", "games", "shared_")


def winner_counts(parts: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Games and their share per player count and number of winners."""
    g = _games(parts).group_by("players", "winners").agg(pl.col("games").sum()).sort("players", "winners")
    return g.with_columns((pl.col("games") / pl.col("games").sum().over("players")).alias("share"))


def end_reasons(parts: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Per player count and end reason (``rounds``: the clock ran out, E1; ``elimination``, E3):
    games, share with its 95% Wilson interval, and mean rounds played."""
    g = _games(parts)
    df = (
        g.group_by("players", "end_reason")
        .agg(
            pl.col("games").sum(),
            ((pl.col("rounds") * pl.col("games")).sum() / pl.col("games").sum()).alias("mean_rounds"),
        )
        .with_columns(pl.col("games").sum().over("players").alias("of"))
        .sort("players", "end_reason")
    )
    return _with_wilson(df, "games", "of").select(
        "players", "end_reason", "games", "share", "ci_low", "ci_high", "mean_rounds"
    )


def game_length(parts: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Games and share of the player count's games per (players, rounds, end reason)."""
    g = _games(parts).group_by("players", "rounds", "end_reason").agg(pl.col("games").sum())
    return g.with_columns((pl.col("games") / pl.col("games").sum().over("players")).alias("share")).sort(
        "players", "rounds", "end_reason"
    )


def _quantile(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """The "nearest" quantile of a histogram (as polars' ``quantile(q, "nearest")``)."""
    index = round(q * (counts.sum() - 1))
    return float(values[np.searchsorted(np.cumsum(counts), index, side="right")])


def length_summary(parts: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Per player count: games, mean and standard deviation of rounds, min, quartiles, max."""
    out = []
    for (players,), d in game_length(parts).group_by(["players"], maintain_order=True):
        h = d.group_by("rounds").agg(pl.col("games").sum()).sort("rounds")
        v, c = h["rounds"].to_numpy().astype(np.float64), h["games"].to_numpy()
        n = c.sum()
        mean = float((v * c).sum() / n)
        sd = float(np.sqrt(((v - mean) ** 2 * c).sum() / (n - 1))) if n > 1 else float("nan")
        below, above = np.searchsorted(np.cumsum(c), [(n - 1) // 2, n // 2], side="right")
        out.append(
            {
                "players": players,
                "games": int(n),
                "mean_rounds": mean,
                "sd_rounds": sd,
                "min": int(v[0]),
                "q1": _quantile(v, c, 0.25),
                "median": float((v[below] + v[above]) / 2),
                "q3": _quantile(v, c, 0.75),
                "max": int(v[-1]),
            }
        )
    return pl.DataFrame(out)


# --- the end of the game: irradiation, trophies, tokens, fate ------------------------------------


def end_state_parts(rows: Rows, by: str) -> pl.DataFrame:
    """The parts of :func:`end_state` by player count and ``by``."""
    return moment_parts(rows, ["players", by], END_COLUMNS)


def end_state_from_parts(parts: Sequence[pl.DataFrame], by: str) -> pl.DataFrame:
    """Per player count and ``by`` (species, strategy, won): player-games, the share eliminated
    (cluster-robust Wilson interval) and the mean score, tokens on the board, trophies, fate left
    and irradiation at the end, each with a 95% interval (cluster-robust by game)."""
    return means_from_parts(parts, ["players", by], END_COLUMNS, rates=("eliminated",))


def end_state(rows: Rows, by: str) -> pl.DataFrame:
    return end_state_from_parts([end_state_parts(rows, by)], by)


def distribution_parts(rows: Rows, columns: Sequence[str] = DISTRIBUTIONS) -> pl.DataFrame:
    """Players per player count, measure (a column) and its value at the end."""
    lf = prepared(rows)
    frames = [
        lf.group_by("players", c)
        .agg(pl.len().cast(pl.Int64).alias("count"))
        .select("players", pl.lit(c).alias("measure"), pl.col(c).cast(pl.Int64).alias("value"), "count")
        for c in columns
    ]
    return pl.concat(pl.collect_all(frames))


def distributions_from_parts(parts: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Per player count, measure and value: players and their share of the player count's."""
    df = combine(parts, ["players", "measure", "value"])
    return df.with_columns(
        (pl.col("count") / pl.col("count").sum().over("players", "measure")).alias("share")
    )


def distributions(rows: Rows, columns: Sequence[str] = DISTRIBUTIONS) -> pl.DataFrame:
    return distributions_from_parts([distribution_parts(rows, columns)])


# --- optional: gene colours held, event order ----------------------------------------------------


def gene_parts(rows: Rows, by: str, columns: Sequence[str]) -> pl.DataFrame:
    """The parts of :func:`genes_held` (``columns``: :func:`gene_columns` of the results)."""
    return moment_parts(rows, ["players", by], columns)


def genes_held_from_parts(parts: Sequence[pl.DataFrame], by: str, columns: Sequence[str]) -> pl.DataFrame:
    """Per player count and ``by``: the mean gene cubes of each colour (and in all) held at the
    end, each with a 95% interval (cluster-robust by game)."""
    return means_from_parts(parts, ["players", by], columns)


def genes_held(rows: Rows, by: str) -> pl.DataFrame:
    columns = gene_columns(prepared(rows).collect_schema().names())
    return genes_held_from_parts([gene_parts(rows, by, columns)], by, columns)


def event_parts(rows: Rows) -> dict[str, pl.DataFrame]:
    """The parts of the event tables: ``reveals`` (games per player count, card and round of
    reveal), ``first_end`` (games per player count, first card and end reason) and
    ``first_species`` (:func:`win_parts` by first card and species)."""
    lf = prepared(rows)
    games = lf.group_by(GAME_KEY).agg(
        pl.col(EVENT_ORDER).first(),
        pl.col(FIRST_EVENT).first(),
        pl.col("end_reason").first(),
        pl.col("rounds").first().cast(pl.Int64),
    )
    reveals = (
        games.select(
            "players",
            "rounds",
            pl.col(EVENT_ORDER).alias("card"),
            pl.int_ranges(0, pl.col(EVENT_ORDER).list.len()).alias("position"),
        )
        .explode("card", "position")
        .drop_nulls("card")
        .filter(pl.col("position") < pl.col("rounds") - 1)  # V2: revealed from round 2 on
        .group_by("players", pl.col("card").cast(pl.Int64), (pl.col("position") + 2).alias("round"))
        .agg(pl.len().cast(pl.Int64).alias("games"))
    )
    first_end = games.group_by("players", FIRST_EVENT, "end_reason").agg(
        pl.len().cast(pl.Int64).alias("games")
    )
    counts = games.group_by("players").agg(pl.len().cast(pl.Int64).alias("games"))
    reveals, first_end, counts = pl.collect_all([reveals, first_end, counts])
    return {
        "reveals": reveals,
        "first_end": first_end,
        "game_counts": counts,
        "first_species": win_parts(lf, [FIRST_EVENT, "species"]),
    }


def event_tables(parts: Sequence[dict[str, pl.DataFrame]], names: Sequence[str]) -> dict[str, pl.DataFrame]:
    """The event tables from :func:`event_parts` of the chunks; ``names``: the deck's card names
    (the manifest's ``rules.events.deck[i].name``).

    - ``cards``: per player count and card, the games it was revealed in, their share of the
      player count's games, and the mean round it came;
    - ``first_end``: per player count and first card (none: the game ended before round 2), the
      games and the share ending by elimination (95% Wilson interval);
    - ``first_species``: per player count, first card and species, the win rate (Wilson) and its
      difference from the same species' win rate in the other games of the player count, with a
      95% interval and Holm p (cluster-robust; the two sets of games are disjoint)."""

    def name(i: int | None) -> str:
        if i is None:
            return "none revealed"
        return names[i] if 0 <= i < len(names) else f"card {i}"

    return {
        "cards": _card_table(parts, name),
        "first_end": _first_end_table(parts, name),
        "first_species": _first_species_table(parts, name),
    }


def _card_table(parts: Sequence[dict[str, pl.DataFrame]], name: Callable[[int | None], str]) -> pl.DataFrame:
    """event_tables' ``cards``: per player count and card, its games, share and mean round."""
    counts = combine([p["game_counts"] for p in parts], ["players"])
    reveals = combine([p["reveals"] for p in parts], ["players", "card", "round"])
    cards = (
        reveals.group_by("players", "card")
        .agg(
            pl.col("games").sum(),
            ((pl.col("round") * pl.col("games")).sum() / pl.col("games").sum()).alias("mean_round"),
        )
        .join(counts.rename({"games": "of"}), on="players")
        .with_columns((pl.col("games") / pl.col("of")).alias("share"))
        .sort("players", "card")
    )
    return cards.select(
        "players",
        "card",
        pl.col("card").map_elements(name, return_dtype=pl.String).alias("name"),
        "games",
        "share",
        "mean_round",
    )


def _first_end_table(
    parts: Sequence[dict[str, pl.DataFrame]], name: Callable[[int | None], str]
) -> pl.DataFrame:
    """event_tables' ``first_end``: per player count and first card, the share ending by elimination."""
    fe = combine([p["first_end"] for p in parts], ["players", FIRST_EVENT, "end_reason"])
    first_end = (
        fe.group_by("players", FIRST_EVENT)
        .agg(
            pl.col("games").sum(),
            pl.col("games").filter(pl.col("end_reason") == "elimination").sum().alias("el"),
        )
        .sort("players", FIRST_EVENT, nulls_last=True)
    )
    first_end = _with_wilson(first_end, "el", "games", "elimination_").rename({"el": "by_elimination"})
    return first_end.with_columns(
        pl.col(FIRST_EVENT).map_elements(name, return_dtype=pl.String, skip_nulls=False).alias("name")
    )


def _first_species_table(
    parts: Sequence[dict[str, pl.DataFrame]], name: Callable[[int | None], str]
) -> pl.DataFrame:
    """event_tables' ``first_species``: per player count, first card and species, the win rate
    against the same species' in the other games of the player count."""
    keys = ["players", FIRST_EVENT, "species"]
    cells = combine([p["first_species"] for p in parts], keys)
    sums = [c for c in cells.columns if c not in keys]
    total = cells.group_by("players", "species").agg(pl.col(sums).sum().name.suffix("_all"))
    joined = cells.join(total, on=["players", "species"], how="left").sort(keys, nulls_last=True)
    cells = joined.select(*keys, *sums)
    others = joined.select(*keys, *((pl.col(f"{c}_all") - pl.col(c)).alias(c) for c in sums))  # other games
    m1, se1 = mean_se(cells, "won")
    m2, se2 = mean_se(others, "won")
    diff, se = m1 - m2, np.sqrt(se1**2 + se2**2)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(se > 0, two_sided_p(diff / se), np.nan)
    n = cells["rows"].cast(pl.Int64).to_numpy()
    wins = cells["_s_won"].round().cast(pl.Int64).to_numpy()
    lo, hi = wilson(wins, n)
    return cells.select(
        "players",
        FIRST_EVENT,
        pl.col(FIRST_EVENT).map_elements(name, return_dtype=pl.String, skip_nulls=False).alias("name"),
        "species",
        pl.Series("games", n),
        pl.Series("wins", wins),
        pl.Series("win_rate", wins / n),
        pl.Series("ci_low", lo),
        pl.Series("ci_high", hi),
        pl.Series("difference", diff),
        pl.Series("diff_low", diff - Z95 * se),
        pl.Series("diff_high", diff + Z95 * se),
        pl.Series("p_value", p),
        pl.Series("p_holm", holm(p)),
    )
