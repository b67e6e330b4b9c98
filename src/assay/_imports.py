"""Importing the user's Python by name (agents, code graders, plugins): from the suite's
folder first, then the current directory, and whatever the import raises as one message."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from assay._isolation import describe, exit_guarded
from assay.errors import ConfigError, Problem


class ImportFailure(ValueError):
    """A module or attribute that cannot be imported; the message says which and why."""


def import_module(name: str, search_dirs: tuple[Path, ...] = ()) -> ModuleType:
    """Import module ``name``, searching ``search_dirs`` and the current directory first.
    Raises ImportFailure whatever the module raises while it is imported (``sys.exit`` too,
    and ``os._exit``, guarded here as in a run: a grader's or a plugin's module is imported
    when the suite loads, before any run, where it would end the process with its code)."""
    for folder in reversed((*search_dirs, Path.cwd())):  # so the first one is searched first
        if str(folder) in sys.path:
            sys.path.remove(str(folder))
        sys.path.insert(0, str(folder))
    try:
        with exit_guarded():
            return importlib.import_module(name)
    except KeyboardInterrupt:  # Ctrl-C while importing: the user's, not the module's
        raise
    except BaseException as exc:  # any import-time failure, sys.exit too
        raise ImportFailure(f"cannot import module {name!r}: {describe(exc)}") from None


def import_callable(spec: str, search_dirs: tuple[Path, ...] = (), what: str = "target") -> Any:
    """Import ``module:attr``; search ``search_dirs`` (the suite's folder, the cwd) first.
    Raises ConfigError with the problem at ``what``."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ConfigError([Problem("options", what, f"expected 'module:function', got {spec!r}")])
    try:
        module = import_module(module_name, search_dirs)
    except ImportFailure as exc:
        raise ConfigError([Problem("options", what, str(exc))]) from None
    fn: Any = module
    for part in attr.split("."):
        fn = getattr(fn, part, None)
        if fn is None:
            raise ConfigError(
                [Problem("options", what, f"module {module_name!r} has no attribute {attr!r}")]
            )
    if not callable(fn):
        raise ConfigError([Problem("options", what, f"{spec!r} is not callable")])
    return fn
