"""A PostgreSQL connection dropped in the middle of writing a batch (the server restarted,
an admin ran pg_terminate_backend) is replaced and the batch written again, once: the run
goes on, and nothing is stored twice."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from sqlalchemy import event

from assay.errors import StoreError
from assay.store import Store, open_store
from tests.conftest import PG_DATABASE, PG_HOST
from tests.store.conftest import run_info, single


@pytest.fixture
def store(pg_url: str) -> Iterator[Store]:
    with open_store(pg_url) as opened:
        opened.create_run(run_info("run-drop"))
        yield opened


def terminate_mid_batch(store: Store, pg_role: str, times: int) -> list[int]:
    """Terminate the store's own backend from another connection, inside the next
    ``times`` write transactions, once each has started writing (at its "already
    stored?" probe, after the run's row was locked)."""
    killed: list[int] = []

    def kill(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        if len(killed) < times and "unnest" in statement:
            pid = conn.connection.driver_connection.info.backend_pid
            admin = f"postgresql://{pg_role}@{PG_HOST}/{PG_DATABASE}"
            with psycopg.connect(admin, autocommit=True) as other:
                other.execute("SELECT pg_terminate_backend(%s)", [pid])
            killed.append(pid)

    event.listen(store._engine, "before_cursor_execute", kill)
    return killed


def test_a_batch_whose_connection_drops_is_written_once_on_a_new_one(
    store: Store, pg_role: str
) -> None:
    killed = terminate_mid_batch(store, pg_role, times=1)
    batch = [(i, single(f"t{i}")) for i in range(20)]
    store.add_results("run-drop", batch)  # no error: retried on a new connection
    assert len(killed) == 1
    assert [r.test_name for r in store.iter_results("run-drop")] == [f"t{i}" for i in range(20)]
    assert store.get_run("run-drop") is not None
    [record] = store.list_runs()
    assert record.total == 20  # counted once


def test_a_connection_that_drops_again_fails_the_write(store: Store, pg_role: str) -> None:
    killed = terminate_mid_batch(store, pg_role, times=2)
    with pytest.raises(StoreError, match="failed"):
        store.add_results("run-drop", [(0, single("a"))])
    assert len(killed) == 2  # retried once, not forever


def test_a_connection_dropped_before_the_copy_is_replaced_too(store: Store, pg_role: str) -> None:
    killed: list[int] = []

    def kill(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        if not killed and "nextval" in statement:  # the rows go next, by COPY on the driver
            pid = conn.connection.driver_connection.info.backend_pid
            admin = f"postgresql://{pg_role}@{PG_HOST}/{PG_DATABASE}"
            with psycopg.connect(admin, autocommit=True) as other:
                other.execute("SELECT pg_terminate_backend(%s)", [pid])
            killed.append(pid)

    event.listen(store._engine, "after_cursor_execute", kill)
    store.add_results("run-drop", [(i, single(f"t{i}")) for i in range(5)])
    assert killed and len(list(store.iter_results("run-drop"))) == 5
