"""Streaming readers: a dataset file as a header and an iterator of rows of text cells.

Each format lives in its own module (``_read_csv``, ``_read_xlsx``, ``_read_jsonl``); this
module picks one by extension and defines what they all produce. Rows are never loaded
all at once: ``Table.rows`` is consumed while the file is open.
"""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from assay.errors import DatasetError, Problem

SUPPORTED_EXTENSIONS = (".csv", ".xlsx", ".jsonl")

Unit = Literal["row", "line"]


@dataclass
class Table:
    """An open dataset file: its header and a one-shot iterator over its rows.

    ``rows`` yields ``(number, cells)``: the number as the user sees it (a spreadsheet's row
    number, with the header on row 1; a JSONL file's line number) and the cells as text,
    aligned with ``header`` (possibly shorter or longer than it).
    """

    source: str
    header: list[str]
    rows: Iterator[tuple[int, list[str]]]
    unit: Unit = "row"
    first_column: int = 0  # 0-based spreadsheet column of header[0], for column letters

    def where(self, number: int, column: str | None = None) -> str:
        """A location for a Problem: ``row 7, column Answer``."""
        return f"{self.unit} {number}" + (f", column {column}" if column else "")

    def column_letter(self, index: int) -> str:
        """The spreadsheet letter of header position ``index`` (``0`` → ``A``)."""
        return column_letters(self.first_column + index + 1)


def column_letters(number: int) -> str:
    """A spreadsheet's name for column ``number``, counted from 1: ``1`` → ``A``,
    ``16384`` → ``XFD``."""
    letters = ""
    while number > 0:
        number, rem = divmod(number - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def open_table(path: Path, source: str) -> AbstractContextManager[Table]:
    """Open ``path`` with the reader its extension names; ``source`` names it in errors."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_EXTENSIONS:
        shown = suffix or "no extension"
        raise fail(
            source,
            f"unsupported file type ({shown}): a dataset must be "
            + ", ".join(SUPPORTED_EXTENSIONS[:-1])
            + f" or {SUPPORTED_EXTENSIONS[-1]}",
        )
    if not path.exists():
        raise fail(source, "file not found: check the path")
    if path.is_dir():
        raise fail(source, "is a directory, not a dataset file")
    if suffix == ".csv":
        from assay.datasets._read_csv import open_csv

        return open_csv(path, source)
    if suffix == ".xlsx":
        from assay.datasets._read_xlsx import open_xlsx

        return open_xlsx(path, source)
    from assay.datasets._read_jsonl import open_jsonl

    return open_jsonl(path, source)


def fail(source: str, message: str, where: str = "") -> DatasetError:
    """A DatasetError with one problem (readers raise these; callers never see a traceback)."""
    return DatasetError([Problem(source=source, path=where, message=message)])


def not_utf8(path: Path, source: str, hint: str = "save it as UTF-8") -> DatasetError:
    """The error for a file that is not UTF-8, naming the first line that is not (found by
    re-reading the file: the decoder works in chunks, so it cannot say where)."""
    try:
        with path.open("rb") as handle:
            for number, line in enumerate(handle, 1):
                try:
                    line.decode("utf-8")
                except UnicodeDecodeError as exc:
                    byte = line[exc.start]
                    return fail(
                        source, f"not UTF-8 text (byte 0x{byte:02x}): {hint}", f"line {number}"
                    )
    except OSError:
        pass
    return fail(source, f"not UTF-8 text: {hint}")


_JSON_KINDS = {dict: "an object", list: "an array", str: "a string", int: "a number"}
_JSON_KINDS |= {float: "a number", bool: "true/false", type(None): "null"}


def json_kind(value: object) -> str:
    """How JSON calls the type of a parsed value: ``an array``, ``a string``, ..."""
    return _JSON_KINDS.get(type(value), type(value).__name__)


def cell_text(value: object) -> str:
    """A spreadsheet or JSON value as the text a user would see in the cell.

    Integral floats lose their ``.0`` (Excel stores every number as a float, so a turn id of
    1 arrives as ``1.0``); booleans are spelled as a spreadsheet shows them; dates use ISO
    8601; JSON arrays and objects are written back as compact JSON.
    """
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return str(int(value))
        return repr(value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)
