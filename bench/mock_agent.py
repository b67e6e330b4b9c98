"""A mock agent for benchmarks: answers every turn after a fixed latency, speaking the http
target's default protocol. Run: python bench/mock_agent.py PORT LATENCY_MS"""

from __future__ import annotations

import asyncio
import json
import sys

from aiohttp import web

REPLY = json.dumps(
    {
        "response": "42",
        "tool_invocations": [{"name": "lookup", "args": {"q": "x"}, "result": 42}],
        "token_usage": {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13},
    }
)


def make_app(latency_s: float) -> web.Application:
    async def chat(request: web.Request) -> web.Response:
        await request.read()
        if latency_s:
            await asyncio.sleep(latency_s)
        return web.Response(text=REPLY, content_type="application/json")

    async def health(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_post("/chat", chat)
    app.router.add_get("/health", health)
    return app


if __name__ == "__main__":
    port, latency_ms = int(sys.argv[1]), float(sys.argv[2])
    web.run_app(
        make_app(latency_ms / 1000),
        host="127.0.0.1",
        port=port,
        print=None,
        backlog=4096,
        access_log=None,
    )
