"""A PostgreSQL server that becomes unreachable mid-run fails the run (exit 3) with the
command that resumes it, as a full SQLite disk does; the resume, once the server is back,
stores every test. The server "goes away" behind a TCP proxy in this process, which the
agent itself shuts (every connection dropped, new ones refused) before its reply, so the
writer meets it when it stores that reply."""

from __future__ import annotations

import json
import re
import shlex
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from tests.cli.conftest import RunCli
from tests.conftest import PG_HOST

AGENT = """
import socket
import time

import psycopg

def respond(query, session_id):
    if query == "cut":  # the proxy is shut when this returns: the store is gone
        with psycopg.connect({direct!r}) as db:  # once the writer has stored a and b
            for _ in range(3000):
                if db.execute("SELECT count(*) FROM assay_test_results").fetchone()[0] >= 2:
                    break
                time.sleep(0.01)
        try:
            with socket.create_connection(("127.0.0.1", {port})) as control:
                control.recv(1)
        except ConnectionRefusedError:  # on the resume: shut already
            pass
    return "Paris"
"""
NAMES = ["a", "b", "cut", "c", "d"]


class Proxy:
    """Forwards connections on ``port`` to PostgreSQL; a connection to ``control_port``
    shuts it for good (then answers one byte)."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.control = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.control_port = self.control.getsockname()[1]
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        self.closed = False
        host, _, port = PG_HOST.partition(":")
        self.upstream = (host, int(port))

    def serve(self) -> None:
        threading.Thread(target=self._accept, daemon=True).start()
        threading.Thread(target=self._wait_for_cut, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # shut
                return
            server = socket.create_connection(self.upstream)
            with self.lock:
                self.sockets += [client, server]
                if self.closed:  # accepted as it was shut: dropped too
                    self._drop()
                    return
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=_pump, args=(source, sink), daemon=True).start()

    def _wait_for_cut(self) -> None:
        with suppress(OSError):
            asker, _ = self.control.accept()
            with asker:
                self.shut()
                asker.sendall(b"x")

    def shut(self) -> None:
        self.listener.close()
        with self.lock:
            self.closed = True
            self._drop()

    def _drop(self) -> None:
        for sock in self.sockets:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def close(self) -> None:
        self.shut()
        self.control.close()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    with suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with suppress(OSError):
        sink.shutdown(socket.SHUT_RDWR)


@contextmanager
def proxy() -> Iterator[Proxy]:
    opened = Proxy()
    opened.serve()
    try:
        yield opened
    finally:
        opened.close()


def through(url: str, port: int) -> str:
    """``url`` with its host and port those of the proxy."""
    parts = urlsplit(url)
    user = parts.netloc.rpartition("@")[0]
    return urlunsplit(parts._replace(netloc=f"{user}@127.0.0.1:{port}"))


def test_a_postgresql_store_lost_mid_run_says_how_to_resume(
    assay_cli: RunCli, tmp_path: Path, pg_url: str
) -> None:
    tests = "".join(f"  - {{name: {name}, input: {name}}}\n" for name in NAMES)
    (tmp_path / "suite.yaml").write_text(
        "name: lost\ntarget: {python: 'agent:respond'}\nexecution: {concurrency: 1}\n"
        f"metrics: [{{metric: contains, value: Paris}}]\ntests:\n{tests}"
    )
    with proxy() as opened:
        direct = pg_url.replace("+psycopg", "")
        (tmp_path / "agent.py").write_text(AGENT.format(direct=direct, port=opened.control_port))
        first = assay_cli("run", "suite.yaml", "--store", through(pg_url, opened.port))
    assert first.returncode == 3, first.stdout + first.stderr
    found = re.search(r"(assay run --resume \S+ .*?) runs the tests without one", first.stderr)
    assert found is not None, first.stderr

    # the server back (reached directly): the resume runs what has no result
    command = shlex.split(found[1])[1:]
    command[command.index("--store") + 1] = pg_url
    second = assay_cli(*command, "--out", "r.json")
    assert second.returncode == 0, second.stdout + second.stderr
    results = json.loads((tmp_path / "r.json").read_text())["results"]
    assert sorted(r["test_name"] for r in results) == sorted(NAMES)
    assert all(r["passed"] for r in results)


# two workers: one meets the lost store, the other is in the middle of a turn that only ends
# when it is cancelled ("hang"); "c" returns once the writer has died of the lost store, so
# that "d", next on the same worker, meets its error when handed over
TWO_AT_ONCE = """
import multiprocessing
import socket
import threading
import time

import psycopg

def respond(query, session_id):
    if query == "hang":
        threading.Event().wait()
    if query == "cut":  # once a and b are stored, as above
        with psycopg.connect({direct!r}) as db:
            for _ in range(3000):
                if db.execute("SELECT count(*) FROM assay_test_results").fetchone()[0] >= 2:
                    break
                time.sleep(0.01)
        with socket.create_connection(("127.0.0.1", {port})) as control:
            control.recv(1)
    if query == "c":  # the writer process ends once it has reported the store's failure
        while any(p.name == "assay-writer" for p in multiprocessing.active_children()):
            time.sleep(0.01)
    return "Paris"
"""


def test_a_store_lost_with_tests_in_flight_ends_with_its_one_line_error(
    assay_cli: RunCli, tmp_path: Path, pg_url: str
) -> None:
    """The worker that meets the lost store stops the others quietly: stderr holds the one
    error with the resume command, not the traceback of another worker's test ended by
    asyncio's shutdown (which printed the store's URL with its user name unmasked)."""
    names = ["a", "b", "cut", "hang", "c", "d"]
    tests = "".join(f"  - {{name: {name}, input: {name}}}\n" for name in names)
    (tmp_path / "suite.yaml").write_text(
        "name: lost\ntarget: {python: 'agent:respond'}\nexecution: {concurrency: 2}\n"
        f"metrics: [{{metric: contains, value: Paris}}]\ntests:\n{tests}"
    )
    with proxy() as opened:
        direct = pg_url.replace("+psycopg", "")
        agent = TWO_AT_ONCE.format(direct=direct, port=opened.control_port)
        (tmp_path / "agent.py").write_text(agent)
        store = through(pg_url, opened.port)
        proc = assay_cli("run", "suite.yaml", "--store", store)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert "unhandled exception" not in proc.stderr
    user = urlsplit(store).username
    assert f"//{user}@" not in proc.stderr  # masked: //***@
    assert re.search(r"assay run --resume \S+ .*? runs the tests without one", proc.stderr)
    assert [line for line in proc.stderr.splitlines() if line.startswith("error:")] == [
        proc.stderr.splitlines()[-1]
    ]
