"""A lean mock agent for CPU-bound benchmarks: the same replies as ``mock_agent.py`` after the
same fixed latency, served by a bare asyncio protocol instead of aiohttp's server.

On this 2-core machine the agent shares the cores with what is measured: aiohttp's server
spends about as much CPU per request as the client, so at concurrency 500 the agent alone
takes most of a core and hides whether the client side can use the other. A real agent runs
elsewhere; this one costs a fraction of aiohttp's server per request, which leaves the
cores to the client side, as on a team's machine running tests against a remote agent.

It speaks just enough HTTP/1.1 for aiohttp's client: keep-alive, Content-Length bodies, a
POST to any path answered with the reply, a GET answered with ``ok``.

    python bench/lean_agent.py PORT LATENCY_MS
"""

from __future__ import annotations

import asyncio
import sys

from mock_agent import REPLY

_BODY = REPLY.encode()
_ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
    len(_BODY),
    _BODY,
)
_OK = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"


class LeanHttp(asyncio.Protocol):
    def __init__(self, latency_s: float) -> None:
        self.latency_s = latency_s
        self.buffer = b""
        self.transport: asyncio.Transport | None = None
        self.loop = asyncio.get_running_loop()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            head_end = self.buffer.find(b"\r\n\r\n")
            if head_end < 0:
                return
            head = self.buffer[:head_end].lower()
            length = 0
            start = head.find(b"content-length:")
            if start >= 0:
                length = int(head[start + 15 :].split(b"\r\n", 1)[0])
            end = head_end + 4 + length
            if len(self.buffer) < end:
                return
            self.buffer = self.buffer[end:]
            answer = _OK if head.startswith(b"get") else _ANSWER
            if self.latency_s:
                self.loop.call_later(self.latency_s, self.answer, answer)
            else:
                self.answer(answer)

    def answer(self, answer: bytes) -> None:
        if self.transport is not None:
            self.transport.write(answer)


async def serve(port: int, latency_s: float) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: LeanHttp(latency_s), "127.0.0.1", port, backlog=4096)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(serve(int(sys.argv[1]), float(sys.argv[2]) / 1000))
