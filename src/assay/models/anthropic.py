"""``provider: anthropic``: the Messages API (``POST /v1/messages``).

Structured output goes through a single tool whose ``input_schema`` is the schema, forced
with ``tool_choice``; the tool call's input is the reply. A server that rejects the tool
gets the request with the schema's example in the prompt only.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from assay.config import DEFAULT_MODEL_MAX_TOKENS
from assay.models._reply import CUT_OFF
from assay.models._structured import Mode
from assay.models.base import ChatModel, Prompt, RawReply, Request
from assay.net.reply_fields import (
    expect_list,
    expect_object,
    model_name,
    optional_text,
    server_error,
)
from assay.net.usage import read_usage

ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1"
ANTHROPIC_VERSION = "2023-06-01"


class AnthropicChatModel(ChatModel):
    provider: ClassVar[str] = "anthropic"
    default_base_url: ClassVar[str] = ANTHROPIC_BASE_URL
    # a forced tool call, or the prompt alone (for a server that rejects tools)
    structured_modes: ClassVar[tuple[Mode, ...]] = ("json_schema", "prompt")

    @property
    def url(self) -> str:
        base = self.base_url.rstrip("/")
        return f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"

    def build_request(self, prompt: Prompt, mode: Mode = "json_schema") -> Request:
        messages, schema, schema_name = prompt.messages, prompt.schema, prompt.schema_name
        temperature, max_tokens = prompt.temperature, prompt.max_tokens
        headers = {"Content-Type": "application/json", "anthropic-version": ANTHROPIC_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        body: dict[str, Any] = {
            "model": self.config.model,
            "max_tokens": max_tokens or DEFAULT_MODEL_MAX_TOKENS,  # the API requires one
            "temperature": temperature,
            "messages": [
                {"role": m["role"], "content": m["content"]}
                for m in messages
                if m["role"] != "system"
            ],
        }
        if system:
            body["system"] = system
        if schema is not None and mode == "json_schema":
            body["tools"] = [
                {
                    "name": schema_name,
                    "description": "Record your answer. Call this tool exactly once.",
                    "input_schema": schema,
                }
            ]
            body["tool_choice"] = {"type": "tool", "name": schema_name}
        return Request(self.url, headers, body)

    def read_reply(self, data: dict[str, Any], schema_name: str) -> RawReply:
        if data.get("type") == "error" or not data.get("content"):
            error = server_error(data)  # not re-asked: the same request gets the same error
            if error is not None:
                raise error
        usage = read_usage(expect_object(data.get("usage"), "usage", optional=True))
        content = expect_list(data.get("content"), "content", optional=True)
        blocks = [expect_object(b, f"content[{i}]") for i, b in enumerate(content)]
        text = "".join(
            optional_text(b.get("text"), f"content[{i}].text") or ""
            for i, b in enumerate(blocks)
            if b.get("type") == "text"
        )
        verdicts = [
            b.get("input")
            for b in blocks
            if b.get("type") == "tool_use" and b.get("name") == schema_name
        ]
        structured = verdicts[0] if len(verdicts) == 1 else None
        if verdicts and not text:
            shown = structured if structured is not None else verdicts
            text = json.dumps(shown, ensure_ascii=False)
        problem = None
        if data.get("stop_reason") == "max_tokens":
            problem = CUT_OFF
        elif data.get("stop_reason") == "refusal":
            problem = "the model refused to answer"
        elif len(verdicts) > 1:  # which one is the answer? as two JSON objects in a text reply
            problem = (
                f"the reply calls the {schema_name} tool {len(verdicts)} times: one answer "
                "was asked for, and which of them it is cannot be told"
            )
        return RawReply(text, usage, model_name(data), structured=structured, problem=problem)
