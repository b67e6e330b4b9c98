"""JSON helpers, in one place: reading JSON within limits, reading a reply as JSON (code
fences, JSON in prose), JSONPath selection, JSON Schema checks, and naming JSON types.

Used by the dataset readers (``expected_tool_calls`` cells, JSONL lines), the http target
(its response mapping), the metrics that read replies as JSON (``numeric`` with
``response_path``, ``json_valid``, ``json_schema``) and the models' structured replies.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from assay.limits import MAX_NESTING, ValueLimitError, too_deep, too_many_digits


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()  # what a JSONPath finds when nothing is there


# -- reading JSON text within limits ---------------------------------------------------------


def load_bounded(text: str, *, unique_keys: bool = False) -> Any:
    """``json.loads`` within the limits of ``assay.limits``: raises
    ``json.JSONDecodeError`` for text that is not JSON and ``ValueLimitError`` for JSON past
    a limit (nested too deep, an integer too long) or, with ``unique_keys``, for an object
    that gives a key twice (``json.loads`` keeps the last, silently)."""
    try:
        value = _loads_unique_keys(text) if unique_keys else json.loads(text)
    except (json.JSONDecodeError, ValueLimitError):
        raise
    except RecursionError:
        raise ValueLimitError(too_deep()) from None
    except ValueError:  # the only other one: an integer longer than Python converts
        raise ValueLimitError(too_many_digits()) from None
    if nesting(value) > MAX_NESTING:
        raise ValueLimitError(too_deep())
    return value


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) < len(pairs):  # the usual object costs this comparison only
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueLimitError(
                    f"the key {key!r} is given twice in one object, and only the last would "
                    "count: remove one of them"
                )
            seen.add(key)
    return found


_UNIQUE_KEYS_DECODER = json.JSONDecoder(object_pairs_hook=_unique_object)


def _loads_unique_keys(text: str) -> Any:
    """``json.loads(text, object_pairs_hook=_unique_object)``, with one decoder for every
    call: ``json.loads`` builds a decoder for each call given a hook, which took half again
    the time of reading a JSONL dataset of short lines."""
    if text.startswith("\ufeff"):  # what json.loads refuses before it decodes
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    return _UNIQUE_KEYS_DECODER.decode(text)


def nesting(value: Any) -> int:
    """How many arrays and objects deep ``value`` goes (a scalar is 0); counting stops just
    past ``MAX_NESTING``. Iterative, so any depth is safe to measure."""
    depth = 0
    level = [value]
    while level and depth <= MAX_NESTING:
        containers = [v for v in level if isinstance(v, dict | list)]
        if not containers:
            break
        depth += 1
        level = [
            item
            for container in containers
            for item in (container.values() if isinstance(container, dict) else container)
        ]
    return depth


_JSON_KINDS = {dict: "an object", list: "an array", str: "a string", int: "a number"}
_JSON_KINDS |= {float: "a number", bool: "true/false", type(None): "null"}


def json_kind(value: object) -> str:
    """How JSON calls the type of a parsed value: ``an array``, ``a string``, ..."""
    return _JSON_KINDS.get(type(value), type(value).__name__)


# -- a reply as JSON ---------------------------------------------------------------------------

_FENCE_OPENING = re.compile(r"```[\w-]*(?P<space>\s*)")  # matched at one position only
_FENCE = "```"


class NotJson(ValueError):
    """The reply is not JSON; the message says why, for a metric's reasoning."""


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


def load_reply(text: str, *, allow_code_fence: bool = False) -> Any:
    """A reply that is JSON, as a whole (or as one fenced block); NotJson saying why not."""
    if allow_code_fence:
        text = strip_code_fence(text)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotJson(
            f"the response is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        ) from None


def extract_json(text: str) -> Any:
    """The JSON value a model's reply holds: the whole text, a fenced block, or the
    outermost ``{...}`` (local models often wrap JSON in prose). Raises ValueError when
    none parses."""
    stripped = text.strip()
    fenced = strip_code_fence(stripped)
    candidates = [fenced] if fenced is not stripped else []
    candidates.append(stripped)
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        candidates.append(stripped[start : end + 1])
    too_deep_found = False
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:  # not JSON, or a number with more digits than int() takes
            continue
        except RecursionError:
            too_deep_found = True
    if too_deep_found:
        raise ValueError("the reply's JSON is nested too deeply")
    shown = stripped if len(stripped) <= 80 else stripped[:77] + "..."
    raise ValueError(f"the reply is not JSON ({shown!r})" if stripped else "the reply is empty")


def schema_problem(value: Any, schema: dict[str, Any]) -> str | None:
    """The first way ``value`` breaks the JSON Schema ``schema``, in words, or None."""
    from jsonschema import Draft202012Validator  # a slow import, needed only here

    errors = sorted(Draft202012Validator(schema).iter_errors(value), key=lambda e: list(e.path))
    if not errors:
        return None
    err = errors[0]
    where = "/".join(str(p) for p in err.absolute_path)
    return f"{where}: {err.message}" if where else err.message


# -- JSONPath ------------------------------------------------------------------------------------

_SIMPLE_PATH = re.compile(r"^\$(?:\.[A-Za-z_][\w-]*|\[\d+\]|\['[^']*'\]|\[\"[^\"]*\"\])*$")
_STEP = re.compile(r"\.([A-Za-z_][\w-]*)|\[(\d+)\]|\['([^']*)'\]|\[\"([^\"]*)\"\]")


class JsonPath:
    """A JSONPath compiled once; ValueError (``invalid JSONPath ...``) when it does not
    parse. Plain paths (``$.a.b[0]``) skip jsonpath-ng, which is imported only for others."""

    def __init__(self, expression: str) -> None:
        self.expression = expression
        self._steps: list[str | int] | None = None
        self._parsed: Any = None
        if _SIMPLE_PATH.match(expression):
            self._steps = [
                int(m[2]) if m[2] is not None else next(g for g in m.groups() if g is not None)
                for m in _STEP.finditer(expression)
            ]
            return
        try:
            from jsonpath_ng.ext.parser import parse as parse_jsonpath

            self._parsed = parse_jsonpath(expression)
        except Exception as exc:  # jsonpath-ng raises bare Exceptions for syntax errors
            raise ValueError(f"invalid JSONPath {expression!r}: {exc}") from None

    def find(self, document: Any) -> Any:
        """The value at the path; a list when it matches several; ``MISSING`` when none."""
        if self._steps is not None:
            node = document
            for step in self._steps:
                node = _child(node, step)
                if node is MISSING:
                    return MISSING
            return node
        matches = [m.value for m in self._parsed.find(document)]
        if not matches:
            return MISSING
        return matches[0] if len(matches) == 1 else matches

    def first(self, document: Any) -> Any:
        """The first value the path finds; NotJson naming the path when there is none."""
        if self._steps is not None:
            found = self.find(document)
        else:
            matches = self._parsed.find(document)
            found = matches[0].value if matches else MISSING
        if found is MISSING:
            raise NotJson(f"the JSON response has nothing at {self.expression}")
        return found


def _child(node: Any, step: str | int) -> Any:
    if isinstance(step, str):
        return node.get(step, MISSING) if isinstance(node, dict) else MISSING
    return node[step] if isinstance(node, list) and step < len(node) else MISSING
