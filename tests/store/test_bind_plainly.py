"""The forked writer's SQLite adapters for True/False and None (``bind_plainly``) store the
same values, of the same types, as the driver does without them."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from assay.runner.writer import _decode
from assay.store import open_store
from assay.store._bulk import bind_plainly
from tests.store.conftest import run_info
from tests.store.test_prepared_rows import dump, samples


@pytest.fixture
def adapters_restored() -> Iterator[None]:
    saved = dict(sqlite3.adapters)
    yield
    sqlite3.adapters.clear()
    sqlite3.adapters.update(saved)


@pytest.mark.usefixtures("adapters_restored")
def test_bools_and_nones_bound_plainly_are_stored_as_without(sqlite_url: str) -> None:
    results = samples()
    store = open_store(sqlite_url)
    store.create_run(run_info("driver"))
    store.create_run(run_info("plain"))
    store.add_results(
        "driver", [(i, _decode(r.model_dump_json().encode())) for i, r in enumerate(results)]
    )
    bind_plainly()
    assert len(sqlite3.adapters) >= 2
    store.add_results(
        "plain", [(i, _decode(r.model_dump_json().encode())) for i, r in enumerate(results)]
    )
    driver, plain = dump(store, "driver"), dump(store, "plain")
    assert driver == plain
    kinds = {kind for rows in plain.values() for row in rows for kind in row[1::2]}
    assert {"integer", "null"} <= kinds
    store.close()
