"""Chromosome on the game protocol (sim.game): its registration ``GAME`` and its runner adapter.

Result rows: the core columns (sim.game.CORE_COLUMNS) and ``species``, ``score``, ``eliminated``,
``tokens``, ``trophies``, ``fate``, ``irradiation``, ``rounds``, ``end_reason`` (E4-E6), the gene
cubes held at the end ``genes_Y`` .. ``genes_B``, and with events ``event_order`` (the cards
revealed, as indices into the rules' deck). Seating:
every game seats its players in a uniform random order (seat 1 starts, S6), so a strategy list
given per player is not tied to the first seat.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pyarrow as pa

from sim import columns
from sim.chromosome.rules.book import COLOURS, SPECIES, ChromosomeRules, load_rules
from sim.errors import GameError, UserError
from sim.game import GameBase, GameInfo, ListedRun, Told
from strategies.chromosome.presets import DEFAULT_POOL, PRESETS, preset_row
from strategies.search import is_search, load_search, split_search

SCENARIO_DIR = Path(__file__).resolve().parents[2] / "tests" / "scenarios" / "chromosome"
STREAM_SEATING = 4  # each game's seating order
END_REASONS = ("none", "rounds", "elimination")


def conditions(rules: ChromosomeRules, players: int) -> dict[str, Any]:
    """What a run's figures hold under, named in its manifest (issue 23.4): the layout (its tiles;
    the rules' default or a house layout), the tile table, the species mode, the die and whether
    events are on (and which deck)."""
    from sim.chromosome.rules.book import default_data

    default = default_data()
    flags = rules.flags
    return {
        "layout": {
            "tiles": [int(t) for t in rules.board(players).tile],
            "source": "default"
            if rules.data["layouts"].get(str(players)) == default["layouts"].get(str(players))
            else "house",
        },
        "tile_table": "default" if rules.data["tiles"] == default["tiles"] else "house",
        "species_mode": flags["species_mode"],
        "die": {
            "sides": flags["die_sides"],
            "fate_values": rules.data["die"]["fate_values"][: flags["die_sides"]],
        },
        "events": [c["name"] for c in rules.data["events"]["deck"]] if flags["events"] else None,
    }


DEFAULT_ROLLOUT = "builder"  # a search player's rollout policy unless its file names one


def _check_strategy(name: str) -> None:
    """A UserError unless ``name`` is a preset or a search player (strategies/search.py)."""
    preset_row(load_search(name, DEFAULT_ROLLOUT).rollout if is_search(name) else name)


def params_table(names: Sequence[str]) -> np.ndarray:
    """The strategies' parameter rows (float64 [len(names), K])."""
    return np.array([preset_row(n) for n in names], dtype=np.float64)


@dataclass
class ChromosomeRun(ListedRun):
    """Everything that determines a run's games (sim.runner's GameAdapter)."""

    game: ClassVar[str] = "chromosome"

    def spec_extra(self) -> dict[str, Any]:
        return {**conditions(self.rules, self.players), "placeholders": self.rules.placeholders(self.players)}

    def seating(self, games: np.ndarray) -> np.ndarray:
        """The seat (0 = the starting player, S6) of every player of every game: a uniform order."""
        from sim.random_stream import uniform_draws

        keys = uniform_draws(self.seed, games, STREAM_SEATING, 1 << 30, self.players)
        return np.argsort(keys, axis=1, kind="stable").argsort(axis=1, kind="stable")

    def play_chunk(
        self, first: int, count: int, threads: int, on_game: Callable[[], None] | None = None
    ) -> pa.Table:
        from sim.chromosome.engine import batch
        from sim.chromosome.engine.state import rules_for

        games = np.arange(first, first + count, dtype=np.int64)
        rows = self.strategy_rows(games)
        seat = self.seating(games)
        by_seat = np.zeros_like(rows)
        np.put_along_axis(by_seat, seat, rows, axis=1)
        ru = rules_for(self.rules, self.players)
        params = params_table(self.scripted())
        tapes, masks = [], np.zeros(0)
        if self.search:
            from sim.chromosome.decision_points import ChromosomeReplay
            from strategies.search import search_tapes

            def replay_of(game: int, seats: list[int]) -> ChromosomeReplay:
                return ChromosomeReplay(self, params, game, seats)

            tapes, masks = search_tapes(replay_of, rows, games, self.search, self.seed, threads, on_game)
        b = batch.new_batch(
            ru,
            params,
            by_seat.astype(np.int16),
            self.seed,
            games,
            tape_capacity=max((len(t) for t in tapes), default=0),
        )
        if tapes:
            from sim.chromosome.decision_points import engine_masks, put_tapes

            # no game stops at a decision: the per-game copy of a stop's options is not needed
            b = b._replace(workspace=b.workspace._replace(stop_options=b.workspace.stop_options[:1, :1]))
            put_tapes(b.workspace, tapes, False, engine_masks(masks, seat))
        b = batch.play(b, threads)
        bad = np.flatnonzero(b.workspace.error[:, 0])
        if len(bad):
            raise GameError(f"game {first + bad[0]}: engine error {b.workspace.error[bad[0]].tolist()}")
        out = batch.outcomes(b)

        def per_player(a: np.ndarray) -> np.ndarray:
            return np.take_along_axis(np.asarray(a), seat, axis=1).ravel()

        won = per_player(out["won"])
        standing = np.where(out["eliminated"], -1000, out["score"]).astype(np.int64)
        better = (standing[:, None, :] > standing[:, :, None]).sum(axis=2)
        rank = np.where(out["won"], 1, np.maximum(2, 1 + better))  # rank 1: the winners only (E5)
        start_space = (seat + 1).astype(np.int8).ravel()
        return columns.table(
            {
                **self.core_columns(games, rows, start_space, per_player(rank).astype(np.int8), won),
                "species": columns.strings(per_player(b.state.species), list(SPECIES)),
                "score": columns.array(per_player(out["score"]).astype(np.int16)),
                "eliminated": columns.array(per_player(out["eliminated"])),
                "tokens": columns.array(per_player(out["tokens"]).astype(np.int8)),
                "trophies": columns.array(per_player(out["trophies"]).astype(np.int8)),
                "fate": columns.array(per_player(out["fate"]).astype(np.int8)),
                "irradiation": columns.array(per_player(out["irradiation"]).astype(np.int8)),
                "rounds": columns.array(per_player(out["rounds"]).astype(np.int8)),
                "end_reason": columns.strings(per_player(out["end_reason"]), list(END_REASONS)),
                **{
                    f"genes_{c}": columns.array(per_player(out["genes"][:, :, i]).astype(np.int8))
                    for i, c in enumerate(COLOURS)
                },
                **self._event_order(b.state, count),
            }
        )

    def _event_order(self, st: Any, count: int) -> dict[str, pa.Array]:
        """V2: the cards each game revealed, in order (indices into the rules' events.deck), on
        every player's row; no column without events."""
        if not self.rules.flags["events"]:
            return {}
        P = self.players
        order = np.repeat(st.deck[:count].astype(np.int8), P, axis=0)
        return {"event_order": columns.lists(order, np.repeat(st.deck_pos[:count], P))}


class Chromosome(GameBase):
    """Chromosome (docs/chromosome-rules.md): 2-4 players, microbes in a collapsing laboratory."""

    info = GameInfo(
        name="chromosome",
        title="Chromosome (the second seed game: 2-4 players, species, event deck)",
        player_counts=(2, 3, 4),
        kernel_packages=("sim.chromosome", "strategies.chromosome"),
        default_pool=DEFAULT_POOL,
        default_strategy="builder",
        may_end_without_winner=True,  # E5: if every player is eliminated, nobody wins
        capabilities=(
            "rules",
            "runs",
            "play",
            "scenarios",
            "tuning",
            "report",
            "decision_points",
            "ablation",
            "restrictions",
        ),
        paired_by=("strategy", "start_space", "species"),
    )
    presets = tuple(PRESETS)
    scenario_dir = SCENARIO_DIR
    read_rules = staticmethod(load_rules)
    engine_module = "sim.chromosome.engine.batch"
    scenario_module = "sim.chromosome.tools.scenario"
    run_type = ChromosomeRun
    default_rollout = DEFAULT_ROLLOUT
    split_search = staticmethod(split_search)
    check_strategy = staticmethod(_check_strategy)
    check_play_strategy = staticmethod(preset_row)

    def restriction(self, rules: ChromosomeRules, action: str) -> Any:
        """An action a seat may not take in restricted play (soup verdict --action; T3, Q6)."""
        from sim.chromosome.restrictions import restriction

        return restriction(rules, action)

    def restriction_help(self) -> str:
        return "growth, evolution, spark, impulse or a special's id"

    def ablation(self, rules: ChromosomeRules, remove: Sequence[str]) -> tuple[Any, Any, str]:
        """``soup ablate``'s two arms (issue 23.4): ``rules`` (A) and the same without each named
        thing (B): a gene colour's use (R: its combat strength, F2; B: its test bonus and its
        discard, G4; Y and P pay for actions, which removing would remove), or a species' special
        action taken off its board (both arms then in the full species mode). Returns (A, B, a
        line saying what B lacks)."""
        if not remove:
            raise UserError("--gene/--action: name a gene colour (R, B) or a special action (e.g. FE3)")
        files = rules.files[1:]
        full = {"species_mode": "full"}
        boards = {s: list(rules.data["species"][s]["actions"]) for s in rules.data["species"]}
        numbers: dict[str, dict[str, int]] = {}
        actions = False
        said = []
        for name in remove:
            if name in ("Y", "P"):
                raise UserError(f"--gene {name}: {name} genes pay for actions; ablate R or B (their own use)")
            if name == "R":
                numbers.setdefault("genes", {})["red_strength"] = 0
                said.append("R genes add no combat strength")
            elif name == "B":
                numbers.setdefault("genes", {})["black_test"] = 0
                numbers.setdefault("costs", {})["black_discard_irradiation"] = 0
                said.append("B genes add nothing to tests and their discard lowers nothing")
            else:
                held = [s for s, acts in boards.items() if any(a["id"] == name for a in acts)]
                if not held:
                    ids = ", ".join(a["id"] for acts in boards.values() for a in acts)
                    raise UserError(f"--action {name}: no species has it; expected one of {ids}")
                boards[held[0]] = [a for a in boards[held[0]] if a["id"] != name]
                actions = True
                said.append(f"{held[0]} without {name}")
        a = load_rules(*files, overrides={"flags": full}) if actions else rules
        species = {s: {"actions": acts} for s, acts in boards.items()}
        b = load_rules(*files, overrides={"flags": full if actions else {}, **numbers, "species": species})
        mode = (
            "; both arms in the full species mode"
            if actions and rules.flags["species_mode"] != "full"
            else ""
        )
        return a, b, f"A: {self.rules_line(a)}; B: the same, but {', '.join(said)}{mode}"

    def check_players(self, rules: ChromosomeRules, players: int, variant: str | None = None) -> None:
        super().check_players(rules, players, variant)  # before the engine loads
        from sim.chromosome.engine.state import rules_for

        rules_for(rules, players)  # a reading the engine does not play yet: one line

    def rules_line(self, rules: ChromosomeRules) -> str:
        events = "on" if rules.flags["events"] else "off"
        return f"rules {rules.rules_id}; species mode {rules.flags['species_mode']}; events {events}"

    def play_game(
        self, rules: ChromosomeRules, players: int, strategies: list[str], seed: int, variant: str | None
    ) -> Told:
        from sim.chromosome.engine import batch
        from sim.chromosome.engine.state import rules_for
        from sim.chromosome.tools import trace

        names = list(dict.fromkeys(strategies))
        rows = np.array([[names.index(s) for s in strategies]], dtype=np.int16)
        ru = rules_for(rules, players)
        b = batch.play(
            batch.new_batch(
                ru, params_table(names), rows, seed, np.array([0]), check_invariants=True, log_events=True
            )
        )
        if b.workspace.error[0, 0]:
            raise GameError(f"game 0: engine error {b.workspace.error[0].tolist()}")
        out = batch.outcomes(b)
        st = b.state
        events = trace.events_as_dicts(
            b.workspace.events[0, : b.workspace.n_events[0]], ru.tile, *trace.names(rules, out["species"][0])
        )
        seats = []
        for p in range(players):
            groups = {int(ru.tile[r]): int(st.size[0, r]) for r in range(len(ru.tile)) if st.owner[0, r] == p}
            seats.append(
                {
                    "seat": p + 1,
                    "strategy": strategies[p],
                    "species": str(out["species"][0, p]),
                    "score": int(out["score"][0, p]),
                    "won": bool(out["won"][0, p]),
                    "eliminated": bool(out["eliminated"][0, p]),
                    "groups": groups,
                    "trophies": int(out["trophies"][0, p]),
                    "fate": int(out["fate"][0, p]),
                    "irradiation": int(out["irradiation"][0, p]),
                }
            )
        doc = {
            "seed": seed,
            "players": players,
            "rounds": int(st.round[0]),
            "end": END_REASONS[int(st.end_reason[0])],
            "seats": seats,
            "areas": {int(ru.tile[r]): int(st.cubes[0, r]) for r in range(len(ru.tile)) if st.cubes[0, r]},
            "rules_id": rules.rules_id,
            "placeholders": rules.placeholders(players),
            "events": events,
        }
        who = [s["species"] for s in seats]  # distinct (S4)
        lines = [
            f"soup play --game chromosome: seed {seed}, {players} players, rules {rules.rules_id}",
            f"layout: {len(ru.tile)} rooms, tiles {', '.join(str(int(t)) for t in ru.tile)} "
            f"(sterility {', '.join(str(int(s)) for s in ru.sterility)}); "
            f"start rooms {', '.join(str(int(t)) for t, s in zip(ru.tile, ru.start, strict=True) if s)}",
            "seats: " + ", ".join(f"{s['seat']} {s['species']} ({s['strategy']})" for s in seats),
            "rooms are tile numbers; groups are room:size, c = charged",
            *trace.as_text(events, who),
            "",
            f"ended after round {doc['rounds']} by {doc['end']}; areas at the end: {doc['areas'] or 'none'}",
        ]
        for s in seats:
            status = "eliminated" if s["eliminated"] else ("wins" if s["won"] else "")
            parts = f"groups {s['groups']}, {s['trophies']} trophies, fate {s['fate']}"
            parts += f", irradiation {s['irradiation']}"
            lines.append(
                f"seat {s['seat']} {s['species']:<6} ({s['strategy']}): score {s['score']} = {parts} {status}"
            )
        lines.append("placeholders used: " + ", ".join(doc["placeholders"]))
        return Told(doc, "\n".join(lines))

    def strategy_space(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        from strategies.chromosome.presets import BOUNDS

        low, high = (np.array(b, dtype=float) for b in zip(*BOUNDS, strict=True))
        start = np.array(preset_row(name), dtype=float)
        return start, low, high

    def strategy_spec(self, name: str, vector: np.ndarray, path: Path) -> str:
        from strategies.chromosome.presets import write_strategy

        return write_strategy(name, vector, path)

    def build_report(self, run_dirs: Sequence[Path], out: Path, **options: Any) -> Path:
        from analysis.chromosome.report import build_report

        if options.get("equilibrium") is not None:
            raise UserError("--equilibrium: Chromosome's report has no equilibrium section yet")
        if options.get("strong"):
            raise UserError("--strong: Chromosome's report has no strong-play section yet (give --skill DIR)")
        return build_report(run_dirs, out, progress=options.get("progress"), skill=options.get("skill"))

    def replay(self, run: ChromosomeRun, game: int, seats: Sequence[int] | None = None) -> Any:
        from sim.chromosome.decision_points import ChromosomeReplay

        return ChromosomeReplay(run, params_table(run.scripted()), game, seats)

    def play_checked(
        self, rules: ChromosomeRules, players: int, strategies: Sequence[str], seed: int, games: int
    ) -> int:
        from sim.chromosome.engine import batch
        from sim.chromosome.engine.state import rules_for

        names = list(dict.fromkeys(strategies))
        rows = np.tile(np.array([names.index(s) for s in strategies[:players]], dtype=np.int16), (games, 1))
        ru = rules_for(rules, players)
        b = batch.play(
            batch.new_batch(ru, params_table(names), rows, seed, np.arange(games), check_invariants=True)
        )
        bad = np.flatnonzero(b.workspace.error[:, 0])
        if len(bad):
            raise GameError(f"game {bad[0]}: engine error {b.workspace.error[bad[0]].tolist()}")
        return int(b.state.finished.sum())


GAME = Chromosome()
