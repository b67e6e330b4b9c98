"""In-process Python agents: ``module:function`` taking ``(query, session_id)``, sync or async,
returning a string or a dict shaped like the http default reply (SPEC §4)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay._imports import import_callable
from assay._isolation import describe, in_daemon_thread, reraise_if_cancelling
from assay.errors import SessionLost, TargetError
from assay.targets.base import AgentSession, Reply, Target, TurnRequest, reply_from_payload

AgentFunction = Callable[[str, str], Any]


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
            # read here: a dict subclass's get() or an object's __str__ is the agent's code too
            return reply_from_payload(payload)
        except (SessionLost, TargetError):
            raise
        except BaseException as exc:  # sys.exit, KeyboardInterrupt: this turn's
            reraise_if_cancelling(exc)  # the turn's time limit or Ctrl-C, not the agent
            raise TargetError(f"the agent raised {describe(exc)}") from None


class PythonTarget(Target):
    def __init__(self, spec: str, search_dirs: tuple[Path, ...] = ()) -> None:
        self.fn: AgentFunction = import_callable(spec, search_dirs)
        self.is_async = inspect.iscoroutinefunction(self.fn)
        self.description = f"python:{spec}"

    def session(self, session_id: str) -> AgentSession:
        return _PythonSession(self.fn, self.is_async)
