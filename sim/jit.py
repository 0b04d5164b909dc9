"""One switch for compiling kernels, and the plain-Python path.

Every kernel is decorated with :func:`kernel`. With the environment variable
``NUMBA_DISABLE_JIT=1`` numba leaves every function as plain Python: that is the plain-Python
execution path of the very same code, used for debugging and as the speed baseline
(soup bench). It must be set before ``sim`` is imported, so the plain path is run in
a subprocess.

**One signature per kernel.** Left to itself numba compiles a callee once per combination of
argument types it is called with (int8 from one array, int16 from another, each literal
constant...), which multiplied the compile time of the engine by five. So every kernel gets one
explicit signature, derived from its parameter names: the names a game registers with
:func:`register_argument_types` (``st``, ``ru``, ``wk`` for Ursuppe), a few generic names below,
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
"""

import hashlib
import inspect
import json
import os
import re
import shutil
import time
from pathlib import Path

import llvmlite
import numba
from numba import types
from numba.core import cgutils
from numba.core.datamodel import models
from numba.core.typing.templates import AttributeTemplate
from numba.extending import NativeValue, infer_getattr, lower_getattr_generic, register_model, unbox

PLAIN_PYTHON: bool = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
_KERNEL_PACKAGES = ("sim", "strategies")
_KEEP_CACHES = 3
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
_REGISTERS = re.compile(r"^[ \t]*register_argument_types\(", re.MULTILINE)


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


def _imported_modules(text: str, name: str, is_package: bool, modules: dict[str, Path]) -> set[str]:
    """The project modules that module ``name`` (source ``text``) imports anywhere in its body,
    with the packages whose ``__init__`` each import runs."""
    found = set()
    for match in _IMPORT.finditer(_COMMENT.sub("", text)):
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


def _scan(root: Path) -> tuple[list[Path], frozenset[tuple[str, str]]]:
    """The files the compiled kernels can depend on, and the kernels they define
    (``(module, function)`` of every function decorated ``@kernel``).

    The files: the modules that define kernels or register kernel argument types, ``sim.jit``
    itself, the project modules they import, transitively (their constants are frozen into the
    machine code; NamedTuple and StructRef field types make the signatures), and the data files
    beside those modules (the rules file whose values make the types of the rules' fields).
    Python-side modules that only call kernels (the runner, the simulation, bench, trace,
    scenario, analysis, the CLI) are left out: editing one keeps the compiled engine.
    """
    modules = _module_files(root)
    texts = {name: _COMMENT.sub("", path.read_text(encoding="utf-8")) for name, path in modules.items()}
    imports = {
        name: _imported_modules(text, name, modules[name].name == "__init__.py", modules)
        for name, text in texts.items()
    }
    pending = [name for name, text in texts.items() if _KERNEL_DEF.search(text) or _REGISTERS.search(text)]
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
    kernels = frozenset((name, fn) for name in closure for fn in _KERNEL_DEF.findall(texts[name]))
    return sorted(files), kernels


def _kernel_files(root: Path) -> list[Path]:
    """The files the compiled kernels can depend on (see :func:`_scan`)."""
    return _scan(root)[0]


def _source_hash(files: list[Path], root: Path) -> str:
    versions = f"numba {numba.__version__} llvmlite {llvmlite.__version__} link {_LINK_MODE}"
    h = hashlib.sha256(versions.encode())
    for path in files:
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()[:16]


def _kernel_source_hash(root: Path | None = None) -> str:
    """A hash of the files the kernels depend on (:func:`_kernel_files`) and of numba's version."""
    root = _ROOT if root is None else root
    return _source_hash(_kernel_files(root), root)


# The cache directory of the current sources, the kernels they define, and the kernels this process
# has compiled or loaded so far (the engine is complete in the cache once all are there).
_CACHE_DIR: Path | None = None
_EXPECTED_KERNELS: frozenset[tuple[str, str]] = frozenset()
_SEEN_KERNELS: set[tuple[str, str]] = set()
_COMPILED_KERNELS = 0  # of those, compiled here rather than loaded from the cache
_MARKER = "engine-complete.json"
_HASH_NAME = re.compile(r"[0-9a-f]{16}")
_FIRST_COMPILE: float | None = None  # when this process compiled or loaded its first kernel
_ANNOUNCE_SETTLED = False  # whether sim.compile_notice's question was asked in this process


def soup_cache_dir() -> Path:
    """soup's directory of the user's cache (compiled kernels, soup bench's compared revisions)."""
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "soup"


def _cache_base() -> Path:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    return soup_cache_dir() / "numba"


def _use_source_keyed_cache() -> None:
    """Point numba's on-disk cache at a directory named by the hash of the kernels' sources.

    numba's ``cache=True`` revalidates a cached kernel by its own file only, so a kernel whose
    callee in another module changed would load stale machine code. Keying the whole cache by
    the sources makes any change start a clean cache. The directory is under ``NUMBA_CACHE_DIR``
    if that is set, else ``~/.cache/soup/numba``; the :data:`_KEEP_CACHES` most recently used
    are kept.
    """
    global _CACHE_DIR, _EXPECTED_KERNELS
    files, _EXPECTED_KERNELS = _scan(_ROOT)
    base = _cache_base()
    target = base / _source_hash(files, _ROOT)
    try:
        target.mkdir(parents=True, exist_ok=True)
        os.utime(target)  # most recently used
        old = sorted(
            (d for d in base.iterdir() if d.is_dir() and d != target and _HASH_NAME.fullmatch(d.name)),
            key=lambda d: d.stat().st_mtime,
        )
        for d in old[: max(0, len(old) - (_KEEP_CACHES - 1))]:
            shutil.rmtree(d, ignore_errors=True)
    except OSError:
        return  # an unwritable home: numba falls back to its default locations
    _CACHE_DIR = target
    numba.config.CACHE_DIR = str(target)


if not PLAIN_PYTHON:
    _use_source_keyed_cache()


def engine_compiled() -> bool:
    """Whether the on-disk cache holds every kernel compiled from the current sources, so that
    importing the engine loads it rather than compiles it (cheap: no kernel is imported).

    True in the plain-Python path (nothing compiles). Call it before importing the engine to
    tell the user about a first-run compile (:func:`expected_compile_seconds`).
    """
    if PLAIN_PYTHON:
        return True
    return _CACHE_DIR is not None and (_CACHE_DIR / _MARKER).is_file()


def expected_compile_seconds() -> float | None:
    """How long compiling the whole engine takes here: the last full compile recorded on this
    machine (any version of the sources), else None: a figure measured elsewhere would be a
    promise this machine may not keep (issue 21.10: "about 15 s", then 63 s)."""
    try:
        markers = sorted(_cache_base().glob(f"*/{_MARKER}"), key=lambda p: p.stat().st_mtime, reverse=True)
        for marker in markers:
            seconds = json.loads(marker.read_text(encoding="utf-8")).get("compile_seconds")
            if isinstance(seconds, int | float) and seconds > 0:
                return float(seconds)
    except (OSError, ValueError):
        pass
    return None


def _maybe_announce() -> None:
    """Before the first kernel: if the cache does not hold the whole engine, call
    sim.compile_notice.callback (the command line's "compiling the engine" notice), whichever
    import got here first, so that the notice is the first thing a first run prints (issue 21.10)."""
    global _ANNOUNCE_SETTLED
    if _ANNOUNCE_SETTLED:
        return
    _ANNOUNCE_SETTLED = True
    from sim import compile_notice

    if compile_notice.callback is not None and compile_notice.announced_at is None and not engine_compiled():
        compile_notice.announced_at = time.perf_counter()
        compile_notice.callback(expected_compile_seconds())


def _note_kernel(fn, compiled) -> None:
    """Count a kernel compiled or loaded; once every kernel of the sources is, mark the cache
    complete (:func:`engine_compiled`), with the time a full compile took."""
    global _COMPILED_KERNELS
    _SEEN_KERNELS.add((fn.__module__, fn.__name__))
    _COMPILED_KERNELS += sum(compiled.stats.cache_misses.values())
    if _CACHE_DIR is None or not _EXPECTED_KERNELS <= _SEEN_KERNELS:
        return
    marker = _CACHE_DIR / _MARKER
    if marker.exists():
        return
    full = _COMPILED_KERNELS >= len(_EXPECTED_KERNELS)
    record = {
        "kernels": len(_SEEN_KERNELS),
        "compiled_here": _COMPILED_KERNELS,
        "compile_seconds": round(time.perf_counter() - (_FIRST_COMPILE or 0.0), 1) if full else None,
    }
    try:
        partial = marker.with_name(f"{_MARKER}.{os.getpid()}")
        partial.write_text(json.dumps(record), encoding="utf-8")
        os.replace(partial, marker)
    except OSError:
        pass


_ARGUMENT_TYPES: dict[str, types.Type] = {
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


def register_argument_types(mapping: dict[str, types.Type]) -> None:
    """Declare the numba type of every kernel parameter with one of these names."""
    _ARGUMENT_TYPES.update(mapping)


def _signature(fn) -> tuple[types.Type, ...]:
    sig = []
    for name in inspect.signature(fn).parameters:
        if name in _ARGUMENT_TYPES:
            sig.append(_ARGUMENT_TYPES[name])
        elif name in ("st", "ru", "wk"):
            raise RuntimeError(
                f"{fn.__module__}.{fn.__qualname__}: parameter {name!r} has no registered type; "
                "import the game's state module before defining kernels"
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
    try:
        from numba.core import codegen as numba_codegen
        from numba.core import funcdesc
        from numba.core.registry import cpu_target

        context = cpu_target.target_context
        stock_library = context.codegen()._library_class
        stock_mangler = context.mangler
        hooks = (
            issubclass(stock_library, numba_codegen.CPUCodeLibrary)
            and callable(getattr(stock_library, "_get_module_for_linking", None))
            and "uid" in inspect.signature(funcdesc.default_mangler).parameters
        )
    except (ImportError, AttributeError, TypeError, ValueError):
        return False
    if not hooks:
        return False

    def mangler(name, argtypes, *, abi_tags=(), uid=None):
        if name in _KERNEL_NAMES:  # a kernel: no per-process number
            symbol = stock_mangler(name, argtypes, abi_tags=abi_tags)
            _KERNEL_SYMBOLS.add(symbol)
            if name in _INLINE_NAMES:
                _INLINE_SYMBOLS.add(symbol)
            return symbol
        return stock_mangler(name, argtypes, abi_tags=abi_tags, uid=uid)

    class KernelLibrary(stock_library):
        def _get_module_for_linking(self):
            fresh = self._shared_module is None  # else made here already, or loaded from the cache
            module = super()._get_module_for_linking()
            if fresh and module is not self._final_module:  # a copy for linking (never the original)
                for fn in module.functions:
                    if fn.name in _KERNEL_SYMBOLS and not fn.is_declaration:
                        fn.linkage = "available_externally"
                        if fn.name in _INLINE_SYMBOLS:
                            fn.add_function_attribute("alwaysinline")
            return module

    context.mangler = mangler
    context.codegen()._library_class = KernelLibrary
    return True


_BY_REFERENCE: bool | None = None  # installed at the first compile (importing sim.jit stays cheap)

_TIMING = os.environ.get("SOUP_JIT_TIMING", "") not in ("", "0")


def _compile(fn):
    global _BY_REFERENCE, _FIRST_COMPILE
    _maybe_announce()
    start = time.perf_counter()
    if _FIRST_COMPILE is None:
        _FIRST_COMPILE = start
    if _BY_REFERENCE is None:
        _BY_REFERENCE = _link_by_reference()
    if _BY_REFERENCE:
        _KERNEL_NAMES.add(f"{fn.__module__}.{fn.__qualname__}")
        if getattr(fn, "_always_inline", False):
            _INLINE_NAMES.add(f"{fn.__module__}.{fn.__qualname__}")
    # no_cfunc_wrapper: kernels are never passed as first-class functions (6% of the compile time)
    compiled = numba.njit(_signature(fn), cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True)(fn)
    if _TIMING:
        print(f"jit {time.perf_counter() - start:8.2f}s {fn.__module__}.{fn.__qualname__}", flush=True)
    _note_kernel(fn, compiled)
    return compiled


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
