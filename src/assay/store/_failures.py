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
