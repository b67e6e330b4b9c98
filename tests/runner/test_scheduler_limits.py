"""The scheduler: no more workers than there is work (issue 10, point 4), a failure that
escapes a test's turn and metric boundaries errors that test, not the run, and one that
fails the run (the store lost) stops the other workers with it."""

from __future__ import annotations

import asyncio

import pytest

from assay.cases import parse_suite
from assay.cases.models import TestCase
from assay.errors import StoreError
from assay.results.models import TestResult
from assay.runner import CaseSettings, run_cases
from assay.targets.base import AgentSession, Reply, Target, TurnRequest


class CountingTarget(Target):
    """Answers after a yield, noting how many tasks the loop holds at each turn."""

    def __init__(self) -> None:
        self.tasks_seen: list[int] = []

    def session(self, session_id: str) -> AgentSession:
        target = self

        class Session(AgentSession):
            async def send(self, request: TurnRequest) -> Reply:
                await asyncio.sleep(0)
                target.tasks_seen.append(len(asyncio.all_tasks()))
                return Reply(text="ok")

        return Session()


class BrokenSessionTarget(CountingTarget):
    """A target with a bug: opening the session of one test raises."""

    def session(self, session_id: str) -> AgentSession:
        if len(self.tasks_seen) == 1:
            self.tasks_seen.append(-1)
            raise RuntimeError("no session for you")
        return super().session(session_id)


def cases(n: int) -> list[TestCase]:
    tests = [{"name": f"t{i}", "input": "hi", "ground_truth": "ok"} for i in range(n)]
    return list(parse_suite({"name": "s", "tests": tests}, "suite.yaml").cases)


async def run_all(target: Target, n: int, concurrency: int) -> dict[int, TestResult]:
    results: dict[int, TestResult] = {}
    work = [(i, case, 0) for i, case in enumerate(cases(n))]

    def on_result(position: int, result: TestResult) -> None:
        results[position] = result

    await run_cases(work, target, CaseSettings(run_id="r" * 32), concurrency, on_result)
    return results


async def test_a_huge_concurrency_starts_one_worker_per_test() -> None:
    target = CountingTarget()
    baseline = len(asyncio.all_tasks())  # this test's own task
    results = await run_all(target, 3, concurrency=1_000_000)
    assert sorted(results) == [0, 1, 2] and all(r.passed for r in results.values())
    # three workers (and nothing else) ran beside this test's task: not a million
    assert max(target.tasks_seen) == baseline + 3


async def test_a_target_bug_in_one_test_errors_that_test_only() -> None:
    target = BrokenSessionTarget()
    results = await run_all(target, 3, concurrency=1)
    assert [results[i].status for i in range(3)] == ["passed", "error", "passed"]
    assert results[1].errors == [
        "assay could not finish this test: RuntimeError: no session for you"
    ]
    assert results[1].test_input == "hi" and results[1].passed is False


class HangingTarget(Target):
    """Answers at once, but never to ``hang``: that turn ends only when it is cancelled."""

    def __init__(self) -> None:
        self.cancelled: list[str] = []

    def session(self, session_id: str) -> AgentSession:
        target = self

        class Session(AgentSession):
            async def send(self, request: TurnRequest) -> Reply:
                if request.input == "hang":
                    try:
                        await asyncio.Event().wait()
                    except asyncio.CancelledError:
                        target.cancelled.append(request.input)
                        raise
                await asyncio.sleep(0)
                return Reply(text="ok")

        return Session()


async def test_a_failure_of_the_run_stops_the_other_workers() -> None:
    """``on_result`` failing the run (the result writer's store lost) stops the workers whose
    tests are in flight, before the error leaves ``run_cases``: left running, they met it
    again once asyncio.run cancelled them, each printing a traceback."""
    tests = [{"name": f"t{i}", "input": text} for i, text in enumerate(["hang", "hi", "hi"])]
    work = [
        (i, c, 0) for i, c in enumerate(parse_suite({"name": "s", "tests": tests}, "s.yaml").cases)
    ]
    target = HangingTarget()

    def on_result(position: int, result: TestResult) -> None:
        raise StoreError("the store failed")

    with pytest.raises(StoreError, match="the store failed"):
        await run_cases(work, target, CaseSettings(run_id="r" * 32), 2, on_result)
    assert target.cancelled == ["hang"]  # its turn cancelled, not waited for
    assert asyncio.all_tasks() == {asyncio.current_task()}  # no worker left behind
