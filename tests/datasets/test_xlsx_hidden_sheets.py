"""A hidden sheet is never silently the one tested: a dataset is the workbook's first visible
sheet (it was the first sheet, hidden or not), and a workbook whose every sheet is hidden is
refused, naming the fix. Workbooks written by xlsxwriter, as in test_dataset_xlsx.py; the
all-hidden one by hand (xlsxwriter always leaves one sheet shown, as Excel does)."""

from __future__ import annotations

from pathlib import Path

import pytest
import xlsxwriter
from tests.datasets.crafted import HEADER_AND_ONE_ROW, WORKBOOK, sheet, write_xlsx

from assay.datasets import load_dataset, validate_dataset
from assay.errors import DatasetError


def workbook(path: Path, hidden: list[str], very_hidden: list[str]) -> Path:
    """Sheets Old, Tests and Later, each with a row naming its sheet; ``hidden`` and
    ``very_hidden`` hide them (the workbook opens on Tests)."""
    book = xlsxwriter.Workbook(str(path))
    for name in ("Old", "Tests", "Later"):
        page = book.add_worksheet(name)
        page.write_row(0, 0, ["Question", "Answer"])
        page.write_row(1, 0, [f"from {name}", "x"])
        if name == "Tests":
            page.activate()
        if name in hidden:
            page.hide()
        if name in very_hidden:
            page.very_hidden()
    book.close()
    return path


def questions(path: Path) -> list[str]:
    return [r.question for r in load_dataset(path).rows]


@pytest.mark.parametrize(
    ("hidden", "very_hidden", "read"),
    [
        ([], [], "from Old"),  # nothing hidden: the first sheet, as before
        (["Old"], [], "from Tests"),
        ([], ["Old"], "from Tests"),  # hidden so that Excel's Unhide does not list it
        (["Old", "Tests"], [], "from Later"),
    ],
)
def test_the_first_visible_sheet_is_read(
    tmp_path: Path, hidden: list[str], very_hidden: list[str], read: str
) -> None:
    path = workbook(tmp_path / "data.xlsx", hidden, very_hidden)
    assert questions(path) == [read]
    assert validate_dataset(path).rows == 1


def test_a_message_names_the_sheet_read(tmp_path: Path) -> None:
    path = tmp_path / "data.xlsx"
    book = xlsxwriter.Workbook(str(path))
    book.add_worksheet("Old").write_row(0, 0, ["Question"])
    book.add_worksheet("Tests")  # empty
    book.worksheets()[1].activate()
    book.worksheets()[0].hide()
    book.close()
    with pytest.raises(DatasetError, match=r"sheet 2 \('Tests'\) is empty"):
        load_dataset(path)


def test_a_workbook_whose_every_sheet_is_hidden_is_refused(tmp_path: Path) -> None:
    hidden = WORKBOOK.replace('r:id="rId1"/>', 'r:id="rId1" state="hidden"/>')
    assert hidden != WORKBOOK
    path = write_xlsx(tmp_path / "hidden.xlsx", sheet(HEADER_AND_ONE_ROW), xl_workbook=hidden)
    with pytest.raises(DatasetError) as caught:
        validate_dataset(path)
    assert str(caught.value.problems[0]) == (
        f"{path}: every sheet of the workbook is hidden: unhide the sheet that holds the "
        "dataset (right-click a sheet tab, Unhide) and save"
    )
    assert questions(write_xlsx(tmp_path / "shown.xlsx", sheet(HEADER_AND_ONE_ROW))) == ["hi"]
