"""Read a model's structured reply: JSON out of text, checked against a JSON Schema."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?```$", re.S)


def extract_json(text: str) -> Any:
    """The JSON value a reply holds: the whole text, a fenced block, or the outermost
    ``{...}`` (local models often wrap JSON in prose). Raises ValueError when none parses."""
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    candidates = [fenced.group(1).strip()] if fenced else []
    candidates.append(stripped)
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        candidates.append(stripped[start : end + 1])
    too_deep = False
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:  # not JSON, or a number with more digits than int() takes
            continue
        except RecursionError:
            too_deep = True
    if too_deep:
        raise ValueError("the reply's JSON is nested too deeply")
    shown = stripped if len(stripped) <= 80 else stripped[:77] + "..."
    raise ValueError(f"the reply is not JSON ({shown!r})" if stripped else "the reply is empty")


def schema_problem(value: Any, schema: dict[str, Any]) -> str | None:
    """The first way ``value`` breaks ``schema``, in words, or None when it conforms."""
    from jsonschema import Draft202012Validator  # a slow import, needed only here

    errors = sorted(Draft202012Validator(schema).iter_errors(value), key=lambda e: list(e.path))
    if not errors:
        return None
    err = errors[0]
    where = "/".join(str(p) for p in err.absolute_path)
    return f"{where}: {err.message}" if where else err.message


def parse_structured(text: str, schema: dict[str, Any]) -> tuple[Any, str | None]:
    """``(value, None)`` when ``text`` holds JSON that conforms to ``schema``, else
    ``(None, problem)``."""
    try:
        value = extract_json(text)
    except ValueError as exc:
        return None, str(exc)
    problem = schema_problem(value, schema)
    return (None, f"the JSON does not match the schema: {problem}") if problem else (value, None)
