"""Runs of options that several commands take alike, declared once (issue 35.5).

A group is a frozen dataclass whose fields are typer options, each an ``Annotated`` alias with its
default, as a command's parameter would be. A command names the group as one keyword parameter
(``running: Running``; typer passes every option by keyword) and is decorated with :func:`grouped`,
which writes the group's options into the signature typer reads, at that place and in the fields'
order: the command's options, defaults, help and their order in ``--help`` are what they would be
written out. When the command runs, the group's values reach it as one object of the group.

A group most commands take is here (:class:`Running`); a group of one command's, or of a few
commands of one module, is declared beside them.
"""

import dataclasses
import functools
import inspect
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, TypeVar

from sim.cli.support import BackendName, Quiet, RayAddress, check_backend, open_backend

Command = TypeVar("Command", bound=Callable[..., Any])


def grouped(command: Command) -> Command:
    """``command`` with each parameter annotated with an option group (a dataclass) spelled out
    as the group's options, for typer; called with them, it calls ``command`` with the group's
    object in their place."""
    signature = inspect.signature(command)
    kinds = {n: p.annotation for n, p in signature.parameters.items()}
    groups = {n: kind for n, kind in kinds.items() if dataclasses.is_dataclass(kind)}
    parameters = []
    for p in signature.parameters.values():
        if p.name not in groups:
            parameters.append(p)
            continue
        for f in dataclasses.fields(groups[p.name]):
            parameters.append(p.replace(name=f.name, annotation=f.type, default=f.default))
    names = [p.name for p in parameters]
    clash = {n for n in names if names.count(n) > 1}
    if clash:  # a programming error, met when the command is declared (at import)
        raise TypeError(f"{command.__name__}: an option group repeats the option(s) {sorted(clash)}")

    @functools.wraps(command)
    def spelled_out(**options: Any) -> Any:
        for name, group in groups.items():
            options[name] = group(**{f.name: options.pop(f.name) for f in dataclasses.fields(group)})
        return command(**options)

    spelled_out.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    spelled_out.__annotations__ = {p.name: p.annotation for p in parameters}
    return spelled_out  # type: ignore[return-value]


def changed(group: Any) -> list[str]:
    """The options of ``group`` (an option group's object) given other than their default, in the
    group's order, by name on the command line (a field is named after its option, as typer names
    an option after its parameter: ``retune_budget``, ``--retune-budget``)."""
    fields = dataclasses.fields(group)
    return ["--" + f.name.replace("_", "-") for f in fields if getattr(group, f.name) != f.default]


def spelled_out(arguments: dict[str, Any]) -> dict[str, Any]:
    """A command's ``arguments`` by option: each option group's object spelled out as its options."""
    options = {}
    for name, value in arguments.items():
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            options.update((f.name, getattr(value, f.name)) for f in dataclasses.fields(value))
        else:
            options[name] = value
    return options


@dataclass(frozen=True)
class Running:
    """How a command's games are run, the options that say it: --quiet, --backend, --ray-address."""

    quiet: Quiet = False
    backend: BackendName = "local"
    ray_address: RayAddress = None

    def check(self) -> None:
        """--backend and --ray-address (:func:`check_backend`)."""
        check_backend(self.backend, self.ray_address)

    def open(self, threads: int) -> AbstractContextManager[Any]:
        """The backend on ``threads`` threads, for the command (:func:`open_backend`)."""
        return open_backend(self.backend, threads, self.ray_address)
