"""The per-turn fast paths give what the general ones give: a single-turn test's result built
straight from its turn (against TurnResult then ``single_turn_result``), a metric's result
made without validation (against validating it), the summary counted from a result
(against its tally), an inline metric scored without a coroutine (against the guard)."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from assay.cases import parse_suite
from assay.cases.models import TestCase
from assay.errors import SessionLost, TargetError
from assay.metrics.base import Metric, MetricContext, MetricOptions, Score
from assay.metrics.comparison import Equality, EqualityOptions
from assay.metrics.guard import score_inline, score_turn_metric
from assay.results.models import MetricResult, TestResult, TokenUsage, ToolInvocation
from assay.results.rollup import SummaryBuilder, Tally, single_turn_result
from assay.runner.conversation import (
    AgentConversation,
    CaseSettings,
    now_iso,
    run_case,
    score_conversation,
)
from assay.targets.base import AgentSession, Reply, Target, TurnCutShort, TurnRequest

SETTINGS = CaseSettings(turn_timeout_s=5, run_id="r" * 32)
CALLS = [
    ToolInvocation(name="lookup", args={"q": "x", "n": [1, 2.5]}, result={"a": 42}, bytes=9),
    ToolInvocation(name="calc", args={"a": 1}, result=None, bytes=4),
]
USAGE = TokenUsage(prompt_tokens=12, completion_tokens=1, total_tokens=13)


class _Session(AgentSession):
    def __init__(self, outcome: Any) -> None:
        self.outcome = outcome

    async def send(self, request: TurnRequest) -> Reply:
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        reply: Reply = self.outcome
        return reply


class _Target(Target):
    def __init__(self, outcome: Any) -> None:
        self.outcome = outcome

    def session(self, session_id: str) -> AgentSession:
        return _Session(self.outcome)


def _case(**test: Any) -> TestCase:
    spec = {"name": "t", "input": "question?", **test}
    return parse_suite({"name": "s", "tests": [spec]}, "suite.yaml").cases[0]


async def _two_steps(case: TestCase, target: Target) -> TestResult:
    """What ``run_case`` did for a single-turn test before its fast path."""
    started = now_iso()
    conversation = AgentConversation(case, target, SETTINGS)
    try:
        await conversation.send(case.turns[0])
    finally:
        await conversation.close()
    turn = conversation.turns[0]
    result = single_turn_result(case.name, turn, started, repeat_index=0, tags=list(case.tags))
    if case.test_metrics:
        await score_conversation(case, conversation.exchanges, result, SETTINGS)
    return result


_VOLATILE = re.compile(r'"(timestamp|execution_time_ms|evaluation_time_ms)":("[^"]*"|[^,}]*)')


def _json(result: TestResult) -> str:
    return _VOLATILE.sub(r'"\1":0', result.model_dump_json())


class _OddCall(ToolInvocation):
    """A target's own subclass: validation makes the record's type of it."""


class _Text(str):
    pass


CASES: list[tuple[dict[str, Any], Any]] = [
    ({"ground_truth": "42", "tags": ["a"]}, Reply("42")),
    ({"ground_truth": "42"}, Reply("41", CALLS, USAGE, 12.6)),
    ({"ground_truth": "42", "expected_tools": ["lookup"]}, Reply("42", CALLS, USAGE)),
    ({"expected_tools": [{"name": "calc", "args": {"a": 2}}]}, Reply("42", CALLS)),
    ({"expected_tools": []}, Reply("42", CALLS)),
    ({"ground_truth": "42"}, Reply(None, CALLS)),
    ({}, Reply("42")),  # nothing checked: not run
    ({"metrics": [{"metric": "contains", "value": "4"}, "fuzzy"]}, Reply("42")),
    ({"ground_truth": "42"}, TargetError("the agent said 500")),
    ({"ground_truth": "42"}, SessionLost("gone")),
    ({"ground_truth": "42"}, TurnCutShort("too many rounds", Reply(None, CALLS, USAGE))),
    ({"ground_truth": "42"}, RuntimeError("a target's bug")),
    (
        {"expected_trajectory": ["lookup", "calc"], "metrics": ["trajectory_exact_match"]},
        Reply("42", CALLS),
    ),
    ({"metrics": ["conversation_completeness"]}, Reply("42")),  # test-scoped, not run
    ({"ground_truth": "42", "tags": ["a", "b"]}, Reply("42", [], None, 3)),  # an int ttft
    ({"ground_truth": "42", "metrics": ["equality", "rouge"]}, Reply(None)),  # not run
    ({"metrics": ["fuzzy"], "ground_truth": "4"}, Reply("42", CALLS, USAGE, 1.5)),
    ({"ground_truth": "42"}, Reply("42", [_OddCall(name="x")])),  # a subclass: validated
    ({"ground_truth": "42"}, Reply("42", (CALLS[0],))),  # type: ignore[arg-type]  # a tuple
    ({"ground_truth": "42"}, Reply(_Text("42"))),  # a str subclass: validated
    ({"ground_truth": "42"}, Reply("42", [ToolInvocation.model_construct(name=_Text("x"))])),
]


@pytest.mark.parametrize(("test", "outcome"), CASES)
async def test_a_single_turn_result_is_what_the_two_steps_made(test: Any, outcome: Any) -> None:
    case = _case(**test)
    fast = await run_case(case, _Target(outcome), SETTINGS)
    assert case.type == "single_turn"
    slow = await _two_steps(case, _Target(outcome))
    assert _json(fast) == _json(slow)
    assert fast.model_fields_set == slow.model_fields_set  # what exclude_unset would leave
    assert [type(name) for name in fast.tool_calls] == [type(name) for name in slow.tool_calls]
    assert list(fast.__dict__) == list(TestResult.model_fields)  # the JSON's field order
    assert fast == TestResult.model_validate(dict(fast.__dict__))


async def test_a_reply_that_does_not_validate_fails_as_it_did() -> None:
    """A target of a plugin's that returns a number for text: the same ValidationError, so
    the same error on the test (``run_one``), as when its TurnResult was built first."""
    case = _case(metrics=[], expected_tools=[])
    with pytest.raises(Exception) as fast:
        await run_case(case, _Target(Reply(5)), SETTINGS)  # type: ignore[arg-type]
    with pytest.raises(Exception) as slow:
        await _two_steps(case, _Target(Reply(5)))  # type: ignore[arg-type]
    assert str(fast.value) == str(slow.value)
    assert "TurnResult" in str(fast.value)


def test_a_metric_result_made_without_validation_is_the_validated_one() -> None:
    metric = Equality(EqualityOptions(threshold=0.5, name="eq"))
    for score in (Score(1.0), Score(0.0, reasoning="no", details={"a": [1, {"b": None}]})):
        made = metric.result(score, time.perf_counter())
        validated = MetricResult.model_validate(dict(made.__dict__))
        assert made == validated
        assert list(made.__dict__) == list(validated.__dict__)  # the JSON's field order
        assert made.model_dump_json() == validated.model_dump_json()
        assert made.model_fields_set == MetricResult(**_given(made)).model_fields_set
    details = {"a": 1}
    made = metric.result(Score(1.0, details=details), time.perf_counter())
    assert made.details == details and made.details is not details  # copied, as validated


def _given(result: MetricResult) -> dict[str, Any]:
    names = ("metric_name", "kind", "dimension", "score", "threshold", "passed", "reasoning")
    return {k: getattr(result, k) for k in (*names, "details", "evaluation_time_ms")}


class _Odd(Metric[MetricOptions]):
    name = "odd"
    default_threshold = 1  # an int: validation makes it 1.0

    def measure(self, ctx: MetricContext) -> Score:
        return Score(1)  # type: ignore[arg-type]  # an int score, as a user's metric may


def test_values_not_of_the_exact_types_are_validated() -> None:
    made = _Odd(MetricOptions()).result(Score(1), time.perf_counter())  # type: ignore[arg-type]
    assert made.model_dump()["score"] == 1.0 and type(made.score) is float
    assert type(made.threshold) is float
    with pytest.raises(ValueError, match="valid string"):  # as before: the guard's error
        Equality(EqualityOptions()).result(Score(1.0, details={1: "x"}), time.perf_counter())  # type: ignore[dict-item]


class _Broken(Metric[MetricOptions]):
    name = "broken"

    def measure(self, ctx: MetricContext) -> Score:
        raise KeyError("boom")


class _NotAResult(Metric[MetricOptions]):
    name = "not_a_result"

    def run_sync(self, ctx: MetricContext) -> MetricResult:
        return "nonsense"  # type: ignore[return-value]


@pytest.mark.parametrize("metric", [_Broken(MetricOptions()), _NotAResult(MetricOptions())])
async def test_an_inline_metric_fails_as_the_guard_fails_it(metric: Metric) -> None:
    ctx = MetricContext(input="q", response="42")
    assert metric.scores_inline(ctx)
    inline, guarded = score_inline(metric, ctx), await score_turn_metric(metric, ctx, 5.0)
    assert isinstance(inline, MetricResult) and isinstance(guarded, MetricResult)
    assert inline.error == guarded.error and inline.error
    missing = MetricContext(input="q", response=None)
    assert score_inline(metric, missing) == await score_turn_metric(metric, missing, 5.0)


def test_the_summary_counts_a_result_as_it_counts_its_tally() -> None:
    results = [
        TestResult(
            test_name=f"t{i % 3}",
            test_type="single_turn",
            test_input="q",
            passed=i % 2 == 0,
            status="passed" if i % 2 == 0 else "failed",
            execution_time_ms=i,
            timestamp="t",
            token_usage=USAGE if i % 3 else None,
            metric_results=[
                MetricResult(metric_name="b", score=None if i % 4 else 0.5, dimension="d"),
                MetricResult(metric_name="a", score=0.25 * (i % 5), dimension="e"),
            ],
            metrics_not_run={"c": "no ground truth"} if i % 2 else {},
        )
        for i in range(12)
    ]
    direct, tallied = SummaryBuilder(repeat=2), SummaryBuilder(repeat=2)
    for result in results:
        direct.add(result)
        tallied.add_tally(Tally.of(result))
    assert direct.build().model_dump_json() == tallied.build().model_dump_json()
    built = direct.build()
    assert list(built.metrics_evaluated) == ["b", "a"]  # first evaluated, first listed
    assert list(built.average_scores) == ["b", "a"] and list(built.dimensions) == ["d", "e"]


def test_a_status_hook_reads_the_status_only() -> None:
    from assay.runner.observer import Observer, StatusHook

    seen: list[str] = []
    observer = Observer(on_result=StatusHook(seen.append))
    assert not observer.wants_results and Observer(on_result=seen.append).wants_results
    result = TestResult(
        test_name="t", test_type="single_turn", test_input="q", passed=False, status="failed",
        execution_time_ms=0, timestamp="t",
    )  # fmt: skip
    observer.finished(result)
    observer.finished_status("u", "passed")
    assert seen == ["failed", "passed"]

    def broken(status: str) -> None:
        raise ValueError(status)

    failing = Observer(on_result=StatusHook(broken))
    failing.finished_status("u", "error")
    failing.finished_status("v", "passed")  # not called again
    assert isinstance(failing.error, ValueError) and str(failing.error) == "error"
    assert failing._where == "on_result hook (given test 'u')"
