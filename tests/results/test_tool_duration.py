"""A tool invocation's ``duration_ms`` is whole milliseconds, an integer, as in the
turn-result contract's example (``"duration_ms": 41``) and HoloDeck's ToolInvocation, rounded
as ``evaluation_time_ms`` is; a report or store written with fractions still reads."""

from __future__ import annotations

import re
from typing import Any

import pytest

from assay.results.models import ToolInvocation, TurnResult
from assay.results.schema import json_schema
from assay.targets.base import tool_invocations


def test_the_schema_says_integer() -> None:
    call = json_schema("turn-result")["$defs"]["ToolInvocation"]
    assert call["properties"]["duration_ms"]["anyOf"] == [{"type": "integer"}, {"type": "null"}]


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"name": "t", "duration_ms": 41.6}, 42),  # made without validating
        ({"name": "t", "duration_ms": 41.4, "args": {1: "x"}}, 41),  # validated (an int key)
        ({"name": "t", "duration_ms": 7}, 7),
        ({"name": "t", "duration_ms": 2.5}, 2),  # round(), as evaluation_time_ms
        ({"name": "t"}, None),
    ],
)
def test_an_agents_duration_is_read_as_whole_milliseconds(
    item: dict[str, Any], expected: int | None
) -> None:
    (call,) = tool_invocations([item])
    assert call.duration_ms == expected and type(call.duration_ms) is type(expected)
    if expected is not None:
        assert re.search(rf'"duration_ms":{expected}[,}}]', call.model_dump_json())


@pytest.mark.parametrize(
    ("duration", "expected"),
    [
        ("12", 12),  # a number as text, as a JSON agent may write it
        ("12.5", 12),
        (float("nan"), None),  # no duration (json writes NaN): not known, not a failed turn
        (float("inf"), None),
    ],
)
def test_a_number_as_text_or_no_duration_at_all_is_read(duration: Any, expected: Any) -> None:
    (call,) = tool_invocations([{"name": "t", "duration_ms": duration}])
    assert call.duration_ms == expected


def test_a_duration_that_is_no_number_fails_with_its_path() -> None:
    with pytest.raises(Exception, match=r"tool_invocations\[0\]\.duration_ms: "):
        tool_invocations([{"name": "t", "duration_ms": "5ms"}])


def test_a_result_written_with_fractions_reads_as_whole_milliseconds() -> None:
    old = TurnResult.model_validate_json(
        '{"turn_index": 0, "input": "q", "passed": true, "execution_time_ms": 5,'
        ' "tool_invocations": [{"name": "lookup", "duration_ms": 41.5},'
        ' {"name": "lookup", "duration_ms": null}]}'
    )
    first, second = old.tool_invocations
    assert first.duration_ms == 42 and type(first.duration_ms) is int
    assert second.duration_ms is None
    assert ToolInvocation.model_validate({"name": "t", "duration_ms": 12.0}).duration_ms == 12
