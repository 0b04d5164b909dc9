"""The search player (issue 33): determinized flat Monte Carlo over a game's decision points.

Game-agnostic: it sees a game only through the protocol's decision points (``sim.game.Replay``).
At each decision of its seat with two or more options it values every option by rollouts, each a
*fork* of the game at that choice played to its end by a scripted strategy (the rollout policy,
which also decides for the seat in the rollouts): a fork re-draws everything the seat cannot know
(future dice and draws, unrevealed cards), so a rollout is one determinization of the hidden
future and the search never peeks at the true one. A bandit spends the budget (rollouts per
decision): successive halving (Karnin et al. 2013) - equal rollouts for every option still in,
then the better half goes on - with common random numbers: rollout j of every option uses fork
key j, so the options are compared on the same futures. The option the rollout policy itself
would take (``DecisionPoint.default``, where the game says) is never halved away, and the search
departs from it only for an option whose paired gain over it, less one standard error, is
positive (the largest such; four rollouts at least); where the game names no default the best
mean reward wins, ties to the lower index. A decision with one option is free (the engine takes
it without asking). Deterministic: the fork keys come from (seed, game, decision
index).

Objective ``win``: a rollout's reward is 1 / (number of winners) if the seat wins, else 0, plus
a tie-breaker too small to outweigh one win in 100 rollouts: 1e-4 x the seat's final margin over
the best other score. Without it a seat sure to win (or to lose) whatever it does sees every
option tie and takes the first, which threw won games away against random players (measured:
0 of 4 won, against 4 of 4 for its rollout policy alone). ``score``: the seat's final score.
"""

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

OBJECTIVES = ("win", "score")
DEFAULT_BUDGET = 64
DEFAULT_ROLLOUT = "breeder"
DEPARTURE_Z = 1.0  # standard errors of paired gain an option needs over the policy's (_departure)
MIN_PAIRED = 4  # rollouts of an option before the search may prefer it to its policy's (_departure)
MARGIN_WEIGHT = 1e-4  # the win objective's tie-breaker per point of margin (see the module docs)
ROUNDS = 11  # bench: rounds of the rollout against the plain game, in turns
_PRESET = re.compile(r"search(?:-(\d+))?")


@dataclass(frozen=True)
class SearchSpec:
    """A search seat: its name in results, rollouts per decision, rollout policy and objective."""

    name: str = "search"
    budget: int = DEFAULT_BUDGET
    rollout: str = DEFAULT_ROLLOUT
    objective: str = "win"


@dataclass(frozen=True)
class RestrictedSpec(SearchSpec):
    """A search seat denied some options (restricted play, Jaffe et al.; issue 34): ``deny(point,
    i)`` is true for option ``i`` of ``point`` that the seat may not take. The search never sees
    those options; keeping the seat's rollout policy from them is the game's part (Ursuppe: the
    seat's parameter row values a denied gene at 0, G1). A subclass, so that a run's spec (the
    fields of a plain SearchSpec) reads as before."""

    deny: Callable[[Any, int], bool] | None = field(default=None, compare=False, repr=False)


def is_search(spec: str | Path) -> bool:
    """Whether a strategy name or file is a search player (``search``, ``search-64``, a .toml file
    with ``kind = "search"``)."""
    text = str(spec)
    if _PRESET.fullmatch(text):
        return True
    path = Path(text)
    if path.suffix == ".toml" and path.is_file():
        import tomllib

        try:
            return tomllib.loads(path.read_text(encoding="utf-8")).get("kind") == "search"
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return False  # not a search file: the game's own loader says what is wrong with it
    return False


def load_search(spec: str | Path, default_rollout: str = DEFAULT_ROLLOUT) -> SearchSpec:
    """A search seat from ``search``, ``search-<budget>`` or a strategy file (``kind = "search"``,
    ``budget``, ``rollout``, ``objective``); a UserError names a bad key or value."""
    from sim.errors import UserError

    text = str(spec)
    match = _PRESET.fullmatch(text)
    if match:
        budget = int(match.group(1)) if match.group(1) else DEFAULT_BUDGET
        if budget < 1:
            raise UserError(f"{text}: expected a budget of at least 1 rollout per decision")
        return SearchSpec(text, budget, default_rollout)
    import tomllib

    path = Path(text)
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise UserError(f"{path}: cannot read the search strategy file ({e})") from None
    unknown = set(data) - {"kind", "name", "budget", "rollout", "objective"}
    if unknown:
        expected = "kind, name, budget, rollout, objective"
        raise UserError(f"{path}: unknown key {sorted(unknown)[0]!r} (expected {expected})")
    budget = data.get("budget", DEFAULT_BUDGET)
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1:
        raise UserError(f"{path}: budget: expected an integer >= 1 (rollouts per decision), got {budget!r}")
    rollout = data.get("rollout", default_rollout)
    if not isinstance(rollout, str) or not rollout or is_search(rollout):
        raise UserError(f"{path}: rollout: expected a scripted strategy's name, got {rollout!r}")
    objective = data.get("objective", "win")
    if objective not in OBJECTIVES:
        raise UserError(f"{path}: objective: expected one of {', '.join(OBJECTIVES)}, got {objective!r}")
    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name:
        raise UserError(f"{path}: name: expected a non-empty string, got {name!r}")
    return SearchSpec(name, budget, rollout, objective)


def fork_keys(seed: int, game: int, index: int, count: int) -> np.ndarray:
    """``count`` fork keys for the decision at tape index ``index`` of game ``game``: the same
    for every option (common random numbers), different between decisions, games and seeds."""
    return np.random.SeedSequence([seed, game, index, 0x5EA6C4]).generate_state(count, np.uint64)


def reward(
    scores: np.ndarray, won: np.ndarray, player: int, objective: str, teams: Sequence[int] | None = None
) -> np.ndarray:
    """Each rollout's reward for ``player`` (rows of ``scores`` / ``won``: one per rollout; a
    column per player, or per colour where ``teams`` names the player each column belongs to,
    -1 for a column nobody plays: Ursuppe's 2-player variants, Replay.teams). Then a column holds
    its player's result, a win is counted once per player, and the margin is over the best
    rival player's score (not the seat's other colour, nor the dummy)."""
    own = scores[:, player].astype(np.float64)
    if objective == "score":
        return own
    team = np.arange(scores.shape[1]) if teams is None else np.asarray(teams)
    first = np.array([t >= 0 and t not in team[:c] for c, t in enumerate(team)], bool)
    winners = np.maximum(won[:, first].sum(axis=1), 1)
    rivals = (team != team[player]) & (team >= 0)
    others = scores[:, rivals].max(axis=1) if rivals.any() else 0.0
    return won[:, player] / winners + MARGIN_WEIGHT * (own - others)


def halving_plan(n: int, budget: int) -> list[int]:
    """Rollouts per option still in, round by round, for ``n`` options and ``budget`` rollouts:
    ceil(log2 n) rounds of an equal share each, halving the options after every round; at least
    one rollout per option in the first round (a budget below ``n`` still tries every option)."""
    rounds = max(1, math.ceil(math.log2(n)))
    plan, alive = [], n
    for _ in range(rounds):
        plan.append(max(1, budget // (rounds * alive)))
        alive = max(1, (alive + 1) // 2)
    return plan


def choose(replay: Any, tape: Sequence[Any], point: Any, spec: SearchSpec, seed: int, game: int) -> int:
    """The search seat's option at decision ``point`` after ``tape``: successive halving over the
    options with forked rollouts (the module docstring); returns the option's index."""
    index = allowed_options(point, spec)
    if len(index) == 1:
        return index[0]
    return index[_search(replay, tape, _restricted(point, index), spec, seed, game)]


def allowed_options(point: Any, spec: SearchSpec) -> list[int]:
    """The indices of ``point``'s options the seat may take (``spec.deny``; every one without it).
    A deny that would leave none is a bug of its caller: the game must always have a legal move."""
    n = len(point.options)
    deny = getattr(spec, "deny", None)
    if deny is None:
        return list(range(n))
    index = [i for i in range(n) if not deny(point, i)]
    if not index:
        raise ValueError(f"deny leaves no option at decision {point.index} ({point.kind_name})")
    return index


def _restricted(point: Any, index: list[int]) -> Any:
    """``point`` with only the options ``index`` (its default mapped, or -1 when denied)."""
    if len(index) == len(point.options):
        return point
    default = index.index(point.default) if point.default in index else -1
    return replace(point, options=point.options[index], default=default)


def _search(replay: Any, tape: Sequence[Any], point: Any, spec: SearchSpec, seed: int, game: int) -> int:
    n = len(point.options)
    plan = halving_plan(n, spec.budget)
    choices = [point.choice(i) for i in range(n)]
    keys = fork_keys(seed, game, point.index, sum(plan))
    rewards: list[list[float]] = [[] for _ in range(n)]  # option i's, on keys[0], keys[1], ...
    alive = list(range(n))
    used = 0
    default = point.default if 0 <= point.default < n else None
    for k, share in enumerate(plan):
        # one batch for the round: every option still in, on the same ``share`` futures
        options = [choices[i] for i in alive for _ in range(share)]
        scores, won = replay.forked(tape, options, np.tile(keys[used : used + share], len(alive)))
        gained = reward(scores, won, point.player, spec.objective, getattr(replay, "teams", None))
        gained = gained.reshape(len(alive), share)
        for row, i in enumerate(alive):
            rewards[i].extend(gained[row].tolist())
        used += share
        if k < len(plan) - 1:
            ranked = _ranked(alive, rewards, default)
            kept = ranked[: max(1, (len(alive) + 1) // 2)]
            if default is not None and default not in kept:
                kept[-1] = default
            alive = sorted(kept)
    if default is None:
        return _ranked(alive, rewards, None)[0]
    return _departure(alive, rewards, default)


def _ranked(alive: list[int], rewards: list[list[float]], default: int | None) -> list[int]:
    """The options still in, best mean reward first; a tie: the default first, then by index."""
    return sorted(alive, key=lambda i: (-float(np.mean(rewards[i])), i != default, i))


def _departure(alive: list[int], rewards: list[list[float]], default: int) -> int:
    """The option to take instead of the rollout policy's ``default``: the one whose paired gain
    over it (the same fork keys, common random numbers) less one standard error is largest and
    positive, from MIN_PAIRED rollouts up; else the default. A noisy game at a small budget then
    plays its policy instead of chasing the luckiest option (Pig, 40 paired games: search-4 won
    0.175 against steady's 0.575 when it took the best mean)."""
    best, best_bound = default, 0.0
    base = np.asarray(rewards[default])
    for i in alive:
        m = len(rewards[i])
        if i == default or m < MIN_PAIRED:
            continue
        gain = np.asarray(rewards[i]) - base[:m]
        bound = gain.mean() - DEPARTURE_Z * gain.std(ddof=1) / math.sqrt(m)
        if bound > best_bound:
            best, best_bound = i, bound
    return best


def play_game(
    replay: Any, seats: dict[int, SearchSpec], seed: int, game: int
) -> tuple[list[Any], tuple[np.ndarray, np.ndarray]]:
    """Play one game with search at ``seats`` (player -> spec; the replay tapes exactly those):
    the tape of their choices, and the outcome (scores, won: [1, P])."""
    tape: list[Any] = []
    while (point := replay.point(tape)) is not None:
        tape.append(point.choice(choose(replay, tape, point, seats[point.player], seed, game)))
    return tape, replay.outcomes(tape)


def split_search(names: Sequence[str], default_rollout: str) -> tuple[list[str], dict[int, SearchSpec]]:
    """A run's distinct strategy names as the engine plays them: a search player's is its rollout
    policy (it decides for the seat wherever the search does not); and the search players by
    index into ``names``."""
    scripted, search = [], {}
    for i, name in enumerate(names):
        if is_search(name):
            search[i] = load_search(name, default_rollout)
            scripted.append(search[i].rollout)
        else:
            scripted.append(name)
    return scripted, search


def search_tapes(
    replay_of: Any,
    rows: np.ndarray,
    games: np.ndarray,
    search: dict[int, SearchSpec],
    seed: int,
    threads: int = 1,
    on_game: Callable[[], None] | None = None,
) -> tuple[list[list[Any]], np.ndarray]:
    """The search seats' choices in each of ``games`` (``rows[k, p]``: player p's strategy index
    in game k; ``replay_of(game, seats)``: the game's Replay of those seats): a tape per game and
    the bit mask of its search seats (0 and an empty tape for a game without one). A run then
    plays its chunk as one batch with these tapes: the same games as the search played.

    The games are searched on ``threads`` threads, one game a thread at a time: a game's tape
    depends only on its index, and its replays release the GIL in the kernels, so the tapes are
    the same on any number of threads. ``on_game()`` is called in the calling thread once for
    every game searched (a progress bar that counts games within a chunk)."""
    seats_of = [
        {p: search[int(r)] for p, r in enumerate(rows[k]) if int(r) in search} for k in range(len(games))
    ]

    def one(k: int) -> list[Any]:
        if not seats_of[k]:
            return []
        seats = seats_of[k]
        return play_game(replay_of(int(games[k]), list(seats)), seats, seed, int(games[k]))[0]

    todo = [k for k in range(len(games)) if seats_of[k]]
    tapes: list[list[Any]] = [[] for _ in games]
    for k, tape in zip(todo, on_threads(one, todo, threads, on_game), strict=True):
        tapes[k] = tape
    masks = np.array([sum(1 << p for p in seats) for seats in seats_of], np.int64)
    return tapes, masks


def on_threads(
    one: Callable[[int], Any], items: Sequence[int], threads: int, on_game: Callable[[], None] | None = None
) -> list[Any]:
    """``[one(i) for i in items]`` on ``threads`` threads, one item a thread at a time: a search
    game's replays release the GIL in the kernels, so two threads play two games at once (1.35x
    one thread for a verdict's search games, docs/verdicts.md; the Python between the kernels
    holds it). ``on_game()`` is called in the calling thread once for every item done. Ctrl-C or
    an item's error: the items not started are not played, and it is raised."""
    if threads <= 1 or len(items) <= 1:
        done = []
        for i in items:
            done.append(one(i))
            if on_game is not None:
                on_game()
        return done
    from concurrent.futures import ThreadPoolExecutor, as_completed

    results: list[Any] = [None] * len(items)
    with ThreadPoolExecutor(max_workers=min(threads, len(items)), thread_name_prefix="soup-search") as pool:
        futures = {pool.submit(one, i): k for k, i in enumerate(items)}
        try:
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                if on_game is not None:
                    on_game()
        except BaseException:  # Ctrl-C or a game's error: the games not started are not played
            for future in futures:
                future.cancel()
            raise
    return results


def bench(game: Any, players: int, budgets: Sequence[int] = (16, 64), games: int = 8, seed: int = 1) -> dict:
    """``soup bench --search``: what search costs in ``game`` at ``players`` players, one search
    seat (player i % P in game i) against the game's default strategy (Ursuppe: breeder), per
    budget: seconds a game, search decisions a game, milliseconds a decision; and a rollout's
    cost against a plain game (64 forks from a decision against 64 replays from the start, both
    one batch, CPU time of this process, in turns, best of ROUNDS)."""
    import time

    rollout = "breeder" if "breeder" in game.strategy_names() else game.info.default_strategy
    run = game.new_run(game.load_rules(), players, seed, strategies=",".join([rollout] * players))
    replay = game.replay(run, 0, seats=[0])
    tape: list[Any] = []
    for _ in range(20):
        point = replay.point(tape)
        if point is None:
            break
        tape.append(point.choice(max(point.default, 0)))
    forked = plain = math.inf
    for _ in range(ROUNDS):  # in turns, best of each: a busy machine slows both alike
        start = time.process_time()
        replay.forked(tape[:-1], [tape[-1]] * 64, list(range(1, 65)))  # as a search round plays them
        forked = min(forked, time.process_time() - start)
        start = time.process_time()
        replay.rollouts([[]] * 64)
        plain = min(plain, time.process_time() - start)
    rows = []
    for budget in budgets:
        decisions = 0
        start = time.perf_counter()
        for i in range(games):
            seat = i % players
            spec = SearchSpec(f"search-{budget}", budget, rollout)
            taken, _ = play_game(game.replay(run, i, seats=[seat]), {seat: spec}, seed, i)
            decisions += len(taken)
        spent = time.perf_counter() - start
        rows.append(
            {
                "budget": budget,
                "games": games,
                "seconds_per_game": spent / games,
                "decisions_per_game": decisions / games,
                "ms_per_decision": 1e3 * spent / max(decisions, 1),
            }
        )
    return {
        "game": game.info.name,
        "players": players,
        "rollout": rollout,
        "rollout_ms": 1e3 * forked / 64,
        "plain_game_ms": 1e3 * plain / 64,
        "rollout_over_plain": forked / plain,
        "budgets": rows,
    }


def bench_text(doc: dict) -> str:
    """:func:`bench`'s figures as lines."""
    lines = [
        f"search in {doc['game']}, {doc['players']} players, one search seat, rollouts by {doc['rollout']}:",
        f"  a rollout (a fork played to the end) {doc['rollout_ms']:.3f} ms, a plain game"
        f" {doc['plain_game_ms']:.3f} ms: {doc['rollout_over_plain']:.2f}x (64 in one batch, CPU time,"
        f" best of {ROUNDS})",
    ]
    for row in doc["budgets"]:
        lines.append(
            f"  search-{row['budget']}: {row['seconds_per_game']:.2f} s a game,"
            f" {row['decisions_per_game']:.0f} search decisions a game,"
            f" {row['ms_per_decision']:.1f} ms a decision ({row['games']} games)"
        )
    return "\n".join(lines)
