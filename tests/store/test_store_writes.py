"""How a batch of results is written: prepared rows on the driver (see ``_bulk``) store
exactly what SQLAlchemy's types stored, and the driver's own errors are the store's."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import select, text

from assay.errors import StoreError
from assay.store import open_store
from assay.store.models import test_results, tool_invocations, turn_results
from tests.store.conftest import multi_turn, run_info, single


def test_json_columns_hold_what_sqlalchemys_json_type_writes(store_url: str) -> None:
    store = open_store(store_url)
    store.create_run(run_info("run-json"))
    result = multi_turn()
    store.add_results("run-json", [(0, result), (1, single("plain"))])
    assert result.turns is not None
    with store._engine.connect() as conn:
        errors = conn.execute(
            select(turn_results.c.errors)
            .join(test_results, test_results.c.id == turn_results.c.test_result_id)
            .where(test_results.c.test_name == result.test_name)
            .order_by(turn_results.c.turn_index)
        )
        args = conn.execute(
            select(tool_invocations.c.args)
            .join(test_results, test_results.c.id == tool_invocations.c.test_result_id)
            .where(test_results.c.test_name == result.test_name)
            .order_by(tool_invocations.c.turn_index, tool_invocations.c.call_index)
        )
        # read through the JSON type: the values
        assert list(errors.scalars()) == [[], ["grader said: unicode ✓ and a NUL \x00 byte"]]
        calls = [call for turn in result.turns for call in turn.tool_invocations]
        assert list(args.scalars()) == [call.args for call in calls]
        # and as text: json.dumps's, as SQLAlchemy (SQLite) and psycopg (COPY) wrote it
        raw = conn.execute(text("SELECT CAST(args AS TEXT) FROM assay_tool_invocations")).scalars()
        assert sorted(raw) == sorted(
            json.dumps(c.args) for c in [*calls, *single("plain").tool_invocations]
        )
    store.close()


def test_a_sqlite_failure_while_writing_a_batch_is_a_store_error(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    store = open_store(f"sqlite:///{db}")
    store.create_run(run_info("run-broken"))
    with sqlite3.connect(db) as broken:  # a store damaged behind assay's back
        broken.execute("DROP TABLE assay_tool_invocations")
    with pytest.raises(StoreError, match=r"the store sqlite:///.*a\.db failed: no such table"):
        store.add_results("run-broken", [(0, single("a"))])
    assert list(store.iter_results("run-broken")) == []  # the batch was rolled back whole
    store.close()
