"""Reading a reply as JSON: optional markdown code fences, JSONPath selection."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"^\s*```[\w-]*\s*\n(?P<body>.*?)\n?\s*```\s*$", re.DOTALL)


class NotJson(ValueError):
    """The reply is not JSON; the message says why, for the metric's reasoning."""


def strip_code_fence(text: str) -> str:
    """The body of a reply that is one fenced block (```json ... ```), else the text itself."""
    match = _FENCE.match(text)
    return match.group("body") if match else text


def load_json(text: str, *, allow_code_fence: bool = False) -> Any:
    if allow_code_fence:
        text = strip_code_fence(text)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotJson(
            f"the response is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        ) from None


def compile_path(path: str) -> Any:
    """A compiled JSONPath; ValueError (for the options validator) when it does not parse."""
    from jsonpath_ng.exceptions import JSONPathError  # imported when a path is given
    from jsonpath_ng.ext.parser import parse as parse_jsonpath

    try:
        return parse_jsonpath(path)
    except (JSONPathError, ValueError, TypeError, AttributeError) as exc:
        raise ValueError(f"invalid JSONPath {path!r}: {exc}") from None


def select(compiled: Any, document: Any, path: str) -> Any:
    """The first value ``compiled`` finds in ``document``; NotJson naming the path if none."""
    found = compiled.find(document)
    if not found:
        raise NotJson(f"the JSON response has nothing at {path}")
    return found[0].value
