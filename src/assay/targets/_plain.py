"""An agent's reply as plain JSON values, or a ``TargetError`` that fails only its turn.

Whatever a Python agent returns is copied here into plain ``dict``/``list``/``str``/``int``/
``float``/``bool``/``None`` before anything else reads it, so that nothing later (the store,
the reports, the metrics) meets the agent's own objects or their methods. The copy is made
without recursion and refuses what no result record could hold: a structure that contains
itself (a cycle), one nested deeper than ``MAX_DEPTH``, one with more than ``MAX_VALUES``
values (shared references copied over and over grow exponentially), and an integer too long
to write as JSON text. Such a reply fails its turn with the path of the offending value.

JSON that assay itself just decoded (``fresh``) is already plain and held by nobody else:
it is only checked against the same limits, not copied.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from assay.errors import TargetError

# Results are stored and read back as JSON inside a few levels of envelope (report, test,
# turn, tool call), and the JSON readers stop at 200 levels: agent data gets well under that.
MAX_DEPTH = 64
MAX_VALUES = 1_000_000
# Python will not write an int of more than 4,300 digits as text; 14,000 bits is ~4,214 digits.
MAX_INT_BITS = 14_000
PATH_SHOWN = 80


def _key(key: Any) -> str:
    """A mapping key as JSON writes it: text as is, true/false/null, numbers as digits."""
    if isinstance(key, str):
        return str.__str__(key)
    if key is None or isinstance(key, bool):
        return {None: "null", True: "true", False: "false"}[key]
    if isinstance(key, int):
        return str(int.__int__(key))
    if isinstance(key, float):
        return repr(float.__float__(key))
    return str(key)


def _children(value: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> Iterator[tuple[Any, Any]]:
    if isinstance(value, dict):
        return iter(dict.items(value))  # not an overridden items()
    return enumerate(list.__iter__(value) if isinstance(value, list) else tuple.__iter__(value))


def _step(path: str, key: Any, in_dict: bool) -> str:
    if not in_dict:
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def _fresh_size(value: dict[str, Any] | list[Any], room: int) -> int:
    """How many values a decoded JSON tree holds below its root, or -1 when it breaks a
    limit, or holds anything ``json.loads`` would not make (then the copy says what)."""
    items: Any = value.values() if type(value) is dict else value
    size = len(items)
    for item in items:
        kind = type(item)
        if kind is dict or kind is list:
            if room <= 1:
                return -1
            below = _fresh_size(item, room - 1)
            if below < 0:
                return -1
            size += below
        elif kind is int:
            if item.bit_length() > MAX_INT_BITS:
                return -1
        elif not (kind is str or kind is float or kind is bool or item is None):
            return -1
    return size


# A decoded body no longer than this cannot break a limit but by its depth: it holds fewer
# values than bytes, and none of its integers has the digits of MAX_INT_BITS (~4,214).
_SHORT_BODY = 4_000


def body_within_limits(raw: bytes) -> bool:
    """Whether every value the JSON text ``raw`` decodes to keeps to the limits (what
    ``plain_json(value, fresh=True)`` checks), read from the text without walking the value:
    a short body with at most ``MAX_DEPTH`` brackets, each container one, inside strings too.
    False says only that the walk must decide."""
    return len(raw) <= _SHORT_BODY and raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH


def plain_json(value: Any, where: str = "", fresh: bool = False, what: str = "the reply") -> Any:
    """A plain copy of ``value``; ``where`` names it in errors (``tool_invocations``), and
    ``what`` whose it is (``the reply cannot be recorded as JSON: ...``).

    ``fresh``: ``value`` was just decoded from JSON by assay, so nothing else holds it; when
    it keeps to the limits it is returned as it is (the copy would be equal)."""
    kind = type(value)
    if (
        fresh
        and (kind is dict or kind is list)
        and 0 <= _fresh_size(value, MAX_DEPTH) <= MAX_VALUES
    ):
        return value
    budget = MAX_VALUES

    def scalar(item: Any, path: str) -> Any:
        if item is None or isinstance(item, bool):
            return item
        if isinstance(item, str):
            return str.__str__(item)  # an exact str, not the agent's subclass
        if isinstance(item, int):
            number = int.__int__(item)
            if number.bit_length() > MAX_INT_BITS:
                raise _unrecordable(path, "is an integer of more than 4,200 digits", what)
            return number
        if isinstance(item, float):
            return float.__float__(item)
        return str(item)  # another object: its text, as json.dumps(default=str) would

    def container(item: Any) -> bool:
        return isinstance(item, dict | list | tuple)

    if not container(value):
        return scalar(value, where)
    root: Any = {} if isinstance(value, dict) else []
    # each frame: the source's children, the copy being filled, the source's id, its path
    stack: list[tuple[Iterator[tuple[Any, Any]], Any, int, str]] = [
        (_children(value), root, id(value), where)
    ]
    open_ids = {id(value)}  # the containers on the current path: meeting one again is a cycle
    while stack:
        children, copy, source_id, path = stack[-1]
        in_dict = isinstance(copy, dict)
        for key, child in children:
            budget -= 1
            if budget < 0:
                raise _unrecordable(where, f"has more than {MAX_VALUES:,} values", what)
            name = _key(key) if in_dict else key
            child_path = _step(path, name, in_dict)
            if container(child):
                if id(child) in open_ids:
                    raise _unrecordable(child_path, "contains itself (a cycle)", what)
                if len(stack) >= MAX_DEPTH:
                    raise _unrecordable(
                        child_path, f"is nested deeper than {MAX_DEPTH} levels", what
                    )
                child_copy: Any = {} if isinstance(child, dict) else []
                _put(copy, name, child_copy)
                stack.append((_children(child), child_copy, id(child), child_path))
                open_ids.add(id(child))
                break
            _put(copy, name, scalar(child, child_path))
        else:  # every child copied: this container is done
            stack.pop()
            open_ids.discard(source_id)
    return root


def _unrecordable(path: str, problem: str, what: str) -> TargetError:
    if len(path) > PATH_SHOWN:  # a 64-level path: its start and end say where
        path = f"{path[: PATH_SHOWN // 2]}…{path[-PATH_SHOWN // 2 :]}"
    return TargetError(f"{what} cannot be recorded as JSON: {path or what} {problem}")


def _put(copy: dict[str, Any] | list[Any], key: Any, item: Any) -> None:
    if isinstance(copy, dict):
        copy[key] = item
    else:
        copy.append(item)
