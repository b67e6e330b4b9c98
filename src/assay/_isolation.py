"""Running code assay does not control (Python agents, code graders, metrics) so that whatever
it raises, and however long it runs, costs only its own turn or metric.

Python lets any code raise ``SystemExit``, ``KeyboardInterrupt``, ``GeneratorExit`` or its own
``BaseException``; left alone, each would end the run (``sys.exit(0)`` with exit status 0: a
false pass). The callers here catch ``BaseException`` and keep only the runner's own
cancellation (a turn or metric time limit, or Ctrl-C, which asyncio delivers as the
cancellation of every task): ``runner_cancelling`` tells the two apart.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import threading
from collections.abc import Callable
from typing import Any

from assay._words import clipped

# An exception's message is quoted in a turn's or a metric's error up to this length.
MESSAGE_LIMIT = 2000


def runner_cancelling() -> bool:
    """True when the current task is being cancelled by assay (a time limit or Ctrl-C), so
    whatever the user's code raised on the way out belongs to that cancellation."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def reraise_if_cancelling(exc: BaseException) -> None:
    """Re-raise the runner's cancellation, as a ``CancelledError`` even when the user's code
    turned it into something else (so ``asyncio.timeout`` still reports a timeout)."""
    if runner_cancelling():
        if isinstance(exc, asyncio.CancelledError):
            raise exc
        raise asyncio.CancelledError() from exc


def describe(exc: BaseException) -> str:
    """``RuntimeError: message`` for an ordinary exception, ``SystemExit(0)`` for the ones
    that are not errors, and never an exception of its own (``__str__`` is the user's code)."""
    return described(exc)[0]


def described(exc: BaseException) -> tuple[str, str]:
    """``describe(exc)``, and the message alone: ``str(exc)`` for an ordinary exception
    that has one, else the description itself (its type's name, ``SystemExit(0)``), so
    never blank. Both clipped to ``MESSAGE_LIMIT``; ``__str__`` is called once, and the
    message is cut from the description, so it is a plain ``str`` whatever it returned."""
    try:
        text = name = type(exc).__name__
        if isinstance(exc, Exception):
            message = str(exc)
            if message:
                text = f"{name}: {message}"
                return clipped(text, MESSAGE_LIMIT), clipped(text[len(name) + 2 :], MESSAGE_LIMIT)
        else:
            text = f"{name}({', '.join(repr(a) for a in exc.args)})"
    except BaseException:  # a hostile __str__ or __repr__
        text = type(exc).__qualname__
    text = clipped(text, MESSAGE_LIMIT)
    return text, text


async def in_daemon_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """Run a sync call on a thread of its own and await its outcome. A daemon thread, not a
    pool's: a call that outlives its time limit (or hangs for good) neither holds up the
    run's exit nor takes a pool slot from the next call. Whatever it raises, ``SystemExit``
    included, is raised here, in the awaiting task, never on the thread."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[tuple[Any, BaseException | None]] = loop.create_future()

    def settle(outcome: tuple[Any, BaseException | None]) -> None:
        if not future.done():  # else timed out or cancelled meanwhile
            future.set_result(outcome)  # an exception travels as a value: StopIteration too

    def work() -> None:
        try:
            outcome: tuple[Any, BaseException | None] = (fn(*args), None)
        except BaseException as exc:  # handed to the awaiting task
            outcome = (None, exc)
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, outcome)

    threading.Thread(target=work, name="assay-user-code", daemon=True).start()
    result, error = await future
    if error is not None:
        raise error
    return result


async def call_user_code(fn: Callable[..., Any], *args: Any) -> Any:
    """Call the user's ``fn`` (an agent, a tool, a code grader): awaited when it is a
    coroutine function, else run by ``in_daemon_thread``; a result that is itself awaitable
    (an async callable ``inspect`` did not recognise) is awaited too. Whatever it raises is
    raised here, for the caller to make its own turn's or metric's error."""
    if inspect.iscoroutinefunction(fn):
        result = await fn(*args)
    else:
        result = await in_daemon_thread(fn, *args)
    if inspect.isawaitable(result):
        result = await result
    return result
