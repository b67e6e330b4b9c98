"""The openai target as an agent with tools (``target.openai.tools``), against the scripted
OpenAI-compatible server: the tool loop, Python and canned implementations, a call that
fails costing only itself, the round limit, and calls and results replayed on later turns."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from assay.cases import parse_suite
from assay.cases.models import TestCase, Turn
from assay.errors import ConfigError, TargetError
from assay.net import RetryPolicy
from assay.results.models import TokenUsage
from assay.results.schema import json_schema
from assay.runner.conversation import CaseSettings, run_case
from assay.target_config import OpenAITarget as OpenAIConfig
from assay.target_config import TargetConfig
from assay.targets.base import Reply, TurnRequest
from assay.targets.factory import make_target
from assay.targets.openai import OpenAITarget
from tests.fakes.llm_server import Completion, Fault, ScriptedLLM, ToolCall, scripted_llm
from tests.runner.hostile_agents import in_a_run

FAST = RetryPolicy(retries=0)
TOOLS_PY = """
import asyncio
import os
import sys


def get_weather(city):
    return {"city": city, "temp_c": 21}


async def convert(amount, to):
    await asyncio.sleep(0)
    return {"amount": round(amount * 0.9, 2), "currency": to}


def explode(**kwargs):
    raise RuntimeError("the weather service is down")


def leave(**kwargs):
    sys.exit(0)


def halt(**kwargs):
    os._exit(0)


async def cancel_self(**kwargs):
    asyncio.current_task().cancel()
    await asyncio.sleep(0)


def cyclic():
    loop = []
    loop.append(loop)
    return loop
"""
WEATHER = {
    "name": "get_weather",
    "description": "Current weather in a city",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with scripted_llm() as server:
        yield server


@pytest.fixture
def tools_module(tmp_path: Path) -> str:
    """TOOLS_PY under a module name of its own (a cached module would outlive the test)."""
    name = f"assay_test_tools_{uuid.uuid4().hex[:12]}"
    (tmp_path / f"{name}.py").write_text(TOOLS_PY)
    return name


def agent(llm: ScriptedLLM, tmp_path: Path, tools: list[dict[str, Any]], **options: Any) -> Any:
    config = {
        "base_url": llm.base_url,
        "model": "agent-model",
        "api_key_env": None,
        "tools": tools,
        **options,
    }
    return OpenAITarget(OpenAIConfig.model_validate(config), FAST, search_dirs=(tmp_path,))


def turn(text: str, index: int = 0) -> TurnRequest:
    return TurnRequest(input=text, session_id="s", turn_id=str(index + 1), turn_index=index)


async def one_turn(target: OpenAITarget, text: str) -> Reply:
    try:
        reply: Reply = await target.session("s").send(turn(text))
        return reply
    finally:
        await target.aclose()


def sent_results(llm: ScriptedLLM, request: int) -> list[Any]:
    """The tool results the model was sent in a request, decoded."""
    messages = llm.requests[request].body["messages"]
    return [json.loads(m["content"]) for m in messages if m["role"] == "tool"]


async def test_the_loop_runs_python_tools_and_records_every_call(
    llm: ScriptedLLM, tmp_path: Path, tools_module: str
) -> None:
    llm.queue(
        Completion(
            None,
            [
                ToolCall("get_weather", {"city": "Basel"}, id="call_w"),
                ToolCall("convert", {"amount": 100, "to": "CHF"}, id="call_c"),
            ],
            prompt_tokens=20,
            completion_tokens=6,
            cached_tokens=4,
        ),
        Completion("21 °C in Basel; that is 90 CHF.", prompt_tokens=50, completion_tokens=9),
    )
    convert = {"name": "convert", "implementation": f"{tools_module}:convert"}
    target = agent(llm, tmp_path, [WEATHER | {"implementation": tools_module}, convert])
    reply = await one_turn(target, "Weather in Basel, and 100 EUR in CHF?")

    assert reply.text == "21 °C in Basel; that is 90 CHF."
    weather, converted = reply.tool_invocations
    assert (weather.name, weather.args, weather.result, weather.error) == (
        "get_weather",
        {"city": "Basel"},
        {"city": "Basel", "temp_c": 21},
        None,
    )
    assert weather.bytes == len(b'{"city": "Basel", "temp_c": 21}')
    assert (converted.name, converted.args, converted.result) == (
        "convert",
        {"amount": 100, "to": "CHF"},
        {"amount": 90.0, "currency": "CHF"},
    )
    # whole milliseconds, as the contract has them
    assert all(type(c.duration_ms) is int and c.duration_ms >= 0 for c in reply.tool_invocations)
    # the turn's usage is both rounds'
    assert reply.token_usage == TokenUsage(
        prompt_tokens=70, completion_tokens=15, total_tokens=85, cache_read_tokens=4
    )
    first, second = (r.body for r in llm.requests)
    assert first["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": WEATHER["parameters"],
                "description": "Current weather in a city",
            },
        },
        {
            "type": "function",
            "function": {"name": "convert", "parameters": {"type": "object", "properties": {}}},
        },
    ]
    assert second["messages"] == [
        {"role": "user", "content": "Weather in Basel, and 100 EUR in CHF?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_w",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Basel"}'},
                },
                {
                    "id": "call_c",
                    "type": "function",
                    "function": {"name": "convert", "arguments": '{"amount": 100, "to": "CHF"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_w", "content": '{"city": "Basel", "temp_c": 21}'},
        {
            "role": "tool",
            "tool_call_id": "call_c",
            "content": '{"amount": 90.0, "currency": "CHF"}',
        },
    ]


async def test_a_failing_call_costs_only_itself_and_the_model_is_told(
    llm: ScriptedLLM, tmp_path: Path, tools_module: str
) -> None:
    llm.queue(
        Completion(
            None,
            [
                ToolCall("explode", {}),
                ToolCall("leave", {}),
                ToolCall("cyclic", {}),
                ToolCall("get_weather", {"town": "Basel"}),  # not the function's argument
                ToolCall("get_weather", "{city: Basel"),  # not JSON
                ToolCall("book_flight", {"to": "BSL"}),  # not declared
            ],
        ),
        "Sorry, the tools are not working.",
    )
    tools = [
        {"name": name, "implementation": tools_module}
        for name in ("explode", "leave", "cyclic", "get_weather")
    ]
    reply = await one_turn(agent(llm, tmp_path, tools), "Weather?")

    assert reply.text == "Sorry, the tools are not working."
    errors = [c.error for c in reply.tool_invocations]
    assert errors == [
        "the tool raised RuntimeError: the weather service is down",
        "the tool raised SystemExit(0)",
        "the reply cannot be recorded as JSON: result[0] contains itself (a cycle)",
        "the tool raised TypeError: get_weather() got an unexpected keyword argument 'town'",
        "the arguments are not valid JSON (Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)): {city: Basel",
        "no tool named 'book_flight' is declared "
        "(the target declares explode, leave, cyclic, get_weather)",
    ]
    assert all(c.result is None and c.bytes == 4 for c in reply.tool_invocations)
    assert reply.tool_invocations[4].args == {"_raw": "{city: Basel"}
    assert sent_results(llm, 1) == [{"error": e} for e in errors]


async def test_os_exit_or_a_self_cancel_in_a_tool_costs_only_its_call(
    llm: ScriptedLLM, tmp_path: Path, tools_module: str
) -> None:
    llm.queue(
        Completion(None, [ToolCall("halt", {}), ToolCall("cancel_self", {})]),
        "Sorry, the tools are not working.",
    )
    tools = [{"name": name, "implementation": tools_module} for name in ("halt", "cancel_self")]
    reply = await in_a_run(one_turn(agent(llm, tmp_path, tools), "Weather?"))

    assert reply.text == "Sorry, the tools are not working."  # the turn went on
    assert [c.error for c in reply.tool_invocations] == [
        "the tool raised os._exit(0) (it would have ended the run)",
        "the tool raised CancelledError: the code cancelled its own task "
        "(asyncio.current_task().cancel())",
    ]


async def test_canned_results_per_tool_and_per_argument_case(
    llm: ScriptedLLM, tmp_path: Path
) -> None:
    fare = {
        "name": "lookup_fare",
        "result": {"fare": 120},
        "cases": [
            {"args": {"origin": "CDG"}, "result": {"fare": 99}},
            {"args": {"origin": "XXX"}, "error": "unknown airport"},
        ],
    }
    book = {"name": "book", "cases": [{"args": {"fare": 99}, "result": "booked"}]}
    down = {"name": "status", "error": "service unavailable"}
    llm.queue(
        Completion(
            None,
            [
                ToolCall("lookup_fare", {"origin": "CDG", "to": "BSL"}),  # a case, by a subset
                ToolCall("lookup_fare", {"origin": "ZRH"}),  # no case: the tool's result
                ToolCall("lookup_fare", {"origin": "XXX"}),
                ToolCall("book", {"fare": 99}),
                ToolCall("book", {"fare": 120}),  # no case and no result of its own
                ToolCall("status", {}),
            ],
        ),
        "Booked at 99.",
    )
    reply = await one_turn(agent(llm, tmp_path, [fare, book, down]), "Book CDG to BSL")
    outcomes = [(c.result, c.error) for c in reply.tool_invocations]
    assert outcomes == [
        ({"fare": 99}, None),
        ({"fare": 120}, None),
        (None, "unknown airport"),
        ("booked", None),
        (None, "no canned case matches these arguments (target.openai.tools[].cases)"),
        (None, "service unavailable"),
    ]
    contents = [m["content"] for m in llm.requests[1].body["messages"] if m["role"] == "tool"]
    assert contents[:4] == [
        '{"fare": 99}',
        '{"fare": 120}',
        '{"error": "unknown airport"}',
        "booked",
    ]


async def test_the_loop_stops_at_max_tool_rounds_and_fails_the_turn(
    llm: ScriptedLLM, tmp_path: Path
) -> None:
    llm.responder = lambda api, body: Completion(None, [ToolCall("status", {})])
    target = agent(llm, tmp_path, [{"name": "status", "result": "busy"}], max_tool_rounds=2)
    with pytest.raises(TargetError) as info:
        await one_turn(target, "Status?")
    assert str(info.value) == (
        "the model still asked for tools (status) after 2 rounds of tool calls "
        "(max_tool_rounds: 2); the 2 calls answered: status, status"
    )
    assert llm.calls() == 3  # two answered rounds, then the reply that was one too many


async def test_a_turn_out_of_rounds_still_records_its_calls_and_tokens(
    llm: ScriptedLLM, tmp_path: Path
) -> None:
    llm.responder = lambda api, body: Completion(
        None, [ToolCall("status", {})], prompt_tokens=10, completion_tokens=5
    )
    target = agent(llm, tmp_path, [{"name": "status", "result": "busy"}], max_tool_rounds=2)
    case = TestCase(name="loop", type="single_turn", turns=(Turn(input="Status?"),))
    await target.start()
    try:
        result = await run_case(case, target, CaseSettings(turn_timeout_s=5))
    finally:
        await target.aclose()
    assert result.status == "error"
    assert "after 2 rounds of tool calls" in result.errors[0]
    assert result.tool_calls == ["status", "status"]  # the two answered calls
    assert [c.result for c in result.tool_invocations] == ["busy", "busy"]
    # three model calls of 10 + 5 tokens: what the turn cost, though it failed
    assert result.token_usage == TokenUsage(prompt_tokens=30, completion_tokens=15, total_tokens=45)


async def test_calls_and_results_are_replayed_before_each_answer_on_later_turns(
    llm: ScriptedLLM, tmp_path: Path, tools_module: str
) -> None:
    """Turn 0 uses a tool, turn 1 fails, turn 2 sees turn 0's call and result before its
    answer, and turn 1's question without an answer."""
    llm.queue(
        Completion(None, [ToolCall("get_weather", {"city": "Basel"}, id="call_1")]),
        Completion("21 °C.", prompt_tokens=30),
        Fault(status=400),
        "Take a jacket.",
    )
    target = agent(
        llm,
        tmp_path,
        [WEATHER | {"implementation": tools_module}],
        system_prompt="You are a weather bot.",
    )
    case = TestCase(
        name="weather",
        type="multi_turn",
        turns=(
            Turn(input="Weather in Basel?"),
            Turn(input="And tomorrow?"),
            Turn(input="What should I wear?"),
        ),
    )
    await target.start()
    try:
        result = await run_case(case, target, CaseSettings(turn_timeout_s=5))
    finally:
        await target.aclose()

    assert result.turns is not None
    assert [t.response for t in result.turns] == ["21 °C.", None, "Take a jacket."]
    assert [t.tool_calls for t in result.turns] == [["get_weather"], [], []]
    assert result.turns[0].tool_invocations[0].result == {"city": "Basel", "temp_c": 21}
    assert result.turns[0].token_usage == TokenUsage(
        prompt_tokens=40, completion_tokens=10, total_tokens=50
    )
    assert "HTTP 400" in result.turns[1].errors[0]
    tool_round = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Basel"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"city": "Basel", "temp_c": 21}'},
    ]
    system = {"role": "system", "content": "You are a weather bot."}
    assert llm.requests[2].body["messages"] == [
        system,
        {"role": "user", "content": "Weather in Basel?"},
        *tool_round,
        {"role": "assistant", "content": "21 °C."},
        {"role": "user", "content": "And tomorrow?"},
    ]
    assert llm.requests[3].body["messages"] == [
        system,
        {"role": "user", "content": "Weather in Basel?"},
        *tool_round,
        {"role": "assistant", "content": "21 °C."},
        {"role": "user", "content": "And tomorrow?"},
        {"role": "user", "content": "What should I wear?"},
    ]


async def test_a_server_without_call_ids_gets_ids_of_assays(
    llm: ScriptedLLM, tmp_path: Path
) -> None:
    llm.queue(Completion(None, [ToolCall("status", {}, id=""), ToolCall("status", {}, id="")]))
    await one_turn(agent(llm, tmp_path, [{"name": "status", "result": "up"}]), "Status?")
    messages = llm.requests[1].body["messages"]
    ids = [c["id"] for c in messages[1]["tool_calls"]]
    assert ids == ["call_assay_0_0_0", "call_assay_0_0_1"]
    assert [m["tool_call_id"] for m in messages[2:]] == ids


def test_an_implementation_that_cannot_be_imported_is_a_config_error_with_its_path(
    tmp_path: Path, tools_module: str
) -> None:
    (tmp_path / f"{tools_module}_broken.py").write_text("raise SystemExit('no')\n")
    cases = [
        (f"{tools_module}:nowhere", f"module {tools_module!r} has no attribute 'nowhere'"),
        (f"{tools_module}_broken", f"cannot import module '{tools_module}_broken': SystemExit"),
        (f"{tools_module}_missing", "No module named"),
    ]
    for implementation, message in cases:
        config = TargetConfig.model_validate(
            {
                "openai": {
                    "base_url": "http://127.0.0.1:9/v1",
                    "model": "m",
                    "tools": [
                        {"name": "status", "result": "up"},
                        WEATHER | {"implementation": implementation},
                    ],
                }
            }
        )
        with pytest.raises(ConfigError) as info:
            make_target(config, tmp_path, source="suite.yaml")
        [problem] = info.value.problems
        assert (problem.source, problem.path) == (
            "suite.yaml",
            "target.openai.tools[1].implementation",
        )
        assert message in problem.message


BAD_TOOLS = [
    ({"name": "get weather", "result": 1}, "tools[0].name", "1 to 64 letters, digits, _ or -"),
    ({"name": "a"}, "tools[0]", "give implementation: (a module next to the suite) or a canned"),
    (
        {"name": "a", "implementation": "my_tools", "result": 1},
        "tools[0]",
        "give either implementation: or canned result:, not both",
    ),
    ({"name": "a", "result": 1, "error": "e"}, "tools[0]", "give result: or error:, not both"),
    (
        {"name": "a", "implementation": "my_tools.py"},
        "tools[0].implementation",
        "write the module's name, 'my_tools', not its file name",
    ),
    (
        {"name": "a", "result": 1, "parameters": {"type": "array"}},
        "tools[0].parameters",
        "a tool's arguments are an object: give the schema type: object",
    ),
    (
        {"name": "a", "result": 1, "parameters": {"type": "object", "properties": 5}},
        "tools[0].parameters",
        "not a valid JSON Schema",
    ),
    (
        {"name": "a", "cases": [{"args": {"x": 1}}]},
        "tools[0].cases[0]",
        "give a case exactly one of result: or error:",
    ),
]


@pytest.mark.parametrize(("tool", "path", "message"), BAD_TOOLS, ids=[m for *_, m in BAD_TOOLS])
def test_tool_declarations_are_checked_when_the_suite_loads(
    tool: dict[str, Any], path: str, message: str
) -> None:
    suite = {
        "name": "s",
        "target": {"openai": {"base_url": "http://127.0.0.1:9/v1", "model": "m", "tools": [tool]}},
        "tests": [{"name": "t", "input": "q"}],
    }
    with pytest.raises(ConfigError) as info:
        parse_suite(suite, "suite.yaml")
    [problem] = info.value.problems
    assert problem.path == f"target.openai.{path}"
    assert message in problem.message
    assert not jsonschema.Draft202012Validator(json_schema("suite")).is_valid(suite)


def test_two_tools_of_one_name_are_refused() -> None:
    tools = [{"name": "a", "result": 1}, {"name": "a", "error": "e"}]
    suite = {
        "name": "s",
        "target": {"openai": {"base_url": "http://127.0.0.1:9/v1", "model": "m", "tools": tools}},
        "tests": [{"name": "t", "input": "q"}],
    }
    with pytest.raises(ConfigError) as info:
        parse_suite(suite, "suite.yaml")
    assert str(info.value) == (
        "suite.yaml: target.openai: two tools are named 'a'; tool names must be unique"
    )
