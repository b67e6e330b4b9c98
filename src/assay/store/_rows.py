"""A TestResult as the rows of the store's normalised tables (see ``models``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, overload

from assay.results.models import MetricResult, TestResult, TokenUsage, ToolInvocation, TurnResult

Row = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Encoded:
    """A result and its JSON, stored as the payload as it is: the run's writer receives both
    from the run (the JSON, parsed back to the model), and serialises nothing again."""

    payload: str
    result: TestResult

    @classmethod
    def of(cls, result: TestResult) -> Encoded:
        return cls(result.model_dump_json(), result)


@overload
def clean(text: str) -> str: ...
@overload
def clean(text: None) -> None: ...
def clean(text: str | None) -> str | None:
    """PostgreSQL text cannot hold NUL characters: they become U+FFFD in every text column.
    (``encode_result`` already replaced them in a run; this is for any other caller.)"""
    return text.replace("\x00", "\ufffd") if text and "\x00" in text else text


def _tokens(usage: TokenUsage | None) -> int | None:
    return usage.total_tokens if usage is not None else None


def test_row(test_id: int, run_id: str, position: int, encoded: Encoded) -> Row:
    result = encoded.result
    return {
        "id": test_id,
        "run_id": run_id,
        "position": position,
        "test_name": clean(result.test_name),
        "repeat_index": result.repeat_index,
        "test_type": result.test_type,
        "status": result.status,
        "passed": result.passed,
        "tools_matched": result.tools_matched,
        "execution_time_ms": result.execution_time_ms,
        "total_tokens": _tokens(result.token_usage),
        "error_count": len(result.errors),
        "timestamp": result.timestamp,
        "payload": encoded.payload,
    }


def _turn_row(test_id: int, source: TestResult | TurnResult) -> Row:
    """A turn's row; a result without a ``turns`` list is stored as its own turn 0."""
    if isinstance(source, TurnResult):
        index, text, response, skipped = (
            source.turn_index,
            source.input,
            source.response,
            source.skipped,
        )
    else:
        index, text, response, skipped = 0, source.test_input, source.agent_response, False
    return {
        "test_result_id": test_id,
        "turn_index": index,
        "input": clean(text),
        "response": clean(response),
        "ground_truth": clean(source.ground_truth),
        "passed": source.passed,
        "skipped": skipped,
        "tools_matched": source.tools_matched,
        "execution_time_ms": source.execution_time_ms,
        "total_tokens": _tokens(source.token_usage),
        "errors": source.errors,
    }


def _metric_row(test_id: int, seq: int, turn: int | None, metric: MetricResult) -> Row:
    return {
        "test_result_id": test_id,
        "seq": seq,
        "turn_index": turn,
        "metric_name": clean(metric.metric_name),
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
        "name": clean(call.name),
        "args": call.args,
        "bytes": call.bytes,
        "duration_ms": call.duration_ms,
        "error": clean(call.error),
    }


def child_rows(
    test_id: int, result: TestResult, turns: list[Row], metrics: list[Row], tools: list[Row]
) -> None:
    """Append the turn, metric and tool-invocation rows of one stored result. A single-turn
    result's metrics are stored at test level only (turn_index NULL), like every rolled-up
    result; a multi-turn result's turns add their own, with their turn_index."""
    scoped: list[tuple[int | None, list[MetricResult]]] = [(None, result.metric_results)]
    sources: list[TestResult | TurnResult] = list(result.turns) if result.turns else [result]
    for source in sources:
        row = _turn_row(test_id, source)
        turns.append(row)
        tools.extend(
            _tool_row(test_id, row["turn_index"], i, call)
            for i, call in enumerate(source.tool_invocations)
        )
        if isinstance(source, TurnResult):
            scoped.append((source.turn_index, source.metric_results))
    seq = 0
    for turn_index, metric_list in scoped:
        for metric in metric_list:
            metrics.append(_metric_row(test_id, seq, turn_index, metric))
            seq += 1
