"""Reading a reply as JSON: optional markdown code fences, JSONPath selection."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE_OPENING = re.compile(r"```[\w-]*(?P<space>\s*)")  # matched at one position only
_FENCE = "```"


class NotJson(ValueError):
    """The reply is not JSON; the message says why, for the metric's reasoning."""


def strip_code_fence(text: str) -> str:
    """The body of a reply that is one fenced block (```json ... ```), else the text itself.
    Found without a scanning pattern (a lazy body before an anchored closing fence took
    quadratic time on a reply of blanks)."""
    inner = text.strip()
    opening = _FENCE_OPENING.match(inner)
    if opening is None or not inner.endswith(_FENCE):
        return text
    # the body starts after the last line break of the blanks that follow ```lang
    newline = inner.rfind("\n", opening.start("space"), opening.end("space"))
    end = len(inner) - len(_FENCE)
    if newline < 0 or newline + 1 > end:
        return text
    return inner[newline + 1 : end].rstrip()


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
