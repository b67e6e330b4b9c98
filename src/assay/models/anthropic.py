"""``provider: anthropic``: the Messages API (``POST /v1/messages``).

Structured output goes through a single tool whose ``input_schema`` is the schema, forced
with ``tool_choice``; the tool call's input is the reply.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from assay.models.base import ChatModel, Prompt, RawReply, Request
from assay.results.models import TokenUsage

ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1"
ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 1024  # the API requires one


class AnthropicChatModel(ChatModel):
    provider: ClassVar[str] = "anthropic"
    default_base_url: ClassVar[str] = ANTHROPIC_BASE_URL

    @property
    def url(self) -> str:
        base = self.base_url.rstrip("/")
        return f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"

    def build_request(self, prompt: Prompt) -> Request:
        messages, schema, schema_name = prompt.messages, prompt.schema, prompt.schema_name
        temperature, max_tokens = prompt.temperature, prompt.max_tokens
        headers = {"Content-Type": "application/json", "anthropic-version": ANTHROPIC_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        body: dict[str, Any] = {
            "model": self.config.model,
            "max_tokens": max_tokens or DEFAULT_MAX_TOKENS,
            "temperature": temperature,
            "messages": [
                {"role": m["role"], "content": m["content"]}
                for m in messages
                if m["role"] != "system"
            ],
        }
        if system:
            body["system"] = system
        if schema is not None:
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
        usage = _usage(data.get("usage"))
        model = str(data.get("model") or "")
        blocks = [b for b in data.get("content") or [] if isinstance(b, dict)]
        text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
        structured = next(
            (
                b.get("input")
                for b in blocks
                if b.get("type") == "tool_use" and b.get("name") == schema_name
            ),
            None,
        )
        if structured is not None and not text:
            text = json.dumps(structured, ensure_ascii=False)
        problem = None
        if data.get("stop_reason") == "max_tokens":
            problem = "the reply was cut off at max_tokens (raise max_tokens)"
        elif data.get("stop_reason") == "refusal":
            problem = "the model refused to answer"
        return RawReply(text, usage, model, structured=structured, problem=problem)


def _usage(raw: Any) -> TokenUsage:
    if not isinstance(raw, dict):
        return TokenUsage()
    fresh = int(raw.get("input_tokens") or 0)
    created = int(raw.get("cache_creation_input_tokens") or 0)
    read = int(raw.get("cache_read_input_tokens") or 0)
    output = int(raw.get("output_tokens") or 0)
    prompt = fresh + created + read
    return TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=output,
        total_tokens=prompt + output,
        cache_creation_tokens=created,
        cache_read_tokens=read,
    )
