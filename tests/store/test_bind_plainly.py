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


def test_columns_written_into_the_statement_store_what_binding_stores(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A column that is all None, all True or all False in a batch is written into the
    INSERT as NULL, 1 or 0: the same values and types as bound ones."""
    from assay.store import _bulk

    results = samples()
    store = open_store(sqlite_url)
    for run in ("bound", "literal", "one-by-one"):
        store.create_run(run_info(run))
    handed = [(i, _decode(r.model_dump_json().encode())) for i, r in enumerate(results)]
    monkeypatch.setattr(_bulk, "_shapes", {})
    monkeypatch.setattr(_bulk, "PLAIN_SHAPES", 0)  # no shape allowed: every value bound
    store.add_results("bound", handed)
    assert not _bulk._shapes.get("assay_metric_results")
    monkeypatch.setattr(_bulk, "PLAIN_SHAPES", 3)
    store.add_results("literal", handed)
    for item in handed:  # a batch of one: its Nones and bools all written in
        store.add_results("one-by-one", [item])
    shapes = _bulk._shapes["assay_metric_results"]
    assert any("NULL" in shape for shape in shapes)
    assert any("1" in shape or "0" in shape for shape in _bulk._shapes["assay_turn_results"])
    bound = dump(store, "bound")
    assert dump(store, "literal") == bound
    assert dump(store, "one-by-one") == bound
    store.close()
