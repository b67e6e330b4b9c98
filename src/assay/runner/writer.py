"""Write finished results to the store from a separate process, so the event loop that drives
the agents spends no time (and holds no GIL) on the database.

The loop serialises each result to JSON (pydantic-core, cheap) and pipes the bytes in small
batches; a forked writer process parses them back and stores batches of up to BATCH_SIZE,
at least every MAX_DELAY_S. If the run process dies, the writer reads what is left in the
pipe, stores it and exits, so nothing handed over is lost; a resume re-runs the rest.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from pydantic_core import PydanticSerializationError

from assay.errors import AssayError, StoreError
from assay.results.models import TestResult
from assay.secrets import REDACTOR

BATCH_SIZE = 256
MAX_DELAY_S = 0.25  # a result waits at most about this long before it is stored
SEND_EVERY = 32  # results the run process gathers before one write to the pipe
_SEPARATOR = b"\x1e"  # ASCII record separator: never inside JSON text

StoreFactory = Callable[[], Any]  # () -> an open assay.store.Store


def _writer_main(
    open_store: StoreFactory,
    run_id: str,
    inbox: Connection,
    outbox: Connection,
    parents_end: Connection,
) -> None:
    """The writer process: read, batch, store; report the count or the error at the end."""
    parents_end.close()  # the forked copy of the pipe's writing end: kept, EOF never comes
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the run process's to handle
    written = 0
    try:
        store = open_store()
        batch: list[tuple[int, TestResult]] = []
        deadline = 0.0
        open_pipe = True
        while open_pipe or batch:
            wait = max(0.0, deadline - time.monotonic()) if batch else None
            if open_pipe and inbox.poll(wait):
                try:
                    chunk = inbox.recv_bytes()
                except EOFError:  # the run process closed the pipe, or died
                    open_pipe = False
                    continue
                if not batch:
                    deadline = time.monotonic() + MAX_DELAY_S
                for record in chunk.split(_SEPARATOR):
                    position, _, payload = record.partition(b" ")
                    batch.append((int(position), TestResult.model_validate_json(payload)))
                if len(batch) < BATCH_SIZE and open_pipe:
                    continue
            if batch:
                store.add_results(run_id, batch)
                written += len(batch)
                batch = []
        store.close()
        outbox.send(("ok", written))
    except AssayError as exc:
        outbox.send(("error", str(exc), written))
    except Exception as exc:  # the driver's own errors are still store failures
        outbox.send(("error", f"writing results failed: {type(exc).__name__}: {exc}", written))


def _json_safe(value: Any) -> Any:
    """A dumped result made storable: text without lone surrogates, odd objects as text."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {_json_safe(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return str(value)


def encode_result(result: TestResult) -> tuple[TestResult, str]:
    """The result as it will be stored and shown, and its JSON: an agent's lone surrogate or
    unserialisable tool result is made storable, and known secrets (${VAR} values, keys,
    credential headers) are masked wherever the agent echoed them."""
    try:
        payload = result.model_dump_json()
    except (PydanticSerializationError, ValueError):
        result = TestResult.model_validate(_json_safe(result.model_dump()))
        payload = result.model_dump_json()
    masked = REDACTOR(payload)
    if masked is not payload:
        return TestResult.model_validate_json(masked), masked
    return result, payload


class ResultWriter:
    """``add`` hands a result to the writer process; ``close`` waits until everything is
    stored and raises the writer's failure, if any (a StoreError: exit 3)."""

    def __init__(self, open_store: StoreFactory, run_id: str) -> None:
        context = multiprocessing.get_context("fork")  # inherits the imports: starts in ms
        receive, self._send = context.Pipe(duplex=False)
        self._replies, reply = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_writer_main,
            args=(open_store, run_id, receive, reply, self._send),
            daemon=True,
            name="assay-writer",
        )
        self._process.start()
        receive.close()
        reply.close()
        self._pending: list[bytes] = []
        self.error: AssayError | None = None
        self.written = 0

    def add(self, position: int, payload: str) -> None:
        """Hand over a result's JSON (from ``encode_result``) to be stored."""
        if self.error is None and self._replies.poll():
            self._read_reply()
        if self.error is not None:
            raise self.error
        self._pending.append(b"%d %s" % (position, payload.encode()))
        if len(self._pending) >= SEND_EVERY:
            self._flush()

    def _flush(self) -> None:
        if not self._pending:
            return
        try:
            self._send.send_bytes(_SEPARATOR.join(self._pending))
        except (BrokenPipeError, OSError):
            self._read_reply()
            if self.error is None:
                self.error = StoreError("the result writer stopped unexpectedly")
        self._pending.clear()

    def _read_reply(self) -> None:
        try:
            reply = self._replies.recv()
        except EOFError:
            self.error = self.error or StoreError("the result writer stopped unexpectedly")
            return
        if reply[0] == "ok":
            self.written = reply[1]
        else:
            self.error = StoreError(reply[1])
            self.written = reply[2]

    def close(self) -> None:
        """Store everything handed over, stop the writer, raise its failure if any."""
        if self.error is None:
            self._flush()
        self._send.close()
        if self.error is None:
            self._read_reply()
        self._process.join()
        if self.error is not None:
            raise self.error
