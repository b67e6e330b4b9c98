"""The http target against real servers on 127.0.0.1: requests, replies, templates."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from assay.errors import ConfigError, TargetError
from assay.results.models import TokenUsage, ToolInvocation
from assay.target_config import HttpTarget as HttpConfig
from assay.targets.base import Message, TurnRequest
from assay.targets.http import HttpTarget
from tests.targets.agent_server import FAST_RETRY, AgentServer, Step


def turn(text: str, session_id: str, index: int, history: tuple[Message, ...] = ()) -> TurnRequest:
    return TurnRequest(
        input=text,
        session_id=session_id,
        turn_id=str(index + 1),
        turn_index=index,
        history=history,
    )


def http(url: str, **options: Any) -> HttpTarget:
    return HttpTarget(HttpConfig.model_validate({"url": url, **options}), FAST_RETRY)


async def test_default_request_and_reply_with_a_stateful_agent(server: AgentServer) -> None:
    target = http(server.chat_url)
    await target.start()
    try:
        a, b = target.session("conv-a"), target.session("conv-b")
        first = await a.send(turn("hello", "conv-a", 0))
        second = await a.send(turn("and again", "conv-a", 1, (Message("user", "hello"),)))
        other = await b.send(turn("other", "conv-b", 0))
    finally:
        await target.aclose()

    # the agent keeps its own state; assay sends one turn at a time, no history
    assert server.bodies() == [
        {"query": "hello", "session_id": "conv-a", "turn_id": "1"},
        {"query": "and again", "session_id": "conv-a", "turn_id": "2"},
        {"query": "other", "session_id": "conv-b", "turn_id": "1"},
    ]
    assert server.requests[0].headers["Content-Type"] == "application/json"
    assert first.text == "turn 1: hello"
    assert second.text == "turn 2: and again (earlier: hello)"
    assert other.text == "turn 1: other"
    assert first.tool_invocations == [
        # bytes is the length of the JSON of the result: {"stored": "hello"} is 19 bytes
        ToolInvocation(name="remember", args={"n": 1}, result={"stored": "hello"}, bytes=19)
    ]
    assert first.token_usage == TokenUsage(prompt_tokens=7, completion_tokens=3, total_tokens=10)
    assert first.time_to_first_token_ms is None


async def test_templates_keep_json_types_and_mapping_reads_jsonpath(server: AgentServer) -> None:
    server.queue(
        Step(
            json={
                "data": {
                    "answer": "fine",
                    "steps": [{"name": "lookup", "arguments": '{"city": "Basel"}'}],
                },
                "meta": {"usage": {"input_tokens": 4, "output_tokens": 2}},
            }
        )
    )
    target = HttpTarget(
        HttpConfig.model_validate(
            {
                "url": server.url + "/chat?sid={{ session_id }}",
                "headers": {"X-Turn": "{{ turn_id }}"},
                "body": {
                    "q": "{{ input | upper }}",
                    "n": "{{ turn_index }}",
                    "h": "{{ history }}",
                    "next": "{{ turn_index + 1 }}",
                    "label": "turn {{ turn_index + 1 }} of {{ vars.user }}",
                    "user": "{{ vars.user }}",
                    "fixed": [7, "x"],
                },
                "response": {
                    "text": "$.data.answer",
                    "tool_invocations": "$.data.steps",
                    "token_usage": "$['meta']['usage']",
                },
            }
        ),
        FAST_RETRY,
        variables={"user": "ada"},
    )
    history = (Message("user", "hi"), Message("assistant", "hello"))
    reply = await target.session("s-1").send(turn("how are you", "s-1", 1, history))
    await target.aclose()

    seen = server.requests[0]
    assert seen.query == {"sid": "s-1"}
    assert seen.headers["X-Turn"] == "2"
    assert seen.body == {
        "q": "HOW ARE YOU",
        "n": 1,
        "h": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
        "next": 2,
        "label": "turn 2 of ada",
        "user": "ada",
        "fixed": [7, "x"],
    }
    assert reply.text == "fine"
    assert reply.tool_invocations == [
        ToolInvocation(name="lookup", args={"city": "Basel"}, result=None, bytes=4)  # "null"
    ]
    assert reply.token_usage == TokenUsage(prompt_tokens=4, completion_tokens=2, total_tokens=6)


async def test_jsonpath_filters_and_non_string_text(server: AgentServer) -> None:
    server.queue(
        Step(json={"messages": [{"role": "tool", "v": 1}, {"role": "bot", "v": {"a": [1, 2]}}]})
    )
    target = http(
        server.chat_url,
        response={"text": "$.messages[?role == 'bot'].v", "tool_invocations": None},
    )
    reply = await target.session("s").send(turn("x", "s", 0))
    await target.aclose()
    assert reply.text == '{"a": [1, 2]}'  # objects are kept as their JSON


async def test_get_sends_the_body_as_query_parameters(server: AgentServer) -> None:
    target = http(server.chat_url, method="GET")
    reply = await target.session("g-1").send(turn("hello", "g-1", 0))
    await target.aclose()
    assert server.requests[0].method == "GET"
    assert server.requests[0].query == {"query": "hello", "session_id": "g-1", "turn_id": "1"}
    assert "Content-Type" not in server.requests[0].headers
    assert reply.text == "turn 1: hello"


async def test_a_plain_text_reply_is_the_text(server: AgentServer) -> None:
    server.queue(Step(raw="just words", content_type="text/plain"))
    target = http(server.chat_url)
    reply = await target.session("s").send(turn("x", "s", 0))
    await target.aclose()
    assert reply.text == "just words"


async def test_returned_session_id_is_used_on_later_turns(server: AgentServer) -> None:
    server.assign_ids = True
    target = http(server.chat_url, response={"session_id": "$.session.id"})
    session = target.session("assay-own")
    replies = [await session.send(turn(q, "assay-own", i)) for i, q in enumerate("abc")]
    other = target.session("assay-other")
    await other.send(turn("z", "assay-other", 0))
    await target.aclose()
    assert [b["session_id"] for b in server.bodies()] == [
        "assay-own",
        "srv-1",
        "srv-1",
        "assay-other",  # a new conversation starts from assay's own id again
    ]
    assert replies[2].text == "turn 3: c (earlier: a | b)"


def test_template_and_mapping_problems_are_config_errors_with_their_path() -> None:
    with pytest.raises(ConfigError) as info:
        http("http://127.0.0.1:1/chat", body={"query": "{{ inptu }}"})
    assert str(info.value) == (
        "suite: target.http.body.query: unknown template variable 'inptu'; "
        "the variables are input, session_id, turn_id, turn_index, history, files, vars"
    )
    with pytest.raises(ConfigError, match=r"target\.http\.headers\.X-A: template syntax error"):
        http("http://127.0.0.1:1/chat", headers={"X-A": "{{ input "})
    with pytest.raises(ConfigError, match=r"target\.http\.response\.text: invalid JSONPath"):
        http("http://127.0.0.1:1/chat", response={"text": "$.[["})
    with pytest.raises(ConfigError, match=r"target\.http\.url: expected an http"):
        http("127.0.0.1:8000/chat")
    with pytest.raises(ConfigError, match=r"environment variable ASSAY_TEST_UNSET_VAR is not set"):
        http("http://127.0.0.1:1/chat", headers={"X-Key": "${ASSAY_TEST_UNSET_VAR}"})


async def test_a_template_that_fails_at_render_fails_the_turn(server: AgentServer) -> None:
    target = http(server.chat_url, body={"query": "{{ vars.missing }}"})
    with pytest.raises(TargetError) as info:
        await target.session("s").send(turn("x", "s", 0))
    await target.aclose()
    assert str(info.value) == (
        "target.http.body.query: the template failed: 'dict object' has no attribute 'missing'"
    )
    assert server.requests == []


async def test_max_in_flight_limits_concurrent_requests(server: AgentServer) -> None:
    server.queue(*[Step(json={"response": "ok"}) for _ in range(6)])
    # each request waits for a second one (the peak is at least 2), then lingers (a third
    # would show)
    server.gate.hold_until, server.gate.linger_s = 2, 0.1
    target = http(server.chat_url, max_in_flight=2)
    await target.start()
    replies = await asyncio.gather(
        *(target.session(f"s{i}").send(turn("x", f"s{i}", 0)) for i in range(6))
    )
    await target.aclose()
    assert [r.text for r in replies] == ["ok"] * 6
    assert server.peak_in_flight == 2


async def test_without_limits_requests_run_concurrently(server: AgentServer) -> None:
    server.queue(*[Step(json={"response": "ok"}) for _ in range(6)])
    server.gate.hold_until = 6  # released only once all six are in at once
    target = http(server.chat_url)
    await asyncio.gather(*(target.session(f"s{i}").send(turn("x", f"s{i}", 0)) for i in range(6)))
    await target.aclose()
    assert server.peak_in_flight == 6
