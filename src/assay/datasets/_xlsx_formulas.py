"""Formula cells with no saved value: calamine reads them as blank, so a row would run with
no Answer (or no Question) while the file looks filled in.

A spreadsheet program saves each formula's result beside it (``<v>``); a file written by a
library that does not compute formulas (openpyxl: ``ws["B2"] = '=UPPER("paris")'``) has the
formula only. The sheet's XML is read for them once, and only when calamine gave a
blank cell: a file without blanks is never read twice. A formula whose saved result is the
empty string (``t="str"`` with an empty ``<v>``) has a value, and is not one of them.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from assay.datasets._table import column_letters, fail
from assay.datasets._xlsx_parts import Archive, local_name, sheet_parts
from assay.errors import DatasetError

_RESAVE = "open and save the file in Excel or LibreOffice so its formulas have values"


class _Found(Exception):
    """Ends the scan at the first one."""


class _Scan:
    """The first formula cell without a saved value, in the order of the sheet's XML."""

    def __init__(self) -> None:
        self.row = 0  # 1-based, as a spreadsheet numbers rows
        self.column = 0  # 1-based
        self.cell: str | None = None  # the open <c>'s reference, until its </c>
        self.text_result = False  # t="str": a formula's text result, possibly empty
        self.formula = False
        self.value: str | None = None  # the <v>'s text; None without one
        self.in_value = False

    def start(self, name: str, attrs: dict[str, str]) -> None:
        local = local_name(name)
        if local == "row":
            self.row = int(attrs["r"]) if attrs.get("r", "").isdigit() else self.row + 1
            self.column = 0
        elif local == "c":
            self.column += 1
            ref = attrs.get("r")
            self.cell = ref or f"{column_letters(self.column)}{self.row}"
            self.text_result = attrs.get("t") == "str"
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
            empty = self.value is None or (not self.value.strip() and not self.text_result)
            if self.formula and empty:
                raise _Found(self.cell)
            self.cell = None


def first_formula_without_value(path: Path, source: str, index: int = 0) -> str | None:
    """The reference (``B2``) of the first formula cell with no saved value on sheet
    ``index`` (0, the first), or None."""
    with zipfile.ZipFile(path) as zf, path.open("rb") as handle:
        archive = Archive(zf, handle, source)
        for info in sheet_parts(archive, index):
            scan = _Scan()
            try:
                archive.parse(info, scan.start, scan.end, scan.text)
            except _Found as found:
                return str(found)
    return None


def formula_without_value(source: str, sheet: str, cell: str) -> DatasetError:
    row = cell.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    return fail(
        source,
        f"cell {cell} of sheet {sheet!r} holds a formula with no saved value (the file was "
        f"written by a program that does not compute formulas), so it would read as blank: "
        f"{_RESAVE}",
        f"row {row}, column {cell[: len(cell) - len(row)]}",
    )
