"""Database failures, as the store reports them: a StoreError naming the store (exit code
3), and one more try on a new connection when the connection itself was lost."""

from __future__ import annotations

import functools
import re
import sqlite3
import sys
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from assay.errors import first_line
from assay.secrets import MASK, MIN_SECRET_LENGTH

P = ParamSpec("P")
R = TypeVar("R")


def reason(exc: BaseException, password: str | None) -> str:
    """The first line of the database's message, without the store's password: a short one
    (under MIN_SECRET_LENGTH) only where it stands alone, else a password ``p`` would turn
    "port" into "***ort"."""
    first = first_line(getattr(exc, "orig", None) or exc) or type(exc).__name__
    if not password:
        return first
    if len(password) >= MIN_SECRET_LENGTH:
        return first.replace(password, MASK)
    return re.sub(rf"(?<!\w){re.escape(password)}(?!\w)", MASK, first)


def _driver_error(exc: BaseException) -> bool:
    """An error of a driver used directly: PostgreSQL's COPY, SQLite's cursor for a batch
    of results (see ``_bulk``)."""
    if isinstance(exc, sqlite3.Error):
        return True
    psycopg = sys.modules.get("psycopg")
    return psycopg is not None and isinstance(exc, psycopg.Error)


def db_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """A Store method whose database failures become the store's StoreError."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if not isinstance(exc, SQLAlchemyError) and not _driver_error(exc):
                raise
            store: Any = args[0]
            raise store._failure(exc) from exc

    return wrapper


def disconnected(exc: BaseException) -> bool:
    """Whether ``exc`` says the database connection was lost (a restarted server, a
    terminated backend), as opposed to the database refusing what was sent."""
    if isinstance(exc, DBAPIError):
        return bool(exc.connection_invalidated)
    psycopg = sys.modules.get("psycopg")
    return psycopg is not None and isinstance(exc, psycopg.OperationalError)


# SQLite's primary result codes that say the database file or its connection failed (disk
# full, I/O error, locked, corrupt, unopenable), not that it refused one row's values
_SQLITE_STORE_WIDE = frozenset(
    {
        sqlite3.SQLITE_PERM,
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
        sqlite3.SQLITE_NOMEM,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_INTERRUPT,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_CORRUPT,
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_PROTOCOL,
        sqlite3.SQLITE_NOLFS,
        sqlite3.SQLITE_AUTH,
        sqlite3.SQLITE_NOTADB,
    }
)
# PostgreSQL's SQLSTATE classes of the same: connection exception, insufficient resources
# (disk full, out of memory), operator intervention (shutdown), system error (I/O), internal
# error. Not 54, program limit exceeded: one row too large for an index is that row's.
_PG_STORE_WIDE = ("08", "53", "57", "58", "XX")


def store_wide(exc: BaseException) -> bool:
    """Whether ``exc`` (a store's StoreError, or what it was raised from) says the database
    itself failed (its disk full, an I/O error, the connection lost), so no write would
    have succeeded, as opposed to it refusing the values of what was written."""
    seen: BaseException | None = exc
    while seen is not None:
        driver = getattr(seen, "orig", None) or seen
        if isinstance(driver, sqlite3.Error):
            code = getattr(driver, "sqlite_errorcode", None)
            return code is not None and (code & 0xFF) in _SQLITE_STORE_WIDE
        psycopg = sys.modules.get("psycopg")
        if psycopg is not None and isinstance(driver, psycopg.Error):
            # no SQLSTATE: the server never answered (refused, dropped, timed out)
            state = driver.sqlstate
            return state is None or state[:2] in _PG_STORE_WIDE
        if isinstance(seen, DBAPIError) and seen.connection_invalidated:
            return True
        seen = seen.__cause__
    return False


def retry_disconnect(fn: Callable[P, R]) -> Callable[P, R]:
    """A write that is safe to repeat, tried once more when the connection drops under it
    (the pool replaces a dead connection when it is next used)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if not disconnected(exc):
                raise
        return fn(*args, **kwargs)

    return wrapper
