"""Ursuppe's time by phase (``soup bench --profile``; issue 24): the games of the default strategy
mix are played phase by phase over the whole batch (batch.advance_phase: the same kernels as a
normal run, which plays a group of games phase-major too) and each phase's wall time is summed.
The kernels' self times are sim.profiling's."""

import tempfile
import time
from pathlib import Path

from sim import profiling
from sim.ursuppe.engine import batch as batch_mod
from sim.ursuppe.tools.bench import default_batch, raise_first_error

PHASES = ("setup", "Phase 1", "Phase 2", "Phase 3", "Phase 4", "Phase 5", "Phase 6", "end check")


def phase_seconds(
    players: int, games: int, extra: bool = False, variant: str | None = None
) -> dict[str, float]:
    """Seconds spent in each phase (PHASES) playing ``games`` games of the default mix on one
    thread (``extra``: with the extra genes; ``variant``: a 2-player variant), after 64 games
    that warm it up (the first touch of every kernel and table is not a phase's time)."""
    _measure(players, 64, extra, variant)
    return _measure(players, games, extra, variant)


def _measure(players: int, games: int, extra: bool, variant: str | None) -> dict[str, float]:
    b = default_batch(players, games, 1, "", variant, extra)
    seconds = [0.0] * len(PHASES)
    t = time.perf_counter()
    batch_mod.setup(b, seating="rotate")
    batch_mod.advance_phase(b, 0)  # S6: the initial placements
    seconds[0] = time.perf_counter() - t
    batch_mod.play_rounds(b, phase_seconds=seconds)
    raise_first_error(b)
    return dict(zip(PHASES, seconds, strict=True))


def profile(players: int, games: int, extra: bool = False) -> dict:
    """``soup bench --profile`` for Ursuppe: the phase times and the hot kernels (sim.profiling)."""
    phases = phase_seconds(players, games, extra=extra)
    with tempfile.TemporaryDirectory(prefix="soup-profile-") as tmp:
        files = []
        if extra:  # the profiled process reads its rules from files
            files = [Path(tmp) / "extra_genes.toml"]
            files[0].write_text("[flags]\nextra_genes = true\n", encoding="utf-8")
        doc = profiling.profile("ursuppe", players, games, files, phases)
    doc["extra_genes"] = extra
    return doc
