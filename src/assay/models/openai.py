"""``provider: openai``: any OpenAI-compatible ``/chat/completions`` endpoint.

OpenAI itself, Azure OpenAI, and servers on your own machine (vLLM, Ollama, llama.cpp
server, LM Studio) through ``base_url``. The wire format (URL, headers, body, reply) is
``assay.net.openai_wire``'s, shared with the openai target. Structured output is asked for
with ``response_format: {"type": "json_schema", ...}``, or where a server rejects that with
``{"type": "json_object", "schema": ...}``, or only in the prompt (``assay.models._structured``);
the reply is checked against the schema either way.
"""

from __future__ import annotations

from typing import Any, ClassVar

from assay.models._reply import CUT_OFF
from assay.models._structured import Mode
from assay.models.base import ChatModel, Prompt, RawReply, Request
from assay.net.openai_wire import (
    OPENAI_BASE_URL,
    completions_url,
    read_completion,
    request_body,
    request_headers,
)
from assay.results.models import TokenUsage


class OpenAIChatModel(ChatModel):
    provider: ClassVar[str] = "openai"
    default_base_url: ClassVar[str] = OPENAI_BASE_URL

    @property
    def url(self) -> str:
        return completions_url(self.base_url)

    def build_request(self, prompt: Prompt, mode: Mode = "json_schema") -> Request:
        schema, schema_name = prompt.schema, prompt.schema_name
        response_format: dict[str, Any] | None = None
        if schema is not None and mode == "json_schema":
            response_format = {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "schema": schema, "strict": True},
            }
        elif schema is not None and mode == "json_object":
            # llama-cpp-python turns the schema into a grammar; OpenAI ignores it
            response_format = {"type": "json_object", "schema": schema}
        body = request_body(
            self.base_url,
            self.config.model,
            prompt.messages,
            temperature=prompt.temperature,
            max_tokens=prompt.max_tokens,
            response_format=response_format,
        )
        return Request(self.url, request_headers(self.base_url, self._api_key), body)

    def read_reply(self, data: dict[str, Any], schema_name: str) -> RawReply:
        reply = read_completion(data)
        problem = None
        if reply.refusal:
            problem = f"the model refused: {reply.refusal}"
        elif reply.finish_reason == "length":
            problem = CUT_OFF
        usage = reply.usage or TokenUsage()
        return RawReply(reply.text or "", usage, reply.model, problem=problem)
