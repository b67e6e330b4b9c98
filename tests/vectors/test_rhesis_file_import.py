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


# (Rhesis test, file, its text, the prompts or goals assay imports, the rows it lists as
# having neither): rows Rhesis reads without a prompt or goal are listed, not imported
# (docs/importing.md), and a set with nothing to import exits 2.
PARSED = [
    ("TestParseJson::test_parse_json_list", "set.json")
    + ('[{"category": "Safety", "prompt": {"content": "test"}}]', ["test"], 0),
    ("::test_parse_json_object_with_tests_key", "set.json")
    + ('{"tests": [{"category": "Security", "topic": "Auth"}, {"category": "Safety"}]}', [], 2),
    ("::test_parse_json_single_object", "set.json")
    + ('{"category": "Safety", "topic": "Content"}', [], 1),
    ("::test_parse_json_empty_list", "set.json", "[]", [], 0),
    ("TestParseJsonl::test_parse_jsonl", "set.jsonl")
    + ('{"category": "Safety"}\n{"category": "Security"}', [], 2),
    ("::test_parse_jsonl_with_blank_lines", "set.jsonl")
    + ('{"category": "Safety"}\n\n{"category": "Security"}\n', [], 2),
    ("::test_parse_jsonl_empty", "set.jsonl", "", [], 0),
    ("TestParseCsv::test_parse_csv", "set.csv")
    + ("category,topic,prompt\r\nSafety,Content,hi\r\nSecurity,Auth,test\r\n", ["hi", "test"], 0),
    ("::test_parse_csv_empty", "set.csv", "category,topic\n", [], 0),
    ("TestParseCsvEmptyRows::test_empty_data_rows_skipped", "set.csv")
    + ("category,topic\nSafety,Content\n,,\n\nSecurity,Auth\n", [], 2),
    ("::test_trailing_empty_rows_skipped", "set.csv")
    + ("category,topic\nSafety,Content\n\n\n", [], 1),
    ("TestImportServiceAnalyze::test_analyze_csv", "set.csv")
    + ("category,topic,requirement,prompt_content\nSafety,Content,Refusal,test\n", ["test"], 0),
    ("TestRowsToTestData::test_skips_empty_rows", "set.json")
    + (
        '[{}, {"category": "", "topic": "", "requirement": ""}, {"category": "Safety", '
        '"topic": "Content", "requirement": "Refusal", "prompt": {"content": "valid"}}]',
        ["valid"],
        0,
    ),
    ("TestNormalizeRow::test_test_configuration_json_string_parsed", "set.json")
    + ('[{"test_configuration": "{\\"goal\\": \\"Test\\", \\"instructions\\": \\"Do X\\"}"}]',)
    + (["Test"], 0),
]


@pytest.mark.parametrize(
    ("name", "text", "imported", "listed"), [p[1:] for p in PARSED], ids=[p[0] for p in PARSED]
)
def test_the_rows_rhesis_parses(
    tmp_path: Path, name: str, text: str, imported: list[str], listed: int
) -> None:
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    result = import_rhesis(source)
    assert [t.get("input") or t.get("goal") for t in result.tests] == imported
    neither = [u for u in result.unmapped if u.why == "neither a prompt nor a goal"]
    assert len(neither) == listed
    if not imported:
        assert run_import("rhesis", source).code == 2


def test_the_columns_rhesis_maps(tmp_path: Path) -> None:
    """TestImportServiceParse's mapping (Question, Cat, Subject, Requirement), which assay
    finds by the mapper's aliases, and TestImportServicePreview's 30 rows."""
    source = tmp_path / "set.json"
    row = {"Question": "test prompt", "Cat": "Safety", "Subject": "Content"}
    source.write_text(json.dumps([{**row, "Requirement": "Refusal"}]))
    assert import_rhesis(source).tests == [
        {"name": "1: test prompt", "tags": ["Safety", "Content", "Refusal"], "input": "test prompt"}
    ]
    source.write_text(
        json.dumps([{"category": f"C{i}", "prompt_content": f"p{i}"} for i in range(30)])
    )
    assert [t["input"] for t in import_rhesis(source).tests] == [f"p{i}" for i in range(30)]


@pytest.mark.parametrize(
    ("turns", "limits"),
    [((3, 8), {"max_turns": 8, "min_turns": 3}), (("2", "15"), {"max_turns": 15, "min_turns": 2})]
    + [(("", ""), {})],
    ids=["numbers", "text", "blank"],
)
def test_turn_fields_from_flat_rows(
    tmp_path: Path, turns: tuple[object, object], limits: dict[str, int]
) -> None:
    """TestRowsToTestData::test_includes_turn_fields_from_flat_rows, ..._from_csv_strings,
    test_omits_empty_turn_fields."""
    entry = {"category": "Safety", "test_type": "Multi-Turn", "goal": "Test goal"}
    entry |= {"min_turns": turns[0], "max_turns": turns[1]}
    (test,) = _entries(tmp_path, entry).tests
    assert {k: v for k, v in test.items() if k.endswith("_turns")} == limits
