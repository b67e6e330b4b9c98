"""Stored runs: SQLite by default, PostgreSQL for teams; migrated on open."""

from assay._defaults import DEFAULT_STORE_URL, STORE_URL_ENV
from assay.store._engine import mask_url
from assay.store._records import MetricOutcome, RunNotFound, RunRecord, RunStatus, TestOutcome
from assay.store.compare import MetricChange, RunDiff, TestChange
from assay.store.store import Store, open_store

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
