"""Stored runs: SQLite by default, PostgreSQL for teams; migrated on open."""

from assay.store._engine import DEFAULT_STORE_URL, STORE_URL_ENV, mask_url
from assay.store._records import MetricOutcome, RunNotFound, RunRecord, RunStatus, TestOutcome
from assay.store.store import Store, open_store

__all__ = [
    "DEFAULT_STORE_URL",
    "STORE_URL_ENV",
    "MetricOutcome",
    "RunNotFound",
    "RunRecord",
    "RunStatus",
    "Store",
    "TestOutcome",
    "mask_url",
    "open_store",
]
