"""Gene value under strong play (issue 34; sim/ursuppe/experiments/restricted.py): option value by
restricted search (the same search player allowed vs denied a gene, G1-G4), a search holder in
holding value, and their known truths: the null gene and the plain card read 0, a planted strong
gene reads clearly positive."""

import csv
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from sim.errors import UserError
from sim.game import ReplayBase
from sim.ursuppe.experiments import gene_value as G
from sim.ursuppe.experiments import restricted as R
from sim.ursuppe.experiments import tuning as T
from sim.ursuppe.experiments import verdict as V
from strategies.search import RestrictedSpec, SearchSpec, allowed_options, choose
from tests.test_tuning import soup


def soup_ok(out: Path, *args: str) -> subprocess.CompletedProcess:
    """``soup ARGS --out OUT -q``, which must succeed (its stderr shown when it does not)."""
    r = soup(*args, "--out", str(out), "-q")
    assert r.returncode == 0, r.stderr
    return r


@dataclass(frozen=True)
class _Point:
    index: int
    player: int
    kind: int
    kind_name: str
    options: np.ndarray
    default: int = -1

    def choice(self, i: int) -> tuple:
        return (self.kind, tuple(int(v) for v in self.options[i]))


class _Replay(ReplayBase):
    """Rollouts whose reward is the option's first number: option 3 is best by far."""

    def rollouts(self, tapes, forks=None):
        scores = np.array([[float(t[-1][1][0]), 0.0] for t in tapes])
        won = scores[:, :1] > scores[:, 1:]
        return scores, np.concatenate([won, ~won], axis=1)


def test_a_denied_option_is_never_offered_to_the_search():
    """Restricted play: the search never takes a denied option, however good its rollouts, and
    the policy's own option keeps its place among the rest; a deny that leaves nothing is a bug."""
    point = _Point(0, 0, 7, "buy", np.array([[0], [1], [2], [3]]), default=1)
    free = SearchSpec(budget=16)
    assert choose(_Replay(), [], point, free, 1, 0) == 3
    banned = RestrictedSpec(budget=16, deny=lambda p, i: int(p.options[i][0]) == 3)
    assert allowed_options(point, banned) == [0, 1, 2]
    assert choose(_Replay(), [], point, banned, 1, 0) == 2
    only = RestrictedSpec(budget=16, deny=lambda p, i: i != 1)
    assert choose(_Replay(), [], point, only, 1, 0) == 1  # one option left: taken without rollouts
    with pytest.raises(ValueError, match="deny leaves no option"):
        allowed_options(point, RestrictedSpec(deny=lambda p, i: True))
    # a run's spec (asdict of a plain SearchSpec) reads as before
    assert SearchSpec().__dict__.keys() == {"name", "budget", "rollout", "objective"}


def test_the_deny_predicate_names_the_gene_of_a_buy():
    kind = R.buy_kind()
    deny = R.buys(4)
    point = _Point(0, 0, kind, "buy", np.array([[4, -1, 0], [5, -1, 0], [-1, -1, 0]]))
    assert [deny(point, i) for i in range(3)] == [True, False, False]
    other = _Point(0, 0, kind + 1, "x", point.options)
    assert not deny(other, 0)


def _base(
    gene: str, players: int, games: int, rules=None, search: str = "search-2"
) -> tuple[T.TuneConfig, SearchSpec]:
    plan = V.plan_verdict(
        gene, players, rules, 6, 1, False, 1, 1, ("mix",), ("breeder",), search=search, search_games=games
    )
    cond = plan.option_condition()
    return T.TuneConfig(cond.setting, cond.holder, cond.fld, (), 0, seed=1, eval_games=games), cond.search


@pytest.mark.slow
def test_a_search_game_without_search_decisions_is_the_batch_engines_game():
    """The pairing rests on it: player 0's game replayed through decision points with an empty
    tape is tuning.play_field's game of the same seed and index (the same rows, seats, draws)."""
    base, _ = _base("Tentacle", 3, 6)
    won, _ = T.play_field(base.setting, base.start.vector[None, :], base.fld, 11, 0, 6, 1)
    run = R.FieldRun(base.setting.book, base.setting.rules(), base.start.vector, base.fld, 11)
    for g in range(6):
        assert bool(R._replay(run, g).outcomes([])[1][0, 0]) == bool(won[0, g])


@pytest.mark.parametrize("kind", ["gene", "plain", "null"])
def test_both_arms_are_the_same_search_player(kind):
    """Issue 34.1, "the same search player": both arms play one parameter row, which values the
    studied card (gene, plain card or null gene) at 0 (G1: the seat's rollouts never buy it), every
    other value the unit's own; only the search's options differ (the denied seat is never offered
    a BUY of the card). The prior design (prior=True) gave the allowed row the gene's value."""
    base, spec = _base("Division Rate", 3, 6)
    unit = G.Unit(kind, "Division Rate")
    setting, allowed, denied_row, denied, card = R.restricted_arms(base, unit, spec)
    start = G.unit_players(base, unit).start_vector()
    slot = T.GENE_VALUE_BASE + card
    assert np.array_equal(allowed, denied_row) and allowed[slot] == 0 and start[slot] > 0
    others = np.arange(len(start)) != slot
    assert np.array_equal(allowed[others], start[others])
    assert denied.deny is not None and not isinstance(spec, RestrictedSpec)
    _, prior, _, _, _ = R.restricted_arms(base, unit, spec, prior=True)
    assert np.array_equal(prior, start)


def test_a_budget_too_small_to_leave_the_policy_is_named_in_the_budget_line():
    """Below search-12 the card's option at a BUY of three options never gets the four paired
    rollouts the departure rule needs (strategies/search.py), so the allowed seat, whose rollouts
    never buy the card, plays its policy's game there: the budget line says so before any game."""
    assert R.smallest_budget() == 12 and not R.leaves_policy(8) and R.leaves_policy(16)
    small = V.plan_verdict("Tentacle", 3, games=6, decks=1, with_readings=False, search="search-4")
    assert "search-4 seldom leaves its rollout policy at a BUY" in V.budget_line(small)
    assert "use search-12 or more" in V.budget_line(small)
    enough = V.plan_verdict("Tentacle", 3, games=6, decks=1, with_readings=False, search="search-16")
    assert "seldom leaves" not in V.budget_line(enough)


@pytest.mark.slow
def test_known_truths_under_restricted_search(tmp_path):
    """Issue 34.5 under the same search player (search-16: below search-12 the card's option at
    some BUYs of three to eight options never gets the four paired rollouts it needs to leave the
    policy's choice, so the arms are nearly the policy's games): the null gene and Intelligence's
    plain card read 0 within their intervals on games that differ (a reference whose arms are the
    same games checks nothing), and Intelligence, a card with no effect of its own, within 2
    points of its plain card; Division Rate's plain card, a dear card that does nothing, is not
    clearly negative (a strong player declines it: the prior design, whose allowed seat valued it
    as Division Rate, read -20.8 [-42.3, +0.7] on 24 games, bought it in 60% of 48, and fails
    here); a planted strong gene (Division Rate made free by a house rule, as calibrate's planted
    test) reads clearly positive. The cards of no effect play 12 games an arm (at 24 they read
    the same: 0 in a zero interval but the null's +0.04 [-0.05, +0.13], on 8/5/3 differing games,
    12 games: 2/3/1; the plain Division Rate bought in none, its arms the same games at both); the
    planted gene 24, where its power is: +0.33 [+0.13, +0.54] (at 12: +0.42 [+0.09, +0.74])."""
    base, spec = _base("Intelligence", 3, 12, search="search-16")
    arms = {}
    for kind in ("null", "plain", "gene"):
        m = R.measure_restricted(base, G.Unit(kind, "Intelligence"), spec, tmp_path / "int")
        c = G._contrast(m["won_with"], m["won_without"])
        assert c["ci_low"] <= 0 <= c["ci_high"], (kind, c)
        assert m["differ"] > 0, kind
        arms[kind] = (m["won_with"], m["won_without"])
    # Intelligence has no effect of its own (docs/rules.md): within 2 points of its plain card
    beyond = G.contrast_of_contrasts(arms["gene"], arms["plain"])
    assert abs(beyond["estimate"]) <= 0.02 and beyond["ci_low"] <= 0 <= beyond["ci_high"], beyond
    base, spec = _base("Division Rate", 3, 12, search="search-16")
    m = R.measure_restricted(base, G.Unit("plain", "Division Rate"), spec, tmp_path / "dr")
    c = G._contrast(m["won_with"], m["won_without"])
    assert c["ci_low"] <= 0 <= c["ci_high"] and c["estimate"] > -0.05 and m["bought_with"] < 0.2, c
    rules = tmp_path / "free.toml"
    rules.write_text('[genes."Division Rate"]\nprice = 0\n')
    base, spec = _base("Division Rate", 3, 24, rules, search="search-16")
    m = R.measure_restricted(base, G.Unit("gene", "Division Rate"), spec, tmp_path / "free")
    c = G._contrast(m["won_with"], m["won_without"])
    assert c["ci_low"] > 0 and m["bought_with"] > 0.2, c


SEARCH_SMALL = "--players 3 --decks 1 --no-readings --fields greedy --holders breeder".split()


@pytest.mark.slow
def test_verdict_under_strong_play_end_to_end(tmp_path):
    """Issue 34.1, 34.2, 34.4: the budget line comes before any game with the games, the time and
    both detectable effects; option value is restricted search's, with the null gene's games
    differing (the seat's play: search-16, as search-2 seldom leaves its policy's choice);
    the panel has the strong-play cell and the verdict says whether holding value holds under
    strong play."""
    out = tmp_path / "v"
    r = soup_ok(
        out,
        "verdict", "--gene", "Intelligence", *SEARCH_SMALL, "--games", "24", "--search", "search-16",
        "--search-games", "12", "--search-field", "search-2", "--search-field-games", "6",
    )  # fmt: skip
    first = r.stderr.splitlines()[0]
    assert first.startswith("verdict on Intelligence")
    assert "option value by restricted search: search-16" in first and "games in all" in first
    assert "threads; detectable effect about" in first and "with a search player (12 games an arm" in first
    # the cell against a field of search players: its games and time before any game
    assert (
        "strong play against a field of search players: search-16 vs 2 x search-2, 2 arms x 6 games" in first
    )
    assert "points against the search field (6 games an arm)" in first
    doc = json.loads((out / V.RESULT_JSON).read_text())
    assert doc["designs"]["option"]["label"] == "option value by restricted search"
    assert doc["strong_play"]["cell"] == "mirror" and doc["search_field"] == "search-2"
    text = (out / V.RESULT_MD).read_text()
    assert (
        "holds under strong play" in text and "It rests on the cell against a field of search players" in text
    )
    assert "| strong | Intelligence |" in text and "| mirror | Intelligence |" in text
    rows = [r for r in csv.DictReader((out / V.RESULT_CSV).open()) if r["reference"] == "gene"]
    mirror = [r for r in rows if r["kind"] == "mirror"]
    assert len(mirror) == 1 and int(mirror[0]["games"]) == 6
    assert (
        mirror[0]["condition"]
        == "holder search-16 (search, rollouts by breeder) vs every other seat search-2 "
        "(search, rollouts by breeder)"
    )
    null = doc["designs"]["option"]["references"]["null"]
    assert null["games"] == 12 and null["played"] > 0
    assert "Null gene (must read 0" in text and "its play in" in text
    r = soup("verdict", "--gene", "Intelligence", "--search-field", "breeder", "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "--search-field: expected a search player" in r.stderr and not (tmp_path / "x").exists()


@pytest.mark.slow
def test_a_search_headline_holder_and_a_search_calibration(tmp_path):
    """--holder search-N makes the headline's holder a search player; calibrate's default design
    is restricted search, with the bootstrap interval of paired games."""
    out = tmp_path / "v"
    r = soup_ok(
        out,
        "verdict", "--gene", "Spores", *SEARCH_SMALL, "--games", "24", "--holder", "search-2",
        "--search", "none", "--option-budget", "0", "--search-games", "6",
    )  # fmt: skip
    doc = json.loads((out / V.RESULT_JSON).read_text())
    assert doc["designs"]["holding"]["headline"]["condition"].startswith("holder search-2 vs")
    assert doc["designs"]["holding"]["headline"]["games"] == 6
    out = tmp_path / "c"
    r = soup_ok(
        out,
        "calibrate", "--gene", "Spores", "--players", "3", "--values", "1,5", "--search", "search-2",
        "--search-games", "6",
    )  # fmt: skip
    assert "option value by restricted search (search-2 allowed vs denied)" in r.stderr.splitlines()[0]
    cal = json.loads((out / "calibrate.json").read_text())
    assert cal["measure"] == "option value by restricted search" and len(cal["points"]) == 2


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--search", "breeder"], "--search: expected a search player"),
        (["--holder", "search-0"], "--holder: search-0: expected a budget"),
        (["--option-design", "guess"], "--option-design: expected one of restricted, tuned"),
        (["--search-games", "5"], "--search-games: expected a positive multiple of 6"),
        (["--search", "none"], "--option-design restricted needs a search player"),
        (["--search-field", "breeder"], "--search-field: expected a search player"),
        (["--search-field-games", "8"], "--search-field-games: expected 0 .* or a positive multiple of 6"),
        (["--search-field-games", "-6"], "--search-field-games: expected 0"),
        (
            ["--search", "none", "--option-budget", "0", "--search-field", "search-2"],
            "--search-field: a field",
        ),
    ],
)
def test_bad_strong_play_input_is_one_line(args, words):
    with pytest.raises(UserError, match=words):
        kw = dict(zip([a.lstrip("-").replace("-", "_") for a in args[::2]], args[1::2], strict=True))
        if kw.get("search") == "none":
            kw["search"] = None
        for key in ("search_games", "search_field_games", "option_budget"):
            if key in kw:
                kw[key] = int(kw[key])
        V.plan_verdict("Tentacle", 3, games=6, decks=1, with_readings=False, **kw)


@pytest.mark.slow
def test_a_search_holder_in_the_combos_confirmation_panel(tmp_path):
    """Issue 34.2: --panel-holders search-N: the cell's holder is the search player (its games
    replayed through decision points, the gift player 0's), named as such in the report; a gift's
    arms differ from the baseline's games."""
    import polars as pl

    from sim.ursuppe.experiments import combos
    from sim.ursuppe.experiments import combos_confirm as C

    scan = combos.plan_scan(games=6, observed_games=0, out=tmp_path, only=["Suction 2", "Glutton", "Alarm"])
    config = C.ConfirmConfig(top=1, games=6, fields=("greedy",), holders=("search-2",))
    plan = C.plan_confirmation(scan, config)
    assert plan.cells[0].search.budget == 2 and plan.cells[0].players.holder.name == "breeder"
    table = pl.DataFrame(
        [{"kind": "single", "gene_a": g, "gene_b": None, "gain": 1.0} for g in ("Suction 2",)]
    )
    conf = C.run_confirmation(plan, table, threads=1)
    assert "holder search-2 (search, rollouts by breeder)" in conf.markdown
    with np.load(tmp_path / C.CONFIRM_DIR / "cell-00.npz") as z:
        assert int(z["done"]) == len(z["arms"]) and z["held"][2, 0].any()  # Suction 2 given and held
        assert (z["position"][0] != z["position"][2]).any()
    with pytest.raises(UserError, match="--panel-holders: search-0"):
        C.plan_confirmation(scan, C.ConfirmConfig(top=1, games=6, fields=("greedy",), holders=("search-0",)))


def _actions_seen(replay, decisions: int = 150) -> list[set[int]]:
    """The action codes of player 0's ACTION decisions (its own choices: the policy's), in order."""
    from sim.chromosome.engine.decision_kinds import ACTION

    tape, seen = [], []
    while len(tape) < decisions and (point := replay.point(tape)) is not None:
        if point.kind == ACTION:
            seen.append({int(r[0]) for r in point.options})
        tape.append(point.choice(max(point.default, 0)))
    return seen


@pytest.mark.slow
def test_a_denied_chromosome_action_is_not_among_the_seats_legal_actions():
    """T3, Q6 with Rules.deny_action (issue 34.7): the seat denied Evolution is never offered it
    (nor does its policy take it: the option is not legal for it), Pass stays; undenied, it is."""
    from sim import game as games
    from sim.chromosome.engine.decision_kinds import ACT_EVOLUTION, ACT_EVOLUTION_RANDOM, ACT_PASS
    from sim.chromosome.restrictions import restriction

    g = games.get("chromosome")
    rules = g.load_rules()
    run = g.new_run(rules, 3, 5, strategies="builder,builder,builder")
    evolution = {ACT_EVOLUTION, ACT_EVOLUTION_RANDOM}
    free = _actions_seen(g.replay(run, 1, seats=[0]))
    assert any(s & evolution for s in free)
    denied = _actions_seen(restriction(rules, "evolution").restrict(g.replay(run, 1, seats=[0]), 0))
    assert denied and all(ACT_PASS in s and not s & evolution for s in denied)
    with pytest.raises(UserError, match="--action: expected one of growth, evolution, spark, impulse"):
        restriction(rules, "fly")


@pytest.mark.slow
def test_chromosome_action_verdict_end_to_end(tmp_path):
    """soup verdict --game chromosome --action NAME: the budget line first, the option's paired
    reading, the null reference (A/A on other fork keys) and how often the search took it."""
    out = tmp_path / "v"
    r = soup_ok(
        out,
        "verdict", "--game", "chromosome", "--players", "3", "--action", "evolution", "--search", "search-1",
        "--search-games", "3",
    )  # fmt: skip
    assert r.stderr.startswith("verdict on evolution (chromosome, 3 players): restricted search")
    doc = json.loads((out / "verdict.json").read_text())
    assert doc["option"]["games"] == doc["null"]["games"] == 3 and 0 <= doc["option"]["used"] <= 1
    assert doc["null"]["played"] > 0  # the A/A arms are other games: the null checks something
    assert "Null reference (the same search on other fork keys" in (out / "verdict.md").read_text()
    r = soup(
        "verdict", "--game", "chromosome", "--players", "3", "--action", "fly", "--out", str(tmp_path / "x")
    )
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--action" in r.stderr
    assert not (tmp_path / "x").exists()


def test_strong_play_holds_only_in_sign_and_size():
    """Issue 34.2 with 32.5's size band: the strong-play line says "holds" only when the search
    holder's cell reaches the headline's conclusion at a size within half to double of it; the
    same sign at another size "holds in sign but not in size"; another conclusion "does not hold"
    (Aggression read +57.3 with scripted holders and +12.5 with search-16, 48 games)."""

    def line(head, strong):
        return V.strong_play_line(
            {"strong_play": V.strong_play([_cell("panel", *head, 0.9), _cell("strong", *strong, 0.9)])}
        )

    assert line((0.30, 0.001), (0.20, 0.01)).startswith("Holding value holds under strong play")
    assert "holds in sign but not in size" in line((0.573, 0.001), (0.125, 0.02))
    assert "does not hold under strong play" in line((0.356, 0.001), (0.042, 0.5))
    assert line((0.01, 0.6), (-0.06, 0.4)).startswith("Holding value holds under strong play")


def _cell(kind, estimate, p, without, differ=6, games=48):
    return {
        "design": "holding",
        "reference": "gene",
        "kind": kind,
        "estimate": estimate,
        "p_value": p,
        "low": estimate - 0.05,
        "high": estimate + 0.05,
        "condition": f"{kind} cell",
        "without": without,
        "differ": differ,
        "games": games,
    }


def test_the_strong_play_line_rests_on_the_cell_against_a_search_field():
    """Issue 34.2: with both strong-play cells the line rests on the one against a field of search
    players (no ~90% ceiling) and gives the other's reading and each holder's win rate without
    the gene; without it, on the cell against the default field, saying the other was not played."""
    head = _cell("headline", 0.573, 0.001, 0.39)
    strong = _cell("strong", 0.125, 0.02, 0.90, 6)
    mirror = _cell("mirror", 0.30, 0.001, 0.25, 20)
    sp = V.strong_play([head, strong, mirror])
    assert sp["cell"] == "mirror" and sp["search"] is mirror and sp["holds"]
    line = V.strong_play_line({"strong_play": sp})
    assert line.startswith("Holding value holds under strong play")
    assert (
        "It rests on the cell against a field of search players (its holder wins 25% without the gene" in line
    )
    assert "the cell against the default field reads +12.5 [+7.5, +17.5] (its holder wins 90%" in line
    sp = V.strong_play([head, strong])
    assert sp["cell"] == "strong" and not sp["holds"] and sp["sign_holds"]
    line = V.strong_play_line({"strong_play": sp})
    assert (
        "holds in sign but not in size" in line and "It rests on the cell against the default field" in line
    )
    assert "a field of search players was not played (--search-field-games)" in line
    assert V.strong_play([head]) is None


@pytest.mark.slow
def test_a_field_of_search_players_searches_every_seat_deterministically(monkeypatch):
    """The mirror cell: every seat's decisions are searched (not only player 0's), its rollouts by
    the field's rows, and the games are a pure function of (seed, game index): played twice, the
    same choices at the same decisions and the same results."""
    import strategies.search as S

    base, spec = _base("Aggression", 3, 6)
    fld = T.Field("against", (base.start,) * 2)
    seen: list[tuple[int, int, int]] = []
    choose = S.choose

    def recording(replay, tape, point, spec, seed, game):
        i = choose(replay, tape, point, spec, seed, game)
        seen.append((game, point.player, i))
        return i

    monkeypatch.setattr(S, "choose", recording)
    won, _, _ = R.play_search(base.setting, base.start.vector, spec, fld, 5, 2, field_search=spec)
    first = list(seen)
    assert {p for _, p, _ in first} == {0, 1, 2}
    seen.clear()
    again, _, _ = R.play_search(base.setting, base.start.vector, spec, fld, 5, 2, field_search=spec)
    assert seen == first and (again == won).all()
    seen.clear()
    R.play_search(base.setting, base.start.vector, spec, fld, 5, 2)
    assert {p for _, p, _ in seen} == {0}
    with pytest.raises(ValueError, match="bought"):
        R.play_search(base.setting, base.start.vector, spec, fld, 5, 2, bought=3, field_search=spec)


@pytest.mark.slow
def test_a_calibration_against_a_field_of_search_players(tmp_path):
    """soup calibrate --design holding --holder search-N --search-field search-M (issue 34.2): the
    holder and every other seat are search players, named on the budget line and in the result."""
    out = tmp_path / "c"
    r = soup_ok(
        out,
        "calibrate", "--gene", "Spores", "--players", "3", "--values", "1,5", "--design", "holding",
        "--holder", "search-2", "--search-field", "search-2", "--search-games", "6",
    )  # fmt: skip
    assert "holding value (holder search-2) vs 2 x search-2, 6 fresh games an arm" in r.stderr.splitlines()[0]
    cal = json.loads((out / "calibrate.json").read_text())
    assert cal["condition"].endswith("vs every other seat search-2 (search, rollouts by breeder)")
    assert len(cal["points"]) == 2


def test_a_calibration_field_of_search_players_needs_a_search_holder():
    from sim.ursuppe.experiments import calibrate as C

    for design, holder in (("option", "search-2"), ("holding", "breeder")):
        with pytest.raises(
            UserError, match="--search-field: a field of search players needs --design holding"
        ):
            C.plan_calibration("Spores", "price", [1, 5], design, 3, holder=holder, search_field="search-2")
    with pytest.raises(UserError, match="--search-field: expected a search player"):
        C.plan_calibration("Spores", "price", [1, 5], "holding", 3, holder="search-2", search_field="greedy")
