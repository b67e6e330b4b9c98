"""The cyclic garbage collector kept off what the CLI's imports make.

Importing a command's packages (typer, rich, pydantic, aiohttp, SQLAlchemy, assay's models)
allocates a few hundred thousand objects that live as long as the process. The collector
walks young objects every few hundred allocations, and every object that survives is
walked again in each older generation, and again by every full collection during the run:
about a fifth of a one-test ``assay run``'s CPU (bench/bench_startup.py), for cycles that
imports seldom make.

So the collector is paused while a command's modules are imported, and in the ``assay``
command's own process (``main``, not a test invoking the app) what they made is then moved
to the permanent generation (``gc.freeze``, as Python's documentation advises before a
fork: the forked result writer and workers do not copy those pages by walking them either).
Everything allocated afterwards is collected as before."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_freezing = False


def freeze_imports() -> None:
    """The ``assay`` command's process: freeze what is imported now, and what each
    ``collector_paused`` block imports from now on."""
    global _freezing
    _freezing = True
    gc.freeze()


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection inside the block (imports); the collector is as it was after
    it (a caller that disabled it keeps it disabled)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if _freezing:
            gc.freeze()
        if enabled:
            gc.enable()
