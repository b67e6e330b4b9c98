"""Stored runs: SQLite by default, PostgreSQL for teams; migrated on open.

``Store``, ``open_store`` and ``mask_url`` are loaded when first asked for: they import
SQLAlchemy (about a third of ``assay run``'s start-up imports), which the run's records
and the modules that only name ``Store`` in their types do not need; so are the comparison's
records (``RunDiff``...), which only ``assay diff`` and the dashboard use."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from assay._defaults import DEFAULT_STORE_URL, STORE_URL_ENV
from assay.store._records import MetricOutcome, RunNotFound, RunRecord, RunStatus, TestOutcome

if TYPE_CHECKING:
    from assay.store._engine import mask_url
    from assay.store.compare import MetricChange, RunDiff, TestChange
    from assay.store.store import Store, open_store

_LAZY = {
    "mask_url": "assay.store._engine",
    "Store": "assay.store.store",
    "open_store": "assay.store.store",
    "MetricChange": "assay.store.compare",
    "RunDiff": "assay.store.compare",
    "TestChange": "assay.store.compare",
}

__all__ = [
    "DEFAULT_STORE_URL",
    "STORE_URL_ENV",
    "MetricChange",
    "MetricOutcome",
    "RunNotFound",
    "RunDiff",
    "RunRecord",
    "RunStatus",
    "Store",
    "TestChange",
    "TestOutcome",
    "mask_url",
    "open_store",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
