"""Run many test cases concurrently: sessions in parallel, turns within a session in order.

A pool of workers (no more than there are tests to run) pulls (case, repeat) pairs from an
iterator, so memory does not grow with the number of tests; each finished result goes
straight to ``on_result``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator, Sized
from typing import Literal

from assay._isolation import cancel_at_deadline, describe, reraise_if_cancelling
from assay.cases.models import TestCase
from assay.results.models import TestResult
from assay.runner.conversation import CaseSettings, now_iso, run_case
from assay.targets.base import Target

ResultSink = Callable[[int, TestResult], None]  # (position, result); must not block


def unfinished_result(
    case: TestCase, status: Literal["error", "not_run"], reason: str, repeat_index: int = 0
) -> TestResult:
    """A test without turns to show: not run at all (a goal test with no simulator model),
    or stopped by a failure of assay's own (an error, with the reason)."""
    return TestResult(
        test_name=case.name,
        test_type=case.type,
        test_input=case.goal.goal if case.goal else case.turns[0].input if case.turns else "",
        passed=False,
        status=status,
        execution_time_ms=0,
        errors=[reason],
        timestamp=now_iso(),
        repeat_index=repeat_index,
        tags=list(case.tags),
    )


def not_run_result(case: TestCase, reason: str, repeat_index: int = 0) -> TestResult:
    """A test that could not be run at all (e.g. a goal test with no simulator model)."""
    return unfinished_result(case, "not_run", f"not run: {reason}", repeat_index)


async def run_one(
    case: TestCase, target: Target, settings: CaseSettings, repeat_index: int = 0
) -> TestResult:
    """One test's result, whatever happens in it: a failure that escaped the turn and metric
    boundaries (a bug of assay's, or of a target's) errors this test, not the run."""
    runner = run_case
    if case.type == "goal":
        from assay.simulation.runner import GoalRuntime, run_goal_case

        runtime = settings.goal
        reason = GoalRuntime.NOT_CONFIGURED if runtime is None else runtime.missing
        if reason is not None:
            return not_run_result(case, reason, repeat_index)
        runner = run_goal_case
    try:
        return await runner(case, target, settings, repeat_index)
    except Exception as exc:
        reraise_if_cancelling(exc)
        reason = f"assay could not finish this test: {describe(exc)}"
        return unfinished_result(case, "error", reason, repeat_index)


async def run_cases(
    work: Iterable[tuple[int, TestCase, int]],
    target: Target,
    settings: CaseSettings,
    concurrency: int,
    on_result: ResultSink,
) -> None:
    """Run every (position, case, repeat_index) of ``work`` with at most ``concurrency``
    conversations in flight, and no more workers than there is work."""
    items: Iterator[tuple[int, TestCase, int]] = iter(work)

    async def worker() -> None:
        task = asyncio.current_task()
        assert task is not None  # gathered: a task
        for position, case, repeat_index in items:
            on_result(position, await run_one(case, target, settings, repeat_index))
            if task.cancelling():
                # the run was stopped (Ctrl-C) while an async agent held the event loop and
                # the test never waited since: the stop is taken here, before the next test
                await asyncio.sleep(0)

    # a million workers for three tests would cost a gigabyte and run nothing sooner
    workers = max(1, min(concurrency, len(work))) if isinstance(work, Sized) else concurrency
    tasks = [asyncio.ensure_future(worker()) for _ in range(workers)]
    try:
        await asyncio.gather(*tasks)
    except Exception:
        # one worker failed the run (the store lost: ``on_result`` raised): the others stop
        # here and what they raise is dropped; left to asyncio.run's shutdown, each would
        # print a traceback. Their tests in flight are cancelled on assay's record: a plain
        # cancel() would pass for the agent's own, taken back, and the next test started
        for task in tasks:
            if not task.done():
                cancel_at_deadline(task)
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
