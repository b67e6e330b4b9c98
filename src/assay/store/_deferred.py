"""A new SQLite store, stood for until the run first uses it.

``assay run`` checks its store before anything else (a store error comes before any error
in the suite), but opening it imports SQLAlchemy, about a third of the run's start-up
imports. A plain ``sqlite:///PATH`` whose file does not exist yet and could be created there
is checked here without it, and opened at its first use: a run on worker processes stores
itself once the workers have their first tests. Any other store is opened at once, by
``open_store``, with its own errors."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from assay._defaults import DEFAULT_STORE_URL, STORE_URL_ENV

if TYPE_CHECKING:
    from assay.store.store import Store

# a path that SQLAlchemy's URL keeps as it is written: no escapes, query, drive or memory
_PLAIN_SQLITE = re.compile(r"sqlite:///([\w./-]+)", re.ASCII)


Importing = Callable[[], AbstractContextManager[None]]


def open_store_later(
    url: str | None = None, importing: Importing = contextlib.nullcontext
) -> Store:
    """``open_store(url)``, or, for a new SQLite file that ``open_store`` would accept
    without touching the database, a stand-in that opens it when first used. ``importing``:
    around the store's import, wherever it comes (the CLI's ``collector_paused``)."""
    raw = url or os.environ.get(STORE_URL_ENV) or DEFAULT_STORE_URL
    plain = _PLAIN_SQLITE.fullmatch(raw)
    if plain is None or not _creatable(Path(plain[1])):
        with importing():
            from assay.store.store import open_store

        return open_store(url)  # opened now, or its StoreError
    return cast("Store", _Deferred(raw, importing))


def _creatable(file: Path) -> bool:
    """What ``open_store`` checks of a new file: its first existing folder is writable."""
    if file.exists():
        return False  # an existing store: opened (and migrated) now
    existing = next((p for p in file.absolute().parents if p.exists()), None)
    return existing is None or (existing.is_dir() and os.access(existing, os.W_OK | os.X_OK))


class _Deferred:
    """The store ``open_store(url)`` opens, opened at first use."""

    in_memory = False  # a plain file's path (_PLAIN_SQLITE)

    def __init__(self, url: str, importing: Importing) -> None:
        self._url = url
        self._importing = importing
        self._store: Store | None = None

    def _opened(self) -> Store:
        if self._store is None:
            self._store = self.reopen()
        return self._store

    def __getattr__(self, name: str) -> Any:  # what Store has, its private parts too
        if name.startswith("__"):  # copy, pickle: not a store's
            raise AttributeError(name)
        return getattr(self._opened(), name)

    def reopen(self) -> Store:
        """The result writer's own store: opened where it is used, not here."""
        with self._importing():
            from assay.store.store import open_store

        return open_store(self._url)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
