"""XLSX reader (python-calamine, read-only): the first visible sheet (or one a caller names),
cell values as text. A hidden sheet (a lookup table, an old version kept out of sight) is
never the one tested silently: the first sheet the workbook shows is read, and a workbook
whose every sheet is hidden is refused.

Formula cells give their cached value (what Excel last computed); one with none (a file
written by openpyxl) is refused, for calamine would read it as blank, and so is an error
cell (``#DIV/0!``, ``#N/A``, ...) in a column that is read (``_xlsx_formulas``).
Integral numbers lose their ``.0``. Merged or blank cells in the header row are refused:
every column needs one name of its own; a merged range below it gives its value to every
cell it covers, as the screen shows it (``_xlsx_merged``). A workbook calamine could not
load within bounded memory (a stray cell at XFD1048576, a zip bomb) is refused before it is
opened (``_xlsx_guard``).
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from python_calamine import CalamineError, CalamineSheet, CalamineWorkbook

from assay.datasets._table import Table, cell_text, column_letters, fail, named_width
from assay.datasets._xlsx_formulas import (
    ErrorCell,
    error_cell,
    formula_without_value,
    hidden_cells,
)
from assay.datasets._xlsx_guard import check_workbook
from assay.datasets._xlsx_merged import Span, merged_filled
from assay.datasets._xlsx_parts import Archive, first_visible, sheet_words, tabs
from assay.errors import DatasetError, Problem


class EmptySheet(DatasetError):
    """The sheet has no value in it: a caller may look at another."""


_T = TypeVar("_T")


def _from_workbook(path: Path, source: str, read: Callable[[Archive], _T], otherwise: _T) -> _T:
    """What ``read`` finds in the workbook's parts, within the guard's bounds; ``otherwise``
    for a file that is not a zip archive, left to ``open_xlsx``, which says so."""
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError):
        return otherwise
    with zf, path.open("rb") as handle:
        return read(Archive(zf, handle, source))


def sheet_tabs(path: Path, source: str) -> tuple[int, int]:
    """(how many sheets the workbook has, at least 1; the index of the one it opens on, its
    active tab), read from ``xl/workbook.xml``."""
    count, active = _from_workbook(path, source, tabs, (1, 0))
    return max(count, 1), active


def first_visible_sheet(path: Path, source: str) -> int:
    """The index of the workbook's first sheet that is not hidden: the one a dataset is."""
    shown: int | None = 0  # (not a zip archive: open_xlsx says what it is)
    index = _from_workbook(path, source, first_visible, shown)
    if index is None:
        raise fail(
            source,
            "every sheet of the workbook is hidden: unhide the sheet that holds the dataset "
            "(right-click a sheet tab, Unhide) and save",
        )
    return index


@contextmanager
def open_xlsx(path: Path, source: str, index: int | None = None) -> Iterator[Table]:
    """Sheet ``index`` (the first visible one, unless a caller names another) as a Table;
    EmptySheet when it has no value."""
    if index is None:
        index = first_visible_sheet(path, source)
    which = sheet_words(index)
    check_workbook(path, source, index)
    try:
        workbook = CalamineWorkbook.from_path(str(path))
    except (CalamineError, OSError, ValueError) as exc:
        raise fail(source, f"cannot read it as an Excel workbook (.xlsx): {_reason(exc)}") from None
    with workbook:
        try:
            sheet = workbook.get_sheet_by_index(index)
        except (CalamineError, IndexError, ValueError) as exc:
            if "cell error value" in str(exc):  # one calamine does not know (#SPILL!, #CALC!)
                _refuse_first_error(path, source, index, workbook.sheet_names[index])
            raise fail(source, f"cannot read {which}: {_reason(exc)}") from None
        empty = EmptySheet([Problem(source, "", f"{which} ({sheet.name!r}) is empty")])
        start = sheet.start
        if start is None:
            raise empty
        # iter_rows() yields the rows above the first used one as blank rows, so its n-th row
        # is spreadsheet row n; columns start at the first used one.
        blanks = _Blanks(path, source, index, sheet.name)
        rows = _numbered(sheet, 1, source, blanks)
        header: list[str] | None = None
        header_number = 0
        for number, cells in rows:
            if any(c.strip() for c in cells):
                header, header_number = cells, number
                break
        if header is None:
            raise empty
        table = Table(source=source, header=header, rows=rows, first_column=start[1])
        blanks.table = table
        merged = sheet.merged_cell_ranges or []
        if merged:
            _refuse_merged_header(merged, header_number - 1, table)
            table.rows = merged_filled(
                rows, merged, header_number, start[1], named_width(header), source, table.warnings
            )
        yield table


class _Blanks:
    """The first blank cell calamine gives has the sheet checked, once, for formulas without
    a saved value and for error cells, which read as blank too. A formula without a value is
    refused at once; an error cell when its row is read, unless its column is one whose
    values are ignored (no name in the header row, or a name the dataset does not read)."""

    def __init__(self, path: Path, source: str, index: int, sheet: str) -> None:
        self.path, self.source, self.index, self.sheet = path, source, index, sheet
        self.errors: dict[int, list[ErrorCell]] | None = None  # by row, once checked
        self.table: Table | None = None  # once the header row is read

    def check(self, number: int) -> None:
        """Row ``number`` (1-based) has a blank cell."""
        if self.errors is None:
            hidden = hidden_cells(self.path, self.source, self.index)
            if hidden.formula is not None:
                raise formula_without_value(self.source, self.sheet, hidden.formula)
            self.errors = hidden.errors
        if self.errors and number in self.errors:
            for column, cell, error in self.errors[number]:
                name = self._read_column(column)
                if name is not None:
                    raise error_cell(self.source, self.sheet, number, name, cell, error)

    def _read_column(self, column: int) -> str | None:
        """How a message names spreadsheet column ``column`` (1-based): its name in the
        header row, else its letter; None when its values are ignored (a blank header cell
        left of the last named column, or a column the dataset does not read)."""
        table = self.table
        if table is None:  # the header row or above it: a title, a column's name
            return column_letters(column)
        header, index = table.header, column - 1 - table.first_column
        if 0 <= index < named_width(header):
            read = table.read_columns
            ignored = not header[index].strip() or (read is not None and index not in read)
            return None if ignored else header[index].strip()
        return column_letters(column)


def _numbered(
    sheet: CalamineSheet, first: int, source: str, blanks: _Blanks
) -> Iterator[tuple[int, list[str]]]:
    """Rows with their spreadsheet row numbers (1-based, as Excel shows them), as text."""
    text = cell_text
    number = first - 1
    try:
        for number, values in enumerate(sheet.iter_rows(), first):
            if "" in values:  # (an error cell reads as "" too)
                blanks.check(number)
            yield number, [v if v.__class__ is str else text(v) for v in values]
    except (OverflowError, ValueError) as exc:  # a date or duration Python cannot hold
        raise fail(
            source,
            f"a cell formatted as a date or time holds a number no date or duration can be "
            f"({exc}): format the cell as a number or as text",
            f"row {number + 1}",
        ) from None


def _refuse_first_error(path: Path, source: str, index: int, sheet: str) -> None:
    """Name the sheet's first error cell: calamine refuses a sheet holding an error it does
    not know, without saying where."""
    errors = hidden_cells(path, source, index).errors
    if errors:
        number = min(errors)
        _, cell, error = min(errors[number])
        letters = cell.rstrip("0123456789")
        why = "which assay cannot read"
        raise error_cell(source, sheet, number, letters, cell, error, why)


def _refuse_merged_header(merged: list[Span], header_index: int, table: Table) -> None:
    for (top, left), (bottom, right) in merged:
        if top <= header_index <= bottom:
            span = (
                f"{table.column_letter(left - table.first_column)}{top + 1}:"
                f"{table.column_letter(right - table.first_column)}{bottom + 1}"
            )
            raise fail(
                table.source,
                f"the header row has merged cells ({span}): unmerge them and give every "
                "column its own name",
                f"row {header_index + 1}",
            )


def _reason(exc: BaseException) -> str:
    return str(exc).strip() or type(exc).__name__
