"""The driver's side of ``assay run --workers N``: N worker processes on this machine, each
running what the driver hands it (``assay.runner.shard``), the driver storing every result.

Each worker is forked from the driver when that is safe (it runs one thread:
``assay.runner.forking``): it starts with assay and the run's spec already in memory. Else
(``assay.run_async`` in a threaded program) it is a fresh interpreter (``python -c``
calling ``assay.runner.shard.main``) that imports assay and is sent the pickled spec: a
fresh interpreter, unlike multiprocessing's spawn, does not re-run the caller's ``__main__``
(a script calling ``assay.run`` at its top level). Either talks to the driver over two pipes.

The driver hands each worker no more tests than its share of the concurrency, topping it up
as results come back, so what a worker holds is exactly what it runs: a worker that dies
loses only its tests in flight. They get no result (``--resume`` runs them); the other
workers go on with the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import pickle
import signal
import subprocess
import sys
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection

from assay.errors import AssayError
from assay.runner import forking
from assay.runner.shard import STOP, Encoded, ShardSpec, Slot, forked

_MAIN = "from assay.runner.shard import main; main"
WORKER_NAME = "assay-worker"  # a forked worker's process name (Linux): assay-worker-1, ...
STOP_WAIT_S = 30.0
# results go to the store together at most this long after the first came back: one
# hand-off per result would cost the store's writer several times the CPU (bench_scale.py)
STORE_GAP_S = 0.01  # how long a stopped worker may take to send what it finished
EncodedSink = Callable[[Encoded], None]  # a result back from a worker: store it
Probe = Callable[[], Awaitable[None]]


class WorkerFailed(AssayError):
    """A worker could not start its shard (its target or judge failed to build there)."""

    exit_code = 3


@dataclass
class Lost:
    """Tests that got no result because their worker died, and why."""

    positions: list[int] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)


def died(returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-returncode).name}"
    return f"exit status {returncode}"


def spec_bytes(spec: ShardSpec) -> bytes:
    try:
        return pickle.dumps(spec, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # a grader or tool object made in a script, say
        raise WorkerFailed(
            f"this run's tests cannot be sent to worker processes ({type(exc).__name__}: "
            f"{exc}); run it with --workers 1"
        ) from None


class _Worker:
    def __init__(self, spec: ShardSpec, fork: bool) -> None:
        work_read, self.work_write = os.pipe()
        self.results_read, results_write = os.pipe()
        self.process: subprocess.Popen[bytes] | forking.Forked
        try:
            if fork:
                child = functools.partial(forked, spec, work_read, results_write)
                name = f"{WORKER_NAME}-{spec.index + 1}"
                self.process = forking.fork_worker(name, child, (work_read, results_write))
            else:
                self.process = subprocess.Popen(
                    [sys.executable, "-c", f"{_MAIN}({work_read}, {results_write})"],
                    pass_fds=(work_read, results_write),
                    stdin=subprocess.DEVNULL,
                    stdout=sys.__stderr__.fileno() if sys.__stderr__ else None,  # stdout: reports
                )
        finally:
            os.close(work_read)
            os.close(results_write)
        self.inbox = Connection(self.results_read, writable=False)
        self.outbox = Connection(self.work_write, readable=False)
        self.share = spec.concurrency
        self.number = spec.index + 1
        self.held: dict[int, Slot] = {}  # handed over, no result yet
        self.open = True  # its results pipe has not ended
        self.told_end = False
        if not fork:
            self.outbox.send(sys.path)
            self.outbox.send_bytes(spec_bytes(spec))

    def send(self, message: object) -> None:
        with contextlib.suppress(OSError):  # it died: its results pipe says so
            self.outbox.send(message)

    def close(self) -> None:
        self.inbox.close()
        self.outbox.close()
        try:
            self.process.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class LocalPool:
    """Run ``work`` over worker processes; ``run`` returns what was lost to dead workers."""

    def __init__(self, specs: list[ShardSpec], on_encoded: EncodedSink) -> None:
        self.specs = specs
        self.on_encoded = on_encoded
        self.queue: deque[Slot] = deque()
        self.lost = Lost()
        self.workers: list[_Worker] = []
        self._ended: asyncio.Future[None] | None = None
        self.stopping = False
        self._received: list[Encoded] = []  # back from the workers, not yet handed on

    async def run(self, work: Iterable[Slot], ready: Probe | None = None) -> Lost:
        """Start the workers, then await ``ready`` (if it raises, the workers stop unused),
        then hand them the work. (Started first, they can be forks: awaiting ``ready``,
        a target's probe, may leave a thread behind, a DNS lookup's.)"""
        loop = asyncio.get_running_loop()
        self.queue.extend(work)
        self._ended = loop.create_future()
        fork = forking.can_fork()
        try:
            for spec in self.specs:
                self.workers.append(_Worker(spec, fork))
            if ready is not None:
                await ready()
            for worker in self.workers:
                loop.add_reader(worker.inbox.fileno(), self._readable, worker)
                self._top_up(worker)
            await self._ended
        except (asyncio.CancelledError, KeyboardInterrupt):
            self._stop()  # every result a worker finished is stored before the run ends
            raise
        finally:
            self._hand_on()
            for worker in self.workers:
                if worker.open:
                    loop.remove_reader(worker.inbox.fileno())
                worker.close()
        self.lost.positions += [slot[0] for slot in self.queue]  # no worker left for these
        return self.lost

    def _top_up(self, worker: _Worker) -> None:
        if self.stopping:
            return
        room = worker.share - len(worker.held)
        if room > 0 and self.queue:
            slots = [self.queue.popleft() for _ in range(min(room, len(self.queue)))]
            worker.held.update((slot[0], slot) for slot in slots)
            worker.send(slots)
        elif not self.queue and not worker.told_end:
            worker.told_end = True
            worker.send(None)

    def _readable(self, worker: _Worker) -> None:
        try:
            self._receive(worker, block=False)
        except BaseException as exc:  # the store failed: the run ends with that
            self._end(exc)

    def _receive(self, worker: _Worker, block: bool) -> None:
        """Store what the worker sent; at the end of its pipe, count what it held as lost."""
        while True:
            try:
                message = worker.inbox.recv()
            except (EOFError, OSError):
                self._gone(worker)
                return
            if isinstance(message, str):  # it could not start its shard
                raise WorkerFailed(message)
            self._store(worker, message)
            self._top_up(worker)
            if not block and not worker.inbox.poll():
                return

    def _store(self, worker: _Worker, encoded: list[Encoded]) -> None:
        for position, *_ in encoded:
            worker.held.pop(position, None)
        if not self._received and not self.stopping:
            asyncio.get_running_loop().call_later(STORE_GAP_S, self._hand_on_or_end)
        self._received += encoded

    def _hand_on(self) -> None:
        received, self._received = self._received, []
        for item in received:
            self.on_encoded(item)

    def _hand_on_or_end(self) -> None:
        try:
            self._hand_on()
        except BaseException as exc:  # the store failed: the run ends with that
            self._end(exc)

    def _end(self, failure: BaseException | None = None) -> None:
        """End the run (with ``failure``, when the store failed), once."""
        if self._ended is None or self._ended.done():
            return
        if failure is None:
            self._ended.set_result(None)
        else:
            self._ended.set_exception(failure)

    def _gone(self, worker: _Worker) -> None:
        worker.open = False
        with contextlib.suppress(ValueError, OSError):
            asyncio.get_running_loop().remove_reader(worker.inbox.fileno())
        if worker.held and not self.stopping:
            worker.process.wait()
            self.lost.positions += list(worker.held)
            reason = f"worker {worker.number} of {len(self.workers)} stopped unexpectedly"
            self.lost.reasons.append(f"{reason} ({died(worker.process.returncode)})")
            worker.held.clear()  # what it had not taken yet goes to the others
        if all(not w.open for w in self.workers):
            self._end()

    def _stop(self) -> None:
        """Interrupted: tell every worker to stop, then store what each sends before its
        pipe ends."""
        self.stopping = True
        for worker in self.workers:
            worker.send(STOP)
        for worker in self.workers:
            if worker.open:
                with contextlib.suppress(ValueError, OSError):
                    asyncio.get_running_loop().remove_reader(worker.inbox.fileno())
                if worker.inbox.poll(STOP_WAIT_S):
                    self._receive(worker, block=True)
                worker.open = False
                worker.held.clear()  # cancelled: --resume runs them
