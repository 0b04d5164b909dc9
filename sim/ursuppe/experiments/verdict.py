"""``soup verdict``: is this gene too strong? One gene, every design, every condition we can vary.

A gene's value depends on who holds it, who plays against it, the environment deck (10 of its 11
cards are PLACEHOLDERs, V5-V6) and the readings of the rules that touch it. A verdict measures
the gene by the designs of sim/ursuppe/experiments/gene_value.py and varies each of these in turn:

- **holding value** (the gene given at setup to player 0 and never given up, vs not given; the
  same strategy), with its plain card and its BP gift beside it, under every condition:
  the **headline** cell (holder breeder, every other seat drawn from the default mix, the rules'
  deck and readings), a **panel** of fields x holders (PANEL_FIELDS x PANEL_HOLDERS), **K decks**
  of the V6 family (sim/ursuppe/experiments/deck_family.py: deck 0 is the rules' own deck; every deck plays
  the same games) and every **reading** that touches the gene (sim/ursuppe/experiments/readings.py) set to
  each of its other values;
- **option value** (allowed vs forbidden to buy it, both arms tuned from the holder on the same
  seeds) in the headline cell, with the null gene and the plain card beside it;
- the **null gene** in the headline cell under both designs: it must read 0.

Each design's headline is then labelled **robust** (the same sign and significant, p < 0.05,
in every condition tried), **conditional** (naming the conditions that flip or erase it) or
**not shown** (the headline cell itself is not significant). Every unit is written as it is
measured (``<condition>/units/``, tunings under ``<condition>/arms/``): Ctrl-C keeps them and the
same command continues.
"""

import csv
import io
import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from sim.errors import UserError
from sim.runner import write_atomic
from sim.ursuppe.experiments import gene_value as G
from sim.ursuppe.experiments import restricted as R
from sim.ursuppe.experiments import tuning as T
from sim.ursuppe.rules.book import RuleBook, load_rules
from sim.ursuppe.rules.seating import rotate_block
from strategies.ursuppe import DEFAULT_POOL

# The default panel (docs/verdicts.md): three fields that play differently (a simple buyer's
# mirror, the default mix, an aggressive field) and two holders (breeder, the strongest preset
# against the mix at 4 players: 39% where greedy wins 3%; geneticist, a gene collector). The
# headline cell is breeder against the mix: a holder that wins often enough for a gene to move it.
PANEL_FIELDS: tuple[str, ...] = ("greedy", "mix", "predator")
PANEL_HOLDERS: tuple[str, ...] = ("breeder", "geneticist")
HEADLINE = ("breeder", "mix")  # holder, field
DEFAULT_GAMES = 12_000  # fresh games of every arm (a multiple of every rotate block)
DEFAULT_DECKS = 4
DEFAULT_OPTION_BUDGET = 120_000  # tuning games of each option-value arm
OPTION_KEYS = T.DEFAULT_SCALARS
OPTION_GAMES_PER_CANDIDATE = 1_200
ALPHA = 0.05
Z80 = 0.8416  # the normal quantile of 80% power
Z975 = 1.96
RESULT_MD = "verdict.md"
RESULT_CSV = "verdict.csv"
RESULT_JSON = "verdict.json"


@dataclass(frozen=True)
class Condition:
    """One condition of a verdict: which of the varied things it varies (kind: headline, panel,
    strong, mirror, deck, reading; STRONG_KINDS), its words, its directory and what it plays."""

    kind: str
    label: str
    key: str
    setting: T.Setting
    fld: T.Field
    holder: Any  # strategies.ursuppe.params.Strategy (a search holder's: its rollout policy)
    search: Any = None  # strategies.search.SearchSpec: the holder is this search player (issue 34)
    field_search: Any = None  # SearchSpec: every other seat is this search player (the mirror cell)


@dataclass
class Plan:
    """Everything a verdict plays, checked before any game."""

    gene: str
    players: int
    book: RuleBook
    conditions: list[Condition]
    games: int
    seed: int
    option_budget: int
    decks: int
    deck_labels: list[str]
    readings: list[str]
    rules_file: str | None
    option_replicates: int = G.DEFAULT_REPLICATES
    option_design: str = "restricted"  # OPTION_DESIGNS
    search: Any = None  # the strong player (SearchSpec) of restricted search and the strong-play cell
    search_games: int = R.DEFAULT_SEARCH_GAMES  # fresh games of every arm a search player plays
    search_field_games: int = R.DEFAULT_FIELD_GAMES  # of every arm of the cell against a search field

    def holding_units(self) -> list[G.Unit]:
        return [G.Unit("gene", self.gene), G.Unit("plain", self.gene), G.Unit("bp", self.gene)]

    def option_config(self, replicate: int = 0) -> T.TuneConfig:
        """Option value's tuning of ``replicate`` (its own tuning seed and fresh games)."""
        c = self.conditions[0]
        return T.TuneConfig(
            c.setting,
            c.holder,
            c.fld,
            OPTION_KEYS,
            self.option_budget * 2 * len(self.option_units()),  # option_budget games for every arm
            seed=G.replicate_seed(self.seed, replicate),
            games_per_candidate=OPTION_GAMES_PER_CANDIDATE,
            eval_games=self.games,
        )

    def option_condition(self) -> Condition:
        """Where restricted search measures option value: the headline's rules and field, the
        strong player (its rollout policy's row) at player 0."""
        from strategies.ursuppe.params import load_strategy

        head = self.conditions[0]
        return Condition(
            "headline",
            f"{self.search.name} (search, rollouts by {self.search.rollout}) allowed vs denied, "
            + head.label.split(" vs ", 1)[1],
            "option",
            head.setting,
            head.fld,
            load_strategy(self.search.rollout),
            self.search,
        )

    def option_units(self) -> list[G.Unit]:
        return [G.Unit("gene", self.gene), G.Unit("plain", self.gene), G.Unit("null", self.gene)]

    def condition_units(self, cond: Condition) -> list[G.Unit]:
        """The holding-value units a condition measures: the gene, its plain card and BP gift (and
        the null gene in the headline); the strong-play cells the gene only (search is dear)."""
        if cond.kind in STRONG_KINDS:
            return [G.Unit("gene", self.gene)]
        return self.holding_units() + ([G.Unit("null", self.gene)] if cond.kind == "headline" else [])

    def arm_games(self, cond: Condition) -> int:
        """Fresh games of every arm of ``cond``: --search-field-games against a field of search
        players, --search-games with a search holder, else --games."""
        if cond.field_search is not None:
            return self.search_field_games
        return self.search_games if cond.search else self.games

    def condition_games(self, cond: Condition) -> int:
        """Games a condition plays: every unit's gifted arm and the arm without a gift."""
        return (len(self.condition_units(cond)) + 1) * self.arm_games(cond)

    def option_games(self) -> int:
        if self.option_budget <= 0:
            return 0
        if self.option_design == "restricted":
            return 2 * len(self.option_units()) * self.search_games
        return self.option_replicates * G.study_games(
            self.option_config(), [self.gene], "option", ("null", "plain")
        )

    def search_game_count(self) -> int:
        """The games with a search player among :meth:`total_games`."""
        held = sum(self.condition_games(c) for c in self.conditions if c.search)
        return held + (self.option_games() if self.option_design == "restricted" else 0)

    def total_games(self) -> int:
        return sum(self.condition_games(c) for c in self.conditions) + self.option_games()

    def search_seconds(self) -> float:
        """The estimated seconds of its search games on one core (:meth:`game_seconds`)."""
        held = sum(self.condition_games(c) * self.game_seconds(c) for c in self.conditions if c.search)
        restricted = self.option_design == "restricted" and self.search is not None
        return held + (self.option_games() * self.game_seconds() if restricted else 0.0)

    def game_seconds(self, cond: "Condition | None" = None) -> float:
        """One game's estimated seconds on one core in condition ``cond`` (None: option value's
        restricted search): SCRIPTED_GAME_S for a scripted game; a search game's (search_game_s),
        and against a field of search players one more such game for each of the P-1 other seats
        at the field's budget (measured: a 4-player search-16 mirror took 4.1x one seat's CPU)."""
        search = self.search if cond is None else cond.search
        if search is None:
            return SCRIPTED_GAME_S
        seconds = search_game_s(search.budget, self.players)
        if cond is not None and cond.field_search is not None:
            seconds += (self.players - 1) * search_game_s(cond.field_search.budget, self.players)
        return seconds

    def seconds(self, threads: int = 1, workers: int | None = None) -> float:
        """The estimated wall time on an idle machine: scripted games (SCRIPTED_GAME_S) in batches
        on ``threads`` cores; search games one a thread on ``threads`` threads here (THREADED_SEARCH:
        the GIL) or one a process on ``workers`` Ray workers."""
        speedup = workers if workers is not None else (THREADED_SEARCH if threads > 1 else 1.0)
        return self.search_seconds() / max(speedup, 1) + self.scripted_seconds(threads)

    def scripted_seconds(self, threads: int = 1) -> float:
        """The estimated seconds of its scripted games on ``threads`` cores (SCRIPTED_GAME_S)."""
        return (self.total_games() - self.search_game_count()) * SCRIPTED_GAME_S / max(threads, 1)

    def work(self) -> int:
        """The plan's work in scripted games' worth (its estimated seconds on one core over
        SCRIPTED_GAME_S): what its progress bar counts, so that its ETA weighs a search game as the
        thousands of scripted games it costs (counted in games, the bar said "4.9 days" while the
        scripted games raced ahead and "0:00:18" after them)."""
        return round(self.seconds(1) / SCRIPTED_GAME_S)

    def game_weight(self, cond: "Condition | None" = None) -> float:
        """One game's work (scripted games' worth, :meth:`work`) in condition ``cond`` (None:
        option value's restricted search): its :meth:`game_seconds` over a scripted game's."""
        return self.game_seconds(cond) / SCRIPTED_GAME_S

    def detectable(self, games: int | None = None) -> float:
        """The smallest effect (win-rate points) found at 80% power by a two-sided test at 5% with
        this many games a condition (default: ``games``), in the worst case of a paired binary
        outcome (every game discordant with probability 1/2)."""
        return detectable(self.games if games is None else games)


def detectable(games: int) -> float:
    """Plan.detectable of ``games`` paired games an arm."""
    return 100 * (Z975 + Z80) * math.sqrt(0.5 / games)


# CPU seconds measured here (issue 34.4: 4 players, one thread, process time so that the shared
# machine's load does not count; docs/verdicts.md, "Time and scaling"): a scripted game in a batch
# 0.063 ms (4,800 games); a game with one search seat 0.166 s at search-2, 0.198 s at search-16,
# 0.373 s at search-64 (24, 24 and 12 games): about 0.16 s + 0.0033 s per rollout of its budget
# (the replay of every decision from the start dominates small budgets). The budget line's
# estimate only; a loaded machine takes longer.
SCRIPTED_GAME_S = 0.000065
SEARCH_GAME_S = (0.16, 0.0033)
# Search games on 2 threads of one process against 1 (12 search-16 games, 3 times in turns, the
# other core nearly idle): 1.35x, not 2x, the Python between the kernels holding the GIL. Not
# assumed to grow with more threads (not measured); Ray's processes scale (Machine.workers).
THREADED_SEARCH = 1.35


def duration(seconds: float) -> str:
    """An estimated time in words: "about 35 min", "under a minute"."""
    return f"about {seconds / 60:.0f} min" if seconds >= 60 else "under a minute"


def search_game_s(budget: int, players: int) -> float:
    """The estimated seconds of one game with one search seat of ``budget`` rollouts a decision."""
    return (SEARCH_GAME_S[0] + SEARCH_GAME_S[1] * budget) * players / 4


# --budget (issue 34.4): precision for time, --games, --search-games and --decks together. Every
# games count is a multiple of every rotate block (120); the search games are rounded up to the
# players' block (budget_sizes). default: one gene's strong-play verdict at 4 players in under 30
# minutes on 2 cores (docs/verdicts.md, "Time and scaling").
BUDGETS: dict[str, tuple[int, int, int]] = {  # games, search games, decks
    "quick": (2_400, 96, 1),
    "default": (DEFAULT_GAMES, R.DEFAULT_SEARCH_GAMES, DEFAULT_DECKS),
    "full": (48_000, 1_344, 8),
}


def budget_sizes(
    budget: str,
    games: int | None = None,
    search_games: int | None = None,
    decks: int | None = None,
    players: int = 4,
) -> tuple[int, int, int]:
    """(games, search games, decks) of ``budget`` where not given; a UserError names a bad budget."""
    if budget not in BUDGETS:
        raise UserError(f"--budget: expected one of {', '.join(BUDGETS)}, got {budget!r}")
    g, s, d = BUDGETS[budget]
    if search_games is None:
        block = rotate_block(players)
        search_games = -(-s // block) * block
    return (g if games is None else games), search_games, (d if decks is None else decks)


@dataclass(frozen=True)
class Machine:
    """Where a verdict plays (the budget line's time): ``threads`` threads here, and its search
    games on Ray (``backend`` "ray": a local instance of ``threads`` CPUs, or the cluster at
    ``address``)."""

    threads: int = 1
    backend: str = "local"
    address: str | None = None

    def workers(self) -> int | None:
        """Ray processes playing search games (None: threads here; a cluster's: unknown here,
        counted as one)."""
        if self.backend != "ray":
            return None
        return self.threads if self.address is None else 1

    def threads_text(self) -> str:
        return f"{self.threads} thread" + ("s" if self.threads != 1 else "")

    def time(self, plan: Plan) -> str:
        """The estimated time of ``plan`` here (Plan.seconds), in words."""
        if self.backend == "ray" and self.address is not None:
            here = duration(plan.scripted_seconds(self.threads))
            return (
                f"{here} on {self.threads_text()} here and {plan.search_seconds() / 60:.0f} "
                "CPU-minutes of search games shared by the Ray cluster's CPUs"
            )
        if self.backend == "ray":
            seconds = plan.seconds(self.threads, self.workers())
            return f"{duration(seconds)} on a local Ray instance of {self.threads} CPUs"
        return f"{duration(plan.seconds(self.threads))} on {self.threads_text()}"


def budget_line(
    plan: Plan,
    on: Machine | int = 1,
    budget: str | None = None,
    others: dict[str, Plan] | None = None,
) -> str:
    """What the verdict will play, printed before any game: its conditions, option value (its
    design and budget, or that it is skipped), the games in all with the estimated time on
    ``on`` (a Machine, or threads here), the detectable effect of the scripted and the search
    arms, and what the other ``--budget`` s (``others``: their plans) would take and detect:
    --budget, --games and --search-games trade precision for time (the detectable effect
    shrinks with 1/sqrt(games))."""
    on = on if isinstance(on, Machine) else Machine(on)
    if plan.option_budget <= 0:
        option = "no option value (--option-budget 0)"
    elif plan.option_design == "restricted":
        option = (
            f"option value by restricted search: {plan.search.name} allowed vs denied, 3 units x 2 arms x "
            f"{plan.search_games:,} games"
        )
        if not R.leaves_policy(plan.search.budget):
            option += (
                f" ({plan.search.name} seldom leaves its rollout policy at a BUY, so option value reads"
                f" about 0 by construction: use search-{R.smallest_budget()} or more)"
            )
    else:
        option = (
            f"option value by tuned arms: {plan.option_replicates} tuning replicates x 6 arms x "
            f"{plan.option_budget:,} tuning games"
        )
    strong = [c for c in plan.conditions if c.search]
    searched = plan.search_game_count()
    search_part = (
        f"; {plan.detectable(plan.search_games):.1f} points with a search player "
        f"({plan.search_games:,} games an arm, --search-games)"
        if searched
        else ""
    )
    mirror = next((c for c in plan.conditions if c.field_search is not None), None)
    if mirror is not None:
        spent = duration(plan.condition_games(mirror) * plan.game_seconds(mirror))
        option += (
            f"; strong play against a field of search players: {mirror.search.name} vs "
            f"{plan.players - 1} x {mirror.field_search.name}, 2 arms x {plan.search_field_games:,} games, "
            f"{spent} (--search-field-games, 0 skips it)"
        )
        search_part += (
            f"; {plan.detectable(plan.search_field_games):.1f} points against the search field "
            f"({plan.search_field_games:,} games an arm)"
        )
    trade = ""
    if others:
        trade = "; --budget trades precision for time: " + ", ".join(
            f"{name} {duration(other.seconds(on.threads, on.workers()))} at {other.detectable():.1f}"
            + (f"/{other.detectable(other.search_games):.1f}" if other.search_game_count() else "")
            + " points"
            for name, other in others.items()
        )
    return (
        f"verdict on {plan.gene}, {plan.players} players"
        + (f", --budget {budget}" if budget else "")
        + f": {len(plan.conditions)} conditions "
        f"({sum(c.kind == 'panel' for c in plan.conditions)} panel cells, "
        f"{len(strong)} with a search holder, "
        f"{max(plan.decks - 1, 0)} more decks, "
        f"{len(plan.readings)} readings); {option}; {plan.total_games():,} games in all "
        f"({searched:,} with a search player), {on.time(plan)}; "
        f"detectable effect about {plan.detectable():.1f} points with scripted holders (80% power, "
        f"{plan.games:,} games an arm, --games){search_part}{trade}"
    )


OPTION_DESIGNS = ("restricted", "tuned")  # option value: by restricted search (default), by tuned arms
# The panel's strong-play cells (issue 34): a search holder against the default field ("strong") and
# against a field of search players ("mirror"); the strong-play line prefers the mirror's
STRONG_KINDS = ("strong", "mirror")


def _search_player(option: str, name: str) -> Any:
    """A search player (strategies/search.py) named by ``option``; a UserError names a bad one."""
    try:
        return R.search_spec(name)
    except UserError as e:
        raise UserError(f"{option}: {e}") from None


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _field(name: str, players: int) -> tuple[T.Field, str]:
    from strategies.ursuppe.params import load_strategy

    if name == "mix":
        return (
            T.Field("mix", tuple(load_strategy(n) for n in DEFAULT_POOL)),
            f"every other seat drawn from the default mix ({', '.join(DEFAULT_POOL)})",
        )
    s = load_strategy(name)
    return T.Field("against", (s,) * (players - 1)), f"every other seat {s.name}"


def plan_verdict(
    gene: str,
    players: int = 4,
    rules_file: str | Path | None = None,
    games: int = DEFAULT_GAMES,
    decks: int = DEFAULT_DECKS,
    with_readings: bool = True,
    option_budget: int = DEFAULT_OPTION_BUDGET,
    seed: int = 1,
    fields: tuple[str, ...] = PANEL_FIELDS,
    holders: tuple[str, ...] = PANEL_HOLDERS,
    option_replicates: int = G.DEFAULT_REPLICATES,
    holder: str = HEADLINE[0],
    option_design: str = "restricted",
    search: str | None = R.DEFAULT_SEARCH,
    search_games: int = R.DEFAULT_SEARCH_GAMES,
    search_field: str | None = None,
    search_field_games: int = R.DEFAULT_FIELD_GAMES,
) -> Plan:
    """Check every option and build the conditions; a UserError (one line) on bad input.

    ``holder``: the headline's holder (a preset, or a search player: ``search-N``); ``search``:
    the strong player (None: no strong-play cell, and option value by tuned arms only), which
    plays option value by restricted search (``option_design`` "restricted", the default) and
    the panel's strong-play cell (holder ``search`` against the default field); ``search_games``:
    the fresh games of every arm a search player plays. ``search_field`` (default: ``search``
    itself, a mirror) plays every other seat of the second strong-play cell, its rollouts by its
    own policy; ``search_field_games`` its games an arm (0: no such cell)."""
    from strategies.ursuppe.params import load_strategy

    book, name = _gene_book(gene, players, rules_file)
    block = rotate_block(players)
    _check_budgets(games, decks, option_budget, option_replicates, option_design, block)
    strong = _search_player("--search", search) if search else None
    if option_design == "restricted" and option_budget > 0 and strong is None:
        raise UserError(
            "--option-design restricted needs a search player (--search search-N), or --option-budget 0"
        )
    for s in (*(f for f in fields if f != "mix"), *holders):
        load_strategy(s)
    if not fields or not holders:
        raise UserError("--fields and --holders: expected at least one of each")
    head_search, field_search = _search_cells(
        holder, strong, search_games, search_field, search_field_games, block
    )
    setting = T.Setting(book, players)
    holder0 = load_strategy(head_search.rollout if head_search else holder)
    headline = (*_field(HEADLINE[1], players), holder0, head_search)
    conditions = _player_conditions(setting, holder, holders, fields, headline, strong, field_search)
    deck_conditions, labels = _deck_conditions(setting, decks, seed, headline)
    reading_conditions, reading_labels = (
        _reading_conditions(setting, name, headline) if with_readings else ([], [])
    )
    plan = Plan(
        name,
        players,
        book,
        [*conditions, *deck_conditions, *reading_conditions],
        games,
        seed,
        option_budget,
        decks,
        labels,
        reading_labels,
        str(rules_file) if rules_file else None,
        option_replicates,
        option_design,
        strong or head_search,
        search_games,
        search_field_games if field_search is not None else 0,
    )
    if option_budget > 0 and option_design == "tuned":
        try:
            G.check_study(plan.option_config(), [name], "option", ("null", "plain"))
        except T.TuningError as e:
            raise UserError(str(e).replace("--budget", "--option-budget")) from None
    return plan


def _gene_book(gene: str, players: int, rules_file: str | Path | None) -> tuple[RuleBook, str]:
    """The rules a verdict on ``gene`` plays (an extra gene with the module, XM1) and the gene's
    name; a UserError if the gene is unknown or has no copies with ``players``."""
    book = load_rules(rules_file)
    try:
        index = book.gene_index(gene)
    except KeyError:
        raise UserError(f"--gene: unknown gene {gene!r} (genes: {', '.join(book.gene_names)})") from None
    name = book.gene_names[index]
    if 20 <= index < 46 and not book.data["flags"]["extra_genes"]:
        book = book.derive({"flags": {"extra_genes": True}})  # an extra gene is played with the module (XM1)
    if players not in book.player_counts:
        counts = ", ".join(str(p) for p in book.player_counts)
        raise UserError(f"--players: expected one of {counts} (components.player_counts), got {players}")
    if book.for_players(players).gene_copies[index] <= 0:
        raise UserError(f"--gene: {name} has no copies with {players} players: it cannot be in play")
    return book, name


def _check_budgets(
    games: int, decks: int, option_budget: int, option_replicates: int, option_design: str, block: int
) -> None:
    """The games, decks and option-value options, each a one-line UserError when out of range."""
    if games < block or games % block:
        raise UserError(
            f"--games: expected a positive multiple of {block} (the rotate seating block), got {games}"
        )
    if decks < 1:
        raise UserError(f"--decks: expected at least 1, got {decks}")
    if option_budget < 0:
        raise UserError(f"--option-budget: expected 0 (no option value) or more games, got {option_budget}")
    if option_replicates < 2:
        raise UserError(
            f"--option-replicates: expected at least 2 (the spread between tunings needs two), "
            f"got {option_replicates}"
        )
    if option_design not in OPTION_DESIGNS:
        designs = ", ".join(OPTION_DESIGNS)
        raise UserError(f"--option-design: expected one of {designs}, got {option_design!r}")


def _search_cells(
    holder: str,
    strong: Any,
    search_games: int,
    search_field: str | None,
    search_field_games: int,
    block: int,
) -> tuple[Any, Any]:
    """The headline's search holder (when ``holder`` is one) and the mirror cell's field of
    search players (None: no such cell), with their games checked (one-line UserErrors)."""
    head_search = _search_player("--holder", holder) if R.is_search(holder) else None
    if (strong or head_search) and (search_games < block or search_games % block):
        raise UserError(
            f"--search-games: expected a positive multiple of {block} (the rotate seating block), "
            f"got {search_games}"
        )
    if search_field_games < 0 or search_field_games % block:
        raise UserError(
            f"--search-field-games: expected 0 (no cell against a field of search players) or a positive "
            f"multiple of {block} (the rotate seating block), got {search_field_games}"
        )
    if search_field and strong is None:
        raise UserError("--search-field: a field of search players needs a search holder (--search search-N)")
    field_search = None
    if strong is not None and search_field_games > 0:
        field_search = _search_player("--search-field", search_field) if search_field else strong
    return head_search, field_search


def _player_conditions(
    setting: T.Setting,
    holder: str,
    holders: tuple[str, ...],
    fields: tuple[str, ...],
    headline: tuple[Any, str, Any, Any],
    strong: Any,
    field_search: Any,
) -> list[Condition]:
    """The conditions that change who plays: the headline (``headline``: its field, the field's
    words, its holder and search holder), the panel of holders x fields, and with a search
    player the strong-play cell and the mirror against a field of search players."""
    from strategies.ursuppe.params import load_strategy

    fld0, fld0_text, holder0, head_search = headline
    players = setting.players
    conditions = [
        Condition(
            "headline",
            f"holder {head_search.name if head_search else holder0.name} vs {fld0_text}, the rules' deck and "
            "readings",
            "headline",
            setting,
            fld0,
            holder0,
            head_search,
        )
    ]
    for h in holders:
        for f in fields:
            if (h, f) == (holder, HEADLINE[1]):
                continue
            fld, text = _field(f, players)
            s = load_strategy(h)
            conditions.append(
                Condition(
                    "panel", f"holder {s.name} vs {text}", f"panel-{_slug(h)}-{_slug(f)}", setting, fld, s
                )
            )
    if strong is not None and head_search is None:
        # strong play (issue 34): the same question with a search holder against the default field
        conditions.append(
            Condition(
                "strong",
                f"holder {strong.name} (search, rollouts by {strong.rollout}) vs {fld0_text}",
                f"strong-{_slug(strong.name)}",
                setting,
                fld0,
                load_strategy(strong.rollout),
                strong,
            )
        )
    if field_search is not None:
        # strong play without the ceiling: every seat a search player, so that a search seat's edge
        # over scripted seats (a search-16 holder wins ~90% against the mix) no longer decides most
        # games; the field's rows are its rollout policy's, so with the default every seat is the
        # same player and only the gene tells player 0 apart (docs/verdicts.md)
        conditions.append(
            Condition(
                "mirror",
                f"holder {strong.name} (search, rollouts by {strong.rollout}) vs every other seat "
                f"{field_search.name} (search, rollouts by {field_search.rollout})",
                f"mirror-{_slug(strong.name)}-{_slug(field_search.name)}",
                setting,
                _field(field_search.rollout, players)[0],
                load_strategy(strong.rollout),
                strong,
                field_search,
            )
        )
    return conditions


def _deck_conditions(
    setting: T.Setting, decks: int, seed: int, headline: tuple[Any, str, Any, Any]
) -> tuple[list[Condition], list[str]]:
    """The headline on each other deck of the V6 family (``decks`` > 1), and every deck's label."""
    if decks <= 1:
        return [], []
    from sim.ursuppe.experiments.deck_family import deck_label, deck_overrides, plausible_decks

    family = plausible_decks(setting.book, decks, seed)
    labels = [deck_label(d) for d in family]
    conditions = [
        _headline_on(
            "deck",
            f"deck {k} of the V6 family ({labels[k]})",
            f"deck-{k}",
            replace(setting, book=setting.book.derive(deck_overrides(deck))),
            headline,
        )
        for k, deck in enumerate(family[1:], start=1)
    ]
    return conditions, labels


def _reading_conditions(
    setting: T.Setting, name: str, headline: tuple[Any, str, Any, Any]
) -> tuple[list[Condition], list[str]]:
    """The headline under each reading of the rules that touches gene ``name``, and their labels."""
    from sim.ursuppe.experiments.readings import readings

    conditions, labels = [], []
    for label, layer in readings(setting.book, name):
        try:
            read_book = setting.book.derive(layer)
        except UserError:
            continue  # a value these rules cannot take (another flag pins it)
        labels.append(label)
        conditions.append(
            _headline_on(
                "reading", label, f"reading-{_slug(label)}", replace(setting, book=read_book), headline
            )
        )
    return conditions, labels


def _headline_on(
    kind: str, label: str, slug: str, setting: T.Setting, headline: tuple[Any, str, Any, Any]
) -> Condition:
    """The headline's field, holder and search player under another ``setting`` (a deck, a reading)."""
    fld0, _, holder0, head_search = headline
    return Condition(kind, label, slug, setting, fld0, holder0, head_search)


def _row(design: str, cond: Condition, unit: G.Unit, m: dict[str, Any], games: int) -> dict[str, Any]:
    return _row_of(design, cond, unit, G._contrast(m["won_with"], m["won_without"]), [m], games)


def _row_of(
    design: str, cond: Condition, unit: G.Unit, c: dict[str, Any], reps: list[dict[str, Any]], games: int
) -> dict[str, Any]:
    """A table row: contrast ``c`` of ``unit`` under ``cond``, measured on ``reps`` (one arm pair,
    or option value's replicates) of ``games`` games each."""
    return {
        "design": design,
        "kind": cond.kind,
        "condition": cond.label,
        "arm": unit.label,
        "reference": unit.kind,
        "estimate": c["estimate"],
        "low": c["ci_low"],
        "high": c["ci_high"],
        "p_value": c["p_value"],
        "with": float(np.mean([m["won_with"].mean() for m in reps])),
        "without": float(np.mean([m["won_without"].mean() for m in reps])),
        "games": games * len(reps),
        # games whose outcome for player 0 differs between the arms: a reference whose games are
        # all the same reads 0 by construction and checks nothing (issue 32.3)
        "differ": int(sum(int((m["won_with"] != m["won_without"]).sum()) for m in reps)),
        "measured": True,
        "note": "",
    }


def run_verdict(
    plan: Plan,
    out: Path,
    threads: int,
    progress: Callable[[int, int], None] | None = None,
    backend: Any = None,
) -> dict[str, Any]:
    """Play (or resume) every unit of the plan and write verdict.md, verdict.csv and verdict.json.
    The search games are played on ``backend`` (sim.backends: Ray tasks) or here on ``threads``
    threads, one game a thread; the scripted games here, in batches on ``threads`` threads."""
    from sim.backends import LocalBackend

    step = G.GameCount(plan.work(), progress)  # in work, not games (Plan.work)
    backend = backend or LocalBackend(threads)

    def weighted(weight: float) -> Callable[[int], None]:
        return lambda games: step(round(games * weight))

    t0 = time.perf_counter()
    rows: list[dict[str, Any]] = []
    measured: dict[tuple[str, str], dict[str, Any]] = {}
    for cond in plan.conditions:
        games = plan.arm_games(cond)
        base = T.TuneConfig(cond.setting, cond.holder, cond.fld, (), 0, seed=plan.seed, eval_games=games)
        for unit in plan.condition_units(cond):
            have = (out / cond.key / "units" / f"{unit.key}.npz").exists()
            first = not (out / cond.key / "units" / "no-gift.npz").exists()
            before = step.done
            weight = plan.game_weight(cond)
            if cond.search:
                m = R.measure_search_holding(
                    base, unit, cond.search, out / cond.key, weighted(weight), cond.field_search, backend
                )
            else:
                m = G.measure_unit("holding", base, unit, out / cond.key, 0, threads, step)
            if have:
                step(round((2 if first else 1) * games * weight) - (step.done - before))
            measured[(cond.key, unit.key)] = m
            rows.append(_row("holding", cond, unit, m, games))
    if plan.option_budget > 0 and plan.option_design == "restricted":
        cond = plan.option_condition()
        base = T.TuneConfig(
            cond.setting, cond.holder, cond.fld, (), 0, seed=plan.seed, eval_games=plan.search_games
        )
        for unit in plan.option_units():
            have = (out / "option" / "units" / f"{unit.key}.npz").exists()
            weight = plan.game_weight()
            m = R.measure_restricted(
                base, unit, cond.search, out / "option", weighted(weight), backend=backend
            )
            if have:
                step(round(2 * plan.search_games * weight))
            measured[("option", unit.key)] = m
            rows.append(_restricted_row(cond, unit, m, plan.search_games))
    elif plan.option_budget > 0:
        units = plan.option_units()
        cond = plan.conditions[0]
        reps: dict[str, list[dict[str, Any]]] = {u.key: [] for u in units}
        for r in range(plan.option_replicates):
            cfg = G.fixed_field(plan.option_config(r))
            arm_budget = G._arm_budget(cfg, units)
            where = out / "option" / f"rep-{r}"
            for unit in units:
                have = (where / "units" / f"{unit.key}.npz").exists()
                before = step.done
                m = G.measure_unit("option", cfg, unit, where, arm_budget, threads, step)
                if have:
                    step(
                        G._unit_games(cfg, G.DESIGNS["option"], unit, units, arm_budget, "option")
                        - (step.done - before)
                    )
                reps[unit.key].append(m)
        for unit in units:
            measured[("option", unit.key)] = {"replicates": reps[unit.key]}
            rows.append(_option_row(cond, unit, reps[unit.key], plan.games))
    seconds = time.perf_counter() - t0
    doc = summarise(plan, rows, measured, seconds)
    write_outputs(plan, doc, rows, out)
    return doc


def _restricted_row(cond: Condition, unit: G.Unit, m: dict[str, Any], games: int) -> dict[str, Any]:
    """Option value's row of a unit by restricted search: the contrast, how often the allowed
    search bought the card, and the games the seat played differently (under the same search
    player most results are equal, so a reference's changed play is its check, issue 34.5). The
    gene is **not measured at this budget** where the allowed search bought it in under
    G.MIN_BOUGHT of its games, the tuned design's rule: its arms are then the same games."""
    row = _row("option", cond, unit, m, games)
    row.update(bought=float(m["bought_with"]), played=int(m["differ"]))
    if unit.kind == "gene" and row["bought"] < G.MIN_BOUGHT:
        row["measured"] = False
        row["note"] = (
            f"the allowed search bought the gene in {100 * row['bought']:.1f}% of its games (under "
            f"{100 * G.MIN_BOUGHT:.0f}%): its arms are the same games; a larger --search budget may leave "
            "its policy more often"
        )
    return row


def _option_row(cond: Condition, unit: G.Unit, reps: list[dict[str, Any]], games: int) -> dict[str, Any]:
    """Option value's row of a unit over its replicates (G.replicated: a t interval over the
    replicates' contrasts, which covers the tunings' spread as well as the fresh games')."""
    c = G.replicated(reps, "gene" if unit.kind == "gene" else "card")
    return {
        **_row_of("option", cond, unit, c, reps, games),
        "replicates": c["replicates"],
        "bought": c["bought_with"],
        "measured": c["measured"],
        "note": "; ".join(c["not_measured_because"]),
    }


def _beyond(measured: dict[tuple[str, str], dict[str, Any]], where: str, gene: str) -> dict[str, Any] | None:
    a = measured.get((where, G.Unit("gene", gene).key))
    b = measured.get((where, G.Unit("plain", gene).key))
    if a is None or b is None:
        return None
    if "replicates" in a:  # option value: the gene minus its plain card in each replicate, t over them
        diffs = [
            float(
                x["won_with"].mean()
                - x["won_without"].mean()
                - y["won_with"].mean()
                + y["won_without"].mean()
            )
            for x, y in zip(a["replicates"], b["replicates"], strict=True)
        ]
        return G.t_interval(np.array(diffs))
    return G.contrast_of_contrasts((a["won_with"], a["won_without"]), (b["won_with"], b["won_without"]))


def _bp_paired(plan: Plan, measured: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any] | None:
    """Holding the gene vs holding its price in BP, both given at setup, paired game by game (the
    two gifted arms of the headline cell): the gene's price in BP and the contrast."""
    a = measured.get(("headline", G.Unit("gene", plan.gene).key))
    b = measured.get(("headline", G.Unit("bp", plan.gene).key))
    if a is None or b is None:
        return None
    rules = plan.book.for_players(plan.players)
    price = int(rules.gene_price[plan.book.gene_index(plan.gene)])
    return {"bp": price, **G._contrast(a["won_with"], b["won_with"])}


# The size band of a robust label (issue 32.5): every condition's estimate within half to double
# the headline's. A designer acts on a size ("worth about 40 points"), not on a sign: a gene read
# at +42 that reads +17 under another reading of its text is not robustly "+42". A factor of 2 is
# what separates "strong" from "a bit strong" at the sizes verdicts see (2-60 points); it is wide
# enough that conditions agreeing within noise at the default budget stay inside it.
BAND = (0.5, 2.0)


BOTTOM = ("too strong", "about right", "too weak")


def bottom_class(beyond: dict[str, Any], versus_bp: dict[str, Any]) -> str:
    """One condition's bottom line (docs/verdicts.md, "The bottom line"), from two anchors
    measured on the same games: **too strong** when holding the gene beats holding its price in
    BP from setup (paired interval above 0: BP at setup compound, so that is a high bar);
    **too weak** when its effect is not shown to add anything beyond being a card (the gene minus
    its plain card, paired: interval not above 0; a gene is bought for its effect); else
    **about right** (its effect adds something, and it is worth no more than its price)."""
    if versus_bp["ci_low"] > 0:
        return "too strong"
    if beyond["ci_low"] <= 0:
        return "too weak"
    return "about right"


def bottom_line(plan: Plan, measured: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any] | None:
    """The bottom line of the gene: each holding-value condition's class (:func:`bottom_class`)
    with its two anchors; one class when every condition agrees, else "depends"."""
    per = []
    for cond in plan.conditions:
        gene = measured.get((cond.key, G.Unit("gene", plan.gene).key))
        plain = measured.get((cond.key, G.Unit("plain", plan.gene).key))
        bp = measured.get((cond.key, G.Unit("bp", plan.gene).key))
        if gene is None or plain is None or bp is None:
            continue
        beyond = G.contrast_of_contrasts(
            (gene["won_with"], gene["won_without"]), (plain["won_with"], plain["won_without"])
        )
        versus = G._contrast(gene["won_with"], bp["won_with"])
        per.append(
            {
                "condition": cond.label,
                "kind": cond.kind,
                "class": bottom_class(beyond, versus),
                "beyond_card": beyond,
                "versus_bp": versus,
            }
        )
    if not per:
        return None
    classes = {c["class"] for c in per}
    return {"class": per[0]["class"] if len(classes) == 1 else "depends", "conditions": per}


def bottom_words(gene: str, b: dict[str, Any], price: int) -> str:
    """The bottom line in words: the class, and under "depends" each class with its conditions
    and their two anchors (beyond its plain card; against its price in BP from setup)."""

    def anchors(c: dict[str, Any]) -> str:
        return (
            f"beyond its card {_pts(c['beyond_card'], 'ci_low', 'ci_high')}, "
            f"vs {price} BP at setup {_pts(c['versus_bp'], 'ci_low', 'ci_high')}"
        )

    head = b["conditions"][0]
    if b["class"] != "depends":
        text = (
            f"**Bottom line: {gene} is {b['class'].upper()}** in "
            + (f"all {len(b['conditions'])} conditions" if len(b["conditions"]) > 1 else "the one condition")
            + " tried"
            f" (headline: {anchors(head)})."
        )
    else:
        text = (
            f"**Bottom line: {gene} DEPENDS on the condition** (headline: {head['class']}, {anchors(head)}):"
        )
        for cls in BOTTOM:
            mine = [c for c in b["conditions"] if c["class"] == cls]
            if mine:
                text += f"\n- {cls} in {len(mine)}: " + "; ".join(
                    f"{c['condition']} ({anchors(c)})" for c in mine[:6]
                )
                if len(mine) > 6:
                    text += f"; and {len(mine) - 6} more (verdict.csv)"
    return (
        text + "\n\nThe rule (docs/verdicts.md): too strong = holding it beats holding its price in BP from"
        " setup; too weak = its effect is not shown beyond being a card; about right = in between. It"
        " holds for the holders, fields, decks and readings listed under Conditions, with preset"
        " (untuned) players; the intervals cover sampling noise only."
    )


def label(rows: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """robust / same sign, size varies / conditional / headline only / not shown / not measured,
    and the conditions against the headline (``rows``: one design's gene rows, the headline
    first). **robust**: in every condition significant, the headline's sign and within BAND of
    the headline's size; **same sign, size varies**: significant with the sign everywhere but
    some condition outside the band; **conditional**: some condition flips or erases it."""
    j = judge(rows)
    return j["label"], [r["condition"] for part in ("flips", "erases", "shrinks", "grows") for r in j[part]]


def judge(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The label (see :func:`label`), the range of the estimate across the conditions, and the
    conditions that **flip** it (significant, the other sign), **erase** it (not significant),
    **shrink** it (below half the headline) or **grow** it (above double)."""
    head = rows[0]
    out: dict[str, Any] = {
        "range": [min(r["estimate"] for r in rows), max(r["estimate"] for r in rows)],
        "flips": [],
        "erases": [],
        "shrinks": [],
        "grows": [],
    }
    if not head.get("measured", True):
        return {**out, "label": "not measured at this budget"}
    if head["p_value"] >= ALPHA or head["estimate"] == 0:
        return {**out, "label": "not shown"}
    if len(rows) == 1:
        return {**out, "label": "headline only"}  # significant, but tried under no other condition
    h = head["estimate"]
    for r in rows[1:]:
        e = r["estimate"]
        if r["p_value"] >= ALPHA or e == 0:
            out["erases"].append(r)
        elif math.copysign(1.0, e) != math.copysign(1.0, h):
            out["flips"].append(r)
        elif abs(e) < BAND[0] * abs(h):
            out["shrinks"].append(r)
        elif abs(e) > BAND[1] * abs(h):
            out["grows"].append(r)
    if out["flips"] or out["erases"]:
        return {**out, "label": "conditional"}
    if out["shrinks"] or out["grows"]:
        return {**out, "label": "same sign, size varies"}
    return {**out, "label": "robust"}


def summarise(
    plan: Plan, rows: list[dict[str, Any]], measured: dict[tuple[str, str], dict[str, Any]], seconds: float
) -> dict[str, Any]:
    """The verdict: per design its headline row, label and the conditions against it; the
    references; the spread across decks; the words."""
    designs: dict[str, Any] = {}
    for design in ("holding", "option"):
        gene_rows = [r for r in rows if r["design"] == design and r["reference"] == "gene"]
        if not gene_rows:
            continue
        j = judge(gene_rows)
        verdict = j["label"]
        against = [r["condition"] for part in ("flips", "erases", "shrinks", "grows") for r in j[part]]
        deck_rows = [r for r in gene_rows if r["kind"] in ("headline", "deck")]
        refs = {
            r["reference"]: r
            for r in rows
            if r["design"] == design and r["kind"] == "headline" and r["reference"] != "gene"
        }
        designs[design] = {
            "label": design_label(plan, design),
            "headline": gene_rows[0],
            "verdict": verdict,
            "against": against,
            "range": j["range"],
            "flips": j["flips"],
            "erases": j["erases"],
            "shrinks": j["shrinks"],
            "grows": j["grows"],
            "conditions": len(gene_rows),
            "beyond_card": _beyond(measured, "headline" if design == "holding" else "option", plan.gene),
            "versus_bp": _bp_paired(plan, measured) if design == "holding" else None,
            "references": refs,
            "deck_spread": [min(r["estimate"] for r in deck_rows), max(r["estimate"] for r in deck_rows)]
            if len(deck_rows) > 1
            else None,
            "same_sign_every_deck": (
                _same_sign([r["estimate"] for r in deck_rows]) if len(deck_rows) > 1 else None
            ),
        }
    ses = [
        (r["high"] - r["low"]) / (2 * Z975)
        for r in rows
        if r["reference"] == "gene" and r["design"] == "holding"
    ]
    return {
        "gene": plan.gene,
        "players": plan.players,
        "option_design": plan.option_design,
        "search": plan.search.name if plan.search else None,
        "search_games": plan.search_games if plan.search else 0,
        "search_field": next((c.field_search.name for c in plan.conditions if c.field_search), None),
        "search_field_games": plan.search_field_games,
        "strong_play": strong_play(rows),
        "rules_id": plan.book.rules_id,
        "rules_file": plan.rules_file,
        "deck": plan.book.deck_description(),
        "deck_family": plan.deck_labels,
        "readings": plan.readings,
        "placeholders": plan.book.placeholders(plan.players),
        "games": plan.games,
        "seed": plan.seed,
        "option_budget": plan.option_budget,
        "detectable_planned": plan.detectable(),
        "detectable_measured": 100 * (Z975 + Z80) * max(ses) if ses else None,
        "designs": designs,
        "price": int(plan.book.for_players(plan.players).gene_price[plan.book.gene_index(plan.gene)]),
        "bottom_line": bottom_line(plan, measured),
        "seconds": seconds,
    }


def design_label(plan: Plan, design: str) -> str:
    """A design's name as the verdict writes it: option value says which design measured it."""
    if design != "option":
        return G.DESIGNS[design].label
    if plan.option_design == "restricted":
        return "option value by restricted search"
    return "option value by tuned arms"


def strong_play(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Whether the holding value's headline holds under strong play (issue 34): the strong-play
    cell reaches the headline's conclusion - both significant at 5% with the same sign, or both
    not significant - and, when significant, a size within BAND of the headline's (as a robust
    label's, issue 32.5: a gene read at +57 with scripted holders and +12 with search does not
    hold at +57). ``sign_holds``: the conclusion alone. The cell is the one against a field of
    search players where it was played (``cell`` "mirror"): against the default field a search
    holder wins most games with or without the gene (search-16: about 90% at 4 players), so few
    games can differ and the reading is compressed; else the one against the default field
    ("strong"). ``cells``: each cell's row by kind. None without either cell."""
    gene = [r for r in rows if r["design"] == "holding" and r["reference"] == "gene"]
    cells = {r["kind"]: r for r in reversed(gene) if r["kind"] in STRONG_KINDS}
    if not gene or not cells:
        return None
    head = gene[0]
    s = cells.get("mirror") or cells["strong"]

    def conclusion(r: dict[str, Any]) -> int:
        return 0 if r["p_value"] >= ALPHA or r["estimate"] == 0 else int(math.copysign(1, r["estimate"]))

    sign_holds = conclusion(head) == conclusion(s)
    in_band = conclusion(head) == 0 or BAND[0] <= s["estimate"] / head["estimate"] <= BAND[1]
    return {
        "holds": sign_holds and in_band,
        "sign_holds": sign_holds,
        "scripted": head,
        "search": s,
        "cell": s["kind"],
        "cells": cells,
    }


def strong_play_line(doc: dict[str, Any]) -> str | None:
    """ "holds under strong play" or "does not hold under strong play (reads X with scripted
    holders, Y with search)", then which strong-play cell it rests on (:func:`strong_play`)."""
    sp = doc.get("strong_play")
    if not sp:
        return None
    head, s = sp["scripted"], sp["search"]
    if sp["holds"]:
        text = (
            f"Holding value holds under strong play: {_pts(head)} with the scripted holder, {_pts(s)} with"
            f" {s['condition']}."
        )
    elif sp.get("sign_holds"):
        text = (
            f"Holding value holds in sign but not in size under strong play (reads {_pts(head)} with "
            f"scripted holders, {_pts(s)} with search, outside half to double: {s['condition']})."
        )
    else:
        text = (
            f"Holding value does not hold under strong play (reads {_pts(head)} with scripted holders,"
            f" {_pts(s)} with search: {s['condition']})."
        )
    return text + " " + _cells_sentence(sp)


CELL_WORDS = {
    "strong": "the cell against the default field",
    "mirror": "the cell against a field of search players",
}


def _cells_sentence(sp: dict[str, Any]) -> str:
    """Which strong-play cell the line rests on, with each cell's holder win rate without the gene
    (how much room the gene has: a holder that wins 90% without it can gain at most 10 points)."""
    cells = sp.get("cells") or {sp["search"]["kind"]: sp["search"]}
    cell = sp.get("cell", sp["search"]["kind"])

    def wins(r: dict[str, Any]) -> str:
        return (
            f"its holder wins {100 * r['without']:.0f}% without the gene, {r['differ']} of {r['games']}"
            " games differ"
        )

    text = f"It rests on {CELL_WORDS[cell]} ({wins(cells[cell])})"
    other = "strong" if cell == "mirror" else "mirror"
    if other in cells:
        text += f"; {CELL_WORDS[other]} reads {_pts(cells[other])} ({wins(cells[other])})"
    elif cell == "strong":
        text += f"; {CELL_WORDS['mirror']} was not played (--search-field-games)"
    return text + "."


def _same_sign(estimates: list[float]) -> bool:
    """Every estimate above 0, or every one below (a 0 is neither sign)."""
    return all(e > 0 for e in estimates) or all(e < 0 for e in estimates)


def _pts(r: dict[str, Any] | None, low: str = "low", high: str = "high") -> str:
    if not r:
        return "—"
    return f"{100 * r['estimate']:+.1f} [{100 * r[low]:+.1f}, {100 * r[high]:+.1f}]"


def words(doc: dict[str, Any]) -> list[str]:
    """The plain-words verdict, one paragraph a design."""
    out = []
    g = doc["gene"]
    for design, d in doc["designs"].items():
        what = {
            "holding": f"Holding {g} from setup to the end is worth",
            "option": f"Being allowed to buy {g} is worth",
        }[design]
        if d["verdict"] == "not measured at this budget":
            out.append(_not_measured(d, what))
            continue
        lo, hi = d["range"]
        span = (
            f" ({100 * lo:+.1f} to {100 * hi:+.1f} across {d['conditions']} conditions)"
            if d["conditions"] > 1
            else ""
        )
        h = d["headline"]
        text = (
            f"**{d['label'].capitalize()}: {d['verdict'].upper()}{span}.** {what} {_pts(h)} win-rate "
            f"points to player 0 ({h['condition']})."
        )
        if design == "option":
            text += _option_sentence(h, g)
        text += _verdict_sentence(d) + _reference_sentences(d, g) + against_list(d)
        out.append(text)
    line = strong_play_line(doc)
    if line:
        out.append(line)
    return out


def _not_measured(d: dict[str, Any], what: str) -> str:
    """A design's paragraph when the budget measured nothing: the restricted search's lower bound
    the games read, or the tuning replicates at a budget too small to tune."""
    h = d["headline"]
    if "replicates" not in h:  # restricted search
        return (
            f"**{d['label'].capitalize()}: NOT MEASURED AT THIS BUDGET.** {what} no number here: "
            f"{h['note']} ({h['condition']}); the games read {_pts(h)} points, {h['games']:,} paired"
            " games: the same search player in both arms, its rollouts never buying it (a lower"
            " bound: docs/verdicts.md)."
        )
    reps = ", ".join(f"{100 * x:+.1f}" for x in h["replicates"])
    return (
        f"**{d['label'].capitalize()}: NOT MEASURED AT THIS BUDGET.** {what} no number here: "
        f"{h['note']} ({h['condition']}). Its {len(h['replicates'])} tuning replicates read {reps}"
        " points: at this budget the arms are partly the untuned preset, so that contrast is the"
        " preset's own taste for the gene and the tunings' noise, not a good player's option"
        " (raise --option-budget)."
    )


def _option_sentence(h: dict[str, Any], g: str) -> str:
    """How the option design measured its headline ``h``: a restricted search player's games, or
    independent tunings of both arms (replicates)."""
    if "replicates" not in h:
        return (
            " The same search player in both arms, its rollouts never buying it; allowed, it may buy it"
            " where its rollouts show a gain, denied, it is never offered it (a lower bound:"
            f" docs/verdicts.md), {h['games']:,} paired games; it bought {g} in"
            f" {100 * h['bought']:.0f}% of its allowed games. Nothing tuned: the interval is the games'."
        )
    return (
        f" Over {len(h['replicates'])} independent tunings of both arms (replicates: "
        + ", ".join(f"{100 * x:+.1f}" for x in h["replicates"])
        + "; the interval is a t interval over them, so it covers the spread between tunings);"
        f" the allowed arms bought {g} in {100 * h['bought']:.0f}% of their games."
    )


def _verdict_sentence(d: dict[str, Any]) -> str:
    """What a design's verdict word means for the conditions it was tried under."""
    if d["verdict"] == "robust":
        return (
            f" The same sign, significant and within half to double the headline's size in all"
            f" {d['conditions']} conditions tried."
        )
    if d["verdict"] in ("conditional", "same sign, size varies"):
        return (
            f" It does not hold as it stands in {len(d['against'])} of {d['conditions']} conditions"
            " (listed below)."
        )
    if d["verdict"] == "headline only":
        return (
            " Significant in the headline cell, the only condition it was tried under (option value is"
            " measured there only): not checked against other fields, decks or readings."
        )
    return " The headline cell itself is not significant at 5%: no verdict."


def _reference_sentences(d: dict[str, Any], g: str) -> str:
    """The gene against its references: a plain card with its numbers (being a card) and BP."""
    text = ""
    plain = d["references"].get("plain")
    beyond = d.get("beyond_card")
    if plain and beyond and plain.get("measured", True):
        text += (
            f" A plain card with its numbers and no effect is worth {_pts(plain)} (being a card);"
            f" {g} beyond being a card (minus its plain card, paired): "
            f"{_pts(beyond, 'ci_low', 'ci_high')}."
        )
    vs = d.get("versus_bp")
    if vs:
        text += f" {bp_sentence(g, vs)}"
    return text


def against_list(d: dict[str, Any]) -> str:
    """The conditions that flip, erase, shrink or grow the headline, one a line with its reading
    (a Markdown list after the paragraph; empty when there are none)."""
    h = d["headline"]["estimate"]
    parts = [
        ("flips it (significant, the other sign)", d.get("flips", [])),
        ("erases it (not significant at 5%)", d.get("erases", [])),
        (f"shrinks it below half the headline ({100 * h * BAND[0]:+.1f})", d.get("shrinks", [])),
        (f"more than doubles it (beyond {100 * h * BAND[1]:+.1f})", d.get("grows", [])),
    ]
    lines = [f"\n- {what}: {r['condition']} ({r['kind']}): {_pts(r)}" for what, rs in parts for r in rs]
    return "\n" + "".join(lines) if lines else ""


def bp_sentence(gene: str, vs: dict[str, Any]) -> str:
    """The BP-gift comparison worded for what it is: holding the gene vs holding its price in BP
    at setup, paired game by game (not "worth less than its price": BP at setup compound over
    the game, so nearly every gene reads below its price in setup BP)."""
    n = vs["bp"]
    if vs["ci_low"] > 0:
        how = f"more than {n} BP at setup"
    elif vs["ci_high"] < 0:
        how = f"less than {n} BP at setup"
    else:
        how = f"about as much as {n} BP at setup"
    return (
        f"Holding {gene} vs holding its price ({n} BP) from setup, paired: "
        f"{_pts(vs, 'ci_low', 'ci_high')}: holding it is worth {how} (BP at setup compound over the"
        " game, so most genes read below their price here; this is not the price of buying it later)."
    )


def markdown(doc: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    lines = [
        f"# Verdict: {doc['gene']} ({doc['players']} players)",
        "",
        *(
            [bottom_words(doc["gene"], doc["bottom_line"], doc["price"]) + "\n"]
            if doc.get("bottom_line")
            else []
        ),
        *[w + "\n" for w in words(doc)],
        "## Conditions",
        "",
        f"- Rules {doc['rules_id']}"
        + (f" ({doc['rules_file']})" if doc["rules_file"] else "")
        + f"; deck {doc['deck']}.",
        f"- Placeholders used: {', '.join(doc['placeholders']) or 'none'}.",
        f"- {doc['games']:,} fresh games an arm (seed {doc['seed']}); detectable at 80% power: "
        f"{doc['detectable_planned']:.1f} points planned (worst case), "
        + (
            f"{doc['detectable_measured']:.1f} points measured (the widest interval)."
            if doc["detectable_measured"]
            else ""
        ),
        *(
            [
                f"- Search player {doc['search']} (strategies/search.py: determinized flat Monte Carlo,"
                f" rollouts by its holder's preset): {doc['search_games']:,} fresh games an arm wherever it"
                " holds or is allowed / denied the gene"
                + (
                    f"; against a field of search players (every other seat {doc['search_field']}, rollouts"
                    f" by its own preset) {doc['search_field_games']:,} fresh games an arm."
                    if doc.get("search_field")
                    else "."
                )
            ]
            if doc.get("search")
            else []
        ),
        "- Decks: "
        + (
            "; ".join(f"{k}: {lab}" for k, lab in enumerate(doc["deck_family"]))
            if doc["deck_family"]
            else "the rules' deck only"
        )
        + (
            " (V6 plausible-deck family, deck 0 = the rules' own; every deck plays the same games)"
            if doc["deck_family"]
            else ""
        ),
        "- Readings toggled: "
        + (", ".join(doc["readings"]) if doc["readings"] else "none touch this gene")
        + ".",
        "- Intervals cover sampling noise only; a condition not tried here (another holder, field, deck or "
        "reading) can move the answer (docs/verdicts.md).",
        "",
    ]
    for design, d in doc["designs"].items():
        lines += _design_section(doc, design, d, rows)
    lines += [f"Played in {doc['seconds']:.0f} s (this session). How to read this: docs/verdicts.md.", ""]
    return "\n".join(lines)


def _design_section(
    doc: dict[str, Any], design: str, d: dict[str, Any], rows: list[dict[str, Any]]
) -> list[str]:
    """A design's section of the verdict: its null line, the spread over the decks and the table
    of its rows (one a condition and arm)."""
    lines = [f"## {d['label'].capitalize()}", ""]
    refs = d["references"]
    if "null" in refs:
        lines += [null_line(refs["null"]), ""]
    if d["deck_spread"]:
        lo, hi = d["deck_spread"]
        lines += [
            f"Across the {len(doc['deck_family'])} decks: {100 * lo:+.1f} to {100 * hi:+.1f} points; "
            "same sign on every deck: " + ("yes" if d["same_sign_every_deck"] else "**no**"),
            "",
        ]
    lines += [
        "| condition | kind | arm | estimate [95%] | p | with | without |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["design"] != design:
            continue
        shown = _pts(r) if r["measured"] else f"not measured at this budget ({r['note']}; {_pts(r)})"
        lines.append(
            f"| {r['condition']} | {r['kind']} | {r['arm']} | {shown} | {r['p_value']:.2g} | "
            f"{100 * r['with']:.1f}% | {100 * r['without']:.1f}% |"
        )
    return [*lines, ""]


def null_line(n: dict[str, Any]) -> str:
    """The null gene's check: its reading, how many games it changed, and what that means."""
    ok = n["low"] <= 0 <= n["high"]
    played = n.get("played")  # restricted search: the games the seat played differently
    text = (
        f"Null gene (must read 0; player 0's result differs from the games without it in "
        f"{n['differ']:,} of {n['games']:,} games"
        + (f", its play in {played:,}" if played is not None else "")
        + f"): {_pts(n)}"
    )
    if not n.get("measured", True):
        text += f" (as a gene's option value it would be 'not measured at this budget': {n['note']})"
    if not n["differ"] and not played:
        return text + " — no game differs in this condition (no drawn tie), so it checks nothing here"
    return text + ("" if ok else " **— it does not read 0: distrust this design here**")


OVERVIEW_MD = "overview.md"
OVERVIEW_CSV = "overview.csv"


def overview_row(doc: dict[str, Any]) -> dict[str, Any]:
    """One gene's line of ``soup verdict --all``'s table: its price, the bottom line, holding
    value at the headline with its label and range, its plain card, beyond its card, against its
    price in setup BP, and option value (or why it is not measured)."""
    h = doc["designs"].get("holding", {})
    o = doc["designs"].get("option")
    refs = h.get("references", {})
    b = doc.get("bottom_line") or {}
    option = "—"
    if o:
        option = "not measured at this budget" if not o["headline"]["measured"] else _pts(o["headline"])
    return {
        "gene": doc["gene"],
        "price": doc["price"],
        "bottom_line": b.get("class", "—"),
        "holding": _pts(h.get("headline")),
        "label": h.get("verdict", "—"),
        "range": (f"{100 * h['range'][0]:+.1f} to {100 * h['range'][1]:+.1f}" if h.get("range") else "—"),
        "plain_card": _pts(refs.get("plain")),
        "beyond_card": _pts(h.get("beyond_card"), "ci_low", "ci_high"),
        "versus_price_in_bp": _pts(h.get("versus_bp"), "ci_low", "ci_high"),
        "option": option,
    }


def write_overview(out: Path, docs: list[dict[str, Any]]) -> None:
    """overview.md and overview.csv: one row a gene, sorted by bottom line then holding value."""
    order = {c: k for k, c in enumerate(("too strong", "depends", "about right", "too weak"))}
    docs = sorted(
        docs,
        key=lambda d: (
            order.get((d.get("bottom_line") or {}).get("class", ""), 9),
            -d["designs"].get("holding", {}).get("headline", {}).get("estimate", 0.0),
        ),
    )
    rows = [overview_row(d) for d in docs]
    cols = list(rows[0]) if rows else []
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    text = buf.getvalue()
    write_atomic(out / OVERVIEW_CSV, lambda p: p.write_text(text, encoding="utf-8"))
    first = docs[0] if docs else {}
    md = [
        f"# Verdicts: every gene ({first.get('players', '?')} players)",
        "",
        "Bottom line (docs/verdicts.md): **too strong** = holding it beats holding its price in BP"
        " from setup;"
        " **too weak** = its effect is not shown beyond being a card (a plain card with its numbers);"
        " **about right** = in between; **depends** = the conditions disagree (each gene's verdict.md lists"
        " them). Win-rate points of the holder with 95% intervals (sampling noise only), holder and"
        " conditions as each gene's verdict.md states them; each gene's files are in its own directory.",
        "",
        "| " + " | ".join(cols) + " |",
        "|" + "---|" * len(cols),
        *["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in rows],
        "",
    ]
    body = "\n".join(md)
    write_atomic(out / OVERVIEW_MD, lambda p: p.write_text(body, encoding="utf-8"))


def write_outputs(plan: Plan, doc: dict[str, Any], rows: list[dict[str, Any]], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    fields = [
        "design",
        "kind",
        "condition",
        "arm",
        "reference",
        "estimate",
        "low",
        "high",
        "p_value",
        "with",
        "without",
        "games",
        "differ",
        "measured",
        "note",
    ]
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: (f"{r[k]:.6g}" if isinstance(r[k], float) else r[k]) for k in fields})
    text = buf.getvalue()
    write_atomic(out / RESULT_CSV, lambda p: p.write_text(text, encoding="utf-8"))
    md = markdown(doc, rows)
    write_atomic(out / RESULT_MD, lambda p: p.write_text(md, encoding="utf-8"))
    js = json.dumps(_plain(doc), indent=1)
    write_atomic(out / RESULT_JSON, lambda p: p.write_text(js, encoding="utf-8"))


def _plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items() if k != "seconds"}
    if isinstance(x, list | tuple):
        return [_plain(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x
