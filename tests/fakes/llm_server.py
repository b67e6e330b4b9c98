"""A scripted model server on 127.0.0.1 that speaks the real wire formats:

- OpenAI-compatible ``POST /v1/chat/completions`` (plain JSON, or SSE with ``"stream": true``)
- Azure OpenAI's ``POST /openai/deployments/{deployment}/chat/completions?api-version=...``
  (``azure_base_url``): without ``api-version`` it answers 404 ``Resource not found``, as
  Azure does
- Anthropic ``POST /v1/messages``

Tests queue what each call should get back (``script``), or install a ``responder`` that
computes a reply from the request; every request's body, headers, path and query are
recorded, so a test can count calls (cache hits make none), check that secrets were sent only
where due, and read the history a stateless client replayed. A ``Completion`` can carry
tool calls (``ToolCall``: arguments as an object, or as raw text that need not be JSON; an
``id`` of its own, a fresh one by default, or none) and cached prompt tokens, reported in
each API's own fields.

Scripted faults: ``Fault(status=429, retry_after=1)``, ``Fault(status=500)``,
``Fault(delay_s=5)`` (a timeout), ``Fault(raw="not json")`` (malformed body),
``Fault(mutate=fn)`` (the real reply body, then broken by ``fn``: ``usage`` as ``"abc"``,
``message`` as a string, ...), ``Fault(chunks=..., headers=...)`` (a body streamed piece by
piece: oversized, a gzip bomb; see ``tests.fakes.hostile``).

``structured`` sets how the server treats ``response_format``, as real local servers do:
``"accept"`` (the default: OpenAI, llama.cpp's ``llama-server``), ``"llama-cpp-python"``
(``json_schema`` is answered with HTTP 500 and the body llama-cpp-python 0.3's server sends,
``Input should be 'text' or 'json_object'``; ``json_object`` is accepted) and ``"ignore"``
(``response_format`` is ignored, and a JSON reply comes wrapped in prose and a code fence,
as an unconstrained model writes it). The request that was rejected is still recorded.

``gate`` counts the requests in flight and can hold them in rounds (``tests.fakes.gate``),
so tests of limits count at the server without depending on how fast requests arrive.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

from tests.fakes.gate import Gate
from tests.fakes.hostile import Chunks, send_chunks


@dataclass
class Fault:
    status: int = 200
    retry_after: float | None = None
    delay_s: float = 0.0
    raw: str | None = None  # a body sent as is (malformed JSON, say)
    mutate: Callable[[dict[str, Any]], Any] | None = None  # breaks the real reply body
    text: str = "ok"  # the reply that ``mutate`` starts from
    chunks: Chunks | None = None
    headers: dict[str, str] = field(default_factory=dict)


_CALL_IDS = itertools.count(1)


@dataclass
class ToolCall:
    name: str
    arguments: dict[str, Any] | str  # text is sent as is (it need not be JSON)
    id: str | None = None  # None: a fresh call_N; "": no id at all (as some servers send)


@dataclass
class Completion:
    """One scripted model reply: text and/or tool calls, with usage. ``cached_tokens`` of
    the prompt tokens were read from the provider's cache."""

    text: str | None = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    prompt_tokens: int = 10
    completion_tokens: int = 5
    cached_tokens: int = 0


Scripted = Completion | Fault | str
StructuredMode = Literal["accept", "llama-cpp-python", "ignore"]

# What llama-cpp-python 0.3's server answers to response_format {"type": "json_schema"}:
# its request model allows only "text" and "json_object", and its error handler turns the
# validation error into an HTTP 500.
LLAMA_CPP_PYTHON_REJECTION = {
    "error": {
        "message": (
            "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
            "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
            "'ctx': {'expected': \"'text' or 'json_object'\"}}]"
        ),
        "type": "internal_server_error",
        "param": None,
        "code": None,
    }
}
Responder = Callable[[str, dict[str, Any]], Scripted]  # (api, request body) -> reply


AZURE_NOT_FOUND = {"error": {"code": "404", "message": "Resource not found"}}


@dataclass
class Recorded:
    api: str  # "openai" | "anthropic"
    body: dict[str, Any]
    headers: dict[str, str]
    path: str = ""
    query: dict[str, str] = field(default_factory=dict)


class ScriptedLLM:
    def __init__(self) -> None:
        self.script: list[Scripted] = []
        self.responder: Responder | None = None
        self.requests: list[Recorded] = []
        self.url = ""
        self.gate = Gate()
        self.structured: StructuredMode = "accept"
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """For OpenAI-compatible clients: ``{url}/v1``."""
        return f"{self.url}/v1"

    def azure_base_url(self, deployment: str, api_version: str | None) -> str:
        """An Azure OpenAI deployment's base URL, with ``?api-version=`` when given."""
        query = f"?api-version={api_version}" if api_version else ""
        return f"{self.url}/openai/deployments/{deployment}{query}"

    def queue(self, *replies: Scripted) -> None:
        with self._lock:
            self.script.extend(replies)

    def calls(self, api: str | None = None) -> int:
        return sum(1 for r in self.requests if api is None or r.api == api)

    def _next(self, api: str, body: dict[str, Any]) -> Scripted:
        with self._lock:
            if self.script:
                return self.script.pop(0)
        if self.responder is not None:
            return self.responder(api, body)
        return Completion(text="ok")

    async def _handle(self, request: web.Request, api: str) -> web.StreamResponse:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            return web.json_response({"error": {"message": "invalid JSON"}}, status=400)
        self.requests.append(
            Recorded(api, body, dict(request.headers), request.path, dict(request.query))
        )
        if request.path.startswith("/openai/") and "api-version" not in request.query:
            return web.json_response(AZURE_NOT_FOUND, status=404)
        response_format = body.get("response_format") if api == "openai" else None
        kind = response_format.get("type") if isinstance(response_format, dict) else None
        if self.structured == "llama-cpp-python" and kind not in (None, "text", "json_object"):
            return web.json_response(LLAMA_CPP_PYTHON_REJECTION, status=500)
        async with self.gate.request():
            reply = self._next(api, body)
            if self.structured == "ignore":
                reply = _unconstrained(reply)
            return await self._reply(request, api, body, reply)

    async def _reply(
        self, request: web.Request, api: str, body: dict[str, Any], reply: Scripted
    ) -> web.StreamResponse:
        if isinstance(reply, str):
            reply = Completion(text=reply)
        if isinstance(reply, Fault):
            if reply.delay_s:
                await self.gate.pause(reply.delay_s)
            if reply.chunks is not None:
                headers = {"Content-Type": "application/json", **reply.headers}
                return await send_chunks(
                    request, reply.chunks, status=reply.status, headers=headers
                )
            if reply.mutate is not None:
                real = (_anthropic_body if api == "anthropic" else _openai_body)(
                    Completion(text=reply.text), body
                )
                return web.json_response(reply.mutate(real), status=reply.status)
            if reply.raw is not None:
                return web.Response(
                    text=reply.raw, status=reply.status, content_type="application/json"
                )
            if reply.status != 200:
                headers = {"Retry-After": f"{reply.retry_after:g}"} if reply.retry_after else {}
                return web.json_response(
                    {"error": {"message": f"scripted {reply.status}", "type": "scripted"}},
                    status=reply.status,
                    headers=headers,
                )
            reply = Completion(text="ok")
        if api == "anthropic":
            return web.json_response(_anthropic_body(reply, body))
        if body.get("stream"):
            return await _openai_stream(request, reply, body)
        return web.json_response(_openai_body(reply, body))


def _unconstrained(reply: Scripted) -> Scripted:
    """A JSON reply as a model that was not held to JSON writes it: in prose and a fence."""
    text = reply.text if isinstance(reply, Completion) else reply
    if not isinstance(text, str) or not text.lstrip().startswith("{"):
        return reply
    wrapped = f"Sure! Here is my answer:\n```json\n{text}\n```\nLet me know if you need more."
    if isinstance(reply, Completion):
        return Completion(
            wrapped,
            reply.tool_calls,
            reply.prompt_tokens,
            reply.completion_tokens,
            reply.cached_tokens,
        )
    return wrapped


def _openai_body(reply: Completion, body: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.tool_calls:
        message["tool_calls"] = [_openai_tool_call(c) for c in reply.tool_calls]
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "scripted"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            }
        ],
        "usage": _openai_usage(reply),
    }


def _openai_tool_call(call: ToolCall) -> dict[str, Any]:
    arguments = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
    out: dict[str, Any] = {
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }
    call_id = f"call_{next(_CALL_IDS)}" if call.id is None else call.id
    return {"id": call_id, **out} if call_id else out


def _openai_usage(reply: Completion) -> dict[str, Any]:
    """OpenAI's usage: cached tokens are part of ``prompt_tokens``, counted again in
    ``prompt_tokens_details``."""
    usage: dict[str, Any] = {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
    }
    if reply.cached_tokens:
        usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens, "audio_tokens": 0}
    return usage


async def _openai_stream(
    request: web.Request, reply: Completion, body: dict[str, Any]
) -> web.StreamResponse:
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await resp.prepare(request)
    words = (reply.text or "").split(" ")
    for i, word in enumerate(words):
        chunk = {
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "model": body.get("model", "scripted"),
            "choices": [
                {
                    "index": 0,
                    "delta": {"content": word if i == 0 else " " + word},
                    "finish_reason": None,
                }
            ],
        }
        await resp.write(f"data: {json.dumps(chunk)}\n\n".encode())
    final = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "choices": [],
        "usage": _openai_usage(reply),
    }
    await resp.write(f"data: {json.dumps(final)}\n\n".encode())
    await resp.write(b"data: [DONE]\n\n")
    await resp.write_eof()
    return resp


def _anthropic_body(reply: Completion, body: dict[str, Any]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for i, call in enumerate(reply.tool_calls):
        content.append(
            {"type": "tool_use", "id": f"toolu_{i}", "name": call.name, "input": call.arguments}
        )
    # Anthropic's input_tokens leaves out the tokens read from the cache
    usage = {
        "input_tokens": reply.prompt_tokens - reply.cached_tokens,
        "output_tokens": reply.completion_tokens,
    }
    if reply.cached_tokens:
        usage |= {"cache_read_input_tokens": reply.cached_tokens, "cache_creation_input_tokens": 0}
    return {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "scripted"),
        "content": content,
        "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
        "usage": usage,
    }


@contextmanager
def scripted_llm() -> Iterator[ScriptedLLM]:
    """Serve a ScriptedLLM on a free port of 127.0.0.1 in a background thread."""
    server = ScriptedLLM()
    app = web.Application()

    async def openai(request: web.Request) -> web.StreamResponse:
        return await server._handle(request, "openai")

    async def anthropic(request: web.Request) -> web.StreamResponse:
        return await server._handle(request, "anthropic")

    app.router.add_post("/v1/chat/completions", openai)
    app.router.add_post("/openai/deployments/{deployment}/chat/completions", openai)
    app.router.add_post("/v1/messages", anthropic)
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    server.url = f"http://127.0.0.1:{port}"
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        loop.call_soon_threadsafe(server.gate.stop)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        loop.run_until_complete(runner.cleanup())
        loop.close()
