"""How a model is asked for JSON, and what to do when a server will not do it that way.

Servers differ. OpenAI and llama.cpp's ``llama-server`` take ``response_format:
{"type": "json_schema", ...}``; llama-cpp-python's server rejects it with HTTP 500
(``Input should be 'text' or 'json_object'``) but takes ``{"type": "json_object",
"schema": ...}``; others ignore ``response_format`` altogether. So a structured call tries
``json_schema``, falls back to ``json_object`` with the schema, then to plain text, and
remembers per endpoint and model which mode worked, so later calls go straight to it.

Every mode also puts an example instance of the schema in the prompt (not the raw schema,
which small models echo back), so a server that ignores ``response_format`` still gets
told the shape; every reply is checked against the schema locally.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Literal

from assay._json import extract_json, schema_problem

Mode = Literal["json_schema", "json_object", "prompt"]
MODES: tuple[Mode, ...] = ("json_schema", "json_object", "prompt")

# Words in an error body that say the server did not accept the structured-output request
# (llama-cpp-python: "... 'loc': ('body', 'response_format', 'type'), 'msg': "Input should
# be 'text' or 'json_object'" ...").
_REJECTION_MARKERS = ("response_format", "json_schema", "json_object", "grammar")
_REJECTION_STATUSES = frozenset({400, 404, 415, 422, 500, 501})

_learned: dict[tuple[str, str], Mode] = {}
_lock = threading.Lock()


def next_mode(mode: Mode, order: tuple[Mode, ...] = MODES) -> Mode | None:
    """The mode to try after ``mode`` was rejected, or None after the last."""
    later = order[order.index(mode) + 1 :] if mode in order else ()
    return later[0] if later else None


def learned_mode(endpoint: str, model: str) -> Mode | None:
    with _lock:
        return _learned.get((endpoint, model))


def remember_mode(endpoint: str, model: str, mode: Mode) -> None:
    with _lock:
        _learned[(endpoint, model)] = mode


_probes: dict[tuple[int, str, str], asyncio.Lock] = {}


def probe_lock(endpoint: str, model: str) -> asyncio.Lock:
    """Held by the first structured call to an endpoint, so that calls made meanwhile wait
    for the mode it finds instead of each being rejected once (one lock per event loop)."""
    key = (id(asyncio.get_running_loop()), endpoint, model)
    with _lock:
        return _probes.setdefault(key, asyncio.Lock())


def forget_modes() -> None:
    """Forget what every endpoint accepted (for tests)."""
    with _lock:
        _learned.clear()
        _probes.clear()


def rejects_structured_output(status: int | None, message: str) -> bool:
    """Whether a failed call's status and error text say the server refused the way JSON
    was asked for (so the next mode may work), rather than failing for another reason."""
    if status not in _REJECTION_STATUSES:
        return False
    text = message.lower()
    return any(marker in text for marker in _REJECTION_MARKERS)


def example_instance(schema: dict[str, Any]) -> Any:
    """A value that conforms to ``schema``, built from its types, enums and descriptions:
    what the prompt shows instead of the schema itself."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "anyOf" in schema and schema["anyOf"]:
        return example_instance(schema["anyOf"][0])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties") or {}
        return {name: example_instance(sub) for name, sub in props.items()}
    if kind == "array":
        item = example_instance(schema.get("items") or {"type": "string"})
        return [item] * max(1, int(schema.get("minItems") or 1))
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        low, high = schema.get("minimum"), schema.get("maximum")
        return (low + high) / 2 if low is not None and high is not None else 0.5
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return str(schema.get("description") or "text")


def _constraints(schema: dict[str, Any], path: str, out: list[str]) -> None:
    if schema.get("enum") and path:
        allowed = ", ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
        out.append(f"- {path}: one of {allowed}")
    elif schema.get("type") in ("number", "integer") and path:
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            out.append(f"- {path}: a {schema['type']} from {low} to {high}")
    for name, sub in (schema.get("properties") or {}).items():
        _constraints(sub, f"{path}.{name}" if path else name, out)
    items = schema.get("items")
    if isinstance(items, dict):
        _constraints(items, f"{path}[]", out)


def format_instruction(schema: dict[str, Any]) -> str:
    """The part of a prompt that says what to reply: one JSON object like the example,
    and what each constrained field may hold."""
    example = json.dumps(example_instance(schema), ensure_ascii=False)
    lines = [
        "Reply with only one JSON object, with these keys in this order, and nothing else "
        "(no prose, no code fence). An example of the form, not of the content:",
        example,
    ]
    limits: list[str] = []
    _constraints(schema, "", limits)
    if limits:
        lines += ["Allowed values:", *limits]
    return "\n".join(lines)


def with_format_instruction(
    messages: list[dict[str, str]], schema: dict[str, Any]
) -> list[dict[str, str]]:
    """``messages`` with the format instruction at the end of the system message (one is
    added when there is none)."""
    instruction = format_instruction(schema)
    out = [dict(m) for m in messages]
    for message in out:
        if message["role"] == "system":
            message["content"] = f"{message['content'].rstrip()}\n\n{instruction}"
            return out
    return [{"role": "system", "content": instruction}, *out]


def parse_structured(text: str, schema: dict[str, Any]) -> tuple[Any, str | None]:
    """``(value, None)`` when ``text`` holds JSON that conforms to ``schema``, else
    ``(None, problem)``."""
    try:
        value = extract_json(text)
    except ValueError as exc:
        return None, str(exc)
    problem = schema_problem(value, schema)
    return (None, f"the JSON does not match the schema: {problem}") if problem else (value, None)
