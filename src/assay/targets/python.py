"""In-process Python agents: ``module:function`` taking ``(query, session_id)``, sync or async,
returning a string or a dict shaped like the http default reply (SPEC §4)."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay.errors import ConfigError, Problem, SessionLost, TargetError
from assay.targets.base import AgentSession, Reply, Target, TurnRequest, reply_from_payload

AgentFunction = Callable[[str, str], Any]


def import_callable(spec: str, search_dirs: tuple[Path, ...] = (), what: str = "target") -> Any:
    """Import ``module:attr``; search ``search_dirs`` (the suite's folder, the cwd) first."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ConfigError([Problem("options", what, f"expected 'module:function', got {spec!r}")])
    for folder in (*search_dirs, Path.cwd()):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # any import-time failure is the user's module, not assay
        raise ConfigError(
            [Problem("options", what, f"cannot import module {module_name!r}: {exc}")]
        ) from None
    fn: Any = module
    for part in attr.split("."):
        fn = getattr(fn, part, None)
        if fn is None:
            raise ConfigError(
                [Problem("options", what, f"module {module_name!r} has no attribute {attr!r}")]
            )
    if not callable(fn):
        raise ConfigError([Problem("options", what, f"{spec!r} is not callable")])
    return fn


def in_daemon_thread(fn: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
    """Run a sync agent call on a thread of its own. A daemon thread, not a pool's: a call
    that outlives its turn timeout (or hangs for good) neither holds up the run's exit nor
    takes a pool slot from the next turn."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():  # timed out or cancelled meanwhile
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        try:
            result, error = fn(*args), None
        except BaseException as exc:  # handed to the awaiting turn
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, name="assay-agent-call", daemon=True).start()
    return future


class _PythonSession(AgentSession):
    def __init__(self, fn: AgentFunction, is_async: bool) -> None:
        self.fn = fn
        self.is_async = is_async

    async def send(self, request: TurnRequest) -> Reply:
        try:
            if self.is_async:
                payload = await self.fn(request.input, request.session_id)
            else:
                payload = await in_daemon_thread(self.fn, request.input, request.session_id)
            if inspect.isawaitable(payload):  # an async callable inspect did not recognise
                payload = await payload
        except SessionLost:
            raise
        except Exception as exc:
            raise TargetError(f"the agent raised {type(exc).__name__}: {exc}") from exc
        return reply_from_payload(payload)


class PythonTarget(Target):
    def __init__(self, spec: str, search_dirs: tuple[Path, ...] = ()) -> None:
        self.fn: AgentFunction = import_callable(spec, search_dirs)
        self.is_async = inspect.iscoroutinefunction(self.fn)
        self.description = f"python:{spec}"

    def session(self, session_id: str) -> AgentSession:
        return _PythonSession(self.fn, self.is_async)
