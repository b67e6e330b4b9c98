"""SQLite's multi-row INSERTs bind a column that is one str in every row of a batch (of
``ONCE_MIN_ROWS`` rows or more) once per statement, every row naming that parameter
(``_bulk._literals``, ``ONCE``), and a column of bools as their ints: the rows stored,
values and types, are those the same values bound row by row store."""

from __future__ import annotations

import random
import sqlite3
from typing import Any

import pytest

from assay.runner.writer import _decode
from assay.store import _bulk, open_store
from tests.store.conftest import run_info, single
from tests.store.test_prepared_rows import dump, samples


class _Str(str):
    pass


# equal to the column's str, or not: each must be stored as it would be bound on its own
_ODD = ["", "\x00", "é ✓ 𝄞", "x" * 3000, _Str("same"), "same ", 1, 1.0, True, None, b"same"]


def _table(conn: sqlite3.Connection, name: str, width: int) -> None:
    kinds = ["TEXT", "INTEGER", "REAL", "NUMERIC", "JSON", ""]
    typed = ", ".join(f"c{j} {kinds[j % len(kinds)]}" for j in range(width))
    conn.execute(f"CREATE TABLE {name} ({typed})")


def _stored(conn: sqlite3.Connection, name: str, width: int) -> list[tuple[Any, ...]]:
    picked = ", ".join(f"c{j}, typeof(c{j})" for j in range(width))
    return conn.execute(f"SELECT {picked} FROM {name} ORDER BY rowid").fetchall()


@pytest.mark.parametrize("seed", range(60))
def test_a_column_bound_once_stores_what_binding_each_row_stores(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(_bulk, "_shapes", {})
    monkeypatch.setattr(_bulk, "_once_shapes", {})
    width, rows = rng.randrange(1, 9), rng.randrange(1, 200)
    kinds = [
        rng.choice(["same", "mostly", "mixed", "bools", "bools or None", None, True])
        for _ in range(width)
    ]
    texts = {j: rng.choice(["same", "é ✓", "", "[]", "\x00"]) for j in range(width)}
    values: list[Any] = []
    for r in range(rows):
        for j, kind in enumerate(kinds):
            if kind == "same":
                values.append(texts[j])
            elif kind == "mostly":  # one odd value somewhere, or none
                values.append(rng.choice(_ODD) if r == rows // 2 else "same")
            elif kind == "bools":  # bound as 1 and 0: stored as the bools bound are
                values.append(rng.random() < 0.5)
            elif kind == "bools or None":
                values.append(rng.choice([True, False, None]))
            elif kind == "mixed":
                values.append(rng.choice([f"{r}", 7, 2.5, None, "same"]))
            else:
                values.append(kind)
    values = [v.decode() if isinstance(v, bytes) else v for v in values]  # no blobs here
    conn = sqlite3.connect(":memory:")
    _table(conn, "once", width)
    _table(conn, "each", width)
    writer = object.__new__(_bulk.BatchWriter)
    writer._cursor = conn.cursor()
    columns = tuple(f"c{j}" for j in range(width))
    shape = _bulk._literals("once", width, values)
    monkeypatch.setattr(_bulk, "_shapes", {})
    monkeypatch.setattr(_bulk, "_once_shapes", {})
    writer.insert_values("once", columns, list(values))
    marks = ", ".join("?" * width)
    conn.executemany(
        f"INSERT INTO each VALUES ({marks})",
        [values[i : i + width] for i in range(0, len(values), width)],
    )
    assert _stored(conn, "once", width) == _stored(conn, "each", width)
    for j, kind in enumerate(kinds):  # which columns were bound once: exactly the one-str ones
        column = values[j::width]
        one_str = type(column[0]) is str and column.count(column[0]) == rows
        if shape is not None and _bulk.ONCE in shape and kind in ("same", "mostly"):
            assert (shape[j] == _bulk.ONCE) == (one_str and rows >= _bulk.ONCE_MIN_ROWS)


def test_only_a_batch_of_enough_rows_binds_a_column_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_bulk, "_shapes", {})
    monkeypatch.setattr(_bulk, "_once_shapes", {})
    few = _bulk.ONCE_MIN_ROWS - 1
    assert _bulk._literals("t", 2, ["run", "a"] * few) is None
    assert _bulk._literals("t", 2, ["run", None] * few) == (None, "NULL")
    rows = [v for i in range(few + 1) for v in ("run", f"name {i}")]
    assert _bulk._literals("t", 2, rows) == (_bulk.ONCE, None)
    assert _bulk._literals("t", 2, [_Str("run"), "x"] + ["run", "y"] * few) is None  # not a str
    assert _bulk._literals("t", 2, ["run", None] * (few + 1)) == (None, "NULL")  # nothing else
    statement = _bulk._insert("t", ("a", "b", "c"), False, 2, (_bulk.ONCE, None, "NULL"))
    assert statement == 'INSERT INTO "t" ("a", "b", "c") VALUES (?3, ?1, NULL), (?3, ?2, NULL)'


def test_batches_with_columns_bound_once_store_what_binding_stores(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the store: batches of results sharing their run id, test type, a metric's
    name, "[]" and more, stored with every value bound, and with one-str columns bound once
    (and a batch of one result at a time): the same rows, values and types."""
    results = [single(f"t{i}", passed=i % 3 != 0) for i in range(40)] + samples()
    store = open_store(sqlite_url)
    for run in ("bound", "once", "one-by-one"):
        store.create_run(run_info(run))
    handed = [(i, _decode(r.model_dump_json().encode())) for i, r in enumerate(results)]
    monkeypatch.setattr(_bulk, "_shapes", {})
    monkeypatch.setattr(_bulk, "_once_shapes", {})
    monkeypatch.setattr(_bulk, "PLAIN_SHAPES", 0)  # no shape allowed: every value bound
    monkeypatch.setattr(_bulk, "ONCE_SHAPES", 0)
    store.add_results("bound", handed)
    assert not _bulk._shapes.get("assay_test_results")
    assert not _bulk._once_shapes.get("assay_test_results")
    monkeypatch.setattr(_bulk, "PLAIN_SHAPES", 3)
    monkeypatch.setattr(_bulk, "ONCE_SHAPES", 3)
    store.add_results("once", handed)
    assert any(_bulk.ONCE in shape for shape in _bulk._once_shapes["assay_test_results"])
    for item in handed:
        store.add_results("one-by-one", [item])
    bound = dump(store, "bound")
    assert len(bound["assay_test_results"]) == len(results)
    assert dump(store, "once") == bound
    assert dump(store, "one-by-one") == bound
    store.close()


def test_past_its_shapes_binding_once_leaves_the_literals_as_they_were(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Shapes binding once have their own room: when it is full, a batch gets the shape it
    would get if nothing were bound once (literals and their room as before)."""
    monkeypatch.setattr(_bulk, "_shapes", {})
    monkeypatch.setattr(_bulk, "_once_shapes", {})
    monkeypatch.setattr(_bulk, "ONCE_SHAPES", 1)
    rows = _bulk.ONCE_MIN_ROWS
    first = [v for i in range(rows) for v in ("run", None, f"n{i}", "a")]
    assert _bulk._literals("t", 4, first) == (_bulk.ONCE, "NULL", None, _bulk.ONCE)
    other = [v for i in range(rows) for v in ("run", None, f"n{i}", f"b{i}")]
    assert _bulk._literals("t", 4, other) == (None, "NULL", None, None)  # no room left
    assert _bulk._literals("t", 4, first) == (_bulk.ONCE, "NULL", None, _bulk.ONCE)
    assert _bulk._shapes["t"] == {(None, "NULL", None, None)}
    monkeypatch.setattr(_bulk, "PLAIN_SHAPES", 1)
    third = [v for i in range(rows) for v in ("run", True, f"n{i}", f"b{i}")]
    assert _bulk._literals("t", 4, third) is None  # neither room: every value bound


class _Recorder:
    def __init__(self) -> None:
        self.params: list[Any] = []

    def execute(self, statement: str, params: list[Any]) -> None:
        self.params += params


def test_a_column_of_bools_is_bound_as_ints_and_one_with_none_as_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In a batch of ONCE_MIN_ROWS rows or more; a smaller one binds its bools as they are."""
    monkeypatch.setattr(_bulk, "_shapes", {})
    monkeypatch.setattr(_bulk, "_once_shapes", {})
    rows = _bulk.ONCE_MIN_ROWS
    flags = [i % 3 == 0 for i in range(rows)]
    maybe = [None if i == 1 else i % 2 == 0 for i in range(rows)]
    for many in (rows, rows - 1):
        writer = object.__new__(_bulk.BatchWriter)
        writer._cursor = _Recorder()
        values = [v for i in range(many) for v in (None, flags[i], maybe[i], f"n{i}")]
        writer.insert_values("t", ("a", "b", "c", "d"), values)
        bound = writer._cursor.params
        assert bound[0::3] == flags[:many] and bound[1::3] == maybe[:many]
        kinds = {type(v) for v in bound[0::3]}
        assert kinds == ({int} if many == rows else {bool})
        assert {type(v) for v in bound[1::3]} == {bool, type(None)}
