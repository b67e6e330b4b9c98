"""Refuse an .xlsx that would exhaust memory, before python-calamine loads it.

calamine loads the sheet it is asked for (the first, unless a caller names another) into
one dense grid spanning the rows and columns that hold a value: one cell at XFD1048576 asks
for 17 billion cells and aborts the process (a Rust allocation failure, not an exception),
and assay's reader then walks that grid from row 1. So that sheet's cells are scanned
first, and the file is refused when that grid,
counted from row 1 to the last row with a value, would be wider than ``MAX_COLUMNS`` or
larger than ``MAX_CELLS``; or when the sheet holds more than ``MAX_CELLS`` cells or
``MAX_MERGED`` merged ranges, or a cell past a spreadsheet's last row or column. Every part
calamine reads inflates to at most ``MAX_PART_BYTES`` (``_xlsx_parts``).

Two scans, one verdict. The fast scan matches, with regular expressions over the raw
bytes, the form spreadsheet programs write (``<c r="B7" s="1" t="s">``); it gives up on
anything else (an XML prefix, a cell without ``r``) and only ever vouches for an upper
bound. A bound over the limits is checked by the exact scan, which follows calamine's
rules: a cell is at its ``r``, else after the previous cell of its row; it counts when it
holds a value (``<v>`` or ``<is>``).
"""

from __future__ import annotations

import io
import operator
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from assay.datasets._table import column_letters
from assay.datasets._xlsx_parts import OPENED_PARTS, Archive, local_name, sheet_parts

MAX_COLUMNS = 1_000
MAX_CELLS = 10_000_000
MAX_MERGED = 100_000
EXCEL_ROWS = 1_048_576
EXCEL_COLUMNS = 16_384  # XFD

# every unprefixed cell tag; the plain ones (what spreadsheet programs write) with their
# column letters and row number, the others with empty groups
_CELL_TAG = re.compile(
    rb'<c(?: r="([A-Z]{1,3})([0-9]{1,7})"(?: (?:s|t|cm|vm|ph)="[^"<]{0,32}")*/?>|[\s/>])'
)
_PREFIXED = re.compile(rb":c[\s/>]")
_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)
_REF = re.compile(r"([A-Za-z]{0,4})([0-9]{1,12})")
_MAX_TAIL = 4096
_DELETE = "(select them, right-click, Delete) and save"


def check_workbook(workbook: Path | bytes, source: str, sheet: int = 0) -> None:
    """Raise DatasetError when the workbook (a file, or its bytes already read) is not safe
    to hand to calamine to read sheet ``sheet`` (0 is the first); a file that is not a zip
    archive is left to calamine, which says so."""
    try:
        zf = zipfile.ZipFile(workbook if isinstance(workbook, Path) else io.BytesIO(workbook))
    except (zipfile.BadZipFile, OSError, ValueError):
        return
    opened = workbook.open("rb") if isinstance(workbook, Path) else io.BytesIO(workbook)
    with zf, opened as handle:
        archive = Archive(zf, handle, source, sheet)
        for name in OPENED_PARTS:
            for info in archive.entries(name):
                for _ in archive.inflate(info):
                    pass
        for info in sheet_parts(archive, sheet):
            grid = _fast_bound(archive, info)
            if grid is None or grid.too_big():
                grid = _exact(archive, info)
                grid.check(archive)


@dataclass
class _Grid:
    """What calamine will allocate for a sheet; rows and columns are 1-based."""

    cells: int = 0
    merged: int = 0
    last_row: int = 0
    first_column: int = EXCEL_COLUMNS + 1
    last_column: int = 0
    last_row_cell: str = ""
    last_column_cell: str = ""

    @property
    def width(self) -> int:
        return max(0, self.last_column - self.first_column + 1)

    def too_big(self) -> bool:
        return (
            self.width > MAX_COLUMNS
            or self.last_row * self.width > MAX_CELLS
            or self.cells > MAX_CELLS
            or self.merged > MAX_MERGED
        )

    def check(self, archive: Archive) -> None:
        if self.width > MAX_COLUMNS:
            raise archive.fail(
                f"{archive.sheet} has a value in cell {self.last_column_cell}, which makes it "
                f"{self.width:,} columns wide ({column_letters(self.first_column)} to "
                f"{column_letters(self.last_column)}); a dataset may have at most {MAX_COLUMNS:,} "
                f"columns: delete the columns past your data {_DELETE}"
            )
        if self.last_row * self.width > MAX_CELLS:
            raise archive.fail(
                f"{archive.sheet} has a value in cell {self.last_row_cell}, which makes it "
                f"{self.last_row:,} rows × {self.width:,} columns = "
                f"{self.last_row * self.width:,} cells; assay reads at most {MAX_CELLS:,}: "
                f"delete the rows past your data {_DELETE}, or split the file"
            )


def _fast_bound(archive: Archive, info: zipfile.ZipInfo) -> _Grid | None:
    """An upper bound of the grid when every cell is written the plain way, else None."""
    grid = _Grid()
    tail = b""
    for chunk in archive.inflate(info):
        data = tail + chunk
        cut = data.rfind(b"<")  # a tag cut in two waits for the next chunk
        if cut < 0 or data.find(b">", cut) >= 0:
            cut = len(data)
        if not _plain_cells(data[:cut], grid):
            return None
        tail = data[cut:]
        if len(tail) > _MAX_TAIL:  # one tag this long is not a plain cell
            return None
    return grid if _plain_cells(tail, grid) else None


def _plain_cells(data: bytes, grid: _Grid) -> bool:
    """Add the cells of ``data`` to the bound (every plain cell counts as holding a value);
    False when a cell element is not plain, so the bound would not hold."""
    if _PREFIXED.search(data):
        return False
    grid.merged += data.count(b"mergeCell")  # counts <mergeCells> too: a bound
    found = _CELL_TAG.findall(data)
    if not found:
        return True
    if (b"", b"") in found:  # a cell tag that is not plain
        return False
    grid.cells += len(found)
    grid.last_row = max(grid.last_row, max(map(int, map(_SECOND, found))))
    for column in map(column_number, set(map(_FIRST, found))):
        grid.first_column = min(grid.first_column, column)
        grid.last_column = max(grid.last_column, column)
    return True


def _exact(archive: Archive, info: zipfile.ZipInfo) -> _Grid:
    scan = _ExactScan(archive)
    archive.parse(info, scan.start, scan.end)
    return scan.grid


class _ExactScan:
    """calamine's reading of a sheet's cells, positions and values only."""

    def __init__(self, archive: Archive) -> None:
        self.archive = archive
        self.grid = _Grid()
        self.row = 0  # 0-based, as calamine counts
        self.column = 0
        self.cell: tuple[int, int] | None = None  # the open <c>, until its </c>
        self.valued = False

    def start(self, name: str, attrs: dict[str, str]) -> None:
        local = local_name(name)
        if self.cell is not None:
            self.valued = self.valued or local in ("v", "is")
        elif local == "c":
            ref = attrs.get("r")
            if ref is None:
                self.cell = (self.row, self.column)
            else:
                row, column = self._position(ref, cell=True)
                self.cell, self.column = (row, column), column
        elif local == "row" and "r" in attrs:
            self.row = self._position(attrs["r"], cell=False)[0]
        elif local == "mergeCell":
            self.grid.merged += 1
            if self.grid.merged > MAX_MERGED:
                raise self.archive.fail(
                    f"{self.archive.sheet} has more than {MAX_MERGED:,} merged ranges: unmerge "
                    "them (select all, Merge & Center off) and save"
                )

    def end(self, name: str) -> None:
        local = local_name(name)
        if self.cell is not None:
            if local == "c":
                if self.valued:
                    self._add(*self.cell)
                self.cell, self.valued = None, False
                self.column += 1
        elif local == "row":
            self.row, self.column = self.row + 1, 0

    def _position(self, ref: str, cell: bool) -> tuple[int, int]:
        match = _REF.fullmatch(ref)
        if match is None or int(match[2]) == 0 or (cell and not match[1]):
            raise self.archive.fail(
                f"{self.archive.sheet} has a cell reference {ref[:20]!r}, which is not one: "
                "open it in Excel or LibreOffice and save it again"
            )
        return int(match[2]) - 1, column_number(match[1].upper().encode()) - 1

    def _add(self, row: int, column: int) -> None:
        grid = self.grid
        ref = f"{column_letters(column + 1)}{row + 1}"
        if row >= EXCEL_ROWS or column >= EXCEL_COLUMNS:
            raise self.archive.fail(
                f"{self.archive.sheet} has a value in cell {ref}, past the last row (1,048,576) or "
                "column (XFD) a spreadsheet has: the file was not written by a spreadsheet "
                "program; open it in Excel or LibreOffice and save it again"
            )
        grid.cells += 1
        if grid.cells > MAX_CELLS:
            raise self.archive.fail(
                f"{self.archive.sheet} has more than {MAX_CELLS:,} cells; assay reads at most that "
                "many: split the file"
            )
        if row + 1 > grid.last_row:
            grid.last_row, grid.last_row_cell = row + 1, ref
        if column + 1 > grid.last_column:
            grid.last_column, grid.last_column_cell = column + 1, ref
        grid.first_column = min(grid.first_column, column + 1)


def column_number(letters: bytes) -> int:
    """``b"A"`` → 1, ``b"XFD"`` → 16384; ``b""`` → 0."""
    number = 0
    for byte in letters:
        number = number * 26 + byte - 64
    return number
