"""A server on 127.0.0.1 that answers every request with a redirect, and records what it got.

``redirector("http://localhost:8001")`` sends ``POST /v1/x?q=1`` on to
``http://localhost:8001/v1/x?q=1`` with a 307 (``status`` sets another): 127.0.0.1 and
localhost are two origins, so a client following it leaves the origin it was sent to.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiohttp import web


@dataclass
class Redirector:
    to: str  # the origin (and any path prefix) each request's path and query are sent on to
    status: int = 307
    url: str = ""
    headers_seen: list[dict[str, str]] = field(default_factory=list)

    async def handle(self, request: web.Request) -> web.Response:
        await request.read()
        self.headers_seen.append(dict(request.headers))
        return web.Response(status=self.status, headers={"Location": self.to + request.path_qs})


@contextmanager
def redirector(to: str, status: int = 307) -> Iterator[Redirector]:
    """Serve a Redirector on a free port of 127.0.0.1 in a background thread."""
    server = Redirector(to, status)
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", server.handle)
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app, access_log=None)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    server.url = f"http://127.0.0.1:{runner.addresses[0][1]}"
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=5)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        loop.close()


def via_localhost(url: str) -> str:
    """The same server, as another origin: ``http://127.0.0.1:N`` as ``http://localhost:N``."""
    return url.replace("://127.0.0.1:", "://localhost:", 1)
