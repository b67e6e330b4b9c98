"""Turn pydantic's validation errors into assay Problems with readable field paths.

An unknown key is checked against the keys of the part of the suite it was written in (a
typo at the top level is not "corrected" to a key of ``judge``); a key that belongs
elsewhere says where (``model`` goes under judge, simulator or target.openai).
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from assay.errors import Problem


def field_path(loc: Iterable[int | str], prefix: str = "") -> str:
    """``('tests', 1, 'turns', 0, 'input')`` -> ``tests[1].turns[0].input``."""
    path = prefix
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    return path


def _members(annotation: Any) -> tuple[Any, ...]:
    """The types an annotation may hold: ``X | None`` -> ``(X,)``; ``list[X]`` -> itself."""
    if get_origin(annotation) in (Union, types.UnionType):
        return tuple(a for a in get_args(annotation) if a is not type(None))
    return (annotation,)


def _model(annotation: Any) -> type[BaseModel] | None:
    for member in _members(annotation):
        if isinstance(member, type) and issubclass(member, BaseModel):
            return member
    return None


def _item(annotation: Any) -> Any:
    for member in _members(annotation):
        if get_origin(member) is list:
            return get_args(member)[0]
    return None


def model_at(root: type[BaseModel], loc: Sequence[int | str]) -> type[BaseModel] | None:
    """The model that holds the keys at ``loc`` (a pydantic error location), or None."""
    current: Any = root
    for part in loc:
        if isinstance(part, int):
            current = _item(current)
        else:
            model = _model(current)
            if model is None or part not in model.model_fields:
                continue  # a union member's tag in the location: the type stays
            current = model.model_fields[part].annotation
        if current is None:
            return None
    return _model(current)


def _homes(root: type[BaseModel]) -> dict[str, list[str]]:
    """Every key of the suite's models -> the places it may be written."""
    homes: dict[str, list[str]] = {}

    def walk(model: type[BaseModel], path: str, seen: frozenset[type[BaseModel]]) -> None:
        for name, info in model.model_fields.items():
            homes.setdefault(name, []).append(path or "the top level")
            inner = _model(info.annotation)
            listed = _model(_item(info.annotation))
            here = field_path([name], path)
            if inner is not None and inner not in seen:
                walk(inner, here, seen | {inner})
            elif listed is not None and listed not in seen:
                walk(listed, f"{here}[*]", seen | {listed})

    walk(root, "", frozenset({root}))
    return homes


def _unknown_key(key: str, model: type[BaseModel] | None, root: type[BaseModel] | None) -> str:
    message = f"unknown key {key!r}"
    if model is None:
        return message
    hint = difflib.get_close_matches(key, list(model.model_fields), n=1)
    if hint:
        return f"{message}; did you mean {hint[0]!r}?"
    homes = _homes(root).get(key, []) if root is not None else []
    if homes:
        places = homes[0] if len(homes) == 1 else f"{', '.join(homes[:-1])} or {homes[-1]}"
        return f"{message} here; {key!r} goes under {places}"
    known = ", ".join(model.model_fields)
    return f"{message}; the keys here are {known}"


def _locations(exc: ValidationError) -> Iterator[tuple[list[int | str], dict[str, Any]]]:
    for err in exc.errors(include_url=False):
        loc = [p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
        yield loc, dict(err)


def pydantic_problems(
    source: str,
    exc: ValidationError,
    prefix: str = "",
    model: type[BaseModel] | None = None,
    root: type[BaseModel] | None = None,
) -> list[Problem]:
    """One Problem per error. ``model`` is the model validated (for the keys an unknown key
    is compared with), ``root`` the suite's, for where a misplaced key belongs."""
    problems = []
    for loc, err in _locations(exc):
        kind = err["type"]
        got = err.get("input")
        if kind == "extra_forbidden":
            key = str(loc[-1]) if loc else "?"
            owner = model_at(model, loc[:-1]) if model is not None else None
            msg = _unknown_key(key, owner, root or model)
        elif kind == "missing":
            msg = "required field is missing"
        elif kind in ("value_error", "assertion_error"):
            msg = str(err["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
        else:
            msg = f"{err['msg']} (got {got!r})" if not isinstance(got, dict | list) else err["msg"]
        problems.append(Problem(source, field_path(loc, prefix), msg))
    return problems
