"""The run's writer reads a result's rows straight from its JSON (``prepare_json``): the
same rows, of the same types, as from the validated model, and the same stored bytes; and
anything the model would not take as it is goes the model's way."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from sqlalchemy import text

from assay.results.models import TestResult
from assay.runner.writer import _decode, encode_result, store_batch
from assay.store import open_store
from assay.store._rows import (
    METRIC_COLUMNS,
    TEST_COLUMNS,
    TOOL_COLUMNS,
    TURN_COLUMNS,
    Prepared,
    prepare,
    prepare_json,
)
from tests.store.conftest import goal_result, metric, multi_turn, run_info, single

FIELDS = ("test_name", "repeat_index", "passed", "test", "turns", "metrics", "tools")


def samples() -> list[TestResult]:
    odd = single('odd ✓ "quoted" \\ back\tslash', passed=False, score=0.25, repeat=3)
    assert odd.turns is None
    huge = odd.model_copy(
        update={
            "test_name": "huge",
            "execution_time_ms": 2**62,
            "metric_results": [
                metric("m", 1e300, True, threshold=-0.0, error="x" * 5000, details={"a": [1]}),
                metric("n", None, None, kind="judge", reasoning="r", model_used="judge-1"),
            ],
        }
    )
    return [single("a"), single("b", passed=False), multi_turn(), goal_result(), odd, huge]


def payloads() -> list[bytes]:
    return [encode_result(result)[1] for result in samples()]


def assert_same(fast: Prepared | None, payload: bytes) -> None:
    assert fast is not None
    slow = prepare(payload.decode(), TestResult.model_validate_json(payload))
    for name in FIELDS:  # repr: 1 and 1.0, True and 1 differ
        assert repr(getattr(fast, name)) == repr(getattr(slow, name)), name
    assert fast.payload == payload.decode()
    assert fast.result == slow.result


@pytest.mark.parametrize("index", range(6))
def test_rows_read_from_the_json_are_the_validated_models(index: int) -> None:
    payload = payloads()[index]
    assert_same(prepare_json(payload), payload)


def edited(change: Any) -> bytes:
    data = json.loads(payloads()[2])  # the multi-turn result: every kind of row
    change(data)
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["turns"][0]["metric_results"][0].update(score=1),  # an int for a float
        lambda d: d["turns"][1].update(execution_time_ms=388.0),  # a float for an int
        lambda d: [d.pop(k) for k in ("tags", "warnings", "status", "trace")],  # defaults
        lambda d: d["turns"][0].pop("skipped"),
        lambda d: d.update(turns=[]),  # an empty list of turns: stored as its own turn
        lambda d: d["metric_results"].append(d["turns"][0]["metric_results"][1]),
    ],
)
def test_values_validation_converts_or_fills_in_are_converted_alike(change: Any) -> None:
    payload = edited(change)
    assert_same(prepare_json(payload), payload)


@pytest.mark.parametrize(
    "payload",
    [
        edited(lambda d: d.update(surprise=1)),  # an unknown field
        edited(lambda d: d.pop("test_name")),
        edited(lambda d: d["turns"][0]["tool_invocations"][0].update(name=None)),
        edited(lambda d: d["turns"][1]["metric_results"][0].update(kind="vibes")),
        edited(lambda d: d["turns"][0]["token_usage"].update(extra=1)),
        edited(lambda d: d.update(execution_time_ms=1.5)),
        edited(lambda d: d.update(test_name="a NUL \x00 here")),  # left to the model's clean
        b'{"test_name": "x", "passed": tru',
        b"\xff\xfe not UTF-8",
        b"[]",
    ],
)
def test_what_the_model_would_not_take_as_it_is_is_not_read_from_the_json(
    payload: bytes,
) -> None:
    assert prepare_json(payload) is None


def test_a_nul_in_the_json_takes_the_models_way_and_is_cleaned() -> None:
    payload = edited(lambda d: d.update(test_name="a NUL \x00 here"))
    decoded = _decode(payload)
    assert not isinstance(decoded, Prepared)
    assert decoded.result.test_name == "a NUL \x00 here"


def test_non_finite_floats_are_read_as_the_model_reads_them() -> None:
    payload = edited(lambda d: None).replace(b'"score": 1.0', b'"score": NaN', 1)
    fast = prepare_json(payload)
    assert fast is not None
    assert any(math.isnan(row[5]) for row in fast.metrics if row[5] is not None)
    slow = prepare(payload.decode(), TestResult.model_validate_json(payload))
    for name in FIELDS:
        assert repr(getattr(fast, name)) == repr(getattr(slow, name)), name


def dump(store: Any, run_id: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row the run stored, each value with its type as the database has it; the ids
    the database made are left out (the test is named by its position)."""
    postgresql = store._engine.dialect.name == "postgresql"
    kind = "pg_typeof({})::text" if postgresql else "typeof({})"
    tables = {
        "assay_test_results": TEST_COLUMNS[2:],
        "assay_turn_results": TURN_COLUMNS[1:],
        "assay_metric_results": METRIC_COLUMNS[1:],
        "assay_tool_invocations": TOOL_COLUMNS[1:],
    }
    found = {}
    with store._engine.connect() as conn:
        for table, columns in tables.items():
            picked = ", ".join(f'CAST(c."{c}" AS TEXT), {kind.format(f"c.{c}")}' for c in columns)
            if table == "assay_test_results":
                query = f"SELECT {picked} FROM {table} c WHERE c.run_id = :run ORDER BY 1"
            else:
                query = (
                    f"SELECT t.position, {picked} FROM {table} c JOIN assay_test_results t "
                    "ON t.id = c.test_result_id WHERE t.run_id = :run ORDER BY 1, 2, 4"
                )
            found[table] = [tuple(row) for row in conn.execute(text(query), {"run": run_id})]
    return found


def test_the_writer_stores_the_bytes_and_types_the_model_path_stores(store_url: str) -> None:
    again = TestResult.model_validate_json(edited(lambda d: d.update(test_name="edited")))
    results = [*samples(), again]
    store = open_store(store_url)
    store.create_run(run_info("by-model"))
    store.create_run(run_info("by-json"))
    store.add_results("by-model", list(enumerate(results)))
    # the JSON the model path stores (encode_result would have replaced the NUL)
    handed = [_decode(result.model_dump_json().encode()) for result in results]
    assert sum(isinstance(item, Prepared) for item in handed) == len(results) - 1  # the NUL
    store.add_results("by-json", list(enumerate(handed)))
    by_model, by_json = dump(store, "by-model"), dump(store, "by-json")
    assert by_model == by_json
    assert len(by_json["assay_test_results"]) == len(results)
    assert all(by_json.values())
    store.close()


@pytest.mark.parametrize("count", [1, 63, 64, 65, 131])
def test_a_batch_of_any_size_stores_every_row_in_order(store_url: str, count: int) -> None:
    """SQLite takes a batch's rows 64, 32, ... at a time: every row lands, once."""
    store = open_store(store_url)
    store.create_run(run_info("many"))
    results = [single(f"t{i}", passed=i % 3 != 0) for i in range(count)]
    handed = [(i, _decode(r.model_dump_json().encode())) for i, r in enumerate(results)]
    store.add_results("many", handed)
    rows = dump(store, "many")
    assert sorted(int(row[0]) for row in rows["assay_test_results"]) == list(range(count))
    for table in ("assay_turn_results", "assay_metric_results", "assay_tool_invocations"):
        assert sorted(row[0] for row in rows[table]) == list(range(count))
    [record] = store.list_runs()
    assert (record.total, record.passed) == (count, sum(r.passed for r in results))
    store.close()


def test_a_refused_row_in_a_large_batch_costs_only_its_test(store_url: str) -> None:
    store = open_store(store_url)
    store.create_run(run_info("poison"))
    payloads = [single(f"t{i}").model_dump_json() for i in range(100)]
    data = json.loads(payloads[70])
    data["token_usage"]["total_tokens"] = 2**70  # neither database holds it
    payloads[70] = json.dumps(data)
    assert store_batch(
        store, "poison", [(i, _decode(p.encode())) for i, p in enumerate(payloads)]
    ) == [70]
    stored = {r.test_name: r for r in store.iter_results("poison")}
    assert len(stored) == 100 and stored["t70"].status == "error"
    assert all(r.status == "passed" for name, r in stored.items() if name != "t70")
    store.close()
