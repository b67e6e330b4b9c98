"""The ``expected_tool_calls`` cell: a JSON array of ``{"name", "arguments"}`` objects.

As the reference service reads them, ``tool_name`` is accepted for ``name``, and ``args``
or ``parameters`` for ``arguments``; one of each at most. The arguments are optional and
must be an object. A blank cell means no tool
assertion, and ``[]`` expects no tool (which always holds, as in HoloDeck), while it still
counts as the turn's (empty) part of a conversation's trajectory. Entries come out as
``{"name": str, "args": dict}``. Tool and argument names are names: a control character in
one is refused (``limits``); argument values are data and may hold anything.
"""

from __future__ import annotations

import json
from typing import Any

from assay._json import json_kind, load_bounded
from assay.limits import ValueLimitError, name_problem

EXAMPLE = '[{"name": "get_weather", "arguments": {"location": "Seattle"}}]'
NAME_KEYS = ("name", "tool_name")
ARGUMENT_KEYS = ("arguments", "args", "parameters")
_KEYS = frozenset(NAME_KEYS + ARGUMENT_KEYS)


class ToolCallsError(ValueError):
    """The cell is not a usable list of tool calls; the message says why and what to write."""


def parse_expected_tools(text: str) -> list[dict[str, Any]] | None:
    """Parse one cell; ``None`` for a blank cell. Raises ToolCallsError."""
    text = text.strip()
    if not text:
        return None
    try:
        value = load_bounded(text, unique_keys=True)
    except json.JSONDecodeError as exc:
        raise ToolCallsError(
            f"not valid JSON ({exc.msg} at character {exc.pos + 1}); expected a JSON array "
            f"such as {EXAMPLE}"
        ) from None
    except ValueLimitError as exc:
        raise ToolCallsError(f"{exc}; expected a JSON array such as {EXAMPLE}") from None
    if isinstance(value, dict):
        raise ToolCallsError(f"a single object, not an array: wrap it in [ ], as in {EXAMPLE}")
    if not isinstance(value, list):
        raise ToolCallsError(
            f"expected a JSON array of tool calls, found {json_kind(value)}; write it as {EXAMPLE}"
        )
    return [_call(entry, n) for n, entry in enumerate(value, 1)]


def _call(entry: object, n: int) -> dict[str, Any]:
    where = f"tool call {n}"
    if not isinstance(entry, dict):
        raise ToolCallsError(
            f"{where} is {json_kind(entry)}; each tool call is an object such as "
            '{"name": "lookup"}'
        )
    name_key = _one_of(entry, NAME_KEYS, where)
    name = entry.get(name_key or "name")
    if not isinstance(name, str) or not name.strip():
        raise ToolCallsError(f'{where} needs a "name" with the tool\'s name as a string')
    problem = name_problem(name, "tool name")
    if problem is not None:
        raise ToolCallsError(f"{where}: {problem}")
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise ToolCallsError(
            f"{where} ({name}) has unknown key(s) {', '.join(map(repr, unknown))}: only "
            '"name" (or "tool_name") and "arguments" (or "args", "parameters") are allowed'
        )
    args_key = _one_of(entry, ARGUMENT_KEYS, f"{where} ({name})")
    args = entry.get(args_key) if args_key else None
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ToolCallsError(
            f'{where} ({name}): "{args_key}" must be a JSON object such as '
            f'{{"location": "Seattle"}}, found {json_kind(args)}'
        )
    for key in args:
        problem = name_problem(key, "argument name")
        if problem is not None:
            raise ToolCallsError(f"{where} ({name}): {problem}")
    return {"name": name, "args": args}


def _one_of(entry: dict[str, Any], keys: tuple[str, ...], where: str) -> str | None:
    """The one key of ``keys`` the entry has (None when it has none); two is an error."""
    present = [key for key in keys if key in entry]
    if len(present) > 1:
        both = " and ".join(f'"{key}"' for key in present)
        raise ToolCallsError(f"{where} has both {both}: keep one")
    return present[0] if present else None
