"""Dataset files written by the tests themselves: CSV by hand (or with the csv module), XLSX
with xlsxwriter, JSONL one object per line."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
import xlsxwriter
from tests.cli.conftest import assay_cli  # noqa: F401 (the CLI fixture, for the CLI tests here)

Cell = str | int | float | None
FORMATS = ("csv", "xlsx", "jsonl")

Writer = Callable[[Sequence[str], Sequence[Sequence[Cell]]], Path]


def write_table(
    fmt: str, path: Path, header: Sequence[str], rows: Sequence[Sequence[Cell]]
) -> Path:
    """One header and rows in ``fmt``. ``None`` is a blank cell (``null`` in JSONL);
    numbers stay numbers in XLSX (so 1 is stored as the float 1.0) and JSONL."""
    path = path.with_suffix("." + fmt)
    if fmt == "csv":
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(header)
            writer.writerows([["" if c is None else c for c in row] for row in rows])
    elif fmt == "xlsx":
        workbook = xlsxwriter.Workbook(str(path))
        sheet = workbook.add_worksheet()
        sheet.write_row(0, 0, header)
        for r, row in enumerate(rows, 1):
            for c, cell in enumerate(row):
                if cell is not None:
                    sheet.write(r, c, cell)
        workbook.close()
    else:
        lines = [json.dumps(dict(zip(header, row, strict=False))) for row in rows]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(params=FORMATS)
def fmt(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def table(fmt: str, tmp_path: Path) -> Writer:
    """Write a header and rows in each of the three formats in turn."""

    def write(header: Sequence[str], rows: Sequence[Sequence[Cell]]) -> Path:
        return write_table(fmt, tmp_path / "data", header, rows)

    return write


@pytest.fixture
def where(fmt: str) -> Callable[[int], str]:
    """Where data row ``i`` (0-based) is as the user sees it: ``row i+2`` (the header is row
    1) in CSV and XLSX, ``line i+1`` in JSONL."""
    return lambda i: f"line {i + 1}" if fmt == "jsonl" else f"row {i + 2}"


@pytest.fixture
def csv_file(tmp_path: Path) -> Callable[..., Path]:
    """Write CSV text exactly as given, its lines joined by ``newline``, with a BOM if asked."""

    def write(text: str, *, bom: bool = False, newline: str = "\n", name: str = "data.csv") -> Path:
        path = tmp_path / name
        data = text.replace("\n", newline).encode("utf-8")
        path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
        return path

    return write
