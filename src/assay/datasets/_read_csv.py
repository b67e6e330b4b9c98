"""CSV reader: UTF-8 (with or without a BOM), any line endings, quoted fields with embedded
newlines, and the delimiter sniffed from the header line (``;`` or a tab when the header
has one and no comma, as European spreadsheets export)."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from assay.datasets._table import Table, fail, not_utf8

# Reference documents in a ``context`` cell can be long; the csv module's default is 128 KiB.
FIELD_SIZE_LIMIT = 2**31 - 1

_UTF8_HINT = "save it as UTF-8 (in Excel: Save As → CSV UTF-8)"


@contextmanager
def open_csv(path: Path, source: str) -> Iterator[Table]:
    try:
        handle = open(path, encoding="utf-8-sig", newline="")  # noqa: SIM115 (closed below)
    except OSError as exc:
        raise fail(source, f"cannot read the file: {exc.strerror}") from None
    with handle:
        delimiter = _sniff_delimiter(handle, path, source)
        csv.field_size_limit(FIELD_SIZE_LIMIT)
        reader = csv.reader(handle, delimiter=delimiter, strict=True)
        records = _numbered(reader, path, source)
        header: list[str] | None = None
        for _number, cells in records:
            if any(c.strip() for c in cells):
                header = cells
                break
        if header is None:
            raise fail(source, "the file is empty: the first row must name the columns")
        yield Table(source=source, header=header, rows=records)


def _sniff_delimiter(handle: TextIO, path: Path, source: str) -> str:
    """``;`` or a tab when the first non-blank line has it and no comma outside quotes;
    else ``,``."""
    with _reading(path, source):
        line = ""
        for line in handle:
            if line.strip():
                break
        handle.seek(0)
    line = "".join(line.split('"')[::2])  # drop quoted text: "Answer, expected";Question
    if "," not in line:
        if ";" in line:
            return ";"
        if "\t" in line:
            return "\t"
    return ","


def _numbered(
    reader: Iterator[list[str]], path: Path, source: str
) -> Iterator[tuple[int, list[str]]]:
    """Number the records as a spreadsheet does (a record with embedded newlines is one row)
    and turn the csv module's and the decoder's exceptions into a DatasetError."""
    number = 0
    with _reading(path, source):
        try:
            for cells in reader:
                number += 1
                yield number, cells
        except csv.Error as exc:
            row = number + 1
            long_cell = cell_too_long(exc)
            if long_cell is not None:
                fix = "shorten it, or save the dataset as JSONL, which has no such limit"
                raise fail(source, f"{long_cell}: {fix}", f"row {row}") from None
            raise fail(
                source,
                f"malformed CSV ({exc}): a field that starts with a quote must end with one, "
                'and a quote inside a quoted field is written twice ("")',
                f"row {row}",
            ) from None


def cell_too_long(exc: csv.Error) -> str | None:
    """``exc`` said as the csv module's refusal of a cell past its field size limit (process
    wide: the limit in effect is the one named), or None when it is another error."""
    if not str(exc).startswith("field larger than field limit"):
        return None
    return (
        f"a cell is longer than {csv.field_size_limit():,} characters, the most a CSV cell may hold"
    )


@contextmanager
def _reading(path: Path, source: str) -> Iterator[None]:
    """The decoder's and the file's errors while the file is read, as a DatasetError."""
    try:
        yield
    except UnicodeDecodeError:
        raise not_utf8(path, source, _UTF8_HINT) from None
    except OSError as exc:
        raise fail(source, f"cannot read the file: {exc.strerror}") from None
