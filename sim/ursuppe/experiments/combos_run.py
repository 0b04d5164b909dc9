"""Run a combination scan and its confirmation stage (``soup combos``): the plan of
:mod:`sim.ursuppe.experiments.combos` played, confirmed by
:mod:`sim.ursuppe.experiments.combos_confirm`, and written (docs/combos.md)."""

from collections.abc import Callable
from typing import Any

from sim.ursuppe.experiments import combos_confirm
from sim.ursuppe.experiments.combos import (
    OUTCOMES,
    TIMING,
    ComboResult,
    ScanOutcome,
    ScanPlan,
    _observed_from,
    all_gene_names,
    load_kept,
    plan_scan,
    play_scan,
    scan_lines,
    write_report,
    write_scan,
)


def run_combos(
    top: int = 10, threads: int = 1, progress: Callable[[int, int], None] | None = None, confirm: Any = None,
    command: str | None = None, **scan: Any,
) -> ComboResult:  # fmt: skip
    """The whole scan: plan it (``scan``: :func:`plan_scan`'s options, checked there), play every
    arm (baseline, singles, pairs of ``genes``) on games 0..games-1, the observational view
    (``observed_dir``'s normal games, else the baseline arm extended to ``observed_games`` games,
    default OBSERVED_FACTOR x games; 0: none), and write into ``out``: combos.csv (singles and
    pairs), observed.csv, combos.md (the report), combos-heatmap.png and outcomes.npz (the
    per-game outcome vectors of every arm), each atomically. ``holder``/``against``/``pool``: who
    plays (:func:`scan_players`). ``confirm`` (a combos_confirm.ConfirmConfig; None: no
    confirmation stage) re-plays the top arms on fresh seeds under a panel of fields and holders
    after the scan. Bad input raises UserError before any game is played. The same call again
    resumes: finished arms and cells of the same scan (outcomes.npz, confirm/) are not played
    again, and the files come out the same."""
    plan = plan_scan(top=top, **scan)
    confirm_plan = None
    if confirm is not None:
        confirm_plan = combos_confirm.plan_confirmation(plan, confirm)
    return run_plan(plan, top, threads, progress, confirm_plan, command)


def run_plan(
    plan: ScanPlan,
    top: int,
    threads: int,
    progress: Callable[[int, int], None] | None = None,
    confirm_plan: Any = None,
    command: str | None = None,
) -> ComboResult:
    """Play a planned scan (and its confirmation stage) and write the files (:func:`run_combos`)."""
    import time

    from analysis.ursuppe import combos as stats

    out = plan.out
    arms = plan.arms
    games = plan.games
    fp = plan.fingerprint()
    kept, observed = _kept_scan(plan, fp)
    resumed = len(kept.won) if kept is not None else 0
    tables: list[Any] = []
    confirm_total = confirm_plan.total_games_bound() if confirm_plan is not None else 0
    scan_total = plan.total_games()

    def scan_progress(done: int, _total: int) -> None:
        if progress is not None:
            progress(done, scan_total + confirm_total)

    start = time.perf_counter()
    outcome = play_scan(
        plan.rules,
        arms,
        plan.players,
        plan.seed,
        games,
        threads,
        scan_progress,
        _observed_keeper(plan, tables) if plan.observed_games and resumed == 0 else None,
        max(games, plan.observed_games),
        kept,
    )
    seconds = time.perf_counter() - start
    all_arms = len(arms)
    arms = arms[: len(outcome.won)]  # fewer when Ctrl-C ended the scan (play_scan)
    spent = games * len(arms) + max(0, plan.observed_games - games)
    table = stats.combo_table(arms, outcome.won, outcome.position, outcome.held, all_gene_names(plan.book))
    observed, observed_line = _observed_view(plan, tables, observed)
    detectable = stats.detectable_effects(table)
    lines = scan_lines(plan, arms, spent, outcome.won)
    if len(arms) < all_arms:
        lines.append(
            f"INTERRUPTED (Ctrl-C) after {len(arms)} of {all_arms} arms: the tables hold the finished"
            " arms only; "
            + (f"`{command}` resumes the scan" if command else "the same call resumes the scan")
        )
    files = write_scan(plan, arms, outcome, table, observed, observed_line, lines, top, fp)
    result = ComboResult(
        out, table, observed, files, lines, spent, seconds, detectable, len(arms), all_arms, None, resumed
    )
    if confirm_plan is not None and len(arms) == all_arms:
        _confirm_scan(plan, confirm_plan, result, observed_line, top, threads, progress, command)
    from sim.runner import write_json_atomic

    write_json_atomic(
        out / TIMING,
        {
            "scan_seconds": seconds,
            # a resumed scan played only the arms it had not kept (the baseline's extension included)
            "scan_games_played_now": spent if resumed == 0 else games * (len(arms) - resumed),
            "confirm_seconds": result.confirmation.seconds if result.confirmation else None,
            "threads": threads,
        },
    )
    return result


def _kept_scan(plan: ScanPlan, fp: str) -> tuple[ScanOutcome | None, Any]:
    """What an earlier run of the same scan kept (outcomes.npz): its outcomes (None: play from
    the start) and its observational table (None when the plan reads none or it was not kept)."""
    kept_arrays = load_kept(plan.out / OUTCOMES, fp)
    kept = None
    observed = None
    if kept_arrays is not None:
        kept = ScanOutcome(kept_arrays["won"], kept_arrays["position"], kept_arrays["held"])
        if plan.observed_games and plan.observed_rows is None:
            observed = _observed_from(kept_arrays)
            if observed is None:  # the observed rows were not kept: the baseline is played again
                kept = None
    return kept, observed


def _observed_keeper(plan: ScanPlan, tables: list[Any]) -> Callable[[Any], None]:
    """Keeps the baseline's result rows (in ``tables``) for the observational view."""
    import polars as pl

    from sim.ursuppe.simulation import outcome_rows

    def keep(b: Any) -> None:
        rows = pl.from_arrow(outcome_rows(b, plan.seed, plan.players.row_names(), plan.book.rules_id))
        tables.append(rows.select("game", "players", "won", "genes_held"))

    return keep


def _observed_view(plan: ScanPlan, tables: list[Any], observed: Any) -> tuple[Any, str]:
    """The observational table and its line in the report: from the plan's normal games, else
    from the baseline's rows kept in ``tables`` (``observed``: one kept by an earlier run)."""
    import polars as pl

    from analysis.ursuppe import combos as stats

    observed_line = ""
    if plan.observed_rows is not None:
        observed = stats.observed_pairs(
            plan.observed_rows, plan.scanned, plan.rules.players, all_gene_names(plan.book)
        )
        n_observed = (
            plan.observed_rows.filter(pl.col("players") == plan.rules.players).height // plan.rules.players
        )
        observed_line = f"From {plan.observed_dir}: {n_observed:,} games."
    elif plan.observed_games:
        if observed is None:
            observed = stats.observed_pairs(
                pl.concat(tables), plan.scanned, plan.rules.players, all_gene_names(plan.book)
            )
        observed_line = (
            f"From the baseline arm extended to {max(plan.games, plan.observed_games):,} normal games"
            f" (no gift, {plan.players.describe()}, extra genes on)."
        )
    return observed, observed_line


def _confirm_scan(
    plan: ScanPlan,
    confirm_plan: Any,
    result: ComboResult,
    observed_line: str,
    top: int,
    threads: int,
    progress: Callable[[int, int], None] | None,
    command: str | None,
) -> None:
    """The confirmation stage after a finished scan: played into ``result.confirmation``, its
    files added, and the report written again with its headline on top."""
    scan_total = plan.total_games()

    def confirm_progress(done: int, total: int) -> None:
        if progress is not None:
            progress(scan_total + done, scan_total + total)

    result.confirmation = combos_confirm.run_confirmation(
        confirm_plan, result.table, threads, confirm_progress, command
    )
    result.files += result.confirmation.files
    write_report(plan, result.table, result.observed, observed_line, result.lines, top, result.confirmation)
