"""What the pages and the JSON API read from a request, held to what the store can look up.

The store's integers are signed 64-bit (SQLite's and PostgreSQL's), so a number past them
cannot be a query's value: an offset past ``INT64_MAX`` is refused (422, as a negative one
is), and a test id past it names no stored test (404, as an id past the last one does). A
filter value the store does not know (``status=bogus``) is refused with the allowed ones,
instead of being ignored and giving every result.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from fastapi import HTTPException, Query

from assay.results.models import TestResult
from assay.runner.storable import INT64_MAX, INT64_MIN
from assay.store.queries import ResultFilter, RunRow
from assay.web._state import Dashboard

Offset = Annotated[
    int, Query(ge=0, le=INT64_MAX, description="how many to skip (0 to 9223372036854775807)")
]
# the values a result's status and test type take, and "" for any
StatusQuery = Literal["", "passed", "failed", "error", "not_run"]
TypeQuery = Literal["", "single_turn", "multi_turn", "goal"]
STATUSES: tuple[str, ...] = get_args(StatusQuery)[1:]
TEST_TYPES: tuple[str, ...] = get_args(TypeQuery)[1:]


def result_filter(
    status: StatusQuery = "",
    type: TypeQuery = "",
    metric: str = "",
    metric_failed: bool = False,
    tag: str = "",
    q: str = "",
) -> ResultFilter:
    return ResultFilter(
        status=status,
        test_type=type,
        metric=metric,
        metric_failed=metric_failed and bool(metric),
        tag=tag,
        text=q.strip(),
    )


def stored_result(state: Dashboard, run_id: str, test_id: int) -> tuple[RunRow, TestResult]:
    """The run (404 when unknown) and its test ``test_id`` (404 when it has none)."""
    row = state.queries.run(run_id)
    found = state.queries.result(row.info.id, test_id) if in_store(test_id) else None
    if found is None:
        raise HTTPException(404, f"run {row.info.id[:12]} has no test {test_id}")
    return row, found


def in_store(number: int) -> bool:
    """An integer the store can compare with its own (a 64-bit signed one)."""
    return INT64_MIN <= number <= INT64_MAX
