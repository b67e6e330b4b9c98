"""Rhesis's field names and turn-count forms, as its platform's file import reads them.

Headers are mapped as Rhesis's file import maps them (``file_import/mapping.py``
``auto_map_columns``, then the service's ``_apply_mapping``): trimmed, lower-cased, spaces as
underscores, in file order, each to the first field whose aliases name it and that no
earlier header took, with no preference for an exact field name (``type`` before
``category`` is the category); a header naming a field already taken is not mapped.
``prompt.content``-style keys (a flattened JSON export) map to their field after the others.
The columns are then renamed in file order, a header not mapped keeping its own name: one
spelt exactly as a field (``prompt_content``) is that field, and overwrites what an earlier
header mapped to it brought (``prompt,prompt_content``: the prompt is ``prompt_content``'s);
any other is not read.
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
    ),
    "language_code": ("language_code", "language", "lang", "locale"),
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


# mapped in a second pass, as Rhesis maps a flattened JSON export's keys
DOTTED = {
    "prompt.content": "prompt_content",
    "prompt.expected_response": "expected_response",
    "prompt.language_code": "language_code",
}


def column_fields(headers: list[str]) -> dict[str, str]:
    """Each header Rhesis's ``auto_map_columns`` maps, to its field: in file order, the first
    field (in ``ALIASES`` order) whose aliases name the header and that no earlier header
    took; a header whose own name is a field already taken is skipped; then the dotted
    keys."""
    fields: dict[str, str] = {}
    for header in headers:
        norm = _normal(header)
        if norm in fields.values():
            continue
        field = next(
            (f for f, a in ALIASES.items() if f not in fields.values() and norm in a), None
        )
        if field is not None:
            fields[header] = field
    for header in headers:
        field = DOTTED.get(_normal(header))
        if header not in fields and field is not None and field not in fields.values():
            fields[header] = field
    return fields


def canonical_row(row: Any) -> tuple[Any, dict[str, str]]:
    """``row`` with its keys as Rhesis fields, renamed as Rhesis renames them (a later column
    overwriting an earlier one of the same field), and the columns whose values Rhesis does
    not read, each with why. A nested ``prompt`` object is kept as it is; keys that name
    no field are kept under their own name (and reported by the caller)."""
    if not isinstance(row, dict):
        return row, {}
    keys = [k for k in row if isinstance(k, str) and k.strip()]
    nested = {k for k in keys if _normal(k) == "prompt" and isinstance(row[k], dict)}
    fields = column_fields([k for k in keys if k not in nested])
    out: dict[str, Any] = {}
    came_from: dict[str, str] = {}  # field -> the column its value came from
    lost: dict[str, str] = {}
    for key in keys:
        if key in nested:  # the nested form, read as it is
            out["prompt"] = row[key]
            continue
        field = fields.get(key, key)  # not mapped: its own name, a field's only if spelt so
        if key not in fields and key not in ALIASES:
            norm = _normal(key)
            wanted = [f for f, a in ALIASES.items() if norm in a] + [DOTTED.get(norm, "")]
            taken = [(c, f) for c, f in fields.items() if f in wanted]
            if taken:  # an alias of a field an earlier column took
                column, field = taken[0]
                lost[key] = f"Rhesis reads {field} from the column {column!r}, not this one"
                continue
        if field in came_from:
            why = f"Rhesis reads {field} from the later column {key!r}, which overwrites this one"
            lost[came_from[field]] = why
        out[field] = row[key]
        came_from[field] = key
    return out, {k: why for k, why in lost.items() if _given(row[k])}


def _given(value: Any) -> bool:
    return value not in (None, "", [], {}) and not (isinstance(value, str) and not value.strip())


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
_RANGE = re.compile(r"^(\d+)\s*(?:[-–]|\.\.|\bto\b)\s*(\d+)$")  # not an em dash
_SINGLE = re.compile(r"^(\d+)(?:\s+turns?)?$")


def parse_turns(value: Any, lone: str = "both") -> tuple[int | None, int | None] | None:
    """(min, max) from a turn count as Rhesis writes it: ``2-5`` / ``2–5`` (an en dash; an
    em dash, ``2—5``, is none of these forms in Rhesis either) / ``2..5`` /
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
