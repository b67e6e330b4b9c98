"""Write finished results to the store from a separate process, so the event loop that drives
the agents spends no time (and holds no GIL) on the database.

The loop makes each result storable and serialises it (``encode_result``), and hands the
bytes over at the end of each turn of the event loop (or every SEND_EVERY results): a
result is never held back waiting for others. A result whose rows the loop proved are what
its JSON would give (``storable.proved_rows``: the usual single-turn result) is handed over
with them, and the writer stores them as they came, parsing nothing. The writer
validates any other as TestResult would and reads its rows from it without making the
model (``store._rows.prepare_json``; one that does not validate takes the model's way, and
becomes that test's error). It stores the JSON as it came, never serialised again, and
commits what it has at once, or MIN_GAP_S after its previous commit when results keep
coming (batches of up to BATCH_SIZE), so a result is durable within about 50 ms of its test
finishing and a run killed at any moment repeats, on resume, little more than the tests
that were in flight (bench/bench_resume.py). If the run process dies, the writer reads
what is left in the pipe, stores it and exits.

The writer is a forked process when the run's process has one thread (``assay run``, the
dashboard's run worker), and a thread otherwise (``assay.run_async`` in a notebook or a web
server): forking a process that runs other threads can deadlock the child on a lock one of
them held, and a fresh interpreter would re-run the caller's script. A writer thread stores
the same way; it only dies with the run's process.

A batch the database refuses is written again row by row, so only the bad row is affected;
a row refused on its own is stored as an error result for that test, with the reason,
unless the database itself failed (its disk full, the connection lost): that fails the run,
and a resume runs the test again.
The writer also beats the run's heartbeat (see ``assay.store._lock``) while it lives.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import marshal
import multiprocessing
import select
import signal
import threading
import time
from array import array
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from assay.errors import AssayError, StoreError, first_line
from assay.results.models import TestResult
from assay.runner.forking import let_go_of_signals, signals_held, single_threaded
from assay.runner.storable import storable_payload, unstorable
from assay.store._lock import HEARTBEAT_S, RunHolder
from assay.store._rows import Encoded, Handed, Prepared, prepare_json, prepared_of

BATCH_SIZE = 512
# between two commits: a result waits at most this long (and the commit), so it is durable
# within about 50 ms; a batch's own cost (its statements, the commit's pages) is about 170 us
# of CPU whatever its size, so the gap sets how often that is paid when results keep coming
MIN_GAP_S = 0.04
SEND_EVERY = 64  # results the run process hands over at once, at most (more go in the next)
HOLD_MAX_S = 0.005  # nor does it hold one longer, even within one busy turn of the event loop
GC_THRESHOLD = 20_000  # allocations between two young-generation collections, in the writer
# marshal's current format (4): its short ASCII strings and back-references to repeated
# values are cheaper to write and read than format 2's UTF-8 copy of every string
_MARSHAL_VERSION = marshal.version

StoreFactory = Callable[[], Any]  # () -> an open assay.store.Store
Item = tuple[int, TestResult | Encoded | Prepared]


def encode_result(result: TestResult) -> tuple[TestResult, bytes, Handed | None]:
    """The result as it will be stored and shown, its JSON, and its rows when they are
    proved to be what the writer would read from that JSON (``storable.proved_rows``;
    then the writer parses nothing): every value made storable and every known secret
    masked (``storable_payload``: one walk, or a proof that none is needed) before it is
    serialised, once. A result the walk changed is handed over without rows."""
    try:
        return storable_payload(result)
    except Exception as exc:  # storable() should leave nothing that fails; if it did, one test
        kept = unstorable(result, f"{type(exc).__name__}: {exc}")
        return kept, kept.__pydantic_serializer__.to_json(kept), None


def _why(exc: BaseException) -> str:
    first = first_line(exc)
    return first if isinstance(exc, AssayError) else f"{type(exc).__name__}: {first}"


def _decode(payload: bytes) -> Prepared | Encoded:
    """A handed-over result, with its JSON to store as it is: its rows read straight from
    the JSON when it is exactly what a valid result makes (``prepare_json``), else the
    validated model; one that does not parse back keeps its name, as an error."""
    prepared = prepare_json(payload)
    if prepared is not None:
        return prepared
    try:
        return Encoded(payload.decode(), TestResult.model_validate_json(payload))
    except ValueError as exc:
        data = json.loads(payload)  # not even JSON: the run process is broken; fail the run
        stub = TestResult(
            test_name=str(data.get("test_name")),
            test_type="single_turn",
            test_input=str(data.get("test_input", "")),
            passed=False,
            execution_time_ms=0,
            timestamp=str(data.get("timestamp", "")),
            repeat_index=int(data.get("repeat_index", 0)),
        )
        return Encoded.of(unstorable(stub, _why(exc)))


def store_batch(store: Any, run_id: str, batch: list[Item]) -> list[int]:
    """Store the batch; the positions of the results that had to be replaced by an error
    result. Raises when the database itself failed (``store_wide``: its disk full, the
    connection lost), or failed even an error result (it is the store)."""
    with contextlib.suppress(Exception):  # refused: each row alone says which one
        store.add_results(run_id, batch)
        return []
    replaced = []
    for position, result in batch:
        try:
            store.add_results(run_id, [(position, result)])
        except Exception as exc:
            from assay.store._failures import store_wide  # with the store: SQLAlchemy

            if store_wide(exc):  # not this row's fault: no stand-in, which a resume would
                raise  # count as its result; the run fails, and a resume runs the test again
            model = result if isinstance(result, TestResult) else result.result
            store.add_results(run_id, [(position, unstorable(model, _why(exc)))])
            replaced.append(position)
    return replaced


def _poller(inbox: Connection) -> Callable[[float], bool]:
    """``inbox.poll``, without what it costs in Python each call (a selector made,
    registered and closed: about 50 us, once per wake-up of the writer): one poll object
    on the pipe, kept."""
    if not hasattr(select, "poll"):
        return inbox.poll
    poller = select.poll()
    poller.register(inbox.fileno(), select.POLLIN)
    # readable, or the writing end closed (POLLHUP): recv_bytes then says EOF, as after poll
    return lambda timeout: bool(poller.poll(timeout * 1000))


def _frame(positions: array[int], payloads: list[bytes], rows: list[Handed | None]) -> bytes:
    """One hand-over of results, as ``marshal`` writes it (read back in C): their positions
    (an array's bytes), their JSON, and each one's proved rows (plain tuples and lists of
    str, int, float, bool and None), or None."""
    return marshal.dumps((positions.tobytes(), payloads, rows), _MARSHAL_VERSION)


def _unframe(chunk: bytes, batch: list[Item]) -> None:
    """Add each result of a hand-over (``_frame``) to the batch: one handed over with its
    rows as they are (``prepared_of``: nothing parsed), any other decoded (``_decode``)."""
    head, payloads, rowses = marshal.loads(chunk)
    positions = array("q")
    positions.frombytes(head)
    for position, payload, rows in zip(positions, payloads, rowses, strict=True):
        if rows is None:
            batch.append((position, _decode(payload)))
        else:
            batch.append((position, prepared_of(payload.decode(), rows)))


def _read_ready(inbox: Connection, batch: list[Item], ready: Callable[[float], bool]) -> bool:
    """Add every result waiting in the pipe (up to BATCH_SIZE); False once the pipe closed
    (the run process ended, or died)."""
    while len(batch) < BATCH_SIZE:
        try:
            chunk = inbox.recv_bytes()
        except EOFError:
            return False
        _unframe(chunk, batch)
        if not ready(0):
            break
    return True


def _writer_main(
    open_store: StoreFactory,
    run_id: str,
    holder: RunHolder | None,
    inbox: Connection,
    outbox: Connection,
    parents_end: Connection | None,
    signal_mask: set[int | signal.Signals] | None = None,
) -> None:
    """The writer (process, or thread when ``parents_end`` is None): read, batch, store;
    report the counts or the error at the end. A process starts with every signal blocked
    and unblocks (``signal_mask``, its parent's) once the parent's handlers are let go."""
    if parents_end is not None:  # a forked process
        parents_end.close()  # the forked copy of the pipe's writing end: kept, EOF never comes
        # it ends when the pipe closes, after storing what it got (its parent's Python
        # handlers stay: a signal meant for the parent's event loop must not end it)
        let_go_of_signals(signal_mask or set())
        # Everything inherited from the run process is kept as it is: the collector's full
        # passes need not walk it, nor touch its pages. And what this process makes (each
        # result's models, rows) is freed by reference counting: the collector's passes
        # over it, every 700 allocations by default, cost about 7 us per result.
        gc.freeze()
        gc.set_threshold(GC_THRESHOLD)
        from assay.store._bulk import bind_plainly  # with the store: SQLAlchemy

        bind_plainly()
    written = 0
    replaced: list[int] = []
    try:
        store = open_store()
        ready = _poller(inbox)
        batch: list[Item] = []
        deadline = last_commit = 0.0
        next_beat = time.monotonic() + HEARTBEAT_S
        open_pipe = True
        while open_pipe or batch:
            wait = max(0.0, (deadline if batch else next_beat) - time.monotonic())
            if open_pipe and ready(wait):
                if not batch:  # at once, unless the last commit was under MIN_GAP_S ago
                    deadline = max(time.monotonic(), last_commit + MIN_GAP_S)
                open_pipe = _read_ready(inbox, batch, ready)
                if len(batch) < BATCH_SIZE and open_pipe and time.monotonic() < deadline:
                    continue
            if batch:
                replaced += store_batch(store, run_id, batch)
                written += len(batch)
                batch = []
                last_commit = time.monotonic()
            if holder is not None and time.monotonic() >= next_beat:
                store.heartbeat(run_id, holder, time.time())
                next_beat = time.monotonic() + HEARTBEAT_S
        store.close()
        outbox.send(("ok", written, replaced))
    except Exception as exc:
        outbox.send(("error", _failure(exc), written))


def _failure(exc: Exception) -> str:
    """Why writing failed; the driver's own errors are still store failures."""
    if isinstance(exc, AssayError):
        return str(exc)
    return f"writing results failed: {type(exc).__name__}: {exc}"


class ResultWriter:
    """``add`` hands a result to the writer; ``close`` waits until everything is stored and
    raises the writer's failure, if any (a StoreError: exit 3). ``replaced`` lists the
    positions of results the store refused, stored as error results instead.

    ``in_process``: a forked process (True) or a thread (False); by default a process when
    forking is safe (``single_threaded``)."""

    def __init__(
        self,
        open_store: StoreFactory,
        run_id: str,
        holder: RunHolder | None = None,
        in_process: bool | None = None,
    ) -> None:
        self.in_process = single_threaded() if in_process is None else in_process
        context = multiprocessing.get_context("fork")  # inherits the imports: starts in ms
        receive, self._send = context.Pipe(duplex=False)
        self._replies, reply = context.Pipe(duplex=False)
        self._replied = _poller(self._replies)  # polled at each hand-over: kept, not made
        self._process: multiprocessing.process.BaseProcess | threading.Thread
        if self.in_process:
            with signals_held() as mask:  # until the child has let go of the parent's
                self._process = context.Process(
                    target=_writer_main,
                    args=(open_store, run_id, holder, receive, reply, self._send, mask),
                    daemon=True,
                    name="assay-writer",
                )
                self._process.start()
            receive.close()
            reply.close()
        else:  # its ends of the pipes are its own: closed when it ends
            self._process = threading.Thread(
                target=_writer_thread,
                args=(open_store, run_id, holder, receive, reply),
                daemon=True,
                name="assay-writer",
            )
            self._process.start()
        self._positions = array("q")  # what ``_frame`` takes
        self._pending: list[bytes] = []
        self._rows: list[Handed | None] = []
        self._oldest = 0.0  # when the oldest pending result was added
        self._flush_planned = False
        self.error: AssayError | None = None
        self.written = 0
        self.replaced: list[int] = []

    def add(self, position: int, payload: bytes | str, rows: Handed | None = None) -> None:
        """Hand over a result's JSON (from ``encode_result``, with its proved rows if any)
        to be stored: when the event loop finishes its current turn (results finished
        together go together), at SEND_EVERY results or after HOLD_MAX_S; without a running
        loop, at SEND_EVERY or ``close``. A failure the writer reported is raised here, at
        the first ``add`` after a hand-over saw it (polled once per hand-over, not per
        result: a poll is a system call)."""
        if self.error is not None:
            raise self.error
        if not self._pending:
            self._oldest = time.monotonic()
        self._positions.append(position)
        self._pending.append(payload if isinstance(payload, bytes) else payload.encode())
        self._rows.append(rows)
        if len(self._pending) >= SEND_EVERY or time.monotonic() - self._oldest > HOLD_MAX_S:
            self._flush()
        elif not self._flush_planned:
            try:
                asyncio.get_running_loop().call_soon(self._flush)
            except RuntimeError:  # no loop: close() sends the rest
                return
            self._flush_planned = True

    def _flush(self) -> None:
        self._flush_planned = False
        if self.error is None and self._replied(0):
            self._read_reply()
        if not self._pending or self.error is not None:
            return
        try:
            self._send.send_bytes(_frame(self._positions, self._pending, self._rows))
        except (BrokenPipeError, OSError):
            self._read_reply()
            if self.error is None:
                self.error = StoreError("the result writer stopped unexpectedly")
        self._pending.clear()
        self._rows.clear()
        del self._positions[:]

    def _read_reply(self) -> None:
        try:
            reply = self._replies.recv()
        except EOFError:
            self.error = self.error or StoreError("the result writer stopped unexpectedly")
            return
        if reply[0] == "ok":
            self.written, self.replaced = reply[1], reply[2]
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


def _writer_thread(
    open_store: StoreFactory,
    run_id: str,
    holder: RunHolder | None,
    inbox: Connection,
    outbox: Connection,
) -> None:
    try:
        _writer_main(open_store, run_id, holder, inbox, outbox, None)
    finally:
        inbox.close()
        outbox.close()


class InPlaceWriter:
    """The writer of an in-memory store (``Store.in_memory``): each result is stored as it
    is handed over, through the run's own store, in the run's thread. A writer of its own
    (``ResultWriter``) would open another, empty database, and every result would be lost.
    The same interface as ``ResultWriter``."""

    def __init__(self, store: Any, run_id: str) -> None:
        self._store = store
        self._run_id = run_id
        self.error: AssayError | None = None
        self.written = 0
        self.replaced: list[int] = []

    def add(self, position: int, payload: bytes | str, rows: Handed | None = None) -> None:
        if self.error is not None:
            raise self.error
        text = payload.decode() if isinstance(payload, bytes) else payload
        item = _decode(text.encode()) if rows is None else prepared_of(text, rows)
        try:
            self.replaced += store_batch(self._store, self._run_id, [(position, item)])
        except Exception as exc:
            self.error = StoreError(_failure(exc))
            raise self.error from None
        self.written += 1

    def close(self) -> None:
        if self.error is not None:
            raise self.error


def result_writer(
    store: Any, run_id: str, holder: RunHolder | None
) -> ResultWriter | InPlaceWriter:
    """The run's writer: a process or thread of its own (``ResultWriter``), or, for an
    in-memory store, the run's own thread (``InPlaceWriter``)."""
    if store.in_memory:
        return InPlaceWriter(store, run_id)
    return ResultWriter(store.reopen, run_id, holder)
