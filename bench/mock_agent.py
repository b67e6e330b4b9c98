"""A mock agent for benchmarks: answers every turn after a fixed latency, speaking the http
target's default protocol. Run: python bench/mock_agent.py PORT LATENCY_MS [LOG]

With LOG, each request appends a line ``query<TAB>arrived<TAB>answered`` (seconds since the
epoch) to that file, so a benchmark can tell which requests were answered before a moment."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import IO

from aiohttp import web

REPLY = json.dumps(
    {
        "response": "42",
        "tool_invocations": [{"name": "lookup", "args": {"q": "x"}, "result": 42}],
        "token_usage": {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13},
    }
)


def make_app(latency_s: float, log: IO[str] | None = None) -> web.Application:
    async def chat(request: web.Request) -> web.Response:
        body = await request.read()
        arrived = time.time()
        if latency_s:
            await asyncio.sleep(latency_s)
        if log is not None:
            query = json.loads(body).get("query", "")
            log.write(f"{query}\t{arrived:.6f}\t{time.time():.6f}\n")
        return web.Response(text=REPLY, content_type="application/json")

    async def health(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_post("/chat", chat)
    app.router.add_get("/health", health)
    return app


if __name__ == "__main__":
    port, latency_ms = int(sys.argv[1]), float(sys.argv[2])
    log = open(sys.argv[3], "a", buffering=1) if len(sys.argv) > 3 else None  # noqa: SIM115
    web.run_app(
        make_app(latency_ms / 1000, log),
        host="127.0.0.1",
        port=port,
        print=None,
        backlog=4096,
        access_log=None,
    )
