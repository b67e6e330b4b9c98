"""The http target when things go wrong: unreachable, retried, timed out, malformed, lost."""

from __future__ import annotations

import json
import re

import pytest

from assay.cases.models import TestCase, Turn
from assay.errors import SessionLost, TargetError
from assay.metrics.tools.assertions import ExpectedTool
from assay.net import RetryPolicy
from assay.runner.conversation import CaseSettings, run_case
from assay.target_config import HttpTarget as HttpConfig
from assay.targets.base import TurnRequest
from assay.targets.http import HttpTarget
from tests.targets.agent_server import FAST_RETRY, AgentServer, Step, free_port


def turn(text: str = "hi", index: int = 0, session_id: str = "s-1") -> TurnRequest:
    return TurnRequest(input=text, session_id=session_id, turn_id=str(index + 1), turn_index=index)


def http(url: str, retry: RetryPolicy = FAST_RETRY, **options: object) -> HttpTarget:
    return HttpTarget(HttpConfig.model_validate({"url": url, **options}), retry)


async def failure_of(target: HttpTarget, request: TurnRequest | None = None) -> TargetError:
    """Send one turn that must fail; close the target; the error."""
    try:
        with pytest.raises(TargetError) as info:
            await target.session("s-1").send(request or turn())
    finally:
        await target.aclose()
    return info.value


async def test_start_fails_when_nothing_listens() -> None:
    port = free_port()
    target = http(f"http://127.0.0.1:{port}/chat")
    with pytest.raises(TargetError) as info:
        await target.start()
    assert str(info.value) == f"cannot reach http://127.0.0.1:{port}/chat: connection refused"
    assert info.value.exit_code == 3


async def test_connection_refused_mid_run_is_retried_then_fails_the_turn(
    server: AgentServer,
) -> None:
    target = http(server.chat_url)
    await target.start()
    session = target.session("s-1")
    assert (await session.send(turn("one"))).text == "turn 1: one"
    server.stop()
    with pytest.raises(TargetError) as info:
        await session.send(turn("two", 1))
    await target.aclose()
    assert not isinstance(info.value, SessionLost)
    # FAST_RETRY: the first try and 2 retries
    assert str(info.value) == (
        f"cannot reach {server.chat_url}: connection refused (gave up after 3 tries)"
    )


async def test_500_then_success_is_retried(server: AgentServer) -> None:
    server.queue(Step(status=500, raw="boom"), Step(status=503, raw="busy"))
    target = http(server.chat_url)
    reply = await target.session("s-1").send(turn("hello"))
    await target.aclose()
    assert reply.text == "turn 1: hello"
    assert len(server.requests) == 3
    assert server.bodies()[0] == server.bodies()[2]  # the same request, sent again


async def test_5xx_after_the_last_try_fails_with_status_url_and_body(server: AgentServer) -> None:
    server.queue(*[Step(status=500, json={"error": "database   is\ndown"}) for _ in range(3)])
    error = await failure_of(http(server.chat_url))
    assert str(error) == (
        f'HTTP 500 from {server.chat_url}: {{"error": "database is\\ndown"}} '
        "(gave up after 3 tries)"
    )
    assert len(server.requests) == 3


async def test_no_retries_when_the_suite_says_zero(server: AgentServer) -> None:
    server.queue(Step(status=502, raw="bad gateway"))
    target = http(server.chat_url, RetryPolicy(retries=0))
    assert re.fullmatch(r"HTTP 502 from .*: bad gateway", str(await failure_of(target)))
    assert len(server.requests) == 1


async def test_429_retry_after_is_honoured(server: AgentServer) -> None:
    server.queue(Step(status=429, json={"error": "slow down"}, headers={"Retry-After": "1"}))
    # base delay 10 ms: only Retry-After can make the client wait a whole second
    target = http(server.chat_url, RetryPolicy(retries=1, base_delay_s=0.01))
    reply = await target.session("s-1").send(turn("hello"))
    await target.aclose()
    assert reply.text == "turn 1: hello"
    assert len(server.requests) == 2
    gap = server.requests[1].at - server.requests[0].at
    assert gap >= 1.0


async def test_a_timeout_fails_the_turn_without_retrying(server: AgentServer) -> None:
    server.queue(Step(json={"response": "late"}, delay_s=30))
    error = await failure_of(http(server.chat_url, timeout_s=0.3))
    assert str(error) == f"no reply from {server.chat_url} within 0.3 s"
    assert len(server.requests) == 1


async def test_malformed_json_names_the_problem(server: AgentServer) -> None:
    server.queue(Step(raw='{"response": "unterminated'))
    error = await failure_of(http(server.chat_url))
    assert str(error) == (
        f"the reply from {server.chat_url} is not valid JSON (Unterminated string starting at: "
        'line 1 column 14 (char 13)): {"response": "unterminated'
    )
    assert len(server.requests) == 1  # a malformed reply is not retried


async def test_a_reply_without_the_text_field_says_which_path_and_keys(
    server: AgentServer,
) -> None:
    server.queue(Step(json={"answer": "Paris", "sources": []}))
    error = await failure_of(http(server.chat_url))
    assert str(error) == (
        f"the reply from {server.chat_url} has nothing at $.response (its keys: answer, "
        "sources); set target.http.response.text to the JSONPath of the answer"
    )


async def test_bad_tool_invocations_fail_the_turn(server: AgentServer) -> None:
    server.queue(Step(json={"response": "ok", "tool_invocations": [{"args": {}}]}))
    target = http(server.chat_url)
    assert "tool_invocations[0] must be an object" in str(await failure_of(target))


async def test_other_4xx_fail_at_once(server: AgentServer) -> None:
    server.queue(Step(status=400, json={"error": "query is required"}))
    error = await failure_of(http(server.chat_url))
    assert not isinstance(error, SessionLost)
    assert str(error) == f'HTTP 400 from {server.chat_url}: {{"error": "query is required"}}'
    assert len(server.requests) == 1


@pytest.mark.parametrize("status", [404, 410])
async def test_404_and_410_mean_the_session_is_lost(server: AgentServer, status: int) -> None:
    server.queue(Step(status=status, json={"error": "gone"}))
    target = http(server.chat_url)
    with pytest.raises(SessionLost) as info:
        await target.session("s-1").send(turn(index=2))
    await target.aclose()
    assert str(info.value) == f'HTTP {status} from {server.chat_url}: {{"error": "gone"}}'
    assert len(server.requests) == 1


async def test_a_lost_session_skips_the_rest_of_the_conversation(server: AgentServer) -> None:
    server.forget_after = 1  # the agent answers the first turn, then has lost the session
    case = TestCase(
        name="dialogue",
        type="multi_turn",
        turns=(Turn(input="first"), Turn(input="second"), Turn(input="third")),
    )
    target = http(server.chat_url)
    await target.start()
    try:
        result = await run_case(case, target, CaseSettings(turn_timeout_s=2))
    finally:
        await target.aclose()

    assert result.turns is not None
    first, second, third = result.turns
    assert first.response == "turn 1: first"
    assert first.errors == []
    assert second.errors == [
        f'session lost: HTTP 404 from {server.chat_url}: {{"error": "session not found"}}'
    ]
    assert second.skipped is False
    assert third.skipped is True
    assert third.errors == [
        "skipped: the session is unrecoverable: the agent lost the session at turn 1"
    ]
    assert len(server.requests) == 2  # the third turn was never sent
    assert result.passed is False


async def test_a_skipped_turn_that_expected_tools_asserted_them(server: AgentServer) -> None:
    """Contract §4: the test's tools_matched is null only if no turn asserted tools. The
    skipped third turn expected `lookup`: the test asserted tools (true: no turn's is
    false), while the turn's own stays null, as HoloDeck's executor leaves a skipped turn's:
    it was never sent, so its tools were never evaluated."""
    server.forget_after = 1  # the agent answers the first turn, then has lost the session
    lookup = (ExpectedTool(name="lookup"),)
    case = TestCase(
        name="dialogue",
        type="multi_turn",
        turns=(
            Turn(input="first"),
            Turn(input="second"),
            Turn(input="third", expected_tools=lookup),
        ),
    )
    target = http(server.chat_url)
    await target.start()
    try:
        result = await run_case(case, target, CaseSettings(turn_timeout_s=2))
    finally:
        await target.aclose()

    assert result.turns is not None
    third = result.turns[2]
    assert third.skipped is True and third.expected_tools == ["lookup"]
    assert third.tools_matched is None
    assert result.expected_tools == ["lookup"]
    assert result.tools_matched is True
    assert result.passed is False and result.status == "error"


async def test_a_404_on_the_first_turn_hints_at_the_url(server: AgentServer) -> None:
    target = http(server.url + "/chta")
    with pytest.raises(SessionLost, match=r"\(on the first turn: is the URL right\?\)$"):
        await target.session("s-1").send(turn())
    await target.aclose()


async def test_sse_stream_is_read_to_the_end_with_time_to_first_token(
    server: AgentServer,
) -> None:
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant"}}]},
        {"choices": [{"index": 0, "delta": {"content": "Your flight"}}]},
        {"choices": [{"index": 0, "delta": {"content": " leaves at 12:09."}}]},
        {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 4}},
    ]
    server.queue(
        Step(
            events=[json.dumps(c) for c in chunks] + ["[DONE]"],
            delay_s=0.25,  # before the first byte: the time to first token is at least this
            event_gap_s=0.05,
        )
    )
    # a conversation of one turn: its TurnResult carries the time to first token
    case = TestCase(name="stream", type="multi_turn", turns=(Turn(input="When?"),))
    target = http(server.chat_url, stream=True)
    result = await run_case(case, target, CaseSettings(turn_timeout_s=2))
    await target.aclose()

    assert result.turns is not None
    only = result.turns[0]
    assert only.errors == []
    assert only.response == "Your flight leaves at 12:09."
    assert only.token_usage is not None and only.token_usage.total_tokens == 13
    assert only.time_to_first_token_ms is not None
    # the first text comes after the server's 250 ms pause and one 50 ms gap (the role-only
    # chunk carries none); the whole exchange took longer still
    assert 300 <= only.time_to_first_token_ms < only.execution_time_ms


async def test_an_event_stream_reply_is_recognised_without_stream_true(
    server: AgentServer,
) -> None:
    server.queue(
        Step(
            events=[
                json.dumps({"response": "Hello"}),
                "plain, ",  # a plain-text event
                json.dumps({"response": "world", "tool_invocations": [{"name": "greet"}]}),
            ]
        )
    )
    target = http(server.chat_url)
    reply = await target.session("s-1").send(turn())
    await target.aclose()
    assert reply.text == "Helloplain, world"
    assert [t.name for t in reply.tool_invocations] == ["greet"]
    assert reply.time_to_first_token_ms is not None
