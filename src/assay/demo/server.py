"""The travel agent over HTTP (aiohttp), in the foreground or on a background thread.

- ``POST /chat`` ``{"query": str, "session_id": str, "turn_id": str | int (optional)}`` →
  200 ``{"response", "tool_invocations", "token_usage", "session_id"}``; 400 ``{"error"}``
  for a body that is not a JSON object or lacks a non-empty ``query`` or a ``session_id``;
  404 ``{"error": "session not found"}`` for a session id that was deleted.
- ``DELETE /sessions/{session_id}`` → 200 ``{"session_id", "deleted": true}``, or 404.
- ``GET /health`` → 200 ``{"status": "ok"}``.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from aiohttp import web

from assay.demo.agent import TravelAgent
from assay.errors import SessionLost

AGENT_KEY = web.AppKey("agent", TravelAgent)
DEFAULT_HOST = "127.0.0.1"
_USAGE = 'send a JSON object: {"query": "...", "session_id": "...", "turn_id": 1}'


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def _validate(body: Any) -> str | tuple[str, str]:
    """The (query, session_id) of a chat request, or what is wrong with it."""
    if not isinstance(body, dict):
        return f"the request body must be a JSON object; {_USAGE}"
    query, session_id = body.get("query"), body.get("session_id")
    if not isinstance(query, str) or not query.strip():
        return f"'query' is missing or not a non-empty string; {_USAGE}"
    if isinstance(session_id, int) and not isinstance(session_id, bool):
        session_id = str(session_id)
    if not isinstance(session_id, str) or not session_id:
        return f"'session_id' is missing or not a non-empty string; {_USAGE}"
    turn_id = body.get("turn_id")
    if turn_id is not None and (isinstance(turn_id, bool) or not isinstance(turn_id, str | int)):
        return f"'turn_id' must be a string or an integer; {_USAGE}"
    return query, session_id


async def _chat(request: web.Request) -> web.Response:
    try:
        body = json.loads(await request.read())
    except (ValueError, UnicodeDecodeError):
        return _error(400, f"the request body is not valid JSON; {_USAGE}")
    checked = _validate(body)
    if isinstance(checked, str):
        return _error(400, checked)
    query, session_id = checked
    try:
        reply = request.app[AGENT_KEY].respond(query, session_id)
    except SessionLost:
        return _error(404, "session not found")
    return web.json_response({**reply, "session_id": session_id})


async def _delete_session(request: web.Request) -> web.Response:
    session_id = request.match_info["session_id"]
    if not request.app[AGENT_KEY].forget(session_id):
        return _error(404, "session not found")
    return web.json_response({"session_id": session_id, "deleted": True})


async def _health(request: web.Request) -> web.Response:
    return web.json_response({"status": "ok"})


def create_app(agent: TravelAgent | None = None) -> web.Application:
    """The aiohttp application; a fresh ``TravelAgent`` (own database) unless one is given."""
    app = web.Application()
    app[AGENT_KEY] = agent or TravelAgent()
    app.router.add_post("/chat", _chat)
    app.router.add_delete("/sessions/{session_id}", _delete_session)
    app.router.add_get("/health", _health)
    return app


def base_url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class _BackgroundServer:
    """Runs an app on its own event loop in a daemon thread."""

    def __init__(self, app: web.Application, host: str, port: int) -> None:
        self._app, self._host, self._port = app, host, port
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="assay-travel-agent", daemon=True)

    def start(self) -> str:
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            self._thread.join()
            raise self._failure
        return base_url(self._host, self._port)

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        runner = web.AppRunner(self._app, access_log=None)
        try:
            self._loop.run_until_complete(self._start(runner))
        except BaseException as exc:  # reported to the caller of start()
            self._failure = exc
            self._loop.run_until_complete(runner.cleanup())
            self._loop.close()
            self._ready.set()
            return
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._loop.run_until_complete(runner.cleanup())
            self._loop.close()

    async def _start(self, runner: web.AppRunner) -> None:
        await runner.setup()
        site = web.TCPSite(runner, self._host, self._port)
        await site.start()
        self._port = runner.addresses[0][1]


@contextmanager
def serve_in_background(
    host: str = DEFAULT_HOST, port: int = 0, agent: TravelAgent | None = None
) -> Iterator[str]:
    """Serve the travel agent on a background thread; yields the base URL.

    ``port=0`` picks a free port. Raises ``OSError`` if the address cannot be bound.
    """
    server = _BackgroundServer(create_app(agent), host, port)
    url = server.start()
    try:
        yield url
    finally:
        server.stop()
