"""The runs a game's report is made from, checked before anything is written (game-agnostic): the
run directories given, their manifests' common fields, which runs may be combined (games of one
experiment, none twice), the output directory (never something a report may not replace), reading
them, and the warnings every report gives about them (incomplete runs, small samples). A game's
report adds its own checks of its spec (Ursuppe: variants, seating and decks; Chromosome: its
rules' flags and placeholders)."""

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from analysis import win_rates
from analysis.pages import MARKER
from analysis.tables import plural
from sim import out_dirs
from sim.errors import UserError

SMALL_RUN = 1000  # fewer games per player count than this: wide intervals, say so


class ReportError(UserError):
    """The run directories cannot make a report (the message is one line)."""


def run_dirs(given: Sequence[str | Path]) -> list[Path]:
    """The run directories ``given``, at least one and none twice (its games would count twice)."""
    dirs = [Path(d) for d in given]
    if not dirs:
        raise ReportError("no run directory given")
    if len({d.resolve() for d in dirs}) != len(dirs):
        raise ReportError("the same run directory is given twice (its games would count twice)")
    return dirs


def _spec_problem(spec: dict[str, Any]) -> str | None:
    """What is wrong with the fields every game's spec has, or None."""
    for key in ("players", "seed", "games"):
        if not isinstance(spec.get(key), int) or isinstance(spec.get(key), bool):
            return f"spec.{key}: expected an integer, got {spec.get(key)!r}"
    if spec["games"] < 1:
        return f"spec.games: expected at least 1, got {spec['games']}"
    if not isinstance(spec.get("rules_id"), str):
        return f"spec.rules_id: expected a string, got {spec.get('rules_id')!r}"
    strategies = spec.get("strategies")
    if not isinstance(strategies, list) or not all(isinstance(s, str) for s in strategies):
        return "spec.strategies: expected a list of strategy names"
    return None


def read_manifest(
    run: Path,
    game: str,
    simulate: str,
    spec_problem: Callable[[dict[str, Any]], str | None] | None = None,
) -> dict[str, Any]:
    """The manifest of ``run``, a run of ``game`` (made by the command ``simulate``), checked for
    what every report needs and by ``spec_problem`` (what is wrong with the game's own fields of
    the spec, or None) and against its chunks (chunks_problem); ReportError names the problem."""
    if not run.exists():
        raise ReportError(f"{run}: no such directory (make a run with {simulate})")
    if not run.is_dir():
        raise ReportError(f"{run}: not a directory (expected a run directory made by {simulate})")
    path = run / "manifest.json"
    if not path.exists():
        raise ReportError(f"{run}: not a run directory (no manifest.json; make one with soup simulate)")
    try:
        doc = win_rates.load_manifest(run)
    except (OSError, ValueError) as e:
        raise ReportError(f"{path}: unreadable ({e.__class__.__name__})") from None
    spec = doc.get("spec") if isinstance(doc, dict) else None
    if not isinstance(spec, dict):
        raise ReportError(f"{path}: expected an object with a 'spec' (a manifest written by soup simulate)")
    if spec.get("game") != game:
        raise ReportError(f"{path}: spec.game is {spec.get('game')!r}, expected {game!r}")
    problem = _spec_problem(spec) or (spec_problem(spec) if spec_problem is not None else None)
    if problem:
        raise ReportError(f"{path}: {problem} (a manifest written by soup simulate?)")
    if not isinstance(doc.get("chunks", {}), dict):
        raise ReportError(f"{path}: 'chunks': expected an object")
    problem = chunks_problem(run, doc)
    if problem:
        raise ReportError(
            f"{path}: {problem}: the manifest does not agree with its chunks (edited by hand, or another "
            f"run's?); restore it, or play the run again with {simulate} into a new --out"
        )
    return doc


def chunks_problem(run: Path, doc: dict[str, Any]) -> str | None:
    """What is wrong between a manifest's counts and its chunks, or None (issue 21.4: a manifest
    whose spec.games was edited to 10,000 over 20,000 games of chunks made "20,000 of 10,000
    games analysed", exit 0). Each chunk the manifest lists must sit where the chunk layout puts
    it (sim.runner.ChunkLayout: chunk k holds games k * chunk_size onwards, the last chunk split
    off short when the manifest says "last_chunk", none at or beyond spec.games), hold one row
    per player per game, and its file must say the same (its Parquet footer: rows and the range
    of the game column); the checksums are checked when the chunks are read (sim.runner)."""
    import pyarrow.parquet as pq

    from sim.runner import ChunkLayout, chunk_name, layout_problem

    spec, chunks = doc["spec"], doc.get("chunks", {})
    games, players = spec["games"], spec["players"]
    if not chunks:
        return None
    if "chunk_size" not in doc:
        return "chunk_size: missing (every manifest with chunks records it)"
    problem = layout_problem(doc)
    if problem:
        return problem
    layout, size = ChunkLayout.of_manifest(doc, games), doc["chunk_size"]
    for key, entry in chunks.items():
        if not key.isdigit() or not isinstance(entry, dict):
            return f"chunks.{key}: expected a chunk index and an object"
        k = int(key)
        if k >= layout.n_chunks:
            return f"chunks.{key} lies beyond spec.games = {games:,} (chunk_size {size:,})"
        first, count = layout.first(k), layout.count(k)
        want = {"file": chunk_name(k), "first_game": first, "games": count, "rows": count * players}
        for field, value in want.items():
            if field in entry and entry[field] != value:
                return f"chunks.{key}.{field} is {entry[field]!r}, expected {value!r} (spec.games {games:,})"
        try:
            meta = pq.read_metadata(run / want["file"])
        except Exception:  # noqa: BLE001 (missing or damaged: sim.runner.chunk_files names it)
            continue
        if meta.num_rows != count * players:
            return f"chunks.{key}: {want['file']} holds {meta.num_rows:,} rows, expected {count * players:,}"
        names = meta.schema.to_arrow_schema().names
        if "game" in names and meta.num_row_groups:
            col = names.index("game")
            stats = [meta.row_group(g).column(col).statistics for g in range(meta.num_row_groups)]
            if all(s is not None and s.has_min_max for s in stats):
                low, high = min(s.min for s in stats), max(s.max for s in stats)
                if (low, high) != (first, first + count - 1):
                    return (
                        f"chunks.{key}: {want['file']} holds games {low:,}-{high:,}, expected "
                        f"{first:,}-{first + count - 1:,}"
                    )
    return None


def check_same_rules(manifests: list[dict[str, Any]], compare: str) -> None:
    """Runs of different rules are not one experiment: refused, naming the command ``compare``
    that measures the difference."""
    rules = {m["spec"]["rules_id"] for m in manifests}
    if len(rules) > 1:
        raise ReportError(
            f"the runs use different rules ({', '.join(sorted(rules))}): report each alone, "
            f"or measure the difference with {compare}"
        )


def check_combination(
    manifests: list[dict[str, Any]], dirs: list[Path], design: Sequence[str], differ: str
) -> None:
    """Runs (of the same rules: :func:`check_same_rules`) may be combined when they add games of
    one experiment: per player count the same ``design`` (the spec's keys, named ``differ`` in
    the message), and another seed (game i of seed s is always the same game)."""
    by_players: dict[int, tuple[Path, dict[str, Any]]] = {}
    seen: dict[tuple[int, int], Path] = {}
    for d, m in zip(dirs, manifests, strict=True):
        s = m["spec"]
        wanted = {k: s.get(k) for k in design}
        first = by_players.setdefault(s["players"], (d, wanted))
        if first[1] != wanted:
            raise ReportError(
                f"{first[0]} and {d}: {s['players']}-player runs with different {differ}; report each alone"
            )
        key = (s["players"], s["seed"])
        if key in seen:
            raise ReportError(
                f"{seen[key]} and {d}: the same {s['players']}-player games (same seed {s['seed']}); "
                "give one of them, or make more games with another --seed"
            )
        seen[key] = d


def output_dir(out: str | Path, runs: list[Path]) -> Path:
    """``out`` as an absolute path ("." and ".." get a name, and the temporary sits beside it),
    refused when it would destroy something: a symbolic link, a file, a directory that is not an
    earlier report (it has no MARKER), a run directory itself or a directory holding a run; and
    where it cannot be written (issue 31.7: found after reading every run)."""
    if Path(out).is_symlink():
        raise ReportError(f"--out {out}: is a symbolic link; give the directory itself")
    out = Path(os.path.abspath(out))
    target = out.resolve()
    for run in runs:
        r = run.resolve()
        if target == r or r.is_relative_to(target):
            raise ReportError(f"--out {out}: would replace the run directory {run}; choose another directory")
    if out.exists() and not out.is_dir():
        raise ReportError(f"--out {out}: is a file, expected a directory for the report")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
        raise ReportError(
            f"--out {out}: exists and is not a soup report; choose another directory or remove it"
        )
    # the report is built beside ``out`` and renamed into place: its directory must be writable
    out_dirs.check_writable(out.parent if out.exists() else out)
    return out


def check_some_chunks(manifests: list[dict[str, Any]], dirs: list[Path]) -> None:
    """Refuse runs without a complete chunk among them (nothing to report yet)."""
    if not any(m.get("chunks") for m in manifests):
        raise ReportError(
            f"{', '.join(map(str, dirs))}: no complete chunks yet (is soup simulate still running?)"
        )


@contextmanager
def reading(dirs: list[Path]) -> Iterator[None]:
    """Reading the runs' results: a damaged chunk (sim.runner names it) or another wrong input
    becomes its one-line ReportError, a foreign file among the chunks "no readable results"."""
    try:
        yield
    except ValueError as e:
        raise ReportError(" ".join(str(e).split())) from None
    except Exception as e:  # noqa: BLE001 - foreign files among the chunks
        raise ReportError(
            f"{', '.join(map(str, dirs))}: no readable results ({e.__class__.__name__})"
        ) from None


def run_warning(run: Path, manifest: dict[str, Any], done: int) -> str | None:
    """The warning for a run of which ``done`` games were read: incomplete, or complete but still
    marked running; None when neither."""
    games = manifest["spec"]["games"]
    if done < games:
        return (
            f"**Incomplete run:** `{run.name}` has only {done:,} of {plural(games, 'game')}; this "
            "report covers those. Finish it with the same soup simulate command (it resumes)."
        )
    if manifest.get("status") != "complete":
        return (
            f"**Run still marked running:** `{run.name}` has all {plural(done, 'game')}, but its manifest "
            f"says status {manifest.get('status')!r}: soup simulate may still be writing it, or was "
            "interrupted before its last step."
        )
    return None


def small_samples(games_per_count: dict[int, int], why: str = "Intervals are wide") -> list[str]:
    """A warning per player count with fewer than SMALL_RUN games; ``why`` says what it does to
    the report."""
    return [
        f"**Small sample:** {plural(n, 'game')} with {players} players. {why}. Use 10,000 games or more."
        for players, n in sorted(games_per_count.items())
        if n < SMALL_RUN
    ]
