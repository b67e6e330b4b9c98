"""Running code assay does not control (Python agents, code graders, metrics) so that whatever
it raises, and however long it runs, costs only its own turn or metric.

Python lets any code raise ``SystemExit``, ``KeyboardInterrupt``, ``GeneratorExit`` or its own
``BaseException``; left alone, each would end the run (``sys.exit(0)`` with exit status 0: a
false pass). The callers here catch ``BaseException`` and keep only the runner's own
cancellation (a turn or metric time limit, or Ctrl-C, which asyncio delivers as the
cancellation of every task): ``runner_cancelling`` tells the two apart.

More ways out are closed while a run goes (``user_code_guarded``, around the run's
execution): ``os._exit`` called in the run's process, or in one of its workers
(``exit_guarded``), raises ``ExitCalled`` instead, where the code called it (forked
children of the user's code, whose pid differs, still exit; on a thread the user's code
started, which no turn awaits, it ends that thread with a warning); the ``stop()`` of an
event loop the run owns raises ``StopCalled`` (``loop_stop_guarded``); and a cancellation the
user's code makes of its own task (``asyncio.current_task().cancel()``) is taken back and
becomes ``OwnCancellation``, that turn's or metric's error. A cancellation is assay's when
the run's task is being cancelled (Ctrl-C, SIGTERM, ``RunJob.cancel``, the caller's) or one
of assay's deadlines (``assay.net.deadlines``) has expired on the task; any other is the
user code's. Outside a run, every cancellation counts as assay's, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import os
import sys
import threading
import weakref
from asyncio import current_task
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

from assay._words import clipped

# An exception's message is quoted in a turn's or a metric's error up to this length.
MESSAGE_LIMIT = 2000


class ExitCalled(BaseException):  # noqa: N818  (named for what the code did)
    """What ``os._exit(code)`` raises in the run's process (or a worker's) while guarded: the
    call's turn or metric fails with ``os._exit(code)`` instead of the process ending with
    ``code`` (0: a run that reports nothing and exits as if it had passed). A
    ``BaseException``, so an ``except Exception`` in the user's code lets it through."""

    def __init__(self, code: object) -> None:
        super().__init__(code)
        self.code = code


class StopCalled(BaseException):  # noqa: N818  (named for what the code did)
    """What the run's event loop's ``stop()`` raises while guarded (``loop_stop_guarded``):
    the caller's turn or metric fails with it, instead of the loop stopping under the run
    (``asyncio.run``'s "Event loop stopped before Future completed": no run, no report)."""


class OwnCancellation(BaseException):  # noqa: N818
    """Stands for a cancellation the user's code made of its own task, taken back
    (``settled``): its turn's or metric's error, and not the run's end."""


# the run's process and task, while ``user_code_guarded``: the task's cancellation is the
# run's stop (in that process only: a worker forked from it inherits the context, not the run)
_run_task: contextvars.ContextVar[tuple[int, asyncio.Task[Any]] | None] = contextvars.ContextVar(
    "assay_run_task", default=None
)
# the tasks one of assay's deadlines cancelled, with how many, until each is left
_expired: weakref.WeakKeyDictionary[asyncio.Task[Any], int] = weakref.WeakKeyDictionary()
# the runs' tasks guarded in this process, for a signal to stop (``stop_runs_here``)
_runs: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()
_guard_lock = threading.Lock()
_guards = 0  # runs (or shards) guarding os._exit in this process (the dashboard's worker: one)
_guard_pid = 0
_real_exit: Callable[[int], NoReturn] = os._exit


def _guarded_exit(code: int) -> NoReturn:
    """``os._exit`` while guarded: in the guarded process (the run's, or a worker's),
    ``ExitCalled`` where it was called; in any other (a fork: assay's result writer,
    multiprocessing's children, the user's own), the real exit."""
    if os.getpid() != _guard_pid:
        _real_exit(code)
    raise ExitCalled(code)


def _thread_ended(args: threading.ExceptHookArgs) -> None:
    """``threading.excepthook`` while guarded: ``os._exit`` on a thread the user's code
    started (no turn awaits it, so none can fail) ends that thread, with a warning and no
    traceback; anything else as before."""
    if not isinstance(args.exc_value, ExitCalled):
        _previous_hook(args)
        return
    name = clipped(str(getattr(args.thread, "name", "")), 200)
    words = _exit_words(args.exc_value)[0]
    with contextlib.suppress(Exception):  # stderr closed by the same code: nothing to tell
        print(
            f"warning: {words} was called on a thread the agent's or a grader's code started "
            f"({name!r}): that thread ended there, and the run goes on",
            file=sys.stderr,
            flush=True,
        )


_previous_hook: Callable[[threading.ExceptHookArgs], Any] = threading.excepthook


def _set_exit(function: Callable[[int], NoReturn]) -> None:
    os._exit = function  # type: ignore[assignment]
    platform = sys.modules.get(os.name)  # posix._exit: the same function, by another name
    if platform is not None and hasattr(platform, "_exit"):
        setattr(platform, "_exit", function)  # noqa: B010


@contextlib.contextmanager
def user_code_guarded(task: asyncio.Task[Any]) -> Iterator[None]:
    """Around a run whose task is ``task``: ``os._exit`` guarded in this process
    (``exit_guarded``), and ``task`` known as the run's to ``runner_cancelling`` (in its
    context: the run's tasks)."""
    with exit_guarded():
        token = _run_task.set((os.getpid(), task))
        _runs.add(task)
        try:
            yield
        finally:
            _runs.discard(task)
            _run_task.reset(token)


def stop_runs_here() -> bool:
    """From a signal's handler: cancel every run going on in this process (False: none is),
    as asyncio's Ctrl-C cancels its main task. A run whose loop is this thread's is
    cancelled at once, even while the user's code holds the loop: what that code raises
    from then on belongs to the stop (``runner_cancelling``); another's, by its loop."""
    runs = [task for task in list(_runs) if not task.done()]
    try:
        here: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        here = None
    for task in runs:
        loop = task.get_loop()
        with contextlib.suppress(RuntimeError):  # its loop closed: that run has ended
            if loop is here:
                task.cancel()
                loop.call_soon_threadsafe(_wake)  # a loop waiting in select() sees it now
            else:
                loop.call_soon_threadsafe(task.cancel)
    return bool(runs)


def _wake() -> None:
    """Nothing: a callback that wakes the event loop."""


@contextlib.contextmanager
def exit_guarded() -> Iterator[None]:
    """``os._exit`` guarded in this process: around a run, and around a worker's share of
    one (``assay.runner.shard``), where the user's code runs too. Guards may nest or overlap
    in threads; the last to end restores ``os._exit``. A process forked while guarded (a
    worker) inherits the guard, which is its parent's (its ``os._exit`` exits): a guard of
    its own starts the count anew, for its own pid."""
    global _guards, _guard_pid, _real_exit, _previous_hook
    with _guard_lock:
        if _guard_pid != os.getpid():  # forked from a guarded process: the count is its
            _guards = 0
        if _guards == 0:
            if os._exit is not _guarded_exit:  # else forked while guarded: _real_exit is known
                _real_exit = os._exit
            if threading.excepthook is not _thread_ended:  # else forked while guarded
                _previous_hook = threading.excepthook
            _guard_pid = os.getpid()
            _set_exit(_guarded_exit)
            threading.excepthook = _thread_ended
        _guards += 1
    try:
        yield
    finally:
        with _guard_lock:
            _guards -= 1
            if _guards == 0 and os._exit is _guarded_exit:  # unless replaced meanwhile
                _set_exit(_real_exit)
            if _guards == 0 and threading.excepthook is _thread_ended:
                threading.excepthook = _previous_hook


@contextlib.contextmanager
def loop_stop_guarded(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """Around a run (or a worker's share of one) on an event loop of its own: the loop's
    ``stop()``, called by the user's code, raises ``StopCalled`` there instead. asyncio
    stops the loop itself once the run's task is done, after this. A loop whose attributes
    cannot be set (uvloop's) stays unguarded; a guard within a guard changes nothing."""
    if getattr(loop, "stop", None) is _guarded_stop:
        yield
        return
    try:
        loop.stop = _guarded_stop  # type: ignore[method-assign]
    except AttributeError:
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(AttributeError):
            del loop.stop  # the class's again


def _guarded_stop() -> NoReturn:
    raise StopCalled


def cancel_at_deadline(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` for one of assay's deadlines, on the record (``runner_cancelling``)."""
    _expired[task] = _expired.get(task, 0) + 1
    task.cancel()


def deadline_left(task: asyncio.Task[Any]) -> None:
    """An expired deadline's body is left: its cancellation is off the record."""
    left = _expired.pop(task, 0) - 1
    if left > 0:
        _expired[task] = left


def runner_cancelling() -> bool:
    """True when the current task is being cancelled by assay (a time limit or Ctrl-C), so
    whatever the user's code raised on the way out belongs to that cancellation; False when
    it is not being cancelled, or only by the user's code (inside a run)."""
    task = current_task()
    if task is None or not task.cancelling():
        return False
    found = _run_task.get()
    if found is None or found[0] != os.getpid():  # outside a run: no telling, so assay's
        return True
    run = found[1]
    return run is task or run.cancelling() > 0 or task in _expired


def reraise_if_cancelling(exc: BaseException) -> None:
    """Re-raise the runner's cancellation, as a ``CancelledError`` even when the user's code
    turned it into something else (so ``asyncio.timeout`` still reports a timeout)."""
    if runner_cancelling():
        if isinstance(exc, asyncio.CancelledError):
            raise exc
        raise asyncio.CancelledError() from exc


async def settled(exc: BaseException) -> BaseException:
    """For a boundary's ``except BaseException``: re-raise the runner's cancellation
    (``reraise_if_cancelling``); take back one the user's code made of its own task, even
    one not delivered yet (which would stop assay's next ``await``), as ``OwnCancellation``
    when that is what it raised; else ``exc``: what to make the error of."""
    reraise_if_cancelling(exc)
    task = current_task()
    if task is None or not task.cancelling():
        return exc
    await _take_back(task)
    reraise_if_cancelling(exc)  # assay's own came meanwhile
    return OwnCancellation() if isinstance(exc, asyncio.CancelledError) else exc


async def _take_back(task: asyncio.Task[Any]) -> None:
    """Withdraw the user's cancellations of ``task`` (all it has: none is assay's), and take
    delivery of one still pending (a ``cancel()`` with no ``await`` since), here."""
    requests = task.cancelling()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.sleep(0)
    for _ in range(requests):
        task.uncancel()


def describe(exc: BaseException) -> str:
    """``RuntimeError: message`` for an ordinary exception, ``SystemExit(0)`` for the ones
    that are not errors, and never an exception of its own (``__str__`` is the user's code)."""
    return described(exc)[0]


def described(exc: BaseException) -> tuple[str, str]:
    """``describe(exc)``, and the message alone: ``str(exc)`` for an ordinary exception
    that has one, else the description itself (its type's name, ``SystemExit(0)``), so
    never blank. Both clipped to ``MESSAGE_LIMIT``; ``__str__`` is called once, and the
    message is cut from the description, so it is a plain ``str`` whatever it returned."""
    if isinstance(exc, StopCalled):
        return _STOP_WORDS, _STOP_WORDS
    if isinstance(exc, ExitCalled | OwnCancellation):
        return (_OWN_WORDS, _OWN_WORDS) if isinstance(exc, OwnCancellation) else _exit_words(exc)
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


_STOP_WORDS = "asyncio's loop.stop() (it would have stopped the run)"
_OWN_WORDS = "CancelledError: the code cancelled its own task (asyncio.current_task().cancel())"


def _exit_words(exc: ExitCalled) -> tuple[str, str]:
    try:
        text = f"os._exit({exc.code!r}) (it would have ended the run)"
    except BaseException:  # a hostile __repr__
        text = "os._exit() (it would have ended the run)"
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


class _Read:
    """What ``then`` made of a sync call's result, on the call's own thread."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _called_then(fn: Callable[..., Any], then: Callable[[Any], Any], *args: Any) -> Any:
    result = fn(*args)
    return result if inspect.isawaitable(result) else _Read(then(result))


async def call_user_code(
    fn: Callable[..., Any], *args: Any, then: Callable[[Any], Any] | None = None
) -> Any:
    """Call the user's ``fn`` (an agent, a tool, a code grader): awaited when it is a
    coroutine function, else run by ``in_daemon_thread``; a result that is itself awaitable
    (an async callable ``inspect`` did not recognise) is awaited too. Whatever it raises is
    raised here, for the caller to make its own turn's or metric's error.

    ``then`` reads the result (its ``__str__``, a mapping's ``get``: the user's code too);
    for a sync ``fn`` it runs on the call's thread, under the caller's time limit, so a
    result whose reading never ends costs its own turn, not the event loop."""
    if inspect.iscoroutinefunction(fn):
        result = await fn(*args)
        task = current_task()
        if task is not None and task.cancelling() and not runner_cancelling():
            await _take_back(task)  # it cancelled its own task and returned without awaiting
            raise OwnCancellation
    elif then is not None:
        result = await in_daemon_thread(_called_then, fn, then, *args)
        if type(result) is _Read:
            return result.value
    else:
        result = await in_daemon_thread(fn, *args)
    if inspect.isawaitable(result):
        result = await result
    return result if then is None else then(result)
