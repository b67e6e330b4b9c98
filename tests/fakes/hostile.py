"""Hostile reply bodies for the fault-injecting servers: an oversized JSON body, a gzip bomb,
an event stream that never ends. Each is a function returning an iterator of chunks, which
the servers write one by one until the client hangs up.

A bound (``CAP_BYTES``) keeps a broken client from making a test hang: if the client fails
to stop reading, the reply ends there and the test's assertions fail instead.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterator
from functools import cache

from aiohttp import web

Chunks = Callable[[], Iterator[bytes]]
CAP_BYTES = 400_000_000
_BLOCK = 1_000_000


def oversized_json(total_bytes: int = CAP_BYTES) -> Chunks:
    """``{"response": "aaaa..."}`` of about ``total_bytes``, valid JSON if read to the end."""

    def chunks() -> Iterator[bytes]:
        yield b'{"response": "'
        sent = 0
        while sent < total_bytes:
            yield b"a" * _BLOCK
            sent += _BLOCK
        yield b'"}'

    return chunks


def json_body(value: object) -> Chunks:
    """A well-formed JSON reply, sent in one chunk."""
    return lambda: iter([json.dumps(value).encode()])


@cache
def gzip_bomb_bytes(decompressed_bytes: int) -> bytes:
    """A gzip stream of ``{"response": "aaa..."}`` that inflates to ``decompressed_bytes``
    (about a thousand times its own size)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: a gzip header
    parts = [packer.compress(b'{"response": "')]
    block = b"a" * _BLOCK
    for _ in range(decompressed_bytes // _BLOCK):
        parts.append(packer.compress(block))
    parts += [packer.compress(b'"}'), packer.flush()]
    return b"".join(parts)


def gzipped(value: object) -> bytes:
    return zlib.compress(json.dumps(value).encode(), 9, wbits=31)


def split(data: bytes, size: int = 65_536) -> Chunks:
    """``data`` sent in pieces of ``size`` bytes."""
    return lambda: (data[i : i + size] for i in range(0, len(data), size))


def endless_events(cap_bytes: int = CAP_BYTES) -> Chunks:
    """OpenAI-style chunks (``data: {"choices": [{"delta": {"content": ...}}]}``) with no
    ``[DONE]``, until the client hangs up (or ``cap_bytes``)."""
    text = "token " * 160
    event = b"data: " + json.dumps({"choices": [{"delta": {"content": text}}]}).encode() + b"\n\n"

    def chunks() -> Iterator[bytes]:
        sent = 0
        while sent < cap_bytes:
            yield event * 64
            sent += len(event) * 64

    return chunks


def keepalive_comments(cap_bytes: int = CAP_BYTES) -> Chunks:
    """An event stream of nothing but ``: keep-alive`` comments: no text, no end."""

    def chunks() -> Iterator[bytes]:
        sent = 0
        piece = b": keep-alive\n" * 4096
        while sent < cap_bytes:
            yield piece
            sent += len(piece)

    return chunks


async def send_chunks(
    request: web.Request,
    chunks: Chunks,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> web.StreamResponse:
    """Write ``chunks`` as the reply to ``request`` until they end or the client hangs up."""
    response = web.StreamResponse(status=status, headers=headers or {})
    await response.prepare(request)
    try:
        for chunk in chunks():
            await response.write(chunk)
        await response.write_eof()
    except ConnectionError:  # the client stopped reading, as a size limit makes it
        pass
    return response
