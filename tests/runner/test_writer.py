"""The result writer process: everything handed over is stored, in order; a store failure
in the writer reaches the run as a StoreError (exit 3) instead of being lost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.errors import StoreError
from assay.results import TurnResult, single_turn_result
from assay.results.models import RunInfo
from assay.runner.writer import BATCH_SIZE, ResultWriter
from assay.store import open_store


def result(i: int) -> Any:
    turn = TurnResult(
        turn_index=0, input=f"q{i}", response=f"r{i}", passed=i % 3 != 0, execution_time_ms=i
    )
    return single_turn_result(f"t{i:04d}", turn, "2026-01-01T00:00:00+00:00")


def test_every_result_is_stored_in_position_order(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    store.create_run(RunInfo(id="run-1", suite_name="s", started_at="t", assay_version="0"))
    writer = ResultWriter(store.reopen, "run-1")
    count = BATCH_SIZE * 2 + 7  # two full batches and a partial one flushed by close
    for i in reversed(range(count)):  # handed over out of order, as tests finish
        writer.add(i, result(i).model_dump_json())
    writer.close()
    assert writer.written == count
    stored = list(store.iter_results("run-1"))
    assert [r.test_name for r in stored] == [f"t{i:04d}" for i in range(count)]
    assert stored[5] == result(5)  # lossless round trip through the pipe


class FailingStore:
    def add_results(self, run_id: str, batch: list[Any]) -> None:
        raise StoreError("the store sqlite:///x.db failed: disk I/O error")

    def close(self) -> None:
        pass


def test_a_store_failure_in_the_writer_is_raised_in_the_run() -> None:
    writer = ResultWriter(FailingStore, "run-1")
    with pytest.raises(StoreError, match="disk I/O error"):
        for i in range(BATCH_SIZE * 4):
            writer.add(i, result(i).model_dump_json())
        writer.close()


def test_a_hand_over_carries_each_json_whole_whatever_it_holds() -> None:
    from array import array

    from assay.runner.writer import Item, _frame, _unframe
    from assay.store._rows import Prepared

    made = [result(i) for i in (1, 22, 333)]
    made[1] = made[1].model_copy(update={"test_input": "12 \x1e 34 ", "agent_response": ""})
    texts = [r.model_dump_json() for r in made]
    batch: list[Item] = []
    _unframe(_frame(array("q", [7, 2**40, 0]), [t.encode() for t in texts], [None] * 3), batch)
    assert [position for position, _ in batch] == [7, 2**40, 0]
    assert [item.payload for _, item in batch] == texts
    assert all(isinstance(item, Prepared) for _, item in batch)
