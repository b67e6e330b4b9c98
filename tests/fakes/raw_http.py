"""A raw HTTP server on 127.0.0.1 that answers each request with the same bytes, then closes
the connection: replies no well-behaved server sends (a body shorter than its
``Content-Length``, a connection closed before any status line). It counts the requests
it read in full."""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass
class RawServer:
    reply: bytes  # written as is after each request (b"": closed without a word)
    url: str = ""
    requests: int = 0


def _read_request(stream: socketserver.StreamRequestHandler) -> bool:
    length = 0
    while line := stream.rfile.readline():
        if line in (b"\r\n", b"\n"):
            stream.rfile.read(length)
            return True
        name, _, value = line.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    return False


@contextmanager
def raw_server(reply: bytes) -> Iterator[RawServer]:
    """Serve ``reply`` to every request, one connection per request, in a background thread."""
    server = RawServer(reply)

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            if _read_request(self):
                server.requests += 1
                self.wfile.write(server.reply)

    listener = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    listener.daemon_threads = True
    server.url = f"http://127.0.0.1:{listener.server_address[1]}"
    thread = threading.Thread(target=listener.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        listener.shutdown()
        listener.server_close()
        thread.join(timeout=5)
