"""The tools an openai target offers its model (``target.openai.tools``), and one call of
one of them: run by the user's Python function, or answered from canned results.

A call costs at most itself: a function that raises (``sys.exit`` too), arguments that
are not JSON, a tool the suite does not declare, a result no record can hold: each becomes
the call's ``error``, recorded on its ToolInvocation and sent to the model as the tool's
result (``{"error": "..."}``), and the turn goes on. Only the runner's own cancellation
(the turn's time limit, Ctrl-C) passes through.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay._imports import import_callable
from assay._isolation import call_user_code, describe, settled
from assay._millis import elapsed_ms
from assay.errors import ConfigError, Problem, TargetError
from assay.net.openai_wire import decode_arguments, function_tool
from assay.results.models import ToolInvocation
from assay.target_config import OpenAITool
from assay.targets._plain import plain_json
from assay.targets.base import result_bytes

ToolFunction = Callable[..., Any]


@dataclass(frozen=True)
class ToolOutcome:
    invocation: ToolInvocation  # what the turn records
    content: str  # what the model is sent as the tool's result


def recorded_arguments(text: str) -> tuple[dict[str, Any], str | None]:
    """A call's arguments as a ToolInvocation holds them, and the problem with them: text
    that is not JSON is kept as ``{"_raw": text}``, another JSON value than an object as
    ``{"_value": value}``."""
    value, problem = decode_arguments(text)
    if problem is not None:
        return {"_raw": text}, problem
    try:
        value = plain_json(value, "args")
    except TargetError as exc:  # nested too deeply for a result record, say
        return {"_raw": text}, str(exc)
    if not isinstance(value, dict):
        return {"_value": value}, "the arguments are not a JSON object"
    return value, None


class Toolbox:
    """The declared tools: their declarations for the request, and how each is answered."""

    def __init__(
        self, tools: Sequence[OpenAITool], search_dirs: tuple[Path, ...], where: str
    ) -> None:
        self.declarations = [function_tool(t.name, t.description, t.parameters) for t in tools]
        self.tools = {t.name: t for t in tools}
        self.functions: dict[str, ToolFunction] = {}
        for i, tool in enumerate(tools):
            if tool.implementation is not None:
                self.functions[tool.name] = _import(tool, search_dirs, f"{where}.tools[{i}]")

    def __bool__(self) -> bool:
        return bool(self.tools)

    async def call(self, name: str, arguments: str) -> ToolOutcome:
        args, problem = recorded_arguments(arguments)
        started = time.perf_counter()
        result: Any = None
        if problem is None:
            result, problem = await self._answer(name, args)
        duration_ms = elapsed_ms(started)
        if problem is None:
            try:
                result = plain_json(result, "result")
            except TargetError as exc:
                result, problem = None, str(exc)
        invocation = ToolInvocation(
            name=name,
            args=args,
            result=result,
            bytes=result_bytes(result),
            duration_ms=duration_ms,
            error=problem,
        )
        return ToolOutcome(invocation, _content(result, problem))

    async def _answer(self, name: str, args: dict[str, Any]) -> tuple[Any, str | None]:
        """The call's result, or its error."""
        tool = self.tools.get(name)
        if tool is None:
            declared = ", ".join(self.tools)
            return None, f"no tool named {name!r} is declared (the target declares {declared})"
        function = self.functions.get(name)
        if function is None:
            return _canned(tool, args)
        try:
            result = await call_user_code(functools.partial(function, **args))
        except BaseException as exc:  # sys.exit, KeyboardInterrupt: this call's
            exc = await settled(exc)  # the turn's time limit or Ctrl-C: not the tool's
            return None, f"the tool raised {describe(exc)}"
        return result, None


def _import(tool: OpenAITool, search_dirs: tuple[Path, ...], where: str) -> ToolFunction:
    assert tool.implementation is not None
    module, _, function = tool.implementation.partition(":")
    spec = f"{module}:{function or tool.name}"
    try:
        found: ToolFunction = import_callable(spec, search_dirs, what=f"{where}.implementation")
    except ConfigError as exc:
        raise ConfigError([Problem("suite", p.path, p.message) for p in exc.problems]) from None
    return found


def _canned(tool: OpenAITool, args: dict[str, Any]) -> tuple[Any, str | None]:
    """The first case whose ``args`` the call's arguments include, else the tool's own."""
    for case in tool.cases:
        if all(key in args and args[key] == value for key, value in case.args.items()):
            return (None, case.error) if case.error is not None else (case.result, None)
    if tool.error is not None:
        return None, tool.error
    if "result" in tool.model_fields_set:
        return tool.result, None
    return None, "no canned case matches these arguments (target.openai.tools[].cases)"


def _content(result: Any, problem: str | None) -> str:
    if problem is not None:
        return json.dumps({"error": problem}, ensure_ascii=False)
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
