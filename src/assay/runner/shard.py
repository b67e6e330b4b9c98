"""One shard of a run, in a worker: a process of ``assay run --workers N`` or a Ray task.

A worker gets the run's plan and its compiled tests once (``ShardSpec``, pickled), builds
its own target and judge in its own event loop, and runs the tests it is handed, at most
its share of the run's concurrency at once, under its share of every endpoint limit
(``assay.net.limits.share_limits``). Each result is made storable and serialised here
(``encode_result``) and tallied (``Tally``), so the driver, which stores every result and
counts it in the run's summary, need not parse it back.

``main(READ_FD, WRITE_FD)`` is a local worker process (``assay.runner.pool``): it reads the
sys.path and the spec, then lists of (position, test index, repeat index) to run, from
READ_FD, and writes lists of (position, result JSON, ``Tally``, proved rows) to WRITE_FD
(``serve``).
A worker forked from the driver (``forked``) has the spec already. ``None`` means
no more work; ``"stop"`` means stop now (the run was interrupted). The end of its input
(the driver died) stops it too.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from assay._isolation import ExitCalled, describe, exit_guarded, loop_stop_guarded
from assay._threads_left import exit_if_threads_left
from assay.cases.models import TestCase
from assay.net.limits import share_limits
from assay.results.models import TestResult
from assay.results.rollup import Tally
from assay.runner.conversation import CaseSettings
from assay.runner.plan import RunPlan
from assay.runner.scheduler import run_cases, run_one
from assay.runner.writer import encode_result
from assay.secrets import REDACTOR
from assay.store._rows import Handed

if TYPE_CHECKING:
    from assay.models import ChatModel
    from assay.targets.base import Target

Slot = tuple[int, int, int]  # (position, index of the test in ShardSpec.cases, repeat index)
STOP = "stop"


# (position, the result's JSON as the store takes it, its tally, its proved rows or None)
Encoded = tuple[int, bytes, Tally, Handed | None]


def encoded(position: int, result: TestResult, rows: bool = True) -> Encoded:
    """The result made storable, serialised and its rows proved (``encode_result``), and
    tallied. ``rows`` False: handed over without rows (the driver's writer validates it)."""
    stored, payload, handed = encode_result(result)
    return position, payload, Tally.of(stored), handed if rows else None


@dataclass(frozen=True)
class ShardSpec:
    """What a worker needs to run its share of a run."""

    plan: RunPlan
    cases: list[TestCase]
    run_id: str
    index: int  # this worker's number, from 0
    workers: int  # how many share the run (and each endpoint limit)
    concurrency: int  # this worker's share of the run's concurrency
    secrets: list[str]  # every secret the driver knows, masked in what is stored
    cache_path: str | None = None  # the judge's response cache; None: no cache

    def for_worker(self, index: int, concurrency: int) -> ShardSpec:
        return replace(self, index=index, concurrency=concurrency)


class _Shard:
    """A worker's target, judge and settings, opened and closed in its event loop."""

    def __init__(self, spec: ShardSpec) -> None:
        REDACTOR.add(*spec.secrets)
        share_limits(spec.index, spec.workers)
        self.spec = spec
        self.target: Target = spec.plan.make_target()
        self.judge: ChatModel | None = None
        self.cache: Any = None
        if spec.plan.judge is not None:
            from assay.models import ResponseCache

            self.cache = ResponseCache(spec.cache_path) if spec.cache_path else None
            self.judge = spec.plan.make_judge(self.cache)
        execution = spec.plan.suite.execution
        self.settings = CaseSettings(
            turn_timeout_s=execution.turn_timeout_s,
            metric_timeout_s=execution.metric_timeout_s,
            judge=self.judge,
            run_id=spec.run_id,
        )

    async def __aenter__(self) -> _Shard:
        await self.target.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.target.aclose()
        if self.judge is not None:
            await self.judge.aclose()
        if self.cache is not None:
            self.cache.close()

    async def run(self, slot: Slot) -> Encoded:
        position, index, repeat_index = slot
        result = await run_one(self.spec.cases[index], self.target, self.settings, repeat_index)
        return encoded(position, result)


@contextlib.asynccontextmanager
async def _opened(spec: ShardSpec) -> AsyncIterator[_Shard]:
    """The shard, open, with ``os._exit`` guarded as in the run's process: the user's code
    (the agent's import included) fails its own turn or metric, not the worker."""
    with exit_guarded(), loop_stop_guarded(asyncio.get_running_loop()):  # the worker's own
        async with _Shard(spec) as shard:
            yield shard


async def run_slots(
    spec: ShardSpec, slots: Iterable[Slot], emit: Callable[[Encoded], None]
) -> None:
    """Run the given slots, ``spec.concurrency`` at a time; each result to ``emit`` as it
    finishes (a Ray task's shard, given whole)."""
    async with _opened(spec) as shard:
        work = [(position, spec.cases[index], r) for position, index, r in slots]

        def on_result(position: int, result: TestResult) -> None:
            # without rows: a Ray task may run another install of assay than the driver's,
            # so the driver's writer validates what it sends instead of trusting its rows
            emit(encoded(position, result, rows=False))

        await run_cases(work, shard.target, shard.settings, spec.concurrency, on_result)


async def serve(spec: ShardSpec, inbox: Connection, outbox: Connection) -> None:
    """A local worker: run what the driver sends, send back each result at the end of the
    event loop's turn it finished in (so the driver refills its slot at once), until told
    there is no more work (then finish what runs) or to stop (then cancel it), or until the
    driver is gone."""
    loop = asyncio.get_running_loop()
    ended = loop.create_future()
    running: set[asyncio.Task[None]] = set()
    finished: list[Encoded] = []
    no_more = False

    def send() -> None:
        if finished:
            with contextlib.suppress(OSError):  # the driver is gone: the inbox says so too
                outbox.send(list(finished))
            finished.clear()

    async with _opened(spec) as shard:

        async def one(slot: Slot) -> None:
            encoded = await shard.run(slot)
            if not finished:
                loop.call_soon(send)
            finished.append(encoded)

        def done(task: asyncio.Task[None]) -> None:
            running.discard(task)
            if no_more and not running and not ended.done():
                ended.set_result(None)

        def readable() -> None:
            nonlocal no_more
            try:
                message = inbox.recv()
            except (EOFError, OSError):  # the driver is gone: nobody to send results to
                message = STOP
            if message == STOP:
                loop.remove_reader(inbox.fileno())
                for task in running:
                    task.cancel()
            if message == STOP or message is None:  # after None, still watch for STOP
                no_more = True
                if not running and not ended.done():
                    ended.set_result(None)
                return
            for slot in message:
                task = loop.create_task(one(slot))
                running.add(task)
                task.add_done_callback(done)

        loop.add_reader(inbox.fileno(), readable)
        try:
            await ended
            await asyncio.gather(*running, return_exceptions=True)
        finally:
            loop.remove_reader(inbox.fileno())
    send()


def work(spec: ShardSpec, inbox: Connection, outbox: Connection) -> int:
    """A local worker's life once it has its spec; its exit status."""
    try:
        asyncio.run(serve(spec, inbox, outbox))
    except (BrokenPipeError, ConnectionResetError):
        return 0  # the driver is gone
    # said to the driver, which fails the run with it (os._exit outside any turn too)
    except (Exception, ExitCalled) as exc:
        with contextlib.suppress(OSError):
            outbox.send(f"worker {spec.index + 1} failed: {describe(exc)}")
        return 3
    return 0


def forked(spec: ShardSpec, read_fd: int, write_fd: int) -> int:
    """A worker forked from the driver (``assay.runner.forking``): it has the spec already."""
    inbox, outbox = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    return work(spec, inbox, outbox)


def main(read_fd: int, write_fd: int) -> None:
    """A worker started as a fresh interpreter: the driver sends its sys.path and the spec."""
    # Ctrl-C and SIGTERM reach the whole process group: the driver decides, and says "stop"
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    inbox, outbox = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    try:
        sys.path[:] = inbox.recv()  # the driver's: its agents, graders and tools import here
        spec: ShardSpec = inbox.recv()
    except EOFError:
        return
    code = work(spec, inbox, outbox)
    # its results are sent: threads the user's code left running are not waited for (the
    # driver would wait STOP_WAIT_S for this process, then kill it), nor given the grace of
    # assay run's own process: a forked worker ends with os._exit anyway
    exit_if_threads_left(code, warn=False, wait=False)
    if code:
        raise SystemExit(code)
