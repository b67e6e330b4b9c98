"""``provider: openai``: any OpenAI-compatible ``/chat/completions`` endpoint.

OpenAI itself, Azure OpenAI, and servers on your own machine (vLLM, Ollama, llama.cpp
server, LM Studio) through ``base_url``. Structured output is asked for with
``response_format: {"type": "json_schema", ...}``, or where a server rejects that with
``{"type": "json_object", "schema": ...}``, or only in the prompt (``assay.models._structured``);
the reply is checked against the schema either way.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar
from urllib.parse import urlsplit

from assay.models._reply import (
    CUT_OFF,
    MalformedReply,
    expect_list,
    expect_object,
    model_name,
    optional_text,
    token_count,
)
from assay.models._structured import Mode
from assay.models.base import ChatModel, Prompt, RawReply, Request
from assay.results.models import TokenUsage

OPENAI_BASE_URL = "https://api.openai.com/v1"
_AZURE_HOSTS = (".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com")
# Reasoning models accept only their default temperature.
_NO_TEMPERATURE = re.compile(r"^(o\d|gpt-5)")


class OpenAIChatModel(ChatModel):
    provider: ClassVar[str] = "openai"
    default_base_url: ClassVar[str] = OPENAI_BASE_URL

    @property
    def url(self) -> str:
        """``{base_url}/chat/completions``, keeping a query string (Azure's api-version)."""
        path, sep, query = self.base_url.partition("?")
        return f"{path.rstrip('/')}/chat/completions" + (f"?{query}" if sep else "")

    @property
    def is_azure(self) -> bool:
        host = (urlsplit(self.base_url).hostname or "").lower()
        return host.endswith(_AZURE_HOSTS)

    @property
    def is_hosted(self) -> bool:
        """OpenAI's or Azure's own API (which want ``max_completion_tokens``)."""
        return self.base_url.startswith(OPENAI_BASE_URL) or self.is_azure

    def build_request(self, prompt: Prompt, mode: Mode = "json_schema") -> Request:
        messages, schema, schema_name = prompt.messages, prompt.schema, prompt.schema_name
        temperature, max_tokens = prompt.temperature, prompt.max_tokens
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
            if self.is_azure:
                headers["api-key"] = self._api_key
        body: dict[str, Any] = {"model": self.config.model, "messages": list(messages)}
        if not (self.is_hosted and _NO_TEMPERATURE.match(self.config.model)):
            body["temperature"] = temperature
        if max_tokens is not None:
            body["max_completion_tokens" if self.is_hosted else "max_tokens"] = max_tokens
        if schema is not None and mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "schema": schema, "strict": True},
            }
        elif schema is not None and mode == "json_object":
            # llama-cpp-python turns the schema into a grammar; OpenAI ignores it
            body["response_format"] = {"type": "json_object", "schema": schema}
        return Request(self.url, headers, body)

    def read_reply(self, data: dict[str, Any], schema_name: str) -> RawReply:
        usage = _usage(expect_object(data.get("usage"), "usage", optional=True))
        choices = expect_list(data.get("choices"), "choices", optional=True)
        if not choices:
            raise MalformedReply("has no choices[0]")
        choice = expect_object(choices[0], "choices[0]")
        message = expect_object(choice.get("message"), "choices[0].message")
        content = message.get("content")
        if isinstance(content, list):  # content parts
            parts = [p for p in content if isinstance(p, dict)]
            text = "".join(
                optional_text(p.get("text"), "a content part's text") or "" for p in parts
            )
        else:
            text = optional_text(content, "choices[0].message.content") or ""
        refusal = optional_text(message.get("refusal"), "choices[0].message.refusal")
        problem = None
        if refusal:
            problem = f"the model refused: {refusal}"
        elif choice.get("finish_reason") == "length":
            problem = CUT_OFF
        return RawReply(text, usage, model_name(data), problem=problem)


def _usage(raw: dict[str, Any]) -> TokenUsage:
    prompt = token_count(raw, "prompt_tokens")
    completion = token_count(raw, "completion_tokens")
    details = expect_object(
        raw.get("prompt_tokens_details"), "usage.prompt_tokens_details", optional=True
    )
    total = token_count(raw, "total_tokens") or prompt + completion
    return TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        cache_read_tokens=token_count(details, "cached_tokens", "usage.prompt_tokens_details"),
    )
