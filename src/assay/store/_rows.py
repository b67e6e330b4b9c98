"""A TestResult as the rows of the store's normalised tables (see ``models``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from assay.results.models import MetricResult, TestResult, TokenUsage, ToolInvocation, TurnResult

Row = dict[str, Any]


def clean(text: str | None) -> str | None:
    """PostgreSQL text cannot hold NUL characters; the JSON payload keeps the original."""
    return text.replace("\x00", "\ufffd") if text and "\x00" in text else text


def _tokens(usage: TokenUsage | None) -> int | None:
    return usage.total_tokens if usage is not None else None


def test_row(run_id: str, position: int, result: TestResult) -> Row:
    return {
        "run_id": run_id,
        "position": position,
        "test_name": result.test_name,
        "repeat_index": result.repeat_index,
        "test_type": result.test_type,
        "status": result.status,
        "passed": result.passed,
        "tools_matched": result.tools_matched,
        "execution_time_ms": result.execution_time_ms,
        "total_tokens": _tokens(result.token_usage),
        "error_count": len(result.errors),
        "timestamp": result.timestamp,
        "payload": result.model_dump_json(),
    }


def _turns(result: TestResult) -> list[TurnResult]:
    """The turns as stored: a result without a ``turns`` list is its own turn 0."""
    if result.turns:
        return result.turns
    return [
        TurnResult.model_construct(
            turn_index=0,
            input=result.test_input,
            response=result.agent_response,
            ground_truth=result.ground_truth,
            tool_invocations=result.tool_invocations,
            tools_matched=result.tools_matched,
            metric_results=[],  # a single-turn test's metrics are stored at test level
            passed=result.passed,
            execution_time_ms=result.execution_time_ms,
            token_usage=result.token_usage,
            errors=result.errors,
            skipped=False,
        )
    ]


def _metric_row(test_id: int, seq: int, turn: int | None, metric: MetricResult) -> Row:
    return {
        "test_result_id": test_id,
        "seq": seq,
        "turn_index": turn,
        "metric_name": metric.metric_name,
        "kind": metric.kind,
        "dimension": clean(metric.dimension),
        "score": metric.score,
        "threshold": metric.threshold,
        "passed": metric.passed,
        "error": clean(metric.error),
        "model_used": clean(metric.model_used),
        "reasoning": clean(metric.reasoning),
    }


def _tool_row(test_id: int, turn: int, index: int, call: ToolInvocation) -> Row:
    return {
        "test_result_id": test_id,
        "turn_index": turn,
        "call_index": index,
        "name": call.name,
        "args": call.args,
        "bytes": call.bytes,
        "duration_ms": call.duration_ms,
        "error": clean(call.error),
    }


def child_rows(
    test_id: int, result: TestResult, turns: list[Row], metrics: list[Row], tools: list[Row]
) -> None:
    """Append the turn, metric and tool-invocation rows of one stored result."""
    scoped: list[tuple[int | None, Iterable[MetricResult]]] = [(None, result.metric_results)]
    for turn in _turns(result):
        turns.append(
            {
                "test_result_id": test_id,
                "turn_index": turn.turn_index,
                "input": clean(turn.input),
                "response": clean(turn.response),
                "ground_truth": clean(turn.ground_truth),
                "passed": turn.passed,
                "skipped": turn.skipped,
                "tools_matched": turn.tools_matched,
                "execution_time_ms": turn.execution_time_ms,
                "total_tokens": _tokens(turn.token_usage),
                "errors": turn.errors,
            }
        )
        tools.extend(
            _tool_row(test_id, turn.turn_index, i, call)
            for i, call in enumerate(turn.tool_invocations)
        )
        scoped.append((turn.turn_index, turn.metric_results))
    seq = 0
    for turn_index, metric_list in scoped:
        for metric in metric_list:
            metrics.append(_metric_row(test_id, seq, turn_index, metric))
            seq += 1
