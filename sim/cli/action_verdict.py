"""``soup verdict --game GAME --action NAME`` (issue 34.7): restricted play of an action, for a
game with the "restrictions" capability (sim.game.CAPABILITIES: Chromosome's). The experiment is
the kit's (sim/experiments/restricted.py): the same search player at player 0 allowed vs denied
the action, every other seat the game's default strategy; this module checks the options, shows
a progress bar and writes verdict.md and verdict.json. No engine import at module level.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from sim.cli.support import USER_ERRORS, declaring, fail, game_named, load_engine, long_job, progress_bar


@dataclass(frozen=True)
class Plan:
    """An action verdict, checked: the game, its rules, the denied action and the search player."""

    game: Any
    rules: Any
    action: str
    limit: Any  # a sim.experiments.restricted.Restriction
    spec: Any  # the search player (strategies.search)
    players: int
    games: int
    seed: int
    out: Path


def plan(
    game: str,
    action: str | None,
    players: int,
    rules: Path | None,
    search: str,
    search_games: int,
    seed: int,
    out: Path | None,
) -> Plan:
    """The options checked (one line each) into a plan, before any engine code loads: a game
    without the "restrictions" capability, a missing or unknown action, a player that is not a
    search player, --search-games not a multiple of the players, an --out not the verdict's."""
    from sim import game as games

    g = game_named(game)
    if not games.supports(g, "restrictions"):
        names, titles = declaring("restrictions")
        fail(f"--action: restricted play of an action is {titles}'s (--game {names}), not {game}'s")
    if action is None:
        fail(f"--game {game}: give --action NAME ({g.restriction_help()})")
    try:
        from sim import out_dirs
        from strategies.search import is_search, load_search

        book = g.load_rules([rules] if rules else [])
        g.check_players(book, players)
        limit = g.restriction(book, action)
        if not is_search(search):
            fail(f"--search: expected a search player (search, search-N or a search file), got {search!r}")
        spec = load_search(search, g.info.default_strategy)
        if search_games < players or search_games % players:
            fail(
                f"--search-games: expected a positive multiple of {players} (every seat as often), "
                f"got {search_games}"
            )
        default = Path("results") / f"verdict-{game}-{action.lower()}-{players}p-s{seed}"
        out = out if out is not None else default
        out_dirs.check(out, "verdict")  # new, empty or a verdict's own (issue 21.7)
    except USER_ERRORS as e:
        fail(str(e))
    return Plan(g, book, action, limit, spec, players, search_games, seed, out)


def run(plan: Plan, quiet: bool) -> None:
    """Play and write the verdict of ``plan`` (its budget line first, then the engine loads)."""
    from sim import out_dirs
    from sim.experiments import restricted as X

    total = 3 * plan.games
    typer.echo(
        f"verdict on {plan.action} ({plan.game.info.name}, {plan.players} players): restricted search,"
        f" {plan.spec.name} allowed vs denied and its null reference, 3 arms x {plan.games:,} games ="
        f" {total:,} search games (about {total * X.SEARCH_GAME_S / 60:.0f} min); detectable effect about"
        f" {100 * 2.8 * (0.5 / plan.games) ** 0.5:.1f} points (80% power, --search-games)",
        err=True,
    )
    load_engine(plan.game)
    out_dirs.claim(plan.out, "verdict")
    _write(plan, _play(plan, total, quiet))


def _play(plan: Plan, total: int, quiet: bool) -> dict[str, Any]:
    """The three arms on the game's default strategy in every other seat, with a progress bar."""
    from sim.experiments import restricted as X

    rollout = plan.game.info.default_strategy
    field = ",".join([rollout] * plan.players)
    run = plan.game.new_run(plan.rules, plan.players, plan.seed, strategies=field)
    with long_job(plan.out, lambda: "nothing is kept: the same command plays it again"):
        with progress_bar(total, "verdict", quiet) as update:
            done = 0

            def step(n: int) -> None:
                nonlocal done
                done += n
                update(done, total)

            return X.restricted_play(plan.game, run, plan.spec, plan.games, plan.limit, step)


def _write(plan: Plan, result: dict[str, Any]) -> None:
    """verdict.md and verdict.json, each written whole (sim.runner.write_atomic), and the words."""
    import json

    from sim.experiments import restricted as X
    from sim.runner import write_atomic

    doc = {
        "game": plan.game.info.name,
        "action": plan.action,
        "players": plan.players,
        "seed": plan.seed,
        "search": plan.spec.name,
        "rollout": plan.spec.rollout,
        "field": f"every other seat {plan.game.info.default_strategy}",
        "rules": plan.game.rules_line(plan.rules),
        **result,
    }
    out = plan.out
    out.mkdir(parents=True, exist_ok=True)
    text = X.markdown(doc)
    write_atomic(out / "verdict.md", lambda p: p.write_text(text, encoding="utf-8"))
    js = json.dumps(doc, indent=1)
    write_atomic(out / "verdict.json", lambda p: p.write_text(js, encoding="utf-8"))
    for line in X.words(doc):
        typer.echo(line)
    typer.echo(f"Wrote {out / 'verdict.md'}, {out / 'verdict.json'}")
