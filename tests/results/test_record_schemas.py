"""``assay schema`` describes records a reader can check: the turn-result contract's own
example TurnResult is valid against it, and so is every record assay writes."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from assay.results.models import ArgMatchDetail, TokenUsage, ToolInvocation, TurnResult
from assay.results.schema import json_schema

# specs/turn-result-contract.txt §1's example turn ("args": {...} written as {})
CONTRACT_TURN: dict[str, Any] = {
    "turn_index": 0,
    "input": "...",
    "response": "...",
    "ground_truth": "206588",
    "tool_calls": ["lookup"],
    "tool_invocations": [
        {"name": "lookup", "args": {}, "result": 206588.0, "bytes": 32, "duration_ms": 41}
    ],
    "tools_matched": True,
    "arg_match_details": None,
    "metric_results": [
        {
            "metric_name": "numeric",
            "kind": "standard",
            "score": 1.0,
            "threshold": None,
            "passed": True,
            "scale": "0-1",
            "error": None,
            "retry_count": 0,
            "evaluation_time_ms": 0,
            "model_used": None,
            "reasoning": None,
        }
    ],
    "passed": True,
    "execution_time_ms": 412,
    "token_usage": {"prompt_tokens": 180, "completion_tokens": 12, "total_tokens": 192},
    "errors": [],
    "skipped": False,
}


def errors(schema: dict[str, Any], record: Any) -> list[str]:
    return [e.message for e in Draft202012Validator(schema).iter_errors(record)]


def test_the_contracts_example_turn_is_a_valid_turn_result() -> None:
    assert errors(json_schema("turn-result"), CONTRACT_TURN) == []


def test_a_turn_without_a_field_the_contract_requires_is_not() -> None:
    for field in ("turn_index", "input", "tool_calls", "metric_results", "passed", "errors"):
        turn = {k: v for k, v in CONTRACT_TURN.items() if k != field}
        assert errors(json_schema("turn-result"), turn) == [f"'{field}' is a required property"]


def test_the_contracts_example_turn_is_valid_inside_a_test_result() -> None:
    turn_result = {"$ref": "#/$defs/TurnResult", "$defs": json_schema("test-result")["$defs"]}
    assert errors(turn_result, CONTRACT_TURN) == []


def test_a_turn_assay_writes_is_valid_too() -> None:
    turn = TurnResult(
        turn_index=1,
        input="q",
        response="a",
        tool_invocations=[ToolInvocation(name="t", args={"x": 1}, result="r")],
        tool_calls=["t"],
        passed=True,
        execution_time_ms=3,
        token_usage=TokenUsage(prompt_tokens=1, completion_tokens=2, total_tokens=3),
    )
    assert errors(json_schema("turn-result"), turn.model_dump(mode="json")) == []


def test_an_arg_match_detail_reads_as_the_contracts_json_object_does() -> None:
    detail = ArgMatchDetail(
        expected_tool="subtract",
        args_asserted={"a": 206588},
        matched_call_index=-1,
        unmatched_reason="no call to 'subtract' found",
    )
    assert detail["matched_call_index"] == -1 and detail["expected_tool"] == "subtract"
    assert detail["unmatched_reason"] == detail.model_dump()["unmatched_reason"]
    with pytest.raises(KeyError):
        detail["nope"]


# HoloDeck's own records (justinbarias/holodeck, src/holodeck/models/test_result.py), every
# field as its model_dump(mode="json") writes them: a test without a name, a file it
# attached, a G-Eval metric, and in a multi-turn test a turn's grader_details
HOLODECK_METRIC: dict[str, Any] = {
    "metric_name": "coherence",
    "kind": "geval",
    "score": 0.9,
    "threshold": 0.7,
    "passed": True,
    "scale": "0-1",
    "error": None,
    "retry_count": 0,
    "evaluation_time_ms": 812,
    "model_used": "gpt-4o",
    "reasoning": "clear and on topic",
}
HOLODECK_TURN: dict[str, Any] = {
    **CONTRACT_TURN,
    "metric_results": [{**HOLODECK_METRIC, "metric_name": "faithfulness", "kind": "rag"}],
    "grader_details": {"faithfulness": {"claims": 3}},
}
HOLODECK_RESULT: dict[str, Any] = {
    "test_name": None,
    "test_input": "What is 2+2?",
    "processed_files": [
        {
            "original": {"path": "notes.txt", "type": "text"},
            "markdown_content": "# Notes",
            "metadata": {"size": 7},
            "cached_path": None,
            "processing_time_ms": 3,
            "error": None,
        }
    ],
    "agent_response": "The answer is 4",
    "tool_calls": ["calculator"],
    "tool_invocations": [
        {"name": "calculator", "args": {"a": 2}, "result": 4, "bytes": 1, "duration_ms": None}
    ],
    "expected_tools": ["calculator"],
    "tools_matched": True,
    "metric_results": [HOLODECK_METRIC],
    "ground_truth": "The answer is 4",
    "passed": True,
    "execution_time_ms": 412,
    "errors": [],
    "timestamp": "2026-04-20T00:00:00+00:00",
    "token_usage": {
        "prompt_tokens": 180,
        "completion_tokens": 12,
        "total_tokens": 192,
        "cache_creation_tokens": 0,
        "cache_read_tokens": 0,
    },
    "turns": None,
}


def test_a_result_holodeck_wrote_is_a_valid_test_result() -> None:
    schema = json_schema("test-result")
    assert errors(schema, HOLODECK_RESULT) == []
    assert errors(schema, {**HOLODECK_RESULT, "turns": [HOLODECK_TURN]}) == []
    named = {k: v for k, v in HOLODECK_RESULT.items() if k != "test_name"}
    assert errors(schema, named) == []
    # HoloDeck's test_legacy_json_without_turns_loads: only the fields its model requires
    legacy = {"test_input": "hi", "passed": True, "execution_time_ms": 5, "timestamp": "t"}
    assert errors(schema, legacy) == []
    assert errors(schema, {k: v for k, v in legacy.items() if k != "test_input"}) == [
        "'test_input' is a required property"
    ]


def test_holodeck_metric_results_may_have_any_scale_and_null_counts() -> None:
    # HoloDeck's MetricResult: scale any string or None, retry_count and evaluation_time_ms
    # None by default
    loose = {**HOLODECK_METRIC, "scale": None, "retry_count": None, "evaluation_time_ms": None}
    schema = json_schema("test-result")
    for metric in (loose, {**HOLODECK_METRIC, "scale": "0-100"}):
        assert errors(schema, {**HOLODECK_RESULT, "metric_results": [metric]}) == []
    bad = {**HOLODECK_METRIC, "retry_count": "twice"}
    assert errors(schema, {**HOLODECK_RESULT, "metric_results": [bad]}) == [
        "'twice' is not of type 'integer', 'null'"
    ]


def test_a_turn_holodeck_wrote_is_a_valid_turn_result() -> None:
    assert errors(json_schema("turn-result"), HOLODECK_TURN) == []


def test_what_assay_never_writes_is_still_checked() -> None:
    schema = json_schema("test-result")
    assert errors(schema, {**HOLODECK_RESULT, "test_name": 7}) == [
        "7 is not valid under any of the given schemas"
    ]
    unknown = {**HOLODECK_METRIC, "kind": "vibes"}
    assert len(errors(schema, {**HOLODECK_RESULT, "metric_results": [unknown]})) == 1
    assert errors(json_schema("turn-result"), {**HOLODECK_TURN, "grader": {}}) == [
        "Additional properties are not allowed ('grader' was unexpected)"
    ]
