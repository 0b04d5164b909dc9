"""The gene-balance notebook runs top to bottom (a small simulation) through the analysis API."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.slow  # the slow tier (README); CI runs both

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "gene_balance.ipynb"


def _execute(monkeypatch, tmp_path, **env: str) -> list:
    """Run the notebook on a small simulation of its own (SOUP_NOTEBOOK_* = ``env``); its outputs."""
    for name, value in env.items():
        monkeypatch.setenv(f"SOUP_NOTEBOOK_{name}", value)
    monkeypatch.setenv("SOUP_NOTEBOOK_DIR", str(tmp_path))
    monkeypatch.delenv("SOUP_RESULTS", raising=False)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent.parent)}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    return outputs


def test_gene_balance_notebook_executes(monkeypatch, tmp_path):
    """Every section runs and prints its finding. At 3 players: the verdict cell's search games
    are whole seating blocks (rotate_block: 24 games an arm at 4 players, 6 at 3), and its mirror
    cell seats a search player in every seat, so at 4 players that cell was 3/5 of the test.
    1,000 games (a count the notebook prints with a thousands separator): its verdict cell's
    search games are one block an arm (1,200 played two: about a sixth of the test's time)."""
    outputs = _execute(monkeypatch, tmp_path, GAMES="1000", PLAYERS="3", STRONG_GAMES="16")
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 7  # strategy, seats, length, forest, synergy, timing, deck, Chromosome species
    text = "\n".join(o.get("text", "") for o in outputs)
    assert "1,000 games, 3 players" in text
    assert "WARNING: placeholder environment deck" in text
    assert "Holding value: " in text and "Division Rate" in text  # section 10: a verdict (issue 20.5)
    assert "under strong play" in text and "holder search-4 (search" in text  # its strong-play cell (34)
    # section 11: Chromosome's win rate by species (issue 23.4), its run sized by SOUP_NOTEBOOK_GAMES
    assert "1,000 Chromosome games, 3 players, species mode plain" in text
    assert "placeholders used: " in text and "layouts.3" in text
    # section 12: a skill ladder and a strong field (issue 34.3)
    assert "The strongest rung of the skill ladder (ursuppe, 3 players" in text
    assert "strong field: 16 games, search-4, breeder" in text


def test_gene_balance_notebook_executes_on_a_2_player_variant(monkeypatch, tmp_path):
    """Issue 11: the notebook plays and reads a 2-player variant (SOUP_NOTEBOOK_PLAYERS = 2 with
    SOUP_NOTEBOOK_VARIANT) and names the variant and the placeholders it used."""
    outputs = _execute(monkeypatch, tmp_path, GAMES="1000", PLAYERS="2", VARIANT="double2", STRONG_GAMES="8")
    text = "\n".join(o.get("text", "") for o in outputs)
    assert "1,000 games, 2 players, variant double2" in text
    assert "flags.double2_colour_order" in text
