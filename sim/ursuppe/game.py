"""Ursuppe on the game protocol (sim.game): its registration, ``GAME``.

Registered in ``pyproject.toml`` (entry point group ``soup.games``). Importing this module loads
the rules loader and strategy files only; the compiled engine loads when games are played.
"""

import importlib
import json
from collections.abc import Sequence
from importlib import import_module
from pathlib import Path
from typing import Any

import numpy as np

from sim.errors import UserError
from sim.game import GameBase, GameInfo
from sim.ursuppe.rules.book import RuleBook, count_label, load_rules
from sim.ursuppe.simulation import UrsuppeRun, build_run, check_players
from strategies.ursuppe import DEFAULT_POOL, preset_names
from strategies.ursuppe.params import load_strategy, parameter_table

SCENARIO_DIR = Path(__file__).resolve().parents[2] / "tests" / "scenarios"

# The numbers sim.experiments.tuning tunes in an Ursuppe strategy (soup tune has its own --params).
TUNED_BY_DEFAULT = ("bp_reserve", "active_move_margin")
# The parts of the protocol it gives (sim.game.CAPABILITIES), its own soup tune among them.
CAPABILITIES = (
    *("rules", "runs", "play", "scenarios", "tuning", "tuning_plan", "report", "decision_points"),
    *("ablation", "bench"),
    *("paired_metrics", "deck_plans", "retune"),  # its paired experiments' hooks (sim.experiments.paired)
)


def _experiments(name: str) -> Any:
    """Ursuppe's experiments module ``name`` (sim/ursuppe/experiments/), imported by name: the
    experiments sit above this adapter and import the run (tests/test_layers.py), and the adapter
    only hands them to the kit's experiment stack (sim.experiments.paired) when one runs."""
    return importlib.import_module(f"sim.ursuppe.experiments.{name}")


class Ursuppe(GameBase):
    """Primordial Soup: 3-6 players, and 2 with a variant (dummy, double1, double2)."""

    info = GameInfo(
        name="ursuppe",
        title="Ursuppe (Primordial Soup)",
        player_counts=(3, 4, 5, 6),
        variants={2: ("dummy", "double1", "double2")},
        kernel_packages=("sim.ursuppe", "strategies.ursuppe"),
        default_pool=",".join(DEFAULT_POOL),
        default_strategy="greedy",
        capabilities=CAPABILITIES,
        # combos, verdict, calibrate: its commands (sim.ursuppe.cli)
        own_commands=("combos", "verdict", "calibrate"),
        report_summary="genes, seats, deck order, figures",
        # every preset, weakest by design first
        tournament_field=("random", "drifter", "greedy", "breeder", "geneticist", "predator", "forager"),
        skill_field="breeder",
    )
    scenario_dir = SCENARIO_DIR
    read_rules = staticmethod(load_rules)
    engine_module = "sim.ursuppe.engine.round"
    scenario_module = "sim.ursuppe.tools.scenario"
    check_play_strategy = staticmethod(load_strategy)
    build_run = staticmethod(build_run)  # its seating rules and variants (sim.ursuppe.simulation)

    def check_players(self, rules: RuleBook, players: int, variant: str | None = None) -> None:
        check_players(rules, players, variant)

    def run_label(self, players: int, variant: str | None = None) -> str:
        return count_label(players, variant)

    def rules_line(self, rules: RuleBook) -> str:
        return f"rules {rules.rules_id}; deck: {rules.deck_description()}"

    def rules_document(self, rules: RuleBook) -> dict[str, Any]:
        return {"rules_id": rules.rules_id, "deck": rules.deck_description(), "rules": rules.data}

    def strategy_names(self) -> list[str]:
        return preset_names()

    def play_game(
        self, rules: RuleBook, players: int, strategies: list[str], seed: int, variant: str | None
    ) -> Any:
        from sim.ursuppe.tools.play import play_game

        return play_game(rules, players, seed, [load_strategy(n) for n in strategies], variant=variant)

    def strategy_space(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        from strategies.ursuppe.tunable import search_space

        vector = load_strategy(name).vector
        space = search_space(TUNED_BY_DEFAULT, vector)
        return vector[space.index].astype(float), space.low, space.high

    def strategy_spec(self, name: str, vector: np.ndarray, path: Path) -> str:
        lines = [f"name = {json.dumps(Path(path).name)}", f"extends = {json.dumps(name)}"]
        lines += [f"{key} = {float(x)!r}" for key, x in zip(TUNED_BY_DEFAULT, vector, strict=True)]
        target = Path(path).with_suffix(".toml")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return str(target)

    def tuning_plan(self, request: Any) -> Any:
        # Its experiments sit above this adapter (they play its runs): plugged in by name, as the
        # wiring plugs strategies (sim.policy_port), so no import edge runs down-up.
        return import_module("sim.ursuppe.experiments.tune_plan").tuning_plan(request)

    def build_report(self, run_dirs: Sequence[Path], out: Path, **options: Any) -> Path:
        from analysis.ursuppe.report import build_report

        return build_report(run_dirs, out, **options)

    def ablation(self, rules: RuleBook, remove: Sequence[str]) -> tuple[RuleBook, RuleBook, str]:
        """``rules`` and the same without the genes ``remove`` (0 copies at every count); soup
        ablate itself runs the gene experiments of :meth:`paired_experiments`."""
        genes = list(dict.fromkeys(_experiments("arms").resolve_gene(g, rules) for g in remove))
        if not genes:
            raise UserError("--gene: name a gene to remove")
        without = rules.derive({"genes": {g: {"copies": 0} for g in genes}})
        return rules, without, "B: without " + " + ".join(genes)

    def paired_experiments(self) -> Any:
        """Its compare, ablate and tournament (sim.ursuppe.experiments.arms): every metric paired,
        Holm families, the gene ablation with --each, Bradley-Terry ratings."""
        return _experiments("arms")

    def deck_plan(
        self, rules: RuleBook, decks: int, games: int, players: int, seating: str, seed: int
    ) -> Any:
        return _experiments("deck_family").deck_plan(rules, decks, games, players, seating, seed)

    def retune_settings(
        self, budget: int, params: str, games_per_candidate: int, threads: int, bar: Any = None
    ) -> Any:
        return _experiments("retune").Retune(budget, params, games_per_candidate, threads, bar=bar)

    def replay(self, run: UrsuppeRun, game: int, seats: Sequence[int] | None = None) -> Any:
        from sim.ursuppe.decision_points import UrsuppeReplay

        return UrsuppeReplay(run, game, seats)

    def play_checked(
        self, rules: RuleBook, players: int, strategies: Sequence[str], seed: int, games: int
    ) -> int:
        from sim.ursuppe.engine import batch as batch_mod

        table = parameter_table([load_strategy(s) for s in strategies])
        seats = np.arange(players, dtype=np.int16) % len(strategies)
        b = batch_mod.new_batch(
            rules.for_players(players), table, seats, seed, np.arange(games), check_invariants=True
        )
        batch_mod.play(b, seating="random")
        if batch_mod.first_error(b) is not None:
            g, row = batch_mod.first_error(b)
            raise batch_mod.GameError(f"game {g}: {batch_mod.describe_error(row)}")
        return int(b.state.finished.sum())

    def bench_figures(self, **options: Any) -> tuple[dict[str, Any], str]:
        """soup bench's figures (sim.ursuppe.tools.bench): ``options`` are its keywords."""
        from sim.ursuppe.tools.bench import as_text, bench

        _check_mix(options["mix"])
        doc = bench(**options)
        return doc, as_text(doc)

    def bench_scaling(
        self, counts: list[int], games: int, repeats: int, mix: str
    ) -> tuple[dict[str, Any], str]:
        """soup bench --threads: games/s at each thread count of ``counts`` (issue 36.4)."""
        from sim.ursuppe.tools.bench import scaling, scaling_text

        _check_mix(mix)
        doc = scaling(counts, games, repeats, mix)
        return doc, scaling_text(doc)

    def bench_profile(self, players: int, games: int, extra_genes: bool) -> dict[str, Any]:
        """soup bench --profile: the phases of a round and the hot kernels."""
        from sim.ursuppe.tools.profile import profile

        return profile(players, games, extra_genes)


def _check_mix(mix: str) -> None:
    """A UserError for a strategy of soup bench's --mix that does not load (before anything runs)."""
    for name in filter(None, mix.split(",")):
        load_strategy(name)


GAME = Ursuppe()
