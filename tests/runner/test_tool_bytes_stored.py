"""A tool result that JSON cannot hold as given (a NaN, stored as null) has its ``bytes``
(SPEC §4: the length of the JSON of ``result``) measured from the result as stored, not from
the one the agent sent: ``bytes`` used to count ``NaN`` (3) where the stored JSON says
``null`` (4). A real agent on 127.0.0.1 sends the NaN; the report and the store agree."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import assay
from assay.results.models import TestResult, ToolInvocation
from assay.runner.storable import storable
from assay.store import open_store
from assay.targets.base import result_bytes
from tests.api.conftest import write_suite
from tests.targets.agent_server import AgentServer, Step, agent_server


def as_json_length(value: object) -> int:
    return len(json.dumps(value))


@pytest.fixture
def agent() -> Iterator[AgentServer]:
    with agent_server() as served:
        yield served


def test_the_bytes_of_a_nan_result_are_those_of_the_stored_json(
    tmp_path: Path, agent: AgentServer
) -> None:
    sent = {"rate": math.nan, "rows": [1.5, math.inf], "name": "ok"}
    call = {"name": "lookup", "args": {}, "result": sent}
    agent.by_query["nan"] = Step(json={"response": "x", "tool_invocations": [call]})
    store_url = f"sqlite:///{tmp_path / 'runs.db'}"
    report = assay.run(write_suite(tmp_path, agent.chat_url, ["nan"]), store=store_url)
    (result,) = report.results
    (stored,) = result.tool_invocations
    assert stored.result == {"rate": None, "rows": [1.5, None], "name": "ok"}
    assert stored.bytes == as_json_length(stored.result) == 49
    assert result_bytes(sent) == 52  # what was measured before: NaN and Infinity counted
    assert any("nan is not a number JSON can hold" in w for w in result.warnings)
    with open_store(store_url) as store:
        (again,) = store.load_report(report.run.id).results
    assert again.tool_invocations[0].bytes == stored.bytes


def with_call(call: ToolInvocation, **fields: Any) -> TestResult:
    """A passed single-turn result that made ``call`` (``fields``: others, or changes)."""
    values: dict[str, Any] = {
        "test_name": "t",
        "test_type": "single_turn",
        "test_input": "q",
        "passed": True,
        "execution_time_ms": 1,
        "timestamp": "2026-12-01T00:00:00+00:00",
        "tool_invocations": [call],
    }
    return TestResult(**(values | fields))


def test_a_multi_turn_result_and_its_turns_agree() -> None:
    call = ToolInvocation(name="t", result=[math.nan], bytes=result_bytes([math.nan]))
    turn = {"turn_index": 0, "input": "q", "passed": True, "execution_time_ms": 1}
    result = with_call(call, test_type="multi_turn", turns=[{**turn, "tool_invocations": [call]}])
    fixed = storable(result)
    assert fixed.turns is not None
    for held in (fixed.tool_invocations[0], fixed.turns[0].tool_invocations[0]):
        assert (held.result, held.bytes) == ([None], len(b"[null]"))


def test_a_clean_result_keeps_its_bytes_and_its_object() -> None:
    call = ToolInvocation(name="t", result={"a": 1.5}, bytes=result_bytes({"a": 1.5}))
    result = with_call(call)
    assert storable(result) is result and call.bytes == 10
