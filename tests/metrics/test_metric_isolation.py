"""Any failure inside any metric is that metric's error, and no metric runs past its time
limit (issue 10, points 3 and 4): the turn and the run go on; only Ctrl-C passes through."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator
from typing import Any, ClassVar, Literal

import pytest

from assay.cases.models import TestCase, Turn
from assay.metrics import build_metric
from assay.metrics.base import (
    INLINE_LIMIT_CHARS,
    ConversationContext,
    Metric,
    MetricContext,
    MetricOptions,
    Score,
)
from assay.metrics.guard import score_turn_metric
from assay.results.models import MetricResult, TestResult
from assay.runner import CaseSettings, run_case
from assay.targets.base import AgentSession, Reply, Target, TurnRequest
from tests.metrics import hostile_graders


class Fixed(Target):
    """Answers every turn with the same text."""

    def __init__(self, text: str = "Paris") -> None:
        self.text = text

    def session(self, session_id: str) -> AgentSession:
        text = self.text

        class Session(AgentSession):
            async def send(self, request: TurnRequest) -> Reply:
                return Reply(text=text)

        return Session()


class _Base(Metric):
    name: ClassVar[str] = "base"
    requires = frozenset()

    def __init__(self) -> None:
        super().__init__(MetricOptions())


class RaisesInEvaluate(_Base):
    """Like a judge metric tripping over a reply it did not expect."""

    name = "raises_in_evaluate"

    async def evaluate(self, ctx: MetricContext) -> MetricResult:
        raise TypeError("'NoneType' object is not subscriptable")


class ExitsInMeasure(_Base):
    name = "exits_in_measure"

    def measure(self, ctx: MetricContext) -> Score:
        sys.exit(0)


class BrokenInputCheck(_Base):
    name = "broken_input_check"

    def missing_input(self, ctx: MetricContext) -> str | None:
        raise ValueError("cannot tell")


class ReturnsANumber(_Base):
    name = "returns_a_number"

    async def evaluate(self, ctx: MetricContext) -> Any:
        return 0.5


class Hangs(_Base):
    """An async metric that never finishes (a judge that never answers)."""

    name = "hangs"

    def __init__(self) -> None:
        super().__init__()
        self.started = asyncio.Event()

    async def evaluate(self, ctx: MetricContext) -> MetricResult:
        self.started.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class HangsInMeasure(_Base):
    """A deterministic metric stuck in its own work until released."""

    name = "hangs_in_measure"

    def measure(self, ctx: MetricContext) -> Score:
        hostile_graders.release.wait()
        return Score(1.0)


class InterruptedInMeasure(_Base):
    """A metric of assay's (scored inline, on the event loop's thread) where Python raised
    Ctrl-C: SIGINT, or SIGTERM when the run started with Ctrl-C ignored, while it worked."""

    name = "interrupted_in_measure"

    def measure(self, ctx: MetricContext) -> Score:
        raise KeyboardInterrupt


class WhereMeasured(_Base):
    name = "where_measured"

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []

    def measure(self, ctx: MetricContext) -> Score:
        self.threads.append(threading.current_thread().name)
        return Score(1.0)


class ConversationRaises(_Base):
    name = "conversation_raises"
    scope: ClassVar[Literal["turn", "test"]] = "test"

    def measure_conversation(self, conv: ConversationContext) -> Score:
        raise RuntimeError("the transcript broke me")


class Passes(_Base):
    name = "passes"

    def measure(self, ctx: MetricContext) -> Score:
        return Score(1.0)


@pytest.fixture(autouse=True)
def _release_hung_threads() -> Iterator[None]:
    hostile_graders.release.clear()
    yield
    hostile_graders.release.set()  # a stuck grader's thread ends with the test


async def run(
    metrics: tuple[Metric, ...],
    *,
    test_metrics: tuple[Metric, ...] = (),
    reply: str = "Paris",
    limit_s: float = 60.0,
) -> TestResult:
    case = TestCase(
        name="t",
        type="single_turn",
        turns=(Turn(input="capital of France?", metrics=metrics),),
        test_metrics=test_metrics,
    )
    settings = CaseSettings(run_id="r" * 32, metric_timeout_s=limit_s)
    return await run_case(case, Fixed(reply), settings)


def by_name(result: TestResult) -> dict[str, MetricResult]:
    return {m.metric_name: m for m in result.metric_results}


async def test_any_exception_in_a_metric_is_that_metrics_error() -> None:
    metrics = (
        RaisesInEvaluate(),
        ExitsInMeasure(),
        BrokenInputCheck(),
        ReturnsANumber(),
        Passes(),
    )
    result = await run(metrics)
    found = by_name(result)
    assert {name: m.error for name, m in found.items()} == {
        "raises_in_evaluate": "'NoneType' object is not subscriptable",
        "exits_in_measure": "SystemExit(0)",
        "broken_input_check": "cannot tell",
        "returns_a_number": "evaluate() returned float, not a MetricResult",
        "passes": None,
    }
    for name in ("raises_in_evaluate", "exits_in_measure", "broken_input_check"):
        assert (found[name].passed, found[name].score) == (False, None)
    assert found["passes"].passed is True
    assert result.passed is False and result.status == "failed"


async def test_a_test_scoped_metric_that_raises_is_its_error() -> None:
    result = await run((Passes(),), test_metrics=(ConversationRaises(),))
    found = by_name(result)
    assert found["conversation_raises"].error == "the transcript broke me"
    assert found["conversation_raises"].passed is False
    assert result.passed is False and result.status == "failed"


async def test_a_metric_that_never_finishes_is_cut_at_its_time_limit() -> None:
    result = await run((Hangs(), Passes()), limit_s=1.0)
    found = by_name(result)
    assert found["hangs"].error == (
        "took longer than 1 s (the limit is execution.metric_timeout_s)"
    )
    assert found["hangs"].passed is False
    assert found["passes"].passed is True  # the turn's next metric still ran


async def test_a_deterministic_metric_on_a_large_reply_runs_off_the_loop() -> None:
    where = WhereMeasured()
    await run((where,), reply="small")
    await run((where,), reply="x" * (INLINE_LIMIT_CHARS + 1))
    main = threading.current_thread().name
    assert where.threads[0] == main  # a small reply: inline, microseconds
    assert where.threads[1] != main  # a large one: its own thread, under the time limit
    stuck = await run((HangsInMeasure(), Passes()), reply="y" * 100_000, limit_s=1.0)
    assert by_name(stuck)["hangs_in_measure"].error is not None
    assert "took longer than 1 s" in (by_name(stuck)["hangs_in_measure"].error or "")


@pytest.mark.parametrize(
    ("grader", "error"),
    [
        ("exits", "SystemExit(0)"),
        ("interrupts", "KeyboardInterrupt()"),
        ("hangs", "took longer than 1 s (the limit is execution.metric_timeout_s)"),
        ("hangs_async", "took longer than 1 s (the limit is execution.metric_timeout_s)"),
        # what it returned is read on its thread too: an object's text is its code
        ("hangs_in_its_reason", "took longer than 1 s (the limit is execution.metric_timeout_s)"),
        ("hangs_in_its_details", "took longer than 1 s (the limit is execution.metric_timeout_s)"),
    ],
)
async def test_a_code_grader_cannot_end_or_stall_the_run(grader: str, error: str) -> None:
    metric = build_metric("code", {"grader": f"tests.metrics.hostile_graders:{grader}"})
    other = build_metric("code", {"grader": "tests.metrics.hostile_graders:passes"})
    result = await run((metric, other), limit_s=1.0)
    found = by_name(result)
    assert found[f"code:{grader}"].error == error
    assert found[f"code:{grader}"].passed is False
    assert found["code:passes"].passed is True


async def test_ctrl_c_in_a_metric_on_the_loops_thread_stops_the_run() -> None:
    """Inline, a KeyboardInterrupt can only be Python's Ctrl-C: it is the run's, not recorded
    as the metric's error (a run that went on would ignore Ctrl-C and SIGTERM). A grader's
    own, on its thread, stays its error (test_a_code_grader_cannot_end_or_stall_the_run)."""
    interrupted = InterruptedInMeasure()
    assert interrupted.scores_inline(MetricContext(input="q", response="Paris"))
    with pytest.raises(KeyboardInterrupt):
        await run((Passes(), interrupted))


async def test_ctrl_c_passes_through_a_running_metric() -> None:
    hangs = Hangs()
    ctx = MetricContext(input="q", response="r")
    task = asyncio.create_task(score_turn_metric(hangs, ctx, 60.0))
    await hangs.started.wait()
    task.cancel()  # what asyncio does to every task on Ctrl-C
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()
