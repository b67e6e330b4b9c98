"""The openai target against the scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from assay.cases.models import TestCase, Turn
from assay.errors import ConfigError, SessionLost, TargetError
from assay.metrics.tools.assertions import ExpectedTool
from assay.net import RetryPolicy
from assay.results.models import TokenUsage, ToolInvocation
from assay.runner.conversation import CaseSettings, run_case
from assay.secrets import REDACTOR
from assay.target_config import OpenAITarget as OpenAIConfig
from assay.targets.base import TurnRequest
from assay.targets.openai import OpenAITarget
from tests.fakes.llm_server import Completion, Fault, ScriptedLLM, ToolCall, scripted_llm
from tests.targets.agent_server import FAST_RETRY, free_port


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with scripted_llm() as server:
        yield server


def openai(base_url: str, retry: RetryPolicy = FAST_RETRY, **options: object) -> OpenAITarget:
    config = {"base_url": base_url, "model": "agent-model", "api_key_env": None, **options}
    return OpenAITarget(OpenAIConfig.model_validate(config), retry)


def turn(text: str) -> TurnRequest:
    return TurnRequest(input=text, session_id="s-1", turn_id="1", turn_index=0)


async def test_history_is_replayed_each_turn_after_the_system_prompt(llm: ScriptedLLM) -> None:
    llm.queue("Paris.", Completion(text="About 2.1 million.", prompt_tokens=30), "Yes.")
    target = openai(llm.base_url, system_prompt="Answer briefly.", temperature=0.2)
    case = TestCase(
        name="capital",
        type="multi_turn",
        turns=(
            Turn(input="Capital of France?"),
            Turn(input="Its population?"),
            Turn(input="Is it big?"),
        ),
    )
    await target.start()
    try:
        result = await run_case(case, target, CaseSettings(turn_timeout_s=2))
    finally:
        await target.aclose()

    assert result.turns is not None
    assert [t.response for t in result.turns] == ["Paris.", "About 2.1 million.", "Yes."]
    assert [r.body["messages"] for r in llm.requests] == [
        [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "Capital of France?"},
        ],
        [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "Capital of France?"},
            {"role": "assistant", "content": "Paris."},
            {"role": "user", "content": "Its population?"},
        ],
        [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "Capital of France?"},
            {"role": "assistant", "content": "Paris."},
            {"role": "user", "content": "Its population?"},
            {"role": "assistant", "content": "About 2.1 million."},
            {"role": "user", "content": "Is it big?"},
        ],
    ]
    assert {r.body["model"] for r in llm.requests} == {"agent-model"}
    assert {r.body["temperature"] for r in llm.requests} == {0.2}
    assert result.turns[1].token_usage == TokenUsage(
        prompt_tokens=30, completion_tokens=5, total_tokens=35
    )


async def test_tool_calls_are_recorded_and_text_is_empty_without_content(
    llm: ScriptedLLM,
) -> None:
    llm.queue(
        Completion(
            text=None,
            tool_calls=[
                ToolCall("search_flights", {"origin": "CDG", "destination": "BSL"}),
                ToolCall("lookup_policy", {}),
            ],
            prompt_tokens=12,
            completion_tokens=8,
        )
    )
    target = openai(llm.base_url)
    reply = await target.session("s-1").send(turn("Flights to Basel?"))
    await target.aclose()
    assert reply.text == ""  # answered with tool calls only: not a turn that failed
    assert reply.tool_invocations == [
        # no result from a model's tool call: bytes is the length of "null"
        ToolInvocation(
            name="search_flights", args={"origin": "CDG", "destination": "BSL"}, bytes=4
        ),
        ToolInvocation(name="lookup_policy", args={}, bytes=4),
    ]
    assert reply.token_usage == TokenUsage(prompt_tokens=12, completion_tokens=8, total_tokens=20)
    assert "system" not in [m["role"] for m in llm.requests[0].body["messages"]]
    assert "temperature" not in llm.requests[0].body


async def test_the_key_is_sent_and_its_unset_variable_is_an_error(
    llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ASSAY_TEST_OPENAI_KEY", raising=False)
    with pytest.raises(ConfigError, match="ASSAY_TEST_OPENAI_KEY is not set") as unset:
        openai(llm.base_url, api_key_env="ASSAY_TEST_OPENAI_KEY")
    assert unset.value.problems[0].path == "target.openai.api_key_env"
    monkeypatch.setenv("ASSAY_TEST_OPENAI_KEY", "sk-test-5b1d9e")
    with_key = openai(llm.base_url, api_key_env="ASSAY_TEST_OPENAI_KEY")
    await with_key.session("s").send(turn("b"))
    await with_key.aclose()
    assert llm.requests[0].headers["Authorization"] == "Bearer sk-test-5b1d9e"
    assert REDACTOR("the key sk-test-5b1d9e leaked") == "the key *** leaked"


async def test_5xx_and_429_are_retried(llm: ScriptedLLM) -> None:
    llm.queue(Fault(status=500), Fault(status=429, retry_after=1), "fine")
    target = openai(llm.base_url, RetryPolicy(retries=2, base_delay_s=0.01))
    started = time.monotonic()
    reply = await target.session("s").send(turn("x"))
    elapsed = time.monotonic() - started
    await target.aclose()
    assert reply.text == "fine"
    assert llm.calls("openai") == 3
    assert elapsed >= 1.0  # the Retry-After second was waited out


async def test_an_error_sent_with_http_200_fails_the_turn_with_the_server_s_message(
    llm: ScriptedLLM,
) -> None:
    quota = {
        "error": {
            "message": "You exceeded your current quota.",
            "type": "insufficient_quota",
            "param": None,
            "code": "insufficient_quota",
        }
    }
    llm.queue(Fault(raw=json.dumps(quota)))
    target = openai(llm.base_url)
    with pytest.raises(TargetError) as info:
        await target.session("s").send(turn("x"))
    await target.aclose()
    assert str(info.value) == (
        f"the reply from {llm.base_url}/chat/completions is an error (sent with HTTP 200): "
        "insufficient_quota: You exceeded your current quota."
    )
    assert llm.calls("openai") == 1


async def test_failures_fail_the_turn_with_a_clear_message(llm: ScriptedLLM) -> None:
    url = f"{llm.base_url}/chat/completions"
    llm.queue(*[Fault(status=503)] * 3)
    target = openai(llm.base_url)
    with pytest.raises(TargetError) as info:
        await target.session("s").send(turn("x"))
    assert str(info.value) == (
        f'HTTP 503 from {url}: {{"error": {{"message": "scripted 503", "type": "scripted"}}}} '
        "(gave up after 3 tries)"
    )

    llm.queue(Fault(raw="<html>oops</html>"))
    with pytest.raises(TargetError, match=r"is not valid JSON \(Expecting value.*\): <html>oops"):
        await target.session("s").send(turn("x"))

    llm.queue(Fault(raw='{"object": "error"}'))
    with pytest.raises(TargetError) as malformed:
        await target.session("s").send(turn("x"))
    assert str(malformed.value) == f"the reply from {url} has no choices[0]"

    llm.queue(Fault(status=404))  # a stateless model has no session to lose
    with pytest.raises(TargetError) as lost:
        await target.session("s").send(turn("x"))
    assert not isinstance(lost.value, SessionLost)
    assert str(lost.value).endswith(
        "(is base_url right? it usually ends in /v1; is the model served?)"
    )
    await target.aclose()
    assert llm.calls("openai") == 6  # 3 tries, then one each: none of those is retried


async def test_a_timeout_fails_the_turn(llm: ScriptedLLM) -> None:
    llm.queue(Fault(delay_s=30))
    target = openai(llm.base_url, timeout_s=0.3)
    with pytest.raises(TargetError) as info:
        await target.session("s").send(turn("x"))
    await target.aclose()
    assert str(info.value) == f"no reply from {llm.base_url}/chat/completions within 0.3 s"


async def test_start_checks_the_server_is_there() -> None:
    port = free_port()
    target = openai(f"http://127.0.0.1:{port}/v1")
    with pytest.raises(TargetError) as info:
        await target.start()
    assert str(info.value) == (
        f"cannot reach http://127.0.0.1:{port}/v1/chat/completions: connection refused"
    )


async def test_a_turn_of_tool_calls_only_answered_and_is_replayed_without_them(
    llm: ScriptedLLM,
) -> None:
    """Contract §2: a turn's response is null only when it failed before producing one; a
    reply of tool calls only (content null) produced one, with no text. Without tools: the
    calls never ran, so the next turn replays the answer as text only: an assistant message
    with tool_calls needs a tool message answering each call, which OpenAI requires."""
    subtract = ToolCall("subtract", {"a": 5120, "b": 4480}, id="c1")
    llm.queue(Completion(text=None, tool_calls=[subtract]), "echo:again")
    target = openai(llm.base_url)
    lookup = Turn(input="use a tool please", expected_tools=(ExpectedTool(name="subtract"),))
    case = TestCase(
        name="t", type="multi_turn", turns=(lookup, Turn(input="again", ground_truth="echo:again"))
    )
    await target.start()
    try:
        result = await run_case(case, target, CaseSettings(turn_timeout_s=2))
    finally:
        await target.aclose()

    assert result.turns is not None
    first = result.turns[0]
    assert first.response == "" and first.errors == [] and first.passed
    assert first.tool_calls == ["subtract"] and first.tools_matched is True
    assert result.passed and result.status == "passed"
    assert llm.requests[1].body["messages"] == [
        {"role": "user", "content": "use a tool please"},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "again"},
    ]
