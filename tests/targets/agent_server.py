"""A small agent over HTTP on 127.0.0.1, for the target tests.

By default ``POST /chat`` is a stateful agent: it remembers each session's earlier queries
and answers ``"turn N: <query> (earlier: a | b)"`` with one tool invocation and a usage
object. Tests queue ``Step``s to script the next replies instead (errors, delays, malformed
bodies, streams) and read back every request it saw, with its arrival time.
"""

from __future__ import annotations

import asyncio
import functools
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from assay.net import RetryPolicy
from assay.targets.base import Target, TurnRequest
from tests.fakes.gate import Gate
from tests.fakes.hostile import Chunks, send_chunks

# quick retries, so that tests of retrying stay fast
FAST_RETRY = RetryPolicy(retries=2, base_delay_s=0.01, max_delay_s=2.0)


@dataclass
class Step:
    """One scripted reply."""

    status: int = 200
    json: Any = None
    raw: str | None = None  # sent as is, with content_type
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    events: list[str] | None = None  # an SSE stream: each string is one event's data
    event_gap_s: float = 0.0
    chunks: Chunks | None = None  # a body written piece by piece (tests.fakes.hostile)


@dataclass
class Seen:
    at: float  # time.monotonic() on arrival
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any  # parsed JSON, else the text


class AgentServer:
    def __init__(self) -> None:
        self.url = ""
        self.script: list[Step] = []
        self.by_query: dict[str, Step] = {}  # a reply for every request with this query
        self.requests: list[Seen] = []
        self.memory: dict[str, list[str]] = {}
        self.forget_after: int | None = None  # 404 for a session after this many turns
        self.assign_ids = False  # answer with a server-side session id ("srv-1", ...)
        self.gate = Gate()  # requests in flight, held in rounds (tests.fakes.gate)
        self._lock = threading.Lock()
        self._stop: Any = None
        self.loop: asyncio.AbstractEventLoop | None = None  # the server's, once it serves

    @property
    def chat_url(self) -> str:
        return f"{self.url}/chat"

    def queue(self, *steps: Step) -> None:
        with self._lock:
            self.script.extend(steps)

    def bodies(self) -> list[Any]:
        return [r.body for r in self.requests]

    def end_pauses(self) -> None:
        """End every delay (``Step.delay_s``) now and from now on; keep serving."""
        assert self.loop is not None
        self.loop.call_soon_threadsafe(self.gate.stop)

    def stop(self) -> None:
        """Stop serving now (the port then refuses connections)."""
        if self._stop is not None:
            self._stop()
            self._stop = None

    async def handle(self, request: web.Request) -> web.StreamResponse:
        raw = await request.text()
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        self.requests.append(
            Seen(
                time.monotonic(),
                request.method,
                request.path,
                dict(request.query),
                dict(request.headers),
                body,
            )
        )
        async with self.gate.request():
            with self._lock:
                step = self.script.pop(0) if self.script else None
            if step is None and isinstance(body, dict):
                step = self.by_query.get(str(body.get("query")))
            if step is None:
                return self._agent(body if isinstance(body, dict) else dict(request.query))
            return await self._scripted(request, step)

    @property
    def peak_in_flight(self) -> int:
        return self.gate.peak

    def _agent(self, body: dict[str, Any]) -> web.Response:
        session_id, query = str(body.get("session_id")), str(body.get("query"))
        earlier = self.memory.get(session_id)
        if self.forget_after is not None and earlier and len(earlier) >= self.forget_after:
            return web.json_response({"error": "session not found"}, status=404)
        if self.assign_ids and earlier is None:
            session_id = f"srv-{len(self.memory) + 1}"
            earlier = None
        history = self.memory.setdefault(session_id, [])
        history.append(query)
        text = f"turn {len(history)}: {query}"
        if len(history) > 1:
            text += f" (earlier: {' | '.join(history[:-1])})"
        return web.json_response(
            {
                "response": text,
                "tool_invocations": [
                    {"name": "remember", "args": {"n": len(history)}, "result": {"stored": query}}
                ],
                "token_usage": {"prompt_tokens": 7, "completion_tokens": 3},
                "session": {"id": session_id},
            }
        )

    async def _scripted(self, request: web.Request, step: Step) -> web.StreamResponse:
        if step.delay_s:
            await self.gate.pause(step.delay_s)
        if step.chunks is not None:
            headers = {"Content-Type": step.content_type, **step.headers}
            return await send_chunks(request, step.chunks, status=step.status, headers=headers)
        if step.events is not None:
            response = web.StreamResponse(
                status=step.status, headers={"Content-Type": "text/event-stream", **step.headers}
            )
            await response.prepare(request)
            for data in step.events:
                await response.write(f"data: {data}\n\n".encode())
                if step.event_gap_s:
                    await asyncio.sleep(step.event_gap_s)
            await response.write_eof()
            return response
        if step.raw is not None:
            return web.Response(
                text=step.raw,
                status=step.status,
                headers=step.headers,
                content_type=step.content_type,
            )
        return web.json_response(step.json, status=step.status, headers=step.headers)


async def _echo(server: AgentServer, request: web.Request) -> web.Response:
    """Answers with every header and the query it got, in the text and in a tool call (as
    an agent that logs its input might)."""
    seen = {"headers": dict(request.headers), "query": dict(request.query)}
    server.requests.append(
        Seen(time.monotonic(), request.method, request.path, seen["query"], seen["headers"], None)
    )
    text = "; ".join(f"{k}={v}" for k, v in request.headers.items())
    return web.json_response(
        {
            "response": f"you sent {text} and {dict(request.query)}",
            "tool_invocations": [{"name": "log", "args": seen, "result": seen}],
        }
    )


async def _redirect_loop(request: web.Request) -> web.Response:
    """Redirects to itself, query and all, for ever."""
    raise web.HTTPFound(str(request.rel_url))


async def _echo_headers(request: web.Request) -> web.Response:
    """Rejects every request, quoting its headers back (as careless servers do)."""
    headers = "; ".join(f"{k}={v}" for k, v in request.headers.items())
    return web.json_response({"error": f"unauthorised; you sent {headers}"}, status=401)


@contextmanager
def agent_server() -> Iterator[AgentServer]:
    """Serve an AgentServer on a free port of 127.0.0.1 in a background thread."""
    server = AgentServer()
    app = web.Application()
    app.router.add_route("*", "/chat", server.handle)
    app.router.add_route("*", "/echo-headers", _echo_headers)
    app.router.add_route("*", "/echo", functools.partial(_echo, server))
    app.router.add_route("*", "/echo/{tail:.*}", functools.partial(_echo, server))
    app.router.add_route("*", "/loop", _redirect_loop)
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app, access_log=None)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    server.url = f"http://127.0.0.1:{runner.addresses[0][1]}"
    server.loop = loop
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    stopped = False

    def stop() -> None:
        nonlocal stopped
        if stopped:
            return
        stopped = True
        loop.call_soon_threadsafe(server.gate.stop)
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=5)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        loop.close()

    server._stop = stop
    try:
        yield server
    finally:
        stop()


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def one_turn(target: Target, server: AgentServer) -> Seen:
    """The request ``server`` got for one turn ``hi`` sent by ``target`` (started, closed)."""
    await target.start()
    try:
        await target.session("s").send(
            TurnRequest(input="hi", session_id="s", turn_id="1", turn_index=0)
        )
    finally:
        await target.aclose()
    (seen,) = [r for r in server.requests if r.method == "POST"]
    return seen
