"""The chunked batch runner (game-agnostic): games in chunks, one Parquet file per chunk, a manifest.

A run is a directory::

    manifest.json             what was run (spec), which chunks are complete, timings
    chunk-000000.parquet      outcome rows of games [0, chunk_size)
    chunk-000001.parquet      ...                 (the last chunk split off short: ChunkLayout)

Every chunk file and the manifest are written to a temporary file and renamed, so an interrupted
run (Ctrl-C, a crash, ``kill -9``) leaves only complete chunks and a manifest that lists exactly
them. The manifest records each chunk's size and SHA-256, so a chunk damaged later (a truncated
copy, a full disk) is found: :func:`open_run` plays it again, :func:`chunk_files` refuses it.

Running the same spec into the same directory again *resumes*: it checks that the spec is the
same and plays only the missing (or damaged) chunks. Since a game depends only on (rules,
strategies, seating, seed, game index), the rows are the same whatever the chunk size, the
thread count or the interruptions. A directory holding another run, or other files, is refused.

A run is opened (:func:`open_run`: every check, nothing written but the directory's lock)
before it is played (:func:`play`), so a caller can show a progress bar only for a run that will
start. A run that fails before its first chunk is complete leaves nothing behind (not even its
manifest). The lock (sim.out_dirs.DirLock, held from open to the end of play, released by the OS
if the process dies) keeps a second process out of a run directory being written: it would
play the same games again and claim them too (issue 31.8).

Chunks are played by a backend (sim.backends: this process's threads, or Ray tasks) while the
runner writes the chunks already played (issue 12); the backend is not part of the spec, so a run
started on one backend resumes on another with the same rows.

A game plugs in with a :class:`GameAdapter`: it names itself, describes its spec, and turns a
range of game indices into a pyarrow Table of outcome rows; it raises
:class:`sim.errors.GameError` for a game that cannot be played (the run stops; that chunk is
not written).
"""

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from sim import out_dirs
from sim.errors import UserError

MANIFEST = "manifest.json"
# The chunk files' form, in every run's spec: 2 writes small-code lists packed (sim.packed, issue
# 36.3). A run of another version is read as it is (read_chunk, scan_chunks) but not resumed: its
# chunks and the new ones would not share a schema.
FORMAT_VERSION = 2
_TEMPORARY = ".tmp-"  # in the names of files being written (see write_atomic)
# Parquet bytes of one outcome row (a player of a game), for the disk a run needs: above every
# game and player count measured (Ursuppe 3 players: 15.5 in 20,000-game chunks, 6 players 11.7;
# Chromosome 5.7, Pig 4, 3 players; small chunks compress less: 18 in 500-game chunks).
BYTES_PER_ROW = 20


# Default games per chunk: DEFAULT_CHUNK_PER_THREAD per thread, within these bounds (issue 12).
DEFAULT_CHUNK_PER_THREAD = 5_000
DEFAULT_CHUNK_MIN = 20_000
DEFAULT_CHUNK_MAX = 200_000


# A run's last chunk is split in two (ChunkLayout), its end a chunk of chunk_size //
# LAST_CHUNK_PART games (issue 36.3): the write of the chunk played last is the one nothing
# overlaps (the engine has finished), so a short last chunk shortens the wait at the end of a run.
LAST_CHUNK_PART = 4


@dataclass(frozen=True)
class ChunkLayout:
    """Which games each chunk of a run holds: ``chunk_size`` games each from game 0, the
    remainder last; with ``last_chunk`` > 0, a last chunk of at least twice as many games gives
    its final ``last_chunk`` games a chunk of their own (the manifest's "last_chunk"; a run
    written before it has none: 0, every chunk whole). Arithmetic, not a list: a run may have
    millions of chunks."""

    games: int
    chunk_size: int
    last_chunk: int = 0

    @classmethod
    def new(cls, games: int, chunk_size: int) -> "ChunkLayout":
        """The layout of a run started now: its last chunk split off short (LAST_CHUNK_PART)."""
        return cls(games, chunk_size, chunk_size // LAST_CHUNK_PART)

    @classmethod
    def of_manifest(cls, doc: dict[str, Any], games: int) -> "ChunkLayout":
        """The layout a run's manifest records (checked by :func:`layout_problem`); a run written
        before the short last chunk has no "last_chunk": every chunk whole."""
        return cls(games, doc["chunk_size"], doc.get("last_chunk", 0))

    @property
    def _whole(self) -> int:  # chunks before the split
        return (self.games + self.chunk_size - 1) // self.chunk_size

    @property
    def _split(self) -> bool:
        tail = self.games - (self._whole - 1) * self.chunk_size
        # no part shorter than last_chunk; a run of no games has no chunk to split
        return self._whole > 0 and 0 < self.last_chunk and 2 * self.last_chunk <= tail

    @property
    def n_chunks(self) -> int:
        return self._whole + self._split

    def first(self, index: int) -> int:
        """The first game of chunk ``index``."""
        if self._split and index == self._whole:
            return self.games - self.last_chunk
        return index * self.chunk_size

    def count(self, index: int) -> int:
        """The games of chunk ``index``."""
        whole = min(self.chunk_size, self.games - index * self.chunk_size)
        if self._split and index >= self._whole - 1:
            return self.last_chunk if index == self._whole else whole - self.last_chunk
        return whole


def layout_problem(doc: dict[str, Any]) -> str | None:
    """What is wrong with a manifest's chunk layout ("chunk_size", "last_chunk": ChunkLayout),
    or None; a key it does not have is not wrong (older runs)."""
    for key, least in (("chunk_size", 1), ("last_chunk", 0)):
        value = doc.get(key, least)
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            return f"{key}: expected an integer of at least {least}, got {value!r}"
    return None


def default_chunk_size(threads: int) -> int:
    """Games per chunk for a run on ``threads`` threads (issue 12; docs/decisions.md).

    A chunk is played by all threads at once and ends when its slowest thread is done (in a local
    run with a writer the next chunk's blocks fill that wait: sim.threads.BlockPool); its rows
    are then built on one core. Both costs are per chunk, while the engine's time for a chunk
    falls with the thread count, so a chunk grows with the threads to keep many cores busy:
    5,000 games per thread, at least 20,000 (below that the fixed costs per chunk show even on
    one thread), at most 200,000 (two chunks are in memory at once: the one being played and
    the one being written).
    """
    return max(DEFAULT_CHUNK_MIN, min(DEFAULT_CHUNK_MAX, DEFAULT_CHUNK_PER_THREAD * max(1, threads)))


class RunError(UserError):
    """A run that cannot start or resume (the message is one line)."""


class GameAdapter(Protocol):
    """What the runner needs from a game (a game's run subclasses :class:`RunAdapter`, which
    declares the optional parts and their defaults)."""

    splits_rows: bool
    reports_games: bool

    def spec(self) -> dict[str, Any]:
        """Everything that determines the results (rules, strategies, seating, seed, players...)."""

    def play_chunk(self, first: int, count: int, threads: int) -> Any:
        """Play games ``first .. first + count - 1`` and return their outcome rows (a pyarrow
        Table); raise :class:`sim.errors.GameError` naming the game if one cannot be played.

        The optional parts (``splits_rows``, ``reports_games``) are :class:`RunAdapter`'s."""


class RunAdapter:
    """The optional parts of a :class:`GameAdapter`, declared with their defaults (issue 35.4): a
    game's run subclasses this and overrides what it gives, so the runner reads a declaration
    instead of probing for methods.

    - ``splits_rows`` (default False): the run splits play_chunk into ``play_games(first, count,
      threads)`` (the engine's part, raising the GameError) and ``chunk_rows(played)`` (the
      Table); the local backend then builds the rows on the runner's writer thread, off the
      engine's path (issue 12). Such a run may also give ``set_up_games(first, count)``, what
      ``play_games(..., set_up=...)`` needs before its engine starts (default None: nothing):
      the local backend sets up the chunk after next on the runner's writer thread while a chunk
      plays, so ``set_up_games`` runs beside ``play_games`` of another chunk and must be safe
      to (what it reads of the run is built before the first chunk, whose set-up is the
      calling thread's). With a writer (and no games reported one by one) the local backend also
      calls chunk k + 1's ``play_games`` from another thread while chunk k's still plays (issue
      36.3, session 10): its engine work goes through ``sim.threads.run_blocks`` with the
      ``threads`` given, which then hands the blocks to the run's one pool behind chunk k's (a
      ``play_games`` that runs threads of its own would oversubscribe the cores), and it should
      make one such call a chunk (a second one may queue behind a later chunk's blocks).
    - ``reports_games`` (default: whether the run has a search seat, ``self.search``): its
      chunk's games finish one by one before the batch (a search player's, strategies/search.py);
      the local backend then passes ``on_game`` to play_chunk / play_games, called in the calling
      thread once per game finished, and the progress bar counts games within a chunk."""

    splits_rows = False
    search: Any = None

    def set_up_games(self, first: int, count: int) -> Any:
        """What play_games needs for games ``first .. first + count - 1`` before its engine
        starts, made ahead of it (``splits_rows`` only; None: nothing, play_games does it all)."""
        return None

    @property
    def reports_games(self) -> bool:
        """A run with a search player finishes its chunk's games one by one."""
        return bool(self.search)


@dataclass
class RunSummary:
    out: Path
    games: int  # games of the run
    chunks: int  # chunks of the run
    chunks_played: int  # chunks played by this call (the others were complete already)
    games_played: int  # games played by this call
    seconds: float  # wall time of this call's playing and writing

    @property
    def games_per_second(self) -> float | None:
        """The rate of the games this call played (None if it played none)."""
        return self.games_played / self.seconds if self.games_played and self.seconds > 0 else None


@dataclass
class OpenedRun:
    """A checked run directory and what is left to play in it (see :func:`open_run`)."""

    adapter: GameAdapter
    out: Path
    games: int
    chunk_size: int
    manifest: dict[str, Any]
    todo: list[int]  # chunk indices still to play, in order
    games_done: int  # games of the chunks that are complete and intact
    fresh: bool  # no run was in ``out`` before (its manifest is written by play)
    created: bool  # ``out`` did not exist (play removes it again if no chunk completes)
    notices: list[str] = field(default_factory=list)  # damaged or missing chunks that are played again
    lock: Any = None  # the directory's sim.out_dirs.DirLock, held until play ends (or release)

    def release(self) -> None:
        """Give up the directory's lock (play does; a caller that does not play calls this)."""
        if self.lock is not None:
            self.lock.release()

    @cached_property
    def layout(self) -> ChunkLayout:
        """Which games each chunk holds, as the manifest records it."""
        return ChunkLayout.of_manifest(self.manifest, self.games)

    @property
    def n_chunks(self) -> int:
        return self.layout.n_chunks

    def chunk_first(self, index: int) -> int:
        return self.layout.first(index)

    def chunk_games(self, index: int) -> int:
        return self.layout.count(index)


def write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write`` on a temporary file beside ``path``, then rename it into place: a reader
    sees the old file or the complete new one, never a half-written one."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}{_TEMPORARY}{os.getpid()}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_json_atomic(path: Path, doc: dict[str, Any], frozen: dict[str, str] | None = None) -> None:
    """Write ``doc`` as JSON (:func:`json_text`) atomically."""
    write_atomic(path, lambda p: p.write_text(json_text(doc, frozen)))


def json_text(doc: dict[str, Any], frozen: dict[str, str] | None = None) -> str:
    """``json.dumps(doc, indent=1)`` and a newline, the values of the keys in ``frozen`` taken from
    it (their ``json.dumps(value, indent=1)``): a run's spec is most of its manifest and does not
    change while the run plays, but indenting it again in Python took 1.3 ms a chunk of the
    writer's time (issue 36.3). ``doc``'s keys are strings (as a manifest's), and a value given in
    ``frozen`` must not change while it is used."""
    frozen = frozen or {}
    items = []
    for key, value in doc.items():
        text = frozen[key] if key in frozen else json.dumps(value, indent=1)
        items.append(f" {json.dumps(key)}: " + text.replace("\n", "\n "))
    return ("{\n" + ",\n".join(items) + "\n}" if items else "{}") + "\n"


def chunk_name(index: int) -> str:
    return f"chunk-{index:06d}.parquet"


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_manifest(out: Path) -> dict[str, Any] | None:
    path = out / MANIFEST
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RunError(f"{path}: unreadable manifest ({e.__class__.__name__}: {e})") from None
    if (
        not isinstance(doc, dict)
        or not isinstance(doc.get("spec"), dict)
        or not isinstance(doc.get("chunks"), dict)
    ):
        raise RunError(f"{path}: not a soup run manifest (expected an object with 'spec' and 'chunks')")
    problem = layout_problem(doc)
    if problem:
        raise RunError(f"{path}: {problem}")
    return doc


def chunk_problem(out: Path, entry: dict[str, Any]) -> str | None:
    """What is wrong with a chunk the manifest lists as complete, or None if it is intact.

    Checked against the size and SHA-256 the manifest recorded when the chunk was written; a
    manifest of an earlier version without them is checked by reading the file's Parquet footer.
    """
    path = out / str(entry.get("file", ""))
    if not path.is_file():
        return "missing"
    size = path.stat().st_size
    if "bytes" in entry:
        if size != entry["bytes"]:
            return f"{size:,} bytes, expected {entry['bytes']:,}"
        if file_sha256(path) != entry.get("sha256"):
            return "its checksum does not match the manifest's"
        return None
    import pyarrow.parquet as pq

    try:
        rows = pq.read_metadata(path).num_rows
    except Exception as e:  # noqa: BLE001 (any unreadable file is a damaged chunk)
        return f"unreadable Parquet ({e.__class__.__name__})"
    return None if rows == entry.get("rows") else f"{rows:,} rows, expected {entry.get('rows')}"


def _is_temporary(path: Path) -> bool:
    return path.name.startswith(".") and _TEMPORARY in path.name


def needed_bytes(games: int, players: int) -> int:
    """About how much disk ``games`` games of ``players`` players take (:data:`BYTES_PER_ROW`)."""
    return games * max(1, players) * BYTES_PER_ROW


def open_run(
    adapter: GameAdapter,
    out: Path,
    games: int,
    chunk_size: int,
    *,
    must_exist: bool = False,
    version: str = "",
) -> OpenedRun:
    """Check ``out`` for a run of ``adapter``'s spec, take its lock and find what is left to
    play; writes nothing else (a refused run leaves ``out`` as it was).

    A new or empty directory starts a run; a directory holding this very run resumes it (a
    missing or damaged chunk is played again, with a notice); anything else is a RunError, and
    so is a directory another process is writing, one that cannot be written, and a run whose
    games would not fit on the disk. ``must_exist`` requires a run to be there already
    (``--resume``). The lock is held until :func:`play` ends (or :meth:`OpenedRun.release`).
    """
    if games < 1:
        raise RunError(f"--games: expected a positive number, got {games}")
    if chunk_size < 1:
        raise RunError(f"--chunk-size: expected a positive number, got {chunk_size}")
    out = Path(out)
    for path in (out, *out.parents):
        if path.exists() and not path.is_dir():
            raise RunError(f"{path}: is a file, not a directory; choose another --out")
    out_dirs.check_writable(out)
    spec = {"format_version": FORMAT_VERSION, **adapter.spec(), "games": games}
    lock = out_dirs.DirLock(out)
    lock.acquire()
    try:
        opened = _open_locked(adapter, out, games, chunk_size, spec, must_exist, version, lock)
    except BaseException:
        lock.release()  # and the directories it made: a refused run leaves nothing behind
        raise
    return opened


def _open_locked(
    adapter: GameAdapter,
    out: Path,
    games: int,
    chunk_size: int,
    spec: dict[str, Any],
    must_exist: bool,
    version: str,
    lock: Any,
) -> OpenedRun:
    """:func:`open_run` once ``out`` is locked (no other process changes it while it is read)."""
    manifest = read_manifest(out)
    notices: list[str] = []
    if manifest is None:
        if must_exist:
            raise RunError(f"{out}: no run to resume (no {MANIFEST}); run without --resume to start one")
        others = sorted(p.name for p in out.iterdir() if not _is_temporary(p) and p.name != out_dirs.LOCK)
        if others:
            shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
            raise RunError(f"{out}: holds other files ({shown}) and no soup run; choose a new or empty --out")
        manifest = {
            "spec": spec,
            "chunk_size": chunk_size,
            "last_chunk": ChunkLayout.new(games, chunk_size).last_chunk,
            "version": version,
            "chunks": {},
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "status": "running",
        }
        fresh = True
    else:
        theirs = manifest["spec"].get("format_version")
        if theirs != spec["format_version"]:
            raise RunError(
                f"{out}: a run of chunk format {theirs}, written by another soup version (this one "
                f"writes format {spec['format_version']}): it reads as it is but cannot be resumed; "
                "choose another --out"
            )
        if manifest["spec"] != spec:
            changed = sorted(
                k for k in set(spec) | set(manifest["spec"]) if spec.get(k) != manifest["spec"].get(k)
            )
            verb = "differs" if len(changed) == 1 else "differ"
            raise RunError(
                f"{out}: holds a different run ({', '.join(changed)} {verb}); "
                "give the same arguments to resume it, or choose another --out"
            )
        chunk_size = manifest.get("chunk_size", chunk_size)  # a run's chunk layout is fixed at its start
        fresh = False
        for key, entry in sorted(manifest["chunks"].items(), key=lambda kv: int(kv[0])):
            problem = chunk_problem(out, entry)
            if problem is not None:
                notices.append(f"{out / str(entry.get('file'))}: {problem}; its games are played again")
                del manifest["chunks"][key]
    manifest.setdefault("chunk_size", chunk_size)  # a manifest from before it was recorded
    opened = OpenedRun(adapter, out, games, chunk_size, manifest, [], 0, fresh, lock.created, notices, lock)
    done = {int(k) for k in manifest["chunks"]}
    opened.games_done = sum(opened.chunk_games(i) for i in done)
    left = games - opened.games_done
    out_dirs.check_room(out, needed_bytes(left, int(spec.get("players", 1))), f"--games {games:,}")
    opened.todo = [i for i in range(opened.n_chunks) if i not in done]
    return opened


def play(
    opened: OpenedRun,
    threads: int,
    progress: Callable[[int, int], None] | None = None,
    backend: Any = None,
) -> RunSummary:
    """Play the chunks of an opened run that are left on ``backend`` (default: this process on
    ``threads`` threads, sim.backends.LocalBackend), writing each chunk and then the manifest.

    Playing and writing overlap (issue 12): one writer thread builds the rows of chunk k (for an
    adapter that splits them off, see sim.backends.LocalBackend), encodes, writes and hashes them
    and lists the chunk in the manifest while the backend plays chunk k + 1, so the cores do not idle
    while a chunk is written. Chunks are written and listed in chunk order, by that one thread,
    each file then the manifest atomically: an interrupt or an error leaves the complete chunks,
    all listed. ``progress(done, total)`` is called in the calling thread after each chunk is
    listed, and, for an adapter that reports games (GameAdapter), after each game finished within
    a chunk (on the local backend); an exception it raises (Ctrl-C) stops the run with every
    listed chunk kept. A GameError names the chunk it stopped in. The directory's lock is
    released when it ends.
    """
    from sim.backends import ChunkWork, LocalBackend
    from sim.errors import GameError

    backend = backend if backend is not None else LocalBackend(threads)
    listing = _Listing(opened, progress)
    t0 = time.perf_counter()
    try:
        _prepare_directory(opened, progress)
        work = [ChunkWork(i, opened.chunk_first(i), opened.chunk_games(i)) for i in opened.todo]
        chunks = backend.play(opened.adapter, work, on_game=listing.on_game, background=listing.writer)
        try:
            for w in work:
                try:
                    chunk = next(chunks)
                except GameError as e:
                    last = w.first + w.count - 1
                    raise GameError(f"{chunk_name(w.index)} (games {w.first}-{last}): {e}") from None
                listing.hand_over(chunk, w.count)
                chunk = None  # the writer holds it now: no third batch alive while the next is set up
            listing.finish_pending()
        finally:
            chunks.close()  # a backend stops the chunks it still plays
        opened.manifest["status"] = "complete"
        opened.manifest["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        write_json_atomic(opened.out / MANIFEST, opened.manifest)
    except BaseException:
        listing.abandon()
        if opened.fresh and not opened.manifest["chunks"]:
            _remove_empty_run(opened.out, opened.created)
        opened.release()
        raise
    listing.writer.shutdown(wait=True)
    opened.release()
    return RunSummary(
        opened.out,
        opened.games,
        opened.n_chunks,
        listing.played,
        listing.games_played,
        time.perf_counter() - t0,
    )


def _prepare_directory(opened: OpenedRun, progress: Callable[[int, int], None] | None) -> None:
    """Create the run's directory, remove what a killed process left half-written and write the
    manifest before the first chunk (and report the games already done)."""
    out = opened.out
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.iterdir():
        if _is_temporary(stale):  # left by a process killed while writing
            stale.unlink(missing_ok=True)
    write_json_atomic(out / MANIFEST, opened.manifest)
    if progress:
        progress(opened.games_done, opened.games)


class _Listing:
    """:func:`play`'s writer: one thread writes each played chunk and lists it in the manifest,
    in chunk order, while the backend plays the next; it counts the games for ``progress``."""

    def __init__(self, opened: OpenedRun, progress: Callable[[int, int], None] | None) -> None:
        from concurrent.futures import Future, ThreadPoolExecutor

        self.opened, self.progress = opened, progress
        self.games_done, self.played, self.games_played = opened.games_done, 0, 0
        self.writing = 0  # games of the chunk handed to the writer, not yet listed
        self.ahead = 0  # games finished within the chunk being played (an adapter that reports games)
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="soup-writer")
        self.pending: Future | None = None
        self.frozen = {"spec": json.dumps(opened.manifest["spec"], indent=1)}  # the same all run

    def commit(self, chunk: Any) -> int:
        """Write a played chunk (sim.backends.PlayedChunk) and list it in the manifest (in the
        writer thread only)."""
        out, manifest = self.opened.out, self.opened.manifest
        w = chunk.work
        data, rows = chunk.encoded()
        name = chunk_name(w.index)
        write_atomic(out / name, lambda p: p.write_bytes(data))
        manifest["chunks"][str(w.index)] = {
            "file": name,
            "first_game": w.first,
            "games": w.count,
            "rows": rows,
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "seconds": round(chunk.seconds, 3),
            "threads": chunk.threads,
        }
        write_json_atomic(out / MANIFEST, manifest, self.frozen)
        return w.count

    def hand_over(self, chunk: Any, count: int) -> None:
        """Give the writer a played chunk of ``count`` games, once the one before is listed (its
        games shown played already if they were reported one by one)."""
        self.finish_pending(count if self.ahead else 0)
        self.ahead = 0
        self.pending = self.writer.submit(self.commit, chunk)
        self.writing = count

    def finish_pending(self, played_too: int = 0) -> None:
        """Wait until the chunk handed to the writer is listed (raising its OSError), then report
        (with ``played_too``, the games of the chunk just played, where they were reported)."""
        if self.pending is None:
            return
        done, self.pending = self.pending, None
        count = done.result()
        self.writing = 0
        self.played += 1
        self.games_played += count
        self.games_done += count
        if self.progress:
            self.progress(self.games_done + played_too, self.opened.games)

    def on_game(self) -> None:
        self.ahead += 1
        if self.progress:
            self.progress(self.games_done + self.writing + self.ahead, self.opened.games)

    def abandon(self) -> None:
        """After an error or an interrupt: a chunk played completely is still written and listed;
        then the writer stops."""
        if self.pending is not None:
            try:
                self.pending.result()
            except Exception:  # noqa: BLE001 (the original error is the one to report)
                pass
        self.writer.shutdown(wait=True)


def _remove_empty_run(out: Path, created: bool) -> None:
    """Undo a run that never completed a chunk: its manifest (and ``out`` if this run made it)."""
    try:
        if created:
            shutil.rmtree(out, ignore_errors=True)
        else:
            (out / MANIFEST).unlink(missing_ok=True)
    except OSError:
        pass  # the original error is the one to report


def run(
    adapter: GameAdapter,
    out: Path,
    games: int,
    chunk_size: int,
    threads: int,
    *,
    must_exist: bool = False,
    progress: Callable[[int, int], None] | None = None,
    version: str = "",
    backend: Any = None,
) -> RunSummary:
    """Open and play a run (see the module docstring): start it, or resume it if ``out`` holds it."""
    opened = open_run(adapter, out, games, chunk_size, must_exist=must_exist, version=version)
    return play(opened, threads, progress, backend)


def chunk_files(out: Path, verify: bool = True) -> list[Path]:
    """The complete chunk files of a run, in order, each checked against the manifest's size and
    checksum (unless ``verify`` is False: the caller has just written or checked them): a damaged
    or missing one is a RunError naming the file."""
    out = Path(out)
    manifest = read_manifest(out)
    if manifest is None:
        raise RunError(f"{out}: no {MANIFEST} (not a soup run directory)")
    files = []
    for _, entry in sorted(manifest["chunks"].items(), key=lambda kv: int(kv[0])):
        problem = chunk_problem(out, entry) if verify else None
        path = out / str(entry.get("file"))
        if problem is not None:
            raise RunError(
                f"{path}: damaged chunk file ({problem}); run the same soup simulate command again "
                "to play its games again"
            )
        files.append(path)
    return files


def read_chunk(path: Path, columns: list[str] | None = None) -> Any:
    """A chunk file's rows as a polars DataFrame (``columns`` only, if given), its packed list
    columns restored (sim.packed): the same frame whatever the run's format version."""
    import polars as pl
    import pyarrow.parquet as pq

    from sim.packed import unpacked

    exprs = unpacked(pq.read_schema(path))
    df = pl.read_parquet(path, columns=columns)
    return df.with_columns(e for e in exprs if e.meta.output_name() in df.columns) if exprs else df


def scan_chunks(files: list[Path]) -> Any:
    """The chunk files of one run as one polars LazyFrame, packed list columns restored (see
    :func:`read_chunk`; a run's chunks share one format, FORMAT_VERSION)."""
    import polars as pl
    import pyarrow.parquet as pq

    from sim.packed import unpacked

    lf = pl.scan_parquet([str(f) for f in files])
    return lf.with_columns(unpacked(pq.read_schema(files[0]))) if files else lf
