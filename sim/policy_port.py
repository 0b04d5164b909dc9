"""A game engine's port to its players' policy (issue 33): the engine names no strategy.

A game's kernels call a policy's kernels (a decision's choice, a valuation) and read its knobs
(thresholds frozen into the machine code), so those must be module globals when a kernel
compiles. The engine imports them from its own port module (``sim/<game>/engine/policy_port.py``)
instead of from ``strategies.<game>``; the game's wiring (``sim/<game>/wiring.py``, imported by
the game package's ``__init__``, so before any engine module) plugs in the modules that provide
them. The port serves ``from port import name`` through the module's ``__getattr__`` (PEP 562):
it asks each plugged module in turn and hands back the very object the strategy module holds, so
a kernel sees the same dispatcher, and numba compiles and caches exactly what a direct import
gave. The providers are imported only then, when an engine module first asks, which is where the
direct import stood, so importing the game package stays cheap and the import order is unchanged.
"""

import importlib
from collections.abc import Callable
from functools import partial
from types import ModuleType


class Port:
    """One engine's port: ``plug`` takes the providers, ``attribute`` is the module's
    ``__getattr__``."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.providers: tuple[Callable[[], ModuleType], ...] = ()

    def plug(self, *providers: Callable[[], ModuleType]) -> None:
        """Serve names from these providers, each a function that imports and returns a module,
        asked in this order (a strategy's knobs first: they import no engine module, so a knob can
        be asked for while the policy, which imports the engine, is not loaded yet)."""
        self.providers = providers

    def plug_modules(self, *names: str) -> None:
        """:meth:`plug` the modules named, imported when first asked (a game's wiring names its
        strategy modules here, knobs first)."""
        self.plug(*(partial(importlib.import_module, name) for name in names))

    def attribute(self, name: str) -> object:
        if name.startswith("__"):  # the import system's probes (__path__, __all__...)
            raise AttributeError(name)
        if not self.providers:
            raise ImportError(
                f"{self.module}: no policy is plugged in to serve {name!r}; the game's wiring.py "
                "plugs it, imported by the game package's __init__ (docs/adding-a-game.md)"
            )
        modules = []
        for provide in self.providers:  # one at a time: a knob never loads the policy
            modules.append(provide())
            if hasattr(modules[-1], name):
                return getattr(modules[-1], name)
        raise AttributeError(
            f"module {self.module!r} has no attribute {name!r}: none of "
            f"{', '.join(m.__name__ for m in modules)} defines it"
        )


def serve(module: str) -> tuple[Callable[..., None], Callable[[str], object]]:
    """A port module's ``plug`` (:meth:`Port.plug_modules`: its wiring names the strategy modules to
    serve) and ``__getattr__``: ``plug, __getattr__ = serve(__name__)`` is the whole port."""
    port = Port(module)
    return port.plug_modules, port.attribute
