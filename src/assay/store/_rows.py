"""A TestResult as the rows of the store's normalised tables (see ``models``).

Rows are tuples in the order of their table's ``*_COLUMNS``, handed to the database as they
are (``_bulk.bulk_insert``): no per-row parameter processing. The two JSON columns (a turn's
``errors``, a tool call's ``args``) hold ``json.dumps`` text, as SQLAlchemy's JSON type and
psycopg's ``Json`` made it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, overload

from assay.results.models import MetricResult, TestResult, TokenUsage, ToolInvocation, TurnResult

Row = tuple[Any, ...]

TEST_COLUMNS = (
    "id",
    "run_id",
    "position",
    "test_name",
    "repeat_index",
    "test_type",
    "status",
    "passed",
    "tools_matched",
    "execution_time_ms",
    "total_tokens",
    "error_count",
    "timestamp",
    "payload",
)
TURN_COLUMNS = (
    "test_result_id",
    "turn_index",
    "input",
    "response",
    "ground_truth",
    "passed",
    "skipped",
    "tools_matched",
    "execution_time_ms",
    "total_tokens",
    "errors",
)
METRIC_COLUMNS = (
    "test_result_id",
    "seq",
    "turn_index",
    "metric_name",
    "kind",
    "dimension",
    "score",
    "threshold",
    "passed",
    "error",
    "model_used",
    "reasoning",
)
TOOL_COLUMNS = (
    "test_result_id",
    "turn_index",
    "call_index",
    "name",
    "args",
    "bytes",
    "duration_ms",
    "error",
)

_to_json = json.dumps  # what SQLAlchemy's JSON type and psycopg's Json call: the same text
# (an empty list or object, the usual case, written without the call)


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
    return (
        test_id,
        run_id,
        position,
        clean(result.test_name),
        result.repeat_index,
        result.test_type,
        result.status,
        result.passed,
        result.tools_matched,
        result.execution_time_ms,
        _tokens(result.token_usage),
        len(result.errors),
        result.timestamp,
        encoded.payload,
    )


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
    return (
        test_id,
        index,
        clean(text),
        clean(response),
        clean(source.ground_truth),
        source.passed,
        skipped,
        source.tools_matched,
        source.execution_time_ms,
        _tokens(source.token_usage),
        _to_json(source.errors) if source.errors else "[]",
    )


def _metric_row(test_id: int, seq: int, turn: int | None, metric: MetricResult) -> Row:
    return (
        test_id,
        seq,
        turn,
        clean(metric.metric_name),
        metric.kind,
        clean(metric.dimension),
        metric.score,
        metric.threshold,
        metric.passed,
        clean(metric.error),
        clean(metric.model_used),
        clean(metric.reasoning),
    )


def _tool_row(test_id: int, turn: int, index: int, call: ToolInvocation) -> Row:
    return (
        test_id,
        turn,
        index,
        clean(call.name),
        _to_json(call.args) if call.args else "{}",
        call.bytes,
        call.duration_ms,
        clean(call.error),
    )


def child_rows(
    test_id: int, result: TestResult, turns: list[Row], metrics: list[Row], tools: list[Row]
) -> None:
    """Append the turn, metric and tool-invocation rows of one stored result. A single-turn
    result's metrics are stored at test level only (turn_index NULL), like every rolled-up
    result; a multi-turn result's turns add their own, with their turn_index."""
    seq = 0
    for metric in result.metric_results:
        metrics.append(_metric_row(test_id, seq, None, metric))
        seq += 1
    for source in result.turns or (result,):
        row = _turn_row(test_id, source)
        turns.append(row)
        turn_index = row[1]
        for i, call in enumerate(source.tool_invocations):
            tools.append(_tool_row(test_id, turn_index, i, call))
        if isinstance(source, TurnResult):
            for metric in source.metric_results:
                metrics.append(_metric_row(test_id, seq, turn_index, metric))
                seq += 1
