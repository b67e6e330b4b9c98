"""Opening a store: which URLs are accepted, the engine, SQLite's pragmas and transactions,
and the Alembic migrations that bring the schema to head on every open."""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    URL,
    Connection,
    Engine,
    create_engine,
    event,
    inspect,
    make_url,
    text,
)
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import StaticPool

from assay._defaults import DEFAULT_STORE_URL, STORE_URL_ENV
from assay.errors import StoreError, StoreURLError
from assay.secrets import mask_url_query
from assay.version import __version__

if TYPE_CHECKING:
    from alembic.config import Config

VERSION_TABLE = "assay_alembic_version"
# The newest migration's revision: a store already there is opened without importing
# Alembic at all (a test checks this against the migration scripts).
HEAD_REVISION = "0004"
MIGRATIONS = "assay.store:migrations"
SQLITE_BUSY_TIMEOUT_MS = 30_000
SQLITE_STATEMENTS = 256  # prepared statements a connection keeps (the driver's 128: see _bulk)
WAL_RETRY_S = 0.02
PG_CONNECT_TIMEOUT_S = 10
_MIGRATING = threading.Lock()
PG_MIGRATION_LOCK = 0x61737361_79  # one advisory lock key for every assay migration


def mask_url(url: str | URL) -> str:
    """The URL with its password, if any, replaced by ``***``, and the value of a credential
    query parameter (``?password=``, ``?sslpassword=``) too: libpq takes either."""
    if isinstance(url, URL):
        return mask_url_query(url.render_as_string(hide_password=True))
    try:
        return mask_url_query(make_url(url).render_as_string(hide_password=True))
    except (ArgumentError, ValueError):
        return mask_url_query(re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url))


def resolve_url(url: str | None) -> URL:
    """The store URL to open: the given one, else $ASSAY_STORE, else the default SQLite file.
    ``postgresql://`` and ``postgres://`` mean the psycopg 3 driver."""
    raw = url or os.environ.get(STORE_URL_ENV) or DEFAULT_STORE_URL
    try:
        parsed = make_url(raw)
    except (ArgumentError, ValueError) as exc:
        raise _unsupported(raw, f"not a database URL ({exc})") from None
    backend = parsed.get_backend_name()
    if parsed.drivername in ("postgres", "postgresql"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    elif backend != "sqlite" and backend != "postgresql":
        raise _unsupported(raw, f"the {backend!r} database is not supported")
    elif backend == "sqlite" and (parsed.host or parsed.port):  # sqlite://NAME: two slashes
        raise _unsupported(
            raw,
            f"a SQLite URL names a file, not a host ({parsed.host!r}): write three slashes for "
            "a relative path (sqlite:///runs.db) and four for an absolute one",
        )
    return parsed


def _unsupported(raw: str, why: str) -> StoreURLError:
    return StoreURLError(
        f"cannot open the store {mask_url(raw)}: {why}; "
        "use sqlite:///PATH or postgresql+psycopg://USER:PASSWORD@HOST:PORT/DATABASE"
    )


def is_sqlite(url: URL) -> bool:
    return url.get_backend_name() == "sqlite"


def sqlite_in_memory(url: URL) -> bool:
    """An in-memory SQLite store (``sqlite://``, ``sqlite:///:memory:``, ``mode=memory``):
    it lives in the one connection that opened it; another connection (another engine's,
    another process's) opens another, empty database."""
    if not is_sqlite(url):
        return False
    database = url.database or ":memory:"
    return database == ":memory:" or "mode=memory" in database or url.query.get("mode") == "memory"


def sqlite_file(url: URL) -> Path | None:
    """The file of a file-backed SQLite store; None for PostgreSQL or an in-memory one."""
    if not is_sqlite(url) or sqlite_in_memory(url):
        return None
    database = url.database or ":memory:"
    if database.startswith("file:"):
        return None
    return Path(database).expanduser()


def create_store_engine(url: URL) -> Engine:
    if not is_sqlite(url):
        connect_args = (
            {} if "connect_timeout" in url.query else {"connect_timeout": PG_CONNECT_TIMEOUT_S}
        )
        return create_engine(url, connect_args=connect_args, pool_pre_ping=True)
    in_memory = sqlite_in_memory(url)
    file = sqlite_file(url)
    if file is not None:
        file.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url,
        connect_args={
            "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000,
            "check_same_thread": False,
            "cached_statements": SQLITE_STATEMENTS,
        },
        poolclass=StaticPool if in_memory else None,
    )
    event.listen(engine, "connect", _sqlite_connect)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # Let SQLAlchemy's "begin" event below start transactions, so DDL is transactional too.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        _use_wal(cursor)
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


def _use_wal(cursor: sqlite3.Cursor) -> None:
    """Switch the file to WAL (it stays so). The switch needs an exclusive lock and SQLite
    does not wait for it: "database is locked" comes at once while another process writes,
    as when several processes create a store together. So retry, for the busy timeout."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            mode = cursor.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            mode = None
        if mode in ("wal", "memory") or time.monotonic() > deadline:
            return  # past the deadline, the store still works, in its old journal mode
        time.sleep(WAL_RETRY_S)


def _sqlite_begin(connection: Connection) -> None:
    # Writers take the write lock up front (BEGIN IMMEDIATE): a deferred transaction that
    # later needs to write can fail at once with "database is locked" despite busy_timeout.
    mode = connection.get_execution_options().get("sqlite_begin", "")
    connection.exec_driver_sql(f"BEGIN {mode}".strip())


def write_connection(engine: Engine) -> Connection:
    """A connection whose transactions take SQLite's write lock when they begin."""
    return engine.connect().execution_options(sqlite_begin="IMMEDIATE")


def _alembic_config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", MIGRATIONS)
    return config


def _current_revision(connection: Connection) -> str | None:
    if not inspect(connection).has_table(VERSION_TABLE):
        return None
    row = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).first()
    return None if row is None else str(row[0])


def migrate(engine: Engine, use_scripts: bool = False) -> None:
    """Bring the schema to head. Cheap when it already is (one query, no Alembic import);
    two processes opening a new store at once are serialised (SQLite's write lock,
    PostgreSQL's advisory lock), and the second finds the schema already there.

    A new, empty store gets the models' tables and the head revision directly (the
    migration scripts build the same schema, as a test checks with ``use_scripts``);
    an older schema is upgraded by Alembic."""
    with engine.connect() as connection:
        current = _current_revision(connection)
        connection.rollback()
    if current == HEAD_REVISION:
        return
    if current is None and not use_scripts:
        with _MIGRATING, write_connection(engine) as connection, connection.begin():
            _lock(connection)
            if _current_revision(connection) is None:
                _create_at_head(connection)
        return
    from alembic import command
    from alembic.script import ScriptDirectory

    config = _alembic_config()
    scripts = ScriptDirectory.from_config(config)
    if current is not None and current not in {s.revision for s in scripts.walk_revisions()}:
        raise StoreError(
            f"the store {mask_url(engine.url)} has schema version {current}, made by a newer "
            f"assay than this one ({__version__}); upgrade assay to use it"
        )
    # Alembic's op/context proxies are module globals: one migration per process at a time.
    with _MIGRATING, write_connection(engine) as connection, connection.begin():
        _lock(connection)
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def _lock(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_MIGRATION_LOCK})


def _create_at_head(connection: Connection) -> None:
    from assay.store.models import metadata

    metadata.create_all(connection)
    connection.execute(
        text(
            f"CREATE TABLE {VERSION_TABLE} (version_num VARCHAR(32) NOT NULL, "
            f"CONSTRAINT {VERSION_TABLE}_pkc PRIMARY KEY (version_num))"
        )
    )
    connection.execute(text(f"INSERT INTO {VERSION_TABLE} VALUES (:v)"), {"v": HEAD_REVISION})
