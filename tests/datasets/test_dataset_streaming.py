"""validate_dataset streams: its peak Python memory on a single-turn file does not grow
with the file (load_dataset, which keeps the rows, is the contrast)."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from assay.datasets import load_dataset, validate_dataset

ROWS = 40_000
BUDGET = 1 << 20  # 1 MiB: keeping 40,000 rows would take well over 10 MiB


def _peak(fn: Callable[[Path], object], path: Path) -> int:
    tracemalloc.start()
    try:
        fn(path)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _csv(path: Path, rows: int) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        handle.write("Question,Answer,expected_tool_calls\n")
        for i in range(rows):
            handle.write(f'Question {i}?,Answer {i},"[{{""name"": ""tool_{i}""}}]"\n')
    return path


def _jsonl(path: Path, rows: int) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for i in range(rows):
            row = {"Question": f"Question {i}?", "Answer": f"Answer {i}", "tools": [{"name": "t"}]}
            handle.write(json.dumps(row) + "\n")
    return path


@pytest.mark.parametrize("write", [_csv, _jsonl], ids=["csv", "jsonl"])
def test_validate_memory_does_not_grow_with_the_file(
    tmp_path: Path, write: Callable[[Path, int], Path]
) -> None:
    ext = "csv" if write is _csv else "jsonl"
    validate_dataset(write(tmp_path / f"warm.{ext}", 10))  # first-use allocations
    path = write(tmp_path / f"big.{ext}", ROWS)
    peak = _peak(validate_dataset, path)
    assert peak < BUDGET, f"validate_dataset peaked at {peak / 2**20:.1f} MiB"
    assert validate_dataset(path).rows == ROWS


def test_load_keeps_the_rows_so_the_budget_is_meaningful(tmp_path: Path) -> None:
    path = _csv(tmp_path / "big.csv", ROWS)
    assert _peak(load_dataset, path) > 10 * BUDGET
