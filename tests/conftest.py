"""Fixtures every test package may use.

``pg_url``: a PostgreSQL store on the real server at 127.0.0.1:5432 (database ``test``) in
a schema of its own (``search_path`` in the URL), created for one test and dropped after
it, so tests never see each other's runs or anyone else's tables in the shared database.
"""

from __future__ import annotations

import signal
import uuid
from collections.abc import Iterator

import psycopg
import pytest

# A shell that starts a job in the background (`make test &` in a script) makes it ignore
# SIGINT, and an ignored signal stays ignored in every program it starts: the tests that
# press Ctrl-C on `assay run` would then test nothing. A handler (unlike "ignore") is reset
# to the default in a child, so the children get Ctrl-C as from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

PG_HOST = "127.0.0.1:5432"
PG_DATABASE = "test"
PG_ROLES = ("postgres", "root")


def _pg_role() -> str:
    reasons = []
    for role in PG_ROLES:
        try:
            with psycopg.connect(f"postgresql://{role}@{PG_HOST}/{PG_DATABASE}", connect_timeout=5):
                return role
        except psycopg.Error as exc:
            reasons.append(f"{role}: {exc}")
    raise RuntimeError(
        f"PostgreSQL at {PG_HOST} is needed by the store tests: {'; '.join(reasons)}"
    )


@pytest.fixture(scope="session")
def pg_role() -> str:
    return _pg_role()


@pytest.fixture
def pg_url(pg_role: str) -> Iterator[str]:
    schema = f"assay_test_{uuid.uuid4().hex[:12]}"
    admin = f"postgresql://{pg_role}@{PG_HOST}/{PG_DATABASE}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    yield f"postgresql+psycopg://{pg_role}@{PG_HOST}/{PG_DATABASE}?options=-csearch_path%3D{schema}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
