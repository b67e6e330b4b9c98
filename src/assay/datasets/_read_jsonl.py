"""JSONL reader: one JSON object per line; its keys are the columns.

A first pass collects the keys (in order of first appearance) and checks every line is a
JSON object; the second pass yields the rows aligned with them. Both passes stream, so
memory does not grow with the file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from assay._json import json_kind, load_bounded
from assay.datasets._table import Table, cell_text, fail, not_utf8
from assay.errors import DatasetError, Problem
from assay.limits import ValueLimitError, lone_surrogate

MAX_PROBLEMS = 20
_EXAMPLE = '{"Question": "Capital of France?", "Answer": "Paris"}'


@contextmanager
def open_jsonl(path: Path, source: str) -> Iterator[Table]:
    header = _collect_keys(path, source)
    with _open(path, source) as handle:
        yield Table(
            source=source, header=header, rows=_rows(handle, header, path, source), unit="line"
        )


def _open(path: Path, source: str) -> Any:
    try:
        return open(path, encoding="utf-8-sig")  # noqa: SIM115 (callers close it)
    except OSError as exc:
        raise fail(source, f"cannot read the file: {exc.strerror}") from None


def _objects(
    handle: Any, path: Path, source: str, *, unique_keys: bool = True
) -> Iterator[tuple[int, Any]]:
    """``json_lines`` of the open file; not UTF-8 is an error naming the line."""
    try:
        yield from json_lines(handle, unique_keys=unique_keys)
    except UnicodeDecodeError:
        raise not_utf8(path, source) from None


def json_lines(lines: Iterable[str], *, unique_keys: bool = True) -> Iterator[tuple[int, Any]]:
    """Non-blank lines, parsed, with their line numbers (from 1, blank lines counted); a
    line that is not JSON, or is past a limit (``limits``), gives its exception, which the
    caller reports (``not_json`` says what is wrong). ``lines``: a file opened as text, or
    ``io.StringIO(text, newline=None)``, which break lines at LF, CR LF and CR only (not,
    as ``str.splitlines`` does, at a U+2028 inside a JSON string). ``assay import rhesis``
    reads a ``.jsonl`` test set with it, so it names the line ``assay validate`` names. An
    object that gives a key twice is a ``ValueLimitError`` (``json.loads`` would keep the
    last value, silently), unless ``unique_keys`` is False."""
    for number, line in enumerate(lines, 1):
        if line.strip():
            try:
                yield number, load_bounded(line, unique_keys=unique_keys)
            except (json.JSONDecodeError, ValueLimitError) as exc:
                yield number, exc


def not_json(exc: json.JSONDecodeError) -> str:
    """A line that is not JSON, said with the column within that line."""
    return f"not valid JSON ({exc.msg} at column {exc.colno})"


def _collect_keys(path: Path, source: str) -> list[str]:
    keys: dict[str, None] = {}
    problems: list[Problem] = []
    seen_object = False
    with _open(path, source) as handle:
        for number, value in _objects(handle, path, source):
            if isinstance(value, dict):
                seen_object = True
                for key, cell in value.items():
                    if key not in keys:
                        keys[key] = None
                        if not key.isascii():
                            _refuse_surrogate(key, source, number, None, problems)
                    kind = cell.__class__
                    if (kind is str and not cell.isascii()) or kind is dict or kind is list:
                        _refuse_surrogate(cell, source, number, key, problems)
                if len(problems) >= MAX_PROBLEMS:
                    break
                continue
            if isinstance(value, ValueLimitError):
                message = str(value)
            else:
                if isinstance(value, json.JSONDecodeError):
                    found = not_json(value)
                else:
                    found = f"{json_kind(value)}, not a JSON object"
                message = f"{found}: each line must be one JSON object, such as {_EXAMPLE}"
            problems.append(Problem(source, f"line {number}", message))
            if len(problems) >= MAX_PROBLEMS:
                break
    if problems:
        raise DatasetError(problems)
    if not seen_object:
        raise fail(source, "the file is empty: expected one JSON object per line")
    return list(keys)


def _refuse_surrogate(
    value: str | dict[str, Any] | list[Any],
    source: str,
    number: int,
    column: str | None,
    problems: list[Problem],
) -> None:
    """A problem for a lone surrogate in a column name (``column`` None) or a cell: a
    ``\\ud800`` escape not half of a pair, which no UTF-8 text holds, so that the question
    could not be sent nor anything stored. A nested cell is searched as its text (its JSON)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    found = lone_surrogate(text)
    if found is None:
        return
    if column is None:
        where, what = f"line {number}", f"the column name {text!r}"
    elif lone_surrogate(column) is None:
        where, what = f"line {number}, column {column}", "the value"
    else:
        return  # the column's name is refused already
    problems.append(
        Problem(
            source,
            where,
            f"{what} holds {found}: a \\ud800-\\udfff escape that is not half of a "
            "surrogate pair, which no UTF-8 text can hold, so it can be neither sent nor "
            "stored: write the character itself (or its whole pair, such as "
            "\\ud83d\\ude00), or remove the escape",
        )
    )


def _rows(
    handle: Any, header: list[str], path: Path, source: str
) -> Iterator[tuple[int, list[str]]]:
    # the first pass (_collect_keys) refused every repeated key: not looked for twice
    for number, value in _objects(handle, path, source, unique_keys=False):
        get = value.get
        yield number, [_text(get(key)) for key in header]


def _text(value: object) -> str:
    if value is True or value is False:
        return "true" if value else "false"
    return cell_text(value)
