"""What every dataset reader produces: a ``Table`` (a header and an iterator of rows of text
cells), the errors they raise, and how a spreadsheet or JSON value reads as cell text.

The readers (``_read_csv``, ``_read_xlsx``, ``_read_jsonl``) build on this module, and
``readers`` picks one of them by extension: neither imports the other back.
"""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from assay.errors import DatasetError, Problem

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
    # what the reader did that the user should know (merged cells filled), complete once
    # ``rows`` is consumed: ``assay validate`` prints them with the file's warnings
    warnings: list[str] = field(default_factory=list)
    # the header positions the reader's caller reads, once it has mapped the columns (None:
    # all): a cell that cannot be read in another column is no problem of the dataset's
    read_columns: frozenset[int] | None = None

    def where(self, number: int, column: str | None = None) -> str:
        """A location for a Problem: ``row 7, column Answer``."""
        return f"{self.unit} {number}" + (f", column {column}" if column else "")

    def column_letter(self, index: int) -> str:
        """The spreadsheet letter of header position ``index`` (``0`` → ``A``)."""
        return column_letters(self.first_column + index + 1)


def named_width(header: list[str]) -> int:
    """How many of the header's cells are columns: up to its last one with a name (blank
    cells after it name no column; a value under one is an error of its row)."""
    width = len(header)
    while width and not header[width - 1].strip():
        width -= 1
    return width


def column_letters(number: int) -> str:
    """A spreadsheet's name for column ``number``, counted from 1: ``1`` → ``A``,
    ``16384`` → ``XFD``."""
    letters = ""
    while number > 0:
        number, rem = divmod(number - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


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
