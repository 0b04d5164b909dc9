"""The report's sections one at a time, on small synthetic frames (no simulation): each section
function writes its own heading, tables and figures, and nothing else."""

import numpy as np
import polars as pl
import pytest

from analysis import report, win_rates
from analysis.report import Report

PNG = b"\x89PNG\r\n\x1a\n"


def _rows(games: int = 400, players: int = 4, seed: int = 0) -> pl.DataFrame:
    """Player rows of ``games`` synthetic games: seat 1 wins a little more often than fair,
    strategies alternate by seat (greedy at even positions, breeder at odd)."""
    rng = np.random.default_rng(seed)
    bias = np.array([1.25] + [1.0] * (players - 1))
    winner = rng.choice(players, size=games, p=bias / bias.sum())
    position = np.tile(np.arange(players), games)
    return pl.DataFrame(
        {
            "game": np.repeat(np.arange(games), players),
            "seed": 1,
            "players": pl.Series(np.full(games * players, players), dtype=pl.Int8),
            "start_space": pl.Series(position + 1, dtype=pl.Int8),
            "strategy": np.where(position % 2 == 0, "greedy", "breeder"),
            "won": position == np.repeat(winner, players),
            "rounds": pl.Series(np.repeat(rng.integers(7, 11, games), players), dtype=pl.Int16),
        }
    )


@pytest.fixture
def rep(tmp_path) -> Report:
    return Report(tmp_path / "r")


def test_seat_section_alone(rep):
    rows = _rows()
    report.section_seats(rep, win_rates.seat_advantage(rows), win_rates.seat_effects(rows, "strategy"))
    md = rep.markdown()
    assert md.startswith("## Seat advantage (S5)")
    assert "### Strategy and start space" in md
    assert "## Win rates by strategy" not in md and "## Headlines" not in md  # only its own section
    assert (rep.root / "figures" / "seat_bias.png").read_bytes()[:8] == PNG
    seats = pl.read_csv(rep.root / "tables" / "seat_advantage.csv")
    assert seats["wins"].sum() == 400  # one winner per game
    assert sorted(p.name for p in (rep.root / "tables").iterdir()) == [
        "seat_advantage.csv",
        "seat_by_strategy.csv",
    ]


def test_strategy_section_alone(rep):
    strategy = win_rates.win_rates(_rows(), ["players", "strategy"])
    report.section_strategy(rep, strategy)
    md = rep.markdown()
    assert md.startswith("## Win rates by strategy")
    assert md.count("| 4 | ") == 2  # breeder and greedy
    assert "figures/win_rate_by_strategy.png" in md
