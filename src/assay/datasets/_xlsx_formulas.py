"""Cells calamine reads as blank though the sheet shows something in them: formula cells
with no saved value, and error cells. A row would run with no Answer (or no Question) while
the file looks filled in.

A spreadsheet program saves each formula's result beside it (``<v>``); a file written by a
library that does not compute formulas (openpyxl: ``ws["B2"] = '=UPPER("paris")'``) has the
formula only. A formula whose saved result is the empty string (``t="str"`` with an empty
``<v>``) has a value, and is not one of them.

An error cell (``t="e"``: a formula's ``#DIV/0!``, ``#N/A``, ``#REF!``, ... or the error
typed in) is given by python-calamine as the empty string, like a blank cell
(python-calamine issue #105), so its error is read here.

The sheet's XML is read for both once, and only when calamine gave a blank cell: a file
without blanks is never read twice.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from assay.datasets._table import column_letters, fail
from assay.datasets._xlsx_guard import column_number
from assay.datasets._xlsx_parts import Archive, local_name, sheet_parts
from assay.errors import DatasetError

_RESAVE = "open and save the file in Excel or LibreOffice so its formulas have values"

# (column, 1-based as a spreadsheet counts; its reference, B2; the error, #DIV/0!)
ErrorCell = tuple[int, str, str]


@dataclass
class HiddenCells:
    """What the sheet's XML holds where calamine reads a blank."""

    formula: str | None = None  # the first formula cell without a saved value (``B2``)
    # the first error cell of each column, by its row (1-based): at most one a column, so
    # a sheet of errors costs no more than its width
    errors: dict[int, list[ErrorCell]] = field(default_factory=dict)


class _Found(Exception):
    """Ends the scan at the first formula without a value."""


class _Scan:
    """Formula cells without a saved value and error cells, in the order of the sheet's XML."""

    def __init__(self) -> None:
        self.row = 0  # 1-based, as a spreadsheet numbers rows
        self.column = 0  # 1-based
        self.cell: str | None = None  # the open <c>'s reference, until its </c>
        self.kind: str | None = None  # its t: "str" a formula's text result, "e" an error
        self.formula = False
        self.value: str | None = None  # the <v>'s text; None without one
        self.in_value = False
        self.seen: set[int] = set()  # columns with an error found
        self.errors: dict[int, list[ErrorCell]] = {}

    def start(self, name: str, attrs: dict[str, str]) -> None:
        local = local_name(name)
        if local == "row":
            self.row = int(attrs["r"]) if attrs.get("r", "").isdigit() else self.row + 1
            self.column = 0
        elif local == "c":
            self.column += 1
            self.cell = attrs.get("r") or f"{column_letters(self.column)}{self.row}"
            self.kind = attrs.get("t")
            self.formula, self.value = False, None
        elif self.cell is not None and local == "f":
            self.formula = True
        elif self.cell is not None and local == "v":
            self.in_value, self.value = True, ""

    def text(self, data: str) -> None:
        if self.in_value and self.value is not None:
            self.value += data

    def end(self, name: str) -> None:
        local = local_name(name)
        if local == "v":
            self.in_value = False
        elif local == "c" and self.cell is not None:
            value = self.value
            empty = value is None or (not value.strip() and self.kind != "str")
            if self.formula and empty:
                raise _Found(self.cell)
            if self.kind == "e" and not empty:
                assert value is not None
                self._error(self.cell, value.strip())
            self.cell = None

    def _error(self, cell: str, error: str) -> None:
        # the column from the reference (B2), worked out for an error cell only: a cell
        # without one is the one after the previous cell
        letters = cell.rstrip("0123456789").upper()
        if letters.isascii() and letters.isalpha():
            self.column = column_number(letters.encode())
        if self.column not in self.seen:
            self.seen.add(self.column)
            self.errors.setdefault(self.row, []).append((self.column, cell, error))


def hidden_cells(path: Path, source: str, index: int = 0) -> HiddenCells:
    """The cells of sheet ``index`` (0, the first) that calamine reads as blank though they
    hold something: the first formula with no saved value (the scan ends there), else every
    column's first error cell."""
    with zipfile.ZipFile(path) as zf, path.open("rb") as handle:
        archive = Archive(zf, handle, source)
        found = HiddenCells()
        for info in sheet_parts(archive, index):
            scan = _Scan()
            try:
                archive.parse(info, scan.start, scan.end, scan.text)
            except _Found as formula:
                return HiddenCells(formula=str(formula))
            for row, cells in scan.errors.items():
                found.errors.setdefault(row, []).extend(cells)
    return found


def formula_without_value(source: str, sheet: str, cell: str) -> DatasetError:
    row = cell.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    return fail(
        source,
        f"cell {cell} of sheet {sheet!r} holds a formula with no saved value (the file was "
        f"written by a program that does not compute formulas), so it would read as blank: "
        f"{_RESAVE}",
        f"row {row}, column {cell[: len(cell) - len(row)]}",
    )


def error_cell(
    source: str,
    sheet: str,
    row: int,
    column: str,
    cell: str,
    error: str,
    why: str = "which would read as blank",
) -> DatasetError:
    """``column``: the column's name in the header row, else its letter."""
    return fail(
        source,
        f"cell {cell} of sheet {sheet!r} holds the error {error}, {why}: fix the formula (or "
        "type the value) and save",
        f"row {row}, column {column}",
    )
