"""Python agents that misbehave as user code can: end the process, fake Ctrl-C, return data
no record can hold. Imported by ``module:function`` like users' agents (in-process tests,
and ``assay run`` subprocesses started in the repository root)."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from assay._isolation import user_code_guarded

T = TypeVar("T")


async def in_a_run(work: Coroutine[Any, Any, T]) -> T:
    """``work`` as a run's test runs: in a task of its own under the run's guard
    (``RunJob.execute_async``'s), whose task is the caller's."""
    run = asyncio.current_task()
    assert run is not None
    with user_code_guarded(run):
        return await asyncio.create_task(work)


class Escape(BaseException):
    """A BaseException of the agent's own."""


RAISED: dict[str, BaseException] = {
    "exit": SystemExit(0),
    "interrupt": KeyboardInterrupt(),
    "generator-exit": GeneratorExit(),
    "escape": Escape("out"),
    "cancelled": asyncio.CancelledError(),  # the agent's own, not the runner's
    "stop-iteration": StopIteration("done"),  # cannot be set on a future: it once hung
}


def raising(query: str, session_id: str) -> str:
    """Raises what its query names ("exit", "interrupt", ...); answers "ok" otherwise."""
    if query in RAISED:
        raise RAISED[query]
    return "ok"


async def async_raising(query: str, session_id: str) -> str:
    await asyncio.sleep(0)
    if query in RAISED:
        raise RAISED[query]
    return "ok"


def exits_on_b(query: str, session_id: str) -> str:
    if query == "b":
        sys.exit(0)
    return "ok"


async def async_exits_on_b(query: str, session_id: str) -> str:
    if query == "b":
        sys.exit(0)
    return "ok"


def echo(query: str, session_id: str) -> str:
    return query


def os_exits_on_b(query: str, session_id: str) -> str:
    """``os._exit(0)``: would end the process with status 0 (run in a thread: sync)."""
    if query == "b":
        os._exit(0)
    return "ok"


async def async_os_exits_on_b(query: str, session_id: str) -> str:
    if query == "b":
        os._exit(0)
    return "ok"


async def cancels_itself_on_b(query: str, session_id: str) -> str:
    """Cancels its own task: the cancellation is the agent's, not the runner's."""
    if query == "b":
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        await asyncio.sleep(0)
    return "ok"


async def cancels_itself_quietly_on_b(query: str, session_id: str) -> str:
    """Cancels its own task and returns without awaiting: the cancellation is still pending
    when its turn ends (it would land on assay's next ``await``)."""
    if query == "b":
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
    return "ok"


async def exits_from_a_callback_on_b(query: str, session_id: str) -> str:
    """``sys.exit(0)`` from a callback of its own: asyncio lets it out of the event loop,
    outside any turn."""
    if query == "b":
        asyncio.get_running_loop().call_soon(sys.exit, 0)
        await asyncio.sleep(1)
    return "ok"


def os_exits_on_a_thread_on_b(query: str, session_id: str) -> str:
    """``os._exit(0)`` on a thread of its own, which it waits for."""
    if query == "b":
        thread = threading.Thread(target=os._exit, args=(0,), name="agents-own")
        thread.start()
        thread.join()
    return "ok"


async def stops_the_loop_on_b(query: str, session_id: str) -> str:
    if query == "b":
        asyncio.get_running_loop().stop()
    return "ok"


def interrupts_on_b(query: str, session_id: str) -> str:
    if query == "b":
        raise KeyboardInterrupt
    return "ok"


async def exits_when_cancelled(query: str, session_id: str) -> str:
    """Turns the runner's cancellation (its turn time limit) into SystemExit."""
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        sys.exit(0)
    return "never"


def _blocked() -> bool:
    """With ASSAY_TEST_BLOCK set: mark that a turn started, and block while the file at
    ASSAY_TEST_BLOCK exists (so a test can press Ctrl-C during a turn)."""
    flag = os.environ.get("ASSAY_TEST_BLOCK")
    if not flag or not Path(flag).exists():
        return False
    Path(flag + ".started").touch()
    return True


def blocks_on_b(query: str, session_id: str) -> str:
    if query == "b" and _blocked():
        time.sleep(3600)
    return "ok"


async def async_blocks_on_b(query: str, session_id: str) -> str:
    if query == "b" and _blocked():
        await asyncio.sleep(3600)
    return "ok"


async def async_blocks_the_loop_on_b(query: str, session_id: str) -> str:
    """Sync work on the event loop's thread: a signal's Python handler runs in this frame.
    Marks (ASSAY_TEST_BLOCK + ".stopped") when its task's cancellation was asked for."""
    if query == "b" and _blocked():
        task = asyncio.current_task()
        flag = os.environ["ASSAY_TEST_BLOCK"]
        while Path(flag).exists():
            if task is not None and task.cancelling():
                Path(flag + ".stopped").touch()
            time.sleep(0.01)
    return "ok"


def _cyclic() -> dict[str, Any]:
    loop: dict[str, Any] = {"name": "loop"}
    loop["self"] = loop
    return loop


def _deep(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def _doubling(levels: int) -> list[Any]:
    """No cycle, but 2**levels leaves once copied: every level holds the next one twice."""
    value: list[Any] = ["leaf"]
    for _ in range(levels):
        value = [value, value]
    return value


class Shouting:
    """An object whose text is the agent's code."""

    def __str__(self) -> str:
        sys.exit(3)


class Endless:
    """An object whose text never comes: it waits on an event nobody sets (no CPU spent)."""

    def __str__(self) -> str:
        threading.Event().wait()
        return "never"


class Sneaky(dict[str, Any]):
    def get(self, key: str, default: Any = None) -> Any:
        raise KeyboardInterrupt


REPLIES: dict[str, Any] = {
    "cyclic-response": lambda: {"response": _cyclic()},
    "cyclic-result": lambda: {
        "response": "x",
        "tool_invocations": [{"name": "lookup", "result": _cyclic()}],
    },
    "cyclic-args": lambda: {
        "response": "x",
        "tool_invocations": [{"name": "t", "args": _cyclic()}],
    },
    "deep-result": lambda: {
        "response": "x",
        "tool_invocations": [{"name": "lookup", "result": _deep(100_000)}],
    },
    "deep-response": lambda: {"response": _deep(100_000)},
    "doubling": lambda: {
        "response": "x",
        "tool_invocations": [{"name": "t", "result": _doubling(40)}],
    },
    "huge-int": lambda: {"response": "x", "tool_invocations": [{"name": "t", "result": 10**5000}]},
    "shouting": lambda: {"response": Shouting()},
    "sneaky": lambda: Sneaky(response="hi"),
    "endless-response": lambda: {"response": Endless()},
    "endless-result": lambda: {
        "response": "x",
        "tool_invocations": [{"name": "t", "result": Endless()}],
    },
    "shared": lambda: {  # the same list twice is no cycle: recorded twice
        "response": "x",
        "tool_invocations": [{"name": "t", "result": {"a": (shared := [1, 2]), "b": shared}}],
    },
}


def returning(query: str, session_id: str) -> Any:
    """Returns the reply its query names; "ok" otherwise."""
    make = REPLIES.get(query)
    return make() if make else "ok"
