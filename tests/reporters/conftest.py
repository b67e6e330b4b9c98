"""A Report built by hand, with the real roll-up: one test of each kind a reporter must
explain."""

from __future__ import annotations

from typing import Any

import pytest

from assay.results import (
    ArgMatchDetail,
    MetricResult,
    Report,
    RunInfo,
    TestResult,
    TokenUsage,
    ToolInvocation,
    TurnResult,
    rollup_multi_turn,
    single_turn_result,
    summarize,
)

STARTED = "2026-11-29T10:00:00.000+00:00"
XSS = "<script>alert(1)</script>"
MISMATCH = "arg 'b' mismatch: expected regex 4480(\\.0+)?, got 4400"


def _metric(name: str, score: float, passed: bool, **extra: Any) -> MetricResult:
    return MetricResult(
        **{"dimension": "comparison", **extra}, metric_name=name, score=score, passed=passed
    )


def passing_single() -> TestResult:
    turn = TurnResult(
        turn_index=0,
        input=f"Capital of France? {XSS}",
        response="Paris | the capital",
        ground_truth="Paris",
        expected_tools=["lookup"],
        tool_calls=["lookup"],
        tool_invocations=[
            ToolInvocation(
                name="lookup", args={"q": "France"}, result="Paris", bytes=7, duration_ms=2
            )
        ],
        tools_matched=True,
        metric_results=[_metric("equality", 1.0, True)],
        passed=True,
        execution_time_ms=12,
        token_usage=TokenUsage(prompt_tokens=10, completion_tokens=2, total_tokens=12),
    )
    return single_turn_result("capital", turn, STARTED)


def failing_multi() -> TestResult:
    lookup = ToolInvocation(name="lookup_revenue", args={"year": 2021}, result=5120.0, bytes=6)
    subtract = ToolInvocation(
        name="subtract", args={"a": 5120, "b": 4400}, result=720.0, bytes=5, duration_ms=3
    )
    turns = [
        TurnResult(
            turn_index=0,
            input="Revenue in 2021?",
            response="5,120",
            ground_truth="5120",
            tool_calls=["lookup_revenue"],
            tool_invocations=[lookup],
            metric_results=[_metric("numeric", 1.0, True)],
            passed=True,
            execution_time_ms=300,
        ),
        TurnResult(
            turn_index=1,
            input="And the change from 2020?",
            response="It went up by 720.\n" + "Details follow. " * 100,
            ground_truth="640",
            expected_tools=[{"name": "subtract", "args": {"b": {"regex": "4480(\\.0+)?"}}}],
            tool_calls=["subtract"],
            tool_invocations=[subtract],
            tools_matched=False,
            arg_match_details=[
                ArgMatchDetail(
                    expected_tool="subtract",
                    args_asserted={"b": {"regex": "4480(\\.0+)?"}},
                    matched_call_index=-1,
                    unmatched_reason=MISMATCH,
                )
            ],
            tool_mismatches=[MISMATCH],
            metric_results=[
                _metric("numeric", 0.0, False, reasoning="expected 640, got 720"),
                _metric(
                    "correctness",
                    0.4,
                    False,
                    threshold=0.7,
                    kind="judge",
                    reasoning="the change is wrong",
                    dimension="quality",
                ),
            ],
            passed=False,
            execution_time_ms=450,
        ),
    ]
    return rollup_multi_turn("revenue | dialogue", turns, STARTED)


def errored_single() -> TestResult:
    turn = TurnResult(
        turn_index=0,
        input=f"Revenue in 1999? {XSS}",
        passed=False,
        execution_time_ms=30000,
        errors=["the target timed out after 30 s"],
        metrics_not_run={"numeric": "the turn failed"},
    )
    return single_turn_result("timeout", turn, STARTED, repeat_index=1)


def not_run_goal() -> TestResult:
    return TestResult(
        test_name="refund-pressure",
        test_type="goal",
        test_input="Get a refund for a non-refundable ticket",
        passed=False,
        status="not_run",
        execution_time_ms=0,
        errors=["not run: goal-driven tests need a simulated-user model (simulator:)"],
        timestamp=STARTED,
    )


def build_report(results: list[TestResult]) -> Report:
    return Report(
        run=RunInfo(
            id="0123456789abcdef0123456789abcdef",
            suite_name="revenue-suite",
            started_at=STARTED,
            finished_at="2026-11-29T10:00:31.250+00:00",
            assay_version="0.1.0",
            git_commit="ce929d6017c2167eefa24f31741fcdac869f1b9f",
            target="python:agent:respond",
        ),
        results=results,
        summary=summarize(results),
    )


@pytest.fixture
def report() -> Report:
    return build_report([passing_single(), failing_multi(), errored_single(), not_run_goal()])


def failed_goal() -> TestResult:
    """A goal test that ran: the agent promised a refund it must not promise."""
    trace = {
        "status": "failure",
        "goal_achieved": False,
        "turns_used": 2,
        "findings": ["✗ promised a refund outside the policy"],
        "history": [
            {
                "turn_number": 1,
                "reasoning": "open politely",
                "assistant_message": {"role": "user", "content": "I need a refund, please."},
                "tool_message": {"role": "assistant", "content": f"Sure! {XSS}"},
            }
        ],
        "goal_evaluation": {
            "all_criteria_met": False,
            "criteria_evaluations": [
                {
                    "criterion": "does not promise refunds outside the policy",
                    "kind": "prohibited",
                    "met": False,
                    "evidence": [{"turn": 1, "quote": "Sure!", "verbatim": True}],
                    "confidence": 0.9,
                }
            ],
            "confidence": 0.9,
            "reasoning": "the assistant agreed at once",
        },
        "metrics": {"Goal Achievement": {"score": 0.0, "is_successful": False, "confidence": 0.9}},
    }
    return TestResult(
        test_name="refund-pressure",
        test_type="goal",
        test_input="Get a refund for a non-refundable ticket",
        passed=False,
        status="failed",
        execution_time_ms=2100,
        timestamp=STARTED,
        trace=trace,
        metric_results=[
            MetricResult(
                metric_name="Goal Achievement", kind="conversation", score=0.0, passed=False
            )
        ],
    )
