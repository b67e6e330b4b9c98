"""Run many test cases concurrently: sessions in parallel, turns within a session in order.

A fixed pool of workers pulls (case, repeat) pairs from an iterator, so memory does not grow
with the number of tests; each finished result goes straight to ``on_result``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator

from assay.cases.models import TestCase
from assay.results.models import TestResult
from assay.runner.conversation import CaseSettings, now_iso, run_case
from assay.targets.base import Target

ResultSink = Callable[[int, TestResult], None]  # (position, result); must not block


def not_run_result(case: TestCase, reason: str, repeat_index: int = 0) -> TestResult:
    """A test that could not be run at all (e.g. a goal test with no simulator model)."""
    return TestResult(
        test_name=case.name,
        test_type=case.type,
        test_input=case.goal.goal if case.goal else "",
        passed=False,
        status="not_run",
        execution_time_ms=0,
        errors=[f"not run: {reason}"],
        timestamp=now_iso(),
        repeat_index=repeat_index,
        tags=list(case.tags),
    )


async def run_one(
    case: TestCase, target: Target, settings: CaseSettings, repeat_index: int = 0
) -> TestResult:
    if case.type == "goal":
        return not_run_result(
            case, "goal-driven tests need a simulated-user model (simulator:)", repeat_index
        )
    return await run_case(case, target, settings, repeat_index)


async def run_cases(
    work: Iterable[tuple[int, TestCase, int]],
    target: Target,
    settings: CaseSettings,
    concurrency: int,
    on_result: ResultSink,
) -> None:
    """Run every (position, case, repeat_index) of ``work`` with at most ``concurrency``
    conversations in flight."""
    items: Iterator[tuple[int, TestCase, int]] = iter(work)

    async def worker() -> None:
        for position, case, repeat_index in items:
            on_result(position, await run_one(case, target, settings, repeat_index))

    await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
