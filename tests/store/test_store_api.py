"""The Store API on a real SQLite file and on the real PostgreSQL server."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import create_engine, func, select

from assay.errors import ConfigError
from assay.results.models import TestResult
from assay.results.rollup import summarize
from assay.store import RunNotFound, Store, open_store
from assay.store.models import metric_results, test_results, tool_invocations, turn_results
from tests.store.conftest import goal_result, multi_turn, run_info, single


@pytest.fixture
def store(store_url: str) -> Any:
    with open_store(store_url) as opened:
        yield opened


def dumps(results: list[TestResult]) -> list[dict[str, Any]]:
    return [r.model_dump(mode="json") for r in results]


def count(store: Store, table: Any) -> int:
    with store._engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


def test_a_multi_turn_result_round_trips_losslessly(store: Store) -> None:
    results = [multi_turn(), single("capital"), goal_result()]
    store.create_run(run_info("run-roundtrip-1"), "sha256:abc", {"suite": "suite.yaml"})
    store.add_results("run-roundtrip-1", list(enumerate(results)))

    report = store.load_report("run-roundtrip-1")

    assert dumps(report.results) == dumps(results)
    assert report.run == run_info("run-roundtrip-1")
    # not finished: the summary is computed from what is stored
    assert report.summary == summarize(results)
    assert report.summary.total_tests == 3 and report.summary.failed == 2
    assert store.run_inputs("run-roundtrip-1") == {"suite": "suite.yaml"}


def test_results_are_normalised_into_turn_metric_and_tool_rows(store: Store) -> None:
    store.create_run(run_info("run-rows-1"))
    store.add_results("run-rows-1", [(0, multi_turn()), (1, single("capital"))])
    with store._engine.connect() as conn:
        turns = conn.execute(
            select(test_results.c.test_name, turn_results.c.turn_index, turn_results.c.passed)
            .join(test_results, test_results.c.id == turn_results.c.test_result_id)
            .order_by(test_results.c.position, turn_results.c.turn_index)
        ).all()
        metrics = conn.execute(
            select(metric_results.c.turn_index, metric_results.c.metric_name)
            .join(test_results, test_results.c.id == metric_results.c.test_result_id)
            .where(test_results.c.test_name == "revenue-dialogue")
            .order_by(metric_results.c.seq)
        ).all()
        calls = conn.execute(
            select(tool_invocations.c.turn_index, tool_invocations.c.name, tool_invocations.c.args)
            .join(test_results, test_results.c.id == tool_invocations.c.test_result_id)
            .order_by(test_results.c.position, tool_invocations.c.turn_index)
        ).all()
    assert [tuple(t) for t in turns] == [
        ("revenue-dialogue", 0, True),
        ("revenue-dialogue", 1, False),
        ("capital", 0, True),
    ]
    # test-level (rolled-up) rows have no turn index; each turn's own rows have theirs
    assert [tuple(m) for m in metrics] == [
        (None, "numeric"),
        (None, "correctness"),
        (0, "numeric"),
        (0, "correctness"),
        (1, "numeric"),
        (1, "correctness"),
    ]
    assert [(c.turn_index, c.name) for c in calls] == [
        (0, "lookup"),
        (1, "subtract"),
        (1, "lookup"),
        (0, "lookup"),
    ]
    assert calls[0].args["nested"] == {"z": [1, 2.5, None], "a": True}


def test_writing_a_result_twice_stores_it_once(store: Store) -> None:
    store.create_run(run_info("run-idem-1"))
    first = [(0, multi_turn()), (1, single("a")), (2, single("a", repeat=1))]
    store.add_results("run-idem-1", first)
    rows = {t: count(store, t) for t in (test_results, turn_results, metric_results)}
    # again, with a duplicate inside the batch and one new result
    store.add_results("run-idem-1", [*first, (3, single("b")), (4, single("b"))])

    assert count(store, test_results) == rows[test_results] + 1
    assert count(store, turn_results) == rows[turn_results] + 1
    assert count(store, metric_results) == rows[metric_results] + 1
    assert [r.test_name for r in store.iter_results("run-idem-1")] == [
        "revenue-dialogue",
        "a",
        "a",
        "b",
    ]
    (record,) = store.list_runs()
    assert (record.total, record.passed, record.failed) == (4, 3, 1)


def test_completed_keys_name_each_test_and_repeat(store: Store) -> None:
    store.create_run(run_info("run-keys-1"))
    store.create_run(run_info("run-keys-2"))
    store.add_results("run-keys-1", [(0, single("a")), (1, single("a", repeat=1))])
    store.add_results("run-keys-1", [(2, single("b"))])
    store.add_results("run-keys-2", [(0, single("c"))])
    assert store.completed_keys("run-keys-1") == {("a", 0), ("a", 1), ("b", 0)}
    assert store.completed_keys("run-keys-2") == {("c", 0)}
    assert store.completed_keys("no-such-run") == set()


def test_results_come_back_in_position_order(store: Store) -> None:
    store.create_run(run_info("run-order-1"))
    names = [f"t{i:03d}" for i in range(30)]
    batches = [[(i, single(n)) for i, n in enumerate(names) if i % 3 == k] for k in (2, 0, 1)]
    for batch in batches:
        store.add_results("run-order-1", list(reversed(batch)))
    assert [r.test_name for r in store.iter_results("run-order-1")] == names


def test_runs_are_listed_latest_first(store: Store) -> None:
    store.create_run(run_info("run-b", "2025-03-02T09:00:00.000+00:00"))
    store.create_run(run_info("run-c", "2025-03-03T09:00:00.000+00:00"))
    store.create_run(run_info("run-a", "2025-03-01T09:00:00.000+00:00"))
    assert [r.id for r in store.list_runs()] == ["run-c", "run-b", "run-a"]
    assert [r.id for r in store.list_runs(limit=2)] == ["run-c", "run-b"]


def test_a_finished_run_keeps_its_summary_until_it_is_resumed(store: Store) -> None:
    results = [single("a"), single("b", passed=False, score=0.0)]
    store.create_run(run_info("run-finish-1"))
    store.add_results("run-finish-1", list(enumerate(results)))
    summary = summarize(results)
    summary.execution_time_ms = 999  # as the runner measured it, not as recomputed
    store.finish_run("run-finish-1", "completed", summary, "2025-03-01T10:05:00.000+00:00")

    report = store.load_report("run-finish-1")
    assert report.summary == summary
    assert (report.run.status, report.run.finished_at) == (
        "completed",
        "2025-03-01T10:05:00.000+00:00",
    )
    (record,) = store.list_runs()
    assert (record.status, record.total, record.passed, record.failed) == ("completed", 2, 1, 1)

    store.set_status("run-finish-1", "running")
    resumed = store.load_report("run-finish-1")
    assert resumed.run.finished_at is None and resumed.run.status == "running"
    assert resumed.summary == summarize(results)
    store.set_status("run-finish-1", "interrupted")
    assert store.get_run("run-finish-1").status == "interrupted"  # type: ignore[union-attr]


def test_runs_are_found_by_a_unique_prefix(store: Store) -> None:
    store.create_run(run_info("0123456789abcdef"))
    store.create_run(run_info("0123456fffffffff"))
    found = store.get_run("01234567")
    assert found is not None and found.id == "0123456789abcdef"
    assert store.get_run("01234") is None  # too short to be a prefix
    assert store.get_run("99999999") is None
    with pytest.raises(ConfigError, match="'0123456' is ambiguous: it starts the ids of several"):
        store.get_run("0123456")
    with pytest.raises(RunNotFound, match="'01234' is too short to name a run: give at least 6"):
        store.resolve_run_id("01234")
    assert store.get_run("012345_%") is None  # LIKE wildcards are literal
    assert store.load_report("0123456f").run.id == "0123456fffffffff"


def test_unknown_runs_are_reported_clearly(store: Store) -> None:
    with pytest.raises(RunNotFound, match="assay runs"):
        store.add_results("missing-run", [(0, single("a"))])
    with pytest.raises(RunNotFound):
        store.finish_run("missing-run", "completed", summarize([]), "2025-01-01T00:00:00Z")
    with pytest.raises(RunNotFound):
        store.load_report("missing-run")
    with pytest.raises(RunNotFound):
        store.run_inputs("missing-run")
    with pytest.raises(ValueError, match="unknown run status"):
        store.set_status("missing-run", "done")  # type: ignore[arg-type]


def test_a_batch_larger_than_one_lookup_keeps_each_result_with_its_rows(store: Store) -> None:
    store.create_run(run_info("run-big-1"))
    results = [single(f"case-{i:04d}", passed=i % 7 != 0, score=(i % 10) / 10) for i in range(1300)]
    store.add_results("run-big-1", list(enumerate(results)))
    store.add_results("run-big-1", list(enumerate(results)))  # all already stored
    with store._engine.connect() as conn:
        pairs = conn.execute(
            select(test_results.c.test_name, turn_results.c.input, metric_results.c.score)
            .join(turn_results, turn_results.c.test_result_id == test_results.c.id)
            .join(metric_results, metric_results.c.test_result_id == test_results.c.id)
        ).all()
    assert len(pairs) == 1300
    assert all(inp == f"question for {name}" for name, inp, _ in pairs)
    assert {name: score for name, _, score in pairs} == {
        r.test_name: r.metric_results[0].score for r in results
    }
    assert dumps(list(store.iter_results("run-big-1"))) == dumps(results)


def test_the_same_run_loads_identically_from_sqlite_and_postgresql(
    sqlite_url: str, pg_url: str
) -> None:
    results = [multi_turn(), single("capital"), goal_result(), single("x", repeat=1)]
    loaded = []
    for url in (sqlite_url, pg_url):
        with open_store(url) as store:
            store.create_run(run_info("run-same-1"), None, {"datasets": ["a.csv"]})
            store.add_results("run-same-1", list(enumerate(results)))
            loaded.append(store.load_report("run-same-1").model_dump_json())
            store.finish_run(
                "run-same-1", "completed", summarize(results), "2025-03-01T11:00:00.000+00:00"
            )
            loaded.append(store.load_report("run-same-1").model_dump_json())
    assert loaded[0] == loaded[2] and loaded[1] == loaded[3]
    assert loaded[0] != loaded[1]  # the finish time and status did change


def test_creating_a_run_twice_is_refused(store: Store) -> None:
    store.create_run(run_info("run-twice-1"))
    with pytest.raises(Exception, match="already stored"):
        store.create_run(run_info("run-twice-1"))


def test_the_sqlite_store_uses_wal(sqlite_url: str) -> None:
    with open_store(sqlite_url) as store, store._writable().connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    raw = create_engine(sqlite_url)
    with raw.connect() as conn:  # WAL is a property of the file, seen by any connection
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    raw.dispose()


def test_a_run_stored_with_the_share_of_tests_passed_reads_as_a_percentage(store: Store) -> None:
    # a run finished before pass_rate became a percentage: its summary says 0.75 for 3 of 4
    from assay.store.models import runs
    from assay.store.queries import Queries

    results = [single("a"), single("b"), single("c"), single("d", passed=False)]
    store.create_run(run_info("run-old-rate"))
    store.add_results("run-old-rate", list(enumerate(results)))
    store.finish_run("run-old-rate", "completed", summarize(results), "2025-03-01T10:01:00+00:00")
    old = summarize(results).model_dump(mode="json") | {"pass_rate": 0.75}
    with store._engine.begin() as conn:
        conn.execute(
            runs.update().where(runs.c.id == "run-old-rate").values(summary=json.dumps(old))
        )

    assert store.load_report("run-old-rate").summary.pass_rate == 75.0
    row = Queries(store).run("run-old-rate")
    assert row.summary is not None and row.summary.pass_rate == 75.0
    assert (row.pass_rate, row.pass_fraction) == (75.0, 0.75)
