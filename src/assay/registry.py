"""One way to make a component available by name: metrics, targets, reporters and model
providers each keep a ``Registry`` of name -> factory.

A registry knows its built-in entries (each one's module imported when its name is first
looked up), says "did you mean ...?" for an unknown name, and lists its names for the docs
and the suite schema. A name nobody registered makes it import the installed plugins once:
every ``assay.plugins`` entry point of every installed package (the entry point names a
module; importing it registers what it defines). Nothing is loaded at ``import assay``, nor
by ``assay --help``.
"""

from __future__ import annotations

import difflib
import importlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from assay._isolation import describe

PLUGIN_GROUP = "assay.plugins"
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")

T = TypeVar("T")


_REGISTRIES: list[Registry[Any]] = []
_installed: list[str] | None = None  # failures; None until the entry points are looked up


class RegistrationError(ValueError):
    """A component registered under a bad or taken name."""


class UnknownName(LookupError):
    """A name no entry has; the message names the kind, a close match or the known names."""


@dataclass(frozen=True)
class Entry(Generic[T]):
    name: str
    item: T
    module: str  # where it was defined: an assay module, a suite's plugin, a package

    @property
    def builtin(self) -> bool:
        return is_assay_module(self.module)


def is_assay_module(module: str) -> bool:
    return module == "assay" or module.startswith("assay.")


def _defined_in(item: object) -> str:
    return str(getattr(item, "__module__", None) or "?")


def _same_definition(a: object, b: object) -> bool:
    """The same class or function defined again (its module imported a second time)."""
    return _defined_in(a) == _defined_in(b) and getattr(a, "__qualname__", a) == getattr(
        b, "__qualname__", b
    )


class Registry(Generic[T]):
    """Components of one kind by name. ``builtins`` names assay's own entries and the module
    that registers each: a lookup imports only the module of the name it looks up (a run of
    deterministic metrics never imports the judge metrics and their model clients); listing
    the entries imports them all."""

    def __init__(
        self, kind: str, *, builtins: Mapping[str, str] | None = None, unknown_hint: str = ""
    ) -> None:
        self.kind = kind
        self._builtins = dict(builtins or {})  # name -> module, until that module is imported
        self._unknown_hint = unknown_hint
        self._entries: dict[str, Entry[T]] = {}
        _REGISTRIES.append(self)

    def register(self, name: str, item: T) -> T:
        """Make ``item`` available as ``name``. A name already taken by something else is a
        RegistrationError; registering the same definition again (a module imported twice)
        replaces it."""
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise RegistrationError(
                f"{self.kind} names are letters, digits, '_', '.' and '-', starting with a "
                f"letter or '_'; got {name!r}"
            )
        if not is_assay_module(_defined_in(item)):
            self._load_builtins(name)  # a built-in's name is taken before its module is imported
        taken = self._entries.get(name)
        if taken is not None and not _same_definition(taken.item, item):
            owner = "built into assay" if taken.builtin else f"by {taken.module}"
            raise RegistrationError(
                f"{self.kind} {name!r} is already registered ({owner}); choose another name"
            )
        self._entries[name] = Entry(name, item, _defined_in(item))
        return item

    def get(self, name: str) -> T:
        """The entry named ``name``; raises UnknownName with a did-you-mean."""
        self._load_builtins(name)
        entry = self._entries.get(name)
        if entry is None:
            load_installed_plugins()
            entry = self._entries.get(name)
        if entry is None:
            self._load_builtins()  # every name, for the did-you-mean
            raise UnknownName(self._unknown(name))
        return entry.item

    def entries(self) -> list[Entry[T]]:
        """Every entry, installed plugins included, by name."""
        self._load_builtins()
        load_installed_plugins()
        return [self._entries[n] for n in sorted(self._entries)]

    def names(self) -> list[str]:
        """Every name, installed plugins included, sorted."""
        return [e.name for e in self.entries()]

    def __iter__(self) -> Iterator[str]:
        """The names registered so far (built-ins and plugins already loaded), sorted; unlike
        ``names()`` this never imports installed plugins, so ``--help`` can list them."""
        self._load_builtins()
        return iter(sorted(self._entries))

    def _load_builtins(self, name: str | None = None) -> None:
        """Import the module registering the built-in ``name`` (every built-in's, without
        ``name``), each once, even if it fails."""
        wanted = self._builtins.values() if name is None else [self._builtins.get(name)]
        for module in [m for m in dict.fromkeys(wanted) if m is not None]:
            self._builtins = {n: m for n, m in self._builtins.items() if m != module}
            importlib.import_module(module)

    def _unknown(self, name: str) -> str:
        known = sorted(self._entries)
        hint = difflib.get_close_matches(name, known, n=1)
        message = f"unknown {self.kind} {name!r}; " + (
            f"did you mean {hint[0]!r}?" if hint else f"expected one of {', '.join(known)}"
        )
        if not hint and self._unknown_hint:
            message += f" ({self._unknown_hint})"
        for failure in plugin_failures():
            message += f"; {failure}"
        return message


def load_installed_plugins() -> list[str]:
    """Import every installed ``assay.plugins`` entry point, once per process. A plugin
    that fails is skipped; the failures are returned (and quoted when a name is unknown)."""
    global _installed
    if _installed is None:
        _installed = []
        from importlib.metadata import entry_points  # scans every installed package: on use

        for point in entry_points(group=PLUGIN_GROUP):
            try:
                point.load()
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # a broken package must not take assay down
                where = f" ({point.dist.name})" if point.dist is not None else ""
                _installed.append(
                    f"the installed plugin {point.name} = {point.value}{where} failed to "
                    f"load: {describe(exc)}"
                )
    return list(_installed)


def plugin_failures() -> list[str]:
    """The installed plugins that failed to load, if they were looked up already."""
    return list(_installed or ())


def registered_from(module: str) -> list[str]:
    """``kind name`` of every entry defined in ``module`` or a module inside it."""
    return [
        f"{registry.kind} {entry.name}"
        for registry in _REGISTRIES
        for entry in registry._entries.values()
        if entry.module == module or entry.module.startswith(module + ".")
    ]
