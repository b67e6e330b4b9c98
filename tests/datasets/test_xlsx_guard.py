"""The .xlsx guard in process: memory stays bounded on a zip bomb, the cell-count limit
catches cells written twice, and workbooks that spreadsheet programs write take the fast
scan, whose bound is exact for them."""

from __future__ import annotations

import datetime
import tracemalloc
import zipfile
from pathlib import Path

import pytest
import xlsxwriter
from tests.datasets.crafted import SHEET, row, sheet, text_cell, write_bomb, write_xlsx

from assay.datasets import _xlsx_guard, validate_dataset
from assay.datasets._xlsx_parts import Archive, sheet_parts
from assay.errors import DatasetError


def _bounds(path: Path) -> tuple[object, object]:
    """(fast bound, exact grid) of the first sheet, as (last row, first column, last
    column, cells) or None."""
    with zipfile.ZipFile(path) as zf, path.open("rb") as handle:
        archive = Archive(zf, handle, str(path))
        (info,) = sheet_parts(archive)
        fast = _xlsx_guard._fast_bound(archive, info)
        exact = _xlsx_guard._exact(archive, info)
    dims = lambda g: g and (g.last_row, g.first_column, g.last_column, g.cells)  # noqa: E731
    return dims(fast), dims(exact)


def test_a_zip_bomb_is_refused_in_little_memory(tmp_path: Path) -> None:
    path = write_bomb(tmp_path / "bomb.xlsx", SHEET, 300)
    tracemalloc.start()
    try:
        with pytest.raises(DatasetError) as info:
            validate_dataset(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "inflates to more than 256 MiB" in str(info.value)
    assert peak < 16 << 20  # chunks of 1 MiB, never the 300 MiB part


def test_cells_written_twice_count_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # calamine keeps every cell element before it builds the grid: a 1-cell grid written
    # ten million times is ten million cells of memory
    monkeypatch.setattr(_xlsx_guard, "MAX_CELLS", 5)
    cells = row(1, text_cell("A1", "Question")) + row(2, *[text_cell("A2", "q")] * 5)
    path = write_xlsx(tmp_path / "twice.xlsx", sheet(cells))
    with pytest.raises(DatasetError) as info:
        validate_dataset(path)
    assert [str(p) for p in info.value.problems] == [
        f"{path}: the first sheet has more than 5 cells; assay reads at most that many: "
        "split the file"
    ]


def test_spreadsheet_output_takes_the_fast_scan_with_an_exact_bound(tmp_path: Path) -> None:
    path = tmp_path / "real.xlsx"
    book = xlsxwriter.Workbook(str(path))
    tests = book.add_worksheet("Tests")
    tests.write_row(1, 1, ["Question", "Answer", "turn_id"])
    tests.write_row(2, 1, ["2 + 2?", 4, 1.5])
    tests.write_formula(3, 1, '="Par"&"is"', None, "Paris")
    tests.write_datetime(3, 2, datetime.datetime(2024, 5, 1), book.add_format({"num_format": "d"}))
    tests.merge_range(5, 1, 5, 3, "merged")
    tests.write_blank(9, 7, None, book.add_format({"bold": True}))  # formatted, empty: H10
    book.add_worksheet("Other").write(0, 0, "x")
    book.close()
    # values in B2:D4 and B6 (9 cells); the fast scan also counts the formatted blank cell
    # <c r="H10" s="2"/>: a bound, never below the exact grid
    assert _bounds(path) == ((10, 2, 8, 10), (6, 2, 4, 9))


def test_a_sheet_in_an_unusual_form_takes_the_exact_scan(tmp_path: Path) -> None:
    path = write_xlsx(tmp_path / "odd.xlsx", sheet(row(1, "<c><v>1</v></c>" * 3)))
    assert _bounds(path) == (None, (1, 1, 3, 3))


def test_long_texts_across_chunks_keep_the_fast_scan(tmp_path: Path) -> None:
    # 300 contexts of 20 KB: 6 MiB of sheet, so chunks end inside texts and between tags
    path = tmp_path / "long.xlsx"
    book = xlsxwriter.Workbook(str(path), {"constant_memory": True})
    sheet_ = book.add_worksheet()
    sheet_.write_row(0, 0, ["Question", "context"])
    for i in range(1, 301):
        sheet_.write_row(i, 0, [f"q{i}", ("lorem ipsum " * 2000)[: 20_000 + i]])
    book.close()
    assert _bounds(path) == ((301, 1, 2, 602), (301, 1, 2, 602))
