"""Server-sent events: the ``data:`` payload of each event of a ``text/event-stream``."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp

DONE = "[DONE]"  # OpenAI's end-of-stream marker


def is_event_stream(response: aiohttp.ClientResponse) -> bool:
    return response.content_type == "text/event-stream"


async def sse_data(content: aiohttp.StreamReader) -> AsyncIterator[str]:
    """Each event's data (multi-line data joined with newlines) until the stream ends or
    sends ``[DONE]``. Comments, ``event:``, ``id:`` and ``retry:`` fields are skipped.
    No line-length limit: events carrying large JSON are fine."""
    pending = b""
    data: list[str] = []
    async for chunk in content.iter_any():
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for raw in lines:
            line = raw.rstrip(b"\r").decode("utf-8", "replace")
            if not line:
                if data:
                    payload = "\n".join(data)
                    data = []
                    if payload.strip() == DONE:
                        return
                    yield payload
                continue
            field, _, value = line.partition(":")
            if field == "data":
                data.append(value[1:] if value.startswith(" ") else value)
    if pending.strip():
        field, _, value = pending.rstrip(b"\r").decode("utf-8", "replace").partition(":")
        if field == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data and "\n".join(data).strip() != DONE:
        yield "\n".join(data)
