"""In-process Python agents: ``module:function`` taking ``(query, session_id)``, sync or async,
returning a string or a dict shaped like the http default reply (SPEC §4).

An agent that also accepts a ``files`` keyword gets the files a turn attaches, as a list of
``{name, mime_type, text, data}`` (``data``: bytes, for an image or a file read as binary;
``text``: a document's text); one that does not still runs, and a turn with files fails
with the reason, rather than the agent answering without having seen them."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay._imports import import_callable
from assay._isolation import call_user_code, described, settled
from assay.errors import ConfigError, Problem, SessionLost, TargetError
from assay.targets.base import (
    AgentRaised,
    AgentSession,
    Reply,
    Target,
    TurnRequest,
    reply_from_payload,
)

AgentFunction = Callable[[str, str], Any]


def accepts_files(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` takes a ``files`` keyword (or any keyword, ``**kwargs``)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: two arguments, then
        return False
    return any(
        p.kind is p.VAR_KEYWORD
        or (p.name == "files" and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD))
        for p in parameters
    )


def check_arguments(fn: Callable[..., Any], spec: str) -> None:
    """Refuse, before anything runs, an agent that cannot be called as ``fn(query,
    session_id)``: otherwise every turn would fail alike with the same TypeError."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # no signature to read (a builtin): its calls will say
        return
    try:
        signature.bind("query", "session_id")
    except TypeError as exc:
        raise ConfigError(
            [
                Problem(
                    "options",
                    "target",
                    f"the agent {spec!r} cannot be called as fn(query, session_id) ({exc}): "
                    f"give it the signature (query: str, session_id: str)",
                )
            ]
        ) from None


class _PythonSession(AgentSession):
    def __init__(self, target: PythonTarget) -> None:
        self.target = target

    async def send(self, request: TurnRequest) -> Reply:
        fn: Callable[..., Any] = self.target.fn
        if request.files:
            if not self.target.takes_files:
                raise TargetError(
                    f"this turn attaches {len(request.files)} file(s) but the agent "
                    f"{self.target.spec} takes no files keyword: add a `files=None` parameter "
                    "to receive them (a list of {name, mime_type, text, data})"
                )
            fn = functools.partial(fn, files=[a.for_agent() for a in request.files])
        try:
            # read with the call: a dict subclass's get() or an object's __str__ is the
            # agent's code too, under the turn's time limit (on a sync agent's own thread)
            reply: Reply = await call_user_code(
                fn, request.input, request.session_id, then=reply_from_payload
            )
            return reply
        except (SessionLost, TargetError):
            raise
        except TimeoutError:  # the agent's own call timed out: the turn's timeout, as
            raise  # HoloDeck records a backend's TimeoutError
        except BaseException as exc:  # sys.exit, KeyboardInterrupt: this turn's
            exc = await settled(exc)  # the turn's time limit or Ctrl-C: not the agent's
            raise AgentRaised(*described(exc)) from None


class PythonTarget(Target):
    def __init__(self, spec: str, search_dirs: tuple[Path, ...] = ()) -> None:
        self.fn: AgentFunction = import_callable(spec, search_dirs)
        check_arguments(self.fn, spec)
        self.takes_files = accepts_files(self.fn)
        self.spec = spec
        self.description = f"python:{spec}"

    def session(self, session_id: str) -> AgentSession:
        return _PythonSession(self)
