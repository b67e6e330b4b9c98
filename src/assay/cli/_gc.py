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
Everything allocated afterwards is collected, but the young generation only every
YOUNG_THRESHOLD allocations instead of Python's 700: with a hundred turns in flight, a pass
every 700 allocations finds most of their objects alive and promotes them, so the older
generations walk them again; at 2,000 or more that stops. Measured (bench/profile_turn.py,
a real ``assay run --workers 1`` turn): 901 k instructions at 700, 862 k at 2,000, 861 k at
10,000 and 20,000. A test or a notebook importing assay keeps its own settings."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 10_000  # allocations between two young-generation passes (Python: 700)
_freezing = False


def freeze_imports() -> None:
    """The ``assay`` command's process: freeze what is imported now, and what each
    ``collector_paused`` block imports from now on; young passes every YOUNG_THRESHOLD
    allocations."""
    global _freezing
    _freezing = True
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])


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
