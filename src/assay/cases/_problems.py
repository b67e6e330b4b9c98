"""Turn pydantic's validation errors into assay Problems with readable field paths."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

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


def all_field_names(models: Sequence[type[BaseModel]]) -> list[str]:
    return sorted({name for model in models for name in model.model_fields})


def pydantic_problems(
    source: str,
    exc: ValidationError,
    prefix: str = "",
    known_fields: Sequence[str] = (),
) -> list[Problem]:
    problems = []
    for err in exc.errors(include_url=False):
        loc = [p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
        kind = err["type"]
        got = err.get("input")
        if kind == "extra_forbidden":
            key = str(loc[-1]) if loc else "?"
            hint = difflib.get_close_matches(key, known_fields, n=1)
            msg = f"unknown key {key!r}" + (f"; did you mean {hint[0]!r}?" if hint else "")
        elif kind == "missing":
            msg = "required field is missing"
        elif kind in ("value_error", "assertion_error"):
            msg = str(err["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
        else:
            msg = f"{err['msg']} (got {got!r})" if not isinstance(got, dict | list) else err["msg"]
        problems.append(Problem(source, field_path(loc, prefix), msg))
    return problems
