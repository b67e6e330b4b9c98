"""SQLite's multi-row INSERTs write a column that is all None, all True or all False in a
batch into the statement (``_bulk._literals``) and bind the others: the values bound are
exactly the other columns' values, row after row, whatever the batch holds."""

from __future__ import annotations

import random
from itertools import compress, cycle
from typing import Any

import pytest

from assay.store import _bulk


class _Cursor:
    def __init__(self) -> None:
        self.calls: list[tuple[str, list[Any]]] = []

    def execute(self, statement: str, params: list[Any]) -> None:
        self.calls.append((statement, list(params)))


@pytest.mark.parametrize("seed", range(40))
def test_the_values_bound_are_the_other_columns_in_row_order(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(_bulk, "_shapes", {})
    width, rows = rng.randrange(2, 12), rng.randrange(1, 150)
    kinds = [rng.choice([None, True, False, "mixed"]) for _ in range(width)]
    values: list[Any] = []
    for r in range(rows):
        for j, kind in enumerate(kinds):
            values.append(f"{r}.{j}" if kind == "mixed" and rng.random() < 0.7 else kind)
    literals = _bulk._literals("t", width, values)
    monkeypatch.setattr(_bulk, "_shapes", {})
    writer = object.__new__(_bulk.BatchWriter)
    writer._cursor = _Cursor()
    columns = tuple(f"c{j}" for j in range(width))
    writer.insert_values("t", columns, list(values))
    bound = [value for _, params in writer._cursor.calls for value in params]
    if literals is None:
        assert bound == values
    else:
        expected = list(compress(values, cycle([literal is None for literal in literals])))
        assert bound == expected
        assert all(
            literal in statement
            for statement, _ in writer._cursor.calls
            for literal in [x for x in literals if x]
        )
