"""Reading a model API's reply body strictly.

A server that calls itself OpenAI-compatible may send anything: ``usage`` as ``"abc"``,
``message`` as a string, no ``choices``. Every field assay reads is checked with these, and
one of the wrong type raises ``MalformedReply`` naming its path and what it held, which the
caller turns into one line: a judge's ``JudgeError`` (the metric's error) or a target's
``TargetError`` (the turn's error), never a crashed run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from assay._words import clipped

MAX_TOKEN_COUNT = 2**53  # beyond any real count, and exact as a float or a BIGINT
ERROR_CHARS = 300  # of a server's error message, as quoted
_NOTHING = (None, "", "error")


class MalformedReply(Exception):
    """What is wrong, phrased to follow "the reply from URL": ``has no choices[0]``."""


def shown(value: Any) -> str:
    """A short description of a JSON value, for a message."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, str):
        text = repr(value)
        return text if len(text) <= 40 else text[:36] + "...'"
    if isinstance(value, int):
        digits = len(str(abs(value)))
        return str(value) if digits <= 20 else f"a {digits}-digit number"
    if isinstance(value, float):
        return repr(value)
    return "an array" if isinstance(value, list) else "an object"


def json_kind(value: Any) -> str:
    """What kind of JSON value ``value`` is: ``null``, ``a string``, ``an array``, ..."""
    if value is None:
        return "null"
    kinds = {bool: "a boolean", str: "a string", list: "an array", dict: "an object"}
    return kinds.get(type(value), "a number")


def expect_object(value: Any, path: str, *, optional: bool = False) -> dict[str, Any]:
    """``value`` when it is a JSON object (``{}`` for an absent optional one)."""
    if value is None and optional:
        return {}
    if not isinstance(value, dict):
        raise MalformedReply(f"has {path} = {shown(value)}, not an object")
    return value


def expect_list(value: Any, path: str, *, optional: bool = False) -> list[Any]:
    if value is None and optional:
        return []
    if not isinstance(value, list):
        raise MalformedReply(f"has {path} = {shown(value)}, not an array")
    return value


def optional_text(value: Any, path: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise MalformedReply(f"has {path} = {shown(value)}, not text")


def token_count(usage: Mapping[str, Any], key: str, path: str = "usage") -> int:
    """``usage[key]`` as a token count: absent or null is 0; anything but a whole number
    from 0 to 2**53 is malformed."""
    value = usage.get(key)
    if value is None:
        return 0
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_TOKEN_COUNT:
        raise MalformedReply(f"has {path}.{key} = {shown(value)}, not a token count")
    return value


def model_name(data: dict[str, Any]) -> str:
    """The ``model`` a reply names ("" when absent or not text: it is only a label)."""
    model = data.get("model")
    return model if isinstance(model, str) else ""


def server_error(data: Mapping[str, Any]) -> MalformedReply | None:
    """The error a server sent with HTTP 200 in place of an answer, as quota proxies and
    overloaded APIs do: OpenAI's ``{"error": {"type", "code", "message"}}``, Anthropic's
    ``{"type": "error", "error": {"type", "message"}}``, vLLM's ``{"object": "error",
    "message", "code"}``; None for a body that is no error or says nothing. Its message,
    on one line and clipped, follows "the reply from URL" (``is an error (sent with HTTP
    200): insufficient_quota: quota exceeded``), so the server's own words reach the user
    (callers redact it). Not retried: the same request would get the same error."""
    error = data.get("error")
    if data.get("object") == "error" or (data.get("type") == "error" and not error):
        error = data
    if not error:
        return None
    if not isinstance(error, Mapping):
        return MalformedReply(f"is an error (sent with HTTP 200): {_one_line(error)}")
    # its kind: a type or a code ("error", the type of Anthropic's envelope, says nothing)
    kind = next((error[k] for k in ("type", "code") if error.get(k) not in _NOTHING), None)
    said = ": ".join(_one_line(p) for p in (kind, error.get("message")) if p not in _NOTHING)
    # an error that says nothing ({"object": "error"}) is left to the caller's own message
    return MalformedReply(f"is an error (sent with HTTP 200): {said}") if said else None


def _one_line(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return clipped(" ".join(text[: ERROR_CHARS * 8].split()), ERROR_CHARS)
