"""The OpenAI chat-completions wire format, in one place for everything that speaks it: the
openai target and the ``openai`` model provider (judges, simulated users).

- ``completions_url``: ``{base_url}/chat/completions``, keeping a query string (Azure's
  ``?api-version=...``, without which Azure answers 404).
- ``request_headers``: JSON, and the key as ``Authorization: Bearer`` (and as ``api-key``
  for Azure).
- ``request_body``: model, messages, temperature and the reply limit as the API takes them
  (OpenAI's and Azure's own API want ``max_completion_tokens``, and their reasoning models
  take no temperature), tools, a response format.
- ``read_completion``: a reply read strictly: text, refusal, finish reason, tool calls,
  usage (``assay.net.usage``) and model; a field of the wrong type raises
  ``MalformedReply`` naming its path.
- ``assistant_message`` / ``tool_message``: a tool round as the history replays it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from assay._words import clipped
from assay.net.reply_fields import (
    MalformedReply,
    expect_list,
    expect_object,
    json_kind,
    model_name,
    optional_text,
    server_error,
    shown,
)
from assay.net.usage import read_usage
from assay.results.models import TokenUsage

if TYPE_CHECKING:
    from assay.files.model import Attachment

OPENAI_BASE_URL = "https://api.openai.com/v1"
AZURE_HOSTS = (".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com")
# Reasoning models accept only their default temperature.
_NO_TEMPERATURE = re.compile(r"^(o\d|gpt-5)")
_SHOWN_ARGUMENTS = 80  # characters of unparseable arguments quoted in the error


def completions_url(base_url: str) -> str:
    """``{base_url}/chat/completions``, keeping a query string (Azure's api-version)."""
    path, sep, query = base_url.partition("?")
    return f"{path.rstrip('/')}/chat/completions" + (f"?{query}" if sep else "")


def is_azure(base_url: str) -> bool:
    host = (urlsplit(base_url).hostname or "").lower()
    return host.endswith(AZURE_HOSTS)


def is_hosted(base_url: str) -> bool:
    """OpenAI's or Azure's own API (which want ``max_completion_tokens``)."""
    return base_url.startswith(OPENAI_BASE_URL) or is_azure(base_url)


def request_headers(base_url: str, api_key: str | None) -> dict[str, str]:
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
        if is_azure(base_url):
            headers["api-key"] = api_key
    return headers


def function_tool(
    name: str, description: str | None, parameters: Mapping[str, Any]
) -> dict[str, Any]:
    """One entry of the request's ``tools``: a function declared by its JSON Schema."""
    function: dict[str, Any] = {"name": name, "parameters": dict(parameters)}
    if description:
        function["description"] = description
    return {"type": "function", "function": function}


def request_body(
    base_url: str,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    temperature: float | None = None,
    max_tokens: int | None = None,
    tools: Sequence[Mapping[str, Any]] = (),
    response_format: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A chat-completions request body. ``tools`` are ``function_tool`` entries."""
    hosted = is_hosted(base_url)
    body: dict[str, Any] = {"model": model, "messages": [dict(m) for m in messages]}
    if temperature is not None and not (hosted and _NO_TEMPERATURE.match(model)):
        body["temperature"] = temperature
    if max_tokens is not None:
        body["max_completion_tokens" if hosted else "max_tokens"] = max_tokens
    if tools:
        body["tools"] = [dict(t) for t in tools]
    if response_format is not None:
        body["response_format"] = dict(response_format)
    return body


@dataclass(frozen=True)
class ToolCallRequest:
    """A function call the model asked for. ``arguments`` is the JSON text as the model
    wrote it (replayed unchanged); ``id`` is None when the server sent none."""

    id: str | None
    name: str
    arguments: str


@dataclass(frozen=True)
class ChatCompletion:
    text: str | None  # None when the message has no content
    refusal: str | None
    finish_reason: str | None
    tool_calls: tuple[ToolCallRequest, ...]
    usage: TokenUsage | None  # None when the reply has none
    model: str


def read_completion(data: Any) -> ChatCompletion:
    """``choices[0].message`` and ``usage`` of a decoded reply body; raises
    ``MalformedReply``."""
    if not isinstance(data, dict):
        raise MalformedReply(f"is {json_kind(data)}, not a JSON object")
    raw_usage = data.get("usage")
    usage = None if raw_usage is None else read_usage(expect_object(raw_usage, "usage"))
    choices = expect_list(data.get("choices"), "choices", optional=True)
    if not choices:
        raise server_error(data) or MalformedReply("has no choices[0]")
    choice = expect_object(choices[0], "choices[0]")
    message = expect_object(choice.get("message"), "choices[0].message")
    content = message.get("content")
    if isinstance(content, list):  # content parts
        parts = [p for p in content if isinstance(p, dict)]
        text: str | None = "".join(
            optional_text(p.get("text"), "a content part's text") or "" for p in parts
        )
    else:
        text = optional_text(content, "choices[0].message.content")
    finish = choice.get("finish_reason")
    return ChatCompletion(
        text=text,
        refusal=optional_text(message.get("refusal"), "choices[0].message.refusal"),
        finish_reason=finish if isinstance(finish, str) else None,  # only a label
        tool_calls=_tool_calls(message.get("tool_calls")),
        usage=usage,
        model=model_name(data),
    )


def _tool_calls(raw: Any) -> tuple[ToolCallRequest, ...]:
    calls = []
    for i, item in enumerate(expect_list(raw, "choices[0].message.tool_calls", optional=True)):
        path = f"choices[0].message.tool_calls[{i}]"
        call = expect_object(item, path)
        function = expect_object(call.get("function"), f"{path}.function")
        name = optional_text(function.get("name"), f"{path}.function.name")
        if not name:
            raise MalformedReply(f"has {path}.function.name = {shown(name)}, not a tool name")
        arguments = function.get("arguments")
        if isinstance(arguments, dict):  # some local servers send an object, not its JSON
            arguments = json.dumps(arguments, ensure_ascii=False)
        arguments = optional_text(arguments, f"{path}.function.arguments")
        call_id = optional_text(call.get("id"), f"{path}.id")
        calls.append(ToolCallRequest(call_id or None, name, arguments or ""))
    return tuple(calls)


def decode_arguments(text: str) -> tuple[Any, str | None]:
    """A tool call's arguments decoded: ``(value, None)``, or ``(None, problem)`` when they
    are not JSON. Blank arguments are ``{}`` (some servers send "" for none)."""
    if not text.strip():
        return {}, None
    try:
        return json.loads(text), None
    except (ValueError, RecursionError) as exc:  # not JSON, too deep, an over-long integer
        reason = "it is nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        quoted = clipped(text, _SHOWN_ARGUMENTS)
        return None, f"the arguments are not valid JSON ({reason}): {quoted}"


def assistant_message(text: str | None, calls: Sequence[ToolCallRequest]) -> dict[str, Any]:
    """The assistant's message that asked for ``calls`` (each with its id), as replayed."""
    return {
        "role": "assistant",
        "content": text,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in calls
        ],
    }


def tool_message(call_id: str, content: str) -> dict[str, Any]:
    """One tool call's result, answering the call with ``call_id``."""
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def user_message(text: str, files: Sequence[Attachment] = ()) -> dict[str, Any]:
    """A user message; with files, content parts: the text first, then each document's text
    as a text part and each image as an ``image_url`` part (a data URL); any other file
    sent as bytes is a ``file`` part (a data URL, as OpenAI takes PDFs)."""
    if not files:
        return {"role": "user", "content": text}
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    for file in files:
        if file.is_image:
            parts.append({"type": "image_url", "image_url": {"url": file.data_url()}})
        elif file.text is not None:
            header = f"[attached file {file.name} ({file.mime_type})]"
            parts.append({"type": "text", "text": f"{header}\n{file.text}"})
        else:
            parts.append(
                {"type": "file", "file": {"filename": file.name, "file_data": file.data_url()}}
            )
    return {"role": "user", "content": parts}
