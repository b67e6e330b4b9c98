"""Vectors of Rhesis's platform file import (rhesis-ai/rhesis,
``tests/backend/services/file_import/``: ``test_parsers.py``, ``test_transforms.py``,
``test_service.py``), through ``assay import rhesis``.

Each test feeds assay the file (or the row, as a JSON entry) of the Rhesis test it names and
asserts what that test asserts: the rows Rhesis reads and the prompt or goal it keeps. Where
assay differs on purpose (docs/importing.md: a set with nothing to import exits 2), the test
says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from assay.importers.base import Imported
from assay.importers.rhesis import import_rhesis
from tests.importers.conftest import run_import


@pytest.mark.parametrize(
    ("text", "delimiter"),
    [
        # test_parsers.py::TestParseCsvEmptyRows::test_semicolon_delimiter, with a goal to import
        ("category;topic;goal\nSafety;Content;G1\n", ";"),
        # parsers.py sniffs among , ; tab and |
        ("category|topic|goal\nSafety|Content|G1\n", "|"),
        ("category\ttopic\tgoal\nSafety\tContent\tG1\n", "\t"),
        ("category,topic,goal\nSafety,Content,G1\n", ","),
    ],
    ids=["semicolon", "pipe", "tab", "comma"],
)
def test_the_csv_delimiter_is_sniffed_as_rhesis_sniffs_it(
    tmp_path: Path, text: str, delimiter: str
) -> None:
    source = tmp_path / "set.csv"
    source.write_text(text, encoding="utf-8")
    imported = import_rhesis(source)
    assert imported.tests == [{"name": "1: G1", "tags": ["Safety", "Content"], "goal": "G1"}]
    assert not imported.unmapped, delimiter


def test_a_delimiter_inside_a_cell_does_not_split_it(tmp_path: Path) -> None:
    """The sniffer counts each candidate per line: commas in a semicolon file's prompts do
    not make it a comma file, nor semicolons in a comma file's."""
    source = tmp_path / "set.csv"
    source.write_text("category;prompt_content\nSafety;Hi, there\nSafety;Yes, no\n")
    assert [t["input"] for t in import_rhesis(source).tests] == ["Hi, there", "Yes, no"]
    source.write_text("category,prompt_content\nSafety,a;b\nSafety,c;d\n")
    assert [t["input"] for t in import_rhesis(source).tests] == ["a;b", "c;d"]


def _entries(tmp_path: Path, *entries: dict[str, Any]) -> Imported:
    source = tmp_path / "set.json"
    source.write_text(json.dumps(list(entries)), encoding="utf-8")
    return import_rhesis(source)


@pytest.mark.parametrize(
    "entry",
    [
        # test_transforms.py::TestNormalizeRow::test_prompt_content_dict_unwrapped,
        # test_service.py::TestNormalizeRow::test_prompt_content_is_dict
        {"prompt_content": {"content": "actual text"}, "category": "Safety"},
        # test_service.py::TestRowsToTestData::test_double_nested_prompt_flattened
        {"prompt": {"content": {"content": "actual text"}}, "category": "Safety"},
        # test_service.py::TestNormalizeRow::test_double_nested_prompt_content
        {
            "prompt": {"content": {"content": "actual text", "language_code": "fr"}},
            "category": "Safety",
        },
    ],
    ids=["prompt_content object", "prompt in a prompt", "prompt in a prompt, language"],
)
def test_a_nested_prompt_is_unwrapped_as_rhesis_unwraps_it(
    tmp_path: Path, entry: dict[str, Any]
) -> None:
    imported = _entries(tmp_path, entry)
    assert imported.tests == [
        {"name": "1: actual text", "tags": ["Safety"], "input": "actual text"}
    ]
    # Rhesis keeps the language on the prompt; assay, which has none, lists it wherever it is
    listed = [(u.item, u.what) for u in imported.unmapped]
    assert listed == ([("test 1", "language_code")] if "language" in json.dumps(entry) else [])


def test_the_keys_of_a_nested_prompt_win_as_in_rhesis(tmp_path: Path) -> None:
    """test_transforms.py::test_flat_fields_merged_into_existing_prompt: a flat expected
    response joins a nested prompt without one; the nested one's own, and the inner
    prompt's keys over the outer's, win; a prompt_content object's expected response fills
    in a missing flat one. A flat prompt_content beside a nested prompt is not read, as in
    Rhesis, and is listed."""
    imported = _entries(
        tmp_path,
        {"prompt": {"content": "hello"}, "expected_response": "world"},
        {"prompt": {"content": "q2", "expected_response": "a2"}, "expected_response": "no"},
        {
            "prompt": {
                "content": {"content": "q3", "expected_response": "a3"},
                "expected_response": "no",
            }
        },
        {"prompt_content": {"content": "q4", "expected_response": "a4"}},
        {"prompt": {"content": "q5"}, "prompt_content": "not read"},
    )
    pairs = [(t["input"], t.get("ground_truth")) for t in imported.tests]
    assert pairs == [("hello", "world"), ("q2", "a2"), ("q3", "a3"), ("q4", "a4"), ("q5", None)]
    assert [(u.item, u.what) for u in imported.unmapped] == [("test 5", "prompt_content")]


def _workbook(tmp_path: Path, sheets: dict[str, list[tuple[Any, ...]]], active: int = 0) -> Path:
    """test_parsers.py's _make_xlsx_bytes: one sheet per entry, rows appended in order."""
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(list(row))
    book.active = active
    path = tmp_path / "set.xlsx"
    book.save(path)
    return path


HEADER = ("category", "topic", "goal")


@pytest.mark.parametrize(
    ("sheets", "goals"),
    [
        # TestParseXlsx::test_basic_xlsx
        (
            {"Sheet1": [HEADER, ("Safety", "Content", "G1"), ("Security", "Auth", "G2")]},
            ["G1", "G2"],
        ),
        # ::test_blank_first_row_skipped
        ({"Sheet1": [(None, None, None), HEADER, ("Safety", "Content", "G1")]}, ["G1"]),
        # ::test_empty_trailing_rows_skipped, ::test_empty_middle_rows_skipped
        (
            {
                "Sheet1": [
                    HEADER,
                    ("S", "C", "G1"),
                    (None, None, None),
                    ("", "", ""),
                    ("S", "C", "G2"),
                ]
            },
            ["G1", "G2"],
        ),
        # ::test_multi_sheet_falls_back_to_data_sheet
        ({"Empty": [], "Data": [HEADER, ("Safety", "Content", "G1")]}, ["G1"]),
        # parsers.py: a sheet with a header and no row below it is passed over too
        ({"Header": [HEADER], "Data": [HEADER, ("Safety", "Content", "G1")]}, ["G1"]),
        # ::test_none_header_cells_skipped
        ({"Sheet1": [("category", None, "goal"), ("Safety", "ignored", "G1")]}, ["G1"]),
    ],
    ids=["basic", "blank first row", "blank rows", "empty first sheet", "header only", "no name"],
)
def test_the_sheet_and_rows_rhesis_reads(
    tmp_path: Path, sheets: dict[str, list[tuple[Any, ...]]], goals: list[str]
) -> None:
    imported = import_rhesis(_workbook(tmp_path, sheets))
    assert [t["goal"] for t in imported.tests] == goals
    assert not imported.unmapped


def test_the_active_sheet_is_read_first_as_openpyxl_opens_it(tmp_path: Path) -> None:
    """parsers.py tries wb.active (the tab the workbook was saved on) before the others."""
    sheets = {
        "First": [HEADER, ("S", "C", "from the first")],
        "Saved on": [HEADER, ("S", "C", "G")],
    }
    assert [t["goal"] for t in import_rhesis(_workbook(tmp_path, sheets, active=1)).tests] == ["G"]
    sheets = {"First": [HEADER, ("S", "C", "G")], "Saved on": []}
    assert [t["goal"] for t in import_rhesis(_workbook(tmp_path, sheets, active=1)).tests] == ["G"]


@pytest.mark.parametrize(
    "sheets",
    [{"Sheet1": []}, {"Sheet1": [HEADER]}, {"Empty": [], "Header": [HEADER]}],
    ids=["empty", "header only", "no sheet with a row"],
)
def test_a_workbook_with_no_row_is_an_empty_set(
    tmp_path: Path, sheets: dict[str, list[tuple[Any, ...]]]
) -> None:
    """TestParseXlsx::test_empty_xlsx_returns_empty_list, ::test_headers_only_returns_empty_
    list: Rhesis reads no row; assay imports none, and (docs/importing.md) exits 2 on a set
    with nothing to import."""
    assert import_rhesis(_workbook(tmp_path, sheets)).tests == []
    run = run_import("rhesis", tmp_path / "set.xlsx")
    assert run.code == 2 and "nothing in it could be mapped" in run.stderr


def test_a_sheet_read_after_the_first_is_guarded_as_the_first_is(tmp_path: Path) -> None:
    """The sheet fallen back to is checked before calamine loads it, and named."""
    book = openpyxl.Workbook()
    book.active.title = "Empty"
    wide = book.create_sheet("Wide")
    wide.append(HEADER)
    wide.cell(row=2, column=16384, value="x")
    book.save(tmp_path / "set.xlsx")
    run = run_import("rhesis", tmp_path / "set.xlsx")
    assert run.code == 2 and "sheet 2 has a value in cell XFD2, which makes it 16,384" in run.stderr


def test_a_workbook_row_is_named_as_its_csv_row_is(tmp_path: Path) -> None:
    """A spreadsheet's rows are numbered as it shows them, and called rows (not tests), as a
    CSV file's are."""
    sheets = {"Sheet1": [HEADER, ("Safety", "Content", "G1"), ("Safety", "Content", None)]}
    listed = [(u.item, u.why) for u in import_rhesis(_workbook(tmp_path, sheets)).unmapped]
    assert listed == [("row 3", "neither a prompt nor a goal")]
