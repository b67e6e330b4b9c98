"""A suite's ``plugins:``: the user's modules that register metrics (``@assay.metric``) by
name, imported from the suite's folder first (as python targets and code graders are) when
the suite loads, before its metrics are built. Installed packages register through the
``assay.plugins`` entry points instead (``assay.registry``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from assay._imports import ImportFailure, import_module
from assay.errors import Problem
from assay.registry import registered_from


def load_plugins(
    modules: Sequence[str], source: str, search_dirs: tuple[Path, ...] = ()
) -> list[Problem]:
    """Import each module; a problem per module that fails to import (whatever it raises,
    a misused decorator included) or that registers nothing."""
    problems = []
    for i, name in enumerate(modules):
        path = f"plugins[{i}]"
        try:
            import_module(name, search_dirs)
        except ImportFailure as exc:
            problems.append(Problem(source, path, str(exc)))
            continue
        if not registered_from(name):
            problems.append(
                Problem(
                    source,
                    path,
                    f"module {name!r} registers nothing: decorate your metric in it with "
                    '@assay.metric("name")',
                )
            )
    return problems
