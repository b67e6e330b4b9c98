"""Server-sent events: the ``data:`` payload of each event of a ``text/event-stream``, and
a whole stream folded into one reply (OpenAI chunks, or a ``response`` field per event).

The stream is read through ``ReplyBody.chunks``, so its size limit counts every byte of
every event (comments and keep-alives too): a stream that never ends fails at the limit."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from assay.net.body import ReplyBody

DONE = "[DONE]"  # OpenAI's end-of-stream marker
EVENT_STREAM = "text/event-stream"


def is_event_stream(body: ReplyBody) -> bool:
    return body.content_type == EVENT_STREAM


async def sse_data(chunks: AsyncIterable[bytes]) -> AsyncIterator[str]:
    """Each event's data (multi-line data joined with newlines), read to the end of the
    stream or to ``[DONE]``, after which nothing is read. Comments, ``event:``, ``id:`` and
    ``retry:`` fields are skipped. No line-length limit of its own (events carrying large
    JSON are fine): the size limit of the body bounds a line."""
    pending = bytearray()
    data: list[str] = []
    done = False
    async for chunk in chunks:
        pending += chunk
        end = pending.rfind(b"\n")
        if end < 0:
            continue
        lines = bytes(pending[:end]).split(b"\n")
        del pending[: end + 1]
        for raw in lines:
            line = raw.rstrip(b"\r").decode("utf-8", "replace")
            if not line:
                if data:
                    payload = "\n".join(data)
                    data = []
                    if payload.strip() == DONE:
                        done = True
                        break
                    yield payload
                continue
            field, _, value = line.partition(":")
            if field == "data":
                data.append(value[1:] if value.startswith(" ") else value)
        if done:
            return  # whatever follows [DONE] is not read
    if pending.strip():
        field, _, value = pending.rstrip(b"\r").decode("utf-8", "replace").partition(":")
        if field == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data and "\n".join(data).strip() != DONE:
        yield "\n".join(data)


@dataclass
class StreamedReply:
    """A whole event stream folded into one reply."""

    text: str | None  # None when no event carried text
    time_to_first_token_ms: float | None
    usage: Any = None  # the last event's usage report (read by the caller, who checks it)
    tool_invocations: list[Any] = field(default_factory=list)
    events: int = 0


def _event_text(event: Any, into: StreamedReply) -> str | None:
    """The text an event adds: an OpenAI chunk's ``choices[0].delta.content``, a
    ``response`` field, or the event itself when it is a string. Usage and tool
    invocations carried by events are collected on the way."""
    if isinstance(event, str):
        return event
    if not isinstance(event, dict):
        return None if event is None else json.dumps(event)
    usage = event.get("usage", event.get("token_usage"))
    if usage is not None:  # (OpenAI's chunks say null before the last)
        into.usage = usage
    if isinstance(event.get("tool_invocations"), list):
        into.tool_invocations.extend(event["tool_invocations"])
    choices = event.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        delta = choices[0].get("delta") or choices[0].get("message") or {}
        content = delta.get("content") if isinstance(delta, dict) else None
        return content if isinstance(content, str) else None
    response = event.get("response")
    return response if isinstance(response, str) else None


async def collect_stream(body: ReplyBody, sent: float) -> StreamedReply:
    """Read an event stream to its end and concatenate the text of its events; the time to
    first token runs from ``sent`` (a ``time.perf_counter()``) to the first text."""
    reply = StreamedReply(text=None, time_to_first_token_ms=None)
    parts: list[str] = []
    async for payload in sse_data(body.chunks()):
        reply.events += 1
        try:
            event: Any = json.loads(payload)
        except ValueError:
            event = payload  # a plain-text event
        if not isinstance(event, dict | list | str):
            event = payload  # " 5120", "true", "null": plain-text tokens, spacing kept
        piece = _event_text(event, reply)
        if piece:
            if reply.time_to_first_token_ms is None:
                reply.time_to_first_token_ms = (time.perf_counter() - sent) * 1000
            parts.append(piece)
    reply.text = "".join(parts) if parts else None
    return reply
