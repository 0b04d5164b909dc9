"""Figures written to disk (game-agnostic): atomically, like every file soup writes."""

from pathlib import Path

from matplotlib.figure import Figure

from sim.runner import write_atomic


def save_atomic(fig: Figure, path: Path, dpi: int = 110) -> None:
    """Write ``fig`` as PNG to a temporary file beside ``path`` and rename it into place, so an
    interrupted or failed save never leaves a truncated image where a complete one is expected."""
    write_atomic(Path(path), lambda tmp: fig.savefig(tmp, dpi=dpi, bbox_inches="tight", format="png"))
