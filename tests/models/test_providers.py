"""Both providers against the scripted server: the request on the wire, the reply read back."""

from __future__ import annotations

import json

import pytest

from assay.config import ModelConfig
from assay.errors import ConfigError
from assay.models import AnthropicChatModel, OpenAIChatModel, make_model
from assay.models.base import Prompt
from tests.fakes.llm_server import Completion, ScriptedLLM, ToolCall
from tests.models.conftest import ANTHROPIC_SECRET, OPENAI_SECRET, anthropic_model, openai_model

SCHEMA = {
    "type": "object",
    "properties": {"reasoning": {"type": "string"}, "score": {"type": "number", "maximum": 5}},
    "required": ["reasoning", "score"],
    "additionalProperties": False,
}
ASK = [{"role": "system", "content": "be fair"}, {"role": "user", "content": "rate this"}]


async def test_openai_structured_output_request_and_reply(llm: ScriptedLLM) -> None:
    llm.queue(Completion(json.dumps({"reasoning": "fine", "score": 4}), [], 120, 30))
    async with openai_model(llm) as model:
        reply = await model.complete(ASK, schema=SCHEMA, schema_name="verdict", max_tokens=200)
    assert reply.parsed == {"reasoning": "fine", "score": 4}
    assert reply.parse_error is None and not reply.cached
    assert reply.usage.prompt_tokens == 120 and reply.usage.total_tokens == 150
    # gpt-4o-mini list price: 0.15 and 0.60 USD per million tokens
    assert reply.cost_usd == pytest.approx((120 * 0.15 + 30 * 0.60) / 1e6)
    sent = llm.requests[0]
    assert sent.api == "openai"
    assert sent.headers["Authorization"] == f"Bearer {OPENAI_SECRET}"
    system, user = sent.body["messages"]
    # the system message ends with an example of the reply's form, never the raw schema
    assert system["content"].startswith("be fair\n\nReply with only one JSON object")
    assert '{"reasoning": "text", "score": 0.5}' in system["content"]
    assert '"additionalProperties"' not in system["content"]
    assert user == ASK[1]
    assert reply.structured_output == "json_schema"
    assert sent.body["temperature"] == 0.0
    assert sent.body["max_tokens"] == 200  # a compatible server: max_tokens
    assert sent.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "verdict", "schema": SCHEMA, "strict": True},
    }


async def test_openai_plain_text_without_schema(llm: ScriptedLLM) -> None:
    llm.queue("hello there")
    async with openai_model(llm, temperature=0.3) as model:
        reply = await model.complete([{"role": "user", "content": "hi"}])
    assert reply.text == "hello there" and reply.parsed is None and reply.parse_error is None
    assert "response_format" not in llm.requests[0].body
    assert llm.requests[0].body["temperature"] == 0.3


async def test_openai_json_in_fences_and_prose_is_read(llm: ScriptedLLM) -> None:
    llm.queue(
        '```json\n{"reasoning": "a", "score": 2}\n```',
        'Sure! Here is my verdict: {"reasoning": "b", "score": 3} Hope that helps.',
    )
    async with openai_model(llm) as model:
        first = await model.complete(ASK, schema=SCHEMA)
        second = await model.complete([*ASK, {"role": "user", "content": "again"}], schema=SCHEMA)
    assert first.parsed == {"reasoning": "a", "score": 2}
    assert second.parsed == {"reasoning": "b", "score": 3}


async def test_openai_reply_breaking_the_schema_is_a_parse_error(llm: ScriptedLLM) -> None:
    llm.queue("no json here", json.dumps({"reasoning": "x", "score": 9}))
    async with openai_model(llm) as model:
        not_json = await model.complete(ASK, schema=SCHEMA)
        too_high = await model.complete([*ASK, {"role": "user", "content": "2"}], schema=SCHEMA)
    assert not_json.parsed is None and "not JSON" in (not_json.parse_error or "")
    assert too_high.parsed is None
    assert "score" in (too_high.parse_error or "") and "maximum" in (too_high.parse_error or "")


async def test_anthropic_tool_reply(llm: ScriptedLLM) -> None:
    verdict = {"reasoning": "solid", "score": 5}
    llm.queue(Completion(None, [ToolCall("verdict", verdict)], 40, 12))
    async with anthropic_model(llm) as model:
        reply = await model.complete(ASK, schema=SCHEMA, schema_name="verdict")
    assert reply.parsed == verdict
    assert json.loads(reply.text) == verdict
    assert reply.usage.prompt_tokens == 40 and reply.usage.completion_tokens == 12
    assert reply.cost_usd == pytest.approx((40 * 0.80 + 12 * 4.00) / 1e6)
    sent = llm.requests[0]
    assert sent.api == "anthropic"
    assert sent.headers["x-api-key"] == ANTHROPIC_SECRET
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert "Authorization" not in sent.headers
    body = sent.body
    assert body["system"].startswith("be fair\n\nReply with only one JSON object")
    assert body["messages"] == [{"role": "user", "content": "rate this"}]
    assert body["max_tokens"] == 1024  # required by the API; the default
    assert body["tools"] == [
        {
            "name": "verdict",
            "description": "Record your answer. Call this tool exactly once.",
            "input_schema": SCHEMA,
        }
    ]
    assert body["tool_choice"] == {"type": "tool", "name": "verdict"}


async def test_anthropic_text_reply_and_invalid_tool_input(llm: ScriptedLLM) -> None:
    llm.queue("just words", Completion(None, [ToolCall("verdict", {"score": 1})]))
    async with anthropic_model(llm) as model:
        text = await model.complete([{"role": "user", "content": "hi"}])
        bad = await model.complete(ASK, schema=SCHEMA)
    assert text.text == "just words" and "tools" not in llm.requests[0].body
    assert bad.parsed is None and "reasoning" in (bad.parse_error or "")


def test_urls_for_each_kind_of_base_url() -> None:
    def openai(base_url: str | None) -> OpenAIChatModel:
        config = ModelConfig(provider="openai", model="m", base_url=base_url)
        return OpenAIChatModel(config, api_key="k")

    def anthropic(base_url: str | None) -> AnthropicChatModel:
        config = ModelConfig(provider="anthropic", model="m", base_url=base_url)
        return AnthropicChatModel(config, api_key="k")

    assert openai(None).url == "https://api.openai.com/v1/chat/completions"
    assert openai("http://127.0.0.1:11434/v1/").url == "http://127.0.0.1:11434/v1/chat/completions"
    azure = openai("https://acme.openai.azure.com/openai/deployments/gpt4o?api-version=2024-10-21")
    assert azure.url == (
        "https://acme.openai.azure.com/openai/deployments/gpt4o/chat/completions"
        "?api-version=2024-10-21"
    )
    request = azure.build_request(Prompt([{"role": "user", "content": "x"}], None, "v", 0.0, 50))
    assert request.headers["api-key"] == "k"
    assert request.body["max_completion_tokens"] == 50 and "max_tokens" not in request.body
    assert anthropic(None).url == "https://api.anthropic.com/v1/messages"
    assert anthropic("http://127.0.0.1:9/").url == "http://127.0.0.1:9/v1/messages"
    assert anthropic("http://127.0.0.1:9/v1").url == "http://127.0.0.1:9/v1/messages"


def test_reasoning_models_on_openai_get_no_temperature() -> None:
    model = OpenAIChatModel(ModelConfig(provider="openai", model="o4-mini"), api_key="k")
    body = model.build_request(
        Prompt([{"role": "user", "content": "x"}], None, "v", 0.0, None)
    ).body
    assert "temperature" not in body


def test_missing_key_is_a_config_error_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY is not set"):
        make_model(ModelConfig(provider="openai", model="gpt-4o"))
    with pytest.raises(ConfigError, match="MY_KEY is not set"):
        make_model(ModelConfig(provider="anthropic", model="c", api_key_env="MY_KEY"))


async def test_local_server_needs_no_key(llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    llm.queue("local")
    config = ModelConfig(provider="openai", model="llama3.1:8b", base_url=llm.base_url)
    async with make_model(config) as model:
        reply = await model.complete([{"role": "user", "content": "hi"}])
    assert reply.text == "local" and reply.cost_usd is None  # not in the price table
    assert "Authorization" not in llm.requests[0].headers


async def test_anthropic_two_verdicts_are_a_malformed_reply(llm: ScriptedLLM) -> None:
    """Two verdict tool calls (scores 5 and 1) are not a verdict: the first one was taken,
    and the test passed; the OpenAI path refuses two JSON objects in a reply likewise."""
    twice = [
        ToolCall("verdict", {"reasoning": "a", "score": 5}),
        ToolCall("verdict", {"reasoning": "b", "score": 1}),
    ]
    llm.queue(Completion(None, twice))
    async with anthropic_model(llm) as model:
        reply = await model.complete(ASK, schema=SCHEMA, schema_name="verdict")
    assert reply.parsed is None
    assert reply.parse_error == (
        "the reply calls the verdict tool 2 times: one answer was asked for, and which of "
        "them it is cannot be told"
    )
    assert [v["score"] for v in json.loads(reply.text)] == [5, 1]  # both kept, as evidence
    llm.queue(
        json.dumps({"reasoning": "a", "score": 5}) + json.dumps({"reasoning": "b", "score": 1})
    )
    async with openai_model(llm) as model:
        both = await model.complete(ASK, schema=SCHEMA)
    assert both.parsed is None and "not JSON" in (both.parse_error or "")
