"""One OpenAI chat-completions wire format for the openai target and the judges' ``openai``
provider (``assay.net.openai_wire``): the divergences the two clients had are pinned here,
each against the scripted server, through both clients."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from assay.config import ModelConfig
from assay.errors import JudgeError, TargetError
from assay.models import ChatModel, make_model
from assay.net import RetryPolicy
from assay.net.openai_wire import completions_url
from assay.results.models import TokenUsage, ToolInvocation
from assay.target_config import HttpTarget as HttpConfig
from assay.target_config import OpenAITarget as OpenAIConfig
from assay.targets.base import TurnRequest, token_usage
from assay.targets.http import HttpTarget
from assay.targets.openai import OpenAITarget
from tests.fakes.llm_server import Completion, Fault, ScriptedLLM, ToolCall, scripted_llm
from tests.models.test_malformed_replies import OPENAI_FAULTS, _set

FAST = RetryPolicy(retries=2, base_delay_s=0.0, max_delay_s=0.5)
HI = [{"role": "user", "content": "hi"}]


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with scripted_llm() as server:
        yield server


def target(base_url: str, **options: object) -> OpenAITarget:
    config = {"base_url": base_url, "model": "agent-model", "api_key_env": None, **options}
    return OpenAITarget(OpenAIConfig.model_validate(config), FAST)


def judge(base_url: str, provider: str = "openai") -> ChatModel:
    config = ModelConfig(provider=provider, model="judge-model", base_url=base_url)  # type: ignore[arg-type]
    return make_model(config, retry=FAST)


def turn(text: str = "hi") -> TurnRequest:
    return TurnRequest(input=text, session_id="s-1", turn_id="1", turn_index=0)


async def target_reply(base_url: str, **options: object) -> Any:
    agent = target(base_url, **options)
    try:
        return await agent.session("s-1").send(turn())
    finally:
        await agent.aclose()


# -- Azure: the query string survives the URL join ---------------------------------------


@pytest.mark.parametrize("slash", ["", "/"])
async def test_an_azure_base_url_keeps_its_api_version_for_the_target_and_the_judge(
    llm: ScriptedLLM, slash: str
) -> None:
    base_url = llm.azure_base_url(f"gpt4o{slash}", "2024-06-01")
    assert base_url.endswith(f"/openai/deployments/gpt4o{slash}?api-version=2024-06-01")
    llm.queue("from the deployment", "judged")
    reply = await target_reply(base_url)
    async with judge(base_url) as model:
        judged = await model.complete(HI)

    assert (reply.text, judged.text) == ("from the deployment", "judged")
    assert [(r.path, r.query) for r in llm.requests] == [
        ("/openai/deployments/gpt4o/chat/completions", {"api-version": "2024-06-01"})
    ] * 2


async def test_the_scripted_azure_refuses_a_request_without_api_version(llm: ScriptedLLM) -> None:
    """What the target did before the wire module: the query string was dropped (here: never
    given), and Azure answers 404."""
    with pytest.raises(TargetError) as info:
        await target_reply(llm.azure_base_url("gpt4o", None))
    assert "HTTP 404" in str(info.value) and "Resource not found" in str(info.value)
    assert llm.requests[0].query == {}


def test_azure_hosts_get_the_key_as_api_key_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_TEST_AZURE_KEY", "azure-key-5f1e")
    url = "https://acme.openai.azure.com/openai/deployments/gpt4o?api-version=2024-06-01"
    azure = target(url, api_key_env="ASSAY_TEST_AZURE_KEY")
    local = target("http://127.0.0.1:9/v1", api_key_env="ASSAY_TEST_AZURE_KEY")
    assert azure.url == (
        "https://acme.openai.azure.com/openai/deployments/gpt4o/chat/completions"
        "?api-version=2024-06-01"
    )
    assert azure.headers["api-key"] == "azure-key-5f1e"
    assert azure.headers["Authorization"] == "Bearer azure-key-5f1e"
    assert "api-key" not in local.headers and local.headers["Authorization"]
    assert completions_url("http://h/v1/") == "http://h/v1/chat/completions"


# -- cached tokens: one mapping for every client ------------------------------------------


async def test_cached_tokens_count_the_same_for_the_judges_and_the_targets(
    llm: ScriptedLLM,
) -> None:
    """120 prompt tokens of which 100 came from the provider's cache, 8 completion tokens:
    OpenAI reports them as prompt_tokens 120 with prompt_tokens_details.cached_tokens 100,
    Anthropic as input_tokens 20 with cache_read_input_tokens 100. Every client records
    the same five counters."""
    expected = TokenUsage(
        prompt_tokens=120, completion_tokens=8, total_tokens=128, cache_read_tokens=100
    )
    llm.responder = lambda api, body: Completion(
        "ok", prompt_tokens=120, completion_tokens=8, cached_tokens=100
    )
    openai_target = await target_reply(llm.base_url)
    async with judge(llm.base_url) as openai_judge:
        openai_judged = await openai_judge.complete(HI)
    async with judge(llm.url, "anthropic") as anthropic_judge:
        anthropic_judged = await anthropic_judge.complete(HI)
    streamed = HttpTarget(
        HttpConfig(
            url=f"{llm.base_url}/chat/completions",
            body={"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True},
            stream=True,
        ),
        FAST,
    )
    try:
        http_stream = await streamed.session("s").send(turn())
    finally:
        await streamed.aclose()

    assert llm.requests[2].api == "anthropic"
    assert llm.requests[3].body["stream"] is True
    assert openai_target.token_usage == expected
    assert openai_judged.usage == expected
    assert anthropic_judged.usage == expected
    assert http_stream.token_usage == expected
    # an http or python agent that passes its provider's usage on, in either API's names
    openai_names = {
        "prompt_tokens": 120,
        "completion_tokens": 8,
        "prompt_tokens_details": {"cached_tokens": 100},
    }
    anthropic_names = {"input_tokens": 20, "output_tokens": 8, "cache_read_input_tokens": 100}
    assert token_usage(openai_names) == token_usage(anthropic_names) == expected


# -- malformed replies: the same one-line errors from the target as from the judge --------

TOOL_CALL_FAULTS = [
    (
        Fault(mutate=_set("choices.0.message.tool_calls", "x")),
        "has choices[0].message.tool_calls = 'x', not an array",
    ),
    (
        Fault(mutate=_set("choices.0.message.tool_calls", [{"id": "c1"}])),
        "has choices[0].message.tool_calls[0].function = null, not an object",
    ),
    (
        Fault(mutate=_set("choices.0.message.tool_calls", [{"function": {"name": 5}}])),
        "has choices[0].message.tool_calls[0].function.name = 5, not text",
    ),
    (
        Fault(mutate=_set("choices.0.message.tool_calls", [{"function": {"name": ""}}])),
        "has choices[0].message.tool_calls[0].function.name = '', not a tool name",
    ),
    (
        Fault(
            mutate=_set(
                "choices.0.message.tool_calls", [{"function": {"name": "t", "arguments": 7}}]
            )
        ),
        "has choices[0].message.tool_calls[0].function.arguments = 7, not text",
    ),
]
ALL_FAULTS = OPENAI_FAULTS + TOOL_CALL_FAULTS


@pytest.mark.parametrize(("fault", "reason"), ALL_FAULTS, ids=[r for _, r in ALL_FAULTS])
async def test_a_malformed_reply_fails_the_turn_with_one_line(
    llm: ScriptedLLM, fault: Fault, reason: str
) -> None:
    llm.queue(fault)
    with pytest.raises(TargetError) as info:
        await target_reply(llm.base_url)
    message = str(info.value)
    assert message.startswith(f"the reply from {llm.base_url}/chat/completions")
    assert reason in message
    assert "\n" not in message and len(message) < 400
    assert llm.calls() == 1  # a malformed reply is not retried


@pytest.mark.parametrize(
    ("fault", "reason"), TOOL_CALL_FAULTS, ids=[r for _, r in TOOL_CALL_FAULTS]
)
async def test_the_judge_reads_tool_calls_as_strictly(
    llm: ScriptedLLM, fault: Fault, reason: str
) -> None:
    llm.queue(fault)
    async with judge(llm.base_url) as model:
        with pytest.raises(JudgeError) as info:
            await model.complete(HI)
    assert reason in str(info.value) and "\n" not in str(info.value)


# -- tool calls as servers send them ------------------------------------------------------


async def test_tool_calls_without_ids_with_object_or_blank_or_broken_arguments(
    llm: ScriptedLLM,
) -> None:
    def with_raw_calls(body: dict[str, Any]) -> dict[str, Any]:
        body["choices"][0]["message"]["tool_calls"] = [
            {"function": {"name": "a", "arguments": {"x": 1}}},  # an object (some servers)
            {"function": {"name": "b", "arguments": ""}},  # blank: no arguments
            {"function": {"name": "c", "arguments": "{x: 1"}},  # not JSON
            {"function": {"name": "d", "arguments": "[1, 2]"}},  # JSON, not an object
        ]
        body["choices"][0]["message"]["content"] = None
        return body

    llm.queue(Fault(mutate=with_raw_calls))
    reply = await target_reply(llm.base_url)
    assert reply.text == ""  # tool calls only: answered, with no text
    assert reply.tool_invocations == [
        ToolInvocation(name="a", args={"x": 1}, bytes=4),
        ToolInvocation(name="b", args={}, bytes=4),
        ToolInvocation(
            name="c",
            args={"_raw": "{x: 1"},
            bytes=4,
            error="the arguments are not valid JSON (Expecting property name enclosed in "
            "double quotes: line 1 column 2 (char 1)): {x: 1",
        ),
        ToolInvocation(
            name="d", args={"_value": [1, 2]}, bytes=4, error="the arguments are not a JSON object"
        ),
    ]


async def test_a_reply_without_usage_has_no_token_usage_not_zero(llm: ScriptedLLM) -> None:
    """No usage is unknown usage: the cost metric must not read it as free."""
    llm.queue(Fault(mutate=_set("usage", "-")), Completion("b", [], 3, 1))
    assert (await target_reply(llm.base_url)).token_usage is None
    usage = (await target_reply(llm.base_url)).token_usage
    assert usage == TokenUsage(prompt_tokens=3, completion_tokens=1, total_tokens=4)


async def test_a_refusal_is_the_reply_text(llm: ScriptedLLM) -> None:
    def refused(body: dict[str, Any]) -> dict[str, Any]:
        body["choices"][0]["message"] |= {"content": None, "refusal": "I can't help with that."}
        return body

    llm.queue(Fault(mutate=refused))
    assert (await target_reply(llm.base_url)).text == "I can't help with that."


async def test_the_same_tool_calls_read_by_the_judge_and_the_target(llm: ScriptedLLM) -> None:
    call = ToolCall("lookup", {"q": "Basel"}, id="call_9")
    llm.queue(Completion("", [call]), Completion("", [call]))
    reply = await target_reply(llm.base_url)
    async with judge(llm.base_url) as model:
        judged = await model.complete(HI)
    assert reply.tool_invocations == [ToolInvocation(name="lookup", args={"q": "Basel"}, bytes=4)]
    assert judged.text == ""  # the judge reads the text only; the calls were still checked
