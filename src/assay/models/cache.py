"""The response cache: a SQLite file of model replies, keyed by a SHA-256 of the request.

The key covers the provider, the endpoint, the model, the sampling parameters, the schema
and the messages (and a sample index, so repeated samples are separate entries), never the
API key. A second identical request is answered from the file without an HTTP call.
Known secrets in a reply (a key the judge echoed) are masked before it is stored. The cache
only saves calls: an entry that cannot be read, or a file that cannot be written, is logged
and treated as a miss, never a failed metric.

One ``sqlite3`` connection guarded by a lock; calls run in a worker thread so the event loop
never blocks on disk. WAL mode lets several processes share the file.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from assay.secrets import redact_value

DEFAULT_CACHE_PATH = Path(".assay") / "cache.db"
log = logging.getLogger("assay.models")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    created_at REAL NOT NULL
)
"""


def cache_key(request: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``request`` (sorted keys, no whitespace)."""
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def default_cache_path(store_url: str | None = None) -> Path:
    """``cache.db`` beside a SQLite store (``sqlite:///.assay/assay.db`` →
    ``.assay/cache.db``); ``.assay/cache.db`` for any other store."""
    prefix = "sqlite:///"
    if store_url and store_url.startswith(prefix):
        db = store_url[len(prefix) :].split("?", 1)[0]
        if db and db != ":memory:":
            return Path(db).parent / "cache.db"
    return DEFAULT_CACHE_PATH


class ResponseCache:
    """``await cache.get(key)`` / ``await cache.put(key, value)``; values are JSON objects."""

    def __init__(self, path: str | Path = DEFAULT_CACHE_PATH) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(_SCHEMA)
            self._conn.commit()
        self.hits = 0
        self.misses = 0

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.path)!r})"

    def get_sync(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            try:
                row = self._conn.execute(
                    "SELECT value FROM responses WHERE key = ?", (key,)
                ).fetchone()
            except sqlite3.Error as exc:
                log.warning("the judge cache %s cannot be read (%s): asking the judge", self, exc)
                row = None
            if row is None:
                self.misses += 1
                return None
            self.hits += 1
        try:
            value = json.loads(row[0])
        except (ValueError, TypeError, RecursionError):
            return None
        return value if isinstance(value, dict) else None

    def put_sync(self, key: str, value: dict[str, Any]) -> None:
        text = json.dumps(redact_value(value), ensure_ascii=False)
        with self._lock:
            try:
                self._conn.execute(
                    "INSERT OR REPLACE INTO responses (key, value, created_at) VALUES (?, ?, ?)",
                    (key, text, time.time()),
                )
                self._conn.commit()
            except sqlite3.Error as exc:
                log.warning("the judge cache %s cannot be written (%s)", self, exc)

    async def get(self, key: str) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.get_sync, key)

    async def put(self, key: str, value: dict[str, Any]) -> None:
        await asyncio.to_thread(self.put_sync, key, value)

    def __len__(self) -> int:
        with self._lock:
            row = self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()
        return int(row[0])

    def clear(self) -> None:
        with self._lock:
            self._conn.execute("DELETE FROM responses")
            self._conn.commit()

    def close(self) -> None:
        with self._lock:
            self._conn.close()
