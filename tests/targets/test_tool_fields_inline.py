"""``_read_tool_invocations`` (``result_bytes``'s usual cases and ``_exact`` written out) and
``token_usage``'s plain report (made without ``counted_usage``) against the code they
replaced, kept here as the reference: the same calls (fields, types, fields set) or the
same error, on ordinary and hostile tool lists and usage reports."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from assay._millis import whole_ms
from assay.errors import TargetError
from assay.net.usage import counted_usage
from assay.results.models import ToolInvocation, prevalidated
from assay.targets.base import (
    _TOOL_FIELDS,
    _decoded_arguments,
    _read_tool_invocations,
    _tool_invocation,
    result_bytes,
    token_usage,
)


def _exact(fields: dict[str, Any]) -> bool:  # as it was
    duration, args, error = fields["duration_ms"], fields["args"], fields["error"]
    if not (
        type(fields["name"]) is str
        and type(args) is dict
        and (duration is None or type(duration) is int)  # whole milliseconds
        and (error is None or type(error) is str)
    ):
        return False
    for key in args:
        if type(key) is not str:
            return False
    fields["args"] = dict(args)
    return True


def _reference(raw: Any) -> list[ToolInvocation]:  # _read_tool_invocations as it was
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise TargetError(f"tool_invocations must be a list, got {type(raw).__name__}")
    calls = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise TargetError(f"tool_invocations[{i}] must be an object with a string 'name'")
        args = item.get("args", item.get("arguments")) or {}
        if isinstance(args, str):
            args = _decoded_arguments(args, f"tool_invocations[{i}].args")
        result = item.get("result")
        error = item.get("error")
        fields = {
            "name": item["name"],
            "args": args if isinstance(args, dict) else {"_value": args},
            "result": result,
            "bytes": result_bytes(result),
            "duration_ms": whole_ms(item.get("duration_ms")),
            "error": None if error is None else str(error),
        }
        if _exact(fields):
            calls.append(prevalidated(ToolInvocation, fields, set(_TOOL_FIELDS)))
            continue
        try:
            call = _tool_invocation(fields)
        except ValidationError as exc:
            problem = exc.errors(include_url=False)[0]
            field = ".".join(str(p) for p in problem["loc"])
            raise TargetError(
                f"tool_invocations[{i}].{field}: {problem['msg']} (got {problem.get('input')!r})"
            ) from None
        calls.append(call)
    return calls


class _Name(str):
    pass


def _outcome(read: Callable[[Any], list[ToolInvocation]], raw: Any) -> Any:
    try:
        calls = read(raw)
    except Exception as exc:  # compared, not handled
        return ("raised", type(exc), str(exc))
    return [
        (
            type(c),
            c.__dict__,
            c.__pydantic_fields_set__,
            {k: type(v) for k, v in c.__dict__.items()},
        )
        for c in calls
    ]


RESULTS: list[Any] = [None, 0, -5, 10**40, True, 1.5, "x", "\x00\ud800", [1, {"a": None}], {}]
ITEMS: list[Any] = [
    {"name": "t"},
    {"name": "t", "args": {"q": 1}},
    {"name": "t", "arguments": '{"a": [1, 2]}'},
    {"name": "t", "arguments": "{broken"},
    {"name": "t", "args": "7"},
    {"name": "t", "args": [1]},
    {"name": "t", "args": {1: "int key"}},
    {"name": "t", "args": None, "arguments": {"b": 2}},
    {"name": "t", "duration_ms": 3},
    {"name": "t", "duration_ms": 2.5},
    {"name": "t", "duration_ms": "slow"},
    {"name": "t", "duration_ms": True},
    {"name": "t", "error": "boom"},
    {"name": "t", "error": 404},
    {"name": "t", "error": ""},
    {"name": _Name("sub")},
    {"name": 5},
    {"nom": "t"},
    "t",
]


def _lists() -> list[Any]:
    lists: list[Any] = [None, [], "x", 7, {"name": "t"}]
    for item in ITEMS:
        for result in RESULTS:
            lists.append([item | {"result": result} if isinstance(item, dict) else item])
    lists.append([dict(item) for item in ITEMS if isinstance(item, dict)])
    return lists


@pytest.mark.parametrize("index", range(len(_lists())))
def test_tool_invocations_read_as_before(index: int) -> None:
    raw = _lists()[index]
    assert repr(_outcome(_read_tool_invocations, raw)) == repr(_outcome(_reference, raw))


REPORTS: list[Any] = [
    {},
    {"prompt_tokens": 3},
    {"prompt_tokens": 3, "completion_tokens": 2},
    {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 0},
    {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 9, "cache_read_tokens": 1},
    {"prompt_tokens": 10**40, "completion_tokens": 1},
    {"prompt_tokens": True},
    {"prompt_tokens": "3"},
    {"prompt_tokens": 1.0},
    {"cache_creation_tokens": 4, "cache_read_tokens": 0},
]


@pytest.mark.parametrize("report", REPORTS)
def test_a_plain_usage_report_reads_as_counted_usage_made_it(report: dict[str, Any]) -> None:
    got = token_usage(report)
    if not all(type(v) is int for v in report.values()):
        return  # the general path, unchanged
    prompt, completion = report.get("prompt_tokens", 0), report.get("completion_tokens", 0)
    expected = counted_usage(
        {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": report.get("total_tokens", 0) or prompt + completion,
            "cache_creation_tokens": report.get("cache_creation_tokens", 0),
            "cache_read_tokens": report.get("cache_read_tokens", 0),
        }
    )
    assert got is not None
    assert (got.__dict__, got.__pydantic_fields_set__) == (
        expected.__dict__,
        expected.__pydantic_fields_set__,
    )
