"""A scripted HTTP agent on 127.0.0.1 that speaks assay's default http protocol
(``{"query", "session_id", "turn_id"}`` in, ``{"response", "tool_invocations"}`` out).

- a query containing ``markup`` gets a reply full of HTML that must never run;
- a query containing ``echo-auth`` is answered with the request's Authorization header;
- a query containing ``hang`` waits (up to ``HANG_S``) until ``release()`` is called;
- any other query is answered ``ANSWER`` with one ``lookup`` tool call.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from aiohttp import web

ANSWER = "Paris"
HANG_S = 120.0
MARKUP = (
    '<script>alert("script")</script> <img src="/x-onerror.png" onerror="alert(\'img\')"> '
    "<a href=\"javascript:alert('link')\">click me</a>"
)


class Agent:
    def __init__(self) -> None:
        self.url = ""
        self.queries: list[str] = []
        self.released = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None

    def release(self) -> None:
        self.released.set()

    async def chat(self, request: web.Request) -> web.Response:
        body: dict[str, Any] = await request.json()
        query = str(body.get("query", ""))
        self.queries.append(query)
        if "hang" in query:
            for _ in range(int(HANG_S * 10)):
                if self.released.is_set():
                    break
                await asyncio.sleep(0.1)
        if "echo-auth" in query:
            return web.json_response({"response": request.headers.get("Authorization", "")})
        if "markup" in query:
            return web.json_response(
                {
                    "response": MARKUP,
                    "tool_invocations": [
                        {"name": "render", "args": {"html": MARKUP}, "result": MARKUP}
                    ],
                }
            )
        return web.json_response(
            {
                "response": ANSWER,
                "tool_invocations": [
                    {"name": "lookup", "args": {"q": query}, "result": {"answer": ANSWER}}
                ],
                "token_usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
            }
        )


@contextmanager
def serve_agent() -> Iterator[Agent]:
    """Serve an Agent on a free port of 127.0.0.1 in a background thread."""
    agent = Agent()
    started = threading.Event()
    stop: asyncio.Event | None = None

    async def main() -> None:
        nonlocal stop
        stop = asyncio.Event()
        app = web.Application()
        app.router.add_post("/chat", agent.chat)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        agent.url = f"http://127.0.0.1:{port}/chat"
        agent._loop = asyncio.get_running_loop()
        started.set()
        await stop.wait()
        await runner.cleanup()

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    if not started.wait(30):
        raise RuntimeError("the test agent did not start")
    try:
        yield agent
    finally:
        agent.release()
        assert agent._loop is not None and stop is not None
        agent._loop.call_soon_threadsafe(stop.set)
        thread.join(30)
