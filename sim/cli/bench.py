"""``soup bench``: how fast the engine plays, the command-line layer.

Every game gets games/s at its player counts and the speed-up over its plain-Python path
(sim.bench_games), the search player's cost (--search) and its hot kernels (--profile); a game
with the "bench" capability (sim.game.CAPABILITIES) gives figures of its own instead (Ursuppe:
the peak memory of soup simulate, cold and warm starts, --compare REV), the scaling table
(--threads) and its phases in the profile (--extra-genes). No engine import at module level.
"""

import json
from typing import Annotated, Any

import typer

from sim.cli.support import DEFAULT_GAME, GameName, declaring, fail, game_for, load_engine

PLAIN_GAMES, REPEATS, RSS_GAMES = 100, 3, 20_000  # the defaults: an option left at it was not given

Json = Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")]
Games = Annotated[int, typer.Option(min=100, help="Games per speed measurement.")]
PlainGames = Annotated[int, typer.Option(min=1, help="Games on the plain-Python path.")]
RssGames = Annotated[
    int,
    typer.Option(
        min=100,
        help="Games of the smaller `soup simulate` whose peak memory is measured (the larger is 10x).",
    ),
]
Cold = Annotated[
    bool, typer.Option(help="Measure the cold start (compiles into an empty cache: about 15 s).")
]
Mix = Annotated[
    str, typer.Option(help="Strategies to draw every player from, comma-separated (default: simulate's mix).")
]
Repeats = Annotated[
    int,
    typer.Option(
        min=1, help="Runs per games/s figure, taken in turns; the best is reported (all are in the JSON)."
    ),
]
CompareRev = Annotated[
    str | None,
    typer.Option(
        metavar="REV",
        help="Also measure git revision REV side by side with the working tree (in turns): every "
        "games/s figure REV can play and the peak memory of soup simulate, as ratios.",
    ),
]
Profile = Annotated[
    bool,
    typer.Option(
        "--profile",
        help="Instead of the figures, show where the time goes: by phase (Ursuppe) and by kernel "
        "(perf's self time; --games games at --players on 1 thread). See docs/profiling.md.",
    ),
]
Players = Annotated[
    int | None, typer.Option(min=2, max=6, help="Players, with --profile or --search (default 4).")
]
ExtraGenes = Annotated[
    bool, typer.Option("--extra-genes", help="With --profile: Ursuppe with the extra genes on.")
]
Search = Annotated[
    bool,
    typer.Option(
        "--search",
        help="Instead of the figures, what the search player costs (--players, --game): a rollout "
        "against a plain game, and seconds a game and milliseconds a decision at budgets 16 and 64.",
    ),
]
Threads = Annotated[
    str | None,
    typer.Option(
        "--threads",
        metavar="LIST",
        help="Instead of the figures, the scaling table: games/s at 4 and 6 players and with the "
        "extra genes at each thread count of LIST (e.g. 1,2,4,8,16; --games games a thread), and "
        "the whole soup simulate pipeline at the largest. See docs/profiling.md.",
    ),
]


def bench(
    game: GameName = DEFAULT_GAME,
    as_json: Json = False,
    games: Games = 20_000,
    plain_games: PlainGames = PLAIN_GAMES,
    rss_games: RssGames = RSS_GAMES,
    cold: Cold = True,
    mix: Mix = "",
    repeats: Repeats = REPEATS,
    compare: CompareRev = None,
    profile: Profile = False,
    players: Players = None,
    extra_genes: ExtraGenes = False,
    search: Search = False,
    threads: Threads = None,
) -> None:
    """Measure games/s (3 to 6 players, 1 and 2 threads), the speed-up over the plain-Python path
    in the same run, the peak memory of a whole `soup simulate` of N and 10N games and cold/warm
    start times, on the default strategy mix.

    Each games/s figure is the best of `--repeats` runs: another process on the machine only
    ever slows a run down. Run it on an otherwise idle machine. `--compare REV` (a commit,
    branch or tag) measures that revision's games/s too, in subprocesses taken in turns with the
    working tree's (every figure REV can play, and the peak memory of a whole `soup simulate`),
    and reports working tree / REV ratios: above 1, the working tree is faster.
    Example: soup bench --compare main --no-cold

    With --game another than ursuppe: games/s at each of its player counts on 1 and 2 threads
    and the speed-up over its plain-Python path (an option that does not apply is refused)."""
    chosen = game_for(game, "bench")
    if threads is not None:
        _scaling(chosen, threads, games, repeats, mix, as_json, profile or search)
        return
    given = {
        "--players": players is not None,
        "--extra-genes": extra_genes,
        "--plain-games": plain_games != PLAIN_GAMES,
        "--repeats": repeats != REPEATS,
        "--rss-games": rss_games != RSS_GAMES,
        "--no-cold": not cold,
        "--mix": mix != "",
        "--compare": compare is not None,
    }
    _check_options(chosen, profile, search, given)
    if search:
        _search(chosen, 4 if players is None else players, as_json)
    elif profile:
        _profile(chosen, 4 if players is None else players, games, extra_genes, as_json)
    elif _has_figures(chosen):
        # A revision git cannot resolve is a CompareError (a user error: one line, exit 2).
        doc, text = chosen.bench_figures(
            games=games, plain_games=plain_games, rss_games=rss_games, cold=cold, mix=mix, repeats=repeats,
            compare=compare,
        )  # fmt: skip
        typer.echo(json.dumps(doc, indent=1) if as_json else text)
    else:  # games/s and the speed-up over plain Python
        from sim import bench_games

        load_engine(chosen)
        doc = bench_games.bench(chosen, games, plain_games, repeats)
        typer.echo(json.dumps(doc, indent=1) if as_json else bench_games.as_text(doc))


def _has_figures(game: Any) -> bool:
    from sim import game as games

    return games.supports(game, "bench")


def _scaling(game: Any, threads: str, games: int, repeats: int, mix: str, as_json: bool, other: bool) -> None:
    """soup bench --threads LIST: the scaling table (issue 36.4)."""
    if other:
        fail("--threads: not with --profile or --search (one measurement at a time)")
    if not _has_figures(game):
        whose = declaring("bench", " or ")[1]
        fail(f"--threads: the scaling table is {whose}'s (its per-core figures), not {game.info.name}'s")
    try:
        counts = sorted({int(t) for t in threads.split(",")})
        if not counts or counts[0] < 1:
            raise ValueError
    except ValueError:
        fail(f"--threads: expected thread counts >= 1, comma-separated, got {threads!r}")
    doc, text = game.bench_scaling(counts, games, repeats, mix)
    typer.echo(json.dumps(doc, indent=1) if as_json else text)


def _check_options(game: Any, profile: bool, search: bool, given: dict[str, bool]) -> None:
    """A one-line error for an option soup bench would ignore in the mode asked for (issue 31.9:
    `soup bench --players 5` measured its usual player counts and exited 0)."""
    if profile and search:
        fail("--search: not with --profile (one measurement at a time)")
    for option in (o for o, on in given.items() if on):
        if option == "--players":
            if not (profile or search):
                fail(f"{option}: only with --profile or --search (the figures are at every player count)")
        elif option == "--extra-genes":
            if not profile:
                fail(f"{option}: only with --profile (the figures are measured with the base genes)")
        elif profile:
            fail(f"{option}: not with --profile (it takes --games, --players, --extra-genes and --json)")
        elif search:
            fail(f"{option}: not with --search (it takes --players and --json)")
        elif not _has_figures(game) and option not in ("--plain-games", "--repeats"):
            having = declaring("bench", " or ")[0]
            fail(
                f"{option}: only with --game {having} (soup bench --game {game.info.name} "
                "measures games/s and the speed-up over plain Python: --games, --plain-games, --repeats)"
            )


def _check_players(game: Any, players: int) -> None:
    if players not in game.info.player_counts:
        counts = ", ".join(map(str, game.info.player_counts))
        fail(f"--players {players}: {game.info.name} is played by {counts} players")


def _search(game: Any, players: int, as_json: bool) -> None:
    """soup bench --search: what the search player costs."""
    from strategies.search import bench as search_bench
    from strategies.search import bench_text

    _check_players(game, players)
    load_engine(game)
    doc = search_bench(game, players)
    typer.echo(json.dumps(doc, indent=1) if as_json else bench_text(doc))


def _profile(game: Any, players: int, games: int, extra_genes: bool, as_json: bool) -> None:
    """soup bench --profile: phase shares (a game with figures of its own) and hot kernels (any game)."""
    _check_players(game, players)
    if extra_genes and not _has_figures(game):
        fail(f"--extra-genes: only {declaring('bench', ' or ')[1]} has extra genes, not {game.info.name}")
    from sim import profiling  # numba: after the checks

    load_engine(game)
    what = f"{games:,} {game.info.name} games of {players} players"
    typer.echo(f"soup bench --profile: playing {what}...", err=True)
    if _has_figures(game):
        doc = game.bench_profile(players, games, extra_genes)
    else:
        doc = profiling.profile(game.info.name, players, games)
    typer.echo(json.dumps(doc, indent=1) if as_json else profiling.as_text(doc))
