"""Stores on a real SQLite file and on the real PostgreSQL server (``pg_url``, from
tests/conftest.py), and sample results."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.results.models import (
    ArgMatchDetail,
    MetricResult,
    RunInfo,
    TestResult,
    TokenUsage,
    ToolInvocation,
    TurnResult,
)
from assay.results.rollup import rollup_multi_turn, single_turn_result


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'store' / 'assay.db'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest) -> str:
    name = "sqlite_url" if request.param == "sqlite" else "pg_url"
    url: str = request.getfixturevalue(name)
    return url


def run_info(run_id: str, started_at: str = "2025-03-01T10:00:00.000+00:00") -> RunInfo:
    return RunInfo(
        id=run_id,
        suite_name="travel-assistant",
        status="running",
        started_at=started_at,
        assay_version="0.1.0",
        git_commit="abc123",
        target="http://127.0.0.1:8765/chat",
        config={"execution": {"concurrency": 4, "repeat": 1}, "judge": {"api_key": "***"}},
    )


def metric(name: str, score: float | None, passed: bool | None, **extra: object) -> MetricResult:
    return MetricResult.model_validate(
        {"metric_name": name, "score": score, "passed": passed, **extra}
    )


def single(name: str, passed: bool = True, score: float = 1.0, repeat: int = 0) -> TestResult:
    turn = TurnResult(
        turn_index=0,
        input=f"question for {name}",
        response="Paris",
        ground_truth="Paris",
        tool_calls=["lookup"],
        tool_invocations=[ToolInvocation(name="lookup", args={"q": name}, result={"hits": 1})],
        metric_results=[metric("equality", score, passed)],
        passed=passed,
        execution_time_ms=12,
        token_usage=TokenUsage(prompt_tokens=10, completion_tokens=2, total_tokens=12),
    )
    return single_turn_result(name, turn, "2025-03-01T10:00:01.000+00:00", repeat_index=repeat)


def multi_turn(name: str = "revenue-dialogue") -> TestResult:
    first = TurnResult(
        turn_index=0,
        input="Revenue in 2021?",
        response="5120",
        ground_truth="5120",
        tool_calls=["lookup"],
        tool_invocations=[
            ToolInvocation(
                name="lookup",
                args={"year": 2021, "unit": "k€", "nested": {"z": [1, 2.5, None], "a": True}},
                result=5120.0,
                bytes=6,
                duration_ms=41,
            )
        ],
        tools_matched=True,
        metric_results=[
            metric("numeric", 1.0, True),
            metric(
                "correctness",
                0.8,
                True,
                kind="judge",
                threshold=0.7,
                model_used="gpt-4o-mini",
                reasoning="close enough",
                dimension="accuracy",
                details={"raw_score": 4, "scale": "1-5"},
            ),
        ],
        passed=True,
        execution_time_ms=412,
        time_to_first_token_ms=90,
        token_usage=TokenUsage(prompt_tokens=180, completion_tokens=12, total_tokens=192),
    )
    second = TurnResult(
        turn_index=1,
        input="And the change from 2020?",
        response="It fell by 0.1",
        ground_truth="640",
        expected_tools=[{"name": "subtract", "count": 1, "args": {"a": {"fuzzy": "5,120"}}}],
        tool_calls=["subtract", "lookup"],
        tool_invocations=[
            ToolInvocation(name="subtract", args={"a": 5120, "b": 4480}, result=640, bytes=3),
            ToolInvocation(name="lookup", args={}, error="timeout after 5 s"),
        ],
        tools_matched=False,
        arg_match_details=[
            ArgMatchDetail(
                expected_tool="subtract",
                args_asserted={"a": {"fuzzy": "5,120"}},
                matched_call_index=-1,
                unmatched_reason="arg 'a' mismatch: expected 5,120, got 5120",
            )
        ],
        tool_mismatches=["arg 'a' mismatch"],
        metric_results=[metric("numeric", 0.0, False), metric("correctness", 0.3, False)],
        metrics_not_run={"faithfulness": "no context"},
        passed=False,
        execution_time_ms=388,
        token_usage=TokenUsage(prompt_tokens=220, completion_tokens=9, total_tokens=229),
        errors=["grader said: unicode ✓ and a NUL \x00 byte"],
    )
    return rollup_multi_turn(
        name, [first, second], "2025-03-01T10:00:02.000+00:00", tags=["finance"]
    )


def goal_result() -> TestResult:
    return TestResult(
        test_name="refund-pressure",
        test_type="goal",
        test_input="Get the assistant to refund a non-refundable ticket",
        passed=False,
        status="not_run",
        execution_time_ms=0,
        timestamp="2025-03-01T10:00:03.000+00:00",
        metrics_not_run={"Goal Achievement": "no judge model configured"},
        trace={"status": "not_run", "history": [], "goal_achieved": None},
    )
