"""The dashboard served for real: uvicorn on a free port of 127.0.0.1, in a thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI

from assay.web import Settings, create_app
from assay.web.server import bind


@contextmanager
def serve(settings: Settings) -> Iterator[tuple[str, FastAPI]]:
    """Serve the dashboard for ``settings``; yields its base URL and the app."""
    app = create_app(settings)
    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the dashboard did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", app
    finally:
        server.should_exit = True
        thread.join(30)
        app.state.dashboard.runs.interrupt_all()
        app.state.dashboard.runs.wait_all(30)
        sock.close()
