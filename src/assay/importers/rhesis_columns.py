"""Rhesis's field names and turn-count forms, as its platform's file import reads them.

Headers are trimmed, lower-cased and their spaces made underscores; an exact field name
wins, then the aliases of Rhesis's import mapper, each field taken by the first header that
names it. ``prompt.content``-style keys (a flattened JSON export) map to their field.
"""

from __future__ import annotations

import re
from typing import Any

ALIASES: dict[str, tuple[str, ...]] = {
    "category": ("category", "cat", "test_category", "category_name", "type"),
    "topic": ("topic", "test_topic", "topic_name", "subject"),
    # Rhesis renamed a test's behavior to requirement; both are the third tag
    "behavior": ("behavior", "behaviour", "test_behavior", "behavior_name", "requirement"),
    "prompt_content": (
        "prompt_content",
        "prompt",
        "content",
        "question",
        "input",
        "text",
        "message",
        "user_message",
        "query",
        "test_prompt",
        "prompt.content",
    ),
    "expected_response": (
        "expected_response",
        "expected",
        "answer",
        "response",
        "expected_output",
        "ground_truth",
        "reference",
        "target",
        "ideal",
        "prompt.expected_response",
    ),
    "language_code": ("language_code", "language", "lang", "locale", "prompt.language_code"),
    "test_type": ("test_type", "type", "turn_type"),
    "test_configuration": ("test_configuration", "configuration", "config"),
    "goal": ("goal", "objective", "target", "aim", "test_goal"),
    "instructions": ("instructions", "instruction", "steps", "procedure", "test_instructions"),
    "restrictions": (
        "restrictions",
        "restriction",
        "constraints",
        "limits",
        "forbidden",
        "test_restrictions",
    ),
    "scenario": ("scenario", "context", "situation", "setting", "test_scenario"),
    "min_turns": ("min_turns", "minimum_turns"),
    "max_turns": (
        "max_turns",
        "maximum_turns",
        "turn_config",
        "turns",
        "num_turns",
        "number_of_turns",
    ),
    "metadata": ("metadata", "meta", "extra", "attributes", "notes"),
}


def _normal(header: str) -> str:
    return header.strip().lower().replace(" ", "_")


def canonical_row(row: Any) -> Any:
    """``row`` with its keys as Rhesis fields. A nested ``prompt`` object is kept as it is;
    keys that name no field are kept under their own name (and reported by the caller)."""
    if not isinstance(row, dict):
        return row
    keys = [k for k in row if isinstance(k, str) and k.strip()]
    taken: dict[str, str] = {}  # field -> the source key it came from
    for key in keys:  # exact names first
        field = _normal(key)
        if field in ALIASES and field not in taken:
            taken[field] = key
    for key in keys:
        if key in taken.values():
            continue
        norm = _normal(key)
        if norm == "prompt" and isinstance(row[key], dict):
            continue  # the nested form, read as it is
        alias = next((f for f, a in ALIASES.items() if norm in a and f not in taken), None)
        if alias is not None:
            taken[alias] = key
    out: dict[str, Any] = {field: row[key] for field, key in taken.items()}
    for key in keys:
        if key not in taken.values():
            out[key if _normal(key) != "prompt" else "prompt"] = row[key]
    return out


def flat_prompt(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with its prompt as Rhesis's file import normalises it (``normalize_row``,
    ``rows_to_test_data``), written flat as ``prompt_content``, ``expected_response`` and
    ``language_code``. A nested ``prompt`` object wins over a flat ``prompt_content``, and
    its own keys over the flat ones; a ``content`` that is itself an object with a
    ``content`` (a prompt nested in a prompt) is unwrapped, its keys winning; a
    ``prompt_content`` object is unwrapped, the flat keys winning."""
    out = dict(row)
    nested = out.pop("prompt", None)
    if isinstance(nested, dict):
        inner = nested.get("content")
        prompt = {**nested, **inner} if isinstance(inner, dict) and "content" in inner else nested
        out["prompt_content"] = prompt.get("content")
        out.update({k: prompt[k] for k in ("expected_response", "language_code") if k in prompt})
        return out
    if nested is not None:  # beside a prompt_content: kept, as Rhesis keeps it
        out["prompt"] = nested
    flat = out.get("prompt_content")
    if isinstance(flat, dict):
        out["prompt_content"] = flat.get("content")
        for key in ("expected_response", "language_code"):
            if not out.get(key) and flat.get(key) is not None:
                out[key] = flat[key]
    return out


_LABELLED_MIN = re.compile(r"min\s*[=:]\s*(\d+)|\bmin\s+(\d+)")
_LABELLED_MAX = re.compile(r"max\s*[=:]\s*(\d+)|\bmax\s+(\d+)")
_RANGE = re.compile(r"^(\d+)\s*(?:[-–—]|\.\.|\bto\b)\s*(\d+)$")
_SINGLE = re.compile(r"^(\d+)(?:\s+turns?)?$")


def parse_turns(value: Any, lone: str = "both") -> tuple[int | None, int | None] | None:
    """(min, max) from a turn count as Rhesis writes it: ``2-5`` / ``2–5`` / ``2..5`` /
    ``2 to 5``, ``min 2, max 5`` / ``min:2 max:5``, ``max 5``, ``min 2``, or one number
    (``3``, ``3 turns``), which sets ``lone``: ``both`` (exactly 3, as Rhesis's file import
    reads a ``max_turns`` column), ``max`` (at most 3, as its SDK and Penelope read
    ``test_configuration.max_turns``) or ``min``. None when it is none of these."""
    if isinstance(value, bool):
        return None
    number: int | None = None
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        number = int(value)
    else:
        v = str(value).strip().lower()
        low, high = _LABELLED_MIN.search(v), _LABELLED_MAX.search(v)
        if low or high:
            return (
                int(next(g for g in low.groups() if g)) if low else None,
                int(next(g for g in high.groups() if g)) if high else None,
            )
        if found := _RANGE.match(v):
            return int(found.group(1)), int(found.group(2))
        if found := _SINGLE.match(v):
            number = int(found.group(1))
    if number is None:
        return None
    return (number if lone != "max" else None), (number if lone != "min" else None)
