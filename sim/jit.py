"""One switch for compiling kernels, and the plain-Python path.

Every kernel is decorated with :func:`kernel`. With the environment variable
``NUMBA_DISABLE_JIT=1`` numba leaves every function as plain Python: that is the plain-Python
execution path of the very same code, used for debugging and as the speed baseline
(soup bench). It must be set before ``sim`` is imported, so the plain path is run in
a subprocess.

**One signature per kernel.** Left to itself numba compiles a callee once per combination of
argument types it is called with (int8 from one array, int16 from another, each literal
constant...), which multiplied the compile time of the engine by five. So every kernel gets one
explicit signature, derived from its parameter names: a game's own names, typed by
``sim.<game>.kernel_types.argument_types()`` (``st``, ``ru``, ``wk`` for Ursuppe), a few generic names below,
``BOOLEAN_NAMES`` as booleans, and every other parameter as int64. Arguments of other integer
types are converted at the call. Kernels then compile once, eagerly, at import (or load from the
on-disk cache).

**Big tuples by reference.** A game's state, rules and workspace are NamedTuples of arrays on
the Python side; kernels receive them by reference, because passing a NamedTuple of ~60 arrays to
a kernel that is not inlined copies ~500 machine words per call. The arrays are held by a
StructRef (:class:`TupleReference`), and kernels see it through a :class:`BorrowedReference`: a
bare pointer to the StructRef's fields that carries no reference count. Every kernel call with a
StructRef argument, and every array read from one, cost an atomic increment and decrement of a
reference count (numba's pruning of those pairs fails across calls that may raise): that was more
than half of the engine's run time. The Python side keeps the StructRef alive while kernels run.

**Cached constructors.** Making a StructRef of a NamedTuple's arrays (``proxy(*nt)``) runs
compiled code, and numba's own constructor (``structref.define_proxy``) is compiled without
``cache=True``, in every process: 0.7-1.7 s of CPU per reference type, half of a warm
``soup play`` (issue 31). Here each proxy's constructor is the one function of a small module
generated into the namespace's cache directory and cached like a kernel, so a warm process loads
it (:func:`reference_proxy`). The module is written with the same text and mtime by every process
(numba's cache index checks its source file: its mtime and size, or from numba 0.68 its hash,
memoised by mtime and size), lives and is pruned with the kernels it was made for, and is
registered in ``sys.modules``: the constructor's machine code finds the proxy class by its module
and name.

**Callees by reference.** Stock numba links into every kernel a copy of every kernel it calls,
transitively, and optimises and compiles the whole again: each top-level kernel compiled the
entire engine once more, and two thirds of the first-run compile (~45 s CPU) went on copies.
Here a kernel sees its callees' code only to inline the small ones (``available_externally``),
and calls the rest in their own compiled code, so each kernel's machine code is compiled once:
the first run takes ~15 s, with the same machine code where it matters (same games, same speed).
See :func:`_link_by_reference`; ``SOUP_JIT_LINK=copy`` restores numba's own linking.

**Small kernels inlined on request.** By-reference linking leaves inlining to LLVM's cost model,
which kept as calls some small rule functions that the phases and the strategies call once per
gene, option, arrangement or decision (players.gene_source, feeding._fits, decisions.decide...).
Such a kernel is marked :func:`always_inline` and LLVM inlines it into every caller: that took the
base game from 0.92x to about 1.09x the speed of the revision before the 26 extra genes (an
interleaved A/B of whole games; docs/decisions.md, "Speed"), the same games.

**No numba runtime.** Kernels never allocate, so they are compiled without numba's runtime
(``_nrt=False``): with it, every array argument, array view and array passed on to another kernel
still cost two calls (increment and decrement of a null reference count), 4% of the run time
after the borrowed references. A kernel that allocates fails to compile ("NRT required").

**NumPy's error model.** Kernels compile with ``error_model="numpy"``: a division or a modulo
no longer tests its divisor for zero to raise ZeroDivisionError (a float division by zero gives
inf or nan). No rule divides by zero, and the plain-Python path, which the tests play, still
raises if one ever does. The tests for zero were branches in the hot loops: 1-2% of a game's
time, the same games (issue 24).

**No negative indices.** numba compiles an array index of a signed integer as Python reads it:
a negative one counts from the end, a compare and a select for every index of every access.
Kernels never index with a negative value (a missing neighbour, -1, reads slot ``+ 1`` of a row
whose slot 0 is kept empty; a kernel tests ``a >= 0`` before it indexes by an amoeba), so an
index is compiled as it is (:func:`_index_without_wraparound`): the same games, faster
(docs/profiling.md, "Issue 36.1, session 6", has the figures). A kernel that indexed with -1
would read before the array: the plain-Python path still wraps, so it would play differently
there (tests/test_plain_python.py); compiled with ``NUMBA_BOUNDSCHECK=1`` it raises IndexError;
and ``x[-1]`` in a kernel module is refused by tests/test_jit_indexing.py.

**A callee is defined before its caller.** By-reference linking needs every kernel compiled (or
loaded) before any kernel that calls it, which Python's import order gives as long as a module
defines a kernel above the kernels that call it and imports the modules of the kernels it calls.
A kernel that calls one defined below it fails to compile ("Untyped global name").

**A first compile on every core.** A process that starts a big namespace on a cache that does
not hold it starts helper processes (one per other core, at most three; ``SOUP_JIT_HELPERS=N``
sets how many, 0 none) that import the same kernel modules in other orders, and every process
holds a kernel's lock while it compiles or loads it: each kernel is compiled once, by whichever
process gets there first, and loaded by the others (the symbols are the same in every process,
above). On two cores the first run takes 0.76x as long. See :mod:`sim.jit_sharing`.

**One namespace per game.** A kernel's module names its namespace (:func:`namespace_of`):
``sim.<game>.…`` and ``strategies.<game>.…`` belong to that game, the rest (``sim.random_stream``)
to the kit. Each namespace has its own argument names (``sim.<game>.kernel_types``), its own
cache directory keyed by its own sources, and its own "compiled" marker: editing one game
recompiles that game only.

**Private numba, here only.** This module is the one adapter to numba's internals
(tests/test_layers.py checks no other module imports them): by-reference linking, borrowed
references, the StructRef types (:func:`reference_type`, :func:`reference_proxy`), ``_nrt=False``
and ``no_cfunc_wrapper`` use numba internals (``CPUCodeLibrary._get_module_for_linking``, the
mangler's ``uid``, ``StructRefProxy._meminfo``, ``numba.np.arraymath`` imported without scipy:
:func:`_load_registries_without_scipy`); they were tested up to :data:`TESTED_NUMBA`, and
``pyproject.toml`` bounds numba below the next release. Where the linking hooks are missing the
kernels are linked by numba's own copying, with a warning; ``SOUP_JIT_LINK=copy`` asks for that
path, which tests/test_jit_copy_link.py plays in CI.
"""

import functools
import hashlib
import importlib
import importlib.util
import inspect
import json
import os
import re
import shutil
import sys
import time
import warnings
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import llvmlite
import numba
from numba import types
from numba.core import cgutils
from numba.core.datamodel import models
from numba.core.typing.templates import AttributeTemplate
from numba.extending import NativeValue, infer_getattr, lower_getattr_generic, register_model, unbox

from sim import jit_sharing

PLAIN_PYTHON: bool = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
# The newest numba the suite passed on with by-reference linking (pyproject.toml's upper bound is
# the release after it); a newer numba that lacks the private hooks warns once and links by copy.
TESTED_NUMBA = "0.68"
_KERNEL_PACKAGES = ("sim", "strategies")
_KEEP_CACHES = 3  # per namespace
KIT = "kit"  # the namespace of the game-agnostic kernels
_ROOT = Path(__file__).resolve().parent.parent
# "reference" (see the module docs and _link_by_reference) or "copy" (numba's own linking); part of
# the cache key, since a kernel compiled one way cannot be loaded the other way.
_LINK_MODE = "copy" if os.environ.get("SOUP_JIT_LINK", "reference") == "copy" else "reference"

# An import statement: ``from BASE import NAMES`` (NAMES possibly parenthesised over several lines)
# or ``import MODULES``, at any indentation. Read with a regular expression rather than ``ast``
# because every import of sim.jit (every command) scans the packages: parsing them costs ~80 ms,
# this ~2 ms. Text that merely looks like an import (in a docstring) only adds a file to the hash.
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<base>\.*[\w.]*)[ \t]+import[ \t]+(?P<names>\([^)]*\)|[^\n#;]*)"
    r"|import[ \t]+(?P<modules>[^\n#;]+))",
    re.MULTILINE,
)
_KERNEL_DEF = re.compile(r"^@kernel[ \t]*\n(?:@[^\n]*\n)*def[ \t]+(\w+)", re.MULTILINE)
_COMMENT = re.compile(r"#[^\n]*")
_REGISTERS = re.compile(r"^def argument_types\(", re.MULTILINE)  # a game's kernel_types module


def _module_files(root: Path) -> dict[str, Path]:
    """Every module of the kernel packages by dotted name (a package by its ``__init__.py``)."""
    files = {}
    for package in _KERNEL_PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            files[".".join(parts)] = path
    return files


def _imported_modules(
    text: str, name: str, is_package: bool, modules: dict[str, Path], at_import: bool = False
) -> set[str]:
    """The project modules that module ``name`` (source ``text``) imports anywhere in its body,
    with the packages whose ``__init__`` each import runs; ``at_import``: only those it imports
    when it is imported (an unindented statement: not a function's, not ``if TYPE_CHECKING``)."""
    found = set()
    for match in _IMPORT.finditer(_COMMENT.sub("", text)):
        if at_import and match[0][:1] in (" ", "\t"):
            continue
        if match["modules"] is not None:  # import a.b, c as d
            targets = [part.split()[0] for part in match["modules"].split(",") if part.strip()]
        else:
            base = match["base"]
            level = len(base) - len(base.lstrip("."))
            if level:  # relative: from the module's own package, up level - 1
                package = name.split(".") if is_package else name.split(".")[:-1]
                package = package[: len(package) - (level - 1)]
                base = ".".join(package + ([base[level:]] if base[level:] else []))
            names = match["names"].strip("()").split(",")
            targets = [base] + [f"{base}.{part.split()[0]}" for part in names if part.strip()]
        for target in targets:
            parts = target.split(".")
            found.update(m for m in (".".join(parts[:i]) for i in range(1, len(parts) + 1)) if m in modules)
    return found


def namespace_of(module: str, root: Path | None = None) -> str:
    """The jit namespace of a module: the game whose package holds it (``sim.<game>.…`` or
    ``strategies.<game>.…``), or ``kit`` for the game-agnostic modules (``sim.random_stream``).
    Each namespace has its own argument types and its own cache directory and key."""
    parts = module.split(".")
    if (
        len(parts) > 2
        and parts[0] in _KERNEL_PACKAGES
        and _is_directory(_ROOT if root is None else root, *parts[:2])
    ):
        return parts[1]
    return KIT


@functools.cache
def _is_directory(root: Path, package: str, sub: str) -> bool:
    return (root / package / sub).is_dir()


_PARSED: dict[Path, tuple] = {}  # the installed tree's modules, read once a process


def _parse(root: Path) -> tuple[dict[str, Path], dict[str, str], dict[str, set[str]]]:
    """Every module of the kernel packages: its file, its text (comments dropped) and the project
    modules it imports. The installed tree is read once a process (every command asks for several
    namespaces' keys); another root (a test's copy, edited between calls) is read every time."""
    if root == _ROOT and root in _PARSED:
        return _PARSED[root]
    modules = _module_files(root)
    texts = {name: _COMMENT.sub("", path.read_text(encoding="utf-8")) for name, path in modules.items()}
    imports = {
        name: _imported_modules(text, name, modules[name].name == "__init__.py", modules)
        for name, text in texts.items()
    }
    if root == _ROOT:
        _PARSED[root] = (modules, texts, imports)
    return modules, texts, imports


def _scan(root: Path, namespace: str | None = None) -> tuple[list[Path], frozenset[tuple[str, str]]]:
    """The files the compiled kernels of ``namespace`` (None: every namespace) can depend on,
    and the kernels they define (``(module, function)`` of every function decorated ``@kernel``).

    The files: the modules of the namespace that define kernels or register kernel argument
    types, ``sim.jit`` itself, the project modules they import, transitively (their constants
    are frozen into the machine code; NamedTuple and StructRef field types make the signatures),
    and the data files beside those modules (the rules file whose values make the types of the
    rules' fields). A game's files include the kit modules it imports (its kernels call theirs),
    never another game's: editing one game recompiles that game only. Python-side modules that
    only call kernels (the runner, the simulation, bench, trace, scenario, analysis, the CLI) are
    left out: editing one keeps the compiled engine.
    """
    modules, texts, imports = _parse(root)
    pending = [
        name
        for name, text in texts.items()
        if (_KERNEL_DEF.search(text) or _REGISTERS.search(text))
        and (namespace is None or namespace_of(name, root) == namespace)
    ]
    pending.append("sim.jit")
    closure: set[str] = set()
    while pending:
        name = pending.pop()
        if name not in closure:
            closure.add(name)
            pending.extend(imports[name])
    files = {modules[name] for name in closure}
    for directory in {path.parent for path in files}:
        files.update(p for p in directory.iterdir() if p.is_file() and p.suffix not in (".py", ".pyc"))
    kernels = frozenset(
        (name, fn)
        for name in closure
        if namespace is None or namespace_of(name, root) == namespace
        for fn in _KERNEL_DEF.findall(texts[name])
    )
    return sorted(files), kernels


def namespaces(root: Path | None = None) -> list[str]:
    """Every namespace that defines kernels: ``kit`` and the games'."""
    root = _ROOT if root is None else root
    found = {namespace_of(name, root) for name, fn in _scan(root)[1]}
    return sorted(found | {KIT})


def _kernel_files(root: Path, namespace: str | None = None) -> list[Path]:
    """The files the compiled kernels of ``namespace`` can depend on (see :func:`_scan`)."""
    return _scan(root, namespace)[0]


def _source_hash(files: list[Path], root: Path) -> str:
    versions = f"numba {numba.__version__} llvmlite {llvmlite.__version__} link {_LINK_MODE}"
    h = hashlib.sha256(versions.encode())
    for path in files:
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()[:16]


_HASHES: dict[str | None, str] = {}  # the installed tree's hash of each namespace, made once


def _kernel_source_hash(root: Path | None = None, namespace: str | None = None) -> str:
    """A hash of the files the kernels of ``namespace`` (None: all) depend on
    (:func:`_kernel_files`) and of numba's version."""
    root = _ROOT if root is None else root
    if root != _ROOT:
        return _source_hash(_kernel_files(root, namespace), root)
    if namespace not in _HASHES:
        _HASHES[namespace] = _source_hash(_kernel_files(root, namespace), root)
    return _HASHES[namespace]


_MARKER = "engine-complete.json"
_CACHE_NAME = re.compile(r"(?P<namespace>\w+)-[0-9a-f]{16}")
_SEEN_KERNELS: set[tuple[str, str]] = set()  # every kernel compiled or loaded in this process
_COMPILED_KERNELS = 0  # of those, compiled here rather than loaded from the cache
_ANNOUNCED: set[str] = set()  # namespaces whose compile notice was considered in this process


class _Namespace:
    """One namespace's cache directory, the kernels its sources define, and those this process
    has compiled or loaded so far (its cache is complete once all are there)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.expected = _scan(_ROOT, name)[1]
        self.directory = _use_source_keyed_cache(name, _kernel_source_hash(_ROOT, name))
        self.seen: set[tuple[str, str]] = set()
        self.compiled = 0
        self.first: float | None = None  # when its first kernel was compiled or loaded here
        # compiled together with helper processes (sim.jit_sharing): None until its first kernel
        self.shared: bool | None = None
        self.fresh = False  # its cache directory held no kernel when this process started it
        self.helpers: list = []
        self.whole = False  # the kit: every one of its kernel modules was imported (_load_whole_kit)


_SPACES: dict[str, _Namespace] = {}


def _space(name: str) -> _Namespace:
    if name not in _SPACES:
        _SPACES[name] = _Namespace(name)
    return _SPACES[name]


def soup_cache_dir() -> Path:
    """soup's directory of the user's cache (compiled kernels, soup bench's compared revisions)."""
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "soup"


def _cache_base() -> Path:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    return soup_cache_dir() / "numba"


def _use_source_keyed_cache(namespace: str, source_hash: str) -> Path | None:
    """The cache directory of a namespace's kernels, named by the namespace and the hash of its
    sources (None if it cannot be made: numba then uses its default locations).

    numba's ``cache=True`` revalidates a cached kernel by its own file only, so a kernel whose
    callee in another module changed would load stale machine code. Keying a namespace's cache by
    its sources makes any change to them start a clean cache, and a change to one game leaves
    the others' caches as they were. The directories are under ``NUMBA_CACHE_DIR`` if that is
    set, else ``~/.cache/soup/numba``; the :data:`_KEEP_CACHES` most recently used of each
    namespace are kept.
    """
    base = _cache_base()
    target = base / f"{namespace}-{source_hash}"
    try:
        target.mkdir(parents=True, exist_ok=True)
        os.utime(target)  # most recently used
        old = sorted(
            (
                d
                for d in base.iterdir()
                if d.is_dir()
                and d != target
                and (m := _CACHE_NAME.fullmatch(d.name)) is not None
                and m["namespace"] == namespace
            ),
            key=lambda d: d.stat().st_mtime,
        )
        for d in old[: max(0, len(old) - (_KEEP_CACHES - 1))]:
            shutil.rmtree(d, ignore_errors=True)
    except OSError:
        return None
    return target


def cache_directories() -> dict[str, Path]:
    """The cache directory of every namespace this process has compiled or loaded kernels of."""
    return {name: space.directory for name, space in _SPACES.items() if space.directory is not None}


def expected_kernels(namespace: str | None = None) -> frozenset[tuple[str, str]]:
    """The kernels (module, function) a namespace's sources define (None: every namespace's)."""
    return _scan(_ROOT, namespace)[1]


def engine_compiled(names: tuple[str, ...] | None = None) -> bool:
    """Whether the on-disk cache holds every kernel of the namespaces ``names`` (None: every
    game's and the kit's) compiled from the current sources, so that importing the engine loads
    it rather than compiles it (cheap: no kernel is imported).

    True in the plain-Python path (nothing compiles). Call it before importing an engine to
    tell the user about a first-run compile (:func:`expected_compile_seconds`).
    """
    if PLAIN_PYTHON:
        return True
    for name in namespaces() if names is None else names:
        directory = _cache_base() / f"{name}-{_kernel_source_hash(_ROOT, name)}"
        if not (directory / _MARKER).is_file():
            return False
    return True


def expected_compile_seconds(namespace: str | None = None) -> float | None:
    """How long compiling ``namespace`` takes here: its last full compile recorded on this machine
    (any version of its sources; None: the last of any namespace), else None: a figure measured
    elsewhere would be a promise this machine may not keep (issue 21.10: "about 15 s", then 63 s),
    and so would another namespace's (issue 31.10: Chromosome's first compile quoted Ursuppe's)."""
    try:
        markers = sorted(_cache_base().glob(f"*/{_MARKER}"), key=lambda p: p.stat().st_mtime, reverse=True)
        for marker in markers:
            match = _CACHE_NAME.fullmatch(marker.parent.name)
            if namespace is not None and (match is None or match["namespace"] != namespace):
                continue
            seconds = json.loads(marker.read_text(encoding="utf-8")).get("compile_seconds")
            if isinstance(seconds, int | float) and seconds > 0:
                return float(seconds)
    except (OSError, ValueError):
        return None
    return None


def package_namespace(package: str) -> str:
    """The namespace of the kernels under ``package`` (a game's ``GameInfo.kernel_packages``)."""
    return namespace_of(f"{package}.__init__")


def compile_expectation(namespaces: list[str]) -> float | None:
    """How long compiling ``namespaces`` takes here: the sum of their last full compiles on this
    machine, None if one of them was never recorded (the notice then says it does not know)."""
    figures = [expected_compile_seconds(name) for name in namespaces]
    return None if any(f is None for f in figures) else sum(f for f in figures if f is not None)


def _maybe_announce(namespace: str) -> None:
    """Before a namespace's first kernel: if the cache does not hold it, the kit or the game the
    command loads (sim.compile_notice.game), call sim.compile_notice.callback (the command line's
    "compiling the engine" notice) with how long those that are missing took last time, whichever
    import got here first, so that the notice is the first thing a first run prints (issue 21.10)."""
    if namespace in _ANNOUNCED:
        return
    _ANNOUNCED.add(namespace)
    from sim import compile_notice

    if compile_notice.callback is None or compile_notice.announced_at is not None:
        return
    game = [package_namespace(p) for p in compile_notice.kernel_packages]
    missing = [n for n in dict.fromkeys([*game, namespace, KIT]) if not engine_compiled((n,))]
    if missing:
        compile_notice.announced_at = time.perf_counter()
        compile_notice.callback(compile_expectation(missing), compile_notice.game)


def _note_kernel(fn, compiled, space: _Namespace) -> None:
    """Count a kernel compiled or loaded; once every kernel of its namespace is, mark the
    namespace's cache complete (:func:`engine_compiled`), with the time a full compile took."""
    global _COMPILED_KERNELS
    misses = sum(compiled.stats.cache_misses.values())
    _SEEN_KERNELS.add((fn.__module__, fn.__name__))
    _COMPILED_KERNELS += misses
    space.seen.add((fn.__module__, fn.__name__))
    space.compiled += misses
    if space.directory is None or not space.expected <= space.seen:
        return
    space.helpers = [h for h in space.helpers if h.poll() is None]  # reap those that ended
    marker = space.directory / _MARKER
    if marker.exists():
        return
    # a first compile shared with helpers counts as one (its time is that of a first run)
    full = space.compiled >= len(space.expected) or (bool(space.shared) and space.fresh)
    record = {
        "kernels": len(space.seen),
        "compiled_here": space.compiled,
        "compile_seconds": round(time.perf_counter() - (space.first or 0.0), 1) if full else None,
    }
    try:
        partial = marker.with_name(f"{_MARKER}.{os.getpid()}")
        partial.write_text(json.dumps(record), encoding="utf-8")
        os.replace(partial, marker)
    except OSError:
        pass


_KIT_TYPES: dict[str, types.Type] = {
    # game-agnostic names (random streams, small scratch rows, board tables)
    "x": types.uint64,
    "seed": types.uint64,
    "key": types.Array(types.uint64, 2, "C"),
    "ctr": types.Array(types.uint64, 2, "C"),
    "games": types.Array(types.int64, 1, "C"),
    "draws": types.Array(types.int64, 2, "C"),
    "row": types.Array(types.int32, 1, "C"),
    "cards": types.Array(types.int8, 1, "C"),  # a game's row of a deck (random_stream.shuffle)
    "neighbours": types.Array(types.int8, 2, "C"),
    # narrow views of a game state that hot helpers take instead of the whole tuple (a call that
    # is not inlined costs ~140 ns with the whole state, a few ns with one array)
    "positions": types.Array(types.int8, 3, "C"),
    "food": types.Array(types.int16, 3, "C"),
    "options": types.Array(types.int32, 3, "C"),
    # a game's event log (sim.event_log.append_event): its rows, their count, its error slots
    "events": types.Array(types.int32, 3, "C"),
    "n_events": types.Array(types.int32, 1, "C"),
    "error": types.Array(types.int32, 2, "C"),
}
BOOLEAN_NAMES = frozenset({"descending", "escape", "own_allowed", "armor_allowed", "spores", "anywhere"})


class TupleReference(types.StructRef):
    """Base numba type of a by-reference view of a NamedTuple of arrays (see module docs).

    A game registers one subclass per NamedTuple (``structref.register``) and passes instances to
    its kernels as :class:`BorrowedReference`: a call then moves one pointer instead of every
    array's shape, strides and data pointer, which is what made calls between kernels cost
    ~140 ns. Inside the kernels the fields are the very same numpy arrays (and scalars) as in the
    NamedTuple.
    """

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


def reference_type(cls: type) -> type:
    """Register a :class:`TupleReference` subclass with numba (a StructRef type): a game's state
    module decorates one module-level class per NamedTuple it passes by reference."""
    from numba.experimental import structref

    return structref.register(cls)


def reference_proxy(struct_type: type, fields: "tuple[str, ...] | list[str]") -> type:
    """The Python-side proxy class of a registered reference type with these fields: an instance
    made of a NamedTuple's arrays (``proxy(*nt)``) is what :class:`Borrowed` wraps.

    Its constructor is a kernel cached like the others (:func:`_constructor_module`), so that a
    warm process loads it rather than compiles it; where the namespace has no cache directory,
    numba's own constructor, compiled in every process."""
    from numba.experimental import structref

    fields = list(fields)
    name = f"{struct_type.__name__}Proxy"
    space = _space(namespace_of(struct_type.__module__))
    module = _constructor_module(space.directory, struct_type, name, fields)
    if module is None:
        proxy = type(name, (structref.StructRefProxy,), {"__module__": __name__})
        structref.define_proxy(proxy, struct_type, fields)
        return proxy
    constructor = None  # decorated below, once the proxy class it builds exists

    def new(cls, *values):
        if constructor.overloads:  # compiled or loaded in this process already
            return constructor(*values)
        if not jit_sharing.available():
            return constructor(*values)
        # like a kernel's: a process that compiles it on a cold cache, the others wait and load it
        with jit_sharing.kernel_lock(space.directory, module.__name__):
            return constructor(*values)

    # found by its module and name: the boxing code pickles the class by reference into the
    # cached machine code, so that a process loading it builds instances of this very class
    proxy = type(name, (structref.StructRefProxy,), {"__module__": module.__name__, "__new__": new})
    setattr(module, name, proxy)
    structref.define_proxy(proxy, struct_type, fields)
    _install_linking()
    numba.config.CACHE_DIR = str(space.directory)  # read when the constructor is decorated
    constructor = numba.njit(cache=True, nogil=True)(module.construct)
    return proxy


_CONSTRUCTORS = "constructors"  # the generated constructor modules, in a namespace's cache directory


def _constructor_module(directory: Path | None, struct_type: type, proxy: str, fields: list[str]):
    """The module of the cached constructor of ``struct_type``'s proxy class (named ``proxy``),
    generated into the namespace's cache ``directory`` and imported under a name of its own (None
    where it cannot be written): see "Cached constructors" in the module docs."""
    if directory is None:
        return None
    name = f"_soup_{struct_type.__module__.replace('.', '_')}_{struct_type.__name__}"
    params = ", ".join(fields)
    text = (
        f'"""The cached constructor of {struct_type.__module__}.{struct_type.__name__}\'s proxy '
        f'class, {proxy}\n(generated by sim.jit.reference_proxy; do not edit)."""\n\n\n'
        f"def construct({params}):\n    return {proxy}({params})\n"
    )
    path = directory / _CONSTRUCTORS / f"{name}.py"
    try:
        _write_once(path, text.encode())
    except OSError:
        return None
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == str(path):
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _write_once(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` with an mtime derived from ``data``, unless it is there already:
    the file's (mtime, size) stay the same whichever process writes it, and whenever."""
    mtime = 1_000_000_000 + zlib.crc32(data) % 100_000_000
    try:
        stat = path.stat()
        if stat.st_mtime == mtime and stat.st_size == len(data) and path.read_bytes() == data:
            return
    except FileNotFoundError:
        pass
    path.parent.mkdir(exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}")
    partial.write_bytes(data)
    os.utime(partial, (mtime, mtime))
    os.replace(partial, path)


class BorrowedReference(types.Type):
    """The kernels' type of a :class:`TupleReference`: a borrowed pointer to its fields.

    It is not reference counted, and an array read from it comes with no reference count either
    (a null meminfo, which numba's increments and decrements skip): the fields stay alive because
    the Python caller holds the StructRef (:class:`Borrowed`) for the whole call.
    """

    def __init__(self, struct_type: TupleReference):
        self.struct_type = struct_type
        super().__init__(name=f"Borrowed[{struct_type}]")

    @property
    def field_dict(self):
        return self.struct_type.field_dict


class Borrowed:
    """A StructRef proxy passed to kernels as a :class:`BorrowedReference` (keeps it alive)."""

    __slots__ = ("reference", "_data", "_numba_type_")

    def __init__(self, reference, numba_type: BorrowedReference):
        self.reference = reference
        self._data = reference._meminfo.data  # the address of the StructRef's fields
        self._numba_type_ = numba_type


if not PLAIN_PYTHON:

    @register_model(BorrowedReference)
    class _BorrowedModel(models.StructModel):
        def __init__(self, dmm, fe_type):
            super().__init__(dmm, fe_type, [("data", types.voidptr)])

    @unbox(BorrowedReference)
    def _unbox_borrowed(typ, obj, c):
        # The fields' address as a plain integer: no reference is taken (the caller's Borrowed
        # keeps the StructRef alive), so this needs no numba runtime (kernels compile without).
        address_obj = c.pyapi.object_getattr_string(obj, "_data")
        address = c.unbox(types.uintp, address_obj).value
        c.pyapi.decref(address_obj)
        ref = cgutils.create_struct_proxy(typ)(c.context, c.builder)
        ref.data = c.builder.inttoptr(address, ref.data.type)
        return NativeValue(ref._getvalue())

    @infer_getattr
    class _BorrowedAttribute(AttributeTemplate):
        key = BorrowedReference

        def generic_resolve(self, typ, attr):
            return typ.field_dict.get(attr)

    @lower_getattr_generic(BorrowedReference)
    def _borrowed_getattr(context, builder, typ, val, attr):
        ref = cgutils.create_struct_proxy(typ)(context, builder, value=val)
        payload_model = context.data_model_manager[typ.struct_type.get_data_type()]
        payload = builder.bitcast(ref.data, payload_model.get_value_type().as_pointer())
        field = cgutils.gep_inbounds(builder, payload, 0, payload_model.get_field_position(attr))
        value = builder.load(field)
        # Kernels never replace a field (they write into its arrays): marking the load invariant
        # lets LLVM keep an array's data pointer and shape in registers across stores into other
        # arrays, instead of reloading them in every loop iteration.
        value.set_metadata("invariant.load", builder.module.add_metadata([]))
        field_type = typ.field_dict[attr]
        if isinstance(field_type, types.Array):
            array = context.make_array(field_type)(context, builder, value=value)
            array.meminfo = cgutils.get_null_value(array.meminfo.type)
            value = array._getvalue()
        return value


# Each game's own argument names (its state tuples...), by namespace (see namespace_of).
_GAME_TYPES: dict[str, dict[str, types.Type]] = {}
KERNEL_TYPES_MODULE = "kernel_types"  # sim.<game>.kernel_types.argument_types(): a game's names


def argument_types(namespace: str) -> dict[str, types.Type]:
    """The numba types of a namespace's own parameter names: ``sim.<game>.kernel_types``'s
    ``argument_types()``, asked once, before the namespace's first kernel compiles (none for the
    kit, or a game without such a module). Games never see each other's names; the kit's names
    hold for all."""
    if namespace not in _GAME_TYPES:
        try:
            module = importlib.import_module(f"sim.{namespace}.{KERNEL_TYPES_MODULE}")
        except ModuleNotFoundError:
            _GAME_TYPES[namespace] = {}
        else:
            _GAME_TYPES[namespace] = dict(module.argument_types())
    return _GAME_TYPES[namespace]


def _signature(fn) -> tuple[types.Type, ...]:
    own = argument_types(namespace_of(fn.__module__))
    sig = []
    for name in inspect.signature(fn).parameters:
        if name in own:
            sig.append(own[name])
        elif name in _KIT_TYPES:
            sig.append(_KIT_TYPES[name])
        elif name in ("st", "ru", "wk"):
            raise RuntimeError(
                f"{fn.__module__}.{fn.__qualname__}: parameter {name!r} has no type in namespace "
                f"{namespace_of(fn.__module__)!r} (sim.<game>.{KERNEL_TYPES_MODULE}.argument_types)"
            )
        elif name in BOOLEAN_NAMES:
            sig.append(types.boolean)
        else:
            sig.append(types.int64)
    return tuple(sig)


# Kernels linked by reference: the qualified names of the kernels (their symbols carry no
# per-process number), and the symbols of those compiled in this process.
_KERNEL_NAMES: set[str] = set()
_KERNEL_SYMBOLS: set[str] = set()
# Kernels marked with always_inline, by qualified name, and the symbols of those compiled here.
_INLINE_NAMES: set[str] = set()
_INLINE_SYMBOLS: set[str] = set()


def _link_by_reference() -> bool:
    """Give each kernel its callees' code for inlining only, not as copies to compile again.

    numba links into a kernel's LLVM module its callees' modules (each already optimised, with
    copies of their own callees) as ``linkonce_odr`` functions, then optimises and compiles the
    whole module to machine code: every kernel compiled again all the kernels below it, the
    top-level ones the entire engine. Here a kernel's functions in the module handed to its
    callers are ``available_externally``: LLVM inlines the small ones as before and drops the
    rest before code generation, so that the call goes to the callee's own compiled function, in
    the same JIT engine (a kernel is compiled, or loaded from the cache, before any kernel that
    calls it; LLVM never inlined the big ones anyway). Such calls name the callee's symbol, so
    a kernel's symbol must be the same in every process (numba numbers symbols per process): a
    kernel compiled in one process and loaded from the cache in another, or compiled again
    beside a partial cache, must find its callees. Within one cache directory the sources are
    the same (:func:`_use_source_keyed_cache`), so a symbol names the same code. A kernel
    defined again in one process (a module reloaded) is linked to the latest definition.

    Returns False, leaving numba's own linking, where this numba lacks the hooks used (then the
    first run takes three times as long) or with ``SOUP_JIT_LINK=copy``.
    """
    if _LINK_MODE != "reference":
        return False
    context = _numba_hooks()
    if context is None:
        warnings.warn(
            f"soup: numba {numba.__version__} lacks the hooks of by-reference linking (tested up to "
            f"{TESTED_NUMBA}); compiling with numba's own linking: the same games, a slower first run",
            stacklevel=2,
        )
        return False
    context.mangler = _kernel_mangler(context.mangler)
    context.codegen()._library_class = _kernel_library(context.codegen()._library_class)
    return True


def _numba_hooks() -> Any:
    """numba's CPU target context when this numba has the hooks by-reference linking uses (a
    library class with ``_get_module_for_linking``, a mangler that takes ``uid``), else None."""
    try:
        from numba.core import codegen as numba_codegen
        from numba.core import funcdesc
        from numba.core.registry import cpu_target

        context = cpu_target.target_context
        stock_library = context.codegen()._library_class
        hooks = (
            issubclass(stock_library, numba_codegen.CPUCodeLibrary)
            and callable(getattr(stock_library, "_get_module_for_linking", None))
            and "uid" in inspect.signature(funcdesc.default_mangler).parameters
        )
    except (ImportError, AttributeError, TypeError, ValueError):
        hooks = False
    return context if hooks else None


def _kernel_mangler(stock_mangler: Callable[..., str]) -> Callable[..., str]:
    """numba's mangler, but a kernel's symbol without the per-process number (the same in every
    process, so a kernel loaded from the cache finds its callees), noted as a kernel's."""

    def mangler(name, argtypes, *, abi_tags=(), uid=None):
        if name in _KERNEL_NAMES:  # a kernel: no per-process number
            symbol = stock_mangler(name, argtypes, abi_tags=abi_tags)
            _KERNEL_SYMBOLS.add(symbol)
            if name in _INLINE_NAMES:
                _INLINE_SYMBOLS.add(symbol)
            return symbol
        return stock_mangler(name, argtypes, abi_tags=abi_tags, uid=uid)

    return mangler


def _kernel_library(stock_library: type) -> type:
    """numba's code library class, but a kernel's functions in the module handed to its callers
    are ``available_externally`` (inlined or called, never compiled again), and a kernel loaded
    from the cache parses that module only if a kernel compiled here links it."""
    from llvmlite import binding as llvm_binding

    class KernelLibrary(stock_library):
        _linking_bitcode: bytes | None = None  # loaded from the cache (compressed), not parsed yet

        def _get_module_for_linking(self):
            if self._shared_module is None and self._linking_bitcode is not None:
                # loaded from the cache: parsed only now that a kernel compiled here links it
                self._shared_module = llvm_binding.parse_bitcode(zlib.decompress(self._linking_bitcode))
                self._linking_bitcode = None
            fresh = self._shared_module is None  # else made here already, or loaded from the cache
            module = super()._get_module_for_linking()
            if fresh and module is not self._final_module:  # a copy for linking (never the original)
                for fn in module.functions:
                    if fn.name in _KERNEL_SYMBOLS and not fn.is_declaration:
                        fn.linkage = "available_externally"
                        if fn.name in _INLINE_SYMBOLS:
                            fn.add_function_attribute("alwaysinline")
            return module

        def serialize_using_object_code(self):
            # numba's cached form (object code, module for linking), plus the names the module
            # defines: loading a kernel then needs neither to parse the module nor to walk it.
            # The module for linking is compressed: a loaded kernel keeps it in memory in case a
            # kernel compiled later links it, and a warm process never does (75 MB of bitcode
            # for Ursuppe's engine, 5 MB compressed: issue 24, "peak memory no higher").
            name, kind, (object_code, bitcode) = super().serialize_using_object_code()
            module = self._get_module_for_linking()
            names = tuple(
                gv.name
                for gvs in (module.functions, module.global_variables)
                for gv in gvs
                if not gv.is_declaration
            )
            return name, kind, (object_code, zlib.compress(bitcode, 6), names, "zlib")

        @classmethod
        def _unserialize(cls, codegen, state):
            """A kernel loaded from the cache, as numba loads it (numba.core.codegen's
            ``_unserialize``, kind "object") but for its module for linking, which is parsed only
            if a kernel compiled in this process links it: a warm command compiles none, and
            parsing and walking those modules was a third of its time to load the engine."""
            name, kind, data = state
            if kind != "object" or len(data) != 4:
                return super()._unserialize(codegen, state)
            object_code, bitcode, names, _ = data
            library = codegen.create_library(name)
            library.enable_object_caching()
            library._set_compiled_object(object_code)
            library._linking_bitcode = bitcode
            library._finalize_final_module()
            codegen._engine._defined_symbols.update(names)
            return library

    return KernelLibrary


_BY_REFERENCE: bool | None = None  # installed at the first compile (importing sim.jit stays cheap)
_DISPATCHERS: list = []  # every kernel compiled or loaded in this process (machine_code_symbols)

_TIMING = os.environ.get("SOUP_JIT_TIMING", "") not in ("", "0")


def _install_linking() -> None:
    """Install by-reference linking (or not) before the first function is compiled or loaded: a
    function cached by one library class cannot be loaded by the other."""
    global _BY_REFERENCE
    if _BY_REFERENCE is None:
        _load_registries_without_scipy()
        _index_without_wraparound()
        _BY_REFERENCE = _link_by_reference()


def _index_without_wraparound() -> None:
    """Compile a kernel's array index of a signed integer as it is, without numba's wraparound
    (a negative index counting from the end: a compare and a select per index and dimension,
    which also kept LLVM from simplifying the address arithmetic around it). No kernel indexes
    with a negative value (the module docs, "No negative indices"). By the time numba lowers an
    index, a literal's type is int64 too: ``x[-1]`` is not wrapped either."""
    from numba.np import arrayobj

    stock = getattr(arrayobj, "fix_integer_index", None)
    if stock is None or getattr(stock, "_soup_no_wraparound", False):
        return  # a numba without the hook indexes as Python reads (the same games, slower)

    def fix_integer_index(context, builder, idxty, idx, size):
        if not idxty.signed:
            return stock(context, builder, idxty, idx, size)
        return context.cast(builder, idx, idxty, types.intp)

    fix_integer_index._soup_no_wraparound = True
    arrayobj.fix_integer_index = fix_integer_index


def _load_registries_without_scipy() -> None:
    """Import numba's array functions without letting them import scipy.linalg.

    Before its first compile or cache load numba imports its implementations of numpy's
    functions, and ``numba.np.arraymath`` imports ``scipy.linalg`` to learn whether BLAS is there
    for ``np.convolve`` and ``np.correlate``: ~0.2 s of CPU (scipy pulls in numpy.f2py, numpy.ma,
    numpy.testing...), 10% of a warm ``soup play``, which uses no scipy (issue 31). Kernels never
    call those functions (they allocate), and numba's linear algebra imports scipy itself when a
    kernel uses it, so arraymath is imported here with ``scipy.linalg`` unimportable for the
    moment, and the commands that analyse results import scipy as before."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    from numba.core.compiler_lock import global_compiler_lock

    sys.modules["scipy.linalg"] = None  # an import of it, or below it, fails at once
    try:
        with global_compiler_lock:  # numba imports the module under its lock (warning filters)
            importlib.import_module("numba.np.arraymath")
    finally:
        if "scipy.linalg" in sys.modules and sys.modules["scipy.linalg"] is None:
            del sys.modules["scipy.linalg"]


def _compile(fn):
    namespace = namespace_of(fn.__module__)
    _maybe_announce(namespace)
    if namespace != KIT:
        # The kit first, in this process alone, before the namespace's clock, cache directory
        # and helpers: its helper processes (sim.jit_sharing) compile the kit's kernels too, and
        # a kit compiled beside them counted some as loaded, so its first compile's time went
        # unrecorded (the engine's first kernel, engine.outcome_columns', loads the kit only
        # through its signature, after the helpers had started).
        _load_whole_kit(_space(KIT))
    space = _space(namespace)
    start = time.perf_counter()
    if space.first is None:
        space.first = start
    # numba reads the cache location when a kernel is decorated: this namespace's directory
    if space.directory is not None:
        numba.config.CACHE_DIR = str(space.directory)
    _install_linking()
    if _BY_REFERENCE:
        _KERNEL_NAMES.add(f"{fn.__module__}.{fn.__qualname__}")
        if getattr(fn, "_always_inline", False):
            _INLINE_NAMES.add(f"{fn.__module__}.{fn.__qualname__}")
    if space.shared is None:
        space.shared = _share(namespace, space)
    # no_cfunc_wrapper: kernels are never passed as first-class functions (6% of the compile time)
    decorate = numba.njit(
        _signature(fn), cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True, error_model="numpy"
    )
    if space.shared:
        with jit_sharing.kernel_lock(space.directory, f"{fn.__module__}.{fn.__qualname__}"):
            compiled = decorate(fn)  # compiles, or loads what another process compiled
    else:
        compiled = decorate(fn)
    _DISPATCHERS.append(compiled)
    if _TIMING:
        print(f"jit {time.perf_counter() - start:8.2f}s {fn.__module__}.{fn.__qualname__}", flush=True)
    _note_kernel(fn, compiled, space)
    if namespace == KIT:
        _load_whole_kit(space)
    return compiled


def _load_whole_kit(space: _Namespace) -> None:
    """Import every kernel module of the kit once one of its kernels is compiled or loaded: a game
    uses only some of them (Pig logs no events: sim.event_log), and the kit's cache is complete,
    with its marker and its compile time for the first-run notice (:func:`engine_compiled`), only
    once all of its kernels are there."""
    if space.whole:
        return
    space.whole = True
    for module in sorted({module for module, _ in space.expected}):
        importlib.import_module(module)


# --- a first compile on several cores (sim.jit_sharing) -------------------------------------------

SHARE_MIN_KERNELS = 40  # a namespace with fewer (the kit, Pig) compiles in a second or two alone


def _share(namespace: str, space: _Namespace) -> bool:
    """Whether this process compiles ``namespace`` together with helper processes, starting them
    if it is the first: a helper always does; another process where the namespace's cache is not
    complete and the namespace is big enough to be worth it (``SOUP_JIT_HELPERS=0``: never)."""
    if space.directory is None or not jit_sharing.available():
        return False
    if jit_sharing.is_helper():  # whether the compile it helps began in an empty cache, and when
        since = jit_sharing.shared_since()
        space.fresh = since is not None
        if since is not None:
            space.first = time.perf_counter() - (time.time() - since)
        return True
    if len(space.expected) < SHARE_MIN_KERNELS or (space.directory / _MARKER).is_file():
        return False
    count = jit_sharing.helper_count()
    if count == 0:
        return False
    # numba keeps a module's index files in a subdirectory named after the module's package
    space.fresh = next(space.directory.rglob("*.nbi"), None) is None
    began = time.time() - (time.perf_counter() - (space.first or time.perf_counter()))
    space.helpers = jit_sharing.start_helpers(namespace, count, began if space.fresh else None)
    return True


def _kernel_module_graph(namespace: str) -> tuple[list[str], dict[str, set[str]]]:
    """The modules that define ``namespace``'s kernels, in the order a plain import compiles them
    (depth first through the imports, each module after those it imports), and for each the
    kernel modules it depends on through any chain of project imports run at import time. A
    function's own imports run later: a game's wiring (``sim/<game>/wiring.py``, run by the game
    package's ``__init__``) imports its strategies only when the engine asks its policy port, and
    counting that import would close a cycle through the package."""
    modules, texts, _ = _parse(_ROOT)
    imports = {
        name: _imported_modules(text, name, modules[name].name == "__init__.py", modules, at_import=True)
        for name, text in texts.items()
    }
    kernel_modules = {module for module, _ in _scan(_ROOT, namespace)[1]}
    depends: dict[str, set[str]] = {}
    for module in kernel_modules:
        seen, pending = set(), list(imports[module])
        while pending:
            name = pending.pop()
            if name not in seen and name != module:
                seen.add(name)
                pending.extend(imports[name])
        depends[module] = seen & kernel_modules
    order: list[str] = []
    visiting: set[str] = set()

    def visit(module: str) -> None:
        if module in visiting or module in order:
            return
        visiting.add(module)
        for dependency in sorted(depends[module]):
            visit(dependency)
        order.append(module)

    for module in sorted(kernel_modules):
        visit(module)
    return order, depends


def help_compile(namespace: str, index: int, parent: int) -> None:
    """A helper's work (started by :func:`_share` in process ``parent``): import ``namespace``'s
    kernel modules in helper ``index``'s order (:func:`sim.jit_sharing.helper_order`), which
    compiles or loads their kernels under their locks; stop once the namespace's cache is
    complete or the parent has ended."""
    directory = _space(namespace).directory
    if directory is None:
        return
    modules, depends = _kernel_module_graph(namespace)
    for module in jit_sharing.helper_order(modules, depends, index):
        if jit_sharing.parent_gone(parent) or (directory / _MARKER).is_file():
            return
        try:
            importlib.import_module(module)
        except Exception:  # noqa: BLE001 (the parent meets the same error and reports it)
            return


def machine_code_symbols() -> list[tuple[int, int, str]]:
    """(address, size, name) of every kernel compiled or loaded in this process, and of its
    Python wrapper: a profiler's symbol map (``perf``'s /tmp/perf-PID.map, sim.profiling). A
    kernel is named ``module.qualname``; a size is the distance to the next function, at most
    64 KiB. Empty in the plain-Python path."""
    found: dict[int, str] = {}
    for dispatcher in _DISPATCHERS:
        kernel_name = f"{dispatcher.py_func.__module__}.{dispatcher.py_func.__qualname__}"
        for result in dispatcher.overloads.values():
            engine = result.library._codegen._engine
            fndesc = result.fndesc
            for symbol, name in (
                (fndesc.mangled_name, kernel_name),
                (fndesc.llvm_cpython_wrapper_name, f"{kernel_name} (Python wrapper)"),
            ):
                address = engine.get_function_address(symbol) if engine.is_symbol_defined(symbol) else 0
                if address:
                    found[address] = name
    addresses = sorted(found)
    ends = [*addresses[1:], addresses[-1] + 65536] if addresses else []
    return [(a, min(e - a, 65536), found[a]) for a, e in zip(addresses, ends, strict=True)]


if PLAIN_PYTHON:

    def trailing_zeros(x):
        """The index of the lowest set bit of ``x`` (not 0): plain Python's."""
        x = int(x)
        return (x & -x).bit_length() - 1

else:
    # numba's intrinsic (LLVM's cttz): one instruction, for kernels that walk a bit mask (a set of
    # genes, of spaces) in ascending order instead of testing every bit
    from numba.cpython.unsafe.numbers import trailing_zeros  # noqa: F401 (kernels import it here)


def always_inline(fn):
    """Mark a kernel (decorated ``@kernel`` above this) to be inlined into every kernel that calls
    it, whatever LLVM's cost model says: for the small rule functions that the phases and the
    strategies call once per gene or per option (players.gene_source...), where a call costs more
    than the work. Without by-reference linking, LLVM's own choice stands."""
    fn._always_inline = True
    return fn


def kernel(fn):
    """Compile ``fn`` as a nopython kernel with its one signature (plain Python when disabled)."""
    if PLAIN_PYTHON:
        _SEEN_KERNELS.add((fn.__module__, fn.__name__))
        return fn
    return _compile(fn)
