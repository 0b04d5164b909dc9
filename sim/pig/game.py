"""Pig on the game protocol (sim.game): its registration ``GAME`` and its runner adapter.

Result rows: the core columns (sim.game.CORE_COLUMNS) and ``final_score``, ``turns``.
Scenario files (``tests/scenarios/pig/``): a position (``scores``, ``current``), forced
``dice``, the ``strategies``, how far to ``run`` (``turn`` or ``game``) and what to expect.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pyarrow as pa

from sim import columns
from sim.errors import GameError, UserError
from sim.game import GameBase, GameInfo, ListedRun, Told
from sim.pig.rules import PigRules, load_rules
from sim.scenario_files import check_game, check_keys, read_scenario_file
from strategies.pig import DEFAULT_POOL, PRESETS, hold_value
from strategies.search import is_search, load_search, split_search

SCENARIO_DIR = Path(__file__).resolve().parents[2] / "tests" / "scenarios" / "pig"
RUNS = ("turn", "game")
# The keys a Pig scenario may hold (docs/scenario-format.md): a misspelt one is an error, never
# ignored (issue 31.4).
SCENARIO_KEYS = ("game", "players", "rules", "scores", "current", "dice", "strategies", "run", "test")
TEST_KEYS = ("rules", "description", "expect")
DEFAULT_ROLLOUT = "steady"  # a search player's rollout policy unless its file names one


def _check_strategy(name: str) -> int:
    """A UserError unless ``name`` is a preset or a search player (strategies/search.py)."""
    return hold_value(load_search(name, DEFAULT_ROLLOUT).rollout if is_search(name) else name)


def holds(names: Sequence[str]) -> np.ndarray:
    """The engine's row of strategies: each one's hold threshold (int32)."""
    return np.array([hold_value(n) for n in names], dtype=np.int32)


class ScenarioError(UserError):
    """A scenario file that cannot be used (one line naming the file and key)."""


@dataclass
class PigRun(ListedRun):
    """Everything that determines a run's games (sim.runner's GameAdapter)."""

    game: ClassVar[str] = "pig"

    def play_chunk(
        self, first: int, count: int, threads: int, on_game: Callable[[], None] | None = None
    ) -> pa.Table:
        from sim.pig import batch, engine

        games = np.arange(first, first + count, dtype=np.int64)
        rows = self.strategy_rows(games)
        hold = holds(self.scripted())[rows]
        tapes, masks = [], np.zeros(0)
        if self.search:
            from sim.pig.decision_points import PigReplay, put_tapes
            from strategies.search import search_tapes

            def replay_of(game: int, seats: list[int]) -> PigReplay:
                return PigReplay(self, holds(self.scripted()), game, seats)

            tapes, masks = search_tapes(replay_of, rows, games, self.search, self.seed, threads, on_game)
        b = batch.new_batch(
            self.rules, hold, self.seed, games, tape_capacity=max((len(t) for t in tapes), default=0)
        )
        if tapes:
            put_tapes(b, tapes, False, masks)
        b = batch.play(b, threads)
        bad = np.flatnonzero(b.games[:, engine.ERROR])
        if len(bad):
            raise GameError(f"game {first + bad[0]}: invariant {b.games[bad[0], engine.ERROR]} broken")
        P = self.players
        rank = batch.ranks(b.scores)
        return columns.table(
            {
                **self.core_columns(games, rows, b.seat.ravel(), rank.ravel(), rank.ravel() == 1),
                "final_score": columns.array(b.scores.ravel()),
                "turns": columns.array(np.repeat(b.games[:, engine.TURNS].astype(np.int16), P)),
            }
        )


@dataclass
class PigScenario:
    label: str
    rules: PigRules
    players: int
    scores: list[int]
    current: int
    dice: list[int]
    strategies: list[str]
    run: str
    check_invariants: bool = True


class Pig(GameBase):
    """Pig (PG1-PG6, sim/pig/__init__.py): 2-4 players race to a target score."""

    info = GameInfo(
        name="pig",
        title="Pig (the protocol's example game)",
        player_counts=(2, 3, 4),
        kernel_packages=("sim.pig", "strategies.pig"),
        default_pool=DEFAULT_POOL,
        default_strategy="steady",
        capabilities=("rules", "runs", "play", "scenarios", "tuning", "report", "decision_points"),
    )

    presets = tuple(PRESETS)
    scenario_dir = SCENARIO_DIR
    read_rules = staticmethod(load_rules)
    engine_module = "sim.pig.engine"
    run_type = PigRun
    default_rollout = DEFAULT_ROLLOUT
    split_search = staticmethod(split_search)
    check_strategy = staticmethod(_check_strategy)
    check_play_strategy = staticmethod(hold_value)

    def rules_line(self, rules: PigRules) -> str:
        return f"rules {rules.rules_id}; target {rules.data['target']}"

    def play_game(
        self, rules: PigRules, players: int, strategies: list[str], seed: int, variant: str | None
    ) -> Told:
        from sim.pig import batch, engine

        hold = holds(strategies)[None, :]
        b = batch.new_batch(rules, hold, seed, np.array([0]))
        turns = []
        while not b.games[0, engine.FINISHED]:
            p = int(b.games[0, engine.CURRENT])
            before = int(b.scores[0, p])
            batch.play(b, check=True, turns=1)
            turns.append({"player": p, "banked": int(b.scores[0, p]) - before, "score": int(b.scores[0, p])})
        doc = {
            "seed": seed,
            "players": players,
            "strategies": strategies,
            "start_spaces": [int(x) for x in b.seat[0]],
            "turns": turns,
            "final_scores": [int(x) for x in b.scores[0]],
            "rules_id": rules.rules_id,
        }
        lines = [f"soup play --game pig: seed {seed}, {players} players, rules {rules.rules_id}"]
        lines += [
            f"turn {i + 1}: P{t['player']} banks {t['banked']} -> {t['score']}" for i, t in enumerate(turns)
        ]
        lines.append("final scores: " + ", ".join(f"P{p} {s}" for p, s in enumerate(doc["final_scores"])))
        return Told(doc, "\n".join(lines))

    def load_scenario(self, source: Path | dict[str, Any], check_invariants: bool = True) -> PigScenario:
        if isinstance(source, dict):
            label, data = "<scenario>", source
        else:
            label, data = str(source), read_scenario_file(source, ScenarioError)
        check_game(label, data, self.info.name, ScenarioError)
        check_keys(label, "", data, SCENARIO_KEYS, ScenarioError)
        if isinstance(data.get("test"), dict):
            check_keys(label, "test", data["test"], TEST_KEYS, ScenarioError)
        try:
            rules = load_rules(overrides=data.get("rules") or None)
        except UserError as e:
            raise ScenarioError(f"{label}: rules: {e}") from None
        players = data.get("players")
        if players not in rules.player_counts:
            raise ScenarioError(f"{label}: players: expected one of {rules.player_counts}, got {players!r}")
        scores = data.get("scores", [0] * players)
        if (
            not isinstance(scores, list)
            or len(scores) != players
            or any(not isinstance(x, int) or x < 0 for x in scores)
        ):
            raise ScenarioError(f"{label}: scores: expected {players} non-negative integers, got {scores!r}")
        current = data.get("current", 0)
        if current not in range(players):
            raise ScenarioError(f"{label}: current: expected a player 0 to {players - 1}, got {current!r}")
        dice = data.get("dice", [])
        faces = rules.data["faces"]
        if not isinstance(dice, list) or any(not isinstance(d, int) or not 1 <= d <= faces for d in dice):
            raise ScenarioError(f"{label}: dice: expected faces 1 to {faces}, got {dice!r}")
        strategies = data.get("strategies", ["steady"] * players)
        if not isinstance(strategies, list) or len(strategies) != players:
            raise ScenarioError(f"{label}: strategies: expected {players} names, got {strategies!r}")
        for name in strategies:
            try:
                hold_value(str(name))
            except UserError as e:
                raise ScenarioError(f"{label}: strategies: {e}") from None
        run = data.get("run")
        if run not in RUNS:
            raise ScenarioError(f"{label}: run: expected one of {', '.join(RUNS)}, got {run!r}")
        names = [str(n) for n in strategies]
        return PigScenario(label, rules, players, scores, current, dice, names, run, check_invariants)

    def scenario_document(self, scenario: PigScenario) -> dict[str, Any]:
        return {
            "players": scenario.players,
            "rules": {k: v for k, v in scenario.rules.data.items() if k != "player_counts"},
            "scores": scenario.scores,
            "current": scenario.current,
            "dice": scenario.dice,
            "strategies": scenario.strategies,
            "run": scenario.run,
        }

    def run_scenario(self, scenario: PigScenario) -> dict[str, Any]:
        from sim.pig import batch, engine

        hold = holds(scenario.strategies)[None, :]
        dice = np.array([scenario.dice + [engine.NO_DIE]], dtype=np.int64)
        b = batch.new_batch(scenario.rules, hold, 0, np.array([0]), dice)
        b.scores[0] = scenario.scores
        b.games[0, engine.CURRENT] = scenario.current
        batch.play(b, check=scenario.check_invariants, turns=1 if scenario.run == "turn" else 0)
        if b.games[0, engine.ERROR]:
            raise GameError(f"{scenario.label}: invariant {b.games[0, engine.ERROR]} broken")
        return {
            "scores": [int(x) for x in b.scores[0]],
            "current": int(b.games[0, engine.CURRENT]),
            "turns": int(b.games[0, engine.TURNS]),
            "finished": bool(b.games[0, engine.FINISHED]),
            "dice_used": int(b.games[0, engine.DICE_USED]),
            "ranks": [int(x) for x in batch.ranks(b.scores)[0]],
        }

    def strategy_space(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        start = hold_value(name) or PRESETS["steady"]  # the random strategy starts as steady
        return np.array([float(start)]), np.array([1.0]), np.array([100.0])

    def strategy_spec(self, name: str, vector: np.ndarray, path: Path) -> str:
        return str(int(round(float(vector[0]))))  # a threshold is a strategy's whole text

    def build_report(self, run_dirs: Sequence[Path], out: Path, **options: Any) -> Path:
        from analysis.run_report import build_report

        for option in ("equilibrium", "strong", "skill"):
            if options.get(option):
                raise UserError(f"--{option}: Pig's report has no such section")
        return build_report(run_dirs, out, "Pig report")

    def replay(self, run: PigRun, game: int, seats: Sequence[int] | None = None) -> Any:
        from sim.pig.decision_points import PigReplay

        return PigReplay(run, holds(run.scripted()), game, seats)

    def play_checked(
        self, rules: PigRules, players: int, strategies: Sequence[str], seed: int, games: int
    ) -> int:
        from sim.pig import batch, engine

        hold = np.tile(holds(strategies), (games, 1))
        b = batch.play(batch.new_batch(rules, hold[:, :players], seed, np.arange(games)), check=True)
        bad = np.flatnonzero(b.games[:, engine.ERROR])
        if len(bad):
            raise GameError(f"game {bad[0]}: invariant {b.games[bad[0], engine.ERROR]} broken")
        return int(b.games[:, engine.FINISHED].sum())


GAME = Pig()
