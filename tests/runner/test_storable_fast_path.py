"""``storable``'s fast path (a result proven clean from its JSON) decides exactly as the full
walk does: every value the walk would change sends the result to the walk, wherever in the
result it sits, and a clean result comes back as the same object with the JSON it stores."""

from __future__ import annotations

import datetime
import enum
import math
from collections.abc import Callable
from typing import Any

import pytest

from assay.results.models import (
    MetricResult,
    ProcessedFile,
    TestResult,
    TokenUsage,
    ToolInvocation,
    TurnResult,
)
from assay.runner import storable as storable_module
from assay.runner.storable import MAX_DEPTH, _walked, storable, storable_payload
from assay.secrets import Redactor


def storable_json(result: TestResult) -> tuple[TestResult, str]:
    """``storable(result)`` and the JSON stored for it, as text."""
    fixed, payload, _ = storable_payload(result)
    return fixed, payload.decode()


class Colour(enum.Enum):
    RED = "red"


class Named(str):
    pass


def nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"d": value}
    return value


def cyclic() -> dict[str, Any]:
    value: dict[str, Any] = {"a": 1}
    value["self"] = value
    return value


# Values an agent or a metric can hand over, each of which the walk changes.
HOSTILE: dict[str, Any] = {
    "nul": "a\x00b",
    "lone surrogate": "a\ud800b",
    "surrogate pair": "\ud83d\ude00",
    "2**64": 2**64,
    "-2**63-1": -(2**63) - 1,
    "nan": float("nan"),
    "infinity": float("inf"),
    "-infinity": float("-inf"),
    "cycle": cyclic(),
    "too deep": nested(MAX_DEPTH + 5),
    "int key": {1: "x"},
    "tuple key": {(1, 2): "x"},
    "enum key": {Colour.RED: "x"},
    "enum": Colour.RED,
    "datetime": datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC),
    "bytes": b"\x00raw",
    "set": {1, 2},
    "str subclass": Named("x"),
    "object": object(),
    "url with a password": "see https://user:pw@example.com/x",
    "url with a key in its query": "see https://example.com/x?api_key=k-1234&lang=en",
    "nested nul": {"list": [1, {"k": "v\x00"}]},
    "2**64 in a list": [1, [2, 2**64]],
    "-2**63-1 in a tuple": ("a", -(2**63) - 1),
}
# Values the walk leaves as they are, which the fast path must let through unchanged.
CLEAN: dict[str, Any] = {
    "text": "plain text, ünïcödé and 🙂",
    "escapes": 'quote " backslash \\ newline \n tab \t bell \x07',
    "int64 max": 2**63 - 1,
    "int64 min": -(2**63),
    "digits in text": "order 123456789012345678901234",
    "float": 1e300,
    "tuple": (1, "two", None),
    "deep but allowed": nested(20),
    "shared, not cyclic": {"a": [1], "b": [1]},
    "empty": {},
}

Place = Callable[[Any], TestResult]


def result(**fields: Any) -> TestResult:
    base: dict[str, Any] = {
        "test_name": "t",
        "test_type": "single_turn",
        "test_input": "question?",
        "agent_response": "42",
        "passed": True,
        "execution_time_ms": 3,
        "timestamp": "2026-11-30T16:00:00.000+00:00",
        "tool_calls": ["lookup"],
        "tool_invocations": [ToolInvocation(name="lookup", args={"q": "x"}, result=42, bytes=2)],
        "metric_results": [MetricResult(metric_name="equality", score=1.0, passed=True)],
        "token_usage": TokenUsage(prompt_tokens=12, completion_tokens=1, total_tokens=13),
    }
    return TestResult(**{**base, **fields})


def in_tool_args(value: Any) -> TestResult:
    return result(tool_invocations=[ToolInvocation(name="t", args={"v": value})])


def in_tool_result(value: Any) -> TestResult:
    return result(tool_invocations=[ToolInvocation(name="t", result=value)])


def in_metric_details(value: Any) -> TestResult:
    return result(metric_results=[MetricResult(metric_name="m", details={"v": value})])


def in_trace(value: Any) -> TestResult:
    return result(trace={"v": value})


def in_a_turn(value: Any) -> TestResult:
    call = ToolInvocation(name="t", args={"v": value})
    turn = TurnResult(turn_index=0, input="hi", passed=True, execution_time_ms=1)
    turn.tool_invocations = [call]
    return result(test_type="multi_turn", turns=[turn], tool_invocations=[call])


class _OwnCall(ToolInvocation):
    """A target's own subclass: the proof checks it by its class's own checks, not inline."""


def in_a_subclass(value: Any) -> TestResult:
    return result(tool_invocations=[_OwnCall(name="t", args={"v": value})])


def as_text(value: Any) -> TestResult:
    """Text fields take only text: the hostile strings, and the text of the rest."""
    text = value if isinstance(value, str) else repr(value)
    return result(agent_response=text, errors=[text], metrics_not_run={text: text})


PLACES: dict[str, Place] = {
    "tool args": in_tool_args,
    "tool result": in_tool_result,
    "metric details": in_metric_details,
    "trace": in_trace,
    "a turn's tool args": in_a_turn,
    "a subclass's tool args": in_a_subclass,
    "text fields": as_text,
}


def walked_json(value: TestResult) -> tuple[TestResult, str]:
    fixed = _walked(value)
    return fixed, fixed.model_dump_json()


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("name", HOSTILE)
def test_every_value_the_walk_changes_is_walked(place: str, name: str) -> None:
    original = PLACES[place](HOSTILE[name])
    expected, expected_json = walked_json(original)

    fixed, stored_json = storable_json(original)

    assert stored_json == expected_json
    assert fixed.warnings == expected.warnings
    assert storable(original).model_dump_json() == expected_json


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("name", CLEAN)
def test_a_clean_result_is_kept_as_it_is_with_the_json_the_walk_would_store(
    place: str, name: str
) -> None:
    original = PLACES[place](CLEAN[name])
    assert _walked(original) is original  # the walk agrees there is nothing to change

    fixed, stored_json = storable_json(original)

    assert fixed is original
    assert storable(original) is original
    assert stored_json == original.model_dump_json()


@pytest.mark.parametrize("place", PLACES)
def test_a_known_secret_is_masked_wherever_it_is(
    place: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(storable_module, "REDACTOR", Redactor(['s3cr3t"tok\n']))
    original = PLACES[place]('before s3cr3t"tok\n after')

    fixed, stored_json = storable_json(original)

    assert 's3cr3t\\"tok\\n' not in stored_json
    assert "***" in stored_json
    assert stored_json == walked_json(original)[1]
    assert fixed is not original


def test_a_secret_learnt_after_a_clean_result_is_masked_in_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    redactor = Redactor()
    monkeypatch.setattr(storable_module, "REDACTOR", redactor)
    assert storable_json(in_trace("hunter2-token"))[0].trace == {"v": "hunter2-token"}

    redactor.add("hunter2-token")

    assert storable_json(in_trace("hunter2-token"))[0].trace == {"v": "***"}


@pytest.mark.parametrize("place", PLACES)
def test_a_url_s_password_and_query_key_are_masked_wherever_they_are_with_no_secret_known(
    place: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(storable_module, "REDACTOR", Redactor())
    original = PLACES[place]("see https://u:pw-9@h.example/x?api_key=k-1234&lang=en now")

    fixed, stored_json = storable_json(original)

    assert "see https://u:***@h.example/x?api_key=***&lang=en now" in stored_json
    assert "pw-9" not in stored_json and "k-1234" not in stored_json
    assert fixed.model_dump_json() == stored_json


TYPED_NUMBERS: dict[str, Callable[[], TestResult]] = {
    "score nan": lambda: result(metric_results=[MetricResult(metric_name="m", score=math.nan)]),
    "evaluation time 2**63": lambda: result(
        metric_results=[MetricResult(metric_name="m", evaluation_time_ms=2**63)]
    ),
    "duration -2**63-1": lambda: result(
        tool_invocations=[ToolInvocation(name="t", duration_ms=-(2**63) - 1)]
    ),
    "tokens 2**64": lambda: result(token_usage=TokenUsage(prompt_tokens=2**64)),
    "time 2**63": lambda: result(execution_time_ms=2**63),
    "tool bytes -2**63-1": lambda: result(
        tool_invocations=[ToolInvocation(name="t", bytes=-(2**63) - 1)]
    ),
    "retry count 2**63": lambda: result(
        metric_results=[MetricResult(metric_name="m", retry_count=2**63)]
    ),
    "a turn's tokens 2**64": lambda: result(
        test_type="multi_turn",
        turns=[
            TurnResult(
                turn_index=0,
                input="hi",
                passed=True,
                execution_time_ms=1,
                token_usage=TokenUsage(total_tokens=2**64),
            )
        ],
    ),
    "a turn's time 2**63": lambda: result(
        test_type="multi_turn",
        turns=[TurnResult(turn_index=0, input="hi", passed=True, execution_time_ms=2**63)],
    ),
    "a file's bytes 2**63": lambda: result(
        processed_files=[
            ProcessedFile(
                name="a.txt",
                path="a.txt",
                mime_type="text/plain",
                bytes=2**63,
                sha256="0",
                read_as="text",
            )
        ]
    ),
}


@pytest.mark.parametrize("name", TYPED_NUMBERS)
def test_a_typed_number_out_of_range_is_walked(name: str) -> None:
    original = TYPED_NUMBERS[name]()
    expected, expected_json = walked_json(original)
    assert expected.warnings  # the walk changes it

    fixed, stored_json = storable_json(original)

    assert (fixed.warnings, stored_json) == (expected.warnings, expected_json)
