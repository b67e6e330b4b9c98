"""The dashboard's read queries on a real SQLite file and on the real PostgreSQL server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.results.models import TestResult, ToolInvocation, TurnResult
from assay.results.rollup import single_turn_result
from assay.store import RunNotFound, Store, open_store
from assay.store.queries import Queries, ResultFilter, tags_from_tail
from tests.web.seed import MULTI_TURN, REGRESSED, RUNS, SUITE, run_id, seed_history, store_run


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'assay.db'}"
    else:
        url = request.getfixturevalue("pg_url")
    with open_store(url) as opened:
        yield opened


def names(
    queries: Queries, run: str, flt: ResultFilter, offset: int = 0, limit: int = 50
) -> list[str]:
    return [r.test_name for _, r in queries.results(run, flt, offset, limit).items]


def test_runs_history_and_filters(store: Store) -> None:
    ids = seed_history(store)
    queries = Queries(store)
    rows, total = queries.list_runs(3, offset=2)
    assert total == RUNS and [r.info.id for r in rows] == ids[-3:-6:-1]
    assert queries.list_runs(10, suite="other")[1] == 0
    assert queries.suites() == [SUITE]
    history = queries.history(SUITE, 5)
    assert [r.info.id for r in history] == ids[-5:]  # oldest first
    assert all(r.summary is not None for r in history)
    assert queries.run(ids[0][:8]).info.id == ids[0]
    with pytest.raises(RunNotFound):
        queries.run("ffffffffff")
    last = ids[-1]
    assert names(queries, last, ResultFilter(test_type="multi_turn")) == [MULTI_TURN]
    assert names(queries, last, ResultFilter(text="VEGETARIAN meal")) == [MULTI_TURN]
    assert names(queries, last, ResultFilter(text="100%")) == []
    assert names(queries, last, ResultFilter(tag="fees", status="failed")) == [REGRESSED]
    assert names(queries, last, ResultFilter(), offset=11) == ["policy-8"]
    page = queries.results(last, ResultFilter(tag="hotels"), 1, 10)
    assert (page.total, page.items) == (1, [])  # counted, past the page
    facets = queries.facets(last)
    assert facets.test_types == ["multi_turn", "single_turn"]
    assert facets.metrics == ["correctness", "equality", "latency"]
    assert facets.tags == ["fees", "hotels", "seats"]
    found = queries.result_id(last, MULTI_TURN, 0)
    assert found is not None
    result = queries.result(last, found)
    assert result is not None and result.turns is not None and len(result.turns) == 3
    assert queries.result(ids[0], found) is None  # another run's id


def test_tags_are_read_from_the_payloads_end_even_when_other_fields_mention_tags(
    store: Store,
) -> None:
    trap = '"tags":["decoy"]'
    turn = TurnResult(
        turn_index=0,
        input=f"say {trap}",
        response=trap,
        tool_invocations=[ToolInvocation(name="t", args={"tags": ["decoy"]}, result={"tags": []})],
        passed=True,
        execution_time_ms=1,
    )
    tagged = single_turn_result("tagged", turn, "2025-01-01T00:00:00+00:00", tags=["real"])
    untagged = single_turn_result("untagged", turn, "2025-01-01T00:00:00+00:00")
    many = single_turn_result(
        "many",
        turn,
        "2025-01-01T00:00:00+00:00",
        tags=[f"tag-{i:04d}-" + "x" * 40 for i in range(80)],
    )
    run = store_run(store, 30, [tagged, untagged, many])
    queries = Queries(store)
    assert names(queries, run, ResultFilter(tag="real")) == ["tagged"]
    assert names(queries, run, ResultFilter(tag="decoy")) == []
    assert names(queries, run, ResultFilter(tag="tag-0079-" + "x" * 40)) == ["many"]  # > tail
    assert "decoy" not in queries.facets(run).tags
    assert run == run_id(30)


def test_tags_from_tail_reads_only_the_last_field() -> None:
    payload = TestResult(
        test_name="x",
        test_type="single_turn",
        test_input='"tags":["no"]',
        passed=True,
        execution_time_ms=1,
        timestamp="t",
        tags=["a", 'quote "b"'],
    ).model_dump_json()
    assert tags_from_tail(payload) == ["a", 'quote "b"']
    assert tags_from_tail(payload[-12:]) is None  # cut inside the list: read it whole instead
    assert tags_from_tail('{"tags":[]}') == []
